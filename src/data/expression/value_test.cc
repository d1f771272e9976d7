// Tests for value expressions: ResultType's rules and messages, and EvaluateValue over small
// batches with NULLs, decimals, casts, CASE, COALESCE, string functions and overflow.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "data/decimal.h"
#include "data/expression.h"

namespace cdclake::data {
namespace {

using E = std::unique_ptr<Expr>;

E Col(std::string name) {
  return Expr::Column({std::move(name)});
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
E Null() {
  return Expr::Literal(Value::Null(), nullptr);
}
E Arith(ArithOp op, E l, E r) {
  return Expr::Arithmetic(op, std::move(l), std::move(r));
}
E Fn(std::string_view name, E a, E b = nullptr, E c = nullptr) {
  std::vector<E> args;
  for (E* e : {&a, &b, &c}) {
    if (*e) args.push_back(std::move(*e));
  }
  return Expr::Function(name, std::move(args));
}

// i INT, l BIGINT, d DECIMAL(10,2), x DOUBLE, s STRING, t DATE; four rows, the last all NULL.
RecordBatch Sample() {
  Schema schema({{"i", DataType::Int32(), true},
                 {"l", DataType::Int64(), true},
                 {"d", DataType::Decimal(10, 2), true},
                 {"x", DataType::Double(), true},
                 {"s", DataType::String(), true},
                 {"t", DataType::Date(), true}});
  RecordBatch batch(schema);
  batch.AppendRow({Value::Int(7), Value::Int(100), Value::Decimal(1250), Value::Double(1.5),
                   Value::Bytes(" Ab "), Value::Int(19753)});
  batch.AppendRow({Value::Int(-3), Value::Int(std::numeric_limits<int64_t>::max()),
                   Value::Decimal(-5), Value::Double(0), Value::Bytes("héllo"), Value::Int(0)});
  batch.AppendRow({Value::Int(0), Value::Int(0), Value::Decimal(0), Value::Double(-2),
                   Value::Bytes("12.5"), Value::Int(-1)});
  batch.AppendRow({Value(), Value(), Value(), Value(), Value(), Value()});
  return batch;
}

std::string TypeOf(const Expr& e) {
  Result<TypePtr> t = ResultType(e, Sample().schema());
  if (!t.ok()) return "error: " + t.status().message();
  return *t == nullptr ? "null" : (*t)->ToString();
}

// A value as text: strings bare, doubles shortest, decimals at their scale.
std::string Text(const Column& c, int64_t i) {
  if (c.IsNull(i)) return "NULL";
  Value v = c.GetValue(i);
  if (v.is_bytes()) return v.bytes();
  if (v.is_decimal()) return FormatDecimal(v.decimal_value(), c.type()->scale());
  if (v.is_double()) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v.double_value());
    return std::string(buf, r.ptr);
  }
  return v.DebugString();
}

// Every row of the value, "NULL" for nulls.
std::vector<std::string> Eval(const Expr& e) {
  Result<Column> c = EvaluateValue(e, Sample());
  EXPECT_TRUE(c.ok()) << e.ToString() << ": " << c.status().ToString();
  std::vector<std::string> out;
  if (!c.ok()) return out;
  EXPECT_EQ(c->length(), 4);
  for (int64_t i = 0; i < c->length(); ++i) {
    out.push_back(Text(*c, i));
  }
  return out;
}

std::vector<std::string> Strings(std::vector<std::string> v) {
  return v;
}

TEST(ValueTypeTest, ArithmeticFollowsSparkRules) {
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("i"), Col("i"))), "bigint");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kMod, Col("i"), Int(2))), "bigint");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kDiv, Col("i"), Col("l"))), "double");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kMul, Col("i"), Col("x"))), "double");
  // decimal(10,2) + decimal(10,2): scale 2, precision 8 + 2 + 1.
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("d"), Col("d"))), "decimal(11,2)");
  // An INT counts as decimal(10,0); a literal by its digits.
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("d"), Col("i"))), "decimal(13,2)");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("d"), Int(1))), "decimal(11,2)");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kMul, Col("d"), Col("d"))), "decimal(21,4)");
  // decimal(10,2) / decimal(10,2): scale max(6, 2+10+1) = 13, precision 10-2+2+13 = 23.
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kDiv, Col("d"), Col("d"))), "decimal(23,13)");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kMod, Col("d"), Col("i"))), "decimal(10,2)");
  // Past 38 digits the scale gives way, down to 6.
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kMul, Dec(1, 38, 10), Dec(1, 38, 10))), "decimal(38,6)");
  // A scale under 6 is kept even then.
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Dec(1, 38, 2), Dec(1, 38, 2))), "decimal(38,2)");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("d"), Col("x"))), "double");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("i"), Null())), "bigint");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Null(), Null())), "null");
  EXPECT_EQ(TypeOf(*Expr::Negate(Col("i"))), "bigint");
  EXPECT_EQ(TypeOf(*Expr::Negate(Col("d"))), "decimal(10,2)");
}

