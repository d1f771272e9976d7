// SnapshotFlow: AUTO CDC FROM SNAPSHOT (SEMANTICS §7) — versioned snapshot files found in a
// folder, or one file re-read each run, diffed against the previous snapshot's state and applied
// in ascending version, each snapshot as one commit that also records the state it leaves.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "apply/flow_definition.h"
#include "base/progress.h"
#include "base/result.h"
#include "data/data_type.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/change_source.h"
#include "sources/snapshot/snapshot_diff.h"

namespace cdclake::pipeline {

/// A snapshot's version: a number (BIGINT), a date (DATE) or a timestamp (TIMESTAMP, UTC), as
/// an integer that orders them (the number, days or microseconds since the epoch).
struct SnapshotVersion {
  enum class Kind { kNumber, kDate, kTimestamp };
  Kind kind = Kind::kNumber;
  int64_t value = 0;
  std::string text;  // as given: "3", "2024-01-02", "2024-01-02T10:30:00Z"

  /// The sequence type the version has in the target (__START_AT, __END_AT for SCD2).
  data::TypePtr type() const;
};

/// Parses "42", "-1", "2024-01-02", "2024-01-02T10:30:00[.ffffff][Z]" (':' or '-' between the
/// time's parts, so file names can hold it). kInvalidArgument for anything else.
Result<SnapshotVersion> ParseSnapshotVersion(std::string_view text);

/// The version of a timestamp in microseconds since the epoch (periodic sources' run time).
SnapshotVersion TimestampVersion(int64_t micros);

/// One snapshot file and its version.
struct SnapshotFile {
  std::string path;
  SnapshotVersion version;
};

/// The snapshot files directly in `dir`: names ending `_<version>.<ext>` or `<version>.<ext>`
/// with ext csv, jsonl, json, ndjson or parquet (other files and names starting with '.' or '_'
/// are not snapshots), in ascending version. kInvalidArgument for a snapshot-like name without
/// a version, two files of one version, or versions of different kinds.
Result<std::vector<SnapshotFile>> DiscoverSnapshots(const io::FileSystem& fs,
                                                    const std::string& dir);

/// The reader for a file name's extension (csv; jsonl, json, ndjson; parquet).
std::optional<sources::SourceFormat> SnapshotFormatFromPath(const std::string& path);

struct SnapshotFlowOptions {
  /// The files' format; default: each file's extension.
  std::optional<sources::SourceFormat> format;
  /// Types to read columns as (recommended: inferred types can differ between snapshots).
  std::optional<data::Schema> schema;
  /// Bytes the diff's sort buffer may hold before it spills; 0 takes CDCLAKE_SNAPSHOT_MEMORY
  /// (bytes, or with a K, M or G suffix) or else 512 MiB.
  int64_t memory_budget_bytes = 0;
  /// A snapshot with more changes than this is applied in several commits (the last records
  /// the snapshot as applied; a crash in between is repaired by the next run).
  int64_t commit_rows = 1 << 20;
  apply::ApplyOptions apply;
  /// Hears of the snapshots diffed and applied, of those given.
  ProgressFn progress;
  /// Called with each snapshot file's columns (formats that know them at open: CSV, JSON
  /// Lines, Parquet) and the previous snapshot's columns the flow keeps (null when not known)
  /// before anything of it is read or applied; an error stops the run there, the snapshots
  /// before it applied.
  std::function<Status(const data::Schema& columns, const data::Schema* previous,
                       const std::string& path)>
      check_columns;
};

/// What became of one snapshot.
struct SnapshotOutcome {
  std::string path;
  SnapshotVersion version;
  bool applied = false;  // false: skipped, see `reason`
  std::string reason;
  sources::snapshot::SnapshotDiffCounts diff;
  apply::ApplyCounts counts;
  std::vector<int64_t> table_versions;  // commits written for it
};

struct SnapshotRunResult {
  std::vector<SnapshotOutcome> snapshots;
  apply::ApplyCounts counts;            // summed over the applied snapshots
  std::vector<int64_t> table_versions;  // every commit written
  std::optional<SnapshotVersion> last_applied;
  bool state_rebuilt = false;  // the state was missing and was rebuilt from the table
};

/// Applies `files` to `flow`'s target in ascending version; those whose version is not above
/// the last applied one are skipped and reported. The flow's keys, columns, SCD type and
/// tracked history are used; its sequence and delete condition are the snapshot's own. State
/// lives under `<target>/_cdclake/snapshot/` (docs/snapshots.md); when it is missing it is
/// rebuilt from the target's rows.
Result<SnapshotRunResult> ApplySnapshots(io::FileSystem& fs, const apply::FlowDefinition& flow,
                                         std::vector<SnapshotFile> files,
                                         const SnapshotFlowOptions& options);

/// DiscoverSnapshots(dir), then ApplySnapshots.
Result<SnapshotRunResult> ApplySnapshotFolder(io::FileSystem& fs, const apply::FlowDefinition& flow,
                                              const std::string& dir,
                                              const SnapshotFlowOptions& options);

/// A periodic source: `path` is read whole as the snapshot of `version` (default: now, as a
/// timestamp).
Result<SnapshotRunResult> ApplyPeriodicSnapshot(io::FileSystem& fs,
                                                const apply::FlowDefinition& flow,
                                                const std::string& path,
                                                std::optional<SnapshotVersion> version,
                                                const SnapshotFlowOptions& options);

/// The memory budget `options` gives (see SnapshotFlowOptions::memory_budget_bytes).
Result<int64_t> SnapshotMemoryBudget(const SnapshotFlowOptions& options);

}  // namespace cdclake::pipeline
