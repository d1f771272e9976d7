// Tests for JSON Lines change files: types, exact numbers, inference across the file, nested
// objects, missing members, rejected lines with their positions, batch splitting and chunking.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/decimal.h"
#include "data/value_format.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/change_file_test_util_internal.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Schema;
using data::Value;
using testing::ReadOutcome;
using testing::ReadText;

ChangeFileOptions Jsonl(std::optional<Schema> schema = std::nullopt, int64_t batch_rows = 1 << 16) {
  ChangeFileOptions options;
  options.format = FileFormat::kJsonLines;
  options.schema = std::move(schema);
  options.batch_rows = batch_rows;
  return options;
}

ReadOutcome MustRead(std::string_view text, ChangeFileOptions options) {
  Result<ReadOutcome> out = ReadText(text, std::move(options));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(out).value() : ReadOutcome();
}

Value Str(const char* s) {
  return Value::Bytes(s);
}

data::Int128 Dec(const char* text, int scale) {
  Result<data::Int128> v = data::ParseDecimal(text, 38, scale);
  EXPECT_TRUE(v.ok()) << text;
  return v.ok() ? *v : 0;
}

TEST(JsonLinesChangeReader, TypesFromTheSchema) {
  Schema schema({{"b", DataType::Boolean()},
                 {"i16", DataType::Int16()},
                 {"i64", DataType::Int64()},
                 {"f", DataType::Float()},
                 {"d", DataType::Double()},
                 {"dec", DataType::Decimal(10, 2)},
                 {"s", DataType::String()},
                 {"bin", DataType::Binary()},
                 {"day", DataType::Date()},
                 {"ts", DataType::Timestamp()}});
  std::string text = R"({"b":true,"i16":-7,"i64":9223372036854775807,"f":0.5,"d":1e300,"dec":12.3,)"
                     R"("s":"a\"b\\c\u00e9\ud83d\ude00","bin":"\u0000\u00ff","day":"2000-03-01",)"
                     R"("ts":"2000-03-01T00:00:01Z"})"
                     "\n"
                     R"({"b":"FALSE","i16":"12","dec":"-0.10","s":42,"d":-0.0})"
                     "\n";
  ReadOutcome out = MustRead(text, Jsonl(schema));
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.schema, schema);
  const auto& r0 = out.rows[0];
  EXPECT_EQ(r0[0], Value::Bool(true));
  EXPECT_EQ(r0[1], Value::Int(-7));
  EXPECT_EQ(r0[2], Value::Int(INT64_MAX));
  EXPECT_EQ(r0[3], Value::Double(0.5));
  EXPECT_EQ(r0[4], Value::Double(1e300));
  EXPECT_EQ(r0[5], Value::Decimal(1230));
  EXPECT_EQ(r0[6], Str("a\"b\\c\xC3\xA9\xF0\x9F\x98\x80"));
  EXPECT_EQ(r0[7], Value::Bytes(std::string("\0\xC3\xBF", 3)));
  EXPECT_EQ(r0[8], Value::Int(data::DaysFromCivil(2000, 3, 1)));
  EXPECT_EQ(r0[9], Value::Int(data::DaysFromCivil(2000, 3, 1) * 86400000000LL + 1000000));
  const auto& r1 = out.rows[1];
  EXPECT_EQ(r1[0], Value::Bool(false));
  EXPECT_EQ(r1[1], Value::Int(12));
  EXPECT_TRUE(r1[2].is_null());  // missing member
  EXPECT_EQ(r1[4], Value::Double(-0.0));
  EXPECT_EQ(r1[5], Value::Decimal(-10));
  EXPECT_EQ(r1[6], Str("42"));  // a number into a STRING column keeps its text
}

