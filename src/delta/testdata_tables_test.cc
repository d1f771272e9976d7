// The reader's acceptance test over the conformance tables in ../shared/testdata/delta: every
// table in MANIFEST.json loads and reads as its expected data (at the latest version and at each
// expected vN), compared as multisets of rows with columns matched by name; tables without
// expected data give the manifest's row counts, live files, DV counts, txns and noted values.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/decimal.h"
#include "data/record_batch.h"
#include "data/value_format.h"
#include "delta/log_segment.h"
#include "delta/partition_value.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::TypeId;
using data::TypePtr;
using data::Value;
using nlohmann::json;

const std::string& Root() {
  static const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  return root;
}

const io::FileSystem& Local() {
  return *io::LocalFileSystem::Instance();
}

const json& Manifest() {
  static const json manifest = [] {
    Result<std::string> text = Local().ReadFile(Root() + "/MANIFEST.json");
    if (!text.ok()) return json::object();
    json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    return parsed.is_object() ? parsed : json::object();
  }();
  return manifest;
}

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (const auto& [name, _] : Manifest().items()) names.push_back(name);
  return names;
}

// Tables whose latest snapshot starts from a checkpoint.
std::vector<std::string> TablesWithCheckpoint() {
  std::vector<std::string> names;
  for (const auto& [name, m] : Manifest().items()) {
    if (!m.at("checkpoint_used_for_latest").is_null()) names.push_back(name);
  }
  return names;
}

// Tables with data to read (all but the log-only ones, whose add paths name no files).
std::vector<std::string> TablesWithRows() {
  std::vector<std::string> names;
  for (const auto& [name, m] : Manifest().items()) {
    if (!m.at("expected_row_count").is_null()) names.push_back(name);
  }
  return names;
}

std::string TableRoot(const std::string& name) {
  return Root() + "/" + Manifest().at(name).at("table_root").get<std::string>();
}

