// Tests for ParquetChangeReader: files written by our Parquet writer and by Spark read back as
// change batches (values, batch cuts, row-ordinal positions, casts, errors), and the kParquet
// ChangeSource.
#include "sources/files/parquet_change_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "change/row_text.h"
#include "data/value.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "parquet/writer/file_writer.h"
#include "sources/change_source.h"
#include "sources/files/change_file_test_util_internal.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Value;

// 25 change rows: id INT, name STRING (every 7th NULL), _op STRING, _seq BIGINT, amount
// DECIMAL(10,2), score FLOAT.
data::RecordBatch ChangeRows(int64_t n = 25) {
  data::RecordBatch batch(data::Schema({{"id", DataType::Int32(), false},
                                        {"name", DataType::String(), true},
                                        {"_op", DataType::String(), false},
                                        {"_seq", DataType::Int64(), false},
                                        {"amount", DataType::Decimal(10, 2), true},
                                        {"score", DataType::Float(), true}}));
  for (int64_t i = 0; i < n; ++i) {
    batch.AppendRow({Value::Int(i % 9),
                     i % 7 == 3 ? Value::Null() : Value::Bytes("n" + std::to_string(i)),
                     Value::Bytes(i % 5 == 4 ? "d" : (i < 9 ? "c" : "u")), Value::Int(1000 + i),
                     Value::Decimal(-150 + i * 101), Value::Double(0.5 * static_cast<double>(i))});
  }
  return batch;
}

// Writes `batch` to `path` with row groups of `group_rows` rows.
void Write(io::MemoryFileSystem& fs, const std::string& path, const data::RecordBatch& batch,
           int64_t group_rows) {
  parquet::WriterOptions options;
  options.row_group_rows = group_rows;
  Status st = parquet::WriteParquetFile(fs, path, batch, options);
  ASSERT_TRUE(st.ok()) << st.ToString();
}

Result<testing::ReadOutcome> ReadFile(const io::FileSystem& fs, const std::string& path,
                                      ParquetChangeOptions options) {
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, ParquetChangeReader::Open(fs, path, std::move(options)));
  return testing::ReadAll(*reader);
}

