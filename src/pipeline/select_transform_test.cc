// SelectTransform: a pipeline SELECT over change rows — columns it yields, computed values, the
// WHERE filter keeping positions, raw text and unchanged marks with their rows.
#include "pipeline/select_transform.h"

#include <gtest/gtest.h>

#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;
using Names = std::vector<std::string>;

// The query of `CREATE TEMPORARY VIEW v AS <select>`.
sql::SelectQuery Query(const std::string& select) {
  auto ast = sql::ParsePipeline("CREATE TEMPORARY VIEW v AS " + select);
  EXPECT_TRUE(ast.ok()) << ast.status().ToString();
  if (!ast.ok() || ast->statements.empty()) return {};
  const auto* view = ast->statements[0].As<sql::CreateView>();
  EXPECT_NE(view, nullptr);
  return view ? view->query : sql::SelectQuery{};
}

data::Schema InputSchema() {
  return data::Schema({{"id", DataType::Int64(), true},
                       {"name", DataType::String(), true},
                       {"qty", DataType::Int32(), true},
                       {"op", DataType::String(), true}});
}

// Four rows: (1, 'ann', 3, 'c'), (2, 'bob', NULL, 'd'), (3, NULL, 5, 'u'), (4, 'dee', 7, NULL);
// positions f.json@0,10,20,30; raw r0..r3; `name` unchanged in row 2 and `qty` in row 3.
change::ChangeBatch Input(bool marked = true) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(InputSchema());
  batch.rows.AppendRow({Value::Int(1), Value::Bytes("ann"), Value::Int(3), Value::Bytes("c")});
  batch.rows.AppendRow({Value::Int(2), Value::Bytes("bob"), Value::Null(), Value::Bytes("d")});
  batch.rows.AppendRow({Value::Int(3), Value::Null(), Value::Int(5), Value::Bytes("u")});
  batch.rows.AppendRow({Value::Int(4), Value::Bytes("dee"), Value::Int(7), Value::Null()});
  for (int64_t r = 0; r < 4; ++r) {
    batch.positions.push_back({"f.json", r + 1, r * 10});
    batch.raw.push_back("r" + std::to_string(r));
  }
  if (marked) {
    batch.unchanged.assign(4, std::vector<uint8_t>(4, 0));
    batch.unchanged[1][2] = 1;
    batch.unchanged[2][3] = 1;
  }
  return batch;
}

change::ChangeBatch MustApply(const std::string& select, change::ChangeBatch batch) {
  auto out = ApplySelect(Query(select), std::move(batch));
  EXPECT_TRUE(out.ok()) << select << ": " << out.status().ToString();
  return out.ok() ? std::move(*out) : change::ChangeBatch{};
}

Names FieldNames(const data::Schema& schema) {
  Names out;
  for (const data::Field& f : schema.fields()) out.push_back(f.name);
  return out;
}

std::vector<Value> ColumnValues(const change::ChangeBatch& batch, size_t c) {
  std::vector<Value> out;
  for (int64_t r = 0; r < batch.rows.num_rows(); ++r) {
    out.push_back(batch.rows.column(c).GetValue(r));
  }
  return out;
}

TEST(SelectTransformTest, StarPassesEveryColumnAndItsMarks) {
  change::ChangeBatch out = MustApply("SELECT * FROM src", Input());
  EXPECT_EQ(FieldNames(out.rows.schema()), (Names{"id", "name", "qty", "op"}));
  ASSERT_EQ(out.rows.num_rows(), 4);
  EXPECT_EQ(out.rows.GetRow(1), Input().rows.GetRow(1));
  EXPECT_EQ(out.unchanged, Input().unchanged);
  EXPECT_EQ(out.raw, Input().raw);
  auto schema = SelectSchema(Query("SELECT * FROM src"), InputSchema());
  ASSERT_TRUE(schema.ok());
  EXPECT_EQ(FieldNames(*schema), (Names{"id", "name", "qty", "op"}));
}