std::string BaseName(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// --- Canonical rows -------------------------------------------------------------------------

bool IsInteger(TypeId t) {
  return t == TypeId::kInt8 || t == TypeId::kInt16 || t == TypeId::kInt32 || t == TypeId::kInt64;
}
bool IsFloating(TypeId t) {
  return t == TypeId::kFloat || t == TypeId::kDouble;
}
bool IsBytes(TypeId t) {
  return t == TypeId::kString || t == TypeId::kBinary;
}

// The type in which a value read by cdclake (`a`) and one from an expected file (`b`) are
// compared, or nullptr when the types are not equivalent. Equivalent physical choices: integers
// of any width (as bigint), float and double (as double), string and binary (as binary),
// decimals of any precision and scale, and integers beside decimals (as decimal(38, larger
// scale)); nested types member by member, struct members by name and in order.
TypePtr CommonType(const TypePtr& a, const TypePtr& b) {
  const TypeId x = a->id(), y = b->id();
  if (IsInteger(x) && IsInteger(y)) return x == y ? a : DataType::Int64();
  if (IsFloating(x) && IsFloating(y)) return x == y ? a : DataType::Double();
  if (IsBytes(x) && IsBytes(y)) return x == y ? a : DataType::Binary();
  if (x == TypeId::kDecimal || y == TypeId::kDecimal) {
    if ((x != TypeId::kDecimal && !IsInteger(x)) || (y != TypeId::kDecimal && !IsInteger(y))) {
      return nullptr;
    }
    if (a->Equals(*b)) return a;
    int scale =
        std::max(x == TypeId::kDecimal ? a->scale() : 0, y == TypeId::kDecimal ? b->scale() : 0);
    return DataType::Decimal(38, scale);
  }
  if (x != y) return nullptr;
  switch (x) {
    case TypeId::kStruct: {
      if (a->fields().size() != b->fields().size()) return nullptr;
      std::vector<data::Field> fields;
      for (size_t i = 0; i < a->fields().size(); ++i) {
        if (a->fields()[i].name != b->fields()[i].name) return nullptr;
        TypePtr t = CommonType(a->fields()[i].type, b->fields()[i].type);
        if (!t) return nullptr;
        fields.push_back(data::Field{a->fields()[i].name, t, true});
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList: {
      TypePtr e = CommonType(a->fields()[0].type, b->fields()[0].type);
      return e ? DataType::List(e) : nullptr;
    }
    case TypeId::kMap: {
      TypePtr k = CommonType(a->fields()[0].type, b->fields()[0].type);
      TypePtr v = CommonType(a->fields()[1].type, b->fields()[1].type);
      return k && v ? DataType::Map(k, v) : nullptr;
    }
    default:
      return a;
  }
}

std::string ValueText(const Value& v, const DataType& type) {
  std::string out;
  data::AppendValueJson(v, type, &out);
  return out;
}

// `v` of type `from` in the representation of `to` (a CommonType of `from`), with map entries
// sorted by key so that the order a writer chose does not matter.
Value Convert(const Value& v, const DataType& from, const DataType& to) {
  if (v.is_null()) return v;
  switch (to.id()) {
    case TypeId::kDecimal: {
      data::Int128 unscaled = from.id() == TypeId::kDecimal
                                  ? v.decimal_value()
                                  : static_cast<data::Int128>(v.int_value());
      int from_scale = from.id() == TypeId::kDecimal ? from.scale() : 0;
      return Value::Decimal(unscaled * data::PowerOfTen(to.scale() - from_scale));
    }
    case TypeId::kStruct: {
      Value::Children out;
      for (size_t i = 0; i < to.fields().size(); ++i) {
        const Value child = i < v.children().size() ? v.children()[i] : Value::Null();
        out.push_back(Convert(child, *from.fields()[i].type, *to.fields()[i].type));
      }
      return Value::Nested(std::move(out));
    }
    case TypeId::kList: {
      Value::Children out;
      for (const Value& e : v.children()) {
        out.push_back(Convert(e, *from.fields()[0].type, *to.fields()[0].type));
      }
      return Value::Nested(std::move(out));
    }
    case TypeId::kMap: {
      std::vector<std::pair<std::string, Value>> entries;
      for (const Value& e : v.children()) {
        Value key = Convert(e.children()[0], *from.fields()[0].type, *to.fields()[0].type);
        Value val = Convert(e.children()[1], *from.fields()[1].type, *to.fields()[1].type);
        std::string key_text = ValueText(key, *to.fields()[0].type);
        entries.emplace_back(key_text, Value::Nested({std::move(key), std::move(val)}));
      }
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto& l, const auto& r) { return l.first < r.first; });
      Value::Children out;
      for (auto& [_, e] : entries) out.push_back(std::move(e));
      return Value::Nested(std::move(out));
    }
    default:
      return v;
  }
}

struct CompareOptions {
  /// Compare only the top-level columns of primitive type (README limit for one table).
  bool top_level_primitives_only = false;
  /// Applied to every value cdclake read, by column name, before the comparison.
  std::function<Value(const std::string& column, const Value& v)> adjust_actual;
};

std::set<std::string> ColumnNames(const data::Schema& schema, const CompareOptions& options) {
  std::set<std::string> names;
  for (const data::Field& f : schema.fields()) {
    if (options.top_level_primitives_only && f.type->is_nested()) continue;
    names.insert(f.name);
  }
  return names;
}

// Rows as text: for each column (sorted by name) "name=<JSON of the value in the common type>".
std::vector<std::string> CanonicalRows(const data::RecordBatch& batch,
                                       const std::vector<std::string>& columns,
                                       const std::map<std::string, TypePtr>& common,
                                       const CompareOptions* adjust) {
  std::vector<std::string> rows(static_cast<size_t>(batch.num_rows()));
  for (const std::string& name : columns) {
    int c = batch.schema().FieldIndex(name);
    const DataType& from = *batch.schema().field(c).type;
    const DataType& to = *common.at(name);
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      Value v = batch.column(c).GetValue(r);
      if (adjust && adjust->adjust_actual) v = adjust->adjust_actual(name, v);
      std::string& row = rows[static_cast<size_t>(r)];
      row += row.empty() ? "{" : ",";
      data::AppendJsonString(name, &row);
      row += ':';
      data::AppendValueJson(Convert(v, from, to), to, &row);
    }
  }
  for (std::string& row : rows) row += row.empty() ? "{}" : "}";
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string Sample(const std::vector<std::string>& rows, size_t limit = 10) {
  std::string out;
  for (size_t i = 0; i < rows.size() && i < limit; ++i) out += "\n    " + rows[i];
  if (rows.size() > limit) out += "\n    ... (" + std::to_string(rows.size() - limit) + " more)";
  return out;
}

// Expects `actual` (read by cdclake) and the concatenation of `expected` to hold the same
// multiset of rows. Type differences that are only a different physical choice are reported on
// stdout; anything else fails.
void ExpectSameRows(const std::string& label, const data::RecordBatch& actual,
                    const std::vector<data::RecordBatch>& expected,
                    const CompareOptions& options = {}) {
  const std::set<std::string> names = ColumnNames(actual.schema(), options);
  std::map<std::string, TypePtr> common;
  for (const std::string& n : names) {
    common[n] = actual.schema().field(actual.schema().FieldIndex(n)).type;
  }
  bool comparable = true;
  for (const data::RecordBatch& e : expected) {
    std::set<std::string> e_names = ColumnNames(e.schema(), options);
    if (e_names != names) {
      std::string missing, extra;
      for (const std::string& n : e_names) {
        if (!names.count(n)) missing += " " + n;
      }
      for (const std::string& n : names) {
        if (!e_names.count(n)) extra += " " + n;
      }
      ADD_FAILURE() << label << ": columns differ; expected but not read:" << missing
                    << "; read but not expected:" << extra;
      comparable = false;
      continue;
    }
    for (const std::string& n : names) {
      const TypePtr& et = e.schema().field(e.schema().FieldIndex(n)).type;
      TypePtr t = CommonType(common[n], et);
      if (!t) {
        ADD_FAILURE() << label << ": column '" << n << "' is read as " << common[n]->ToString()
                      << " but the expected file has " << et->ToString();
        comparable = false;
        continue;
      }
      if (!et->Equals(*common[n])) {
        std::cout << "[   NOTE   ] " << label << ": column '" << n << "' is read as "
                  << common[n]->ToString() << ", the expected file has " << et->ToString()
                  << "; compared as " << t->ToString() << "\n";
      }
      common[n] = t;
    }
  }
  if (!comparable) return;
  const std::vector<std::string> columns(names.begin(), names.end());
  std::vector<std::string> got = CanonicalRows(actual, columns, common, &options);
  std::vector<std::string> want;
  for (const data::RecordBatch& e : expected) {
    std::vector<std::string> rows = CanonicalRows(e, columns, common, nullptr);
    want.insert(want.end(), rows.begin(), rows.end());
  }
  std::sort(want.begin(), want.end());
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty() && extra.empty())
      << label << ": " << got.size() << " rows read, " << want.size() << " expected"
      << "\n  expected but not read:" << Sample(missing)
      << "\n  read but not expected:" << Sample(extra);
}

