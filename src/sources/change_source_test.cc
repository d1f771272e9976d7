// Tests for ChangeSource: format names, and each adapter's schema, batches, counts and errors.
#include "sources/change_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/value.h"
#include "io/memory_file_system.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Value;

// Every batch of `source`, stopping at the first error.
std::vector<change::ChangeBatch> ReadAll(ChangeSource& source) {
  std::vector<change::ChangeBatch> out;
  for (;;) {
    auto batch = source.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !batch->has_value()) break;
    out.push_back(std::move(**batch));
  }
  return out;
}

Value Cell(const change::ChangeBatch& batch, int64_t row, const std::string& column) {
  int c = batch.rows.schema().FieldIndex(column);
  EXPECT_GE(c, 0) << column;
  return c < 0 ? Value::Null() : batch.rows.column(static_cast<size_t>(c)).GetValue(row);
}

std::string PgEvent(const std::string& op, const std::string& after, int lsn) {
  return "{\"before\":null,\"after\":" + after +
         ",\"source\":{\"connector\":\"postgresql\",\"db\":\"d\",\"schema\":\"s\",\"table\":"
         "\"t\",\"ts_ms\":5,\"lsn\":" +
         std::to_string(lsn) + "},\"op\":\"" + op + "\"}";
}

TEST(SourceFormat, NamesRoundTripIgnoringCase) {
  for (SourceFormat f : {SourceFormat::kCsv, SourceFormat::kJsonLines, SourceFormat::kDebezium,
                         SourceFormat::kSqlServer}) {
    EXPECT_EQ(SourceFormatFromName(SourceFormatName(f)), f);
  }
  EXPECT_EQ(SourceFormatFromName("Debezium"), SourceFormat::kDebezium);
  EXPECT_EQ(SourceFormatFromName("SQLSERVER"), SourceFormat::kSqlServer);
  EXPECT_EQ(SourceFormatFromName("json"), std::nullopt);
  EXPECT_EQ(SourceFormatFromName(""), std::nullopt);
  EXPECT_FALSE(IsChangeStreamFormat(SourceFormat::kCsv));
  EXPECT_FALSE(IsChangeStreamFormat(SourceFormat::kJsonLines));
  EXPECT_TRUE(IsChangeStreamFormat(SourceFormat::kDebezium));
  EXPECT_TRUE(IsChangeStreamFormat(SourceFormat::kSqlServer));
  EXPECT_EQ(ChangeStreamColumns(),
            (std::vector<std::string>{"_op", "_seq", "_source_ts_ms", "_source_table"}));
}

TEST(ChangeSource, CsvHasAFixedSchemaAndNoCounts) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("c.csv", "id,name\n1,a\n2,b\n3,c\n").ok());
  ChangeSourceOptions options;
  options.batch_rows = 2;
  options.schema = data::Schema({{"id", DataType::Int32(), true}});
  auto source = OpenChangeSource(fs, "c.csv", SourceFormat::kCsv, options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->format(), SourceFormat::kCsv);
  EXPECT_EQ((*source)->path(), "c.csv");
  ASSERT_NE((*source)->schema(), nullptr);
  EXPECT_EQ((*source)->schema()->num_fields(), 2u);
  EXPECT_TRUE((*source)->schema()->field(0).type->Equals(*DataType::Int32()));
  std::vector<change::ChangeBatch> batches = ReadAll(**source);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].rows.num_rows(), 2);
  EXPECT_EQ(Cell(batches[1], 0, "name"), Value::Bytes("c"));
  EXPECT_TRUE((*source)->Counts().empty());
  EXPECT_EQ((*source)->CountsSummary(), "");
}

TEST(ChangeSource, JsonLinesReadsJson) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("c.txt", "{\"id\":1,\"v\":\"x\"}\n").ok());
  auto source = OpenChangeSource(fs, "c.txt", SourceFormat::kJsonLines, {});
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::vector<change::ChangeBatch> batches = ReadAll(**source);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(Cell(batches[0], 0, "v"), Value::Bytes("x"));
  ASSERT_NE((*source)->schema(), nullptr);
  EXPECT_TRUE((*source)->schema()->field(0).type->Equals(*DataType::Int64()));
  EXPECT_EQ((*source)->format(), SourceFormat::kJsonLines);
}