TEST(SelectTransformTest, StarExceptDropsColumnsAndTheirMarks) {
  change::ChangeBatch out = MustApply("SELECT * EXCEPT (name, op) FROM src", Input());
  EXPECT_EQ(FieldNames(out.rows.schema()), (Names{"id", "qty"}));
  ASSERT_EQ(out.unchanged.size(), 2u);
  EXPECT_EQ(out.unchanged[0], (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(out.unchanged[1], (std::vector<uint8_t>{0, 0, 0, 1}));  // qty's marks
  EXPECT_EQ(ColumnValues(out, 1),
            (std::vector<Value>{Value::Int(3), Value::Null(), Value::Int(5), Value::Int(7)}));

  // Names match ignoring case, as Spark's do: EXCEPT (NAME) leaves out name, and two output
  // columns that differ only in case are refused (Delta could not load such a table).
  auto upper = SelectSchema(Query("SELECT * EXCEPT (NAME, OP) FROM src"), InputSchema());
  ASSERT_TRUE(upper.ok()) << upper.status().ToString();
  EXPECT_LT(upper->FieldIndex("name"), 0);
  EXPECT_FALSE(SelectSchema(Query("SELECT *, 1 AS NAME FROM src"), InputSchema()).ok());
  auto replaced = SelectSchema(Query("SELECT * EXCEPT (NAME), 1 AS Name FROM src"), InputSchema());
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_GE(replaced->FieldIndex("Name"), 0);
  EXPECT_LT(replaced->FieldIndex("name"), 0);
  // Left out and defined again: a replacement, whether or not the source has the column.
  EXPECT_TRUE(
      SelectSchema(Query("SELECT * EXCEPT (nope), 1 AS nope FROM src"), InputSchema()).ok());
  auto missing = ApplySelect(Query("SELECT * EXCEPT (nope) FROM src"), Input());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos);
  EXPECT_FALSE(SelectSchema(Query("SELECT * EXCEPT (nope) FROM src"), InputSchema()).ok());
}

TEST(SelectTransformTest, AliasesAndComputedColumns) {
  const std::string select =
      "SELECT id AS key, upper(name) AS uname, qty * 2 AS twice, CAST(qty AS STRING) AS qty_text, "
      "qty + 1, name || '!' AS shout, qty / 0 AS nothing FROM src";
  change::ChangeBatch out = MustApply(select, Input(/*marked=*/false));
  EXPECT_EQ(FieldNames(out.rows.schema()),
            (Names{"key", "uname", "twice", "qty_text", "qty + 1", "shout", "nothing"}));
  ASSERT_EQ(out.rows.num_rows(), 4);
  EXPECT_EQ(ColumnValues(out, 0),
            (std::vector<Value>{Value::Int(1), Value::Int(2), Value::Int(3), Value::Int(4)}));
  EXPECT_EQ(ColumnValues(out, 1), (std::vector<Value>{Value::Bytes("ANN"), Value::Bytes("BOB"),
                                                      Value::Null(), Value::Bytes("DEE")}));
  EXPECT_EQ(ColumnValues(out, 2),
            (std::vector<Value>{Value::Int(6), Value::Null(), Value::Int(10), Value::Int(14)}));
  EXPECT_EQ(ColumnValues(out, 3), (std::vector<Value>{Value::Bytes("3"), Value::Null(),
                                                      Value::Bytes("5"), Value::Bytes("7")}));
  EXPECT_EQ(ColumnValues(out, 4),
            (std::vector<Value>{Value::Int(4), Value::Null(), Value::Int(6), Value::Int(8)}));
  EXPECT_EQ(ColumnValues(out, 5)[0], Value::Bytes("ann!"));
  EXPECT_EQ(ColumnValues(out, 6),
            (std::vector<Value>{Value::Null(), Value::Null(), Value::Null(), Value::Null()}));
  EXPECT_TRUE(out.unchanged.empty());
  EXPECT_EQ(out.positions.size(), 4u);

  // Integer * and + give BIGINT, / gives DOUBLE; SelectSchema agrees with what ApplySelect made.
  auto schema = SelectSchema(Query(select), InputSchema());
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_EQ(schema->num_fields(), 7u);
  EXPECT_EQ(*schema->field(1).type, *DataType::String());
  EXPECT_EQ(*schema->field(2).type, *DataType::Int64());
  EXPECT_EQ(*schema->field(4).type, *DataType::Int64());
  EXPECT_EQ(*schema->field(6).type, *DataType::Double());
  for (size_t i = 0; i < schema->num_fields(); ++i) {
    EXPECT_EQ(*schema->field(i).type, *out.rows.schema().field(i).type) << schema->field(i).name;
  }
}

TEST(SelectTransformTest, WhereKeepsPositionsRawAndMarksWithTheirRows) {
  // Row 1 (op 'd') is FALSE and row 3 (op NULL) is NULL: both dropped.
  change::ChangeBatch out = MustApply("SELECT id, name, qty FROM src WHERE op <> 'd'", Input());
  ASSERT_EQ(out.rows.num_rows(), 2);
  EXPECT_EQ(ColumnValues(out, 0), (std::vector<Value>{Value::Int(1), Value::Int(3)}));
  ASSERT_EQ(out.positions.size(), 2u);
  EXPECT_EQ(out.positions[0].byte_offset, 0);
  EXPECT_EQ(out.positions[1].byte_offset, 20);
  EXPECT_EQ(out.positions[1].line, 3);
  EXPECT_EQ(out.raw, (Names{"r0", "r2"}));
  ASSERT_EQ(out.unchanged.size(), 3u);
  EXPECT_EQ(out.unchanged[1], (std::vector<uint8_t>{0, 1}));  // row 2's name mark moved along
  EXPECT_EQ(out.unchanged[2], (std::vector<uint8_t>{0, 0}));  // row 3's qty mark left with it
}

TEST(SelectTransformTest, WhereDroppingEveryRowLeavesAnEmptyBatch) {
  change::ChangeBatch out = MustApply("SELECT * FROM src WHERE id > 100", Input());
  EXPECT_EQ(out.rows.num_rows(), 0);
  EXPECT_EQ(out.rows.num_columns(), 4u);
  EXPECT_TRUE(out.positions.empty());
  EXPECT_TRUE(out.raw.empty());
  for (const auto& marks : out.unchanged) EXPECT_TRUE(marks.empty());
}

TEST(SelectTransformTest, ComputedColumnsInheritTheMarksOfWhatTheyRead) {
  change::ChangeBatch out = MustApply(
      "SELECT id, upper(name) AS uname, qty * 2 AS twice, concat(name, CAST(qty AS STRING)) AS "
      "both_cols, id + 1 AS next_id FROM src",
      Input());
  ASSERT_EQ(out.unchanged.size(), 5u);
  EXPECT_EQ(out.unchanged[0], (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(out.unchanged[1], (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(out.unchanged[2], (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(out.unchanged[3], (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(out.unchanged[4], (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(SelectTransformTest, AColumnPassedThroughTwiceAndReadLaterKeepsItsValuesEachTime) {
  // Input columns are moved into the output at their last use: `name` is passed twice, and a
  // computed column after both reads it; `qty` is read before it is passed.
  change::ChangeBatch out = MustApply(
      "SELECT qty * 2 AS twice, name, name AS again, qty, upper(name) AS uname, name || '?' AS "
      "asked FROM src",
      Input());
  EXPECT_EQ(FieldNames(out.rows.schema()),
            (Names{"twice", "name", "again", "qty", "uname", "asked"}));
  const std::vector<Value> names{Value::Bytes("ann"), Value::Bytes("bob"), Value::Null(),
                                 Value::Bytes("dee")};
  EXPECT_EQ(ColumnValues(out, 1), names);
  EXPECT_EQ(ColumnValues(out, 2), names);
  EXPECT_EQ(ColumnValues(out, 3),
            (std::vector<Value>{Value::Int(3), Value::Null(), Value::Int(5), Value::Int(7)}));
  EXPECT_EQ(ColumnValues(out, 0),
            (std::vector<Value>{Value::Int(6), Value::Null(), Value::Int(10), Value::Int(14)}));
  EXPECT_EQ(ColumnValues(out, 4), (std::vector<Value>{Value::Bytes("ANN"), Value::Bytes("BOB"),
                                                      Value::Null(), Value::Bytes("DEE")}));
  EXPECT_EQ(ColumnValues(out, 5)[3], Value::Bytes("dee?"));
  ASSERT_EQ(out.unchanged.size(), 6u);
  EXPECT_EQ(out.unchanged[1], (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(out.unchanged[2], (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(out.unchanged[3], (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(out.unchanged[4], (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(out.unchanged[0], (std::vector<uint8_t>{0, 0, 0, 1}));
}

TEST(SelectTransformTest, TwoOutputColumnsWithOneNameAreRefused) {
  for (const char* select :
       {"SELECT id, id FROM src", "SELECT *, name FROM src", "SELECT id, qty AS id FROM src",
        "SELECT * EXCEPT (op), op AS qty FROM src"}) {
    auto schema = SelectSchema(Query(select), InputSchema());
    ASSERT_FALSE(schema.ok()) << select;
    EXPECT_EQ(schema.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(schema.status().message().find("two columns named"), std::string::npos)
        << schema.status().ToString();
    EXPECT_FALSE(ApplySelect(Query(select), Input()).ok()) << select;
  }
  EXPECT_TRUE(SelectSchema(Query("SELECT id, id AS id2 FROM src"), InputSchema()).ok());
}

TEST(SelectTransformTest, UnknownColumnsAreErrors) {
  for (const char* select : {"SELECT nope FROM src", "SELECT upper(nope) AS u FROM src",
                             "SELECT id FROM src WHERE nope = 1"}) {
    auto schema = SelectSchema(Query(select), InputSchema());
    EXPECT_FALSE(schema.ok()) << select;
    auto applied = ApplySelect(Query(select), Input());
    EXPECT_FALSE(applied.ok()) << select;
  }
  auto missing = SelectSchema(Query("SELECT nope FROM src"), InputSchema());
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos)
      << missing.status().ToString();
}

TEST(SelectTransformTest, WhereMustBeACondition) {
  auto schema = SelectSchema(Query("SELECT * FROM src WHERE qty + 1"), InputSchema());
  EXPECT_FALSE(schema.ok());
}

// Disabled: fails today ("column 's' not found"): a qualifier naming the source is not stripped,
// so `s.id` is read as field id of a struct column s. Enable once qualified references resolve.
TEST(SelectTransformTest, ColumnsQualifiedByTheSourceAliasResolve) {
  // `FROM src s` names the source s; s.id is the column id.
  const std::string select = "SELECT s.id, s.name AS who FROM src s WHERE s.op = 'c'";
  auto schema = SelectSchema(Query(select), InputSchema());
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(FieldNames(*schema), (Names{"id", "who"}));
  auto out = ApplySelect(Query(select), Input());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->rows.num_rows(), 1);
  EXPECT_EQ(out->rows.column(1).GetValue(0), Value::Bytes("ann"));
}

}  // namespace
}  // namespace cdclake::pipeline
