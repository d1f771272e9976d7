// KeepRows: rows, positions, raw text and unchanged marks stay aligned.
#include "change/change_batch.h"

#include <gtest/gtest.h>

namespace cdclake::change {
namespace {

using data::DataType;
using data::Value;

TEST(ChangeBatchTest, KeepRowsKeepsEverythingThatDescribesARow) {
  ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true}}));
  for (int64_t i = 0; i < 5; ++i) {
    batch.rows.AppendRow({Value::Int(i * 10)});
    batch.positions.push_back({"f", i + 1, i * 100});
    batch.raw.push_back("raw" + std::to_string(i));
  }
  batch.unchanged = {{0, 1, 0, 1, 0}};
  batch.rejected.push_back({"bad", {"f", 9, 900}, "why"});
  KeepRows({1, 3, 4}, &batch);
  ASSERT_EQ(batch.rows.num_rows(), 3);
  EXPECT_EQ(batch.rows.column(0).GetValue(0).int_value(), 10);
  EXPECT_EQ(batch.rows.column(0).GetValue(2).int_value(), 40);
  ASSERT_EQ(batch.positions.size(), 3u);
  EXPECT_EQ(batch.positions[1].byte_offset, 300);
  EXPECT_EQ(batch.raw, (std::vector<std::string>{"raw1", "raw3", "raw4"}));
  EXPECT_EQ(batch.unchanged[0], (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(batch.rejected.size(), 1u);
}

TEST(ChangeBatchTest, KeepRowsOfNoneLeavesAnEmptyBatchWithItsColumns) {
  ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true}}));
  batch.rows.AppendRow({Value::Int(1)});
  batch.positions.push_back({"f", 1, 0});
  KeepRows({}, &batch);
  EXPECT_EQ(batch.rows.num_rows(), 0);
  EXPECT_EQ(batch.rows.num_columns(), 1u);
  EXPECT_TRUE(batch.positions.empty());
}

}  // namespace
}  // namespace cdclake::change
