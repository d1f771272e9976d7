// Tests for ParseCondition: the tree each construct builds, literal types, precedence, error
// messages with their caret, and parsed conditions evaluated over a record batch.
#include "sql/condition_parser.h"

#include <gtest/gtest.h>

#include <limits>

#include "data/value_format.h"
#include "sql/expression_parser_internal.h"

namespace cdclake::sql {
namespace {

using data::ArithOp;
using data::CompareOp;
using data::DataType;
using data::Expr;
using data::ExprKind;
using data::TypeId;
using data::Value;

std::unique_ptr<Expr> Parse(std::string_view text) {
  auto r = ParseCondition(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::string ParseError(std::string_view text) {
  auto r = ParseCondition(text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? (*r)->ToString() : "");
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

// The first line of an error message.
std::string FirstLine(const std::string& message) {
  return message.substr(0, message.find('\n'));
}

// The literal a condition "x = <text>" compares with.
const Expr& RightLiteral(const Expr& e) {
  EXPECT_EQ(e.kind, ExprKind::kCompare);
  EXPECT_EQ(e.children[1]->kind, ExprKind::kLiteral);
  return *e.children[1];
}

TEST(ConditionParserTest, ComparisonTree) {
  auto e = Parse("operation = 'DELETE'");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kCompare);
  EXPECT_EQ(e->op, CompareOp::kEq);
  ASSERT_EQ(e->children.size(), 2u);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kColumn);
  EXPECT_EQ(e->children[0]->path, (std::vector<std::string>{"operation"}));
  EXPECT_EQ(e->children[1]->literal, Value::Bytes("DELETE"));
  EXPECT_EQ(e->children[1]->literal_type->id(), TypeId::kString);
}

TEST(ConditionParserTest, EveryComparisonOperator) {
  struct Case {
    const char* text;
    CompareOp op;
  } cases[] = {{"a = 1", CompareOp::kEq},  {"a == 1", CompareOp::kEq}, {"a <> 1", CompareOp::kNe},
               {"a != 1", CompareOp::kNe}, {"a < 1", CompareOp::kLt},  {"a <= 1", CompareOp::kLe},
               {"a > 1", CompareOp::kGt},  {"a >= 1", CompareOp::kGe}, {"a>=1", CompareOp::kGe}};
  for (const Case& c : cases) {
    auto e = Parse(c.text);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind, ExprKind::kCompare) << c.text;
    EXPECT_EQ(e->op, c.op) << c.text;
  }
}

TEST(ConditionParserTest, RendersBackAsCanonicalSql) {
  std::pair<const char*, const char*> cases[] = {
      {"a = 1 and b <> 'x' or not c is null", "a = 1 AND b <> 'x' OR NOT c IS NULL"},
      {"a = 1 AND (b = 2 OR c = 3)", "a = 1 AND (b = 2 OR c = 3)"},
      {"((a = 1))", "a = 1"},
      {"x IN (1, 2, NULL)", "x IN (1, 2, NULL)"},
      {"x not in ('a','b')", "x NOT IN ('a', 'b')"},
      {"x Is Not Null", "x IS NOT NULL"},
      {"a != 1", "a <> 1"},
      {"`first name` = \"Bob\"", "`first name` = 'Bob'"},
      {"after.meta.op = 'd'", "after.meta.op = 'd'"},
      {"`a.b`.c = `null`", "`a.b`.c = `null`"},
      {"amount >= 1.50", "amount >= 1.50"},
      {"-5 < x", "-5 < x"},
      {"x = - 0.25", "x = -0.25"},
      {"x = 1e3", "x = 1000E0"},
      {"x = 2.5E-2", "x = 0.025E0"},
      {"d >= date '2024-01-31'", "d >= DATE '2024-01-31'"},
      {"ts < TIMESTAMP '2024-01-31 10:00:00'", "ts < TIMESTAMP '2024-01-31 10:00:00.000000Z'"},
      {"ts < timestamp_ntz '2024-01-31T10:00'", "ts < TIMESTAMP_NTZ '2024-01-31 10:00:00.000000'"},
      {"flag", "flag"},
      {"NOT flag AND TRUE", "NOT flag AND TRUE"},
      {"(a = 1) = false", "(a = 1) = FALSE"},
      {"a = 1 -- trailing comment", "a = 1"},
      {"/* why */ a\n  = 1", "a = 1"},
      {"date = '2024-01-01'", "date = '2024-01-01'"},
  };
  for (const auto& [text, want] : cases) {
    auto e = Parse(text);
    ASSERT_TRUE(e) << text;
    EXPECT_EQ(e->ToString(), want) << text;
    // And the rendering parses to the same rendering.
    auto again = Parse(e->ToString());
    ASSERT_TRUE(again) << e->ToString();
    EXPECT_EQ(again->ToString(), want);
  }
}

TEST(ConditionParserTest, PrecedenceOrAndNotComparison) {
  auto e = Parse("a OR b AND c");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kOr);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kColumn);
  EXPECT_EQ(e->children[1]->kind, ExprKind::kAnd);