TEST(JsonLinesChangeReader, NumbersKeepEveryDigit) {
  std::string text =
      R"({"big":123456789012345678901234567890,"dec":12345678901234567890.123,"huge":1})"
      "\n"
      R"({"big":-1,"dec":0.5,"huge":1234567890123456789012345678901234567890})"
      "\n";
  ReadOutcome out = MustRead(text, Jsonl());
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.schema.field(0).type->ToString(), "decimal(38,0)");
  // Without a schema a fraction means DOUBLE (as Spark infers JSON), whatever its digits.
  EXPECT_EQ(out.schema.field(1).type->ToString(), "double");
  EXPECT_EQ(out.schema.field(2).type->ToString(), "string");  // wider than DECIMAL(38)
  EXPECT_EQ(out.rows[0][0], Value::Decimal(Dec("123456789012345678901234567890", 0)));
  EXPECT_EQ(out.rows[0][1], Value::Double(12345678901234567890.123));
  EXPECT_EQ(out.rows[1][0], Value::Decimal(-1));
  EXPECT_EQ(out.rows[1][1], Value::Double(0.5));
  EXPECT_EQ(out.rows[1][2], Str("1234567890123456789012345678901234567890"));

  // With a schema: the literal goes straight into the decimal, never through a double.
  Schema schema({{"d", DataType::Decimal(38, 10)}});
  ReadOutcome typed = MustRead(R"({"d":1234567890123456789012345678.0123456789})", Jsonl(schema));
  ASSERT_EQ(typed.rows.size(), 1u);
  EXPECT_EQ(data::FormatDecimal(typed.rows[0][0].decimal_value(), 10),
            "1234567890123456789012345678.0123456789");
}

TEST(JsonLinesChangeReader, InferenceAcrossTheWholeFile) {
  std::string text =
      R"({"i":1,"d":1,"e":1,"b":true,"s":"x","mixed":1,"obj":{"a":[1, 2]},"arr":[1,"x"],"n":null})"
      "\n"
      R"({"i":2,"d":2.25,"e":2.5E2,"b":false,"s":"y","mixed":"one","obj":{},"arr":[]})"
      "\n"
      R"({"mixed":true,"late":5})"
      "\n";
  ReadOutcome out = MustRead(text, Jsonl());
  std::vector<std::string> names, types;
  for (const auto& f : out.schema.fields()) {
    names.push_back(f.name);
    types.push_back(f.type->ToString());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"i", "d", "e", "b", "s", "mixed", "obj", "arr", "n",
                                             "late"}));
  EXPECT_EQ(types, (std::vector<std::string>{"bigint", "double", "double", "boolean", "string",
                                             "string", "string", "string", "string", "bigint"}));
  ASSERT_EQ(out.rows.size(), 3u);
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  EXPECT_EQ(out.rows[0][1], Value::Double(1));  // an integer beside a fraction: DOUBLE
  EXPECT_EQ(out.rows[1][1], Value::Double(2.25));
  EXPECT_EQ(out.rows[1][2], Value::Double(250));
  EXPECT_EQ(out.rows[0][5], Str("1"));
  EXPECT_EQ(out.rows[1][5], Str("one"));
  EXPECT_EQ(out.rows[2][5], Str("true"));
  EXPECT_EQ(out.rows[0][6], Str(R"({"a":[1, 2]})"));  // the object's own text
  EXPECT_EQ(out.rows[0][7], Str(R"([1,"x"])"));
  EXPECT_TRUE(out.rows[0][8].is_null());
  EXPECT_TRUE(out.rows[0][9].is_null());
  EXPECT_EQ(out.rows[2][9], Value::Int(5));
}

TEST(JsonLinesChangeReader, NestedObjectsBecomeStructsWhenTheSchemaSaysSo) {
  data::TypePtr address =
      DataType::Struct({{"city", DataType::String()},
                        {"zip", DataType::Int32()},
                        {"geo", DataType::Struct({{"lat", DataType::Decimal(9, 6)}})}});
  Schema schema({{"addr", address},
                 {"tags", DataType::List(DataType::Int64())},
                 {"attrs", DataType::Map(DataType::String(), DataType::Boolean())}});
  std::string text =
      R"({"addr":{"zip":150,"city":"Oslo","other":[1],"geo":{"lat":59.913868}},"tags":[1,2],)"
      R"("attrs":{"x":true,"y":null}})"
      "\n"
      R"({"addr":null,"tags":[]})"
      "\n"
      R"({"addr":{"geo":{"lat":"north"}}})"
      "\n"
      R"({"tags":[1,"two"]})"
      "\n"
      R"({"addr":"Oslo"})"
      "\n";
  ReadOutcome out = MustRead(text, Jsonl(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0][0], Value::Nested({Str("Oslo"), Value::Int(150),
                                           Value::Nested({Value::Decimal(59913868)})}));
  EXPECT_EQ(out.rows[0][1], Value::Nested({Value::Int(1), Value::Int(2)}));
  EXPECT_EQ(out.rows[0][2], Value::Nested({Value::Nested({Str("x"), Value::Bool(true)}),
                                           Value::Nested({Str("y"), Value::Null()})}));
  EXPECT_TRUE(out.rows[1][0].is_null());
  EXPECT_EQ(out.rows[1][1], Value::Nested({}));
  ASSERT_EQ(out.rejected.size(), 3u);
  EXPECT_EQ(out.rejected[0].reason, "column 'addr.geo.lat': 'north' is not a DECIMAL(9,6)");
  EXPECT_EQ(out.rejected[1].reason, "column 'tags[1]': 'two' is not a BIGINT");
  EXPECT_EQ(
      out.rejected[2].reason,
      "column 'addr': 'Oslo' is not a struct<city:string,zip:int,geo:struct<lat:decimal(9,6)>>");
  EXPECT_EQ(out.rejected[2].position.line, 5);
}

