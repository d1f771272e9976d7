// Tests for CSV change files: every type, NULL against empty strings, RFC 4180 quoting across
// lines and chunks, CRLF, rejected records and what follows them, inference, batch splitting.
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
using data::Field;
using data::Schema;
using data::Value;
using testing::ReadOutcome;
using testing::ReadText;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s,
               int64_t us = 0) {
  return data::DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

ChangeFileOptions Csv(std::optional<Schema> schema = std::nullopt, int64_t batch_rows = 1 << 16) {
  ChangeFileOptions options;
  options.format = FileFormat::kCsv;
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

TEST(CsvChangeReader, EveryTypeFromTheSchema) {
  Schema schema({{"b", DataType::Boolean()},
                 {"i8", DataType::Int8()},
                 {"i16", DataType::Int16()},
                 {"i32", DataType::Int32()},
                 {"i64", DataType::Int64()},
                 {"f", DataType::Float()},
                 {"d", DataType::Double()},
                 {"dec", DataType::Decimal(10, 2)},
                 {"s", DataType::String()},
                 {"bin", DataType::Binary()},
                 {"day", DataType::Date()},
                 {"ts", DataType::Timestamp()},
                 {"ntz", DataType::TimestampNtz()}});
  std::string text =
      "b,i8,i16,i32,i64,f,d,dec,s,bin,day,ts,ntz\n"
      "TRUE,-128,32767,-2147483648,9223372036854775807,1.5,-2.25e3,12.30,héllo,a\\x,"
      "2024-02-29,2024-01-02 03:04:05,2024-01-02T03:04:05.5\n"
      "false,127,-32768,2147483647,-9223372036854775808,+3,1e-3,-0.05,,,1969-12-31,"
      "2024-01-02T03:04:05.123456+02:00,1970-01-01\n";
  ReadOutcome out = MustRead(text, Csv(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.schema, schema);
  EXPECT_TRUE(out.rejected.empty());
  const auto& r0 = out.rows[0];
  EXPECT_EQ(r0[0], Value::Bool(true));
  EXPECT_EQ(r0[1], Value::Int(-128));
  EXPECT_EQ(r0[2], Value::Int(32767));
  EXPECT_EQ(r0[3], Value::Int(-2147483648LL));
  EXPECT_EQ(r0[4], Value::Int(INT64_MAX));
  EXPECT_EQ(r0[5], Value::Double(1.5));
  EXPECT_EQ(r0[6], Value::Double(-2250.0));
  EXPECT_EQ(r0[7], Value::Decimal(1230));
  EXPECT_EQ(r0[8], Str("héllo"));
  EXPECT_EQ(r0[9], Str("a\\x"));
  EXPECT_EQ(r0[10], Value::Int(data::DaysFromCivil(2024, 2, 29)));
  EXPECT_EQ(r0[11], Value::Int(Micros(2024, 1, 2, 3, 4, 5)));
  EXPECT_EQ(r0[12], Value::Int(Micros(2024, 1, 2, 3, 4, 5, 500000)));
  const auto& r1 = out.rows[1];
  EXPECT_EQ(r1[0], Value::Bool(false));
  EXPECT_EQ(r1[1], Value::Int(127));
  EXPECT_EQ(r1[2], Value::Int(-32768));
  EXPECT_EQ(r1[3], Value::Int(2147483647));
  EXPECT_EQ(r1[4], Value::Int(INT64_MIN));
  EXPECT_EQ(r1[5], Value::Double(3.0));
  EXPECT_EQ(r1[6], Value::Double(0.001));
  EXPECT_EQ(r1[7], Value::Decimal(-5));
  EXPECT_TRUE(r1[8].is_null());
  EXPECT_TRUE(r1[9].is_null());
  EXPECT_EQ(r1[10], Value::Int(-1));
  // 03:04:05.123456 at +02:00 is 01:04:05.123456 UTC.
  EXPECT_EQ(r1[11], Value::Int(Micros(2024, 1, 2, 1, 4, 5, 123456)));
  EXPECT_EQ(r1[12], Value::Int(0));
}

TEST(CsvChangeReader, ValuesThatDoNotConvertRejectTheirRecordOnly) {
  Schema schema({{"id", DataType::Int32()},
                 {"age", DataType::Int8()},
                 {"price", DataType::Decimal(5, 2)},
                 {"ok", DataType::Boolean()},
                 {"day", DataType::Date()},
                 {"ntz", DataType::TimestampNtz()}});
  std::string text =
      "id,age,price,ok,day,ntz\n"
      "1,abc,1.00,true,2024-01-01,\n"           // line 2
      "2,128,1.00,true,2024-01-01,\n"           // line 3
      "3,1,1.234,true,2024-01-01,\n"            // line 4
      "4,1,1.00,yes,2024-01-01,\n"              // line 5
      "5,1,1.00,true,2023-02-29,\n"             // line 6
      "6,1,1.00,true,2024-01-01,2024-01-01Z\n"  // line 7: a date with a zone is no timestamp
      "7,1,1.00,true,2024-01-01,2024-01-01 00:00:00Z\n"
      "8,1,x,true,2024-01-01,\n"
      "9,-128,999.99,TRUE,2024-01-01,2024-01-01 10:00\n";
  ReadOutcome out = MustRead(text, Csv(schema));
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0][0], Value::Int(9));
  EXPECT_EQ(out.rows[0][2], Value::Decimal(99999));
  EXPECT_EQ(out.rows[0][5], Value::Int(Micros(2024, 1, 1, 10, 0, 0)));
  EXPECT_EQ(out.positions[0].line, 10);
  std::vector<std::string> reasons;
  for (const auto& r : out.rejected) reasons.push_back(r.reason);
  EXPECT_EQ(reasons, (std::vector<std::string>{
                         "column 'age': 'abc' is not a TINYINT",
                         "column 'age': '128' is out of range for TINYINT",
                         "column 'price': '1.234' does not fit DECIMAL(5,2)",
                         "column 'ok': 'yes' is not a BOOLEAN",
                         "column 'day': '2023-02-29' is not a DATE",
                         "column 'ntz': '2024-01-01Z' is not a TIMESTAMP_NTZ",
                         "column 'ntz': '2024-01-01 00:00:00Z' is not a TIMESTAMP_NTZ (it has a "
                         "time zone)",
                         "column 'price': 'x' is not a DECIMAL(5,2)",
                     }));
  ASSERT_EQ(out.rejected.size(), 8u);
  EXPECT_EQ(out.rejected[0].raw, "1,abc,1.00,true,2024-01-01,");
  EXPECT_EQ(out.rejected[0].position.line, 2);
  EXPECT_EQ(out.rejected[0].position.byte_offset, 24);
  EXPECT_EQ(out.rejected[0].position.file, "in/changes.dat");
  EXPECT_EQ(out.rejected[1].position.line, 3);
  EXPECT_EQ(out.rejected[1].position.byte_offset, 24 + 28);
}

TEST(CsvChangeReader, IntReasonUsesAn) {
  Schema schema({{"age", DataType::Int32()}});
  ReadOutcome out = MustRead("age\nabc\n7\n", Csv(schema));
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].reason, "column 'age': 'abc' is not an INT");
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0][0], Value::Int(7));
}

