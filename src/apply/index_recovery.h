// IndexRecovery: opening a target's key index when `<table>/_cdclake/` is missing or damaged.
// The index is replayed from the index log when that is whole, else rebuilt from the table's
// rows with the purge horizon raised to the largest applied sequence. See docs/apply.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "apply/flow_definition.h"
#include "apply/key_index.h"
#include "base/progress.h"
#include "base/result.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::apply {

/// The index entry holding the purge horizon (the largest purged tombstone's sequence).
inline constexpr const char* kHorizonKey = "m:horizon";
/// The index entry present once the flow's source has sent unchanged cells (PostgreSQL TOAST,
/// SQL Server's update mask): from then on SCD1 states keep their values instead of a digest,
/// since such events need the stored values.
inline constexpr const char* kUnchangedCellsKey = "m:unchanged";
/// The index entry holding the sequence of the last truncate applied (SCD1; ordered encoding).
inline constexpr const char* kTruncateKey = "m:truncate";
/// The index entry holding the largest sequence the engine has applied (ordered encoding).
inline constexpr const char* kMaxSequenceKey = "m:maxseq";
/// The commitInfo operationParameters member holding the same, hex, so that it survives the
/// loss of `_cdclake/`.
inline constexpr const char* kMaxSequenceParameter = "cdclake.maxSequence";

/// What opening the index had to rebuild, if anything.
struct IndexRecovery {
  bool rebuilt = false;
  std::string problem;         // what was missing or damaged ("" when repair found nothing wrong)
  bool from_rows = false;      // rebuilt from the table's rows (else replayed from the index log)
  bool log_rewritten = false;  // the index was whole; the index log was written anew from it
  int64_t keys = 0;            // key states rebuilt from rows
  int64_t versions = 0;        // commits replayed from the index log
  std::string horizon;         // from rows, SCD1: the purge horizon raised to (as text)
  bool sequence_unknown = false;  // SCD1 rows rebuilt without their sequence (not in the target)
  /// In: hears of the commits replayed or the files read while rebuilding (cdclake repair).
  ProgressFn progress;

  /// One line saying what was done, naming the table.
  std::string Describe(const std::string& table_root) const;
};

/// Opens the key index of the table `snapshot` (nullptr: no table yet) like OpenTableIndex,
/// rebuilding what is missing or damaged: a key index that cannot be opened or caught up is
/// replayed from the index log from version 0; when the index log cannot be read either (files
/// missing or corrupt), the index is rebuilt from the table's rows (see RebuildIndexFromRows).
/// With `force`, rebuilds even when nothing is wrong (`cdclake repair`). `flow` gives the
/// keys, sequence and column lists (nullptr: taken from the table's properties and columns).
/// A table written by another writer stays kNotSupported.
Result<std::unique_ptr<KeyIndex>> OpenOrRecoverIndex(
    io::FileSystem& fs, const std::string& table_root,
    const std::shared_ptr<const delta::Snapshot>& snapshot, bool persistent,
    const FlowDefinition* flow, bool force, IndexRecovery* recovery);

/// Rebuilds `index` (empty) from the rows of `snapshot`: each key's rows become its state (SCD1:
/// one upsert at the row's sequence when the target holds the sequence columns, else at an
/// unknown sequence that sorts before every other; SCD2: one upsert per version at __START_AT
/// and a delete at an __END_AT no later version starts at). Tombstones and the last truncate
/// are gone with the index log, so for SCD1 the purge horizon is raised to the largest applied
/// sequence (from the latest commit that records it, and the rows).
Status RebuildIndexFromRows(const io::FileSystem& fs, const delta::Snapshot& snapshot,
                            const FlowDefinition& flow, KeyIndex& index, IndexRecovery* recovery);

/// `cdclake repair TABLE`: rebuilds the key index of the cdclake target at `table_root` and
/// says what it found and did.
Result<IndexRecovery> RepairTableIndex(io::FileSystem& fs, const std::string& table_root,
                                       const ProgressFn& progress = {});

}  // namespace cdclake::apply