TEST(JsonLinesChangeReader, BadLinesAreRejectedAndReadingGoesOn) {
  std::string text =
      "{\"id\":1}\n"           // line 1, offset 0
      "\n"                     // line 2: blank
      "  \t \n"                // line 3: blank
      "[1,2]\n"                // line 4, offset 15
      "{\"id\":2,}\n"          // line 5, offset 21
      "{\"id\":3} x\n"         // line 6, offset 31
      "{\"id\":4,\"id\":5}\n"  // line 7, offset 42
      "{\"id\":\"abc\"}\n"     // line 8, offset 58
      "{\"id\":6}\r\n"         // line 9, offset 71
      "{\"id\":7\n";           // line 10, offset 81: cut short (a whole line: never whole)
  Schema schema({{"id", DataType::Int32()}});
  ReadOutcome out = MustRead(text, Jsonl(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0][0], Value::Int(1));
  EXPECT_EQ(out.rows[1][0], Value::Int(6));
  EXPECT_EQ(out.positions[1].line, 9);
  EXPECT_EQ(out.positions[1].byte_offset, 71);
  EXPECT_EQ(out.raw[1], "{\"id\":6}");
  std::vector<std::string> reasons, raws;
  std::vector<int64_t> lines, offsets;
  for (const auto& r : out.rejected) {
    reasons.push_back(r.reason);
    raws.push_back(r.raw);
    lines.push_back(r.position.line);
    offsets.push_back(r.position.byte_offset);
  }
  EXPECT_EQ(reasons, (std::vector<std::string>{
                         "not a JSON object",
                         "invalid JSON at column 9: expected a member name",
                         "invalid JSON at column 10: unexpected text after the value",
                         "duplicate member 'id'",
                         "column 'id': 'abc' is not an INT",
                         "invalid JSON at column 8: unexpected end of input",
                     }));
  EXPECT_EQ(raws[0], "[1,2]");
  EXPECT_EQ(raws[5], "{\"id\":7");
  EXPECT_EQ(lines, (std::vector<int64_t>{4, 5, 6, 7, 8, 10}));
  EXPECT_EQ(offsets, (std::vector<int64_t>{15, 21, 31, 42, 58, 81}));
}

TEST(JsonLinesChangeReader, BatchesOfBatchRows) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "{\"n\":" + std::to_string(i) + "}\n";
  ReadOutcome out = MustRead(text, Jsonl(std::nullopt, 3));
  EXPECT_EQ(out.batch_sizes, (std::vector<int64_t>{3, 3, 3, 1}));
  ASSERT_EQ(out.rows.size(), 10u);
  int64_t offset = 0;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(out.rows[i][0], Value::Int(i + 1));
    EXPECT_EQ(out.positions[i].line, i + 1);
    EXPECT_EQ(out.positions[i].byte_offset, offset);
    EXPECT_EQ(out.raw[i], "{\"n\":" + std::to_string(i + 1) + "}");
    offset += static_cast<int64_t>(out.raw[i].size()) + 1;
  }
}

TEST(JsonLinesChangeReader, SchemaColumnsAbsentFromTheFile) {
  Schema schema({{"Missing", DataType::Int64()}, {"ID", DataType::Int16()}});
  ReadOutcome out = MustRead("{\"x\":\"a\",\"id\":3}\n{\"x\":\"b\"}\n", Jsonl(schema));
  EXPECT_EQ(out.schema, Schema({{"x", DataType::String()}, {"ID", DataType::Int16()}}));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0], (std::vector<Value>{Str("a"), Value::Int(3)}));
  EXPECT_EQ(out.rows[1], (std::vector<Value>{Str("b"), Value::Null()}));
}

