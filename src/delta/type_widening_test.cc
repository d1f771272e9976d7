// Tests for type widening: the allowed changes, delta.typeChanges, upcasting old files' columns,
// WidenColumns on tables with files written before and after, and the reader checks.
#include "delta/type_widening.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "data/decimal.h"
#include "delta/change_feed.h"
#include "delta/metadata_change.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "io/memory_file_system.h"
#include "json/json.h"

namespace cdclake::delta {
namespace {

using data::Column;
using data::DataType;
using data::Value;
using Json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;

bool Lists(const std::optional<std::vector<std::string>>& features, const std::string& name) {
  return features && std::find(features->begin(), features->end(), name) != features->end();
}

// The actions of one commit, keyed by action name (the last one of each name wins).
std::map<std::string, Json> CommitJson(io::FileSystem& fs, const std::string& root,
                                       int64_t version) {
  std::string name = std::to_string(version);
  name = std::string(20 - name.size(), '0') + name + ".json";
  auto text = fs.ReadFile(root + "/_delta_log/" + name);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  std::map<std::string, Json> out;
  size_t start = 0;
  while (text.ok() && start < text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    if (end > start) {
      auto line = json::Parse(std::string_view(*text).substr(start, end - start));
      EXPECT_TRUE(line.ok());
      if (line.ok()) out[line->begin().key()] = line->begin().value();
    }
    start = end + 1;
  }
  return out;
}

// The metadata of the field named `name` in a schemaString.
Json FieldMetadata(const std::string& schema_string, const std::string& name) {
  auto schema = json::Parse(schema_string);
  EXPECT_TRUE(schema.ok());
  for (const Json& f : (*schema)["fields"]) {
    if (f["name"] == name) return f["metadata"];
  }
  ADD_FAILURE() << "no field " << name;
  return Json();
}

// Writes a one-commit table whose log is exactly `actions` (one JSON object per line).
void WriteLog(io::FileSystem& fs, const std::string& root, const std::vector<Json>& actions) {
  std::string text;
  for (const Json& a : actions) text += json::Dump(a) + "\n";
  ASSERT_TRUE(fs.CreateDirs(root + "/_delta_log").ok());
  ASSERT_TRUE(fs.WriteFile(root + "/_delta_log/00000000000000000000.json", text).ok());
}

Json MetaData(const Json& metadata_of_v) {
  Json schema = {
      {"type", "struct"},
      {"fields",
       Json::array(
           {{{"name", "v"}, {"type", "long"}, {"nullable", true}, {"metadata", metadata_of_v}}})}};
  return {{"metaData",
           {{"id", "00000000-0000-0000-0000-000000000001"},
            {"format", {{"provider", "parquet"}, {"options", Json::object()}}},
            {"schemaString", json::Dump(schema)},
            {"partitionColumns", Json::array()},
            {"configuration", Json::object()}}}};
}

Json ProtocolJson(const std::vector<std::string>& features) {
  return {{"protocol",
           {{"minReaderVersion", 3},
            {"minWriterVersion", 7},
            {"readerFeatures", features},
            {"writerFeatures", features}}}};
}

// --- which changes are widenings ---

TEST(TypeWideningTest, AllowedChangesFollowTheSpec) {
  struct Case {
    data::TypePtr from, to;
    bool widening, iceberg;
  };
  const std::vector<Case> cases = {
      {DataType::Int8(), DataType::Int16(), true, true},
      {DataType::Int8(), DataType::Int64(), true, true},
      {DataType::Int32(), DataType::Int64(), true, true},
      {DataType::Int64(), DataType::Int32(), false, false},
      {DataType::Int32(), DataType::Int32(), false, false},
      {DataType::Float(), DataType::Double(), true, true},
      {DataType::Double(), DataType::Float(), false, false},
      {DataType::Int32(), DataType::Double(), true, false},
      {DataType::Int16(), DataType::Double(), true, false},
      {DataType::Int64(), DataType::Double(), false, false},
      {DataType::Int32(), DataType::Float(), false, false},
      {DataType::Date(), DataType::TimestampNtz(), true, false},
      {DataType::Date(), DataType::Timestamp(), false, false},
      {DataType::Timestamp(), DataType::TimestampNtz(), false, false},
      {DataType::Decimal(5, 2), DataType::Decimal(10, 4), true, false},
      {DataType::Decimal(5, 2), DataType::Decimal(7, 2), true, true},
      {DataType::Decimal(5, 2), DataType::Decimal(6, 4), false, false},  // k1 < k2
      {DataType::Decimal(5, 2), DataType::Decimal(5, 2), false, false},
      {DataType::Decimal(10, 4), DataType::Decimal(5, 2), false, false},
      {DataType::Decimal(5, 2), DataType::Decimal(10, 1), false, false},  // scale drops
      {DataType::Int32(), DataType::Decimal(10, 0), true, false},
      {DataType::Int8(), DataType::Decimal(12, 2), true, false},
      {DataType::Int32(), DataType::Decimal(9, 0), false, false},
      {DataType::Int32(), DataType::Decimal(11, 2), false, false},
      {DataType::Int64(), DataType::Decimal(20, 0), true, false},
      {DataType::Int64(), DataType::Decimal(19, 0), false, false},
      {DataType::Int32(), DataType::String(), false, false},
      {DataType::String(), DataType::Binary(), false, false},
      {DataType::Decimal(5, 2), DataType::Double(), false, false},
      {DataType::List(DataType::Int32()), DataType::List(DataType::Int64()), false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.from->ToString() + " -> " + c.to->ToString());
    EXPECT_EQ(IsTypeWidening(*c.from, *c.to), c.widening);
    EXPECT_EQ(IsIcebergCompatibleWidening(*c.from, *c.to), c.iceberg);
  }
}

TEST(TypeWideningTest, DeltaTypeNamesRoundTrip) {
  EXPECT_EQ(DeltaTypeName(*DataType::Int32()), "integer");
  EXPECT_EQ(DeltaTypeName(*DataType::Int64()), "long");
  EXPECT_EQ(DeltaTypeName(*DataType::Int8()), "byte");
  EXPECT_EQ(DeltaTypeName(*DataType::TimestampNtz()), "timestamp_ntz");
  EXPECT_EQ(DeltaTypeName(*DataType::Decimal(10, 4)), "decimal(10,4)");
  for (auto t : {DataType::Int8(), DataType::Int16(), DataType::Int32(), DataType::Int64(),
                 DataType::Float(), DataType::Double(), DataType::Date(), DataType::TimestampNtz(),
                 DataType::Decimal(38, 10)}) {
    auto parsed = ParseDeltaTypeName(DeltaTypeName(*t));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_TRUE((*parsed)->Equals(*t)) << t->ToString();
  }
  auto spaced = ParseDeltaTypeName("decimal(6, 2)");
  ASSERT_TRUE(spaced.ok());
  EXPECT_TRUE((*spaced)->Equals(*DataType::Decimal(6, 2)));
  EXPECT_EQ(ParseDeltaTypeName("void").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(ParseDeltaTypeName("decimal(6;2)").status().code(), StatusCode::kCorrupt);
}

// --- delta.typeChanges ---

TEST(TypeWideningTest, ParsesTypeChangesAsTheSpecWritesThem) {
  // The spec's examples: a column widened twice, and an array element's map value with spaces
  // in the decimal names. Spark's older "tableVersion" member is ignored.
  auto twice = ParseTypeChanges(Json::parse(
      R"([{"fromType":"short","toType":"integer","tableVersion":2},
          {"fromType":"integer","toType":"long"}])"));
  ASSERT_TRUE(twice.ok()) << twice.status().ToString();
  ASSERT_EQ(twice->size(), 2u);
  EXPECT_TRUE((*twice)[0].from_type->Equals(*DataType::Int16()));
  EXPECT_TRUE((*twice)[0].to_type->Equals(*DataType::Int32()));
  EXPECT_TRUE((*twice)[1].to_type->Equals(*DataType::Int64()));
  EXPECT_EQ((*twice)[1].field_path, "");

  auto nested = ParseTypeChanges(Json::parse(
      R"j([{"fromType":"decimal(6, 2)","toType":"decimal(10, 4)","fieldPath":"element.value"}])j"));
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_TRUE((*nested)[0].to_type->Equals(*DataType::Decimal(10, 4)));
  EXPECT_EQ((*nested)[0].field_path, "element.value");
  EXPECT_EQ(TypeChangeToJson((*nested)[0]),
            Json::parse(R"j({"fromType":"decimal(6,2)","toType":"decimal(10,4)",
                             "fieldPath":"element.value"})j"));
  EXPECT_EQ(TypeChangeToJson({DataType::Int32(), DataType::Int64(), ""}),
            Json::parse(R"({"fromType":"integer","toType":"long"})"));

  EXPECT_EQ(ParseTypeChanges(Json::object()).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(ParseTypeChanges(Json::parse(R"([{"fromType":"integer"}])")).status().code(),
            StatusCode::kCorrupt);
  EXPECT_EQ(ParseTypeChanges(Json::parse(R"([{"fromType":"integer","toType":7}])")).status().code(),
            StatusCode::kCorrupt);
  EXPECT_EQ(
      ParseTypeChanges(Json::parse(R"([{"fromType":"void","toType":"integer"}])")).status().code(),
      StatusCode::kNotSupported);
}

TEST(TypeWideningTest, CheckTypeChangesRefusesChangesThatAreNotWidenings) {
  DeltaSchema schema;
  schema.schema = data::Schema({{"v", DataType::Int64()}});
  schema.field_metadata["v"] = Json::parse(
      R"({"delta.typeChanges":[{"fromType":"integer","toType":"long"}],"comment":"x"})");
  EXPECT_TRUE(CheckTypeChanges(schema).ok());
  schema.field_metadata["v"] =
      Json::parse(R"({"delta.typeChanges":[{"fromType":"string","toType":"long"}]})");
  Status bad = CheckTypeChanges(schema);
  EXPECT_EQ(bad.code(), StatusCode::kNotSupported);
  EXPECT_NE(bad.message().find("'v'"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("string"), std::string::npos) << bad.message();
}

TEST(TypeWideningTest, HasTypeWideningAcceptsBothNames) {
  Protocol p;
  EXPECT_FALSE(HasTypeWidening(p));
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"deletionVectors"};
  p.writer_features = std::vector<std::string>{"deletionVectors"};
  EXPECT_FALSE(HasTypeWidening(p));
  p.reader_features->push_back("typeWidening-preview");
  EXPECT_TRUE(HasTypeWidening(p));
  p.reader_features = std::vector<std::string>{};
  p.writer_features->push_back("typeWidening");
  EXPECT_TRUE(HasTypeWidening(p));
}

// --- upcasting columns ---

TEST(TypeWideningTest, UpcastsPrimitiveColumnsKeepingNulls) {
  Column ints(DataType::Int32());
  ints.AppendValue(Value::Int(-2147483648LL));
  ints.AppendNull();
  ints.AppendValue(Value::Int(7));
  auto longs = UpcastColumn(ints, DataType::Int64(), "v");
  ASSERT_TRUE(longs.ok()) << longs.status().ToString();
  EXPECT_TRUE(longs->type()->Equals(*DataType::Int64()));
  ASSERT_EQ(longs->length(), 3);
  EXPECT_EQ(longs->ValueAt<int64_t>(0), -2147483648LL);
  EXPECT_TRUE(longs->IsNull(1));
  EXPECT_EQ(longs->ValueAt<int64_t>(2), 7);

  Column bytes(DataType::Int8());
  bytes.AppendValue(Value::Int(-128));
  bytes.AppendValue(Value::Int(5));
  auto shorts = UpcastColumn(bytes, DataType::Int16(), "b");
  ASSERT_TRUE(shorts.ok());
  EXPECT_EQ(shorts->ValueAt<int16_t>(0), -128);
  auto doubles = UpcastColumn(bytes, DataType::Double(), "b");
  ASSERT_TRUE(doubles.ok());
  EXPECT_EQ(doubles->ValueAt<double>(0), -128.0);

  Column floats(DataType::Float());
  floats.AppendValue(Value::Double(1.5));
  floats.AppendValue(Value::Double(0.1));
  auto widened = UpcastColumn(floats, DataType::Double(), "f");
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ(widened->ValueAt<double>(0), 1.5);
  // The float's own value, not the decimal text it was written from.
  EXPECT_EQ(widened->ValueAt<double>(1), static_cast<double>(0.1f));

  Column dates(DataType::Date());
  dates.AppendValue(Value::Int(19723));  // 2024-01-01
  dates.AppendValue(Value::Int(-1));
  auto stamps = UpcastColumn(dates, DataType::TimestampNtz(), "d");
  ASSERT_TRUE(stamps.ok());
  EXPECT_TRUE(stamps->type()->Equals(*DataType::TimestampNtz()));
  EXPECT_EQ(stamps->ValueAt<int64_t>(0), 19723 * kMicrosPerDay);
  EXPECT_EQ(stamps->ValueAt<int64_t>(1), -kMicrosPerDay);
}

TEST(TypeWideningTest, UpcastsDecimalsRescalingTheUnscaledValue) {
  Column d(DataType::Decimal(5, 2));
  d.AppendValue(Value::Decimal(12345));  // 123.45
  d.AppendValue(Value::Decimal(-99999));
  d.AppendNull();
  auto wide = UpcastColumn(d, DataType::Decimal(10, 4), "d");
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_TRUE(wide->type()->Equals(*DataType::Decimal(10, 4)));
  EXPECT_EQ(data::FormatDecimal(wide->ValueAt<data::Int128>(0), 4), "123.4500");
  EXPECT_EQ(data::FormatDecimal(wide->ValueAt<data::Int128>(1), 4), "-999.9900");
  EXPECT_TRUE(wide->IsNull(2));
  // Same scale, more precision: the values stay.
  auto same_scale = UpcastColumn(d, DataType::Decimal(9, 2), "d");
  ASSERT_TRUE(same_scale.ok());
  EXPECT_EQ(same_scale->ValueAt<data::Int128>(0), 12345);

  Column longs(DataType::Int64());
  longs.AppendValue(Value::Int(-9223372036854775807LL - 1));
  auto exact = UpcastColumn(longs, DataType::Decimal(22, 2), "l");
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_EQ(data::FormatDecimal(exact->ValueAt<data::Int128>(0), 2), "-9223372036854775808.00");
  // A value that does not fit is an error, never a wrapped number.
  EXPECT_EQ(UpcastColumn(longs, DataType::Decimal(12, 2), "l").status().code(),
            StatusCode::kOutOfRange);
  // Narrowing a scale is not an upcast.
  EXPECT_EQ(UpcastColumn(d, DataType::Decimal(10, 1), "d").status().code(),
            StatusCode::kNotSupported);
}

TEST(TypeWideningTest, UpcastRefusesOtherChangesNamingColumnAndTypes) {
  Column longs(DataType::Int64());
  longs.AppendValue(Value::Int(1));
  Status narrow = UpcastColumn(longs, DataType::Int32(), "id").status();
  EXPECT_EQ(narrow.code(), StatusCode::kNotSupported);
  EXPECT_EQ(narrow.message(), "column 'id' is long in the file but integer in the table");
  EXPECT_EQ(UpcastColumn(longs, DataType::Double(), "id").status().code(),
            StatusCode::kNotSupported);
  Column text(DataType::String());
  text.AppendBytes("1");
  EXPECT_EQ(UpcastColumn(text, DataType::Int64(), "s").status().code(), StatusCode::kNotSupported);
  // Same layouts are retyped (binary read for a string column).
  Column blob(DataType::Binary());
  blob.AppendBytes("abc");
  auto retyped = UpcastColumn(blob, DataType::String(), "s");
  ASSERT_TRUE(retyped.ok());
  EXPECT_TRUE(retyped->type()->Equals(*DataType::String()));
  EXPECT_EQ(retyped->StringAt(0), "abc");
}

TEST(TypeWideningTest, UpcastsInsideListsAndStructs) {
  auto narrow =
      DataType::Struct({{"a", DataType::Int16()}, {"xs", DataType::List(DataType::Float())}});
  auto wide =
      DataType::Struct({{"a", DataType::Int64()}, {"xs", DataType::List(DataType::Double())}});
  Column c(narrow);
  c.AppendValue(Value::Nested({Value::Int(3), Value::Nested({Value::Double(0.5), Value::Null()})}));
  c.AppendNull();
  auto out = UpcastColumn(c, wide, "s");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->type()->Equals(*wide));
  ASSERT_EQ(out->length(), 2);
  EXPECT_EQ(out->child(0).ValueAt<int64_t>(0), 3);
  EXPECT_TRUE(out->child(1).child(0).type()->Equals(*DataType::Double()));
  EXPECT_EQ(out->child(1).child(0).ValueAt<double>(0), 0.5);
  EXPECT_TRUE(out->child(1).child(0).IsNull(1));
  EXPECT_TRUE(out->IsNull(1));
  EXPECT_EQ(out->GetValue(0).DebugString(), c.GetValue(0).DebugString());
}

// --- WidenColumns on a table ---

data::Schema NarrowSchema() {
  return data::Schema({{"id", DataType::Int32(), false},
                       {"f", DataType::Float()},
                       {"d", DataType::Decimal(5, 2)},
                       {"day", DataType::Date()},
                       {"name", DataType::String()}});
}

std::map<std::string, data::TypePtr> WideTypes() {
  return {{"id", DataType::Int64()},
          {"f", DataType::Double()},
          {"d", DataType::Decimal(10, 4)},
          {"day", DataType::TimestampNtz()}};
}

TEST(TypeWideningTest, WidenedTableReadsOldAndNewFilesAtTheWideTypes) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = NarrowSchema();
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  data::RecordBatch before(spec.schema);
  before.AppendRow({Value::Int(2147483647), Value::Double(1.5), Value::Decimal(12345),
                    Value::Int(19723), Value::Bytes("old")});
  before.AppendRow(
      {Value::Int(-5), Value::Null(), Value::Decimal(-1), Value::Null(), Value::Bytes("old2")});
  ASSERT_TRUE(AppendRows(fs, "/t", before).ok());  // version 1

  auto widened = WidenColumns(fs, "/t", WideTypes());
  ASSERT_TRUE(widened.ok()) << widened.status().ToString();
  EXPECT_EQ(*widened, 2);

  auto snap = *Snapshot::Load(fs, "/t");
  data::Schema wide({{"id", DataType::Int64(), false},
                     {"f", DataType::Double()},
                     {"d", DataType::Decimal(10, 4)},
                     {"day", DataType::TimestampNtz()},
                     {"name", DataType::String()}});
  EXPECT_TRUE(snap->schema() == wide) << snap->schema().ToString();

  data::RecordBatch after(wide);
  after.AppendRow({Value::Int(9000000000LL), Value::Double(0.25), Value::Decimal(123456789),
                   Value::Int(19723 * kMicrosPerDay + 3600000000LL), Value::Bytes("new")});
  ASSERT_TRUE(AppendRows(fs, "/t", after).ok());  // version 3

  snap = *Snapshot::Load(fs, "/t");
  ASSERT_EQ(snap->files().size(), 2u);
  auto read = ReadTable(fs, *snap);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->schema() == wide);
  for (size_t c = 0; c < read->num_columns(); ++c) {
    EXPECT_TRUE(read->column(c).type()->Equals(*wide.field(c).type)) << c;
  }
  std::map<std::string, std::vector<Value>> rows;
  for (int64_t r = 0; r < read->num_rows(); ++r) {
    std::vector<Value> row = read->GetRow(r);
    rows[row[4].bytes()] = row;
  }
  ASSERT_EQ(rows.size(), 3u);
  const auto& old = rows["old"];
  EXPECT_EQ(old[0].int_value(), 2147483647);
  EXPECT_EQ(old[1].double_value(), 1.5);
  EXPECT_EQ(data::FormatDecimal(old[2].decimal_value(), 4), "123.4500");
  EXPECT_EQ(old[3].int_value(), 19723 * kMicrosPerDay);
  const auto& old2 = rows["old2"];
  EXPECT_EQ(old2[0].int_value(), -5);
  EXPECT_TRUE(old2[1].is_null());
  EXPECT_EQ(data::FormatDecimal(old2[2].decimal_value(), 4), "-0.0100");
  EXPECT_TRUE(old2[3].is_null());
  const auto& fresh = rows["new"];
  EXPECT_EQ(fresh[0].int_value(), 9000000000LL);
  EXPECT_EQ(data::FormatDecimal(fresh[2].decimal_value(), 4), "12345.6789");
  EXPECT_EQ(fresh[3].int_value(), 19723 * kMicrosPerDay + 3600000000LL);