TEST(CsvChangeReader, NullAgainstEmptyString) {
  Schema schema({{"a", DataType::String()}, {"b", DataType::String()}, {"n", DataType::Int64()}});
  ReadOutcome out = MustRead("a,b,n\n,\"\",\n\"\",,\"5\"\n", Csv(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_TRUE(out.rows[0][0].is_null());
  EXPECT_EQ(out.rows[0][1], Str(""));
  EXPECT_TRUE(out.rows[0][2].is_null());
  EXPECT_EQ(out.rows[1][0], Str(""));
  EXPECT_TRUE(out.rows[1][1].is_null());
  EXPECT_EQ(out.rows[1][2], Value::Int(5));
}

TEST(CsvChangeReader, QuotingAndFieldsOverSeveralLines) {
  std::string text =
      "id,note\n"                        // offset 0, line 1
      "1,\"a, b\"\n"                     // offset 8, line 2
      "2,\"say \"\"hi\"\"\"\n"           // offset 17, line 3
      "3,\"two\nlines\r\nand three\"\n"  // offset 32, lines 4-6
      "4,\"\"\"\"\n"                     // offset 57, line 7
      "5,x\"y\n";                        // offset 64, line 8: a quote inside is text
  ReadOutcome out = MustRead(text, Csv());
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  ASSERT_EQ(out.rows.size(), 5u);
  EXPECT_EQ(out.rows[0][1], Str("a, b"));
  EXPECT_EQ(out.rows[1][1], Str("say \"hi\""));
  EXPECT_EQ(out.rows[2][1], Str("two\nlines\r\nand three"));
  EXPECT_EQ(out.rows[3][1], Str("\""));
  EXPECT_EQ(out.rows[4][1], Str("x\"y"));
  std::vector<int64_t> lines, offsets;
  for (const auto& p : out.positions) {
    lines.push_back(p.line);
    offsets.push_back(p.byte_offset);
  }
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 3, 4, 7, 8}));
  EXPECT_EQ(offsets, (std::vector<int64_t>{8, 17, 32, 57, 64}));
  EXPECT_EQ(out.raw[2], "3,\"two\nlines\r\nand three\"");
  EXPECT_EQ(out.raw[1], "2,\"say \"\"hi\"\"\"");
}

