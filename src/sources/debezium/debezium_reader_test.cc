// Tests of DebeziumReader on constructed input: record forms (lines, arrays, key/value pairs,
// JsonConverter wrappers, unwrapped rows), bad input, sequences and their order, types and
// placeholders, batches.
#include "sources/debezium/debezium_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "change/ordered_encoding.h"
#include "data/data_type.h"
#include "data/decimal.h"
#include "sources/debezium/debezium_test_util_internal.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Value;
using testing::DebeziumRead;
using testing::Int;
using testing::Str;
using testing::Struct;

DebeziumRead ReadText(std::string_view text, DebeziumOptions options = {}) {
  Result<DebeziumRead> read = testing::ReadDebeziumText(text, std::move(options));
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? std::move(read).value() : DebeziumRead();
}

// A PostgreSQL event on one line.
std::string PgEvent(const std::string& op, const std::string& after, const std::string& lsn,
                    const std::string& sequence = "null") {
  return "{\"before\":null,\"after\":" + after +
         ",\"source\":{\"connector\":\"postgresql\",\"db\":\"d\",\"schema\":\"s\",\"table\":"
         "\"t\",\"ts_ms\":5,\"lsn\":" +
         lsn + ",\"sequence\":" + sequence + "},\"op\":\"" + op + "\",\"ts_ms\":99}";
}

// --- record forms ---

TEST(DebeziumReader, OneValuePerLine) {
  DebeziumRead read = ReadText(PgEvent("c", "{\"id\":1,\"v\":\"a\"}", "10") + "\n" +
                               PgEvent("u", "{\"id\":1,\"v\":\"b\"}", "20") + "\n");
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_EQ(read.Get(1, "v"), Str("b"));
  EXPECT_EQ(read.Get(1, "_op"), Str("u"));
  EXPECT_EQ(read.Get(1, "_source_ts_ms"), Int(5));  // source.ts_ms, not the envelope's
  const change::ChangeBatch& batch = read.batches[0];
  EXPECT_EQ(batch.positions[1].line, 2);
  EXPECT_EQ(batch.positions[1].byte_offset, static_cast<int64_t>(batch.raw[0].size() + 1));
  EXPECT_EQ(batch.positions[1].file, "in/events.json");
  EXPECT_EQ(batch.raw[1], PgEvent("u", "{\"id\":1,\"v\":\"b\"}", "20"));
}

TEST(DebeziumReader, JsonArrayOfValues) {
  std::string text = "[\n  " + PgEvent("c", "{\"id\":1}", "10") + ",\n  " +
                     PgEvent("c", "{\"id\":2}", "11") + "\n]\n[" +
                     PgEvent("d", "null", "12").replace(10, 4, "{\"id\":3}") + "]";
  // The third is a delete with a before image (after null).
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_TRUE(read.rejected().empty());
  EXPECT_EQ(read.Get(0, "id"), Int(1));
  EXPECT_EQ(read.Get(1, "id"), Int(2));
  EXPECT_EQ(read.Get(2, "id"), Int(3));
  EXPECT_EQ(read.Get(2, "_op"), Str("d"));
  EXPECT_EQ(read.batches[0].positions[1].line, 3);
  EXPECT_EQ(read.batches[0].positions[2].line, 5);
}

TEST(DebeziumReader, PrettyPrintedArrayWithABadElement) {
  std::string text =
      "\xEF\xBB\xBF[\r\n"
      "  {\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 1}\r\n  },\r\n"
      "  {\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 2,,}\r\n  },\r\n"
      "  {\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 3}\r\n  }\r\n"
      "]\r\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_EQ(read.Get(0, "id"), Int(1));
  EXPECT_EQ(read.Get(1, "id"), Int(3));
  EXPECT_EQ(read.batches[0].positions[1].line, 10);
  // The rows' texts, read back from the file (after the byte order mark, inside the array).
  EXPECT_EQ(read.batches[0].raw[0], "{\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 1}\r\n  }");
  EXPECT_EQ(read.batches[0].raw[1], "{\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 3}\r\n  }");
  ASSERT_EQ(read.rejected().size(), 1u);
  EXPECT_EQ(read.rejected()[0].position.line, 6);
  EXPECT_EQ(read.rejected()[0].raw,
            "{\r\n    \"op\": \"c\",\r\n    \"after\": {\"id\": 2,,}\r\n  }");
}

