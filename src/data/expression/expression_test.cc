// Tests for expression trees: SQL text, referenced columns, binding errors and three-valued
// evaluation over record batches of every comparable type.
#include "data/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "data/decimal.h"
#include "data/value_format.h"

namespace cdclake::data {
namespace {

using E = std::unique_ptr<Expr>;

E Col(std::string name) {
  return Expr::Column({std::move(name)});
}
E Path(std::vector<std::string> path) {
  return Expr::Column(std::move(path));
}
E Int(int64_t v) {
  return Expr::Literal(Value::Int(v), DataType::Int64());
}
E Str(std::string v) {
  return Expr::Literal(Value::Bytes(std::move(v)), DataType::String());
}
E Dec(Int128 unscaled, int precision, int scale) {
  return Expr::Literal(Value::Decimal(unscaled), DataType::Decimal(precision, scale));
}
E Dbl(double v) {
  return Expr::Literal(Value::Double(v), DataType::Double());
}
E Bool(bool v) {
  return Expr::Literal(Value::Bool(v), DataType::Boolean());
}
E Null() {
  return Expr::Literal(Value::Null(), nullptr);
}
E Cmp(CompareOp op, E l, E r) {
  return Expr::Compare(op, std::move(l), std::move(r));
}
E Eq(E l, E r) {
  return Cmp(CompareOp::kEq, std::move(l), std::move(r));
}
std::vector<E> List(E a, E b = nullptr, E c = nullptr) {
  std::vector<E> out;
  for (E* e : {&a, &b, &c}) {
    if (*e) out.push_back(std::move(*e));
  }
  return out;
}

RecordBatch MakeBatch(std::vector<Field> fields, const std::vector<std::vector<Value>>& rows) {
  RecordBatch batch{Schema(std::move(fields))};
  for (const auto& row : rows) batch.AppendRow(row);
  return batch;
}

std::vector<uint8_t> Eval(const Expr& e, const RecordBatch& batch) {
  auto r = EvaluatePredicate(e, batch);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << " for " << e.ToString();
  return r.ok() ? *r : std::vector<uint8_t>{};
}

// A batch with one column `x` of `type` holding `values`.
RecordBatch OneColumn(TypePtr type, std::vector<Value> values) {
  std::vector<std::vector<Value>> rows;
  for (auto& v : values) rows.push_back({v});
  return MakeBatch({{"x", std::move(type), true}}, rows);
}

using Bits = std::vector<uint8_t>;

// ---------------------------------------------------------------------------------------------
// SQL text

TEST(ExpressionTextTest, RendersComparisonsAndLiterals) {
  EXPECT_EQ(Eq(Col("operation"), Str("DELETE"))->ToString(), "operation = 'DELETE'");
  EXPECT_EQ(Cmp(CompareOp::kNe, Col("a"), Int(-5))->ToString(), "a <> -5");
  EXPECT_EQ(Cmp(CompareOp::kLe, Col("a"), Dec(150, 10, 2))->ToString(), "a <= 1.50");
  EXPECT_EQ(Cmp(CompareOp::kGt, Col("a"), Dbl(1.5))->ToString(), "a > 1.5E0");
  EXPECT_EQ(Cmp(CompareOp::kGe, Col("a"), Dbl(1e20))->ToString(), "a >= 1e+20");
  EXPECT_EQ(Cmp(CompareOp::kLt, Col("a"), Str("it's"))->ToString(), "a < 'it''s'");
  EXPECT_EQ(Eq(Col("a"), Bool(true))->ToString(), "a = TRUE");
  EXPECT_EQ(Eq(Col("a"), Null())->ToString(), "a = NULL");
  EXPECT_EQ(Eq(Col("d"), Expr::Literal(Value::Int(19753), DataType::Date()))->ToString(),
            "d = DATE '2024-01-31'");
}

TEST(ExpressionTextTest, QuotesIdentifiersThatNeedIt) {
  EXPECT_EQ(Path({"a", "b"})->ToString(), "a.b");
  EXPECT_EQ(Col("first name")->ToString(), "`first name`");
  EXPECT_EQ(Col("a`b")->ToString(), "`a``b`");
  EXPECT_EQ(Col("null")->ToString(), "`null`");
  EXPECT_EQ(Col("Order")->ToString(), "Order");
  EXPECT_EQ(Col("1st")->ToString(), "`1st`");
  EXPECT_EQ(Path({"a.b", "c"})->ToString(), "`a.b`.c");
}

TEST(ExpressionTextTest, ParenthesizesByPrecedence) {
  auto e = Expr::And(Expr::Or(Eq(Col("a"), Int(1)), Eq(Col("b"), Int(2))),
                     Expr::Not(Expr::And(Bool(true), Col("c"))));
  EXPECT_EQ(e->ToString(), "(a = 1 OR b = 2) AND NOT (TRUE AND c)");
  auto f = Expr::Or(Expr::And(Col("a"), Col("b")), Expr::Not(Expr::Not(Col("c"))));
  EXPECT_EQ(f->ToString(), "a AND b OR NOT NOT c");
  EXPECT_EQ(Eq(Eq(Col("a"), Int(1)), Bool(false))->ToString(), "(a = 1) = FALSE");
  EXPECT_EQ(Expr::In(Col("k"), List(Int(1), Str("x"), Null()))->ToString(), "k IN (1, 'x', NULL)");
  EXPECT_EQ(Expr::In(Col("k"), List(Int(1)), true)->ToString(), "k NOT IN (1)");
  EXPECT_EQ(Expr::IsNull(Col("k"))->ToString(), "k IS NULL");
  EXPECT_EQ(Expr::IsNull(Eq(Col("k"), Int(1)), true)->ToString(), "(k = 1) IS NOT NULL");
}

TEST(ExpressionTextTest, ReferencedColumnsAreFirstPathElementsInOrder) {
  auto e = Expr::And(Expr::Or(Eq(Col("b"), Col("a")), Eq(Path({"s", "x"}), Int(1))),
                     Expr::In(Col("a"), List(Col("c"), Path({"s", "y"}))));
  EXPECT_EQ(ReferencedColumns(*e), (std::vector<std::string>{"b", "a", "s", "c"}));
  EXPECT_TRUE(ReferencedColumns(*Eq(Int(1), Int(1))).empty());
}

// ---------------------------------------------------------------------------------------------
// Date and timestamp literals

TEST(TemporalLiteralTest, ParsesDates) {
  EXPECT_EQ(*ParseDateLiteral("2024-01-31"), DaysFromCivil(2024, 1, 31));
  EXPECT_EQ(*ParseDateLiteral("1970-01-01"), 0);
  EXPECT_EQ(*ParseDateLiteral("2024-2-9"), DaysFromCivil(2024, 2, 9));
  EXPECT_EQ(*ParseDateLiteral(" 2024-02-29 "), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(*ParseDateLiteral("2024-01-31 23:59:59"), DaysFromCivil(2024, 1, 31));
  EXPECT_FALSE(ParseDateLiteral("2023-02-29").ok());
  EXPECT_FALSE(ParseDateLiteral("2024-13-01").ok());
  EXPECT_FALSE(ParseDateLiteral("2024-00-10").ok());
  EXPECT_FALSE(ParseDateLiteral("24-01-01").ok());
  EXPECT_FALSE(ParseDateLiteral("2024/01/01").ok());
  EXPECT_FALSE(ParseDateLiteral("2024-01-01x").ok());
  EXPECT_FALSE(ParseDateLiteral("").ok());
  EXPECT_EQ(ParseDateLiteral("yesterday").status().message(), "'yesterday' is not a valid date");
}

TEST(TemporalLiteralTest, ParsesTimestamps) {
  int64_t day = DaysFromCivil(2024, 1, 31) * 86400000000LL;
  int64_t ten = 10LL * 3600 * 1000000;
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31", true), day);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31 10:00:00", true), day + ten);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31T10:00:00Z", true), day + ten);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31 10:00", true), day + ten);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31 10:00:00.5", true), day + ten + 500000);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31 10:00:00.123456", true), day + ten + 123456);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31 10:00:00.123456789", true), day + ten + 123456);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31T12:00:00+02:00", true), day + ten);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31T08:30:00-0130", true), day + ten);
  EXPECT_EQ(*ParseTimestampLiteral("2024-01-31T12:00:00+02:00", false), day + 12 * 3600000000LL);
  EXPECT_FALSE(ParseTimestampLiteral("2024-01-31 24:00:00", true).ok());
  EXPECT_FALSE(ParseTimestampLiteral("2024-01-31 10:60:00", true).ok());
  EXPECT_FALSE(ParseTimestampLiteral("2024-01-31 10:00:00.", true).ok());
  EXPECT_FALSE(ParseTimestampLiteral("2024-01-31 10:00:00 PST", true).ok());
  EXPECT_FALSE(ParseTimestampLiteral("2024-01-31X10:00:00", true).ok());
}

