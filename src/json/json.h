// JSON reading and writing: nlohmann::json behind a parse that returns errors as values, and
// typed field accessors that name the field when it is missing or of the wrong type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cdclake::json {

using Json = nlohmann::json;

/// Parses one JSON document; kCorrupt("invalid JSON at byte N: ...") on bad input.
Result<Json> Parse(std::string_view text);

/// Compact serialization (no spaces), UTF-8 passed through.
std::string Dump(const Json& value);

// Field access on an object. `Get*` fail with kCorrupt when the field is missing or has another
// type; `Opt*` return nullopt when it is missing or null and fail only on another type.
Result<std::string> GetString(const Json& object, std::string_view key);
Result<int64_t> GetInt(const Json& object, std::string_view key);
Result<bool> GetBool(const Json& object, std::string_view key);
Result<std::optional<std::string>> OptString(const Json& object, std::string_view key);
Result<std::optional<int64_t>> OptInt(const Json& object, std::string_view key);
Result<std::optional<bool>> OptBool(const Json& object, std::string_view key);
/// A JSON object of string (or null) values, e.g. partitionValues or configuration.
Result<std::optional<std::map<std::string, std::optional<std::string>>>> OptStringMap(
    const Json& object, std::string_view key);

}  // namespace cdclake::json