TEST(DebeziumReader, LongArrayOnOneLine) {
  // Longer than the framer's line limit: records are cut out of the line as it is read.
  std::string text = "[";
  const int n = 30000;  // more than one 4 MiB read
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ",";
    text += PgEvent("c", "{\"id\":" + std::to_string(i) + ",\"flag\":false}", "10");
  }
  text += "]";
  ASSERT_GT(text.size(), size_t{4} << 20);
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), n);
  EXPECT_TRUE(read.rejected().empty());
  EXPECT_EQ(read.Get(n - 1, "id"), Int(n - 1));
  EXPECT_EQ(read.Get(n - 1, "flag"), Value::Bool(false));
}

TEST(DebeziumReader, KeyValuePairsAndTombstones) {
  std::string text =
      "{\"key\":{\"id\":7},\"value\":" + PgEvent("c", "{\"id\":7,\"v\":\"x\"}", "10") + "}\n" +
      // a delete whose before image lacks the key (REPLICA IDENTITY NOTHING-like)
      "{\"key\":{\"id\":7},\"value\":{\"op\":\"d\",\"before\":null,\"after\":null,"
      "\"source\":{\"connector\":\"postgresql\",\"lsn\":11}}}\n"
      "{\"key\":{\"id\":7},\"value\":null}\n"
      "{\"key\":{\"id\":7},\"value\":\"\"}\n"
      "null\n"
      "{\"schema\":null,\"payload\":null}\n"
      // a value given as a string of JSON
      "{\"key\":null,\"value\":\"{\\\"op\\\":\\\"c\\\",\\\"after\\\":{\\\"id\\\":8}}\"}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_EQ(read.Get(1, "_op"), Str("d"));
  EXPECT_EQ(read.Get(1, "id"), Int(7));  // from the key
  EXPECT_TRUE(read.Get(1, "v").is_null());
  EXPECT_EQ(read.Get(2, "id"), Int(8));
  EXPECT_EQ(read.counts.tombstones, 4);
  EXPECT_TRUE(read.rejected().empty());
}

TEST(DebeziumReader, SchemaWrapperTypesColumns) {
  std::string schema =
      "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"after\",\"fields\":["
      "{\"type\":\"int16\",\"field\":\"a\"},"
      "{\"type\":\"int64\",\"name\":\"io.debezium.time.NanoTimestamp\",\"field\":\"ts\"},"
      "{\"type\":\"int32\",\"name\":\"io.debezium.time.Time\",\"field\":\"t\"},"
      "{\"type\":\"int64\",\"name\":\"io.debezium.time.NanoTime\",\"field\":\"nt\"},"
      "{\"type\":\"string\",\"name\":\"io.debezium.time.ZonedTime\",\"field\":\"zt\"},"
      "{\"type\":\"string\",\"name\":\"io.debezium.data.Uuid\",\"field\":\"u\"},"
      "{\"type\":\"struct\",\"name\":\"io.debezium.data.VariableScaleDecimal\",\"field\":\"n\","
      "\"fields\":[{\"type\":\"int32\",\"field\":\"scale\"},{\"type\":\"bytes\",\"field\":"
      "\"value\"}]},"
      "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":"
      "{\"scale\":\"2\"},\"field\":\"d\"}"
      "]}]}";
  std::string text =
      "{\"schema\":" + schema +
      ",\"payload\":{\"op\":\"c\",\"after\":{\"a\":3,\"ts\":1529507596945104123,\"t\":3723004,"
      "\"nt\":1000,\"zt\":\"10:00:00Z\",\"u\":\"x-y\",\"n\":{\"scale\":2,\"value\":\"AQ==\"},"
      "\"d\":\"/w==\"}}}\n"
      "{\"schema\":" +
      schema +
      ",\"payload\":{\"op\":\"c\",\"after\":{\"a\":4,\"ts\":-1,\"t\":0,\"nt\":0,\"zt\":null,"
      "\"u\":null,\"n\":{\"scale\":4,\"value\":\"MDk=\"},\"d\":null}}}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_TRUE(read.TypeOf(0, "a")->Equals(*DataType::Int16()));
  EXPECT_TRUE(read.TypeOf(0, "ts")->Equals(*DataType::TimestampNtz()));
  EXPECT_EQ(read.Get(0, "ts"), Int(1529507596945104));  // nanos floored to micros
  EXPECT_EQ(read.Get(1, "ts"), Int(-1));                // floor, not truncation
  EXPECT_EQ(read.Get(0, "t"), Int(3723004000));         // ms of day -> micros of day
  EXPECT_EQ(read.Get(0, "nt"), Int(1));
  EXPECT_EQ(read.Get(0, "zt"), Str("10:00:00Z"));
  EXPECT_EQ(read.Get(0, "u"), Str("x-y"));
  // VariableScaleDecimal: DECIMAL(38, largest scale in the file) = 4; 0.01 and 1.2345.
  EXPECT_TRUE(read.TypeOf(0, "n")->Equals(*DataType::Decimal(38, 4)));
  EXPECT_EQ(read.Get(0, "n"), Value::Decimal(100));
  EXPECT_EQ(read.Get(1, "n"), Value::Decimal(12345));
  // Decimal without precision: DECIMAL(38, 2); 0xFF is -1.
  EXPECT_TRUE(read.TypeOf(0, "d")->Equals(*DataType::Decimal(38, 2)));
  EXPECT_EQ(read.Get(0, "d"), Value::Decimal(-1));
}