TEST(CsvChangeReader, CrlfLineEndings) {
  std::string text = "id,name\r\n1,ann\r\n2,\"bo\"\r\n\r\n3,\r\n4,cy";
  ReadOutcome out = MustRead(text, Csv());
  ASSERT_EQ(out.rows.size(), 4u);
  EXPECT_EQ(out.schema.field(0).type->id(), data::TypeId::kInt64);
  EXPECT_EQ(out.rows[0][1], Str("ann"));
  EXPECT_EQ(out.rows[1][1], Str("bo"));
  EXPECT_TRUE(out.rows[2][1].is_null());
  EXPECT_EQ(out.rows[3][1], Str("cy"));
  EXPECT_EQ(out.raw[0], "1,ann");
  EXPECT_EQ(out.raw[1], "2,\"bo\"");
  // The blank line 4 is skipped but counted.
  EXPECT_EQ(out.positions[2].line, 5);
  EXPECT_EQ(out.positions[2].byte_offset, 26);
  EXPECT_EQ(out.positions[3].line, 6);
}

TEST(CsvChangeReader, WrongFieldCountIsRejectedAndReadingGoesOn) {
  std::string text = "a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n";
  ReadOutcome out = MustRead(text, Csv());
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[1][0], Value::Int(10));
  ASSERT_EQ(out.rejected.size(), 2u);
  EXPECT_EQ(out.rejected[0].raw, "4,5");
  EXPECT_EQ(out.rejected[0].position.line, 3);
  EXPECT_EQ(out.rejected[0].position.byte_offset, 12);
  EXPECT_EQ(out.rejected[0].reason, "expected 3 fields, found 2");
  EXPECT_EQ(out.rejected[1].raw, "6,7,8,9");
  EXPECT_EQ(out.rejected[1].position.line, 4);
  EXPECT_EQ(out.rejected[1].reason, "expected 3 fields, found 4");
  // Rejected records do not take part in inference: column a is still BIGINT.
  EXPECT_EQ(out.schema.field(0).type->id(), data::TypeId::kInt64);
}

TEST(CsvChangeReader, MalformedQuotesRejectOneLine) {
  std::string text =
      "id,v\n"
      "1,\"ok\"x\n"         // line 2: text after a closing quote
      "2,good\n"            // line 3
      "3,\"never closed\n"  // line 4: open to the end of the file
      "4,fine\n";           // line 5
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("in/q.csv", text).ok());
  auto reader = ChangeFileReader::Open(fs, "in/q.csv", Csv());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Result<ReadOutcome> read = testing::ReadAll(**reader);
  ASSERT_TRUE(read.ok());
  const ReadOutcome& out = *read;
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].raw, "1,\"ok\"x");
  EXPECT_EQ(out.rejected[0].position.line, 2);
  EXPECT_EQ(out.rejected[0].reason, "unexpected character after a closing quote");
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0], (std::vector<Value>{Value::Int(2), Str("good")}));
  // The quote open to the end of the file may still be closed by its writer: the record is
  // pending, not rejected (and what follows it is inside its quotes until then).
  ASSERT_TRUE((*reader)->Pending().has_value());
  EXPECT_EQ((*reader)->Pending()->line, 4);
  EXPECT_EQ((*reader)->Pending()->byte_offset, 20);
}