Result<data::RecordBatch> ReadParquet(const io::FileSystem& fs, const std::string& path) {
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  return reader->ReadAll();
}

// The values of `columns` in each row, '|'-separated text (NULL as "NULL"), sorted.
std::vector<std::string> RowTexts(const data::RecordBatch& batch,
                                  const std::vector<std::string>& columns) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row;
    for (size_t k = 0; k < columns.size(); ++k) {
      int c = batch.schema().FieldIndex(columns[k]);
      if (c < 0) return {"no column " + columns[k]};
      Value v = batch.column(c).GetValue(r);
      if (k > 0) row += '|';
      row += v.is_null() ? "NULL" : data::FormatValueText(v, *batch.schema().field(c).type);
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

Result<data::RecordBatch> LoadAndRead(const io::FileSystem& fs, const std::string& root,
                                      std::optional<int64_t> version = std::nullopt) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, root, version));
  return ReadTable(fs, *snapshot);
}

// --- Per-table exceptions the README states ---------------------------------------------------

// golden-data-reader-partition-values: the zone-less timestamp partition value
// "2021-09-08 11:11:11" is read as UTC (partition_value.h), but Spark, which generated the
// expected data, read it in America/Los_Angeles, where that instant is PDT (UTC-7). Only that one
// value of that one column is moved; anything else in the column fails.
CompareOptions OptionsFor(const std::string& table) {
  CompareOptions options;
  if (table == "golden-data-reader-partition-values") {
    options.adjust_actual = [](const std::string& column, const Value& v) {
      if (column != "as_timestamp" || v.is_null()) return v;
      Result<int64_t> written = ParseTimestampText("2021-09-08 11:11:11");
      EXPECT_TRUE(written.ok());
      EXPECT_TRUE(v.is_int() && written.ok() && v.int_value() == *written)
          << "unexpected as_timestamp " << v.DebugString();
      if (!v.is_int() || !written.ok() || v.int_value() != *written) return v;
      constexpr int64_t kPdtOffsetMicros = 7LL * 3600 * 1000000;
      return Value::Int(v.int_value() + kPdtOffsetMicros);
    };
  }
  if (table == "golden-table-with-columnmapping-mode-name") {
    options.top_level_primitives_only = true;
  }
  return options;
}

// --- The manifest ---------------------------------------------------------------------------

TEST(DeltaTestdataManifest, ListsEveryTableFolder) {
  ASSERT_FALSE(Manifest().empty()) << "cannot read " << Root() << "/MANIFEST.json";
  Result<std::vector<io::FileInfo>> entries = Local().List(Root());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  std::set<std::string> folders;
  for (const io::FileInfo& e : *entries) {
    if (e.is_directory) folders.insert(BaseName(e.path));
  }
  std::vector<std::string> names = TableNames();
  EXPECT_EQ(folders, std::set<std::string>(names.begin(), names.end()));
  EXPECT_EQ(names.size(), 39u);
}

class DeltaTestdataTable : public testing::TestWithParam<std::string> {};

