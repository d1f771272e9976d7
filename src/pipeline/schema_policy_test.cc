// cdclake.schemaPolicy on batches: the policy's names, 'block' naming the first misfit with its
// place, 'quarantine' setting aside rows with a value in a column the table lacks or a value that
// does not fit the table's type (lossy casts included) while columns the flow only reads stay,
// and the refused changes counted per column.
#include "pipeline/schema_policy.h"

#include <gtest/gtest.h>

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;

// id, amount (double), tier (string), op (string, read but not written); raw r0..r4.
change::ChangeBatch Rows() {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true},
                                               {"amount", DataType::Double(), true},
                                               {"tier", DataType::String(), true},
                                               {"op", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Double(5), Value::Null(), Value::Bytes("u")});
  batch.rows.AppendRow({Value::Int(2), Value::Double(4.5), Value::Null(), Value::Bytes("u")});
  batch.rows.AppendRow({Value::Int(3), Value::Double(7), Value::Bytes("x"), Value::Bytes("u")});
  batch.rows.AppendRow({Value::Int(4), Value::Null(), Value::Null(), Value::Bytes("d")});
  batch.rows.AppendRow({Value::Int(5), Value::Double(1e30), Value::Null(), Value::Bytes("u")});
  for (int64_t r = 0; r < 5; ++r) {
    batch.positions.push_back({"f.csv", r + 2, r * 10});
    batch.raw.push_back("r" + std::to_string(r));
  }
  return batch;
}

data::Schema Target() {
  return data::Schema({{"id", DataType::Int64(), true}, {"amount", DataType::Int64(), true}});
}

bool WritesAllButOp(const std::string& name) {
  return name != "op";
}

TEST(SchemaPolicy, NamesTheThreePoliciesAndRefusesOthers) {
  EXPECT_EQ(*ParseSchemaPolicy("t", std::nullopt), SchemaPolicy::kEvolve);
  EXPECT_EQ(*ParseSchemaPolicy("t", "evolve"), SchemaPolicy::kEvolve);
  EXPECT_EQ(*ParseSchemaPolicy("t", "block"), SchemaPolicy::kBlock);
  EXPECT_EQ(*ParseSchemaPolicy("t", "quarantine"), SchemaPolicy::kQuarantine);
  auto odd = ParseSchemaPolicy("shop.t", "strict");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("'strict' is not one cdclake knows (evolve, block, "
                                        "quarantine)"),
            std::string::npos);
}

TEST(SchemaPolicy, QuarantineSetsAsideRowsThatDoNotFitAndKeepsTheTablesColumns) {
  auto out = QuarantineMisfits(Rows(), Target(), WritesAllButOp, "shop.t");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // tier (not in the table) is gone; op (read, not written) stays; amount takes BIGINT.
  ASSERT_EQ(out->rows.schema().ToString(), "id bigint\namount bigint\nop string\n");
  ASSERT_EQ(out->rows.num_rows(), 2);
  EXPECT_EQ(out->rows.GetRow(0),
            (std::vector<Value>{Value::Int(1), Value::Int(5), Value::Bytes("u")}));
  EXPECT_EQ(out->rows.GetRow(1),
            (std::vector<Value>{Value::Int(4), Value::Null(), Value::Bytes("d")}));
  EXPECT_EQ(out->raw, (std::vector<std::string>{"r0", "r3"}));
  ASSERT_EQ(out->rejected.size(), 3u);
  EXPECT_EQ(out->rejected[0].raw, "r1");
  EXPECT_EQ(out->rejected[0].misfit_column, "amount");
  EXPECT_EQ(out->rejected[0].position.line, 3);
  EXPECT_NE(out->rejected[0].reason.find("value '4.5' (double) does not fit shop.t's bigint"),
            std::string::npos)
      << out->rejected[0].reason;
  EXPECT_EQ(out->rejected[1].raw, "r2");
  EXPECT_EQ(out->rejected[1].misfit_column, "tier");
  EXPECT_EQ(out->rejected[1].reason,
            "column 'tier' (string) is not in shop.t (cdclake.schemaPolicy = 'quarantine')");
  EXPECT_EQ(out->rejected[2].raw, "r4");  // 1e30 does not fit a BIGINT
  EXPECT_EQ(out->rejected[2].misfit_column, "amount");

  const std::vector<SchemaChange> refused = RefusedChanges(*out, std::nullopt, "shop.t", Target());
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].column, "amount");
  EXPECT_EQ(refused[0].rows, 2);
  EXPECT_EQ(refused[0].old_type, "bigint");
  EXPECT_EQ(refused[1].column, "tier");
  EXPECT_EQ(refused[1].rows, 1);
  EXPECT_EQ(refused[1].old_type, "");
  EXPECT_EQ(refused[1].Text(),
            "column tier refused by shop.t, which does not have it: 1 row "
            "quarantined");
  // Records already quarantined by an earlier, killed run are not counted again.
  const change::SourcePosition after_first{"f.csv", 4, 21};
  const std::vector<SchemaChange> later = RefusedChanges(*out, after_first, "shop.t", Target());
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].column, "amount");
  EXPECT_EQ(later[0].rows, 1);
}

