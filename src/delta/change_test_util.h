// Helpers shared by the tests of row deletes, change data and the change feed: a small table
// schema, rows of it, rows as comparable text, and committing a list of actions.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data/record_batch.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/file_system.h"

namespace cdclake::delta::testing {

/// id bigint not null, name string, amount decimal(20,2), day date; partitioned by day when
/// `partitioned`. `properties` become table properties.
inline TableSpec PeopleSpec(bool partitioned, std::map<std::string, std::string> properties = {}) {
  TableSpec spec;
  spec.schema = data::Schema({{"id", data::DataType::Int64(), false},
                              {"name", data::DataType::String()},
                              {"amount", data::DataType::Decimal(20, 2)},
                              {"day", data::DataType::Date()}});
  if (partitioned) spec.partition_columns = {"day"};
  spec.properties = std::move(properties);
  return spec;
}

/// Rows id = from .. from+n-1; `day` alternates between two dates (and NULL every 7th row).
inline data::RecordBatch PeopleRows(int64_t from, int64_t n, const std::string& tag = "v1") {
  data::RecordBatch b(PeopleSpec(false).schema);
  for (int64_t i = from; i < from + n; ++i) {
    b.AppendRow(
        {data::Value::Int(i),
         i % 5 == 0 ? data::Value::Null() : data::Value::Bytes(tag + "/" + std::to_string(i)),
         data::Value::Decimal(static_cast<data::Int128>(i) * 1001),
         i % 7 == 3 ? data::Value::Null() : data::Value::Int(19700 + i % 2)});
  }
  return b;
}

/// One text per row (every column, '|'-separated), as a multiset.
inline std::multiset<std::string> RowSet(const data::RecordBatch& b, size_t columns = SIZE_MAX) {
  std::multiset<std::string> out;
  for (int64_t r = 0; r < b.num_rows(); ++r) {
    std::string s;
    for (size_t c = 0; c < b.num_columns() && c < columns; ++c)
      s += b.column(c).GetValue(r).DebugString() + "|";
    out.insert(s);
  }
  return out;
}

/// The rows of `b` whose `id` (column 0) is (`in` true) or is not in `ids`.
inline data::RecordBatch FilterIds(const data::RecordBatch& b, const std::set<int64_t>& ids,
                                   bool in) {
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < b.num_rows(); ++r) {
    if (ids.count(b.column(0).GetValue(r).int_value()) == (in ? 1u : 0u)) keep.push_back(r);
  }
  std::vector<data::Column> columns;
  for (const data::Column& c : b.columns()) columns.push_back(c.Take(keep));
  return data::RecordBatch(b.schema(), std::move(columns));
}
inline data::RecordBatch WithoutIds(const data::RecordBatch& b, const std::set<int64_t>& ids) {
  return FilterIds(b, ids, false);
}
inline data::RecordBatch OnlyIds(const data::RecordBatch& b, const std::set<int64_t>& ids) {
  return FilterIds(b, ids, true);
}

/// Where the rows with these ids are: live file path -> physical row positions (rows an
/// existing deletion vector hides are found too).
inline std::map<std::string, std::vector<int64_t>> PositionsOf(const io::FileSystem& fs,
                                                               const Snapshot& snapshot,
                                                               const std::set<int64_t>& ids) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const Add& add : snapshot.files()) {
    Add whole = add;
    whole.deletion_vector.reset();
    auto rows = ReadDataFile(fs, snapshot, whole);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) continue;
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      if (ids.count(rows->column(0).GetValue(r).int_value())) out[add.path].push_back(r);
    }
  }
  return out;
}

/// Commits `actions` on top of the latest version; returns the new version.
inline Result<int64_t> CommitActions(io::FileSystem& fs, const std::string& root,
                                     const std::vector<Action>& actions,
                                     const std::string& operation = "DELETE") {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, root));
  Transaction txn(fs, root, snapshot);
  for (const Action& a : actions) txn.Add(a);
  CommitOptions options;
  options.operation = operation;
  return txn.Commit(options);
}

}  // namespace cdclake::delta::testing
