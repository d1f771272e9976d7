// String helpers: percent-encoding (URI paths in the Delta log), splitting, case.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake {

/// Decodes %XX escapes; kCorrupt on a malformed escape.
Result<std::string> PercentDecode(std::string_view text);
/// Escapes every byte that RFC 3986 does not allow in a path segment, '%' included.
std::string PercentEncodePath(std::string_view text);
std::vector<std::string> Split(std::string_view text, char separator);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
std::string ToLower(std::string_view text);
/// The names with ", " between them ("a, b, c").
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace cdclake
