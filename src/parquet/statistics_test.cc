// The statistics we write are right for every type: for each row group and column, min, max
// and null count equal what the rows hold, in the type's logical order.
#include <gtest/gtest.h>

#include <cmath>

#include "io/memory_file_system.h"
#include "parquet/reader/file_reader.h"
#include "parquet/statistics.h"
#include "parquet/testing/random_data.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::parquet {
namespace {

TEST(StatisticsTest, MinMaxAndNullCountMatchTheRowsForEveryType) {
  int checked = 0;
  for (int seed = 0; seed < 30; ++seed) {
    testing::RandomData random(static_cast<uint64_t>(seed) + 4242);
    data::Schema schema = random.Schema(8, /*depth=*/0);  // primitives only
    data::RecordBatch batch = random.Batch(schema, 50 + seed * 20);
    WriterOptions options;
    options.row_group_rows = 40;
    io::MemoryFileSystem fs;
    ASSERT_TRUE(WriteParquetFile(fs, "/s.parquet", batch, options).ok());
    auto reader = FileReader::Open(fs, "/s.parquet");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      auto rows = (*reader)->ReadRowGroup(g);
      ASSERT_TRUE(rows.ok());
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        const SchemaNode& leaf = (*reader)->file_schema().fields()[c];
        const data::DataType& type = *leaf.type;
        const auto& meta = *(*reader)->metadata().row_groups[g].columns[leaf.leaf_index].meta_data;
        ASSERT_TRUE(meta.statistics.has_value());
        const format::Statistics& s = *meta.statistics;
        int64_t nulls = 0;
        std::optional<data::Value> lo, hi;
        for (int64_t r = 0; r < rows->num_rows(); ++r) {
          data::Value v = rows->column(c).GetValue(r);
          if (v.is_null()) {
            ++nulls;
            continue;
          }
          if (v.is_double() && std::isnan(v.double_value())) continue;
          if (!lo || CompareValues(v, *lo, type) < 0) lo = v;
          if (!hi || CompareValues(v, *hi, type) > 0) hi = v;
        }
        std::string what = "seed " + std::to_string(seed) + " group " + std::to_string(g) +
                           " column " + schema.field(c).name + " " + type.ToString();
        EXPECT_EQ(s.null_count.value_or(-1), nulls) << what;
        if (!lo) {
          EXPECT_FALSE(s.min_value.has_value()) << what;
          continue;
        }
        bool long_bytes =
            lo->is_bytes() && (lo->bytes().size() > 4096 || hi->bytes().size() > 4096);
        if (long_bytes) continue;  // bounds over 4 KiB are left out by design
        ASSERT_TRUE(s.min_value && s.max_value) << what;
        auto got_lo = DecodeStatisticValue(*s.min_value, leaf);
        auto got_hi = DecodeStatisticValue(*s.max_value, leaf);
        ASSERT_TRUE(got_lo.ok() && got_hi.ok()) << what;
        if (lo->is_double() && lo->double_value() == 0) lo = data::Value::Double(-0.0);
        if (hi->is_double() && hi->double_value() == 0) hi = data::Value::Double(0.0);
        EXPECT_EQ(*got_lo, *lo) << what << " min";
        EXPECT_EQ(*got_hi, *hi) << what << " max";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(StatisticsTest, StringsCompareAsUnsignedBytesAndDecimalsNumerically) {
  data::Schema schema({{"s", data::DataType::String()}, {"d", data::DataType::Decimal(30, 2)}});
  data::RecordBatch batch(schema);
  batch.AppendRow({data::Value::Bytes("\xc3\xa9"), data::Value::Decimal(-100)});
  batch.AppendRow({data::Value::Bytes("z"), data::Value::Decimal(5)});
  batch.AppendRow({data::Value::Bytes("A"), data::Value::Decimal(-7)});
  io::MemoryFileSystem fs;
  ASSERT_TRUE(WriteParquetFile(fs, "/o.parquet", batch).ok());
  auto opened = FileReader::Open(fs, "/o.parquet");
  ASSERT_TRUE(opened.ok());
  const auto& reader = *opened;
  const auto& cols = reader->metadata().row_groups[0].columns;
  EXPECT_EQ(*cols[0].meta_data->statistics->min_value, "A");
  EXPECT_EQ(*cols[0].meta_data->statistics->max_value, "\xc3\xa9");  // 0xC3 sorts after 'z'
  const SchemaNode& d = reader->file_schema().fields()[1];
  EXPECT_EQ(*DecodeStatisticValue(*cols[1].meta_data->statistics->min_value, d),
            data::Value::Decimal(-100));
  EXPECT_EQ(*DecodeStatisticValue(*cols[1].meta_data->statistics->max_value, d),
            data::Value::Decimal(5));
}

}  // namespace
}  // namespace cdclake::parquet