  // One file alone, and a projection, come back wide too.
  for (const Add& add : snap->files()) {
    ScanOptions only;
    only.columns = {"day", "id"};
    auto part = ReadDataFile(fs, *snap, add, only);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    EXPECT_TRUE(part->column(0).type()->Equals(*DataType::TimestampNtz()));
    EXPECT_TRUE(part->column(1).type()->Equals(*DataType::Int64()));
  }

  // The change feed of every version reads the old file's inserts at the wide types.
  auto changes = ReadChanges(fs, "/t", 1);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  ASSERT_EQ(changes->num_rows(), 3);
  EXPECT_TRUE(changes->column(0).type()->Equals(*DataType::Int64()));
  EXPECT_TRUE(changes->column(2).type()->Equals(*DataType::Decimal(10, 4)));
  bool saw_old = false;
  for (int64_t r = 0; r < changes->num_rows(); ++r) {
    std::vector<Value> row = changes->GetRow(r);
    if (row[4].bytes() == "old") {
      saw_old = true;
      EXPECT_EQ(data::FormatDecimal(row[2].decimal_value(), 4), "123.4500");
      EXPECT_EQ(row[3].int_value(), 19723 * kMicrosPerDay);
    }
  }
  EXPECT_TRUE(saw_old);
}

TEST(TypeWideningTest, TheLogRecordsTheFeatureAndTypeChangesAsTheSpecSpellsThem) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = NarrowSchema();
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  ASSERT_TRUE(WidenColumns(fs, "/t", WideTypes()).ok());