TEST(CsvChangeReader, InferredTypes) {
  std::string text =
      "i,d,big,huge,s,empty,neg,mixed,quoted_empty,zero\n"
      "1,1.5,12345678901234567890,123456789012345678901234567890123456789,x,,-7,1,\"\",0.00\n"
      "-20,-22.125,-1,1,y,,+8,2.50,1,.5\n"
      ",,,,,,,,,\n";
  ReadOutcome out = MustRead(text, Csv());
  ASSERT_EQ(out.schema.num_fields(), 10u);
  auto type = [&](size_t i) { return out.schema.field(i).type->ToString(); };
  EXPECT_EQ(type(0), "bigint");
  EXPECT_EQ(type(1), "decimal(5,3)");
  EXPECT_EQ(type(2), "decimal(38,0)");
  EXPECT_EQ(type(3), "string");  // 39 digits
  EXPECT_EQ(type(4), "string");
  EXPECT_EQ(type(5), "string");  // nothing but NULLs
  EXPECT_EQ(type(6), "bigint");
  EXPECT_EQ(type(7), "decimal(3,2)");
  EXPECT_EQ(type(8), "string");  // "" is an empty string, not a number
  EXPECT_EQ(type(9), "decimal(2,2)");
  ASSERT_EQ(out.rows.size(), 3u);
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  EXPECT_EQ(out.rows[0][1], Value::Decimal(1500));
  EXPECT_EQ(out.rows[1][1], Value::Decimal(-22125));
  Result<data::Int128> big = data::ParseDecimal("12345678901234567890", 38, 0);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(out.rows[0][2], Value::Decimal(*big));
  EXPECT_EQ(out.rows[1][2], Value::Decimal(-1));
  EXPECT_EQ(out.rows[0][3], Str("123456789012345678901234567890123456789"));
  EXPECT_EQ(out.rows[1][6], Value::Int(8));
  EXPECT_EQ(out.rows[0][7], Value::Decimal(100));
  EXPECT_EQ(out.rows[1][9], Value::Decimal(50));
  for (const Value& v : out.rows[2]) EXPECT_TRUE(v.is_null());
}

TEST(CsvChangeReader, DecimalsAndBigIntegersAreExact) {
  Schema schema({{"d", DataType::Decimal(38, 3)}, {"i", DataType::Decimal(38, 0)}});
  std::string text =
      "d,i\n"
      "12345678901234567890.123,99999999999999999999999999999999999999\n"
      "-0.001,-99999999999999999999999999999999999999\n"
      "99999999999999999999999999999999999.999,100000000000000000000000000000000000000\n";
  ReadOutcome out = MustRead(text, Csv(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(data::FormatDecimal(out.rows[0][0].decimal_value(), 3), "12345678901234567890.123");
  EXPECT_EQ(data::Int128ToString(out.rows[0][1].decimal_value()),
            "99999999999999999999999999999999999999");
  EXPECT_EQ(data::FormatDecimal(out.rows[1][0].decimal_value(), 3), "-0.001");
  EXPECT_EQ(data::Int128ToString(out.rows[1][1].decimal_value()),
            "-99999999999999999999999999999999999999");
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].reason,
            "column 'i': '100000000000000000000000000000000000000' does not fit DECIMAL(38,0)");
}

TEST(CsvChangeReader, BatchesOfBatchRows) {
  std::string text = "n\n";
  for (int i = 1; i <= 10; ++i) text += std::to_string(i) + "\n";
  ReadOutcome out = MustRead(text, Csv(std::nullopt, 3));
  EXPECT_EQ(out.batch_sizes, (std::vector<int64_t>{3, 3, 3, 1}));
  ASSERT_EQ(out.rows.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(out.rows[i][0], Value::Int(i + 1));
    EXPECT_EQ(out.positions[i].line, i + 2);
    EXPECT_EQ(out.raw[i], std::to_string(i + 1));
  }
  // Offsets: "n\n" then "1\n" ... "9\n" then "10\n".
  EXPECT_EQ(out.positions[0].byte_offset, 2);
  EXPECT_EQ(out.positions[3].byte_offset, 8);
  EXPECT_EQ(out.positions[9].byte_offset, 20);
}