TEST(ValueTypeTest, FunctionsCastsAndBranches) {
  EXPECT_EQ(TypeOf(*Expr::Concat(Col("s"), Col("i"))), "string");
  EXPECT_EQ(TypeOf(*Fn("UPPER", Col("s"))), "string");
  EXPECT_EQ(TypeOf(*Fn("length", Col("s"))), "int");
  EXPECT_EQ(TypeOf(*Fn("abs", Col("i"))), "bigint");
  EXPECT_EQ(TypeOf(*Expr::Cast(Col("s"), DataType::Date())), "date");
  EXPECT_EQ(TypeOf(*Fn("coalesce", Col("i"), Col("l"))), "bigint");
  EXPECT_EQ(TypeOf(*Fn("coalesce", Col("i"), Col("d"))), "decimal(12,2)");
  EXPECT_EQ(TypeOf(*Fn("coalesce", Null(), Col("x"), Col("i"))), "double");
  EXPECT_EQ(TypeOf(*Fn("coalesce", Col("s"), Col("i"))), "string");
  std::vector<E> when, then;
  when.push_back(Expr::Compare(CompareOp::kGt, Col("i"), Int(0)));
  then.push_back(Col("t"));
  EXPECT_EQ(TypeOf(*Expr::Case(nullptr, std::move(when), std::move(then),
                               Expr::Literal(Value::Int(0), DataType::Timestamp()))),
            "timestamp");
}

TEST(ValueTypeTest, ErrorsNameTheExpressionAndTypes) {
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("s"), Int(1))),
            "error: cannot apply '+' to string and bigint: s + 1");
  EXPECT_EQ(TypeOf(*Expr::Negate(Col("t"))), "error: cannot negate date: -t");
  EXPECT_EQ(TypeOf(*Expr::Cast(Col("t"), DataType::Int32())),
            "error: cannot cast date to int: CAST(t AS int)");
  EXPECT_EQ(TypeOf(*Fn("coalesce", Col("t"), Col("i"))),
            "error: COALESCE arguments have incompatible types date and int: coalesce(t, i)");
  EXPECT_EQ(TypeOf(*Fn("upper", Col("s"), Col("s"))),
            "error: upper takes 1 argument, found 2: upper(s, s)");
  EXPECT_EQ(TypeOf(*Fn("substring", Col("s"), Col("x"))),
            "error: substring expects an integer position, found double: substring(s, x)");
  EXPECT_EQ(TypeOf(*Fn("abs", Col("s"))), "error: abs expects a number, found string: abs(s)");
  EXPECT_EQ(TypeOf(*Fn("soundex", Col("s"))),
            "error: unknown function 'soundex' (functions: abs, coalesce, concat, length, lower, "
            "substr, substring, trim, upper): soundex(s)");
  std::vector<E> when, then;
  when.push_back(Col("i"));
  then.push_back(Int(1));
  EXPECT_EQ(TypeOf(*Expr::Case(nullptr, std::move(when), std::move(then), nullptr)),
            "error: expected a boolean condition, found int: i");
  EXPECT_EQ(TypeOf(*Arith(ArithOp::kAdd, Col("nope"), Int(1))),
            "error: column 'nope' not found in the input (columns: i, l, d, x, s, t)");
}