  std::map<std::string, Json> commit = CommitJson(fs, "/t", 1);
  ASSERT_TRUE(commit.count("protocol"));
  ASSERT_TRUE(commit.count("metaData"));
  const Json& protocol = commit["protocol"];
  EXPECT_EQ(protocol["minReaderVersion"], 3);
  EXPECT_EQ(protocol["minWriterVersion"], 7);
  auto has = [](const Json& list, const std::string& f) {
    return std::find(list.begin(), list.end(), Json(f)) != list.end();
  };
  EXPECT_TRUE(has(protocol["readerFeatures"], "typeWidening"));
  EXPECT_TRUE(has(protocol["writerFeatures"], "typeWidening"));
  // date -> timestamp_ntz brings the timestamp_ntz type, and with it its feature.
  EXPECT_TRUE(has(protocol["readerFeatures"], "timestampNtz"));
  EXPECT_TRUE(has(protocol["writerFeatures"], "timestampNtz"));
  // Features the old writer version 2 implied are listed once it is version 7.
  EXPECT_TRUE(has(protocol["writerFeatures"], "appendOnly"));
  EXPECT_TRUE(has(protocol["writerFeatures"], "invariants"));

  const Json& metadata = commit["metaData"];
  EXPECT_EQ(metadata["configuration"]["delta.enableTypeWidening"], "true");
  const std::string schema = metadata["schemaString"].get<std::string>();
  EXPECT_EQ(FieldMetadata(schema, "id"),
            Json::parse(R"({"delta.typeChanges":[{"fromType":"integer","toType":"long"}]})"));
  EXPECT_EQ(FieldMetadata(schema, "f"),
            Json::parse(R"({"delta.typeChanges":[{"fromType":"float","toType":"double"}]})"));
  EXPECT_EQ(FieldMetadata(schema, "d"), Json::parse(R"j({"delta.typeChanges":
                [{"fromType":"decimal(5,2)","toType":"decimal(10,4)"}]})j"));
  EXPECT_EQ(FieldMetadata(schema, "day"),
            Json::parse(R"({"delta.typeChanges":[{"fromType":"date","toType":"timestamp_ntz"}]})"));
  EXPECT_EQ(FieldMetadata(schema, "name"), Json::object());
  EXPECT_NE(schema.find(R"("name":"id","type":"long")"), std::string::npos) << schema;
  EXPECT_NE(schema.find(R"("name":"day","type":"timestamp_ntz")"), std::string::npos);

