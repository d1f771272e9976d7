// LogSegment: the files of `_delta_log` that make up one version of a table (§Delta Log
// Entries, §Checkpoints): the newest complete checkpoint at or before it — classic, multi-part
// or v2 — and the commits after it, which must be contiguous.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::delta {

struct LogFile {
  int64_t version = 0;
  std::string path;
  int64_t modification_time_ms = 0;
};

struct LogSegment {
  int64_t version = -1;
  int64_t checkpoint_version = -1;            // -1: replay from commit 0
  std::vector<std::string> checkpoint_files;  // the parts of that checkpoint, in order
  int64_t checkpoint_modification_time_ms = 0;
  std::vector<LogFile> commits;  // versions checkpoint_version+1 .. version
  int64_t latest_version = -1;   // the newest commit in the log
};

/// The log folder of a table.
std::string LogDir(const std::string& table_root);
/// "<root>/_delta_log/00000000000000000012.json".
std::string CommitPath(const std::string& table_root, int64_t version);

/// Lists the log and picks the files for `version` (default: the latest). kNotFound when the
/// folder holds no Delta table; kCorrupt when a needed commit is missing.
Result<LogSegment> ListLogSegment(const io::FileSystem& fs, const std::string& table_root,
                                  std::optional<int64_t> version = std::nullopt);

/// Whether `table_root` holds a Delta table: a log folder with at least one commit or
/// checkpoint. A folder whose creation was cut short (an empty `_delta_log`) is no table yet, so
/// a writer creates it again.
Result<bool> TableExists(const io::FileSystem& fs, const std::string& table_root);

/// Every commit file in the log (ascending), for history and timestamps.
Result<std::vector<LogFile>> ListCommits(const io::FileSystem& fs, const std::string& table_root);

}  // namespace cdclake::delta
