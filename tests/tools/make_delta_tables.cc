// make_delta_tables: a test-only program that writes Delta tables with cdclake (awkward Hive
// partitions, deletion vectors inline and in files, copy-on-write deletes, change data) for the
// DuckDB cross-check in tests/duckdb/delta_tables.test.mjs.
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "delta/change_data_writer.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/row_deleter.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "json/json.h"

namespace {

using cdclake::Result;
using cdclake::Status;
using cdclake::data::DataType;
using cdclake::data::RecordBatch;
using cdclake::data::Value;
namespace delta = cdclake::delta;
namespace io = cdclake::io;

io::FileSystem& Fs() {
  return *io::LocalFileSystem::Instance();
}

Status Commit(const std::string& root, const std::vector<delta::Action>& actions,
              const std::string& operation) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(Fs(), root));
  delta::Transaction txn(Fs(), root, snapshot);
  for (const delta::Action& a : actions) txn.Add(a);
  delta::CommitOptions options;
  options.operation = operation;
  return txn.Commit(options).status();
}

// Live file path -> physical positions of the rows whose first column is in `ids`.
Result<std::map<std::string, std::vector<int64_t>>> Positions(const delta::Snapshot& s,
                                                              const std::set<int64_t>& ids) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const delta::Add& add : s.files()) {
    delta::Add whole = add;
    whole.deletion_vector.reset();
    CDCLAKE_ASSIGN_OR_RETURN(RecordBatch rows, delta::ReadDataFile(Fs(), s, whole));
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (ids.count(rows.column(0).GetValue(r).int_value())) out[add.path].push_back(r);
    }
  }
  return out;
}

// Deletes the rows with these ids (first column) and commits.
Status DeleteIds(const std::string& root, const std::set<int64_t>& ids) {
  CDCLAKE_ASSIGN_OR_RETURN(auto s, delta::Snapshot::Load(Fs(), root));
  CDCLAKE_ASSIGN_OR_RETURN(auto positions, Positions(*s, ids));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions,
                           delta::DeleteRows(Fs(), *s, positions));
  return Commit(root, actions, "DELETE");
}

// Partitioned by region (string) and day (date), deletion vectors on: small deletes (inline
// vectors), scattered ones (vector files, merged with the inline ones), a whole file.
Status PeopleTable(const std::string& root) {
  delta::TableSpec spec;
  spec.schema = cdclake::data::Schema({{"id", DataType::Int64(), false},
                                       {"name", DataType::String()},
                                       {"amount", DataType::Decimal(12, 2)},
                                       {"ts", DataType::Timestamp()},
                                       {"flag", DataType::Boolean()},
                                       {"region", DataType::String()},
                                       {"day", DataType::Date()}});
  spec.partition_columns = {"region", "day"};
  spec.properties = {{"delta.enableDeletionVectors", "true"}};
  CDCLAKE_RETURN_IF_ERROR(delta::CreateTable(Fs(), root, spec).status());
  static const char* kRegions[] = {"north", "south west", "x%y=z", "é/ü", nullptr, "a#b?c"};
  auto rows = [&](int64_t from, int64_t n) {
    RecordBatch b(spec.schema);
    for (int64_t i = from; i < from + n; ++i) {
      const char* region = kRegions[i % 6];
      b.AppendRow({Value::Int(i),
                   i % 11 == 0 ? Value::Null() : Value::Bytes("név " + std::to_string(i)),
                   Value::Decimal((i * 7919) % 100000 - 50000),
                   Value::Int(1700000000000000 + i * 3600000123LL),
                   i % 13 == 0 ? Value::Null() : Value::Bool(i % 2 == 0),
                   region ? Value::Bytes(region) : Value::Null(), Value::Int(19700 + i % 3)});
    }
    return b;
  };
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(Fs(), root, rows(0, 360)).status());
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(Fs(), root, rows(360, 72)).status());
  CDCLAKE_RETURN_IF_ERROR(DeleteIds(root, {3, 7, 8}));
  std::set<int64_t> scattered;
  for (int64_t i = 0; i < 360; i += 4) scattered.insert(i);
  CDCLAKE_RETURN_IF_ERROR(DeleteIds(root, scattered));
  // Every row of one file of the second append: region "north" (i % 6 == 0), day i % 3 == 0.
  std::set<int64_t> whole;
  for (int64_t i = 360; i < 432; i += 6)
    if (i % 3 == 0) whole.insert(i);
  return DeleteIds(root, whole);
}

