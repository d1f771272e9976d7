// ConditionParser: recursive descent over the expression grammar, loosest first:
//   or := and (OR and)*   and := not (AND not)*   not := NOT not | predicate
//   predicate := sum [op sum | [NOT] IN (sum, ...) | IS [NOT] NULL]
//   sum := product ((+ | - | ||) product)*   product := unary ((* | / | %) unary)*
//   unary := (- | +) unary | primary   primary := literal, column, (or), CASE, CAST, call
#include "sql/condition_parser.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "sql/expression_parser_internal.h"
#include "sql/schema_ddl.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

namespace {

using data::ArithOp;
using data::CompareOp;
using data::DataType;
using data::Expr;
using data::Int128;
using data::Value;
using ExprPtr = std::unique_ptr<Expr>;

constexpr int kMaxDecimalDigits = 38;

// Words that cannot name a column without backticks.
bool IsReserved(const Token& t) {
  for (std::string_view w : {"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"}) {
    if (t.IsKeyword(w)) return true;
  }
  return false;
}

// Comparison operators and their spellings.
bool CompareOpOf(const Token& t, CompareOp* op) {
  if (t.kind != TokenKind::kOperator) return false;
  static const std::pair<std::string_view, CompareOp> kOps[] = {
      {"=", CompareOp::kEq},  {"==", CompareOp::kEq}, {"<>", CompareOp::kNe},
      {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},  {"<=", CompareOp::kLe},
      {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
  for (const auto& [text, value] : kOps) {
    if (t.text == text) {
      *op = value;
      return true;
    }
  }
  return false;
}

// The literal a number token spells, negated when `negative`: BIGINT for integers (DECIMAL(p,0)
// past BIGINT's range), DECIMAL(p,s) with a point, DOUBLE with an exponent.
Result<ExprPtr> NumberLiteral(const TokenStream& ts, const Token& t, bool negative) {
  std::string_view text = t.text;
  if (text.find_first_of("eE") != std::string_view::npos) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || std::isinf(v)) {
      return ts.ErrorAt(t, "number " + t.text + " is out of range for DOUBLE");
    }
    return Expr::Literal(Value::Double(negative ? -v : v), DataType::Double());
  }
  size_t point = text.find('.');
  std::string_view whole = text.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  // The unscaled value: every digit, leading zeros dropped.
  Int128 unscaled = 0;
  int digits = 0;
  for (std::string_view part : {whole, fraction}) {
    for (char c : part) {
      if (digits == 0 && c == '0') continue;
      if (++digits > kMaxDecimalDigits) {
        return ts.ErrorAt(t, "number " + t.text + " has more than 38 digits");
      }
      unscaled = unscaled * 10 + (c - '0');
    }
  }
  if (negative) unscaled = -unscaled;
  int scale = static_cast<int>(fraction.size());
  if (point == std::string_view::npos) {
    if (unscaled >= std::numeric_limits<int64_t>::min() &&
        unscaled <= std::numeric_limits<int64_t>::max()) {
      return Expr::Literal(Value::Int(static_cast<int64_t>(unscaled)), DataType::Int64());
    }
    return Expr::Literal(Value::Decimal(unscaled), DataType::Decimal(digits, 0));
  }
  if (scale > kMaxDecimalDigits) {
    return ts.ErrorAt(t, "number " + t.text + " has more than 38 digits after the point");
  }
  int precision = std::max({digits, scale, 1});
  return Expr::Literal(Value::Decimal(unscaled), DataType::Decimal(precision, scale));
}

class ConditionParser {
 public:
  explicit ConditionParser(TokenStream* ts) : ts_(*ts) {}

  Result<ExprPtr> Parse() {
    if (ts_.AtEnd()) return ts_.Expected("a condition");
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
    if (!ts_.AtEnd()) {
      if (ts_.PeekOperator(")")) return ts_.ErrorAt(ts_.Peek(), "unmatched ')'");
      return AfterPredicateError("the end of the condition");
    }
    return e;
  }