TEST(SchemaPolicy, TextFitsWhenItCastsWithoutLoss) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"amount", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Bytes("042")});
  batch.rows.AppendRow({Value::Bytes("abc")});
  batch.rows.AppendRow({Value::Bytes("4.5")});  // Spark's CAST would truncate it to 4
  batch.rows.AppendRow({Value::Bytes("7.0")});
  auto out = QuarantineMisfits(
      std::move(batch), data::Schema({{"amount", DataType::Int64(), true}}), WritesAllButOp, "t");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.num_rows(), 2);
  EXPECT_EQ(out->rows.GetRow(0)[0], Value::Int(42));
  EXPECT_EQ(out->rows.GetRow(1)[0], Value::Int(7));
  ASSERT_EQ(out->rejected.size(), 2u);
  EXPECT_NE(out->rejected[1].reason.find("value '4.5'"), std::string::npos);
}

// A source without record text (a table read as a stream): the quarantined record is the row
// as it arrived, the refused values in it, not the row after the cast or the column dropped.
TEST(SchemaPolicy, AQuarantinedRowWithoutTextKeepsTheRefusedValues) {
  change::ChangeBatch batch = Rows();
  batch.raw.clear();
  auto out = QuarantineMisfits(std::move(batch), Target(), WritesAllButOp, "shop.t");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rejected.size(), 3u);
  EXPECT_NE(out->rejected[0].raw.find("4.5"), std::string::npos) << out->rejected[0].raw;
  EXPECT_NE(out->rejected[1].raw.find("\"tier\":\"x\""), std::string::npos) << out->rejected[1].raw;
}

TEST(SchemaPolicy, BlockNamesTheFirstMisfitAndWhereItWas) {
  change::ChangeBatch batch;
  batch.rejected.push_back({"{}", {"in/f.jsonl", 7, 70, 80}, "dropped by expectation e", ""});
  batch.rejected.push_back(
      {"{\"n\": \"abc\"}", {"in/f.jsonl", 9, 90, 100}, "column 'n': 'abc' is not a BIGINT", "n"});
  std::vector<SchemaChange> blocked;
  Status s = CheckNoMisfits(batch, "shop.t", Target(), &blocked);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cdclake.schemaPolicy = 'block' on shop.t: a value of column n does "
                             "not fit its type: column 'n': 'abc' is not a BIGINT (in/f.jsonl "
                             "line 9); nothing of this batch is committed"),
            std::string::npos)
      << s.message();
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_EQ(blocked[0].action, "blocked");
  EXPECT_EQ(blocked[0].rows, 1);
  change::ChangeBatch fine;
  fine.rejected.push_back({"{}", {"in/f.jsonl", 7, 70, 80}, "not a JSON object", ""});
  blocked.clear();
  EXPECT_TRUE(CheckNoMisfits(fine, "shop.t", Target(), &blocked).ok());
  EXPECT_TRUE(blocked.empty());
}

