// Writing classic checkpoints (PROTOCOL.md §Checkpoints, §Checkpoint Schema, §Last Checkpoint
// File Schema): a snapshot's reconciled actions as one Parquet file `<v>.checkpoint.parquet`,
// then the `_last_checkpoint` hint; and the automatic checkpoint every N commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "data/schema.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::delta {

/// Spark's default `delta.checkpointInterval`.
inline constexpr int64_t kDefaultCheckpointInterval = 10;

/// `delta.checkpointInterval` of a table's metadata; the default when absent or not a positive
/// integer (a bad property must not stop commits).
int64_t CheckpointInterval(const Metadata& metadata);

/// The Parquet schema of a classic checkpoint, in Spark's column order: txn, add, remove,
/// metaData, protocol, domainMetadata; every column and member nullable, maps with required
/// keys, three-level lists. `add` holds path, partitionValues, size, modificationTime,
/// dataChange, tags, deletionVector {storageType, pathOrInlineDv, offset, sizeInBytes,
/// cardinality}, baseRowId, defaultRowCommitVersion, stats (JSON text) and clusteringProvider;
/// `remove` leaves out stats and tags, as the spec says checkpoint tombstones do. With
/// `v2_spec` (tables with the v2Checkpoint feature, §V2 Spec) a last column, checkpointMetadata
/// {version, tags}, holds the one action that spec requires; the name stays classic, which that
/// spec allows. No `stats_parsed` or `partitionValues_parsed`: stats stay JSON text.
const data::Schema& CheckpointSchema(bool v2_spec = false);

/// Whether the table's checkpoints must follow the v2 spec (writer feature v2Checkpoint).
bool UsesV2Checkpoints(const Protocol& protocol);

/// What a checkpoint holds, for `_last_checkpoint`.
struct CheckpointInfo {
  int64_t version = -1;
  int64_t size = 0;  // actions (rows)
  int64_t size_in_bytes = 0;
  int64_t num_of_add_files = 0;
  std::string path;
};

/// Writes `<log>/<version>.checkpoint.parquet` for `snapshot`: its protocol, metadata, txns,
/// live domain metadata, live adds (deletion vectors and stats included) and the tombstones
/// removed after `now_ms` minus `delta.deletedFileRetentionDuration` (default one week; a remove
/// without deletionTimestamp has expired). One action per row, other columns null.
///
/// The file is built in memory and published with PutIfAbsent, so no reader ever sees part of
/// it, and a checkpoint another writer already published for this version (same content, by
/// the protocol) is kept as it is. Then `_delta_log/_last_checkpoint` ({"version", "size",
/// "sizeInBytes", "numOfAddFiles"}) is replaced atomically, unless it already names a newer
/// checkpoint. A crash at any point leaves the table readable: a checkpoint is either whole or
/// absent, and `_last_checkpoint` is only a hint. kNotSupported for a table that asks for typed
/// statistics in its checkpoints (`delta.checkpoint.writeStatsAsStruct=true`).
Result<CheckpointInfo> WriteCheckpoint(io::FileSystem& fs, const Snapshot& snapshot,
                                       int64_t now_ms);
/// WriteCheckpoint at the current time.
Status WriteCheckpoint(io::FileSystem& fs, const Snapshot& snapshot);

/// After `committed_version` was committed: when it is positive, has no checkpoint yet, and is
/// a multiple of the table's `delta.checkpointInterval` (as of that version; loading the
/// snapshot tells), writes its checkpoint. Callers that commit treat an error as "no checkpoint
/// this time": the commit is already durable.
Status MaybeCheckpoint(io::FileSystem& fs, const std::string& table_root,
                       int64_t committed_version);

}  // namespace cdclake::delta