// What the manifest states about the latest snapshot's log: version, protocol, features,
// partition columns, live files, DV-deleted rows, txns, and the checkpoint it starts from.
TEST_P(DeltaTestdataTable, SnapshotMatchesManifest) {
  const std::string& name = GetParam();
  const json& m = Manifest().at(name);
  const std::string root = TableRoot(name);
  Result<std::shared_ptr<const Snapshot>> loaded = Snapshot::Load(Local(), root);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Snapshot& s = **loaded;

  EXPECT_EQ(s.version(), m.at("latest_version").get<int64_t>());
  EXPECT_EQ(s.protocol().min_reader_version, m.at("protocol")[0].get<int>());
  EXPECT_EQ(s.protocol().min_writer_version, m.at("protocol")[1].get<int>());
  std::set<std::string> features;
  for (const auto* list : {&s.protocol().reader_features, &s.protocol().writer_features}) {
    if (*list) features.insert((*list)->begin(), (*list)->end());
  }
  EXPECT_EQ(features, m.at("features").get<std::set<std::string>>());
  EXPECT_EQ(s.metadata().partition_columns,
            m.at("partition_columns").get<std::vector<std::string>>());
  EXPECT_EQ(static_cast<int64_t>(s.files().size()), m.at("live_files").get<int64_t>());

  int64_t dv_deleted = 0;
  for (const Add& add : s.files()) {
    if (add.deletion_vector) dv_deleted += add.deletion_vector->cardinality;
  }
  EXPECT_EQ(dv_deleted, m.at("dv_deleted_rows").get<int64_t>());

  if (m.at("txns").is_null()) {
    EXPECT_TRUE(s.txns().empty());
  } else {
    std::map<std::string, int64_t> txns;
    for (const auto& [app, txn] : s.txns()) txns[app] = txn.version;
    EXPECT_EQ(txns, (m.at("txns").get<std::map<std::string, int64_t>>()));
  }

  Result<LogSegment> segment = ListLogSegment(Local(), root);
  ASSERT_TRUE(segment.ok()) << segment.status().ToString();
  std::vector<std::string> used;
  for (const std::string& f : segment->checkpoint_files) used.push_back(BaseName(f));
  std::vector<std::string> want;
  if (!m.at("checkpoint_used_for_latest").is_null()) {
    for (const json& f : m.at("checkpoint_used_for_latest")) {
      if (f.get<std::string>().rfind('+', 0) != 0) want.push_back(f.get<std::string>());
    }
  }
  EXPECT_EQ(used, want);
}

// Replaying only the JSON commits (the checkpoints hidden) gives the same snapshot as starting
// from the checkpoint: same live (path, dvId) keys, txns, protocol and metadata.
class DeltaTestdataCheckpointTable : public testing::TestWithParam<std::string> {};

TEST_P(DeltaTestdataCheckpointTable, CheckpointAgreesWithCommits) {
  const std::string& name = GetParam();
  const std::string root = TableRoot(name);
  Result<std::vector<io::FileInfo>> log = Local().List(LogDir(root));
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  io::MemoryFileSystem mem;
  for (const io::FileInfo& f : *log) {
    std::string file = BaseName(f.path);
    if (f.is_directory || file.size() != 25 || !file.ends_with(".json")) continue;
    Result<std::string> content = Local().ReadFile(f.path);
    ASSERT_TRUE(content.ok());
    ASSERT_TRUE(mem.WriteFile("/t/_delta_log/" + file, *content).ok());
  }
  Result<std::shared_ptr<const Snapshot>> from_checkpoint = Snapshot::Load(Local(), root);
  ASSERT_TRUE(from_checkpoint.ok()) << from_checkpoint.status().ToString();
  Result<std::shared_ptr<const Snapshot>> from_commits = Snapshot::Load(mem, "/t");
  if (!from_commits.ok() && from_commits.status().code() == StatusCode::kCorrupt) {
    GTEST_SKIP() << "the log lacks early commits: " << from_commits.status().ToString();
  }
  ASSERT_TRUE(from_commits.ok()) << from_commits.status().ToString();
  auto keys = [](const Snapshot& s) {
    std::multiset<std::string> out;
    for (const Add& a : s.files()) out.insert(FileKey(a.path, a.deletion_vector));
    return out;
  };
  EXPECT_EQ((*from_checkpoint)->version(), (*from_commits)->version());
  EXPECT_EQ(keys(**from_checkpoint), keys(**from_commits));
  EXPECT_EQ((*from_checkpoint)->metadata().id, (*from_commits)->metadata().id);
  EXPECT_EQ((*from_checkpoint)->metadata().schema_string,
            (*from_commits)->metadata().schema_string);
  EXPECT_EQ((*from_checkpoint)->protocol().min_reader_version,
            (*from_commits)->protocol().min_reader_version);
  EXPECT_EQ((*from_checkpoint)->protocol().reader_features,
            (*from_commits)->protocol().reader_features);
  EXPECT_EQ((*from_checkpoint)->protocol().writer_features,
            (*from_commits)->protocol().writer_features);
  std::map<std::string, int64_t> a, b;
  for (const auto& [app, txn] : (*from_checkpoint)->txns()) a[app] = txn.version;
  for (const auto& [app, txn] : (*from_commits)->txns()) b[app] = txn.version;
  EXPECT_EQ(a, b);
}

// The rows at the latest version: the manifest's row count, and the expected data when there is
// some (expected/latest/ and every expected/vN/ for DAT tables, expected/*.parquet for golden).
class DeltaTestdataReadTable : public testing::TestWithParam<std::string> {};