  /// An expression without the end-of-input check (ParseExpression).
  Result<ExprPtr> ParseEmbedded() {
    if (ts_.AtEnd()) return ts_.Expected("an expression");
    return ParseOr();
  }

 private:
  Result<ExprPtr> ParseOr() {
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
    while (ts_.AcceptKeyword("OR")) {
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
      left = Expr::Or(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExprPtr> ParseAnd() {
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
    while (ts_.AcceptKeyword("AND")) {
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
      left = Expr::And(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExprPtr> ParseNot() {
    if (ts_.AcceptKeyword("NOT")) {
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr child, ParseNot());
      return Expr::Not(std::move(child));
    }
    return ParsePredicate();
  }

  Result<ExprPtr> ParsePredicate() {
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr left, ParseSum(""));
    CompareOp op;
    const Token& t = ts_.Peek();
    if (CompareOpOf(t, &op)) {
      std::string after = "'" + ts_.Next().text + "'";
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr right, ParseSum(after));
      return Expr::Compare(op, std::move(left), std::move(right));
    }
    if (t.IsKeyword("IN") || (t.IsKeyword("NOT") && ts_.PeekKeyword("IN", 1))) {
      bool negated = ts_.AcceptKeyword("NOT");
      ts_.Next();  // IN
      return ParseInList(std::move(left), negated);
    }
    if (t.IsKeyword("IS")) {
      ts_.Next();
      bool negated = ts_.AcceptKeyword("NOT");
      if (!ts_.AcceptKeyword("NULL")) {
        return ts_.Expected(negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
      }
      return Expr::IsNull(std::move(left), negated);
    }
    if (t.IsKeyword("NOT")) {
      if (Status s = Unsupported(ts_.Peek(1)); !s.ok()) return s;
      const Token& next = ts_.Peek(1);
      return ts_.ErrorAt(next, "expected IN after NOT, found " + DescribeToken(next));
    }
    return left;
  }

  Result<ExprPtr> ParseInList(ExprPtr value, bool negated) {
    if (!ts_.PeekOperator("(")) return ts_.Expected("'(' after IN");
    const Token& open = ts_.Next();
    if (ts_.PeekKeyword("SELECT")) {
      return ts_.ErrorAt(ts_.Peek(), "subqueries are not supported in conditions");
    }
    std::vector<ExprPtr> items;
    while (true) {
      if (ts_.PeekOperator(")")) return ts_.Expected("a value in the IN list");
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr item, ParseSum("in the IN list"));
      items.push_back(std::move(item));
      if (ts_.AcceptOperator(",")) continue;
      if (ts_.AcceptOperator(")")) break;
      if (Status s = Unsupported(ts_.Peek()); !s.ok()) return s;
      return ts_.Expected("',' or ')' to close the IN list opened at " +
                          DescribePosition(ts_.source(), open.offset));
    }
    return Expr::In(std::move(value), std::move(items), negated);
  }

  // `+ - ||`, left to right. `context` ("'='", "in the IN list") goes into the message when no
  // value is there.
  Result<ExprPtr> ParseSum(std::string_view context) {
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr left, ParseProduct(context));
    while (true) {
      const Token& t = ts_.Peek();
      if (t.IsOperator("+") || t.IsOperator("-") || t.IsOperator("||")) {
        std::string op = ts_.Next().text;
        CDCLAKE_ASSIGN_OR_RETURN(ExprPtr right, ParseProduct("'" + op + "'"));
        if (op == "||") {
          left = Expr::Concat(std::move(left), std::move(right));
        } else {
          left = Expr::Arithmetic(op == "+" ? ArithOp::kAdd : ArithOp::kSub, std::move(left),
                                  std::move(right));
        }
        continue;
      }
      return left;
    }
  }

  // `* / %`, left to right.
  Result<ExprPtr> ParseProduct(std::string_view context) {
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr left, ParseUnary(context));
    while (true) {
      const Token& t = ts_.Peek();
      ArithOp op;
      if (t.IsOperator("*")) {
        op = ArithOp::kMul;
      } else if (t.IsOperator("/")) {
        op = ArithOp::kDiv;
      } else if (t.IsOperator("%")) {
        op = ArithOp::kMod;
      } else {
        return left;
      }
      std::string after = "'" + ts_.Next().text + "'";
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr right, ParseUnary(after));
      left = Expr::Arithmetic(op, std::move(left), std::move(right));
    }
  }