TEST(SchemaPolicy, WithoutAPropertyADeclaredTableGetsTheContract) {
  EXPECT_EQ(*ParseSchemaPolicy("t", std::nullopt, /*declared=*/true), SchemaPolicy::kDeclared);
  EXPECT_EQ(*ParseSchemaPolicy("t", "evolve", /*declared=*/true), SchemaPolicy::kEvolve);
  EXPECT_EQ(*ParseSchemaPolicy("t", "block", /*declared=*/true), SchemaPolicy::kBlock);
}

// The declared contract: the batch after the cast (amount BIGINT), `misfits` of its rows' amount
// values set aside, `kept_amount` the amount left in the one row that stayed.
change::ChangeBatch CastBatch(int misfits, std::optional<int64_t> kept_amount) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(
      data::Schema({{"id", DataType::Int64(), true}, {"amount", DataType::Int64(), true}}));
  batch.rows.AppendRow({Value::Int(1), kept_amount ? Value::Int(*kept_amount) : Value::Null()});
  batch.positions.push_back({"f.csv", 2, 0});
  for (int i = 0; i < misfits; ++i) {
    batch.rejected.push_back({"r", {"f.csv", 3 + i, 10}, "column 'amount': 'x'", "amount"});
  }
  return batch;
}

TEST(SchemaPolicy, ADeclaredTableStopsOnARetypedOrDroppedColumnAndToleratesTheRest) {
  const data::Schema declared({{"id", DataType::Int64(), true},
                               {"name", DataType::String(), true},
                               {"amount", DataType::Int64(), true}});
  const data::Schema before = declared;
  auto all = [](const std::string&) { return true; };
  // values_sent: the amount values the batch held before the cast.
  auto sent = [](int64_t amounts) { return std::map<std::string, int64_t>{{"amount", amounts}}; };
  // An added column (tier), the types as before: nothing to stop for.
  const data::Schema added({{"id", DataType::Int64(), true},
                            {"name", DataType::String(), true},
                            {"amount", DataType::Int64(), true},
                            {"tier", DataType::String(), true}});
  std::vector<SchemaChange> blocked;
  EXPECT_TRUE(
      CheckDeclaredContract(CastBatch(0, 5), added, sent(1), &before, declared, all, "t", &blocked)
          .ok());
  const data::Schema text({{"id", DataType::Int64(), true},
                           {"name", DataType::String(), true},
                           {"amount", DataType::String(), true}});
  // One bad value among good ones, one bad value alone, two bad values beside a good one a
  // NOT NULL violation set aside: bad rows, not a retyped column.
  EXPECT_TRUE(
      CheckDeclaredContract(CastBatch(1, 5), text, sent(2), &before, declared, all, "t", &blocked)
          .ok());
  EXPECT_TRUE(CheckDeclaredContract(CastBatch(1, std::nullopt), text, sent(1), &before, declared,
                                    all, "t", &blocked)
                  .ok());
  EXPECT_TRUE(CheckDeclaredContract(CastBatch(2, std::nullopt), text, sent(3), &before, declared,
                                    all, "t", &blocked)
                  .ok());
  EXPECT_TRUE(blocked.empty());
  // Not one of two values fits: retyped.
  Status retyped = CheckDeclaredContract(CastBatch(2, std::nullopt), text, sent(2), &before,
                                         declared, all, "t", &blocked);
  ASSERT_FALSE(retyped.ok());
  EXPECT_NE(retyped.message().find("none of the 2 values of column amount (string in the "
                                   "source) fits its declared type bigint"),
            std::string::npos)
      << retyped.message();
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_TRUE(blocked[0].by_declaration);
  EXPECT_EQ(blocked[0].rows, 2);
  EXPECT_NE(blocked[0].Text().find("blocked by t's declared column list"), std::string::npos);
  // A column the flow does not write is not held to it.
  blocked.clear();
  auto not_amount = [](const std::string& c) { return c != "amount"; };
  EXPECT_TRUE(CheckDeclaredContract(CastBatch(2, std::nullopt), text, sent(2), &before, declared,
                                    not_amount, "t", &blocked)
                  .ok());
  // name sent before and not now: stopped; without a previous batch, nothing to compare.
  const data::Schema no_name(
      {{"id", DataType::Int64(), true}, {"amount", DataType::Int64(), true}});
  Status dropped = CheckDeclaredContract(CastBatch(0, 5), no_name, sent(1), &before, declared, all,
                                         "t", &blocked);
  ASSERT_FALSE(dropped.ok());
  EXPECT_NE(dropped.message().find("column name (string) is no longer sent"), std::string::npos);
  blocked.clear();
  EXPECT_TRUE(CheckDeclaredContract(CastBatch(0, 5), no_name, sent(1), nullptr, declared, all, "t",
                                    &blocked)
                  .ok());
}