TEST(EvaluateValueTest, IntegerArithmeticWithNullsAndDivisionByZero) {
  EXPECT_EQ(Eval(*Arith(ArithOp::kAdd, Col("i"), Int(1))), Strings({"8", "-2", "1", "NULL"}));
  // Integers divide as DOUBLE; by zero is NULL.
  EXPECT_EQ(Eval(*Arith(ArithOp::kDiv, Int(7), Col("i"))),
            Strings({"1", "-2.3333333333333335", "NULL", "NULL"}));
  EXPECT_EQ(Eval(*Arith(ArithOp::kMod, Int(7), Col("i"))), Strings({"0", "1", "NULL", "NULL"}));
  EXPECT_EQ(Eval(*Expr::Negate(Col("i"))), Strings({"-7", "3", "0", "NULL"}));
  EXPECT_EQ(Eval(*Arith(ArithOp::kAdd, Col("i"), Null())),
            Strings({"NULL", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(Eval(*Arith(ArithOp::kMul, Col("x"), Col("i"))), Strings({"10.5", "-0", "-0", "NULL"}));
}

TEST(EvaluateValueTest, OverflowIsAnErrorNamingTheExpression) {
  E e = Arith(ArithOp::kAdd, Col("l"), Int(1));
  Result<Column> r = EvaluateValue(*e, Sample());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(), "integer overflow in l + 1");
  E neg = Expr::Negate(Int(std::numeric_limits<int64_t>::min()));
  EXPECT_FALSE(EvaluateValue(*neg, Sample()).ok());
  E dec = Arith(ArithOp::kMul, Dec(PowerOfTen(37), 38, 0), Int(100));
  r = EvaluateValue(*dec, Sample());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 10000000000000000000000000000000000000 * 100: the result does "
            "not fit decimal(38,0)");
  // Inside a condition the error surfaces too.
  E cond = Expr::Compare(CompareOp::kGt, Arith(ArithOp::kMul, Col("l"), Int(2)), Int(0));
  Result<std::vector<uint8_t>> p = EvaluatePredicate(*cond, Sample());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "integer overflow in l * 2");
}

TEST(EvaluateValueTest, DecimalArithmeticKeepsScaleAndRounds) {
  // 12.50 + 7 = 19.50 at decimal(13,2): unscaled 1950.
  E add = Arith(ArithOp::kAdd, Col("d"), Col("i"));
  EXPECT_EQ(Eval(*add)[0], "19.50");
  EXPECT_EQ(Eval(*add)[1], "-3.05");
  // d / 3: the literal counts as decimal(1,0), so scale max(6, 2+1+1) = 6, precision 8+0+6.
  E div = Arith(ArithOp::kDiv, Col("d"), Int(3));
  EXPECT_EQ(TypeOf(*div), "decimal(14,6)");
  std::vector<std::string> q = Eval(*div);
  EXPECT_EQ(q[0], "4.166667");   // 4.1666666.. rounds up
  EXPECT_EQ(q[1], "-0.016667");  // -0.016666.. rounds away from 0
  E by_zero = Arith(ArithOp::kDiv, Col("d"), Col("d"));
  EXPECT_EQ(Eval(*by_zero)[2], "NULL");
  E mul = Arith(ArithOp::kMul, Col("d"), Dec(15, 2, 1));  // * 1.5
  EXPECT_EQ(Eval(*mul)[0], "18.750");
  E mod = Arith(ArithOp::kMod, Col("d"), Int(5));
  EXPECT_EQ(Eval(*mod)[0], "2.50");
  E neg_mod = Arith(ArithOp::kMod, Col("d"), Int(-3));
  EXPECT_EQ(Eval(*neg_mod)[1], "-0.05");  // the sign of the dividend
}