  e = Parse("NOT a = 1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kNot);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kCompare);

  e = Parse("NOT a AND b");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kAnd);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kNot);

  e = Parse("a AND b AND c");  // left-associative
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kAnd);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kAnd);
  EXPECT_EQ(e->children[1]->path[0], "c");

  e = Parse("NOT NOT x IN (1)");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ExprKind::kNot);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kNot);
  EXPECT_EQ(e->children[0]->children[0]->kind, ExprKind::kIn);
  EXPECT_FALSE(e->children[0]->children[0]->negated);

  e = Parse("x NOT IN (1) OR y IS NOT NULL");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->children[0]->kind, ExprKind::kIn);
  EXPECT_TRUE(e->children[0]->negated);
  EXPECT_EQ(e->children[0]->children.size(), 2u);
  EXPECT_EQ(e->children[1]->kind, ExprKind::kIsNull);
  EXPECT_TRUE(e->children[1]->negated);
}

TEST(ConditionParserTest, LiteralTypes) {
  auto e = Parse("x = 42");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Int(42));
  EXPECT_EQ(RightLiteral(*e).literal_type->id(), TypeId::kInt64);

  e = Parse("x = 9223372036854775807");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Int(std::numeric_limits<int64_t>::max()));
  e = Parse("x = -9223372036854775808");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Int(std::numeric_limits<int64_t>::min()));
  e = Parse("x = 9223372036854775808");  // past BIGINT: an exact DECIMAL
  EXPECT_TRUE(RightLiteral(*e).literal_type->Equals(*DataType::Decimal(19, 0)));
  EXPECT_EQ(RightLiteral(*e).literal, Value::Decimal(static_cast<data::Int128>(1) << 63));

  e = Parse("x = 1.50");
  EXPECT_TRUE(RightLiteral(*e).literal_type->Equals(*DataType::Decimal(3, 2)));
  EXPECT_EQ(RightLiteral(*e).literal, Value::Decimal(150));
  e = Parse("x = .5");
  EXPECT_TRUE(RightLiteral(*e).literal_type->Equals(*DataType::Decimal(1, 1)));
  EXPECT_EQ(RightLiteral(*e).literal, Value::Decimal(5));
  e = Parse("x = -0.05");
  EXPECT_TRUE(RightLiteral(*e).literal_type->Equals(*DataType::Decimal(2, 2)));
  EXPECT_EQ(RightLiteral(*e).literal, Value::Decimal(-5));
  e = Parse("x = 007.");
  EXPECT_TRUE(RightLiteral(*e).literal_type->Equals(*DataType::Decimal(1, 0)));
  EXPECT_EQ(RightLiteral(*e).literal, Value::Decimal(7));

  e = Parse("x = 1.5e-3");
  EXPECT_EQ(RightLiteral(*e).literal_type->id(), TypeId::kDouble);
  EXPECT_EQ(RightLiteral(*e).literal, Value::Double(0.0015));
  e = Parse("x = -2E2");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Double(-200.0));

  e = Parse("x = 'it''s'");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Bytes("it's"));
  e = Parse("x = \"say \"\"hi\"\"\"");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Bytes("say \"hi\""));
  e = Parse("x = ''");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Bytes(""));

  e = Parse("x = true");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Bool(true));
  EXPECT_EQ(RightLiteral(*e).literal_type->id(), TypeId::kBoolean);
  e = Parse("x = FALSE");
  EXPECT_EQ(RightLiteral(*e).literal, Value::Bool(false));
  e = Parse("x = Null");
  EXPECT_TRUE(RightLiteral(*e).literal.is_null());
  EXPECT_EQ(RightLiteral(*e).literal_type, nullptr);

  e = Parse("x = DATE '2024-01-31'");
  EXPECT_EQ(RightLiteral(*e).literal_type->id(), TypeId::kDate);
  EXPECT_EQ(RightLiteral(*e).literal, Value::Int(data::DaysFromCivil(2024, 1, 31)));
}