// Events with a schema part need no first pass; the first event with a column that no schema
// types makes the reader infer over the whole file, before and after that event.
TEST(DebeziumReader, InferenceCoversTheWholeFileWhenAnEventNeedsIt) {
  std::string schema =
      "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"after\",\"fields\":["
      "{\"type\":\"int32\",\"field\":\"id\"},{\"type\":\"string\",\"field\":\"x\"}]}]}";
  std::string text = "{\"schema\":" + schema +
                     ",\"payload\":{\"op\":\"c\",\"after\":{\"id\":1,\"x\":\"s\"}}}\n" +
                     PgEvent("c", "{\"id\":2,\"x\":1,\"y\":2}", "2") + "\n" +
                     PgEvent("c", "{\"id\":3,\"x\":\"t\",\"y\":2.5}", "3") + "\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 3);
  ASSERT_TRUE(read.rejected().empty()) << read.rejected()[0].reason;
  EXPECT_TRUE(read.TypeOf(0, "id")->Equals(*DataType::Int32()));
  EXPECT_EQ(read.Get(0, "x"), Str("s"));
  // Without the schema part: types from every value in the file, the later ones included.
  EXPECT_TRUE(read.TypeOf(1, "id")->Equals(*DataType::Int64()));
  EXPECT_TRUE(read.TypeOf(1, "x")->Equals(*DataType::String()));
  EXPECT_EQ(read.Get(1, "x"), Str("1"));
  EXPECT_TRUE(read.TypeOf(1, "y")->Equals(*DataType::Double()));
  EXPECT_EQ(read.Get(1, "y"), Value::Double(2));
  EXPECT_EQ(read.Get(2, "y"), Value::Double(2.5));
}

TEST(DebeziumReader, UnwrappedFormWithAddedFields) {
  std::string text =
      "{\"id\":1,\"v\":\"a\",\"__op\":\"c\",\"__table\":\"t\",\"__db\":\"d\",\"__lsn\":10,"
      "\"__source_ts_ms\":7,\"__deleted\":\"false\"}\n"
      "{\"id\":1,\"v\":\"b\",\"__op\":\"u\",\"__table\":\"t\",\"__db\":\"d\",\"__lsn\":20,"
      "\"__source_ts_ms\":8,\"__source_sequence\":\"[\\\"15\\\",\\\"20\\\"]\","
      "\"__deleted\":\"false\"}\n"
      "{\"id\":1,\"v\":\"b\",\"__op\":\"d\",\"__table\":\"t\",\"__db\":\"d\",\"__lsn\":30,"
      "\"__source_ts_ms\":9,\"__deleted\":\"true\"}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 3);
  ASSERT_EQ(read.batches[0].rows.num_columns(), 6u);  // id, v and the four metadata columns
  EXPECT_EQ(read.Get(0, "_op"), Str("c"));
  EXPECT_EQ(read.Get(1, "_op"), Str("u"));
  EXPECT_EQ(read.Get(2, "_op"), Str("d"));
  EXPECT_EQ(read.Get(0, "_seq"), Struct({Int(10), Int(10)}));  // guessed PostgreSQL by __lsn
  EXPECT_EQ(read.Get(1, "_seq"), Struct({Int(15), Int(20)}));
  EXPECT_EQ(read.Get(2, "_source_ts_ms"), Int(9));
  EXPECT_EQ(read.Get(2, "_source_table"), Str("d.t"));
}

TEST(DebeziumReader, UnwrappedRowsThatLookLikeOtherRecords) {
  // A table with `id` and `status` columns is not the transaction topic; `ddl` and `op` are
  // columns here.
  std::string text =
      "{\"id\":\"o-1\",\"status\":\"BEGIN\",\"total\":3}\n"
      "{\"id\":\"o-2\",\"status\":\"shipped\",\"ddl\":\"x\"}\n"
      "{\"status\":\"END\",\"id\":\"571:53195832\",\"event_count\":2}\n"
      "{\"id\":\"o-3\",\"op\":\"refund\"}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_EQ(read.Get(2, "op"), Str("refund"));
  EXPECT_EQ(read.Get(2, "_op"), Str("u"));
  EXPECT_EQ(read.Get(0, "status"), Str("BEGIN"));
  EXPECT_EQ(read.Get(1, "ddl"), Str("x"));
  EXPECT_EQ(read.counts.transaction_records, 1);
  EXPECT_EQ(read.counts.schema_changes, 0);
}