// ---------------------------------------------------------------------------------------------
// Evaluation

TEST(EvaluateTest, IntegerComparisonsWithNulls) {
  auto batch =
      OneColumn(DataType::Int32(), {Value::Int(1), Value::Null(), Value::Int(3), Value::Int(-2)});
  EXPECT_EQ(Eval(*Eq(Col("x"), Int(3)), batch), (Bits{0, 0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kNe, Col("x"), Int(3)), batch), (Bits{1, 0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("x"), Int(1)), batch), (Bits{0, 0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLe, Col("x"), Int(1)), batch), (Bits{1, 0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Int(1)), batch), (Bits{0, 0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGe, Col("x"), Int(1)), batch), (Bits{1, 0, 1, 0}));
  // A literal on the left flips the comparison.
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Int(1), Col("x")), batch), (Bits{0, 0, 0, 1}));
  EXPECT_EQ(Eval(*Expr::Not(Eq(Col("x"), Int(3))), batch), (Bits{1, 0, 0, 1}));
  EXPECT_EQ(Eval(*Expr::IsNull(Col("x")), batch), (Bits{0, 1, 0, 0}));
  EXPECT_EQ(Eval(*Expr::IsNull(Col("x"), true), batch), (Bits{1, 0, 1, 1}));
}

TEST(EvaluateTest, EveryIntegerWidthAndInt64Extremes) {
  for (TypePtr t : {DataType::Int8(), DataType::Int16(), DataType::Int32(), DataType::Int64()}) {
    auto batch = OneColumn(t, {Value::Int(-7), Value::Int(7), Value::Null()});
    EXPECT_EQ(Eval(*Eq(Col("x"), Int(-7)), batch), (Bits{1, 0, 0})) << t->ToString();
    EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Int(1000)), batch), (Bits{0, 0, 0}));
    EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Int(-1000)), batch), (Bits{1, 1, 0}));
  }
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  auto big = OneColumn(DataType::Int64(), {Value::Int(min), Value::Int(max), Value::Int(0)});
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("x"), Int(max)), big), (Bits{1, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Int(min)), big), (Bits{0, 1, 1}));
}

