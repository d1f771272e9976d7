// Vacuum: deletes the files under a table that no snapshot within the retention period needs
// (PROTOCOL.md §Add File and Remove File, tombstones; `delta.deletedFileRetentionDuration`),
// and parses that property's "interval N <unit>" form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::delta {

/// The default of `delta.deletedFileRetentionDuration`.
inline constexpr std::string_view kDefaultDeletedFileRetention = "interval 1 week";

/// Milliseconds in an interval as Delta table properties write them: "interval 1 week",
/// "interval 168 hours", "2 days 12 hours", "INTERVAL 30 MINUTES" — an optional "interval" and
/// one or more "<non-negative integer> <unit>" pairs. Units, singular or plural, any case:
/// week, day, hour, minute, second, millisecond, microsecond, nanosecond (abbreviations
/// "min", "sec", "ms", "us", "ns" too); sub-millisecond parts round down. kInvalidArgument for
/// anything else, months and years included (a month has no fixed length).
Result<int64_t> ParseIntervalMs(std::string_view text);

/// `delta.deletedFileRetentionDuration` of the snapshot's table, in milliseconds (default one
/// week); kInvalidArgument naming the property when it does not parse.
Result<int64_t> DeletedFileRetentionMs(const Snapshot& snapshot);

struct VacuumFile {
  std::string path;  // as the file system names it: the table root joined with the relative path
  int64_t size = 0;
  int64_t modification_time_ms = 0;
};

struct VacuumResult {
  int64_t version = -1;           // the snapshot whose files were kept
  int64_t retention_ms = 0;       // the retention applied
  int64_t cutoff_ms = 0;          // files modified before this, and not referenced, go
  bool dry_run = false;           // true: nothing was deleted
  std::vector<VacuumFile> files;  // deleted (or, in a dry run, to delete), ordered by path
  int64_t bytes = 0;              // their total size
  int64_t files_scanned = 0;      // files looked at (outside the skipped folders)
};

/// Deletes, under `table_root`, every file that is
///   * not referenced by the latest snapshot: not a live add, not the deletion-vector file of a
///     live add, and not a file (or DV file) removed less than the retention before `now_ms`
///     (a tombstone without a deletionTimestamp counts as removed at 0, as Spark reads it);
///   * and last modified before `now_ms` minus the retention (so files of commits in flight
///     survive).
/// The retention is `retain_hours` when given (kInvalidArgument when negative or not finite),
/// else the table's `delta.deletedFileRetentionDuration`.
///
/// Never touched: `_delta_log`, and any file or folder whose name starts with '_' or '.'
/// (temporary files, `_sidecars`, engine metadata), with two exceptions Spark also makes:
/// `_change_data` (change data files are never live adds; they are kept for the retention and
/// deleted after it, which ends change-data-feed reads of versions that old), and partition
/// folders named `<partition column>=...` when the column's name starts with '_'. Folders left
/// empty stay (the file system has no folder removal).
///
/// Refuses (kNotSupported) a table whose writer protocol is unknown to cdclake
/// (§VACUUM Protocol Check: vacuum is a writer). With `dry_run`, only lists. A failed delete
/// stops the vacuum and returns its error, naming how many files were deleted before it.
/// `progress` hears of the files deleted.
Result<VacuumResult> Vacuum(io::FileSystem& fs, const std::string& table_root,
                            std::optional<double> retain_hours, bool dry_run, int64_t now_ms,
                            const ProgressFn& progress = {});

}  // namespace cdclake::delta
