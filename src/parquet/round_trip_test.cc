// Round trips: random schemas (every type, nesting, nulls, empty strings and lists, extreme
// values, long strings) x every compression, written and read back equal.
#include <gtest/gtest.h>

#include <cstdlib>

#include "io/memory_file_system.h"
#include "parquet/reader/file_reader.h"
#include "parquet/testing/random_data.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::parquet {
namespace {

using format::CompressionCodec;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

void ExpectSameRows(const data::RecordBatch& want, const data::RecordBatch& got,
                    const std::string& what) {
  ASSERT_EQ(want.num_rows(), got.num_rows()) << what;
  ASSERT_EQ(want.num_columns(), got.num_columns()) << what;
  for (size_t c = 0; c < want.num_columns(); ++c) {
    for (int64_t r = 0; r < want.num_rows(); ++r) {
      data::Value a = want.column(c).GetValue(r);
      data::Value b = got.column(c).GetValue(r);
      ASSERT_EQ(a, b) << what << " column " << want.schema().field(c).name << " ("
                      << want.schema().field(c).type->ToString() << ") row " << r << ": wrote "
                      << a.DebugString() << " read " << b.DebugString();
    }
  }
}

class RoundTripTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(RoundTripTest, RandomSchemasReadBackEqual) {
  int iterations = EnvInt("CDCLAKE_ROUNDTRIP_SCHEMAS", 40);
  for (int seed = 0; seed < iterations; ++seed) {
    testing::RandomData random(static_cast<uint64_t>(seed) * 7919 +
                               static_cast<uint64_t>(GetParam()));
    data::Schema schema = random.Schema(1 + seed % 6, seed % 3);
    int64_t rows = seed % 5 == 0 ? 0 : 1 + static_cast<int64_t>(random.rng()() % 700);
    data::RecordBatch batch = random.Batch(schema, rows);
    WriterOptions options;
    options.compression = GetParam();
    // Small limits so that pages, row groups and dictionary fallback all happen.
    options.page_bytes = 512 + seed * 64;
    options.row_group_rows = 100 + seed * 10;
    options.dictionary_page_bytes = seed % 2 == 0 ? 256 : 1 << 20;
    options.dictionary = seed % 7 != 3;
    io::MemoryFileSystem fs;
    std::string what = "seed " + std::to_string(seed) + " schema:\n" + schema.ToString();
    Status st = WriteParquetFile(fs, "/t.parquet", batch, options);
    ASSERT_TRUE(st.ok()) << what << st.ToString();
    auto reader = FileReader::Open(fs, "/t.parquet");
    ASSERT_TRUE(reader.ok()) << what << reader.status().ToString();
    EXPECT_TRUE((*reader)->schema() == schema) << what << "read schema:\n"
                                               << (*reader)->schema().ToString();
    EXPECT_EQ((*reader)->num_rows(), rows);
    auto got = (*reader)->ReadAll();
    ASSERT_TRUE(got.ok()) << what << got.status().ToString();
    ExpectSameRows(batch, *got, what);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCodec, RoundTripTest,
                         ::testing::Values(CompressionCodec::kUncompressed,
                                           CompressionCodec::kSnappy, CompressionCodec::kGzip,
                                           CompressionCodec::kZstd, CompressionCodec::kLz4Raw),
                         [](const auto& info) {
                           switch (info.param) {
                             case CompressionCodec::kUncompressed:
                               return std::string("none");
                             case CompressionCodec::kSnappy:
                               return std::string("snappy");
                             case CompressionCodec::kGzip:
                               return std::string("gzip");
                             case CompressionCodec::kZstd:
                               return std::string("zstd");
                             default:
                               return std::string("lz4_raw");
                           }
                         });

TEST(RoundTripTest, ProjectionRowIndexAndRowGroupSkipping) {
  data::Schema schema(
      {{"id", data::DataType::Int64(), false}, {"name", data::DataType::String(), true}});
  data::RecordBatch batch(schema);
  for (int64_t i = 0; i < 1000; ++i) {
    batch.AppendRow({data::Value::Int(i), i % 10 == 0
                                              ? data::Value::Null()
                                              : data::Value::Bytes("n" + std::to_string(i))});
  }
  WriterOptions options;
  options.row_group_rows = 100;
  io::MemoryFileSystem fs;
  ASSERT_TRUE(WriteParquetFile(fs, "/p.parquet", batch, options).ok());
  auto reader = FileReader::Open(fs, "/p.parquet");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->num_row_groups(), 10);