  // A sign before a value; before a number it is part of the literal (-9223372036854775808).
  Result<ExprPtr> ParseUnary(std::string_view context) {
    const Token& t = ts_.Peek();
    if (t.IsOperator("-") || t.IsOperator("+")) {
      bool negative = ts_.Next().text == "-";
      if (ts_.Peek().kind == TokenKind::kNumber) return NumberLiteral(ts_, ts_.Next(), negative);
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary(negative ? "'-'" : "'+'"));
      return negative ? Expr::Negate(std::move(operand)) : std::move(operand);
    }
    return ParseValue(context);
  }

  // A column, a literal, a parenthesized expression, CASE, CAST or a function call.
  Result<ExprPtr> ParseValue(std::string_view context) {
    auto expected_value = [&]() {
      std::string what = "a value";
      if (!context.empty()) {
        what += context.front() == '\'' ? " after " : " ";
        what += context;
      }
      return ts_.Expected(what);
    };
    const Token& t = ts_.Peek();
    switch (t.kind) {
      case TokenKind::kString:
        return Expr::Literal(Value::Bytes(ts_.Next().text), DataType::String());
      case TokenKind::kNumber:
        return NumberLiteral(ts_, ts_.Next(), false);
      case TokenKind::kQuotedIdentifier:
        return ParseColumn();
      case TokenKind::kEnd:
        return expected_value();
      case TokenKind::kOperator:
        if (t.IsOperator("(")) {
          const Token& open = ts_.Next();
          if (ts_.PeekKeyword("SELECT")) {
            return ts_.ErrorAt(ts_.Peek(), "subqueries are not supported in conditions");
          }
          CDCLAKE_ASSIGN_OR_RETURN(ExprPtr inner, ParseOr());
          if (!ts_.AcceptOperator(")")) {
            return AfterPredicateError("')' to close the '(' at " +
                                       DescribePosition(ts_.source(), open.offset));
          }
          return inner;
        }
        return expected_value();
      case TokenKind::kIdentifier:
        break;
    }
    if (t.IsKeyword("NULL")) {
      ts_.Next();
      return Expr::Literal(Value::Null(), nullptr);
    }
    if (t.IsKeyword("TRUE") || t.IsKeyword("FALSE")) {
      return Expr::Literal(Value::Bool(ts_.Next().IsKeyword("TRUE")), DataType::Boolean());
    }
    if (IsReserved(t)) return expected_value();
    if (case_depth_ > 0) {
      for (std::string_view w : {"WHEN", "THEN", "ELSE", "END"}) {
        if (t.IsKeyword(w)) return expected_value();
      }
    }
    if (ts_.Peek(1).kind == TokenKind::kString) {
      if (t.IsKeyword("DATE") || t.IsKeyword("TIMESTAMP") || t.IsKeyword("TIMESTAMP_NTZ") ||
          t.IsKeyword("TIMESTAMP_LTZ")) {
        return ParseTypedLiteral();
      }
    }
    if (t.IsKeyword("CASE")) return ParseCase();
    if (t.IsKeyword("EXISTS") || t.IsKeyword("INTERVAL")) {
      return ts_.ErrorAt(t, ToUpperAscii(t.text) + " is not supported in conditions");
    }
    if (ts_.PeekOperator("(", 1)) {
      if (t.IsKeyword("CAST")) return ParseCast();
      return ParseCall();
    }
    return ParseColumn();
  }

