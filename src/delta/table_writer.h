// TableWriter: creates Delta tables and appends record batches to them — Parquet data files
// (Hive-style partition folders), their statistics, and one commit per call.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "io/file_system.h"
#include "parquet/writer/writer_options.h"

namespace cdclake::delta {

struct TableSpec {
  data::Schema schema;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> properties;
  std::optional<std::string> name;
};

/// The protocol a new table needs: (1, 2) unless a property or column type calls for table
/// features (deletion vectors, timestamp_ntz, change data feed with them), then (3, 7) listing
/// exactly those.
Protocol ProtocolFor(const TableSpec& spec);

/// Creates the table at `table_root` (version 0: protocol and metadata, no files).
/// kAlreadyExists when a table is there.
Result<std::shared_ptr<const Snapshot>> CreateTable(io::FileSystem& fs,
                                                    const std::string& table_root,
                                                    const TableSpec& spec);

/// Where WriteDataFiles put one input row: the index of its add and its row in that file.
struct RowPlacement {
  uint32_t file = 0;
  int64_t row = 0;
};

/// Writes the rows of `batch` (the table's columns, in order) as data files, one per partition
/// (partitions in the order of their values' text, rows in input order within each), and
/// returns their add actions (not yet committed). With `placement`, fills it with each input
/// row's file and row.
Result<std::vector<Add>> WriteDataFiles(io::FileSystem& fs, const Snapshot& snapshot,
                                        const data::RecordBatch& batch,
                                        const parquet::WriterOptions& options = {},
                                        std::vector<RowPlacement>* placement = nullptr);

/// WriteDataFiles and a commit of the adds (operation WRITE, mode Append); returns the version.
Result<int64_t> AppendRows(io::FileSystem& fs, const std::string& table_root,
                           const data::RecordBatch& batch);

}  // namespace cdclake::delta