  ReadOptions ro;
  ro.columns = {"name"};
  ro.with_row_index = true;
  ro.filters = {{"id", StatisticsFilter::Op::kGe, data::Value::Int(250)},
                {"id", StatisticsFilter::Op::kLt, data::Value::Int(420)}};
  auto got = (*reader)->ReadAll(ro);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // Row groups 2, 3 and 4 may hold ids in [250, 420); the others are skipped.
  ASSERT_EQ(got->num_rows(), 300);
  ASSERT_EQ(got->num_columns(), 2u);
  EXPECT_EQ(got->schema().field(0).name, "name");
  for (int64_t r = 0; r < got->num_rows(); ++r) {
    int64_t index = got->column(1).ValueAt<int64_t>(r);
    EXPECT_EQ(index, 200 + r);
    EXPECT_EQ(got->column(0).GetValue(r), batch.column(1).GetValue(index));
  }
  EXPECT_FALSE(
      (*reader)->RowGroupMayMatch(0, {{"id", StatisticsFilter::Op::kEq, data::Value::Int(100)}}));
  EXPECT_TRUE(
      (*reader)->RowGroupMayMatch(1, {{"id", StatisticsFilter::Op::kEq, data::Value::Int(100)}}));
  EXPECT_FALSE((*reader)->ReadAll({{"nope"}, false, "", {}}).ok());
}

TEST(RoundTripTest, NonNullableColumnRejectsNull) {
  data::Schema schema({{"id", data::DataType::Int64(), false}});
  data::RecordBatch batch(schema);
  batch.AppendRow({data::Value::Null()});
  io::MemoryFileSystem fs;
  Status st = WriteParquetFile(fs, "/n.parquet", batch);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(*fs.Exists("/n.parquet"));
}

// Column chunks are encoded on WriterOptions::threads threads; the file's bytes must not depend
// on how many, with slices long enough to use them and row groups and pages cut mid-batch.
TEST(ParallelWriteTest, ThreadCountDoesNotChangeTheBytes) {
  int iterations = EnvInt("CDCLAKE_ROUNDTRIP_SCHEMAS", 40) / 4;
  for (int seed = 0; seed < iterations; ++seed) {
    testing::RandomData random(static_cast<uint64_t>(seed) * 104729 + 17);
    data::Schema schema = random.Schema(2 + seed % 9, seed % 3);
    int64_t rows = 2500 + static_cast<int64_t>(random.rng()() % 12000);
    data::RecordBatch batch = random.Batch(schema, rows);
    std::string what = "seed " + std::to_string(seed) + " schema:\n" + schema.ToString();
    std::string first;
    for (int threads : {1, 2, 3}) {
      WriterOptions options;
      options.threads = threads;
      options.compression = seed % 2 == 0 ? CompressionCodec::kZstd : CompressionCodec::kSnappy;
      options.page_bytes = 4096 + seed * 1024;
      options.row_group_rows = 5000 + seed * 1000;
      io::MemoryFileSystem fs;
      Status st = WriteParquetFile(fs, "/t.parquet", batch, options);
      ASSERT_TRUE(st.ok()) << what << st.ToString();
      auto bytes = fs.ReadFile("/t.parquet");
      ASSERT_TRUE(bytes.ok()) << what;
      if (threads == 1) {
        first = *bytes;
        auto reader = FileReader::Open(fs, "/t.parquet");
        ASSERT_TRUE(reader.ok()) << what << reader.status().ToString();
        auto got = (*reader)->ReadAll();
        ASSERT_TRUE(got.ok()) << what << got.status().ToString();
        ExpectSameRows(batch, *got, what);
      } else {
        EXPECT_TRUE(*bytes == first) << what << " with " << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace cdclake::parquet