TEST(EvaluateTest, ThreeValuedLogic) {
  // a: TRUE, FALSE, NULL on each row against b: TRUE, FALSE, NULL.
  std::vector<std::vector<Value>> rows;
  std::vector<Value> tri = {Value::Bool(true), Value::Bool(false), Value::Null()};
  for (const Value& a : tri) {
    for (const Value& b : tri) rows.push_back({a, b});
  }
  auto batch =
      MakeBatch({{"a", DataType::Boolean(), true}, {"b", DataType::Boolean(), true}}, rows);
  EXPECT_EQ(Eval(*Expr::And(Col("a"), Col("b")), batch), (Bits{1, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Expr::Or(Col("a"), Col("b")), batch), (Bits{1, 1, 1, 1, 0, 0, 1, 0, 0}));
  // NOT(a AND b): TRUE only where a AND b is FALSE (not NULL).
  EXPECT_EQ(Eval(*Expr::Not(Expr::And(Col("a"), Col("b"))), batch),
            (Bits{0, 1, 0, 1, 1, 1, 0, 1, 0}));
  // NOT(a OR b): TRUE only where both are FALSE.
  EXPECT_EQ(Eval(*Expr::Not(Expr::Or(Col("a"), Col("b"))), batch),
            (Bits{0, 0, 0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Expr::IsNull(Expr::And(Col("a"), Col("b"))), batch),
            (Bits{0, 0, 1, 0, 0, 0, 1, 0, 1}));
  EXPECT_EQ(Eval(*Eq(Col("a"), Bool(false)), batch), (Bits{0, 0, 0, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("a"), Col("b")), batch), (Bits{1, 0, 0, 0, 1, 0, 0, 0, 0}));
  // NULL literals in boolean positions.
  EXPECT_EQ(Eval(*Expr::Or(Null(), Col("a")), batch), (Bits{1, 1, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Expr::Not(Null()), batch), Bits(9, 0));
}

TEST(EvaluateTest, ComparisonWithNullLiteralIsNeverTrue) {
  auto batch = OneColumn(DataType::Int64(), {Value::Int(1), Value::Null()});
  EXPECT_EQ(Eval(*Eq(Col("x"), Null()), batch), (Bits{0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kNe, Col("x"), Null()), batch), (Bits{0, 0}));
  EXPECT_EQ(Eval(*Expr::Not(Eq(Col("x"), Null())), batch), (Bits{0, 0}));
  EXPECT_EQ(Eval(*Expr::IsNull(Eq(Col("x"), Null())), batch), (Bits{1, 1}));
}

TEST(EvaluateTest, LiteralOnlyConditionsApplyToEveryRow) {
  auto batch = OneColumn(DataType::Int64(), {Value::Int(1), Value::Null(), Value::Int(2)});
  EXPECT_EQ(Eval(*Eq(Int(1), Int(1)), batch), (Bits{1, 1, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Str("b"), Str("a")), batch), (Bits{0, 0, 0}));
  EXPECT_EQ(Eval(*Bool(true), batch), (Bits{1, 1, 1}));
  EXPECT_EQ(Eval(*Eq(Dec(150, 3, 2), Dbl(1.5)), batch), (Bits{1, 1, 1}));
  EXPECT_EQ(Eval(*Expr::IsNull(Null()), batch), (Bits{1, 1, 1}));
}

TEST(EvaluateTest, DecimalsCompareNumericallyAcrossScalesAndTypes) {
  auto batch =
      OneColumn(DataType::Decimal(10, 2), {Value::Decimal(150), Value::Decimal(151), Value::Null(),
                                           Value::Decimal(-200), Value::Decimal(200)});
  // decimal(10,2) 1.50 = 1.5 as decimal(2,1), as a double, and = 150 / 100 nowhere else.
  EXPECT_EQ(Eval(*Eq(Col("x"), Dec(15, 2, 1)), batch), (Bits{1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Dec(1500, 5, 3)), batch), (Bits{1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Dbl(1.5)), batch), (Bits{1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Int(2)), batch), (Bits{0, 0, 0, 0, 1}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Int(-2)), batch), (Bits{0, 0, 0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Int(150)), batch), (Bits{0, 0, 0, 0, 0}));
  // A literal with more fractional digits than the column: 1.505 lies between 1.50 and 1.51.
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Dec(1505, 4, 3)), batch), (Bits{0, 1, 0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("x"), Dec(1505, 4, 3)), batch), (Bits{1, 0, 0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGe, Dec(1505, 4, 3), Col("x")), batch), (Bits{1, 0, 0, 1, 0}));
}