TEST_P(DeltaTestdataReadTable, ReadsAsExpected) {
  const std::string& name = GetParam();
  const json& m = Manifest().at(name);
  const std::string root = TableRoot(name);
  Result<data::RecordBatch> rows = LoadAndRead(Local(), root);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->num_rows(), m.at("expected_row_count").get<int64_t>());
  if (m.at("expected_data").is_null()) return;

  const std::string expected_dir = Root() + "/" + name + "/expected";
  const CompareOptions options = OptionsFor(name);
  if (name.rfind("dat-", 0) == 0) {
    Result<std::vector<io::FileInfo>> dirs = Local().List(expected_dir);
    ASSERT_TRUE(dirs.ok()) << dirs.status().ToString();
    int compared = 0;
    for (const io::FileInfo& dir : *dirs) {
      if (!dir.is_directory) continue;
      const std::string which = BaseName(dir.path);
      SCOPED_TRACE(name + " expected/" + which);
      Result<std::string> meta_text = Local().ReadFile(dir.path + "/table_version_metadata.json");
      ASSERT_TRUE(meta_text.ok()) << meta_text.status().ToString();
      const json meta = json::parse(*meta_text);
      const int64_t version = meta.at("version").get<int64_t>();
      if (which == "latest") {
        EXPECT_EQ(version, m.at("latest_version").get<int64_t>());
      } else {
        EXPECT_EQ(which, "v" + std::to_string(version));
      }
      Result<std::shared_ptr<const Snapshot>> snapshot = Snapshot::Load(Local(), root, version);
      ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
      EXPECT_EQ((*snapshot)->version(), version);
      EXPECT_EQ((*snapshot)->protocol().min_reader_version,
                meta.at("min_reader_version").get<int>());
      EXPECT_EQ((*snapshot)->protocol().min_writer_version,
                meta.at("min_writer_version").get<int>());
      Result<data::RecordBatch> got = ReadTable(Local(), **snapshot);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      Result<data::RecordBatch> want = ReadParquet(Local(), dir.path + "/table_content.parquet");
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      ExpectSameRows(name + "@" + which, *got, {*want}, options);
      ++compared;
    }
    EXPECT_GT(compared, 0);
    return;
  }
  Result<std::vector<io::FileInfo>> files = Local().List(expected_dir);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  std::vector<data::RecordBatch> want;
  for (const io::FileInfo& f : *files) {
    if (f.is_directory || !f.path.ends_with(".parquet")) continue;
    Result<data::RecordBatch> batch = ReadParquet(Local(), f.path);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    want.push_back(std::move(batch).value());
  }
  ASSERT_FALSE(want.empty()) << "no expected/*.parquet";
  ExpectSameRows(name, *rows, want, options);
}

