// Tests for ChangeFileOptions::rescued_data_column: CSV and JSON Lines rows whose values do not
// convert keep them in the rescued-data column (JSON of column -> value as written, with
// _file_path) instead of being rejected, read whole or in two halves alike.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json/json.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/change_file_test_util_internal.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Schema;
using data::Value;
using testing::ReadOutcome;
using testing::ReadText;

ChangeFileOptions Rescuing(FileFormat format, std::optional<Schema> schema, int64_t split_from) {
  ChangeFileOptions options;
  options.format = format;
  options.schema = std::move(schema);
  options.rescued_data_column = "_rescued_data";
  options.split_from_bytes = split_from;
  return options;
}

// The rescued-data cell of row r as JSON (null when NULL).
json::Json Rescued(const ReadOutcome& out, size_t r) {
  const Value& v = out.rows[r].back();
  if (v.is_null()) return json::Json();
  auto parsed = json::Parse(v.bytes());
  EXPECT_TRUE(parsed.ok());
  return parsed.ok() ? *parsed : json::Json();
}

TEST(RescuedData, CsvValuesThatDoNotConvertAreKeptAndTheRowWritten) {
  const std::string text = "id,qty,day\n1,3,2026-01-02\n2,xyz,2026-01-03\n3,4,not a day\n4,5,\n";
  Schema schema({{"id", DataType::Int64()}, {"qty", DataType::Int32()}, {"day", DataType::Date()}});
  for (int64_t split : {int64_t{0}, int64_t{1}}) {
    SCOPED_TRACE("split_from_bytes " + std::to_string(split));
    auto out = ReadText(text, Rescuing(FileFormat::kCsv, schema, split), "in/a.csv");
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(out->rejected.empty());
    ASSERT_EQ(out->rows.size(), 4u);
    ASSERT_EQ(out->schema.num_fields(), 4u);
    EXPECT_EQ(out->schema.field(3).name, "_rescued_data");
    EXPECT_TRUE(out->schema.field(3).type->Equals(*DataType::String()));
    EXPECT_TRUE(Rescued(*out, 0).is_null());
    EXPECT_TRUE(out->rows[1][1].is_null());
    EXPECT_EQ(Rescued(*out, 1), json::Parse(R"({"qty": "xyz", "_file_path": "in/a.csv"})").value());
    EXPECT_EQ(out->rows[2][1], Value::Int(4));
    EXPECT_TRUE(out->rows[2][2].is_null());
    EXPECT_EQ(Rescued(*out, 2),
              json::Parse(R"({"day": "not a day", "_file_path": "in/a.csv"})").value());
    EXPECT_TRUE(Rescued(*out, 3).is_null());  // an empty field is NULL, not a misfit
  }
}

TEST(RescuedData, JsonValuesOfAnotherTypeAreKeptWithoutTheRecordBeingRejected) {
  const std::string text =
      "{\"id\": 1, \"n\": 5}\n{\"id\": 2, \"n\": \"abc\"}\n{\"id\": 3, \"n\": [1, 2]}\n"
      "{\"id\": \"x\", \"n\": \"y\"}\nnot json\n";
  Schema schema({{"id", DataType::Int64()}, {"n", DataType::Int64()}});
  for (int64_t split : {int64_t{0}, int64_t{1}}) {
    SCOPED_TRACE("split_from_bytes " + std::to_string(split));
    auto out = ReadText(text, Rescuing(FileFormat::kJsonLines, schema, split), "in/a.jsonl");
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->rows.size(), 4u);
    ASSERT_EQ(out->rejected.size(), 1u);  // a line that is not JSON is still rejected
    EXPECT_EQ(out->rejected[0].position.line, 5);
    EXPECT_TRUE(Rescued(*out, 0).is_null());
    EXPECT_EQ(Rescued(*out, 1), json::Parse(R"({"n": "abc", "_file_path": "in/a.jsonl"})").value());
    EXPECT_EQ(Rescued(*out, 2),
              json::Parse(R"({"n": "[1, 2]", "_file_path": "in/a.jsonl"})").value());
    EXPECT_EQ(Rescued(*out, 3),
              json::Parse(R"({"id": "x", "n": "y", "_file_path": "in/a.jsonl"})").value());
    EXPECT_TRUE(out->rows[3][0].is_null());
  }
}

TEST(RescuedData, WithoutTheOptionTheRecordIsRejectedNamingTheColumn) {
  ChangeFileOptions options = Rescuing(FileFormat::kCsv, Schema({{"qty", DataType::Int32()}}), 0);
  options.rescued_data_column.clear();
  auto out = ReadText("qty\nxyz\n", options, "in/a.csv");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->rows.empty());
  ASSERT_EQ(out->rejected.size(), 1u);
  EXPECT_EQ(out->rejected[0].misfit_column, "qty");
}

TEST(RescuedData, AFileColumnOfTheSameNameIsAnError) {
  auto out = ReadText("id,_rescued_data\n1,x\n", Rescuing(FileFormat::kCsv, std::nullopt, 0));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("_rescued_data"), std::string::npos);
}

}  // namespace
}  // namespace cdclake::sources