TEST(EvaluateTest, DecimalColumnsAgainstEachOtherAndIntegers) {
  auto batch = MakeBatch({{"d2", DataType::Decimal(10, 2), true},
                          {"d0", DataType::Decimal(5, 0), true},
                          {"i", DataType::Int32(), true}},
                         {{Value::Decimal(300), Value::Decimal(3), Value::Int(3)},
                          {Value::Decimal(301), Value::Decimal(3), Value::Int(4)},
                          {Value::Decimal(-100), Value::Null(), Value::Int(-1)}});
  EXPECT_EQ(Eval(*Eq(Col("d2"), Col("d0")), batch), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("d2"), Col("d0")), batch), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Col("d2"), Col("i")), batch), (Bits{1, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("i"), Col("d2")), batch), (Bits{0, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("i"), Col("d2")), batch), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Col("i"), Dec(30, 2, 1)), batch), (Bits{1, 0, 0}));
}

TEST(EvaluateTest, DecimalsNearThe38DigitLimitDoNotOverflow) {
  Int128 huge = PowerOfTen(37) * 9;  // 9e37 at scale 0
  auto batch = MakeBatch(
      {{"big", DataType::Decimal(38, 0), true}, {"tiny", DataType::Decimal(38, 37), true}},
      {{Value::Decimal(huge), Value::Decimal(5)},
       {Value::Decimal(-huge), Value::Decimal(-5)},
       {Value::Decimal(0), Value::Decimal(0)}});
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("big"), Col("tiny")), batch), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("big"), Col("tiny")), batch), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Col("big"), Col("tiny")), batch), (Bits{0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("big"), Dec(1, 38, 37)), batch), (Bits{1, 0, 0}));
}