TEST(DebeziumReader, PrettyPrintedValuesOneAfterAnother) {
  std::string text =
      "{\n  \"op\": \"c\",\n  \"after\": {\n    \"id\": 1\n  }\n}\n"
      "{\n  \"op\": \"c\",\n  \"after\": {\n    \"id\": 2\n  }\n}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_EQ(read.Get(1, "id"), Int(2));
  EXPECT_EQ(read.batches[0].positions[1].line, 7);
  EXPECT_EQ(read.batches[0].raw[0], "{\n  \"op\": \"c\",\n  \"after\": {\n    \"id\": 1\n  }\n}");
}

// --- bad input ---

TEST(DebeziumReader, BadInputCatalogue) {
  std::string good = PgEvent("c", "{\"id\":1,\"n\":2}", "10");
  std::string truncated = good.substr(0, 40);
  std::string lines[] = {
      good,                                            // 1
      truncated,                                       // 2: truncated line
      "{\"op\":\"c\",\"after\":{\"id\":2,}}",          // 3: invalid JSON
      PgEvent("c", "{\"id\":\"abc\",\"n\":2}", "11"),  // 4: wrong type for the column
      PgEvent("x", "{\"id\":3,\"n\":2}", "12"),        // 5: unknown op
      "[1,2]",                                         // 6: elements are not objects
      PgEvent("u", "null", "13"),                      // 7: update without after
      good,                                            // 8
  };
  std::string text;
  std::vector<int64_t> offsets;
  for (const std::string& line : lines) {
    offsets.push_back(static_cast<int64_t>(text.size()));
    text += line + "\n";
  }
  // Without a schema, "abc" would make `id` a STRING column: the schema says BIGINT.
  DebeziumOptions options;
  options.schema = data::Schema({{"id", DataType::Int64(), true}});
  DebeziumRead read = ReadText(text, options);
  EXPECT_EQ(read.num_rows(), 2);
  std::vector<change::RejectedRecord> rejected = read.rejected();
  ASSERT_EQ(rejected.size(), 7u);
  auto expect = [&](size_t i, int64_t line, const std::string& raw, const std::string& reason,
                    int64_t column = 0) {
    EXPECT_EQ(rejected[i].position.line, line) << i;
    EXPECT_EQ(rejected[i].position.byte_offset, offsets[static_cast<size_t>(line - 1)] + column)
        << i;
    EXPECT_EQ(rejected[i].position.file, "in/events.json");
    EXPECT_EQ(rejected[i].raw, raw) << i;
    EXPECT_NE(rejected[i].reason.find(reason), std::string::npos) << rejected[i].reason;
  };
  expect(0, 2, truncated, "cut short");
  expect(1, 3, lines[2], "invalid JSON");
  expect(2, 4, lines[3], "column 'id': 'abc' is not a BIGINT");
  expect(3, 5, lines[4], "unknown op 'x'");
  expect(4, 6, "1", "not a JSON object", 1);
  expect(5, 6, "2", "not a JSON object", 3);
  expect(6, 7, lines[6], "has no after image");
  EXPECT_EQ(read.Get(1, "id"), Int(1));
  EXPECT_EQ(read.batches[0].positions[1].line, 8);
}

TEST(DebeziumReader, WrongTypeForSchemaField) {
  std::string schema =
      "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"after\",\"fields\":["
      "{\"type\":\"int32\",\"field\":\"id\"},{\"type\":\"int32\",\"name\":"
      "\"io.debezium.time.Date\",\"field\":\"day\"}]}]}";
  std::string text =
      "{\"schema\":" + schema + ",\"payload\":{\"op\":\"c\",\"after\":{\"id\":1,\"day\":{}}}}\n" +
      "{\"schema\":" + schema +
      ",\"payload\":{\"op\":\"c\",\"after\":{\"id\":3000000000,\"day\":1}}}\n" +
      "{\"schema\":" + schema + ",\"payload\":{\"op\":\"c\",\"after\":{\"id\":2,\"day\":1}}}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 1);
  std::vector<change::RejectedRecord> rejected = read.rejected();
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_NE(rejected[0].reason.find("column 'day': '{}' is not a DATE"), std::string::npos)
      << rejected[0].reason;
  EXPECT_NE(rejected[1].reason.find("is out of range for INT"), std::string::npos)
      << rejected[1].reason;
  EXPECT_EQ(rejected[1].position.line, 2);
}

