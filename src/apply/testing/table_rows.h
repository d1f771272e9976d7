// Test helper: a Delta table's rows as name -> value maps, for tests that compare tables.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/value.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/file_system.h"

namespace cdclake::apply::testing {

/// A row: column name -> value.
using TableRow = std::map<std::string, data::Value>;

/// Every live row of the table at `table` (none when there is no table).
inline Result<std::vector<TableRow>> ReadTableRows(const io::FileSystem& fs,
                                                   const std::string& table) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table));
  if (!exists) return std::vector<TableRow>{};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table));
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs, *snapshot));
  std::vector<TableRow> out;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    TableRow row;
    for (size_t c = 0; c < rows.num_columns(); ++c) {
      row[rows.schema().field(c).name] = rows.column(c).GetValue(r);
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace cdclake::apply::testing
