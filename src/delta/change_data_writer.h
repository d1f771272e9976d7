// ChangeDataWriter: writes change data files (PROTOCOL.md §Change Data Files, §Add CDC File) —
// the table's data columns plus `_change_type`, as Parquet under `_change_data/` in Hive-style
// partition folders — and returns their `cdc` actions for the caller to commit.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "parquet/writer/writer_options.h"

namespace cdclake::delta {

/// The extra column of change data files, and its four values.
inline constexpr std::string_view kChangeTypeColumn = "_change_type";
inline constexpr std::string_view kChangeInsert = "insert";
inline constexpr std::string_view kChangeDelete = "delete";
inline constexpr std::string_view kChangeUpdatePreimage = "update_preimage";
inline constexpr std::string_view kChangeUpdatePostimage = "update_postimage";
/// The folder, under the table root, that holds change data files.
inline constexpr std::string_view kChangeDataDir = "_change_data";

/// True for "insert", "delete", "update_preimage" and "update_postimage".
bool IsChangeType(std::string_view value);

/// Whether writers must record change data for this table (§Writer Requirements for
/// AddCDCFile): `delta.enableChangeDataFeed` is "true" and, at writer version 7, the
/// `changeDataFeed` feature is listed.
bool ChangeDataFeedEnabled(const Snapshot& snapshot);

/// Writes `rows` — the table's columns in the table's order, then a string column
/// `_change_type` — as change data files, one per partition (rows keep their order), at
/// `_change_data/<col>=<value>/.../cdc-00000-<uuid>.c000.snappy.parquet`. As in the table's data
/// files, partition columns are left out of the files and recorded in `partitionValues`; every
/// column is written nullable. Returns the `cdc` actions (dataChange false), not committed.
///
/// A reader takes a commit's changes from its cdc files alone when it has any, so those files
/// must then describe every row change of the commit, inserts included.
///
/// kInvalidArgument when the columns are not the table's (names and types) plus a string
/// `_change_type`, or a change type is NULL or not one of the four; kNotSupported for a table
/// with column mapping. No rows: no files.
Result<std::vector<AddCdc>> WriteChangeDataFiles(io::FileSystem& fs, const Snapshot& snapshot,
                                                 const data::RecordBatch& rows,
                                                 const parquet::WriterOptions& options = {});

/// `rows` (the table's columns) with a `_change_type` column of `change_type` appended: the
/// input WriteChangeDataFiles takes. REQUIRES: IsChangeType(change_type).
data::RecordBatch WithChangeType(const data::RecordBatch& rows, std::string_view change_type);

}  // namespace cdclake::delta