TEST(EvaluateTest, FloatingPointAgainstIntegersAndNaN) {
  double nan = std::nan("");
  auto batch =
      OneColumn(DataType::Double(), {Value::Double(2.0), Value::Double(2.5), Value::Double(nan),
                                     Value::Null(), Value::Double(-0.0)});
  EXPECT_EQ(Eval(*Eq(Col("x"), Int(2)), batch), (Bits{1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Dec(24, 2, 1)), batch), (Bits{0, 1, 1, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Dbl(nan)), batch), (Bits{0, 0, 1, 0, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Dbl(0.0)), batch), (Bits{0, 0, 0, 0, 1}));
  auto floats = OneColumn(DataType::Float(), {Value::Double(0.5), Value::Double(3.0)});
  EXPECT_EQ(Eval(*Eq(Col("x"), Dec(5, 1, 1)), floats), (Bits{1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGe, Col("x"), Int(3)), floats), (Bits{0, 1}));
}

TEST(EvaluateTest, StringsCompareBytewise) {
  auto batch =
      OneColumn(DataType::String(), {Value::Bytes("DELETE"), Value::Bytes("delete"), Value::Null(),
                                     Value::Bytes("\xC3\xA9"), Value::Bytes("")});
  EXPECT_EQ(Eval(*Eq(Col("x"), Str("DELETE")), batch), (Bits{1, 0, 0, 0, 0}));
  // Lower case and UTF-8 bytes sort after upper case ASCII.
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Str("Z")), batch), (Bits{0, 1, 0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Str("z")), batch), (Bits{0, 0, 0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Col("x"), Str("")), batch), (Bits{0, 0, 0, 0, 1}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("x"), Str("DELETE!")), batch), (Bits{1, 0, 0, 0, 1}));
  auto two = MakeBatch({{"a", DataType::String(), true}, {"b", DataType::String(), true}},
                       {{Value::Bytes("x"), Value::Bytes("x")},
                        {Value::Bytes("x"), Value::Bytes("y")},
                        {Value::Null(), Value::Bytes("y")}});
  EXPECT_EQ(Eval(*Eq(Col("a"), Col("b")), two), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kNe, Col("a"), Col("b")), two), (Bits{0, 1, 0}));
}