std::string ParamName(const testing::TestParamInfo<std::string>& info) {
  std::string out = info.param;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(DeltaTestdata, DeltaTestdataTable, testing::ValuesIn(TableNames()),
                         ParamName);
INSTANTIATE_TEST_SUITE_P(DeltaTestdata, DeltaTestdataCheckpointTable,
                         testing::ValuesIn(TablesWithCheckpoint()), ParamName);
INSTANTIATE_TEST_SUITE_P(DeltaTestdata, DeltaTestdataReadTable, testing::ValuesIn(TablesWithRows()),
                         ParamName);

// The README compares golden-table-with-columnmapping-mode-name on its top-level primitive
// columns only (above); its nested columns, whose members also carry physical names, read as the
// expected data too.
TEST(DeltaTestdataColumnMapping, NestedColumnsAlsoMatch) {
  const std::string table = "golden-table-with-columnmapping-mode-name";
  Result<data::RecordBatch> got = LoadAndRead(Local(), TableRoot(table));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  Result<std::vector<io::FileInfo>> files = Local().List(Root() + "/" + table + "/expected");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  std::vector<data::RecordBatch> want;
  for (const io::FileInfo& f : *files) {
    if (!f.path.ends_with(".parquet")) continue;
    Result<data::RecordBatch> batch = ReadParquet(Local(), f.path);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    want.push_back(std::move(batch).value());
  }
  bool nested = false;
  for (const data::Field& f : got->schema().fields()) nested = nested || f.type->is_nested();
  EXPECT_TRUE(nested);
  ExpectSameRows(table + " (all columns)", *got, want);
}

// The comparison itself: another version's rows, a row too many, a missing column and an
// inequivalent type fail; a narrower integer type compares by value.
TEST(DeltaTestdataCompare, DetectsDifferences) {
  const std::string table = "dat-basic_append";
  Result<data::RecordBatch> v1 = LoadAndRead(Local(), TableRoot(table), 1);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  auto expected = [&](const std::string& which) {
    return ReadParquet(Local(),
                       Root() + "/" + table + "/expected/" + which + "/table_content.parquet");
  };
  Result<data::RecordBatch> want_v0 = expected("v0");
  Result<data::RecordBatch> want_v1 = expected("v1");
  ASSERT_TRUE(want_v0.ok() && want_v1.ok());
  ExpectSameRows("v1", *v1, {*want_v1});
  EXPECT_NONFATAL_FAILURE(ExpectSameRows("v1 vs v0", *v1, {*want_v0}), "read but not expected");
  EXPECT_NONFATAL_FAILURE(ExpectSameRows("doubled", *v1, {*want_v1, *want_v1}),
                          "expected but not read");

  Result<std::shared_ptr<const Snapshot>> s = Snapshot::Load(Local(), TableRoot(table), 1);
  ASSERT_TRUE(s.ok());
  ScanOptions one_column;
  one_column.columns = {s.value()->schema().field(0).name};
  Result<data::RecordBatch> projected = ReadTable(Local(), **s, one_column);
  ASSERT_TRUE(projected.ok()) << projected.status().ToString();
  EXPECT_NONFATAL_FAILURE(ExpectSameRows("projected", *projected, {*want_v1}), "columns differ");

  data::RecordBatch ints(data::Schema({data::Field{"n", DataType::Int32(), true}}));
  data::RecordBatch longs(data::Schema({data::Field{"n", DataType::Int64(), true}}));
  data::RecordBatch texts(data::Schema({data::Field{"n", DataType::String(), true}}));
  for (int64_t i : {3, 1, 2}) {
    ints.AppendRow({Value::Int(i)});
    longs.AppendRow({Value::Int(4 - i)});
    texts.AppendRow({Value::Bytes(std::to_string(i))});
  }
  ExpectSameRows("int vs bigint", ints, {longs});
  EXPECT_NONFATAL_FAILURE(ExpectSameRows("int vs string", ints, {texts}), "is read as int");
}

// --- Values the notes give for tables without expected data --------------------------------

std::vector<std::string> ReadColumns(const std::string& table,
                                     const std::vector<std::string>& columns) {
  Result<data::RecordBatch> rows = LoadAndRead(Local(), TableRoot(table));
  EXPECT_TRUE(rows.ok()) << table << ": " << rows.status().ToString();
  if (!rows.ok()) return {};
  return RowTexts(*rows, columns);
}

TEST(DeltaTestdataValues, DeletionVectorTablesKeepValuesOneToEight) {
  const std::vector<std::string> want = {"1", "2", "3", "4", "5", "6", "7", "8"};
  EXPECT_EQ(ReadColumns("rs-table-with-dv-small", {"value"}), want);
  EXPECT_EQ(ReadColumns("synthetic-inline-dv", {"value"}), want);
}

TEST(DeltaTestdataValues, PythonCheckpointTable) {
  EXPECT_EQ(ReadColumns("rs-python-0.25.5-checkpoint", {"x"}),
            (std::vector<std::string>{"1", "1", "2", "2", "3", "3"}));
}

TEST(DeltaTestdataValues, SimpleTableIds) {
  EXPECT_EQ(ReadColumns("rs-simple_table", {"id"}), (std::vector<std::string>{"5", "7", "9"}));
}

TEST(DeltaTestdataValues, CompactedLogFilesTable) {
  EXPECT_EQ(ReadColumns("kernel-compacted-log-files-table", {"id", "comment"}),
            (std::vector<std::string>{"0|new", "10|merge1-insert", "12|merge2-insert",
                                      "1|after-large-delete", "2|"}));
}

TEST(DeltaTestdataValues, EdgeTimestamps) {
  EXPECT_EQ(
      ReadColumns("rs-table_with_edge_timestamps", {"BIG_DATE", "NORMAL_DATE", "SOME_VALUE"}),
      (std::vector<std::string>{"9999-12-30 00:00:00.000000Z|2022-02-01 00:00:00.000000Z|2",
                                "9999-12-31 00:00:00.000000Z|2022-01-01 00:00:00.000000Z|1"}));
}

TEST(DeltaTestdataValues, PartitionTypePrimitivesKeepStringPartitionText) {
  std::vector<std::string> years = ReadColumns("rs-partition-type-primitives", {"year"});
  EXPECT_EQ(years.size(), 16u);
  EXPECT_EQ(std::set<std::string>(years.begin(), years.end()),
            (std::set<std::string>{"2020", "2021.0"}));
}

TEST(DeltaTestdataValues, IsoTimestampPartitionEqualsStringColumn) {
  Result<data::RecordBatch> rows =
      LoadAndRead(Local(), TableRoot("golden-kernel-timestamp-partition-col-ISO8601"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->num_rows(), 2);
  int str = rows->schema().FieldIndex("str");
  int ts = rows->schema().FieldIndex("ts");
  ASSERT_GE(str, 0);
  ASSERT_GE(ts, 0);
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    Value text = rows->column(str).GetValue(r);
    Value instant = rows->column(ts).GetValue(r);
    ASSERT_TRUE(text.is_bytes() && instant.is_int());
    Result<int64_t> parsed = ParseTimestampText(text.bytes());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(instant.int_value(), *parsed) << text.bytes();
  }
}

TEST(DeltaTestdataValues, AppTransactionsAtEachVersion) {
  const std::string root = TableRoot("kernel-app-txn-checkpoint");
  Result<std::shared_ptr<const Snapshot>> v0 = Snapshot::Load(Local(), root, 0);
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ((*v0)->TxnVersion("my-app"), 1);
  Result<std::shared_ptr<const Snapshot>> latest = Snapshot::Load(Local(), root);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ((*latest)->version(), 1);
  EXPECT_EQ((*latest)->TxnVersion("my-app"), 3);
  EXPECT_EQ((*latest)->TxnVersion("my-app2"), 2);
  EXPECT_EQ((*latest)->TxnVersion("other-app"), std::nullopt);
}

// Log-only: the add paths are fake, so only the snapshot is checked.
TEST(DeltaTestdataValues, GoldenCheckpointLiveFile) {
  const std::string root = TableRoot("golden-checkpoint");
  Result<bool> hint = Local().Exists(LogDir(root) + "/_last_checkpoint");
  ASSERT_TRUE(hint.ok());
  EXPECT_TRUE(*hint);
  Result<LogSegment> segment = ListLogSegment(Local(), root);
  ASSERT_TRUE(segment.ok()) << segment.status().ToString();
  EXPECT_EQ(segment->checkpoint_version, 10);
  EXPECT_EQ(segment->commits.size(), 4u);
  Result<std::shared_ptr<const Snapshot>> s = Snapshot::Load(Local(), root);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->version(), 14);
  ASSERT_EQ((*s)->files().size(), 1u);
  EXPECT_EQ((*s)->files()[0].path, "15");
  EXPECT_FALSE((*s)->files()[0].deletion_vector.has_value());
}