TEST(EvaluateValueTest, CastsGiveNullForValuesThatDoNotConvert) {
  EXPECT_EQ(Eval(*Expr::Cast(Col("s"), DataType::Int32())),
            Strings({"NULL", "NULL", "12", "NULL"}));
  E to_dec = Expr::Cast(Col("s"), DataType::Decimal(5, 0));
  EXPECT_EQ(Eval(*to_dec)[2], "13");  // 12.5 rounds half up
  EXPECT_EQ(Eval(*Expr::Cast(Col("d"), DataType::String())),
            Strings({"12.50", "-0.05", "0.00", "NULL"}));
  EXPECT_EQ(Eval(*Expr::Cast(Col("x"), DataType::String())),
            Strings({"1.5", "0.0", "-2.0", "NULL"}));
  EXPECT_EQ(Eval(*Expr::Cast(Col("t"), DataType::String())),
            Strings({"2024-01-31", "1970-01-01", "1969-12-31", "NULL"}));
  EXPECT_EQ(Eval(*Expr::Cast(Col("t"), DataType::Timestamp()))[0],
            std::to_string(int64_t{19753} * 86400 * 1000000));
  EXPECT_EQ(Eval(*Expr::Cast(Col("l"), DataType::Int8())),
            Strings({"100", "NULL", "0", "NULL"}));  // out of range: NULL, not wrapped
  EXPECT_EQ(Eval(*Expr::Cast(Col("i"), DataType::Boolean())),
            Strings({"true", "true", "false", "NULL"}));
  E ts = Expr::Cast(Str("2024-01-31 10:00:00.5"), DataType::Timestamp());
  EXPECT_EQ(Eval(*Expr::Cast(std::move(ts), DataType::String()))[0], "2024-01-31 10:00:00.5");
  EXPECT_EQ(Eval(*Expr::Cast(Str("not a date"), DataType::Date()))[0], "NULL");
  EXPECT_EQ(Eval(*Expr::Cast(Str(" yes "), DataType::Boolean()))[0], "true");
  EXPECT_EQ(Eval(*Expr::Cast(Dbl(1e10), DataType::String()))[0], "1.0E10");
  EXPECT_EQ(Eval(*Expr::Cast(Dbl(std::nan("")), DataType::Int64()))[0], "NULL");
}

TEST(EvaluateValueTest, StringFunctions) {
  EXPECT_EQ(Eval(*Fn("upper", Col("s"))), Strings({" AB ", "HéLLO", "12.5", "NULL"}));
  EXPECT_EQ(Eval(*Fn("lower", Col("s")))[0], " ab ");
  EXPECT_EQ(Eval(*Fn("trim", Col("s")))[0], "Ab");
  EXPECT_EQ(Eval(*Fn("length", Col("s"))), Strings({"4", "5", "4", "NULL"}));
  EXPECT_EQ(Eval(*Fn("substring", Col("s"), Int(2), Int(3)))[1], "éll");
  EXPECT_EQ(Eval(*Fn("substring", Col("s"), Int(-3)))[1], "llo");
  EXPECT_EQ(Eval(*Fn("substr", Col("s"), Int(0), Int(2)))[1], "hé");
  EXPECT_EQ(Eval(*Fn("substring", Col("s"), Int(9)))[1], "");
  EXPECT_EQ(Eval(*Fn("substring", Col("s"), Int(1), Int(-1)))[1], "");
  EXPECT_EQ(Eval(*Fn("substring", Col("s"), Null()))[1], "NULL");
  EXPECT_EQ(Eval(*Fn("concat", Col("s"), Str("-"), Col("i"))),
            Strings({" Ab -7", "héllo--3", "12.5-0", "NULL"}));
  EXPECT_EQ(Eval(*Expr::Concat(Str("v"), Col("d")))[0], "v12.50");
  EXPECT_EQ(Eval(*Fn("abs", Col("i"))), Strings({"7", "3", "0", "NULL"}));
}

TEST(EvaluateValueTest, CoalesceAndCase) {
  E co = Fn("coalesce", Col("i"), Int(-1));
  EXPECT_EQ(Eval(*co), Strings({"7", "-3", "0", "-1"}));
  // Searched CASE: first true WHEN wins; no ELSE gives NULL.
  std::vector<E> when, then;
  when.push_back(Expr::Compare(CompareOp::kGt, Col("i"), Int(0)));
  then.push_back(Str("pos"));
  when.push_back(Expr::Compare(CompareOp::kLt, Col("i"), Int(0)));
  then.push_back(Str("neg"));
  E searched = Expr::Case(nullptr, std::move(when), std::move(then), nullptr);
  EXPECT_EQ(Eval(*searched), Strings({"pos", "neg", "NULL", "NULL"}));
  // Simple CASE with ELSE; branches unify to DECIMAL.
  std::vector<E> w2, t2;
  w2.push_back(Int(7));
  t2.push_back(Col("d"));
  E simple = Expr::Case(Col("i"), std::move(w2), std::move(t2), Int(0));
  EXPECT_EQ(TypeOf(*simple), "decimal(22,2)");  // BIGINT counts as decimal(20,0)
  EXPECT_EQ(Eval(*simple), Strings({"12.50", "0.00", "0.00", "0.00"}));
  // A branch is evaluated only for its rows: l * 2 would overflow on row 1.
  std::vector<E> w3, t3;
  w3.push_back(Expr::Compare(CompareOp::kLt, Col("l"), Int(1000)));
  t3.push_back(Arith(ArithOp::kMul, Col("l"), Int(2)));
  E guarded = Expr::Case(nullptr, std::move(w3), std::move(t3), Int(-1));
  EXPECT_EQ(Eval(*guarded), Strings({"200", "-1", "0", "-1"}));
}

