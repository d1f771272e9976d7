// Expectations over change rows: counts per expectation, NULL failing, DROP ROW rows leaving the
// batch as rejected records naming every expectation they failed (raw text and position kept),
// FAIL UPDATE refusing the batch naming the row, and a condition over a missing column named.
#include "pipeline/expectations.h"

#include <gtest/gtest.h>

#include "sql/condition_parser.h"
#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;

// A flow whose target declares `constraints` (the inside of the column list).
FlowPlan Flow(const std::string& constraints) {
  FlowPlan flow;
  flow.name = "f";
  flow.target = "t";
  auto ast = sql::ParsePipeline("CREATE OR REFRESH STREAMING TABLE t (" + constraints + ")");
  EXPECT_TRUE(ast.ok()) << ast.status().ToString();
  if (!ast.ok()) return flow;
  flow.expectations = ast->statements[0].As<sql::CreateStreamingTable>()->expectations;
  return flow;
}

// (1, 10), (2, NULL), (3, -5), (NULL, 9); raw r0..r3 at f.csv lines 1..4.
change::ChangeBatch Rows() {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(
      data::Schema({{"id", DataType::Int64(), true}, {"amount", DataType::Int32(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Int(10)});
  batch.rows.AppendRow({Value::Int(2), Value::Null()});
  batch.rows.AppendRow({Value::Int(3), Value::Int(-5)});
  batch.rows.AppendRow({Value::Null(), Value::Int(9)});
  for (int64_t r = 0; r < 4; ++r) {
    batch.positions.push_back({"f.csv", r + 1, r * 10});
    batch.raw.push_back("r" + std::to_string(r));
  }
  return batch;
}

TEST(ExpectationsTest, CountsDropsAndKeeps) {
  FlowPlan flow = Flow(
      "CONSTRAINT positive EXPECT (amount > 0), "
      "CONSTRAINT has_id EXPECT (id IS NOT NULL) ON VIOLATION DROP ROW, "
      "CONSTRAINT small EXPECT (amount < 8) ON VIOLATION DROP ROW");
  std::vector<ExpectationCount> counts;
  auto out = ApplyExpectations(flow, Rows(), &counts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(counts.size(), 3u);
  // NULL amount fails `amount > 0` and `amount < 8` alike.
  EXPECT_EQ(counts[0].passed, 2);
  EXPECT_EQ(counts[0].failed, 2);
  EXPECT_EQ(counts[1].passed, 3);
  EXPECT_EQ(counts[1].failed, 1);
  EXPECT_EQ(counts[2].passed, 1);
  EXPECT_EQ(counts[2].failed, 3);
  // Rows 0 (amount 10), 1 (NULL) and 3 (no id, amount 9) are dropped; row 2 is kept though it
  // fails the warn-only `positive`.
  ASSERT_EQ(out->rows.num_rows(), 1);
  EXPECT_EQ(out->rows.column(0).GetValue(0).int_value(), 3);
  ASSERT_EQ(out->raw.size(), 1u);
  EXPECT_EQ(out->raw[0], "r2");
  ASSERT_EQ(out->rejected.size(), 3u);
  EXPECT_EQ(out->rejected[0].raw, "r0");
  EXPECT_EQ(out->rejected[0].position.line, 1);
  EXPECT_EQ(out->rejected[0].reason, "dropped by expectation small (amount < 8)");
  EXPECT_EQ(out->rejected[2].reason,
            "dropped by expectation has_id (id IS NOT NULL), small (amount < 8)");
  // A second batch adds to the counts.
  ASSERT_TRUE(ApplyExpectations(flow, Rows(), &counts).ok());
  EXPECT_EQ(counts[1].failed, 2);
  const json::Json quality = DataQualityJson("t", counts, 3);
  EXPECT_EQ(quality["dropped_records"], 3);
  EXPECT_EQ(quality["expectations"][0]["name"], "positive");
  EXPECT_EQ(quality["expectations"][0]["passed_records"], 4);
  EXPECT_EQ(quality["expectations"][0]["dataset"], "t");
}

TEST(ExpectationsTest, FailUpdateRefusesTheBatchNamingTheRow) {
  FlowPlan flow = Flow(
      "CONSTRAINT sane EXPECT (amount IS NULL OR amount < 9) ON VIOLATION "
      "FAIL UPDATE");
  std::vector<ExpectationCount> counts;
  auto out = ApplyExpectations(flow, Rows(), &counts);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "expectation sane (amount IS NULL OR amount < 9) failed on the row (f.csv, line 1) "
            "r0; ON VIOLATION FAIL UPDATE: nothing of this batch is committed");
  EXPECT_TRUE(counts.empty()) << "a refused batch counts nothing";
}

TEST(ExpectationsTest, AConditionOverAMissingColumnIsNamed) {
  FlowPlan flow = Flow("CONSTRAINT c EXPECT (amout > 0)");
  std::vector<ExpectationCount> counts;
  auto out = ApplyExpectations(flow, Rows(), &counts);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("expectation c (amout > 0): "), std::string::npos)
      << out.status().ToString();
}

TEST(ExpectationsTest, AnAutoCdcFlowsDeletesAreAppliedUnchecked) {
  FlowPlan flow = Flow("CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION DROP ROW");
  flow.kind = FlowPlan::Kind::kAutoCdc;
  auto when = sql::ParseCondition("op = 'd'");
  ASSERT_TRUE(when.ok()) << when.status().ToString();
  flow.flow.delete_when = std::shared_ptr<const data::Expr>(std::move(*when));
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true},
                                               {"amount", DataType::Int32(), true},
                                               {"op", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Int(-1), Value::Bytes("u")});
  batch.rows.AppendRow({Value::Int(2), Value::Null(), Value::Bytes("d")});
  batch.rows.AppendRow({Value::Int(3), Value::Int(4), Value::Bytes("c")});
  std::vector<ExpectationCount> counts;
  auto out = ApplyExpectations(flow, std::move(batch), &counts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The delete of key 2 stays (its NULL amount is not checked); the update of key 1 is dropped.
  ASSERT_EQ(out->rows.num_rows(), 2);
  EXPECT_EQ(out->rows.column(0).GetValue(0).int_value(), 2);
  EXPECT_EQ(out->rows.column(0).GetValue(1).int_value(), 3);
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].passed, 1);
  EXPECT_EQ(counts[0].failed, 1);
}