// Log-only: the checkpoint at v2 must be found by listing, with no _last_checkpoint.
TEST(DeltaTestdataValues, CheckpointWithoutLastCheckpointHint) {
  const std::string root = TableRoot("rs-with_checkpoint_no_last_checkpoint");
  Result<bool> hint = Local().Exists(LogDir(root) + "/_last_checkpoint");
  ASSERT_TRUE(hint.ok());
  EXPECT_FALSE(*hint);
  Result<LogSegment> segment = ListLogSegment(Local(), root);
  ASSERT_TRUE(segment.ok()) << segment.status().ToString();
  EXPECT_EQ(segment->checkpoint_version, 2);
  ASSERT_EQ(segment->commits.size(), 1u);
  EXPECT_EQ(segment->commits[0].version, 3);
  Result<std::shared_ptr<const Snapshot>> s = Snapshot::Load(Local(), root);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->version(), 3);
  EXPECT_EQ((*s)->files().size(), 1u);
}

// The in-commit timestamp of each commit, read straight from the commit file.
std::vector<int64_t> InCommitTimestamps(const std::string& root) {
  std::vector<int64_t> out;
  for (int64_t v = 0;; ++v) {
    Result<std::string> content = Local().ReadFile(CommitPath(root, v));
    if (!content.ok()) break;
    const std::string first_line = content->substr(0, content->find('\n'));
    const json action = json::parse(first_line, nullptr, false);
    EXPECT_TRUE(action.contains("commitInfo")) << "commit " << v;
    out.push_back(action.value("commitInfo", json::object()).value("inCommitTimestamp", -1LL));
  }
  return out;
}

TEST(DeltaTestdataValues, InCommitTimestamps) {
  const std::string root = TableRoot("rs-cdc_ict_table");
  const std::vector<int64_t> ict = InCommitTimestamps(root);
  ASSERT_EQ(ict.size(), 4u);
  EXPECT_EQ(ict[1], 1683874206883);  // deliberately earlier than its file timestamp
  for (int64_t v = 0; v < 4; ++v) {
    Result<std::shared_ptr<const Snapshot>> s = Snapshot::Load(Local(), root, v);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->timestamp_ms(), ict[v]) << "version " << v;
  }
}

// --- Time travel by timestamp ----------------------------------------------------------------

// In-commit timestamps decide, not file times. Commit 1's timestamp is the smallest of the log.
TEST(DeltaTestdataTimeTravel, ByInCommitTimestamp) {
  const std::string root = TableRoot("rs-cdc_ict_table");
  const std::vector<int64_t> ict = InCommitTimestamps(root);
  ASSERT_EQ(ict.size(), 4u);
  struct Case {
    int64_t at;
    int64_t version;
  };
  for (const Case& c :
       {Case{ict[3], 3}, Case{ict[3] + 86400000, 3}, Case{ict[2], 2}, Case{ict[3] - 1, 2}}) {
    Result<std::shared_ptr<const Snapshot>> s = Snapshot::LoadAsOf(Local(), root, c.at);
    ASSERT_TRUE(s.ok()) << c.at << ": " << s.status().ToString();
    EXPECT_EQ((*s)->version(), c.version) << "as of " << c.at;
    EXPECT_EQ((*s)->timestamp_ms(), ict[c.version]);
  }
  Result<std::shared_ptr<const Snapshot>> before = Snapshot::LoadAsOf(Local(), root, ict[1] - 1);
  EXPECT_EQ(before.status().code(), StatusCode::kNotFound) << before.status().ToString();

  Result<std::shared_ptr<const Snapshot>> v3 = Snapshot::LoadAsOf(Local(), root, ict[3]);
  ASSERT_TRUE(v3.ok());
  Result<data::RecordBatch> rows = ReadTable(Local(), **v3);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->num_rows(),
            Manifest().at("rs-cdc_ict_table").at("expected_row_count").get<int64_t>());
}