TEST(ParquetChangeReader, ReadsRowGroupsInBatchesWithRowOrdinalPositions) {
  io::MemoryFileSystem fs;
  data::RecordBatch written = ChangeRows();
  Write(fs, "in/changes.parquet", written, 10);
  ParquetChangeOptions options;
  options.batch_rows = 4;
  auto out = ReadFile(fs, "in/changes.parquet", options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Row groups of 10, 10 and 5 rows, each cut into batches of at most 4.
  EXPECT_EQ(out->batch_sizes, (std::vector<int64_t>{4, 4, 2, 4, 4, 2, 4, 1}));
  ASSERT_EQ(out->rows.size(), 25u);
  ASSERT_EQ(out->schema.num_fields(), 6u);
  for (size_t c = 0; c < out->schema.num_fields(); ++c) {
    EXPECT_EQ(out->schema.field(c).name, written.schema().field(c).name);
    EXPECT_TRUE(out->schema.field(c).type->Equals(*written.schema().field(c).type));
    EXPECT_TRUE(out->schema.field(c).nullable) << out->schema.field(c).name;
  }
  for (int64_t i = 0; i < 25; ++i) {
    EXPECT_EQ(out->rows[static_cast<size_t>(i)], written.GetRow(i)) << "row " << i;
    const change::SourcePosition& p = out->positions[static_cast<size_t>(i)];
    EXPECT_EQ(p.file, "in/changes.parquet");
    EXPECT_EQ(p.line, i + 1);
    EXPECT_EQ(p.byte_offset, i);
    EXPECT_EQ(out->raw[static_cast<size_t>(i)], "");
  }
  EXPECT_TRUE(out->rejected.empty());
  EXPECT_EQ(out->rows[3][1], Value::Null());
  EXPECT_EQ(out->rows[4][2], Value::Bytes("d"));
}

TEST(ParquetChangeReader, ARowGroupThatFitsIsOneBatch) {
  io::MemoryFileSystem fs;
  Write(fs, "c.parquet", ChangeRows(), 1 << 20);
  auto out = ReadFile(fs, "c.parquet", {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->batch_sizes, (std::vector<int64_t>{25}));
  EXPECT_EQ(out->positions.back().line, 25);
  EXPECT_EQ(out->positions.back().byte_offset, 24);
}

TEST(ParquetChangeReader, SchemaWidensAndRenamesColumns) {
  io::MemoryFileSystem fs;
  data::RecordBatch written = ChangeRows();
  Write(fs, "c.parquet", written, 8);
  ParquetChangeOptions options;
  options.batch_rows = 5;
  options.schema = data::Schema({{"ID", DataType::Int64(), true},
                                 {"Amount", DataType::Decimal(18, 2), true},
                                 {"score", DataType::Double(), true},
                                 {"name", DataType::String(), true},
                                 {"absent", DataType::Date(), true}});
  auto out = ReadFile(fs, "c.parquet", options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // File order; the schema's names and types; columns it does not name keep the file's.
  ASSERT_EQ(out->schema.num_fields(), 6u);
  EXPECT_EQ(out->schema.field(0).name, "ID");
  EXPECT_TRUE(out->schema.field(0).type->Equals(*DataType::Int64()));
  EXPECT_EQ(out->schema.field(4).name, "Amount");
  EXPECT_TRUE(out->schema.field(4).type->Equals(*DataType::Decimal(18, 2)));
  EXPECT_TRUE(out->schema.field(5).type->Equals(*DataType::Double()));
  EXPECT_TRUE(out->schema.field(3).type->Equals(*DataType::Int64()));
  EXPECT_EQ(out->schema.FieldIndex("absent"), -1);
  ASSERT_EQ(out->rows.size(), 25u);
  for (size_t i = 0; i < 25; ++i) {
    EXPECT_EQ(out->rows[i][0], Value::Int(static_cast<int64_t>(i % 9)));
    EXPECT_EQ(out->rows[i][4], Value::Decimal(-150 + static_cast<int64_t>(i) * 101));
    EXPECT_EQ(out->rows[i][5], Value::Double(0.5 * static_cast<double>(i)));
  }
}

TEST(ParquetChangeReader, NegativeAndNullIntegersWiden) {
  io::MemoryFileSystem fs;
  data::RecordBatch batch(data::Schema({{"k", DataType::Int16(), true}}));
  for (Value v : {Value::Int(-32768), Value::Null(), Value::Int(-1), Value::Int(32767)}) {
    batch.AppendRow({v});
  }
  Write(fs, "k.parquet", batch, 100);
  ParquetChangeOptions options;
  options.schema = data::Schema({{"k", DataType::Int32(), true}});
  auto out = ReadFile(fs, "k.parquet", options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->schema.field(0).type->Equals(*DataType::Int32()));
  ASSERT_EQ(out->rows.size(), 4u);
  EXPECT_EQ(out->rows[0][0], Value::Int(-32768));
  EXPECT_EQ(out->rows[1][0], Value::Null());
  EXPECT_EQ(out->rows[2][0], Value::Int(-1));
  EXPECT_EQ(out->rows[3][0], Value::Int(32767));
}

TEST(ParquetChangeReader, ATypeTheSchemaContradictsNamesFileAndColumn) {
  io::MemoryFileSystem fs;
  Write(fs, "in/c.parquet", ChangeRows(), 10);
  struct Case {
    data::Field field;
    std::string column;
  };
  for (const Case& c :
       {Case{{"_seq", DataType::Int32(), true}, "_seq"},  // narrowing
        Case{{"name", DataType::Int64(), true}, "name"}, Case{{"id", DataType::Date(), true}, "id"},
        Case{{"amount", DataType::Decimal(10, 3), true}, "amount"},
        Case{{"score", DataType::Int64(), true}, "score"}}) {
    ParquetChangeOptions options;
    options.schema = data::Schema({c.field});
    auto reader = ParquetChangeReader::Open(fs, "in/c.parquet", options);
    ASSERT_FALSE(reader.ok()) << c.column;
    EXPECT_EQ(reader.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(reader.status().message().find("in/c.parquet"), std::string::npos)
        << reader.status().ToString();
    EXPECT_NE(reader.status().message().find("'" + c.column + "'"), std::string::npos)
        << reader.status().ToString();
  }
}

TEST(ParquetChangeReader, BadOptionsAndBadFilesFail) {
  io::MemoryFileSystem fs;
  Write(fs, "c.parquet", ChangeRows(), 10);
  ParquetChangeOptions options;
  options.batch_rows = 0;
  EXPECT_EQ(ParquetChangeReader::Open(fs, "c.parquet", options).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(fs.WriteFile("not.parquet", "id,name\n1,a\n").ok());
  auto bad = ParquetChangeReader::Open(fs, "not.parquet", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(bad.status().message().find("not.parquet"), std::string::npos);
  EXPECT_FALSE(ParquetChangeReader::Open(fs, "missing.parquet", {}).ok());
}

TEST(ParquetChangeReader, AnEmptyFileHasASchemaAndNoBatches) {
  io::MemoryFileSystem fs;
  Write(fs, "e.parquet", ChangeRows(0), 10);
  auto reader = ParquetChangeReader::Open(fs, "e.parquet", {});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->schema().num_fields(), 6u);
  auto batch = (*reader)->Next();
  ASSERT_TRUE(batch.ok());
  EXPECT_FALSE(batch->has_value());
}

const std::string& SharedDelta() {
  static const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  return root;
}

TEST(ParquetChangeReader, ReadsADataFileSparkWrote) {
  // dat-basic_append's first commit: letter STRING, number BIGINT, a_float DOUBLE, 3 rows.
  const std::string path =
      SharedDelta() +
      "/dat-basic_append/delta/part-00000-3c9f01c2-6db4-4cbc-a744-dbc2f79eb78a-c000.snappy.parquet";
  ParquetChangeOptions options;
  options.batch_rows = 2;
  options.schema = data::Schema({{"number", DataType::Int64(), true}});
  auto out = ReadFile(*io::LocalFileSystem::Instance(), path, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->schema.num_fields(), 3u);
  EXPECT_EQ(out->schema.field(0).name, "letter");
  EXPECT_TRUE(out->schema.field(2).type->Equals(*DataType::Double()));
  EXPECT_EQ(out->batch_sizes, (std::vector<int64_t>{2, 1}));
  ASSERT_EQ(out->rows.size(), 3u);
  EXPECT_EQ(out->rows[0],
            (std::vector<Value>{Value::Bytes("a"), Value::Int(1), Value::Double(1.1)}));
  EXPECT_EQ(out->rows[2],
            (std::vector<Value>{Value::Bytes("c"), Value::Int(3), Value::Double(3.3)}));
  EXPECT_EQ(out->positions[2].line, 3);
  EXPECT_EQ(out->positions[2].file, path);
}

TEST(ParquetChangeReader, ReadsAChangeDataFileWithItsOperationColumn) {
  // A change-data file Spark wrote for an UPDATE (rs-cdf-table, version 1): each row carries
  // _change_type, which a flow can use as its operation column.
  const std::string path = SharedDelta() +
                           "/rs-cdf-table/_change_data/birthday=2023-12-22/"
                           "cdc-00000-59fa51a4-edbb-4fc0-a497-6969cdf3966c.c000.snappy.parquet";
  ParquetChangeOptions options;
  options.schema = data::Schema({{"id", DataType::Int64(), true}});
  auto out = ReadFile(*io::LocalFileSystem::Instance(), path, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Spark wrote id as INT; the schema widens it.
  ASSERT_EQ(out->schema.num_fields(), 3u);
  EXPECT_EQ(out->schema.field(0).name, "id");
  EXPECT_TRUE(out->schema.field(0).type->Equals(*DataType::Int64()));
  EXPECT_EQ(out->schema.field(2).name, "_change_type");
  ASSERT_EQ(out->rows.size(), 1u);
  EXPECT_EQ(out->rows[0], (std::vector<Value>{Value::Int(3), Value::Bytes("Dave"),
                                              Value::Bytes("update_postimage")}));
  EXPECT_EQ(out->positions[0].line, 1);
  EXPECT_EQ(out->positions[0].byte_offset, 0);

  options.schema.reset();
  auto as_written = ReadFile(*io::LocalFileSystem::Instance(), path, options);
  ASSERT_TRUE(as_written.ok()) << as_written.status().ToString();
  EXPECT_TRUE(as_written->schema.field(0).type->Equals(*DataType::Int32()));
}

TEST(ParquetChangeSource, OpensThroughChangeSource) {
  EXPECT_EQ(SourceFormatName(SourceFormat::kParquet), "parquet");
  EXPECT_EQ(SourceFormatFromName("Parquet"), SourceFormat::kParquet);
  EXPECT_FALSE(IsChangeStreamFormat(SourceFormat::kParquet));
  EXPECT_EQ(SourceFormatFromPath("x/Changes.PARQUET"), SourceFormat::kParquet);
  EXPECT_EQ(SourceFormatFromPath("c.csv"), SourceFormat::kCsv);
  EXPECT_EQ(SourceFormatFromPath("c.json"), SourceFormat::kJsonLines);
  EXPECT_EQ(SourceFormatFromPath("c.jsonl"), SourceFormat::kJsonLines);
  EXPECT_EQ(SourceFormatFromPath("c.parquet.tmp"), std::nullopt);
  EXPECT_EQ(SourceFormatFromPath("parquet"), std::nullopt);

  io::MemoryFileSystem fs;
  Write(fs, "c.parquet", ChangeRows(), 10);
  ChangeSourceOptions options;
  options.batch_rows = 16;
  options.schema = data::Schema({{"id", DataType::Int64(), true}});
  auto source = OpenChangeSource(fs, "c.parquet", SourceFormat::kParquet, options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ((*source)->format(), SourceFormat::kParquet);
  ASSERT_NE((*source)->schema(), nullptr);
  EXPECT_TRUE((*source)->schema()->field(0).type->Equals(*DataType::Int64()));
  std::vector<int64_t> sizes;
  int64_t last_offset = -1;
  for (;;) {
    auto batch = (*source)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch->has_value()) break;
    sizes.push_back((*batch)->rows.num_rows());
    for (const change::SourcePosition& p : (*batch)->positions) {
      EXPECT_GT(p.byte_offset, last_offset);
      last_offset = p.byte_offset;
    }
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{10, 10, 5}));
  EXPECT_EQ(last_offset, 24);
  EXPECT_TRUE((*source)->Counts().empty());

  options.schema = data::Schema({{"_op", DataType::Int64(), true}});
  auto bad = OpenChangeSource(fs, "c.parquet", SourceFormat::kParquet, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'_op'"), std::string::npos);
}

// Not Parquet, but ChangeSourceOptions: keep_row_text reaches the Debezium reader.
TEST(ChangeSourceOptions, KeepRowTextReachesTheDebeziumReader) {
  io::MemoryFileSystem fs;
  const std::string event =
      R"({"before":null,"after":{"id":1},"source":{"connector":"postgresql","db":"d",)"
      R"("schema":"s","table":"t","ts_ms":5,"lsn":10},"op":"c"})";
  ASSERT_TRUE(fs.WriteFile("e.json", event + "\n").ok());
  for (bool keep : {true, false}) {
    ChangeSourceOptions options;
    options.keep_row_text = keep;
    auto source = OpenChangeSource(fs, "e.json", SourceFormat::kDebezium, options);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    auto batch = (*source)->Next();
    ASSERT_TRUE(batch.ok() && batch->has_value());
    ASSERT_EQ((*batch)->raw.size(), 1u);
    EXPECT_EQ(change::RowText(**batch, 0), keep ? event : "");
  }
}

}  // namespace
}  // namespace cdclake::sources