TEST(ChangeSource, DebeziumCountsRecordsThatAreNotRows) {
  io::MemoryFileSystem fs;
  std::string text = PgEvent("c", "{\"id\":1,\"v\":\"a\"}", 10) + "\n" + "null\n" +
                     "{\"op\":\"m\",\"source\":{\"connector\":\"postgresql\",\"lsn\":11},"
                     "\"message\":{\"prefix\":\"p\",\"content\":\"AA==\"}}\n" +
                     "{\"key\":{\"id\":1},\"value\":null}\n" +
                     PgEvent("u", "{\"id\":1,\"v\":\"b\"}", 12) + "\n";
  ASSERT_TRUE(fs.WriteFile("d.json", text).ok());
  ChangeSourceOptions options;
  // `_seq` is the reader's own column: a type given for it must not change it.
  options.schema =
      data::Schema({{"id", DataType::Int32(), true}, {"_seq", DataType::String(), true}});
  auto source = OpenChangeSource(fs, "d.json", SourceFormat::kDebezium, options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->schema(), nullptr);
  std::vector<change::ChangeBatch> batches = ReadAll(**source);
  ASSERT_EQ(batches.size(), 1u);
  const change::ChangeBatch& b = batches[0];
  ASSERT_EQ(b.rows.num_rows(), 2);
  EXPECT_EQ(Cell(b, 0, "id"), Value::Int(1));
  EXPECT_TRUE(
      b.rows.schema().field(b.rows.schema().FieldIndex("id")).type->Equals(*DataType::Int32()));
  EXPECT_TRUE(b.rows.schema().field(b.rows.schema().FieldIndex("_seq")).type->is_nested());
  EXPECT_EQ(Cell(b, 1, "_op"), Value::Bytes("u"));
  std::vector<SourceCount> counts = (*source)->Counts();
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts[0].label, "Kafka tombstones skipped");
  EXPECT_EQ(counts[0].value, 2);
  EXPECT_EQ(counts[1].label, "op m messages ignored");
  EXPECT_EQ(counts[1].value, 1);
  EXPECT_EQ(counts[2].value, 0);
  EXPECT_EQ(counts[3].value, 0);
  EXPECT_EQ((*source)->CountsSummary(),
            "Kafka tombstones skipped: 2; op m messages ignored: 1; transaction records "
            "ignored: 0; schema changes ignored: 0");
}

TEST(ChangeSource, SqlServerExportInEitherFileFormat) {
  io::MemoryFileSystem fs;
  const std::string header = "__$start_lsn,__$seqval,__$operation,__$update_mask,id,name\n";
  ASSERT_TRUE(
      fs.WriteFile("s.csv", header + "0x0000002A000000F00001,0x0000002A000000F00001,2,0x03,1,a\n"
                                     "0x0000002A000000F00002,0x0000002A000000F00002,3,0x02,1,a\n"
                                     "0x0000002A000000F00002,0x0000002A000000F00002,4,0x02,1,b\n")
          .ok());
  ChangeSourceOptions options;
  auto source = OpenChangeSource(fs, "s.csv", SourceFormat::kSqlServer, options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->schema(), nullptr);
  std::vector<change::ChangeBatch> batches = ReadAll(**source);
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].rows.num_rows(), 2);
  EXPECT_EQ(Cell(batches[0], 1, "_op"), Value::Bytes("u"));
  EXPECT_EQ(Cell(batches[0], 1, "name"), Value::Bytes("b"));
  std::vector<SourceCount> counts = (*source)->Counts();
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].label, "before-images skipped");
  EXPECT_EQ(counts[0].value, 1);

  // JSON Lines when the options say so; read as CSV it lacks the `__$` columns.
  ASSERT_TRUE(fs.WriteFile("s.jsonl",
                           "{\"__$start_lsn\":\"0000002A000000F00001\",\"__$seqval\":"
                           "\"0000002A000000F00001\",\"__$operation\":1,\"id\":1,\"name\":\"b\"}\n")
                  .ok());
  EXPECT_FALSE(OpenChangeSource(fs, "s.jsonl", SourceFormat::kSqlServer, options).ok());
  options.file_format = FileFormat::kJsonLines;
  auto json = OpenChangeSource(fs, "s.jsonl", SourceFormat::kSqlServer, options);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  batches = ReadAll(**json);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(Cell(batches[0], 0, "_op"), Value::Bytes("d"));
  EXPECT_EQ((*json)->Counts()[0].value, 0);
}

TEST(ChangeSource, OpenErrors) {
  io::MemoryFileSystem fs;
  for (SourceFormat f : {SourceFormat::kCsv, SourceFormat::kJsonLines, SourceFormat::kDebezium,
                         SourceFormat::kSqlServer}) {
    EXPECT_FALSE(OpenChangeSource(fs, "missing", f, {}).ok()) << SourceFormatName(f);
  }
  ASSERT_TRUE(fs.WriteFile("plain.csv", "id,v\n1,a\n").ok());
  auto s = OpenChangeSource(fs, "plain.csv", SourceFormat::kSqlServer, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  ChangeSourceOptions zero;
  zero.batch_rows = 0;
  EXPECT_FALSE(OpenChangeSource(fs, "plain.csv", SourceFormat::kCsv, zero).ok());
  EXPECT_FALSE(OpenChangeSource(fs, "plain.csv", SourceFormat::kDebezium, zero).ok());
}

}  // namespace
}  // namespace cdclake::sources