TEST(EvaluateTest, DatesAndTimestampsAgainstStringLiterals) {
  int64_t d31 = DaysFromCivil(2024, 1, 31);
  auto dates = OneColumn(DataType::Date(), {Value::Int(d31), Value::Int(d31 + 1), Value::Null()});
  EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-01-31")), dates), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("x"), Str("2024-01-31")), dates), (Bits{0, 1, 0}));
  // A time part is dropped when the string is read as a date, as SQL's cast does.
  EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-02-01 10:00:00")), dates), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Str("2024-01-31"), Col("x")), dates), (Bits{0, 1, 0}));

  int64_t midnight = d31 * 86400000000LL;
  int64_t ten = midnight + 10LL * 3600 * 1000000;
  for (TypePtr t : {DataType::Timestamp(), DataType::TimestampNtz()}) {
    auto ts = OneColumn(t, {Value::Int(midnight), Value::Int(ten), Value::Int(ten + 1)});
    EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-01-31")), ts), (Bits{1, 0, 0}));
    EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-01-31 10:00:00")), ts), (Bits{0, 1, 0}));
    EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-01-31T10:00:00Z")), ts), (Bits{0, 1, 0}));
    EXPECT_EQ(Eval(*Eq(Col("x"), Str("2024-01-31 10:00:00.000001")), ts), (Bits{0, 0, 1}));
    EXPECT_EQ(Eval(*Cmp(CompareOp::kGe, Col("x"), Str("2024-01-31 10:00")), ts), (Bits{0, 1, 1}));
    EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Str("2024-01-31"), Str("2024-01-31 10:00:00"))), ts),
              (Bits{1, 1, 0}));
  }
}

TEST(EvaluateTest, DatesAgainstTimestampColumns) {
  int64_t d = DaysFromCivil(2024, 1, 31);
  int64_t midnight = d * 86400000000LL;
  auto batch = MakeBatch({{"d", DataType::Date(), true},
                          {"ts", DataType::Timestamp(), true},
                          {"ntz", DataType::TimestampNtz(), true}},
                         {{Value::Int(d), Value::Int(midnight), Value::Int(midnight)},
                          {Value::Int(d), Value::Int(midnight + 1), Value::Int(midnight - 1)},
                          {Value::Null(), Value::Int(0), Value::Int(0)}});
  EXPECT_EQ(Eval(*Eq(Col("d"), Col("ts")), batch), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kLt, Col("d"), Col("ts")), batch), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGt, Col("ntz"), Col("d")), batch), (Bits{0, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kGe, Col("ts"), Col("ntz")), batch), (Bits{1, 1, 1}));
  auto date_literal = Expr::Literal(Value::Int(d), DataType::Date());
  EXPECT_EQ(Eval(*Eq(Col("ts"), std::move(date_literal)), batch), (Bits{1, 0, 0}));
}

TEST(EvaluateTest, InListsFollowSqlNullRules) {
  auto batch = OneColumn(DataType::Int64(), {Value::Int(1), Value::Int(2), Value::Null()});
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Int(1), Int(3))), batch), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Int(1), Int(3)), true), batch), (Bits{0, 1, 0}));
  // x IN (1, NULL) is TRUE for 1 and NULL (not FALSE) for 2.
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Int(1), Null())), batch), (Bits{1, 0, 0}));
  EXPECT_EQ(Eval(*Expr::IsNull(Expr::In(Col("x"), List(Int(1), Null()))), batch), (Bits{0, 1, 1}));
  // So x NOT IN (1, NULL) is never TRUE.
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Int(1), Null()), true), batch), (Bits{0, 0, 0}));
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Int(3), Null()), true), batch), (Bits{0, 0, 0}));
  // Mixed numeric items each compare in their own domain.
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Dec(20, 2, 1), Dbl(7.0))), batch), (Bits{0, 1, 0}));
  auto strings = OneColumn(DataType::String(), {Value::Bytes("u"), Value::Bytes("d")});
  EXPECT_EQ(Eval(*Expr::In(Col("x"), List(Str("d"), Str("t"))), strings), (Bits{0, 1}));
}

