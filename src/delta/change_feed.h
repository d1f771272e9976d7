// ChangeFeed: the row-level changes of a range of table versions (PROTOCOL.md §Change Data
// Files, §Reader Requirements for AddCDCFile): a commit's cdc files when it has any, else its
// data-changing adds as inserts and removes as deletes, and a deletion vector update as a diff.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "data/record_batch.h"
#include "io/file_system.h"

namespace cdclake::delta {

/// The columns ReadChanges appends after the table's columns and `_change_type`.
inline constexpr std::string_view kCommitVersionColumn = "_commit_version";
inline constexpr std::string_view kCommitTimestampColumn = "_commit_timestamp";

/// The changes of versions `from_version` through `to_version` (default: the latest) of the
/// table at `table_root`: the table's columns (schema and partition columns as of
/// `to_version`; columns a file lacks are NULL), then `_change_type` (string: insert, delete,
/// update_preimage, update_postimage), `_commit_version` (bigint) and `_commit_timestamp`
/// (timestamp: the commit's inCommitTimestamp when it has one, else its file's modification
/// time). Rows come version by version, each version's in the order of its actions.
///
/// Per version: if the commit has any `cdc` action, its rows are those of the cdc files alone.
/// Otherwise each `add` with dataChange true gives its valid rows as inserts and each such
/// `remove` the rows its file still had (the remove's deletion vector applied) as deletes; a
/// remove and an add of the same path in one commit (a deletion vector update) give the rows
/// in the new vector and not in the old one as deletes, and any rows the other way round as
/// inserts. dataChange false actions (compaction) give nothing.
///
/// The table property `delta.enableChangeDataFeed` is not required; without it, a version
/// that rewrote files by copy-on-write reads as the old files deleted and the new inserted.
///
/// kInvalidArgument for a negative `from_version` or `to_version` < `from_version`;
/// kNotFound when `from_version` is before the earliest commit still in the log (log cleanup
/// removed the older ones) or either bound is past the latest version; kCorrupt when a commit
/// in the range is missing or a cdc file lacks `_change_type`.
Result<data::RecordBatch> ReadChanges(const io::FileSystem& fs, const std::string& table_root,
                                      int64_t from_version,
                                      std::optional<int64_t> to_version = std::nullopt);

}  // namespace cdclake::delta