TEST(SchemaPolicy, SnapshotColumnsUnderEachPolicy) {
  const data::Schema table({{"id", DataType::Int64(), true}, {"name", DataType::String(), true}});
  const data::Schema wider({{"id", DataType::Int64(), true},
                            {"name", DataType::String(), true},
                            {"city", DataType::String(), true}});
  const data::Schema narrower({{"id", DataType::Int64(), true}});
  auto all = [](const std::string&) { return true; };
  std::vector<SchemaChange> blocked;
  EXPECT_TRUE(CheckSnapshotColumns(SchemaPolicy::kEvolve, narrower, &table, &table, false, all, "t",
                                   "s.csv", &blocked)
                  .ok());
  Status block = CheckSnapshotColumns(SchemaPolicy::kBlock, wider, &table, &table, false, all, "t",
                                      "s.csv", &blocked);
  ASSERT_FALSE(block.ok());
  EXPECT_NE(block.message().find("column city (string) is not in the table"), std::string::npos);
  // A declared table's types are what the snapshot's values are cast to: not compared.
  const data::Schema int_id({{"id", DataType::Int32(), true}, {"name", DataType::String(), true}});
  EXPECT_FALSE(CheckSnapshotColumns(SchemaPolicy::kBlock, table, nullptr, &int_id, false, all, "t",
                                    "s.csv", &blocked)
                   .ok());
  EXPECT_TRUE(CheckSnapshotColumns(SchemaPolicy::kBlock, table, nullptr, &int_id, true, all, "t",
                                   "s.csv", &blocked)
                  .ok());
  // Declared: an added column is tolerated; a dropped one stops only when the previous had it.
  EXPECT_TRUE(CheckSnapshotColumns(SchemaPolicy::kDeclared, wider, &table, &table, true, all, "t",
                                   "s.csv", &blocked)
                  .ok());
  EXPECT_TRUE(CheckSnapshotColumns(SchemaPolicy::kDeclared, narrower, &narrower, &table, true, all,
                                   "t", "s.csv", &blocked)
                  .ok());
  Status dropped = CheckSnapshotColumns(SchemaPolicy::kDeclared, narrower, &table, &table, true,
                                        all, "t", "s.csv", &blocked);
  ASSERT_FALSE(dropped.ok());
  EXPECT_NE(dropped.message().find("s.csv: t declares its columns"), std::string::npos);
  Status quarantine = CheckSnapshotColumns(SchemaPolicy::kQuarantine, table, nullptr, nullptr,
                                           false, nullptr, "t", "", &blocked);
  EXPECT_EQ(quarantine.code(), StatusCode::kNotSupported);
}

}  // namespace
}  // namespace cdclake::pipeline