TEST(EvaluateValueTest, ValuesInsideConditions) {
  // upper(s) = ' AB ' and i + 1 > 0 as predicates.
  E c1 = Expr::Compare(CompareOp::kEq, Fn("upper", Col("s")), Str(" AB "));
  EXPECT_EQ(*EvaluatePredicate(*c1, Sample()), (std::vector<uint8_t>{1, 0, 0, 0}));
  E c2 = Expr::Compare(CompareOp::kGt, Arith(ArithOp::kAdd, Col("i"), Int(1)), Col("i"));
  EXPECT_EQ(*EvaluatePredicate(*c2, Sample()), (std::vector<uint8_t>{1, 1, 1, 0}));
  E c3 = Expr::IsNull(Arith(ArithOp::kDiv, Col("l"), Col("i")));
  EXPECT_EQ(*EvaluatePredicate(*c3, Sample()), (std::vector<uint8_t>{0, 0, 1, 1}));
  std::vector<E> in;
  in.push_back(Int(8));
  in.push_back(Int(1));
  E c4 = Expr::In(Arith(ArithOp::kAdd, Col("i"), Int(1)), std::move(in));
  EXPECT_EQ(*EvaluatePredicate(*c4, Sample()), (std::vector<uint8_t>{1, 0, 1, 0}));
  // A boolean-valued COALESCE as the whole condition.
  E c5 = Fn("coalesce", Expr::Compare(CompareOp::kGt, Col("i"), Int(0)),
            Expr::Literal(Value::Bool(true), DataType::Boolean()));
  EXPECT_EQ(*EvaluatePredicate(*c5, Sample()), (std::vector<uint8_t>{1, 0, 0, 1}));
  EXPECT_TRUE(ValidatePredicate(*c2, Sample().schema()).ok());
  E not_bool = Arith(ArithOp::kAdd, Col("i"), Int(1));
  EXPECT_EQ(ValidatePredicate(*not_bool, Sample().schema()).message(),
            "expected a boolean condition, found bigint: i + 1");
  // A comparison as a value.
  E flag = Expr::Compare(CompareOp::kGt, Col("i"), Int(0));
  EXPECT_EQ(Eval(*flag), Strings({"true", "false", "false", "NULL"}));
}

TEST(ValueTextTest, PrintsSqlWithMinimalParentheses) {
  EXPECT_EQ(Arith(ArithOp::kMul, Arith(ArithOp::kAdd, Col("a"), Col("b")), Col("c"))->ToString(),
            "(a + b) * c");
  EXPECT_EQ(Arith(ArithOp::kAdd, Col("a"), Arith(ArithOp::kMul, Col("b"), Col("c")))->ToString(),
            "a + b * c");
  EXPECT_EQ(Arith(ArithOp::kSub, Col("a"), Arith(ArithOp::kSub, Col("b"), Col("c")))->ToString(),
            "a - (b - c)");
  EXPECT_EQ(Expr::Negate(Int(-1))->ToString(), "-(-1)");
  EXPECT_EQ(Expr::Negate(Arith(ArithOp::kAdd, Col("a"), Int(1)))->ToString(), "-(a + 1)");
  EXPECT_EQ(Expr::Concat(Col("a"), Str("x"))->ToString(), "a || 'x'");
  EXPECT_EQ(Expr::Cast(Col("a"), DataType::Decimal(10, 2))->ToString(), "CAST(a AS decimal(10,2))");
  std::vector<E> when, then;
  when.push_back(Int(1));
  then.push_back(Str("one"));
  EXPECT_EQ(Expr::Case(Col("a"), std::move(when), std::move(then), Col("end"))->ToString(),
            "CASE a WHEN 1 THEN 'one' ELSE `end` END");
  EXPECT_EQ(Fn("Upper", Col("a"))->ToString(), "upper(a)");
}

}  // namespace
}  // namespace cdclake::data