TEST(EvaluateTest, StructPathsReadNestedFieldsAndInheritNulls) {
  auto inner = DataType::Struct({{"op", DataType::String(), true}, {"n", DataType::Int32(), true}});
  auto outer = DataType::Struct({{"meta", inner, true}});
  auto batch = MakeBatch(
      {{"id", DataType::Int64(), true}, {"after", outer, true}},
      {{Value::Int(1), Value::Nested({Value::Nested({Value::Bytes("d"), Value::Int(5)})})},
       {Value::Int(2), Value::Nested({Value::Nested({Value::Bytes("u"), Value::Null()})})},
       {Value::Int(3), Value::Null()},
       {Value::Int(4), Value::Nested({Value::Null()})}});
  EXPECT_EQ(Eval(*Eq(Path({"after", "meta", "op"}), Str("d")), batch), (Bits{1, 0, 0, 0}));
  EXPECT_EQ(Eval(*Cmp(CompareOp::kNe, Path({"after", "meta", "op"}), Str("d")), batch),
            (Bits{0, 1, 0, 0}));
  EXPECT_EQ(Eval(*Expr::IsNull(Path({"after", "meta", "op"})), batch), (Bits{0, 0, 1, 1}));
  EXPECT_EQ(Eval(*Expr::IsNull(Path({"after", "meta", "n"})), batch), (Bits{0, 1, 1, 1}));
  EXPECT_EQ(Eval(*Expr::IsNull(Path({"after", "meta"})), batch), (Bits{0, 0, 1, 1}));
  EXPECT_EQ(Eval(*Expr::IsNull(Col("after")), batch), (Bits{0, 0, 1, 0}));
  // Names resolve case-insensitively at every level.
  EXPECT_EQ(Eval(*Eq(Path({"AFTER", "Meta", "N"}), Int(5)), batch), (Bits{1, 0, 0, 0}));

  auto missing = EvaluatePredicate(*Eq(Path({"after", "meta", "x"}), Int(1)), batch);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("'x' not found in struct 'meta'"), std::string::npos)
      << missing.status().message();
  auto not_struct = EvaluatePredicate(*Eq(Path({"id", "x"}), Int(1)), batch);
  ASSERT_FALSE(not_struct.ok());
  EXPECT_NE(not_struct.status().message().find("bigint, not a struct"), std::string::npos)
      << not_struct.status().message();
}

TEST(EvaluateTest, ExactNamesWinOverCaseInsensitiveOnes) {
  auto batch = MakeBatch({{"Op", DataType::String(), true}, {"op", DataType::String(), true}},
                         {{Value::Bytes("a"), Value::Bytes("b")}});
  EXPECT_EQ(Eval(*Eq(Col("op"), Str("b")), batch), (Bits{1}));
  EXPECT_EQ(Eval(*Eq(Col("Op"), Str("a")), batch), (Bits{1}));
  auto ambiguous = EvaluatePredicate(*Eq(Col("OP"), Str("a")), batch);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("ambiguous"), std::string::npos);
}

TEST(EvaluateTest, BooleanNodesCompareAsValues) {
  auto batch = OneColumn(DataType::Int64(), {Value::Int(1), Value::Int(2), Value::Null()});
  EXPECT_EQ(Eval(*Eq(Eq(Col("x"), Int(1)), Bool(false)), batch), (Bits{0, 1, 0}));
  EXPECT_EQ(Eval(*Eq(Expr::IsNull(Col("x")), Bool(true)), batch), (Bits{0, 0, 1}));
}