  ASSERT_TRUE(commit.count("commitInfo"));
  EXPECT_EQ(commit["commitInfo"]["operation"], "CHANGE COLUMN");
}

TEST(TypeWideningTest, SuccessiveWideningsAppendToTheHistoryAndKeepOtherMetadata) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"k", DataType::Int16()}, {"v", DataType::String()}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  data::RecordBatch a(spec.schema);
  a.AppendRow({Value::Int(-32768), Value::Bytes("short")});
  ASSERT_TRUE(AppendRows(fs, "/t", a).ok());

  ASSERT_TRUE(WidenColumns(fs, "/t", {{"k", DataType::Int32()}}).ok());
  data::RecordBatch b(data::Schema({{"k", DataType::Int32()}, {"v", DataType::String()}}));
  b.AppendRow({Value::Int(2000000000), Value::Bytes("int")});
  ASSERT_TRUE(AppendRows(fs, "/t", b).ok());

  // A later additive change must keep the history (writers preserve delta.typeChanges).
  data::Schema added(
      {{"k", DataType::Int32()}, {"v", DataType::String()}, {"w", DataType::Int32()}});
  auto evolved = EvolveSchema(fs, "/t", added);
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();

  auto v = WidenColumns(fs, "/t", {{"k", DataType::Int64()}, {"w", DataType::Int64()}});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  // The table already lists the feature: no second protocol action.
  EXPECT_FALSE(CommitJson(fs, "/t", *v).count("protocol"));
  data::RecordBatch c(data::Schema(
      {{"k", DataType::Int64()}, {"v", DataType::String()}, {"w", DataType::Int64()}}));
  c.AppendRow({Value::Int(1LL << 40), Value::Bytes("long"), Value::Int(1)});
  ASSERT_TRUE(AppendRows(fs, "/t", c).ok());

  auto snap = *Snapshot::Load(fs, "/t");
  const Json& meta = snap->delta_schema().field_metadata.at("k");
  EXPECT_EQ(meta, Json::parse(R"({"delta.typeChanges":[
      {"fromType":"short","toType":"integer"},{"fromType":"integer","toType":"long"}]})"));
  EXPECT_EQ(snap->delta_schema().field_metadata.at("w"),
            Json::parse(R"({"delta.typeChanges":[{"fromType":"integer","toType":"long"}]})"));

  auto read = ReadTable(fs, *snap);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  std::map<std::string, int64_t> k;
  for (int64_t r = 0; r < read->num_rows(); ++r) {
    auto row = read->GetRow(r);
    k[row[1].bytes()] = row[0].int_value();
  }
  EXPECT_EQ(k, (std::map<std::string, int64_t>{
                   {"short", -32768}, {"int", 2000000000}, {"long", 1LL << 40}}));
}