TEST(ConditionParserTest, ColumnPaths) {
  auto e = Parse("`weird ``name```.inner.`x.y` IS NULL");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->children[0]->path, (std::vector<std::string>{"weird `name`", "inner", "x.y"}));
  e = Parse("`AND` = `in`");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->children[0]->path[0], "AND");
  EXPECT_EQ(e->children[1]->path[0], "in");
  // Words that are not reserved name columns.
  e = Parse("timestamp > 0 AND struct = 1 AND date IS NULL");
  ASSERT_TRUE(e);
  EXPECT_EQ(data::ReferencedColumns(*e), (std::vector<std::string>{"timestamp", "struct", "date"}));
}

// The tree's shape with every node parenthesized: (a + (b * c)).
std::string Shape(const Expr& e) {
  auto child = [&](size_t i) { return Shape(*e.children[i]); };
  switch (e.kind) {
    case ExprKind::kArithmetic: {
      const char* ops[] = {"+", "-", "*", "/", "%"};
      return "(" + child(0) + " " + ops[static_cast<int>(e.arith_op)] + " " + child(1) + ")";
    }
    case ExprKind::kConcat:
      return "(" + child(0) + " || " + child(1) + ")";
    case ExprKind::kNegate:
      return "(-" + child(0) + ")";
    case ExprKind::kCompare:
      return "(" + child(0) + " ? " + child(1) + ")";
    case ExprKind::kAnd:
      return "(" + child(0) + " AND " + child(1) + ")";
    default:
      return e.ToString();
  }
}

TEST(ConditionParserTest, ValuePrecedence) {
  std::pair<const char*, const char*> cases[] = {
      {"a + b * c = 1", "((a + (b * c)) ? 1)"},
      {"a * b + c = 1", "(((a * b) + c) ? 1)"},
      {"a - b - c = 1", "(((a - b) - c) ? 1)"},
      {"a / b % c = 1", "(((a / b) % c) ? 1)"},
      {"-a * b = 1", "(((-a) * b) ? 1)"},
      {"- -a = 1", "((-(-a)) ? 1)"},
      {"a - -1 = 1", "((a - -1) ? 1)"},
      {"a || b || 'x' = 'y'", "(((a || b) || 'x') ? 'y')"},
      {"a || b + 1 = 'y'", "(((a || b) + 1) ? 'y')"},
      {"(a + b) * c = 1 AND d", "((((a + b) * c) ? 1) AND d)"},
      {"a + 1 > b - 2", "((a + 1) ? (b - 2))"},
  };
  for (const auto& [text, want] : cases) {
    auto e = Parse(text);
    ASSERT_TRUE(e) << text;
    EXPECT_EQ(Shape(*e), want) << text;
  }
  auto neg = Parse("x = -9223372036854775808");
  ASSERT_TRUE(neg);
  EXPECT_EQ(RightLiteral(*neg).literal, Value::Int(std::numeric_limits<int64_t>::min()));
}