  // CASE [operand] WHEN x THEN y ... [ELSE z] END
  Result<ExprPtr> ParseCase() {
    const Token& open = ts_.Next();
    ++case_depth_;
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{case_depth_};
    ExprPtr operand;
    if (!ts_.PeekKeyword("WHEN")) {
      CDCLAKE_ASSIGN_OR_RETURN(operand, ParseOr());
    }
    std::vector<ExprPtr> when, then;
    while (ts_.AcceptKeyword("WHEN")) {
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr w, ParseOr());
      if (!ts_.AcceptKeyword("THEN")) return ts_.Expected("THEN after the WHEN condition");
      CDCLAKE_ASSIGN_OR_RETURN(ExprPtr v, ParseOr());
      when.push_back(std::move(w));
      then.push_back(std::move(v));
    }
    if (when.empty())
      return ts_.Expected(operand ? "WHEN after the CASE operand" : "WHEN after CASE");
    ExprPtr otherwise;
    if (ts_.AcceptKeyword("ELSE")) {
      CDCLAKE_ASSIGN_OR_RETURN(otherwise, ParseOr());
    }
    if (!ts_.AcceptKeyword("END")) {
      return ts_.Expected(std::string(otherwise ? "END" : "WHEN, ELSE or END") +
                          " to close the CASE at " + DescribePosition(ts_.source(), open.offset));
    }
    return Expr::Case(std::move(operand), std::move(when), std::move(then), std::move(otherwise));
  }

  // CAST(value AS type): the type is read by ParseTypeName from the text up to the closing ')'.
  Result<ExprPtr> ParseCast() {
    const Token& keyword = ts_.Next();
    ts_.Next();  // (
    CDCLAKE_ASSIGN_OR_RETURN(ExprPtr value, ParseOr());
    if (!ts_.AcceptKeyword("AS")) return ts_.Expected("AS and a type in CAST");
    size_t depth = 0;
    size_t k = 0;
    for (;; ++k) {
      const Token& t = ts_.Peek(k);
      if (t.kind == TokenKind::kEnd) {
        return ts_.ErrorAt(t, "expected ')' to close the CAST at " +
                                  DescribePosition(ts_.source(), keyword.offset) +
                                  ", found end of input");
      }
      if (t.IsOperator("(")) ++depth;
      if (t.IsOperator(")")) {
        if (depth == 0) break;
        --depth;
      }
    }
    if (k == 0) return ts_.Expected("a type after AS");
    size_t start = ts_.Peek().offset;
    const Token& last = ts_.Peek(k - 1);
    std::string_view text = ts_.source().substr(start, last.offset + last.length - start);
    Result<data::TypePtr> type = ParseTypeName(text);
    if (!type.ok()) return TypeError(type.status().message(), start);
    for (size_t i = 0; i <= k; ++i) ts_.Next();  // the type and ')'
    return Expr::Cast(std::move(value), std::move(*type));
  }

  // A ParseTypeName error ("line 1, column C: message\n...") moved to where the type starts.
  Status TypeError(const std::string& message, size_t start) const {
    std::string_view m = message;
    constexpr std::string_view kPrefix = "line 1, column ";
    size_t offset = start;
    if (m.substr(0, kPrefix.size()) == kPrefix) {
      size_t colon = m.find(": ");
      int column = 0;
      std::from_chars(m.data() + kPrefix.size(), m.data() + colon, column);
      if (column > 0) offset += static_cast<size_t>(column - 1);
      m = m.substr(colon + 2);
    }
    m = m.substr(0, m.find('\n'));
    return SyntaxError(ts_.source(), offset, m);
  }

  // name(args...) for a function IsScalarFunction knows.
  Result<ExprPtr> ParseCall() {
    const Token& name = ts_.Next();
    std::string lower(name.text);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (!data::IsScalarFunction(lower)) {
      return ts_.ErrorAt(name, "unknown function '" + name.text +
                                   "' (functions: " + data::ScalarFunctionNames() + ", CAST)");
    }
    const Token& open = ts_.Next();
    std::vector<ExprPtr> args;
    if (!ts_.AcceptOperator(")")) {
      while (true) {
        CDCLAKE_ASSIGN_OR_RETURN(ExprPtr arg, ParseOr());
        args.push_back(std::move(arg));
        if (ts_.AcceptOperator(",")) continue;
        if (ts_.AcceptOperator(")")) break;
        if (Status s = Unsupported(ts_.Peek()); !s.ok()) return s;
        return ts_.Expected("',' or ')' to close the arguments of " + name.text + " opened at " +
                            DescribePosition(ts_.source(), open.offset));
      }
    }
    return Expr::Function(lower, std::move(args));
  }

  Result<ExprPtr> ParseTypedLiteral() {
    const Token& keyword = ts_.Next();
    const Token& literal = ts_.Next();
    if (keyword.IsKeyword("DATE")) {
      auto days = data::ParseDateLiteral(literal.text);
      if (!days.ok()) return ts_.ErrorAt(literal, days.status().message());
      return Expr::Literal(Value::Int(*days), DataType::Date());
    }
    bool ntz = keyword.IsKeyword("TIMESTAMP_NTZ");
    auto micros = data::ParseTimestampLiteral(literal.text, !ntz);
    if (!micros.ok()) return ts_.ErrorAt(literal, micros.status().message());
    return Expr::Literal(Value::Int(*micros),
                         ntz ? DataType::TimestampNtz() : DataType::Timestamp());
  }

  Result<ExprPtr> ParseColumn() {
    std::vector<std::string> path;
    path.push_back(ts_.Next().text);
    while (ts_.AcceptOperator(".")) {
      const Token& t = ts_.Peek();
      if (t.kind != TokenKind::kIdentifier && t.kind != TokenKind::kQuotedIdentifier) {
        return ts_.Expected("a field name after '.'");
      }
      path.push_back(ts_.Next().text);
    }
    return Expr::Column(std::move(path));
  }

  // An error for operators and keywords SQL has but conditions do not; OK for anything else.
  Status Unsupported(const Token& t) const {
    for (std::string_view word : {"LIKE", "ILIKE", "RLIKE", "REGEXP", "BETWEEN", "SIMILAR"}) {
      if (t.IsKeyword(word)) {
        return ts_.ErrorAt(t, std::string(word) +
                                  " is not supported in conditions; use comparisons, IN or "
                                  "IS NULL");
      }
    }
    if (t.IsOperator("<=>")) {
      return ts_.ErrorAt(t, "'<=>' is not supported in conditions; use = with IS NULL");
    }
    for (std::string_view op : {"&", "|", "^", "~"}) {
      if (t.IsOperator(op)) {
        return ts_.ErrorAt(t, "'" + std::string(op) + "': bitwise operators are not supported");
      }
    }
    return Status::OK();
  }

  // After a complete predicate something other than `what` came.
  Status AfterPredicateError(std::string_view what) const {
    const Token& t = ts_.Peek();
    if (Status s = Unsupported(t); !s.ok()) return s;
    CompareOp op;
    if (CompareOpOf(t, &op)) {
      return ts_.ErrorAt(t, "unexpected " + DescribeToken(t) +
                                ": a comparison cannot follow another without AND or OR");
    }
    std::string expected = "AND, OR or " + std::string(what);
    return ts_.Expected(expected);
  }

  static std::string ToUpperAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
  }

  TokenStream& ts_;
  int case_depth_ = 0;  // WHEN THEN ELSE END end a value inside a CASE
};

}  // namespace

Result<std::unique_ptr<data::Expr>> ParseCondition(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream ts, TokenStream::Open(text));
  return ConditionParser(&ts).Parse();
}

Result<std::unique_ptr<data::Expr>> ParseExpression(TokenStream& tokens) {
  return ConditionParser(&tokens).ParseEmbedded();
}

}  // namespace cdclake::sql