TEST(JsonLinesChangeReader, MembersInAnyOrder) {
  ReadOutcome out = MustRead(
      "{\"a\":1,\"b\":\"x\"}\n{\"b\":\"y\",\"a\":2}\n{\"b\":\"z\"}\n{\"a\":4,\"b\":\"w\"}\n",
      Jsonl());
  ASSERT_EQ(out.rows.size(), 4u);
  EXPECT_EQ(out.rows[1], (std::vector<Value>{Value::Int(2), Str("y")}));
  EXPECT_EQ(out.rows[2], (std::vector<Value>{Value::Null(), Str("z")}));
  EXPECT_EQ(out.rows[3], (std::vector<Value>{Value::Int(4), Str("w")}));
}

TEST(JsonLinesChangeReader, AnySizeOfReadChunkGivesTheSameResult) {
  std::string text =
      "\xEF\xBB\xBF{\"id\":1,\"s\":\"caf\\u00e9\",\"n\":1.50}\r\n"
      "\r\n"
      "{\"id\":2,\"s\":\"x\",\"n\":2}\n"
      "not json\n"
      "{\"id\":3,\"obj\":{\"k\":[1,{\"z\":null}]}}";
  ReadOutcome expected = MustRead(text, Jsonl());
  ASSERT_EQ(expected.rows.size(), 3u);
  ASSERT_EQ(expected.rejected.size(), 1u);
  EXPECT_EQ(expected.schema.field(0).name, "id");
  EXPECT_EQ(expected.positions[0].byte_offset, 3);
  EXPECT_EQ(expected.raw[0], "{\"id\":1,\"s\":\"caf\\u00e9\",\"n\":1.50}");  // read back
  EXPECT_EQ(expected.raw[2], "{\"id\":3,\"obj\":{\"k\":[1,{\"z\":null}]}}");
  EXPECT_EQ(expected.rows[0][1], Str("caf\xC3\xA9"));
  EXPECT_EQ(expected.rows[2][3], Str("{\"k\":[1,{\"z\":null}]}"));
  for (int64_t chunk = 1; chunk <= 9; ++chunk) {
    ChangeFileOptions options = Jsonl();
    options.read_chunk_bytes = chunk;
    ReadOutcome out = MustRead(text, options);
    EXPECT_EQ(out.schema, expected.schema) << chunk;
    EXPECT_EQ(out.rows, expected.rows) << chunk;
    EXPECT_EQ(out.raw, expected.raw) << chunk;
    ASSERT_EQ(out.positions.size(), expected.positions.size()) << chunk;
    for (size_t i = 0; i < out.positions.size(); ++i) {
      EXPECT_EQ(out.positions[i].line, expected.positions[i].line) << chunk;
      EXPECT_EQ(out.positions[i].byte_offset, expected.positions[i].byte_offset) << chunk;
    }
    ASSERT_EQ(out.rejected.size(), 1u) << chunk;
    EXPECT_EQ(out.rejected[0].position.line, 4) << chunk;
  }
}

TEST(JsonLinesChangeReader, EmptyFileHasNoColumnsAndNoBatches) {
  ReadOutcome out = MustRead("", Jsonl());
  EXPECT_EQ(out.schema.num_fields(), 0u);
  EXPECT_TRUE(out.batch_sizes.empty());
  // Objects without members are rows without columns.
  ReadOutcome empty_objects = MustRead("{}\n{ }\n", Jsonl());
  EXPECT_EQ(empty_objects.batch_sizes, (std::vector<int64_t>{2}));
}

TEST(JsonLinesChangeReader, NamesMatchingOneSchemaColumnTwiceAreAnError) {
  Schema schema({{"id", DataType::Int64()}});
  Result<ReadOutcome> out = ReadText("{\"id\":1,\"ID\":2}\n", Jsonl(schema));
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
}

TEST(JsonLinesChangeReader, SequenceOfNumbersAndStringsIsANumber) {
  const std::string text =
      "{\"id\":1,\"seq\":10}\n{\"id\":1,\"seq\":\"9\"}\n{\"id\":1,\"seq\":\"n/a\"}\n";
  // Without sequence_columns the mix is STRING.
  EXPECT_EQ(MustRead(text, Jsonl()).schema.field(1).type->id(), data::TypeId::kString);
  ChangeFileOptions options = Jsonl();
  options.sequence_columns = {"seq"};
  ReadOutcome out = MustRead(text, options);
  EXPECT_EQ(out.schema.field(1).type->id(), data::TypeId::kInt64);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0][1], Value::Int(10));
  EXPECT_EQ(out.rows[1][1], Value::Int(9));
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].reason, "column 'seq': 'n/a' is not a BIGINT");
}

}  // namespace
}  // namespace cdclake::sources
