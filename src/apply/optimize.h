// Optimize: compaction of a target — files with many deleted rows, or too few rows, are
// rewritten into fewer files, and the key index follows the rows that moved.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apply/key_index.h"
#include "base/progress.h"
#include "base/result.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::apply {

/// The table property listing a target's key columns (a JSON array), written when the engine
/// creates the target; optimize needs it to find each moved row's key.
inline constexpr const char* kKeysProperty = "cdclake.keys";
std::string KeysPropertyValue(const std::vector<std::string>& keys);

struct OptimizeOptions {
  /// A file whose deletion vector removes at least this fraction of its rows is rewritten.
  double max_deleted_fraction = 0.2;
  /// Files with fewer live rows than this are merged (when there are at least two).
  int64_t small_file_rows = 100000;
  /// Rows per rewritten file at most.
  int64_t target_file_rows = 1 << 20;
  /// Processing time for the removes (ms since the epoch); 0: the wall clock.
  int64_t now_ms = 0;
  /// Hears of the files read and rewritten, of those chosen.
  ProgressFn progress;
};

struct OptimizeResult {
  int64_t files_removed = 0;
  int64_t files_added = 0;
  int64_t rows_written = 0;
  int64_t deleted_rows_purged = 0;  // rows masked by deletion vectors, gone for good
  std::optional<int64_t> version;   // nullopt when nothing needed rewriting
};

/// Compacts `snapshot`'s table using (and updating) its key index `index`, in one commit
/// (operation OPTIMIZE, dataChange false).
Result<OptimizeResult> OptimizeTable(io::FileSystem& fs,
                                     const std::shared_ptr<const delta::Snapshot>& snapshot,
                                     KeyIndex& index, const OptimizeOptions& options);

/// Opens the table at `table_root` and its key index, and compacts it.
Result<OptimizeResult> Optimize(io::FileSystem& fs, const std::string& table_root,
                                const OptimizeOptions& options, bool persistent_index = true);

}  // namespace cdclake::apply