TEST(ConditionParserTest, CaseCastAndFunctions) {
  auto e = Parse(
      "CASE WHEN a > 0 THEN CASE b WHEN 1 THEN 'one' ELSE 'many' END "
      "WHEN a < 0 THEN 'neg' END = 'one'");
  ASSERT_TRUE(e);
  const Expr& c = *e->children[0];
  ASSERT_EQ(c.kind, ExprKind::kCase);
  EXPECT_FALSE(c.case_operand);
  EXPECT_FALSE(c.case_else);
  ASSERT_EQ(c.children.size(), 4u);
  const Expr& inner = *c.children[1];
  ASSERT_EQ(inner.kind, ExprKind::kCase);
  EXPECT_TRUE(inner.case_operand);
  EXPECT_TRUE(inner.case_else);
  EXPECT_EQ(e->ToString(),
            "CASE WHEN a > 0 THEN CASE b WHEN 1 THEN 'one' ELSE 'many' END WHEN a < 0 THEN 'neg' "
            "END = 'one'");

  auto cast = Parse("cast(amount AS Decimal(12, 4)) > 1");
  ASSERT_TRUE(cast);
  ASSERT_EQ(cast->children[0]->kind, ExprKind::kCast);
  EXPECT_EQ(cast->children[0]->cast_type->ToString(), "decimal(12,4)");
  EXPECT_EQ(cast->ToString(), "CAST(amount AS decimal(12,4)) > 1");

  auto f = Parse("UPPER(trim(op)) = 'D' AND Substring(name, 1, 2) || concat(a, b) <> ''");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ToString(), "upper(trim(op)) = 'D' AND substring(name, 1, 2) || concat(a, b) <> ''");
  auto co = Parse("coalesce(a, b + 1, 0) = 1");
  ASSERT_TRUE(co);
  EXPECT_EQ(co->children[0]->kind, ExprKind::kFunction);
  EXPECT_EQ(co->children[0]->function, "coalesce");
  EXPECT_EQ(co->children[0]->children.size(), 3u);
  // CAST and the CASE words name columns where they cannot start an expression.
  auto cols = Parse("cast = 1 AND `end` = 2 AND `when` = 3");
  ASSERT_TRUE(cols);
  EXPECT_EQ(cols->ToString(), "cast = 1 AND `end` = 2 AND `when` = 3");
}

TEST(ConditionParserTest, ToStringReadsBack) {
  for (const char* text :
       {"-(a + 1) * 2 = b % 3", "a - (b - c) = 0", "CAST(-1 AS string) || x = '-1x'",
        "CASE x WHEN 1 THEN -a ELSE abs(b) END IS NULL", "length(s) IN (1, 2 + 3)",
        "(a = 1) = (b = 2)"}) {
    auto e = Parse(text);
    ASSERT_TRUE(e) << text;
    auto again = Parse(e->ToString());
    ASSERT_TRUE(again) << e->ToString();
    EXPECT_EQ(again->ToString(), e->ToString()) << text;
    EXPECT_EQ(Shape(*again), Shape(*e)) << text;
  }
}

TEST(ConditionParserTest, EmbeddedExpressionStopsBeforeWhatCannotContinueIt) {
  std::pair<const char*, const char*> cases[] = {
      {"a + 1 AS x", "AS"},
      {"upper(b), c", ","},
      {"CASE WHEN a THEN 1 END FROM t", "FROM"},
      {"CAST(a AS INT) WHERE", "WHERE"},
      {"a || 'x')", ")"},
  };
  for (const auto& [text, stop] : cases) {
    auto ts = TokenStream::Open(text);
    ASSERT_TRUE(ts.ok());
    auto e = ParseExpression(*ts);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    EXPECT_EQ(ts->Peek().text, stop) << text;
  }
}

