// Input discovery: what an input pattern names — one file, every file of a folder, or the files
// a glob (`*`, `?`, `[...]`, `**`) matches — as a list sorted bytewise by path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::sources {

/// Whether `pattern` holds a glob character (`*`, `?` or `[`).
bool HasGlob(std::string_view pattern);

/// Whether `path` matches `pattern`, both split at '/'. Within a part, `*` matches any run of
/// characters and `?` any one character (neither matches '/'); `[abc]`, `[a-z]` and `[!a]` (or
/// `[^a]`) match one character of (or not of) the set. A part that is exactly `**` matches any
/// number of folders, none included. A `[` without its `]` matches itself.
bool GlobMatch(std::string_view pattern, std::string_view path);

/// Whether a folder listing skips `name`: names starting with `_` or `.` (`_delta_log`,
/// `_SUCCESS`, `.crc` files, editors' temporary files).
bool IsHiddenName(std::string_view name);

struct InputListing {
  /// The files, sorted bytewise by path, each once.
  std::vector<std::string> files;
  /// The pattern named one file (no glob character, not a folder).
  bool named_file = false;
};

/// The files `pattern` names:
/// - a path without glob characters naming a file: that file;
/// - a folder: the regular files directly inside it, skipping hidden names (IsHiddenName);
/// - a glob: the regular files whose path matches it (GlobMatch). Wildcards do not match
///   hidden names (a part that itself starts with `_` or `.` does).
/// A glob matching nothing gives an empty list, which is normal for a stream folder not written
/// to yet; with `require_match` it is kNotFound naming the pattern. A path without glob
/// characters that does not exist is always kNotFound.
Result<InputListing> DiscoverInputs(const io::FileSystem& fs, const std::string& pattern,
                                    bool require_match = false);

}  // namespace cdclake::sources