// Partitioned by an int, deletion vectors and change data feed on, a timestamp_ntz column: a
// delete, then an update written as a deletion vector, new rows and change data files.
Status EventsTable(const std::string& root) {
  delta::TableSpec spec;
  spec.schema = cdclake::data::Schema({{"k", DataType::Int64(), false},
                                       {"bucket", DataType::Int32()},
                                       {"payload", DataType::String()},
                                       {"at", DataType::TimestampNtz()}});
  spec.partition_columns = {"bucket"};
  spec.properties = {{"delta.enableDeletionVectors", "true"},
                     {"delta.enableChangeDataFeed", "true"}};
  CDCLAKE_RETURN_IF_ERROR(delta::CreateTable(Fs(), root, spec).status());
  auto rows = [&](int64_t from, int64_t n, const std::string& tag) {
    RecordBatch b(spec.schema);
    for (int64_t i = from; i < from + n; ++i) {
      b.AppendRow({Value::Int(i), i % 10 == 9 ? Value::Null() : Value::Int(i % 4),
                   Value::Bytes(tag + std::to_string(i * i)),
                   Value::Int(1600000000000000 + i * 1000001)});
    }
    return b;
  };
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(Fs(), root, rows(0, 100, "p")).status());
  CDCLAKE_RETURN_IF_ERROR(DeleteIds(root, {0, 1, 2, 50, 99}));
  CDCLAKE_ASSIGN_OR_RETURN(auto s, delta::Snapshot::Load(Fs(), root));
  CDCLAKE_ASSIGN_OR_RETURN(auto positions, Positions(*s, {10, 11, 12, 13}));
  delta::DeleteRowsOptions options;
  options.collect_deleted_rows = true;
  CDCLAKE_ASSIGN_OR_RETURN(delta::RowDeletion update,
                           delta::DeleteRows(Fs(), *s, positions, options));
  RecordBatch post = rows(10, 4, "updated ");
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Add> adds, delta::WriteDataFiles(Fs(), *s, post));
  RecordBatch changes = delta::WithChangeType(update.deleted_rows, delta::kChangeUpdatePreimage);
  RecordBatch post_changes = delta::WithChangeType(post, delta::kChangeUpdatePostimage);
  for (size_t c = 0; c < changes.num_columns(); ++c)
    changes.mutable_column(c).AppendColumn(post_changes.column(c));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::AddCdc> cdc,
                           delta::WriteChangeDataFiles(Fs(), *s, changes));
  std::vector<delta::Action> actions = update.actions;
  for (const delta::Add& a : adds) actions.push_back(a);
  for (const delta::AddCdc& c : cdc) actions.push_back(c);
  return Commit(root, actions, "UPDATE");
}

// No deletion vectors: deletes rewrite the files (copy-on-write).
Status CopyOnWriteTable(const std::string& root) {
  delta::TableSpec spec;
  spec.schema = cdclake::data::Schema({{"id", DataType::Int64(), false},
                                       {"name", DataType::String()},
                                       {"grp", DataType::String()}});
  spec.partition_columns = {"grp"};
  CDCLAKE_RETURN_IF_ERROR(delta::CreateTable(Fs(), root, spec).status());
  RecordBatch b(spec.schema);
  for (int64_t i = 0; i < 50; ++i) {
    b.AppendRow({Value::Int(i), Value::Bytes("n" + std::to_string(i)),
                 Value::Bytes(i % 3 == 0 ? "g 1" : "g/2")});
  }
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(Fs(), root, b).status());
  CDCLAKE_RETURN_IF_ERROR(DeleteIds(root, {0, 1, 2, 3}));
  return DeleteIds(root, {4, 5, 6, 9, 12});
}