TEST(EvaluateTest, TypeErrorsNameBothTypesEvenForAnEmptyBatch) {
  RecordBatch empty{Schema({{"amount", DataType::Int32(), true},
                            {"name", DataType::String(), true},
                            {"d", DataType::Date(), true},
                            {"s", DataType::Struct({{"a", DataType::Int32(), true}}), true}})};
  ASSERT_EQ(empty.num_rows(), 0);
  auto r = EvaluatePredicate(*Eq(Col("amount"), Str("abc")), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "cannot compare int with string: amount = 'abc'");

  r = EvaluatePredicate(*Expr::Or(Expr::IsNull(Col("d")), Eq(Col("d"), Col("name"))), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot compare date with string: d = name");

  r = EvaluatePredicate(*Expr::In(Col("name"), List(Str("a"), Int(1))), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot compare string with bigint: name IN ('a', 1)");

  r = EvaluatePredicate(*Eq(Col("s"), Col("s")), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot compare struct<a:int> with struct<a:int>: s = s");

  r = EvaluatePredicate(*Eq(Col("amount"), Bool(true)), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("int with boolean"), std::string::npos);

  r = EvaluatePredicate(*Eq(Col("d"), Str("2024-02-30")), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "'2024-02-30' is not a valid date: d = '2024-02-30'");

  r = EvaluatePredicate(*Eq(Col("nope"), Int(1)), empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "column 'nope' not found in the input (columns: amount, name, d, s)");

  // Valid conditions evaluate to nothing.
  auto ok = EvaluatePredicate(*Eq(Col("amount"), Dec(1, 2, 1)), empty);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->empty());
}

TEST(EvaluateTest, ConditionsMustBeBoolean) {
  Schema schema({{"amount", DataType::Int32(), true}, {"flag", DataType::Boolean(), true}});
  EXPECT_TRUE(ValidatePredicate(*Col("flag"), schema).ok());
  EXPECT_TRUE(ValidatePredicate(*Expr::And(Col("flag"), Null()), schema).ok());
  Status s = ValidatePredicate(*Col("amount"), schema);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "expected a boolean condition, found int: amount");
  s = ValidatePredicate(*Expr::And(Col("flag"), Str("x")), schema);
  EXPECT_EQ(s.message(), "expected a boolean condition, found string: 'x'");
  EXPECT_FALSE(ValidatePredicate(*Expr::Not(Int(1)), schema).ok());
  EXPECT_FALSE(ValidatePredicate(*Eq(Col("Flag"), Col("nothing")), schema).ok());
  EXPECT_TRUE(ValidatePredicate(*Eq(Col("Flag"), Bool(true)), schema).ok());
  // A literal whose value does not have its type's shape.
  EXPECT_FALSE(ValidatePredicate(
                   *Eq(Col("amount"), Expr::Literal(Value::Bytes("1"), DataType::Int64())), schema)
                   .ok());
  // A malformed tree is an error, not a crash.
  auto bad = std::make_unique<Expr>();
  bad->kind = ExprKind::kCompare;
  bad->children.push_back(Col("amount"));
  EXPECT_FALSE(ValidatePredicate(*bad, schema).ok());
}

TEST(EvaluateTest, LargeBatchMatchesRowByRowResults) {
  constexpr int64_t kRows = 100000;
  RecordBatch batch{Schema({{"id", DataType::Int64(), true},
                            {"op", DataType::String(), true},
                            {"amount", DataType::Decimal(12, 2), true}})};
  const char* ops[] = {"c", "u", "d"};
  for (int64_t i = 0; i < kRows; ++i) {
    batch.AppendRow({i % 97 == 0 ? Value::Null() : Value::Int(i), Value::Bytes(ops[i % 3]),
                     i % 5 == 0 ? Value::Null() : Value::Decimal(i % 1000 * 10)});
  }
  // op = 'd' OR (amount > 50.5 AND id NOT IN (10, 20, NULL-free))
  auto e = Expr::Or(Eq(Col("op"), Str("d")),
                    Expr::And(Cmp(CompareOp::kGt, Col("amount"), Dec(505, 3, 1)),
                              Expr::In(Col("id"), List(Int(10), Int(20)), true)));
  auto result = Eval(*e, batch);
  ASSERT_EQ(static_cast<int64_t>(result.size()), kRows);
  int64_t trues = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    bool is_d = i % 3 == 2;
    bool amount_null = i % 5 == 0, id_null = i % 97 == 0;
    bool amount_gt = !amount_null && (i % 1000 * 10) > 5050;
    bool id_ok = !id_null && i != 10 && i != 20;
    bool expected = is_d || (amount_gt && id_ok);
    ASSERT_EQ(result[i], expected ? 1 : 0) << "row " << i;
    trues += expected;
  }
  EXPECT_GT(trues, kRows / 3);
}

}  // namespace
}  // namespace cdclake::data