TEST(TypeWideningTest, WidensAPartitionColumn) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"p", DataType::Int32()}, {"v", DataType::String()}});
  spec.partition_columns = {"p"};
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  data::RecordBatch a(spec.schema);
  a.AppendRow({Value::Int(7), Value::Bytes("a")});
  ASSERT_TRUE(AppendRows(fs, "/t", a).ok());
  ASSERT_TRUE(WidenColumns(fs, "/t", {{"p", DataType::Int64()}}).ok());
  data::RecordBatch b(data::Schema({{"p", DataType::Int64()}, {"v", DataType::String()}}));
  b.AppendRow({Value::Int(1LL << 33), Value::Bytes("b")});
  ASSERT_TRUE(AppendRows(fs, "/t", b).ok());
  auto snap = *Snapshot::Load(fs, "/t");
  auto read = ReadTable(fs, *snap);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->column(0).type()->Equals(*DataType::Int64()));
  std::map<std::string, int64_t> p;
  for (int64_t r = 0; r < read->num_rows(); ++r) {
    auto row = read->GetRow(r);
    p[row[1].bytes()] = row[0].int_value();
  }
  EXPECT_EQ(p, (std::map<std::string, int64_t>{{"a", 7}, {"b", 1LL << 33}}));
}

TEST(TypeWideningTest, RefusesNarrowingAndUnrelatedChangesWithoutCommitting) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema(
      {{"id", DataType::Int64()}, {"n", DataType::Int32()}, {"d", DataType::Decimal(10, 2)}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());

  Status narrow = WidenColumns(fs, "/t", {{"id", DataType::Int32()}}).status();
  EXPECT_EQ(narrow.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(narrow.message().find("'id'"), std::string::npos) << narrow.message();
  EXPECT_NE(narrow.message().find("from long to integer"), std::string::npos) << narrow.message();

  Status text = WidenColumns(fs, "/t", {{"n", DataType::String()}}).status();
  EXPECT_EQ(text.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.message().find("from integer to string"), std::string::npos) << text.message();

  EXPECT_EQ(WidenColumns(fs, "/t", {{"d", DataType::Decimal(11, 4)}}).status().code(),
            StatusCode::kInvalidArgument);  // k1 = 1 < k2 = 2
  EXPECT_EQ(WidenColumns(fs, "/t", {{"id", DataType::Double()}}).status().code(),
            StatusCode::kInvalidArgument);
  // One bad entry refuses the whole call, the good one included.
  EXPECT_EQ(
      WidenColumns(fs, "/t", {{"n", DataType::Int64()}, {"id", DataType::Int16()}}).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(WidenColumns(fs, "/t", {{"nope", DataType::Int64()}}).status().code(),
            StatusCode::kNotFound);

  auto snap = *Snapshot::Load(fs, "/t");
  EXPECT_EQ(snap->version(), 0);
  EXPECT_FALSE(HasTypeWidening(snap->protocol()));

  // Asking for the current types changes nothing and commits nothing.
  auto same = WidenColumns(fs, "/t", {{"id", DataType::Int64()}});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, 0);
}

TEST(TypeWideningTest, RespectsTheTableSwitchAndIcebergCompatibility) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"n", DataType::Int32()}});
  spec.properties = {{"delta.enableTypeWidening", "false"}};
  ASSERT_TRUE(CreateTable(fs, "/off", spec).ok());
  EXPECT_EQ(WidenColumns(fs, "/off", {{"n", DataType::Int64()}}).status().code(),
            StatusCode::kInvalidArgument);

  // Created with the property on: the protocol lists the feature from version 0.
  spec.properties = {{"delta.enableTypeWidening", "true"}};
  auto on = CreateTable(fs, "/on", spec);
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(Lists((*on)->protocol().reader_features, "typeWidening"));
  EXPECT_TRUE(Lists((*on)->protocol().writer_features, "typeWidening"));

  // icebergCompatV2 allows int -> long but not int -> double.
  // (No column mapping metadata in this fixture: only the writer-feature check matters.)
  Json protocol = ProtocolJson({"columnMapping"});
  protocol["protocol"]["writerFeatures"] =
      std::vector<std::string>{"columnMapping", "icebergCompatV2"};
  WriteLog(fs, "/ice", {protocol, MetaData(Json::object())});
  auto ice = Snapshot::Load(fs, "/ice");
  ASSERT_TRUE(ice.ok()) << ice.status().ToString();
  EXPECT_EQ(WidenColumns(fs, "/ice", {{"v", DataType::Decimal(22, 2)}}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(TypeWideningTest, PreviewTablesKeepTheirFeatureName) {
  io::MemoryFileSystem fs;
  WriteLog(
      fs, "/t",
      {ProtocolJson({"typeWidening-preview"}),
       MetaData(Json::parse(R"({"delta.typeChanges":[{"fromType":"integer","toType":"long"}]})"))});
  auto snap = Snapshot::Load(fs, "/t");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_TRUE(HasTypeWidening((*snap)->protocol()));
  EXPECT_EQ(WidenColumns(fs, "/t", {{"v", DataType::Decimal(20, 0)}}).status().code(),
            StatusCode::kOk);
  auto after = *Snapshot::Load(fs, "/t");
  EXPECT_FALSE(Lists(after->protocol().reader_features, "typeWidening"));
  EXPECT_FALSE(Lists(after->protocol().writer_features, "typeWidening"));
  EXPECT_EQ(after->delta_schema().field_metadata.at("v")["delta.typeChanges"].size(), 2u);
}

// --- the reader checks ---

TEST(TypeWideningTest, ReadersAcceptTheFeatureButNotUnknownOnes) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"typeWidening"};
  EXPECT_TRUE(CheckReadable(p).ok());
  p.reader_features = std::vector<std::string>{"typeWidening-preview", "deletionVectors"};
  EXPECT_TRUE(CheckReadable(p).ok());
  p.reader_features = std::vector<std::string>{"typeWidening", "someFutureFeature"};
  Status unknown = CheckReadable(p);
  EXPECT_EQ(unknown.code(), StatusCode::kNotSupported);
  EXPECT_NE(unknown.message().find("someFutureFeature"), std::string::npos);

  io::MemoryFileSystem fs;
  WriteLog(fs, "/future",
           {ProtocolJson({"typeWidening", "someFutureFeature"}), MetaData(Json::object())});
  EXPECT_EQ(Snapshot::Load(fs, "/future").status().code(), StatusCode::kNotSupported);

  WriteLog(
      fs, "/ok",
      {ProtocolJson({"typeWidening"}),
       MetaData(Json::parse(R"({"delta.typeChanges":[{"fromType":"short","toType":"long"}]})"))});
  EXPECT_TRUE(Snapshot::Load(fs, "/ok").ok());
}

TEST(TypeWideningTest, ReadersRefuseTypeChangesTheyDoNotSupport) {
  io::MemoryFileSystem fs;
  WriteLog(
      fs, "/t",
      {ProtocolJson({"typeWidening"}),
       MetaData(Json::parse(R"({"delta.typeChanges":[{"fromType":"string","toType":"long"}]})"))});
  Status s = Snapshot::Load(fs, "/t").status();
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("type change"), std::string::npos) << s.message();

  // Without the feature the metadata key means nothing to readers.
  WriteLog(
      fs, "/plain",
      {Json{{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}},
       MetaData(Json::parse(R"({"delta.typeChanges":[{"fromType":"string","toType":"long"}]})"))});
  EXPECT_TRUE(Snapshot::Load(fs, "/plain").ok());
}

}  // namespace
}  // namespace cdclake::delta