// Copies the files below `from` (local) to `to` in `mem`.
void CopyTree(const std::string& from, io::MemoryFileSystem* mem, const std::string& to) {
  Result<std::vector<io::FileInfo>> entries = Local().List(from);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  for (const io::FileInfo& e : *entries) {
    const std::string dest = to + "/" + BaseName(e.path);
    if (e.is_directory) {
      CopyTree(e.path, mem, dest);
      continue;
    }
    Result<std::string> content = Local().ReadFile(e.path);
    ASSERT_TRUE(content.ok()) << content.status().ToString();
    ASSERT_TRUE(mem->WriteFile(dest, *content).ok());
  }
}

// Without in-commit timestamps the commit files' modification times decide (git does not keep
// them, so the test sets them on an in-memory copy); each version reads as DAT's expected data.
TEST(DeltaTestdataTimeTravel, ByCommitFileTime) {
  const std::string table = "dat-basic_append";
  io::MemoryFileSystem mem;
  ASSERT_NO_FATAL_FAILURE(CopyTree(TableRoot(table), &mem, "/t"));
  ASSERT_TRUE(mem.SetModificationTime(CommitPath("/t", 0), 1'700'000'000'000).ok());
  ASSERT_TRUE(mem.SetModificationTime(CommitPath("/t", 1), 1'700'000'060'000).ok());

  struct Case {
    int64_t at;
    int64_t version;
  };
  for (const Case& c : {Case{1'700'000'000'000, 0}, Case{1'700'000'059'999, 0},
                        Case{1'700'000'060'000, 1}, Case{1'800'000'000'000, 1}}) {
    Result<std::shared_ptr<const Snapshot>> s = Snapshot::LoadAsOf(mem, "/t", c.at);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->version(), c.version) << "as of " << c.at;
    Result<data::RecordBatch> got = ReadTable(mem, **s);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    Result<data::RecordBatch> want =
        ReadParquet(Local(), Root() + "/" + table + "/expected/v" + std::to_string(c.version) +
                                 "/table_content.parquet");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ExpectSameRows(table + " as of " + std::to_string(c.at), *got, {*want});
  }
  Result<std::shared_ptr<const Snapshot>> before = Snapshot::LoadAsOf(mem, "/t", 1'699'999'999'999);
  EXPECT_EQ(before.status().code(), StatusCode::kNotFound) << before.status().ToString();
}

// --- Refusing what cannot be read -----------------------------------------------------------

// A copy of rs-table-with-dv-small's log whose protocol lists a reader feature nobody knows.
TEST(DeltaTestdataUnsupported, UnknownReaderFeatureIsRefused) {
  const std::string root = TableRoot("rs-table-with-dv-small");
  io::MemoryFileSystem mem;
  bool edited = false;
  for (int64_t v = 0;; ++v) {
    Result<std::string> content = Local().ReadFile(CommitPath(root, v));
    if (!content.ok()) break;
    std::string out;
    size_t start = 0;
    while (start < content->size()) {
      size_t end = content->find('\n', start);
      if (end == std::string::npos) end = content->size();
      const std::string line = content->substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      json action = json::parse(line);
      if (action.contains("protocol")) {
        json& p = action["protocol"];
        ASSERT_EQ(p.at("minReaderVersion").get<int>(), 3);
        p["readerFeatures"].push_back("fakeReaderFeature");
        p["writerFeatures"].push_back("fakeReaderFeature");
        edited = true;
      }
      out += action.dump() + "\n";
    }
    ASSERT_TRUE(mem.WriteFile(CommitPath("/t", v), out).ok());
  }
  ASSERT_TRUE(edited);
  // The same log without the edit loads: only the feature makes the difference.
  ASSERT_TRUE(Snapshot::Load(Local(), root).ok());
  for (std::optional<int64_t> version : {std::optional<int64_t>(), std::optional<int64_t>(0)}) {
    Result<std::shared_ptr<const Snapshot>> s = Snapshot::Load(mem, "/t", version);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kNotSupported) << s.status().ToString();
    EXPECT_NE(s.status().message().find("not supported: fakeReaderFeature"), std::string::npos)
        << s.status().ToString();
  }
}

}  // namespace
}  // namespace cdclake::delta