TEST(CsvChangeReader, RejectedRecordsRideInTheBatchBeingFilled) {
  Schema schema({{"n", DataType::Int64()}});
  ReadOutcome out = MustRead("n\n1\nx\n2\ny\n", Csv(schema, 1));
  // Batch 1: row 1; batch 2: rejected x, row 2; batch 3: only rejected y.
  EXPECT_EQ(out.batch_sizes, (std::vector<int64_t>{1, 1, 0}));
  ASSERT_EQ(out.rejected.size(), 2u);
  EXPECT_EQ(out.rejected[1].raw, "y");
  EXPECT_EQ(out.rejected[1].position.line, 5);
}

TEST(CsvChangeReader, SchemaColumnsAbsentFromTheFileAndExtraFileColumns) {
  Schema schema({{"ID", DataType::Int32()},
                 {"missing", DataType::String()},
                 {"amount", DataType::Decimal(9, 2)}});
  ReadOutcome out = MustRead("amount,id,extra\n1.5,7,hi\n", Csv(schema));
  // File order; the schema's names and types; extra columns inferred; `missing` absent.
  EXPECT_EQ(out.schema, Schema({{"amount", DataType::Decimal(9, 2)},
                                {"ID", DataType::Int32()},
                                {"extra", DataType::String()}}));
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0], (std::vector<Value>{Value::Decimal(150), Value::Int(7), Str("hi")}));
}

TEST(CsvChangeReader, AnySizeOfReadChunkGivesTheSameResult) {
  std::string text =
      "\xEF\xBB\xBFid,note,amount\r\n"
      "1,\"multi\r\nline, \"\"quoted\"\"\",1.25\r\n"
      "2,plain,x\r\n"
      "\r\n"
      "3,\"\",\r\n"
      "4,\"bad\"quote,1\r\n"
      "5,last,2.5";
  Schema schema({{"amount", DataType::Decimal(5, 2)}});
  ChangeFileOptions whole = Csv(schema);
  ReadOutcome expected = MustRead(text, whole);
  ASSERT_EQ(expected.rows.size(), 3u);
  ASSERT_EQ(expected.rejected.size(), 2u);
  EXPECT_EQ(expected.schema.field(0).name, "id");  // the byte order mark is not part of it
  EXPECT_EQ(expected.positions[0].byte_offset, 3 + 16);
  // The rows' texts, read back from the file: a quoted record over two lines, the last row
  // without its line ending.
  EXPECT_EQ(expected.raw, (std::vector<std::string>{"1,\"multi\r\nline, \"\"quoted\"\"\",1.25",
                                                    "3,\"\",", "5,last,2.5"}));
  for (int64_t chunk = 1; chunk <= 12; ++chunk) {
    ChangeFileOptions options = Csv(schema);
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
    ASSERT_EQ(out.rejected.size(), expected.rejected.size()) << chunk;
    for (size_t i = 0; i < out.rejected.size(); ++i) {
      EXPECT_EQ(out.rejected[i].raw, expected.rejected[i].raw) << chunk;
      EXPECT_EQ(out.rejected[i].reason, expected.rejected[i].reason) << chunk;
      EXPECT_EQ(out.rejected[i].position.line, expected.rejected[i].position.line) << chunk;
    }
  }
}

TEST(CsvChangeReader, NestedTypesTakeJsonText) {
  Schema schema(
      {{"addr", DataType::Struct({{"city", DataType::String()}, {"zip", DataType::Int32()}})},
       {"tags", DataType::List(DataType::String())}});
  std::string text =
      "addr,tags\n"
      "\"{\"\"city\"\":\"\"Oslo\"\",\"\"zip\"\":150}\",\"[\"\"a\"\",\"\"b\"\"]\"\n"
      "\"{\"\"zip\"\":\"\"x\"\"}\",[]\n"
      "\"{\"\"zip\"\":1\",[]\n";
  ReadOutcome out = MustRead(text, Csv(schema));
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0][0], Value::Nested({Str("Oslo"), Value::Int(150)}));
  EXPECT_EQ(out.rows[0][1], Value::Nested({Str("a"), Str("b")}));
  ASSERT_EQ(out.rejected.size(), 2u);
  EXPECT_EQ(out.rejected[0].reason, "column 'addr.zip': 'x' is not an INT");
  EXPECT_EQ(out.rejected[1].reason,
            "column 'addr': '{\"zip\":1' is not valid JSON for struct<city:string,zip:int> "
            "(unexpected end of input)");
}