// One big file: thousands of random rows deleted (bitmap containers) and a long run.
Status BigTable(const std::string& root) {
  delta::TableSpec spec;
  spec.schema =
      cdclake::data::Schema({{"id", DataType::Int64(), false}, {"value", DataType::Double()}});
  spec.properties = {{"delta.enableDeletionVectors", "true"}};
  CDCLAKE_RETURN_IF_ERROR(delta::CreateTable(Fs(), root, spec).status());
  RecordBatch b(spec.schema);
  for (int64_t i = 0; i < 20000; ++i) b.AppendRow({Value::Int(i), Value::Double(i * 0.5)});
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(Fs(), root, b).status());
  std::mt19937_64 random(42);
  std::set<int64_t> ids;
  while (ids.size() < 6000) ids.insert(static_cast<int64_t>(random() % 20000));
  CDCLAKE_RETURN_IF_ERROR(DeleteIds(root, ids));
  std::set<int64_t> run;
  for (int64_t i = 10000; i < 14000; ++i) run.insert(i);
  return DeleteIds(root, run);
}

Result<cdclake::json::Json> Describe(const std::string& name, const std::string& root) {
  CDCLAKE_ASSIGN_OR_RETURN(auto s, delta::Snapshot::Load(Fs(), root));
  cdclake::json::Json files = cdclake::json::Json::array();
  for (const delta::Add& add : s->files()) {
    cdclake::json::Json deleted = cdclake::json::Json::array();
    cdclake::json::Json dv = nullptr;
    if (add.deletion_vector) {
      dv = add.deletion_vector->UniqueId();
      CDCLAKE_ASSIGN_OR_RETURN(delta::RowBitmap bitmap,
                               delta::LoadDeletionVector(Fs(), root, *add.deletion_vector));
      for (uint64_t row : bitmap.ToVector()) deleted.push_back(row);
    }
    files.push_back({{"path", add.path}, {"dv", dv}, {"deleted", deleted}});
  }
  return cdclake::json::Json{
      {"name", name}, {"root", root}, {"rows", s->num_records()}, {"files", files}};
}

}  // namespace

// Usage: make_delta_tables OUTDIR. Writes OUTDIR/<table>/ and prints one JSON document:
// {"tables":[{"name","root","rows","files":[{"path","dv","deleted":[row, ...]}]}]}, where `files`
// are the live files of the latest version, `dv` the deletion vector's unique id (or null) and
// `deleted` the row positions it marks.
int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_delta_tables OUTDIR\n");
    return 2;
  }
  const std::string out = argv[1];
  struct Table {
    const char* name;
    Status (*make)(const std::string&);
  };
  const Table tables[] = {{"people_dv_partitioned", PeopleTable},
                          {"events_dv_cdf", EventsTable},
                          {"copy_on_write", CopyOnWriteTable},
                          {"big_dv", BigTable}};
  cdclake::json::Json manifest = {{"tables", cdclake::json::Json::array()}};
  for (const Table& t : tables) {
    const std::string root = io::JoinPath(out, t.name);
    Status made = t.make(root);
    if (!made.ok()) {
      std::fprintf(stderr, "make_delta_tables: %s: %s\n", t.name, made.ToString().c_str());
      return 1;
    }
    auto described = Describe(t.name, root);
    if (!described.ok()) {
      std::fprintf(stderr, "make_delta_tables: %s: %s\n", t.name,
                   described.status().ToString().c_str());
      return 1;
    }
    manifest["tables"].push_back(*described);
  }
  std::cout << cdclake::json::Dump(manifest) << "\n";
  return 0;
}