TEST(DebeziumReader, BadPrettyPrintedRecordIsSkippedToTheNextRecord) {
  std::string bad = "{\n  \"op\": \"c\",\n  \"after\": {\n    \"id\": 1,,\n  }\n}";
  std::string text = bad + "\n{\n  \"op\": \"c\",\n  \"after\": {\"id\": 2}\n}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(2));
  ASSERT_EQ(read.rejected().size(), 1u);
  EXPECT_EQ(read.rejected()[0].raw, bad);
  EXPECT_EQ(read.rejected()[0].position.line, 1);
}

TEST(DebeziumReader, TruncatedLastLineIsPending) {
  // The file ends inside the record: its writer has not finished it (ChangeSource::Pending).
  DebeziumRead read = ReadText(PgEvent("c", "{\"id\":1}", "10") + "\n{\"op\":\"c\",\"af");
  EXPECT_EQ(read.num_rows(), 1);
  EXPECT_TRUE(read.rejected().empty());
}

TEST(DebeziumReader, PlaceholderShapes) {
  std::string text = PgEvent(
      "u",
      "{\"id\":1,\"t\":\"__debezium_unavailable_value\","
      "\"b\":\"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==\",\"a\":[\"__debezium_unavailable_value\"],"
      "\"i\":[95,95,100,101,98,101,122,105,117,109,95,117,110,97,118,97,105,108,97,98,108,101,95,"
      "118,97,108,117,101],\"h\":{\"__debezium_unavailable_value\":\"__debezium_unavailable_"
      "value\"},"
      "\"u\":[\"b68a35a7-17ad-35b3-af2a-ae46edb4545a\"],\"ok\":[1,2]}",
      "10");
  DebeziumRead read =
      ReadText(text + "\n" + PgEvent("u", "{\"id\":2,\"t\":\"x\",\"ok\":[3]}", "11"));
  ASSERT_EQ(read.num_rows(), 2);
  for (const char* column : {"t", "b", "a", "i", "h", "u"}) {
    EXPECT_TRUE(read.Unchanged(0, column)) << column;
    EXPECT_TRUE(read.Get(0, column).is_null()) << column;
  }
  EXPECT_FALSE(read.Unchanged(0, "ok"));
  EXPECT_FALSE(read.Unchanged(0, "id"));
  EXPECT_FALSE(read.Unchanged(1, "t"));
  EXPECT_EQ(read.Get(1, "t"), Str("x"));  // the placeholder did not decide the column's type
}

// --- sequences ---

