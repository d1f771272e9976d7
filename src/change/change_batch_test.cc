// KeepRows, TakeFrontRows and AppendRows: rows, positions, raw text and unchanged marks stay
// aligned.
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

// A batch of ids `first`.. with positions at line id, raw texts when `raw`, and an unchanged
// mark on every odd id when `marks`.
ChangeBatch Ids(int64_t first, int64_t n, bool raw, bool marks) {
  ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true}}));
  for (int64_t i = first; i < first + n; ++i) {
    batch.rows.AppendRow({Value::Int(i)});
    batch.positions.push_back({"f", i, i * 100});
    if (raw) batch.raw.push_back("raw" + std::to_string(i));
    if (marks) {
      batch.unchanged.resize(1);
      batch.unchanged[0].push_back(i % 2);
    }
  }
  return batch;
}

TEST(ChangeBatchTest, TakeFrontRowsSplitsEverythingThatDescribesARowAtOnePlace) {
  ChangeBatch batch = Ids(0, 5, /*raw=*/true, /*marks=*/true);
  batch.rejected.push_back({"bad", {"f", 9, 0}, "why"});
  ChangeBatch front = TakeFrontRows(2, &batch);
  ASSERT_EQ(front.rows.num_rows(), 2);
  ASSERT_EQ(batch.rows.num_rows(), 3);
  EXPECT_EQ(front.rows.column(0).GetValue(1).int_value(), 1);
  EXPECT_EQ(batch.rows.column(0).GetValue(0).int_value(), 2);
  EXPECT_EQ(front.positions[1].line, 1);
  EXPECT_EQ(batch.positions[0].line, 2);
  EXPECT_EQ(front.raw, (std::vector<std::string>{"raw0", "raw1"}));
  EXPECT_EQ(batch.raw, (std::vector<std::string>{"raw2", "raw3", "raw4"}));
  EXPECT_EQ(front.unchanged, (std::vector<std::vector<uint8_t>>{{0, 1}}));
  EXPECT_EQ(batch.unchanged, (std::vector<std::vector<uint8_t>>{{0, 1, 0}}));
  EXPECT_EQ(front.rejected.size(), 1u) << "the rejected records go with the front";
  EXPECT_TRUE(batch.rejected.empty());
  // More than there is: everything, and an empty batch with its columns left.
  ChangeBatch all = TakeFrontRows(10, &batch);
  EXPECT_EQ(all.rows.num_rows(), 3);
  EXPECT_EQ(batch.rows.num_rows(), 0);
  EXPECT_EQ(batch.rows.num_columns(), 1u);
}

TEST(ChangeBatchTest, AppendRowsKeepsEverythingThatDescribesARowAligned) {
  ChangeBatch into = Ids(0, 3, /*raw=*/false, /*marks=*/false);
  into.rejected.push_back({"bad0", {"f", 90, 0}, "first"});
  ChangeBatch more = Ids(3, 2, /*raw=*/true, /*marks=*/true);
  more.rejected.push_back({"bad1", {"f", 91, 0}, "second"});
  AppendRows(std::move(more), &into);
  ASSERT_EQ(into.rows.num_rows(), 5);
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(into.rows.column(0).GetValue(i).int_value(), i);
    EXPECT_EQ(into.positions[static_cast<size_t>(i)].line, i);
  }
  // Rows without a text or a mark of their own get an empty text and no mark.
  EXPECT_EQ(into.raw, (std::vector<std::string>{"", "", "", "raw3", "raw4"}));
  EXPECT_EQ(into.unchanged, (std::vector<std::vector<uint8_t>>{{0, 0, 0, 1, 0}}));
  ASSERT_EQ(into.rejected.size(), 2u);
  EXPECT_EQ(into.rejected[1].raw, "bad1");

  // And the other way round: marks and texts before, none after.
  ChangeBatch marked = Ids(0, 2, /*raw=*/true, /*marks=*/true);
  AppendRows(Ids(2, 2, /*raw=*/false, /*marks=*/false), &marked);
  EXPECT_EQ(marked.raw, (std::vector<std::string>{"raw0", "raw1", "", ""}));
  EXPECT_EQ(marked.unchanged, (std::vector<std::vector<uint8_t>>{{0, 1, 0, 0}}));
}

TEST(ChangeBatchTest, AppendRowsOfABatchWithoutColumnsAddsOnlyItsRejectedRecords) {
  ChangeBatch into = Ids(0, 2, /*raw=*/true, /*marks=*/false);
  ChangeBatch rejected_only;
  rejected_only.rejected.push_back({"bad", {"f", 9, 0}, "why"});
  AppendRows(std::move(rejected_only), &into);
  EXPECT_EQ(into.rows.num_rows(), 2);
  EXPECT_EQ(into.raw, (std::vector<std::string>{"raw0", "raw1"}));
  ASSERT_EQ(into.rejected.size(), 1u);
  EXPECT_EQ(into.rejected[0].raw, "bad");
}

TEST(ChangeBatchTest, AppendRowsToABatchWithoutColumnsTakesTheRowsOver) {
  ChangeBatch into;
  AppendRows(Ids(7, 2, /*raw=*/true, /*marks=*/false), &into);
  ASSERT_EQ(into.rows.num_rows(), 2);
  EXPECT_EQ(into.rows.column(0).GetValue(1).int_value(), 8);
  EXPECT_EQ(into.raw, (std::vector<std::string>{"raw7", "raw8"}));
}

}  // namespace
}  // namespace cdclake::change
