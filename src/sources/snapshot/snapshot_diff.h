// SnapshotDiff: one full snapshot compared with the previous one (SEMANTICS §7) by a sort-merge
// on the key within a memory budget: the upserts and deletes as change batches, and the new
// snapshot state (the sorted (key, row) file the next snapshot is compared with).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "data/value.h"
#include "io/file_system.h"
#include "sources/change_source.h"

namespace cdclake::sources::snapshot {

/// The columns a diff adds after the snapshot's: the snapshot's version (the sequence of every
/// change) and what the change is (kUpsertOperation or kDeleteOperation).
inline constexpr std::string_view kVersionColumn = "__cdclake_snapshot_version";
inline constexpr std::string_view kOperationColumn = "__cdclake_snapshot_op";
inline constexpr std::string_view kUpsertOperation = "upsert";
inline constexpr std::string_view kDeleteOperation = "delete";

/// The sort buffer's default budget: 512 MiB.
inline constexpr int64_t kDefaultMemoryBudgetBytes = int64_t{512} << 20;

struct SnapshotDiffOptions {
  std::vector<std::string> keys;
  /// Which of the snapshot's columns to keep (the keys always are); all when empty.
  std::function<bool(const std::string&)> keep_column;
  /// The snapshot's version, of `version_type`, and its text for the state and messages.
  data::Value version;
  data::TypePtr version_type;
  std::string version_text;
  /// The previous snapshot's state file; empty for the first snapshot.
  std::string previous_state;
  /// Where the new state goes (published by Finish).
  std::string new_state;
  /// Folder for spilled sort runs (created when needed; run files are removed when done).
  std::string spill_dir;
  /// Bytes the sort buffer may hold before it spills a run.
  int64_t memory_budget_bytes = kDefaultMemoryBudgetBytes;
  /// Changes per batch returned by Next.
  int64_t batch_rows = 1 << 16;
};

struct SnapshotDiffCounts {
  int64_t rows = 0;       // rows in the snapshot
  int64_t inserted = 0;   // keys new since the previous snapshot
  int64_t updated = 0;    // keys whose row changed
  int64_t unchanged = 0;  // keys whose row is the same
  int64_t deleted = 0;    // keys gone since the previous snapshot
  int64_t spilled_runs = 0;
  int64_t peak_sort_bytes = 0;
};

/// What a state file's header says.
struct SnapshotStateInfo {
  std::string version_text;
  std::vector<std::string> keys;
  data::Schema columns;  // the kept columns, keys included, in snapshot order
};

/// Reads the header of the state file at `path` (kCorrupt when it is not one).
Result<SnapshotStateInfo> ReadSnapshotStateInfo(const io::FileSystem& fs, const std::string& path);

class SnapshotDiff {
 public:
  /// Reads `source` whole and sorts it by key (spilling past the budget), then opens the
  /// previous state. kInvalidArgument naming the file and line for: a record the source
  /// rejected (a snapshot must be read whole: a lost row would become a delete), a NULL key, a
  /// key that appears twice (found while merging, so Next may return it), a key column that is
  /// missing or whose type changed since the previous snapshot.
  static Result<std::unique_ptr<SnapshotDiff>> Open(io::FileSystem& fs, ChangeSource& source,
                                                    SnapshotDiffOptions options);
  ~SnapshotDiff();

  /// The columns of every batch: the kept snapshot columns, kVersionColumn, kOperationColumn.
  const data::Schema& schema() const;

  /// The next changes in key order, or nullopt when all are out. Deletes carry the key and
  /// NULL elsewhere.
  Result<std::optional<change::ChangeBatch>> Next();

  /// Publishes the new state. REQUIRES: Next returned nullopt.
  Status Finish();

  const SnapshotDiffCounts& counts() const;

 private:
  class Impl;
  explicit SnapshotDiff(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace cdclake::sources::snapshot