// Sorts the rows of `read` by the ordered encoding of `_seq` and returns the `id`s in order.
std::vector<int64_t> IdsBySequence(const DebeziumRead& read) {
  std::vector<std::pair<std::string, int64_t>> keyed;
  for (int64_t r = 0; r < read.num_rows(); ++r) {
    std::string key;
    change::AppendOrdered(read.Get(r, "_seq"), *read.TypeOf(r, "_seq"), &key);
    keyed.emplace_back(key, read.Get(r, "id").int_value());
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<int64_t> ids;
  for (const auto& k : keyed) ids.push_back(k.second);
  return ids;
}

TEST(DebeziumSequence, PostgresOrdersByCommitLsnThenLsn) {
  // Transaction B committed after A, but its change's LSN is lower (interleaved transactions):
  // its rows carry A's commit LSN as their last commit LSN.
  std::string text = PgEvent("c", "{\"id\":2}", "250", "\"[\\\"200\\\",\\\"250\\\"]\"") + "\n" +
                     PgEvent("c", "{\"id\":1}", "300", "\"[\\\"100\\\",\\\"300\\\"]\"") + "\n" +
                     PgEvent("c", "{\"id\":3}", "260", "\"[\\\"200\\\",\\\"260\\\"]\"") + "\n" +
                     PgEvent("r", "{\"id\":0}", "50", "\"[null,\\\"50\\\"]\"") + "\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 4);
  EXPECT_TRUE(read.TypeOf(0, "_seq")->Equals(*DataType::Struct(
      {{"commit_lsn", DataType::Int64(), true}, {"lsn", DataType::Int64(), true}})));
  EXPECT_EQ(read.Get(3, "_seq"), Struct({Int(50), Int(50)}));  // snapshot: own lsn for both
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(DebeziumSequence, MySqlFilePositionRow) {
  auto event = [](int id, const char* file, int pos, int row) {
    return "{\"op\":\"c\",\"after\":{\"id\":" + std::to_string(id) +
           "},\"source\":{\"connector\":\"mysql\",\"gtid\":\"g:1\",\"file\":\"" + file +
           "\",\"pos\":" + std::to_string(pos) + ",\"row\":" + std::to_string(row) + "}}\n";
  };
  DebeziumRead read =
      ReadText(event(3, "mysql-bin.000004", 4, 0) + event(2, "mysql-bin.000003", 900, 1) +
               event(1, "mysql-bin.000003", 900, 0) + event(0, "mysql-bin.000003", 154, 7));
  ASSERT_EQ(read.num_rows(), 4);
  EXPECT_EQ(read.TypeOf(0, "_seq")->ToString(), "struct<file:string,pos:bigint,row:int>");
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(DebeziumSequence, SqlServerLsnsSortBytewise) {
  auto event = [](int id, const char* commit, const char* change, const char* serial) {
    return "{\"op\":\"u\",\"after\":{\"id\":" + std::to_string(id) +
           "},\"source\":{\"connector\":\"sqlserver\",\"commit_lsn\":\"" + commit +
           "\",\"change_lsn\":\"" + change + "\",\"event_serial_no\":" + serial + "}}\n";
  };
  DebeziumRead read = ReadText(event(2, "0000002A:00000010:0001", "0000002a:00000008:0002", "2") +
                               event(1, "0000002a:00000010:0001", "0000002a:00000008:0002", "1") +
                               event(0, "00000027:00000758:0005", "00000027:00000758:0003", "1") +
                               event(9, "27:758:5", "27:758:3", "1"));
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_EQ(read.Get(0, "_seq"),
            Struct({Str("0000002a:00000010:0001"), Str("0000002a:00000008:0002"), Int(2)}));
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{0, 1, 2}));
  ASSERT_EQ(read.rejected().size(), 1u);  // not fixed-width: would not sort
  EXPECT_NE(read.rejected()[0].reason.find("fixed-width LSN"), std::string::npos);
}

// Snapshot rows (op r) of SQL Server carry commit_lsn only: change_lsn reads as "" and
// event_serial_no as 0, so the row has a sequence, and it sorts before the changes streamed
// under the same commit_lsn and after those of earlier ones.
TEST(DebeziumSequence, SqlServerSnapshotRowsSortFirstInTheirCommit) {
  auto event = [](int id, const char* op, const char* commit, const char* change,
                  const char* serial) {
    return std::string("{\"op\":\"") + op + "\",\"after\":{\"id\":" + std::to_string(id) +
           "},\"source\":{\"connector\":\"sqlserver\",\"snapshot\":\"true\","
           "\"commit_lsn\":\"" +
           commit + "\",\"change_lsn\":" + change + ",\"event_serial_no\":" + serial + "}}\n";
  };
  DebeziumRead read =
      ReadText(event(2, "u", "0000002a:00000010:0001", "\"0000002a:00000008:0002\"", "1") +
               event(1, "r", "0000002a:00000010:0001", "null", "null") +
               event(0, "u", "00000027:00000758:0005", "\"00000027:00000758:0003\"", "1") +
               event(3, "r", "0000002a:00000010:0001", "null", "4"));
  ASSERT_EQ(read.num_rows(), 4);
  ASSERT_TRUE(read.rejected().empty());
  EXPECT_EQ(read.Get(1, "_seq"), Struct({Str("0000002a:00000010:0001"), Str(""), Int(0)}));
  EXPECT_FALSE(read.Get(1, "_seq").children()[1].is_null());
  EXPECT_EQ(read.Get(3, "_seq"), Struct({Str("0000002a:00000010:0001"), Str(""), Int(4)}));
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{0, 1, 3, 2}));
}

TEST(DebeziumSequence, OracleScnsBeyondBigint) {
  auto event = [](int id, const char* commit, const char* scn) {
    return "{\"op\":\"c\",\"after\":{\"id\":" + std::to_string(id) +
           "},\"source\":{\"connector\":\"oracle\",\"commit_scn\":" + commit + ",\"scn\":\"" + scn +
           "\"}}\n";
  };
  DebeziumRead read = ReadText(event(1, "\"10000000000000000000\"", "9999999999999999990") +
                               event(0, "\"9223372036854775808\"", "9223372036854775800") +
                               event(2, "null", "10000000000000000001"));
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_TRUE(read.TypeOf(0, "_seq")->fields()[0].type->Equals(*DataType::Decimal(38, 0)));
  EXPECT_EQ(data::Int128ToString(read.Get(0, "_seq").children()[0].decimal_value()),
            "10000000000000000000");
  // A missing commit_scn takes the scn.
  EXPECT_EQ(read.Get(2, "_seq").children()[0], read.Get(2, "_seq").children()[1]);
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{0, 1, 2}));
}

