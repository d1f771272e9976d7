// AppendWriter: rows appended to a streaming table in one commit together with the appending
// flow's checkpoint (txn and position), creating the table and adding new columns as needed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::pipeline {

/// How a streaming table is created on first append.
struct AppendTableSpec {
  std::map<std::string, std::string> properties;
  std::vector<std::string> partition_columns;
  /// The declared column list: the new table's schema (NOT NULL kept) instead of the rows'.
  std::optional<data::Schema> schema;
};

/// What the commit records besides the rows.
struct AppendCheckpoint {
  std::string flow;
  int64_t batch = 0;  // the txn version: the flow's previous batch + 1
  json::Json position;
  /// Further `txn` actions (see apply::CommitExtras::source_txns).
  std::vector<std::pair<std::string, int64_t>> source_txns = {};
};

/// Appends `rows` to the table at `table_root` in one commit (operation "STREAMING UPDATE")
/// carrying `checkpoint`, and returns its version. Before it, when needed: the table is created
/// with the rows' columns; columns the table lacks are added (a commit of their own); a column
/// whose type is narrower in the table is widened when Delta allows it (`typeWidening`). Rows
/// missing a table column get NULL. kInvalidArgument naming the column and both types for any
/// other type difference. With no rows, the commit records only the checkpoint. kConflict, with
/// nothing written, when the table's txn version of the flow is not `checkpoint.batch - 1` (a
/// writer of the same flow committed meanwhile) or becomes so before the commit.
Result<int64_t> AppendWithCheckpoint(io::FileSystem& fs, const std::string& table_root,
                                     data::RecordBatch rows, const AppendTableSpec& spec,
                                     const AppendCheckpoint& checkpoint);

}  // namespace cdclake::pipeline
