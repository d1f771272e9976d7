// RowDeleter: deletes rows of a table's data files, by file and row position — with deletion
// vectors where the table allows them (PROTOCOL.md §Deletion Vectors), else by rewriting the
// file without them (copy-on-write) — and returns the actions for the caller to commit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::delta {

/// Deletion vectors whose serialized bitmap is at most this many bytes go inline in the log
/// (storageType "i", 80 Z85 characters at most); larger ones go to a deletion vector file. 64
/// bytes hold about 16 scattered rows of one file (a portable bitmap costs ~32 bytes of
/// headers plus 2 per row), or any number of consecutive rows: the common single-row deletes
/// of CDC stay in the log, and big deletes do not bloat it (Spark writes files only).
inline constexpr int64_t kMaxInlineDvBytes = 64;

struct DeleteRowsOptions {
  /// See kMaxInlineDvBytes; 0 puts every deletion vector in a file.
  int64_t max_inline_dv_bytes = kMaxInlineDvBytes;
  /// Also return the deleted rows' values (the table's columns). Costs a read of each file
  /// when deletion vectors are used.
  bool collect_deleted_rows = false;
  /// When the table has change data feed on and a file is rewritten (copy-on-write), write
  /// change data describing the deleted rows as `delete` and return its cdc actions; without
  /// them a change-feed reader would report the copied rows as deleted and inserted again. Off:
  /// the caller writes change data for the commit itself (from `deleted_rows`).
  bool write_change_data = true;
};

struct RowDeletion {
  /// To commit, in this order: per file a remove and (unless every row is gone) an add — with
  /// deletion vectors the same path with the merged deletion vector, with copy-on-write a new
  /// file — then any cdc actions.
  std::vector<Action> actions;
  /// Rows newly deleted (rows already deleted are not counted again).
  int64_t num_deleted = 0;
  /// Rows copied into new files by copy-on-write.
  int64_t num_copied = 0;
  /// The newly deleted rows (the table's columns), when collect_deleted_rows.
  data::RecordBatch deleted_rows;
};

/// Deletes rows from live files of `snapshot`: `rows` maps an add's path (as the log spells it)
/// to 0-based physical row positions in that Parquet file (in any order; duplicates and rows
/// already deleted are ignored).
///
/// With deletion vectors (`delta.enableDeletionVectors` "true" and the `deletionVectors`
/// feature in the protocol), each file's existing deletion vector is merged with the new rows,
/// and the file is re-added under the same path with the merged vector (inline up to
/// `max_inline_dv_bytes`, else all of this call's vectors in one new deletion vector file):
/// remove(old add with its old vector, dataChange, deletionTimestamp, extendedFileMetadata,
/// partitionValues, size, stats, tags) + add(same path, new vector, dataChange, the same stats
/// with `tightBounds` false, since min/max were not recomputed for the rows still valid).
/// A file whose every row is deleted is only removed.
///
/// Without them (copy-on-write), the file's remaining rows are written to a new data file and
/// the old one is removed; kNotSupported under column mapping.
///
/// A file with nothing newly deleted gets no actions. kNotFound for a path that is not a live
/// file, kInvalidArgument for a row position outside the file.
Result<RowDeletion> DeleteRows(io::FileSystem& fs, const Snapshot& snapshot,
                               const std::map<std::string, std::vector<int64_t>>& rows,
                               const DeleteRowsOptions& options);

/// DeleteRows with the default options; only the actions.
Result<std::vector<Action>> DeleteRows(io::FileSystem& fs, const Snapshot& snapshot,
                                       const std::map<std::string, std::vector<int64_t>>& rows);

/// Whether DeleteRows uses deletion vectors on this table.
bool UsesDeletionVectors(const Snapshot& snapshot);

}  // namespace cdclake::delta