TEST(DebeziumSequence, SequencePathOption) {
  DebeziumOptions options;
  options.sequence_path = "after.version";
  std::string text = PgEvent("c", "{\"id\":1,\"version\":5}", "10") + "\n" +
                     PgEvent("c", "{\"id\":2,\"version\":3}", "20") + "\n";
  DebeziumRead read = ReadText(text, options);
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_TRUE(read.TypeOf(0, "_seq")->Equals(*DataType::Int64()));
  EXPECT_EQ(IdsBySequence(read), (std::vector<int64_t>{2, 1}));
  options.sequence_path = "source.lsn";
  DebeziumRead by_lsn = ReadText(text, options);
  ASSERT_EQ(by_lsn.num_rows(), 2);
  EXPECT_EQ(by_lsn.Get(1, "_seq"), Int(20));
  EXPECT_EQ(IdsBySequence(by_lsn), (std::vector<int64_t>{1, 2}));
}

// --- types without a schema, options, batches ---

TEST(DebeziumReader, InferenceKeepsEveryDigit) {
  std::string text = PgEvent("c",
                             "{\"id\":9007199254740993,\"big\":123456789012345678901234567890,"
                             "\"d\":0.10,\"n\":{\"scale\":3,\"value\":\"MDk=\"}}",
                             "10") +
                     "\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(9007199254740993));  // 2^53 + 1
  EXPECT_TRUE(read.TypeOf(0, "big")->Equals(*DataType::Decimal(38, 0)));
  EXPECT_EQ(data::Int128ToString(read.Get(0, "big").decimal_value()),
            "123456789012345678901234567890");
  EXPECT_TRUE(read.TypeOf(0, "d")->Equals(*DataType::Double()));  // a fraction: DOUBLE
  EXPECT_EQ(read.Get(0, "d"), Value::Double(0.1));
  EXPECT_TRUE(read.TypeOf(0, "n")->Equals(*DataType::Decimal(38, 3)));  // VariableScaleDecimal
  EXPECT_EQ(read.Get(0, "n"), Value::Decimal(12345));
}

// decimal.handling.mode=double without a schema part: whatever digits one file's values have,
// a number with a fraction or exponent is a DOUBLE, so how a stream is cut into files does not
// change the type (a DECIMAL fitted to 3.14 would refuse 0.875 in the next file).
TEST(DebeziumReader, FractionsAreDoublesWhateverTheFile) {
  DebeziumRead first = ReadText(PgEvent("c", "{\"id\":1,\"w\":3.14}", "1") + "\n");
  DebeziumRead second = ReadText(PgEvent("c", "{\"id\":2,\"w\":0.875}", "2") + "\n" +
                                 PgEvent("c", "{\"id\":3,\"w\":22.2}", "3") + "\n" +
                                 PgEvent("c", "{\"id\":4,\"w\":1e-3}", "4") + "\n");
  ASSERT_EQ(first.num_rows(), 1);
  ASSERT_EQ(second.num_rows(), 3);
  EXPECT_TRUE(first.TypeOf(0, "w")->Equals(*DataType::Double()));
  EXPECT_TRUE(second.TypeOf(0, "w")->Equals(*DataType::Double()));
  EXPECT_EQ(first.Get(0, "w"), Value::Double(3.14));
  EXPECT_EQ(second.Get(0, "w"), Value::Double(0.875));
  EXPECT_EQ(second.Get(2, "w"), Value::Double(0.001));
  // The first file's type given to the next one (as the CLI does) reads it too.
  DebeziumOptions options;
  options.schema = data::Schema({{"w", first.TypeOf(0, "w"), true}});
  DebeziumRead typed = ReadText(PgEvent("c", "{\"id\":2,\"w\":0.875}", "2") + "\n", options);
  ASSERT_EQ(typed.num_rows(), 1);
  EXPECT_TRUE(typed.rejected().empty());
  EXPECT_EQ(typed.Get(0, "w"), Value::Double(0.875));
  // Integers alone stay BIGINT; beside a fraction they widen to DOUBLE.
  DebeziumRead mixed = ReadText(PgEvent("c", "{\"id\":1,\"w\":2}", "1") + "\n" +
                                PgEvent("c", "{\"id\":2,\"w\":2.5}", "2") + "\n");
  EXPECT_TRUE(mixed.TypeOf(0, "id")->Equals(*DataType::Int64()));
  EXPECT_TRUE(mixed.TypeOf(0, "w")->Equals(*DataType::Double()));
  EXPECT_EQ(mixed.Get(0, "w"), Value::Double(2));
}