TEST(ExpectationsTest, CellsAnUpdateLeavesAsTheyAreAreNotChecked) {
  FlowPlan flow = Flow("CONSTRAINT has_note EXPECT (note IS NOT NULL) ON VIOLATION DROP ROW");
  flow.kind = FlowPlan::Kind::kAutoCdc;
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(
      data::Schema({{"id", DataType::Int64(), true}, {"note", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Null()});  // note: an unchanged TOAST value
  batch.rows.AppendRow({Value::Int(2), Value::Null()});  // note: NULL, really
  batch.unchanged.assign(2, std::vector<uint8_t>(2, 0));
  batch.unchanged[1][0] = 1;
  std::vector<ExpectationCount> counts;
  auto out = ApplyExpectations(flow, batch, &counts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.num_rows(), 1);
  EXPECT_EQ(out->rows.column(0).GetValue(0).int_value(), 1);
  EXPECT_EQ(counts[0].passed + counts[0].failed, 1);
  // Under IGNORE NULL UPDATES a NULL leaves the column as it is: not checked either.
  flow.flow.ignore_null_updates = apply::ColumnSelection::All();
  counts.clear();
  out = ApplyExpectations(flow, batch, &counts);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rows.num_rows(), 2);
  EXPECT_EQ(counts[0].passed + counts[0].failed, 0);
}

}  // namespace
}  // namespace cdclake::pipeline