TEST(CsvChangeReader, EdgesOfRecords) {
  Schema schema({{"a", DataType::String()}, {"b", DataType::String()}});
  std::string text =
      "a,b\n"
      "x,\n"           // a trailing comma: the last field is NULL
      "\"q\"\r,y\n"    // a lone CR after a closing quote is malformed
      ",\"\"\"end\"";  // a quoted field closing at the end of the file
  ReadOutcome out = MustRead(text, Csv(schema));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0], (std::vector<Value>{Str("x"), Value::Null()}));
  EXPECT_EQ(out.rows[1], (std::vector<Value>{Value::Null(), Str("\"end")}));
  EXPECT_EQ(out.raw[1], ",\"\"\"end\"");
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].raw, "\"q\"\r,y");
  EXPECT_EQ(out.rejected[0].position.line, 3);
  EXPECT_EQ(out.positions[1].line, 4);
}

TEST(CsvChangeReader, HeaderProblems) {
  auto status = [](std::string_view text) { return ReadText(text, Csv()).status(); };
  EXPECT_EQ(status("").code(), StatusCode::kCorrupt);
  EXPECT_EQ(status("\n\n").code(), StatusCode::kCorrupt);
  EXPECT_EQ(status("a,\"b\n").code(), StatusCode::kCorrupt);
  EXPECT_EQ(status("a,,c\n").code(), StatusCode::kCorrupt);
  EXPECT_EQ(status("a,b,a\n").code(), StatusCode::kInvalidArgument);
  ChangeFileOptions bad = Csv();
  bad.batch_rows = 0;
  EXPECT_EQ(ReadText("a\n1\n", bad).status().code(), StatusCode::kInvalidArgument);
  // A header alone is a file without rows.
  ReadOutcome out = MustRead("a,b\n", Csv());
  EXPECT_EQ(out.schema.num_fields(), 2u);
  EXPECT_TRUE(out.batch_sizes.empty());
}

TEST(CsvChangeReader, MissingFileIsNotFound) {
  io::MemoryFileSystem fs;
  auto reader = ChangeFileReader::Open(fs, "nope.csv", Csv());
  EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
}

TEST(CsvChangeReader, SequenceColumnsAreNumbersWhateverElseTheyHold) {
  // Without sequence_columns, `n/a` makes the column STRING and "9" sorts after "10".
  ChangeFileOptions options = Csv();
  options.sequence_columns = {"SEQ"};  // matched ignoring case, as schema fields are
  ReadOutcome out = MustRead("id,seq\n1,10\n1,9\n1,n/a\n", options);
  EXPECT_EQ(out.schema.field(1).type->id(), data::TypeId::kInt64);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[1][1], Value::Int(9));
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].reason, "column 'seq': 'n/a' is not a BIGINT");
  // Other columns are inferred as before.
  EXPECT_EQ(MustRead("id,seq\n1,10\n1,n/a\n", Csv()).schema.field(1).type->id(),
            data::TypeId::kString);

  // Decimals and exponents widen; timestamps when no value is a number; text when nothing parses.
  EXPECT_EQ(MustRead("seq\n1\n2.5\nx\n", options).schema.field(0).type->ToString(), "decimal(2,1)");
  EXPECT_EQ(MustRead("seq\n1\n2.5e3\nx\n", options).schema.field(0).type->id(),
            data::TypeId::kDouble);
  ReadOutcome ts = MustRead("seq\n2026-01-02 10:00:00\n2026-01-01\nsoon\n", options);
  EXPECT_EQ(ts.schema.field(0).type->id(), data::TypeId::kTimestamp);
  EXPECT_EQ(ts.rows.size(), 2u);
  EXPECT_EQ(ts.rejected.size(), 1u);
  EXPECT_EQ(MustRead("seq\nabc\nabd\n", options).schema.field(0).type->id(), data::TypeId::kString);
  // A sequence the schema declares STRING stays text.
  ChangeFileOptions declared = Csv(Schema({{"seq", DataType::String()}}));
  declared.sequence_columns = {"seq"};
  ReadOutcome text = MustRead("seq\n10\nn/a\n", declared);
  EXPECT_EQ(text.schema.field(0).type->id(), data::TypeId::kString);
  EXPECT_EQ(text.rows.size(), 2u);
}

}  // namespace
}  // namespace cdclake::sources