TEST(DebeziumReader, OptionsSchemaTypesColumnsWithoutSchemaPart) {
  DebeziumOptions options;
  options.schema = data::Schema({{"Price", DataType::Decimal(10, 2), true},
                                 {"at", DataType::TimestampNtz(), true},
                                 {"raw", DataType::Binary(), true}});
  // decimal.handling.mode=string ("12.30"), base64 unscaled bytes, double mode (a number).
  std::string text =
      PgEvent("c", "{\"id\":1,\"price\":\"12.30\",\"at\":1529507596945104,\"raw\":\"AAE=\"}", "1") +
      "\n" + PgEvent("c", "{\"id\":2,\"price\":\"BNI=\",\"at\":null,\"raw\":null}", "2") + "\n" +
      PgEvent("c", "{\"id\":3,\"price\":7.5,\"at\":\"2018-06-20 15:13:16.945104\"}", "3") + "\n";
  DebeziumRead read = ReadText(text, options);
  ASSERT_EQ(read.num_rows(), 3);
  EXPECT_TRUE(read.HasColumn(0, "Price"));  // the schema's spelling
  EXPECT_EQ(read.Get(0, "Price"), Value::Decimal(1230));
  EXPECT_EQ(read.Get(1, "Price"), Value::Decimal(1234));  // 0x04D2 at scale 2
  EXPECT_EQ(read.Get(2, "Price"), Value::Decimal(750));
  EXPECT_EQ(read.Get(0, "at"), Int(1529507596945104));
  EXPECT_EQ(read.Get(2, "at"), Int(1529507596945104));
  EXPECT_EQ(read.Get(0, "raw"), Str(std::string("\0\1", 2)));
}

TEST(DebeziumReader, NewColumnStartsANewBatch) {
  std::string text = PgEvent("c", "{\"id\":1}", "1") + "\n" + PgEvent("c", "{\"id\":2}", "2") +
                     "\n" + PgEvent("c", "{\"id\":3,\"extra\":\"e\"}", "3") + "\n" +
                     PgEvent("c", "{\"id\":4}", "4") + "\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.batches.size(), 2u);
  EXPECT_EQ(read.batches[0].rows.num_rows(), 2);
  EXPECT_EQ(read.batches[0].rows.schema().FieldIndex("extra"), -1);
  EXPECT_EQ(read.batches[1].rows.num_rows(), 2);
  EXPECT_EQ(read.Get(2, "extra"), Str("e"));
  EXPECT_TRUE(read.Get(3, "extra").is_null());
  EXPECT_EQ(read.batches[1].positions[0].line, 3);
}

TEST(DebeziumReader, BatchRows) {
  std::string text;
  for (int i = 0; i < 5; ++i)
    text += PgEvent("c", "{\"id\":" + std::to_string(i) + "}", "1") + "\n";
  DebeziumOptions options;
  options.batch_rows = 2;
  DebeziumRead read = ReadText(text, options);
  ASSERT_EQ(read.batches.size(), 3u);
  EXPECT_EQ(read.batches[2].rows.num_rows(), 1);
  EXPECT_EQ(read.Get(4, "id"), Int(4));
  options.batch_rows = 0;
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("x", text).ok());
  EXPECT_FALSE(DebeziumReader::Open(fs, "x", options).ok());
}

TEST(DebeziumReader, TruncateHasNullColumns) {
  std::string text =
      PgEvent("c", "{\"id\":1,\"v\":\"a\"}", "1") + "\n" +
      "{\"op\":\"t\",\"source\":{\"connector\":\"postgresql\",\"lsn\":2,\"db\":\"d\","
      "\"schema\":\"s\",\"table\":\"t\"}}\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.num_rows(), 2);
  EXPECT_EQ(read.Get(1, "_op"), Str("t"));
  EXPECT_TRUE(read.Get(1, "id").is_null());
  EXPECT_TRUE(read.Get(1, "v").is_null());
  EXPECT_EQ(read.Get(1, "_source_table"), Str("d.s.t"));
}

// A file whose first event is a truncate (no images, no schema part): its batch has only the
// change-stream columns; the table's columns start a new batch with the next row.
TEST(DebeziumReader, FileStartingWithATruncateHasOnlyChangeStreamColumns) {
  std::string text =
      "{\"op\":\"t\",\"source\":{\"connector\":\"postgresql\",\"lsn\":2,\"db\":\"d\","
      "\"schema\":\"s\",\"table\":\"t\"}}\n" +
      PgEvent("c", "{\"id\":1,\"v\":\"a\"}", "3") + "\n";
  DebeziumRead read = ReadText(text);
  ASSERT_EQ(read.batches.size(), 2u);
  EXPECT_EQ(read.batches[0].rows.schema().ToString(),
            "_op string\n_seq struct<commit_lsn:bigint,lsn:bigint>\n_source_ts_ms bigint\n"
            "_source_table string\n");
  EXPECT_EQ(read.batches[1].rows.schema().FieldIndex("id"), 0);
}

}  // namespace
}  // namespace cdclake::sources