TEST(ConditionParserTest, ParsedValueConditionsEvaluate) {
  data::RecordBatch batch{data::Schema({{"op", DataType::String(), true},
                                        {"a", DataType::Int32(), true},
                                        {"b", DataType::Int64(), true}})};
  batch.AppendRow({Value::Bytes("d"), Value::Int(1), Value::Int(1)});
  batch.AppendRow({Value::Bytes("U"), Value::Int(5), Value::Int(2)});
  batch.AppendRow({Value::Null(), Value::Null(), Value::Int(9)});
  auto eval = [&](std::string_view text) {
    auto e = Parse(text);
    if (!e) return std::vector<uint8_t>{};
    auto r = data::EvaluatePredicate(*e, batch);
    EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
    return r.ok() ? *r : std::vector<uint8_t>{};
  };
  using Bits = std::vector<uint8_t>;
  EXPECT_EQ(eval("upper(op) = 'D'"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("a + 1 > b * 2"), (Bits{0, 1, 0}));
  EXPECT_EQ(eval("coalesce(a, b) % 2 = 1"), (Bits{1, 1, 1}));
  EXPECT_EQ(eval("CASE WHEN op IS NULL THEN 'none' ELSE lower(op) END IN ('u', 'none')"),
            (Bits{0, 1, 1}));
  EXPECT_EQ(eval("CAST(b AS STRING) || op = '2U'"), (Bits{0, 1, 0}));
  EXPECT_EQ(eval("b / 0 IS NULL"), (Bits{1, 1, 1}));
}

TEST(ConditionParserTest, ErrorsShowLineColumnAndCaret) {
  EXPECT_EQ(ParseError("operation = AND x"),
            "line 1, column 13: expected a value after '=', found 'AND'\n"
            "  operation = AND x\n"
            "              ^");
  EXPECT_EQ(ParseError(""),
            "line 1, column 1: expected a condition, found end of input\n"
            "  \n"
            "  ^");
  EXPECT_EQ(ParseError("a = "),
            "line 1, column 4: expected a value after '=', found end of input\n"
            "  a = \n"
            "     ^");
  EXPECT_EQ(ParseError("a = 1\nAND b = 2\n  AND lowr(c) = 'y'"),
            "line 3, column 7: unknown function 'lowr' (functions: abs, coalesce, concat, length, "
            "lower, substr, substring, trim, upper, CAST)\n"
            "    AND lowr(c) = 'y'\n"
            "        ^");
  EXPECT_EQ(ParseError("a =\tAND"),
            "line 1, column 5: expected a value after '=', found 'AND'\n"
            "  a =\tAND\n"
            "     \t^");
  EXPECT_EQ(ParseError("é = 1 AND"),
            "line 1, column 10: expected a value, found end of input\n"
            "  é = 1 AND\n"
            "           ^");
}

TEST(ConditionParserTest, ErrorMessagesSayWhatWasExpected) {
  std::pair<const char*, const char*> cases[] = {
      {"a = 1 b", "line 1, column 7: expected AND, OR or the end of the condition, found 'b'"},
      {"(a = 1",
       "line 1, column 7: expected AND, OR or ')' to close the '(' at line 1, column 1, "
       "found end of input"},
      {"a = 1)", "line 1, column 6: unmatched ')'"},
      {"a = 1 = 2",
       "line 1, column 7: unexpected '=': a comparison cannot follow another without AND or OR"},
      {"a LIKE 'x%'",
       "line 1, column 3: LIKE is not supported in conditions; use comparisons, IN or IS NULL"},
      {"a NOT LIKE 'x%'",
       "line 1, column 7: LIKE is not supported in conditions; use comparisons, IN or IS NULL"},
      {"a BETWEEN 1 AND 2",
       "line 1, column 3: BETWEEN is not supported in conditions; use comparisons, IN or IS "
       "NULL"},
      {"a & 1 = 2", "line 1, column 3: '&': bitwise operators are not supported"},
      {"a + = 2", "line 1, column 5: expected a value after '+', found '='"},
      {"a = b || ", "line 1, column 9: expected a value after '||', found end of input"},
      {"a = b * AND", "line 1, column 9: expected a value after '*', found 'AND'"},
      {"a <=> b", "line 1, column 3: '<=>' is not supported in conditions; use = with IS NULL"},
      {"a IN 1", "line 1, column 6: expected '(' after IN, found '1'"},
      {"a IN ()", "line 1, column 7: expected a value in the IN list, found ')'"},
      {"a IN (1 2)",
       "line 1, column 9: expected ',' or ')' to close the IN list opened at line "
       "1, column 6, found '2'"},
      {"a IN (1, AND)", "line 1, column 10: expected a value in the IN list, found 'AND'"},
      {"a IN (SELECT b FROM t)", "line 1, column 7: subqueries are not supported in conditions"},
      {"a IS 5", "line 1, column 6: expected NULL or NOT NULL after IS, found '5'"},
      {"a IS NOT TRUE", "line 1, column 10: expected NULL after IS NOT, found 'TRUE'"},
      {"a NOT 5", "line 1, column 7: expected IN after NOT, found '5'"},
      {"a. = 1", "line 1, column 4: expected a field name after '.', found '='"},
      {"a = - = b", "line 1, column 7: expected a value after '-', found '='"},
      {"a = 'abc", "line 1, column 5: unterminated string: no closing '"},
      {"NOT", "line 1, column 4: expected a value, found end of input"},
      {"a = 1 AND", "line 1, column 10: expected a value, found end of input"},
      {"OR a", "line 1, column 1: expected a value, found 'OR'"},
      {"= 1", "line 1, column 1: expected a value, found '='"},
      {"CASE a THEN 1 END = 1",
       "line 1, column 8: expected WHEN after the CASE operand, found "
       "'THEN'"},
      {"CASE WHEN a 1 END", "line 1, column 13: expected THEN after the WHEN condition, found '1'"},
      {"CASE WHEN a THEN END", "line 1, column 18: expected a value, found 'END'"},
      {"CASE WHEN a THEN 1 = 1",
       "line 1, column 23: expected WHEN, ELSE or END to close the CASE at line 1, column 1, "
       "found end of input"},
      {"CASE WHEN a THEN 1 ELSE 2 WHEN",
       "line 1, column 27: expected END to close the CASE at line 1, column 1, found 'WHEN'"},
      {"CAST(a INT) = 1", "line 1, column 8: expected AS and a type in CAST, found 'INT'"},
      {"CAST(a AS) = 1", "line 1, column 10: expected a type after AS, found ')'"},
      {"CAST(a AS INTEGRAL) = 1", "line 1, column 11: unknown type 'INTEGRAL'"},
      {"CAST(a AS DECIMAL(10,)) = 1",
       "line 1, column 22: expected the scale (a whole number), found ')'"},
      {"CAST(a AS INT = 1",
       "line 1, column 18: expected ')' to close the CAST at line 1, "
       "column 1, found end of input"},
      {"upper(a b) = 'x'",
       "line 1, column 9: expected ',' or ')' to close the arguments of upper opened at line 1, "
       "column 6, found 'b'"},
      {"EXISTS (SELECT 1)", "line 1, column 1: EXISTS is not supported in conditions"},
      {"d = DATE '2024-02-30'", "line 1, column 10: '2024-02-30' is not a valid date"},
      {"x = 123456789012345678901234567890123456789",
       "line 1, column 5: number 123456789012345678901234567890123456789 has more than 38 digits"},
      {"x = 1e999", "line 1, column 5: number 1e999 is out of range for DOUBLE"},
      {"a = 1; b = 2", "line 1, column 6: expected AND, OR or the end of the condition, found ';'"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(FirstLine(ParseError(text)), want) << text;
  }
}

TEST(ConditionParserTest, ParsedConditionsEvaluate) {
  using data::RecordBatch;
  using data::Schema;
  auto meta = DataType::Struct({{"op", DataType::String(), true}});
  RecordBatch batch{Schema({{"op", DataType::String(), true},
                            {"amount", DataType::Decimal(10, 2), true},
                            {"deleted", DataType::Boolean(), true},
                            {"ts", DataType::Timestamp(), true},
                            {"after", meta, true}})};
  int64_t noon = data::DaysFromCivil(2024, 1, 31) * 86400000000LL + 12LL * 3600 * 1000000;
  batch.AppendRow({Value::Bytes("d"), Value::Decimal(150), Value::Bool(false), Value::Int(noon),
                   Value::Nested({Value::Bytes("x")})});
  batch.AppendRow(
      {Value::Bytes("u"), Value::Decimal(10050), Value::Bool(true), Value::Null(), Value::Null()});
  batch.AppendRow({Value::Null(), Value::Null(), Value::Null(), Value::Int(0),
                   Value::Nested({Value::Bytes("d")})});

  auto eval = [&](std::string_view text) {
    auto e = Parse(text);
    if (!e) return std::vector<uint8_t>{};
    auto r = data::EvaluatePredicate(*e, batch);
    EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
    return r.ok() ? *r : std::vector<uint8_t>{};
  };
  using Bits = std::vector<uint8_t>;
  EXPECT_EQ(eval("op = 'd'"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("OP IN ('d', 'D') OR (amount > 100 AND deleted)"), (Bits{1, 1, 0}));
  EXPECT_EQ(eval("amount = 1.5"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("amount = 1.5e0"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("amount >= -1"), (Bits{1, 1, 0}));
  EXPECT_EQ(eval("NOT deleted"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("deleted IS NULL OR op NOT IN ('u', NULL)"), (Bits{0, 0, 1}));
  EXPECT_EQ(eval("ts > '2024-01-31' AND ts < \"2024-01-31 12:00:01\""), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("ts = TIMESTAMP '2024-01-31T14:00:00+02:00'"), (Bits{1, 0, 0}));
  EXPECT_EQ(eval("after.op = 'd' OR after IS NULL"), (Bits{0, 1, 1}));

  auto e = Parse("amount = 'abc'");
  ASSERT_TRUE(e);
  auto r = data::EvaluatePredicate(*e, batch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot compare decimal(10,2) with string: amount = 'abc'");
}

}  // namespace
}  // namespace cdclake::sql
