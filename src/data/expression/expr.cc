// Expr: building expression trees, their SQL text, and the columns they read.
#include "data/expression.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/strings.h"
#include "data/decimal.h"
#include "data/expression/expression_internal.h"
#include "data/value_format.h"

namespace cdclake::data {

// ---------------------------------------------------------------------------------------------
// Building

std::unique_ptr<Expr> Expr::Clone() const {
  auto copy = std::make_unique<Expr>();
  copy->kind = kind;
  copy->path = path;
  copy->literal = literal;
  copy->literal_type = literal_type;
  copy->op = op;
  copy->negated = negated;
  copy->arith_op = arith_op;
  copy->cast_type = cast_type;
  copy->function = function;
  copy->case_operand = case_operand;
  copy->case_else = case_else;
  for (const std::unique_ptr<Expr>& child : children) copy->children.push_back(child->Clone());
  return copy;
}

std::unique_ptr<Expr> Expr::Column(std::vector<std::string> path) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kColumn;
  e->path = std::move(path);
  return e;
}

std::unique_ptr<Expr> Expr::Literal(Value value, TypePtr type) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kLiteral;
  e->literal = std::move(value);
  e->literal_type = std::move(type);
  return e;
}

std::unique_ptr<Expr> Expr::Compare(CompareOp op, std::unique_ptr<Expr> left,
                                    std::unique_ptr<Expr> right) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCompare;
  e->op = op;
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  return e;
}

namespace {
std::unique_ptr<Expr> MakeNode(ExprKind kind, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->children.push_back(std::move(a));
  if (b) e->children.push_back(std::move(b));
  return e;
}
}  // namespace

std::unique_ptr<Expr> Expr::And(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right) {
  return MakeNode(ExprKind::kAnd, std::move(left), std::move(right));
}

std::unique_ptr<Expr> Expr::Or(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right) {
  return MakeNode(ExprKind::kOr, std::move(left), std::move(right));
}

std::unique_ptr<Expr> Expr::Not(std::unique_ptr<Expr> child) {
  return MakeNode(ExprKind::kNot, std::move(child), nullptr);
}

std::unique_ptr<Expr> Expr::In(std::unique_ptr<Expr> value, std::vector<std::unique_ptr<Expr>> list,
                               bool negated) {
  auto e = MakeNode(ExprKind::kIn, std::move(value), nullptr);
  e->negated = negated;
  for (auto& item : list) e->children.push_back(std::move(item));
  return e;
}

std::unique_ptr<Expr> Expr::IsNull(std::unique_ptr<Expr> child, bool negated) {
  auto e = MakeNode(ExprKind::kIsNull, std::move(child), nullptr);
  e->negated = negated;
  return e;
}

std::unique_ptr<Expr> Expr::Arithmetic(ArithOp op, std::unique_ptr<Expr> left,
                                       std::unique_ptr<Expr> right) {
  auto e = MakeNode(ExprKind::kArithmetic, std::move(left), std::move(right));
  e->arith_op = op;
  return e;
}

std::unique_ptr<Expr> Expr::Negate(std::unique_ptr<Expr> child) {
  return MakeNode(ExprKind::kNegate, std::move(child), nullptr);
}

std::unique_ptr<Expr> Expr::Concat(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right) {
  return MakeNode(ExprKind::kConcat, std::move(left), std::move(right));
}

std::unique_ptr<Expr> Expr::Cast(std::unique_ptr<Expr> child, TypePtr type) {
  auto e = MakeNode(ExprKind::kCast, std::move(child), nullptr);
  e->cast_type = std::move(type);
  return e;
}

std::unique_ptr<Expr> Expr::Function(std::string_view name,
                                     std::vector<std::unique_ptr<Expr>> args) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kFunction;
  e->function = ToLower(name);
  e->children = std::move(args);
  return e;
}

std::unique_ptr<Expr> Expr::Case(std::unique_ptr<Expr> operand,
                                 std::vector<std::unique_ptr<Expr>> when,
                                 std::vector<std::unique_ptr<Expr>> then,
                                 std::unique_ptr<Expr> otherwise) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCase;
  if (operand) {
    e->case_operand = true;
    e->children.push_back(std::move(operand));
  }
  for (size_t i = 0; i < when.size(); ++i) {
    e->children.push_back(std::move(when[i]));
    e->children.push_back(i < then.size() ? std::move(then[i]) : nullptr);
  }
  if (otherwise) {
    e->case_else = true;
    e->children.push_back(std::move(otherwise));
  }
  return e;
}

namespace {
constexpr std::string_view kFunctionNames[] = {"abs",    "coalesce",  "concat", "length", "lower",
                                               "substr", "substring", "trim",   "upper"};
}  // namespace

bool IsScalarFunction(std::string_view name) {
  for (std::string_view f : kFunctionNames) {
    if (f == name) return true;
  }
  return false;
}

std::string ScalarFunctionNames() {
  std::string out;
  for (std::string_view f : kFunctionNames) {
    if (!out.empty()) out += ", ";
    out += f;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// SQL text

namespace {

bool IsIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool IsIdentifierChar(char c) {
  return IsIdentifierStart(c) || (c >= '0' && c <= '9');
}

// Words a condition reserves; a column with one of these names is written in backticks.
bool IsReservedWord(std::string_view word) {
  static constexpr std::string_view kWords[] = {"and",  "or",   "not",   "in",   "is",
                                                "null", "true", "false", "case", "when",
                                                "then", "else", "end"};
  std::string lower = ToLower(word);
  for (std::string_view w : kWords) {
    if (lower == w) return true;
  }
  return false;
}

std::string QuoteIdentifier(std::string_view name) {
  bool plain = !name.empty() && IsIdentifierStart(name[0]) &&
               std::all_of(name.begin(), name.end(), IsIdentifierChar) && !IsReservedWord(name);
  if (plain) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

std::string QuoteString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// A double as a literal that reads back as DOUBLE: the shortest exact digits, with an exponent.
std::string DoubleText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, r.ptr);
  if (s.find_first_of("eE") == std::string::npos) s += "E0";
  return s;
}

std::string LiteralText(const Value& v, const DataType* type) {
  if (v.is_null()) return "NULL";
  if (v.is_bool()) return v.bool_value() ? "TRUE" : "FALSE";
  if (type != nullptr) {
    switch (type->id()) {
      case TypeId::kDate:
        if (v.is_int()) return "DATE '" + FormatDate(v.int_value()) + "'";
        break;
      case TypeId::kTimestamp:
        if (v.is_int()) return "TIMESTAMP '" + FormatTimestamp(v.int_value(), true) + "'";
        break;
      case TypeId::kTimestampNtz:
        if (v.is_int()) return "TIMESTAMP_NTZ '" + FormatTimestamp(v.int_value(), false) + "'";
        break;
      case TypeId::kDecimal:
        if (v.is_decimal()) return FormatDecimal(v.decimal_value(), type->scale());
        break;
      case TypeId::kBinary:
        if (v.is_bytes()) return "X'" + FormatValueText(v, *type) + "'";
        break;
      default:
        break;
    }
  }
  if (v.is_int()) return std::to_string(v.int_value());
  if (v.is_double()) return DoubleText(v.double_value());
  if (v.is_decimal()) return FormatDecimal(v.decimal_value(), 0);
  if (v.is_bytes()) return QuoteString(v.bytes());
  return v.DebugString();
}

std::string_view OpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "=";
    case CompareOp::kNe:
      return "<>";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

constexpr int kAdditive = 5;
constexpr int kMultiplicative = 6;
constexpr int kUnary = 7;

// Binding strength, loosest first: OR, AND, NOT, predicates, `+ - ||`, `* / %`, unary minus,
// then primaries.
int Precedence(const Expr& e) {
  ExprKind kind = e.kind;
  if (kind == ExprKind::kArithmetic) {
    return e.arith_op == ArithOp::kAdd || e.arith_op == ArithOp::kSub ? kAdditive : kMultiplicative;
  }
  if (kind == ExprKind::kLiteral && e.literal_type != nullptr) {
    // A negative number reads as a unary minus.
    const Value& v = e.literal;
    bool negative = (v.is_int() && v.int_value() < 0) || (v.is_double() && v.double_value() < 0) ||
                    (v.is_decimal() && v.decimal_value() < 0);
    if (negative && e.literal_type->id() != TypeId::kDate &&
        e.literal_type->id() != TypeId::kTimestamp &&
        e.literal_type->id() != TypeId::kTimestampNtz) {
      return kUnary;
    }
  }
  switch (kind) {
    case ExprKind::kOr:
      return 1;
    case ExprKind::kAnd:
      return 2;
    case ExprKind::kNot:
      return 3;
    case ExprKind::kCompare:
    case ExprKind::kIn:
    case ExprKind::kIsNull:
      return 4;
    case ExprKind::kConcat:
      return kAdditive;
    case ExprKind::kNegate:
      return kUnary;
    case ExprKind::kArithmetic:
    case ExprKind::kColumn:
    case ExprKind::kLiteral:
    case ExprKind::kCast:
    case ExprKind::kCase:
    case ExprKind::kFunction:
      return 8;
  }
  return 0;
}

void AppendExpr(const Expr& e, std::string* out);

void AppendChild(const Expr& parent, size_t i, int min_precedence, std::string* out) {
  if (i >= parent.children.size() || parent.children[i] == nullptr) {
    out->append("<missing>");
    return;
  }
  const Expr& child = *parent.children[i];
  bool parens = Precedence(child) < min_precedence;
  if (parens) out->push_back('(');
  AppendExpr(child, out);
  if (parens) out->push_back(')');
}

void AppendList(const Expr& e, size_t from, std::string* out) {
  for (size_t i = from; i < e.children.size(); ++i) {
    if (i > from) out->append(", ");
    AppendChild(e, i, 0, out);
  }
}

void AppendCase(const Expr& e, std::string* out) {
  out->append("CASE");
  size_t i = 0;
  if (e.case_operand) {
    out->push_back(' ');
    AppendChild(e, i++, 0, out);
  }
  size_t end = e.children.size() - (e.case_else && !e.children.empty() ? 1 : 0);
  for (; i < end; i += 2) {
    out->append(" WHEN ");
    AppendChild(e, i, 0, out);
    out->append(" THEN ");
    AppendChild(e, i + 1, 0, out);
  }
  if (e.case_else) {
    out->append(" ELSE ");
    AppendChild(e, e.children.size() - 1, 0, out);
  }
  out->append(" END");
}

void AppendExpr(const Expr& e, std::string* out) {
  switch (e.kind) {
    case ExprKind::kColumn:
      for (size_t i = 0; i < e.path.size(); ++i) {
        if (i > 0) out->push_back('.');
        out->append(QuoteIdentifier(e.path[i]));
      }
      return;
    case ExprKind::kLiteral:
      out->append(LiteralText(e.literal, e.literal_type.get()));
      return;
    case ExprKind::kCompare:
      AppendChild(e, 0, 5, out);
      out->append(" ").append(OpText(e.op)).append(" ");
      AppendChild(e, 1, 5, out);
      return;
    case ExprKind::kArithmetic: {
      int p = Precedence(e);
      AppendChild(e, 0, p, out);
      out->append(" ").append(internal::ArithText(e.arith_op)).append(" ");
      AppendChild(e, 1, p + 1, out);
      return;
    }
    case ExprKind::kConcat:
      AppendChild(e, 0, kAdditive, out);
      out->append(" || ");
      AppendChild(e, 1, kAdditive + 1, out);
      return;
    case ExprKind::kNegate:
      out->push_back('-');
      // A unary minus before a negative number is parenthesized: "--" starts a comment.
      AppendChild(e, 0, kUnary + 1, out);
      return;
    case ExprKind::kCast:
      out->append("CAST(");
      AppendChild(e, 0, 0, out);
      out->append(" AS ").append(e.cast_type ? e.cast_type->ToString() : "<missing>").append(")");
      return;
    case ExprKind::kFunction:
      out->append(e.function).append("(");
      AppendList(e, 0, out);
      out->push_back(')');
      return;
    case ExprKind::kCase:
      AppendCase(e, out);
      return;
    case ExprKind::kIn:
      AppendChild(e, 0, 5, out);
      out->append(e.negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < e.children.size(); ++i) {
        if (i > 1) out->append(", ");
        AppendChild(e, i, 5, out);
      }
      out->push_back(')');
      return;
    case ExprKind::kIsNull:
      AppendChild(e, 0, 5, out);
      out->append(e.negated ? " IS NOT NULL" : " IS NULL");
      return;
    case ExprKind::kAnd:
      AppendChild(e, 0, 2, out);
      out->append(" AND ");
      AppendChild(e, 1, 2, out);
      return;
    case ExprKind::kOr:
      AppendChild(e, 0, 1, out);
      out->append(" OR ");
      AppendChild(e, 1, 1, out);
      return;
    case ExprKind::kNot:
      out->append("NOT ");
      AppendChild(e, 0, 3, out);
      return;
  }
}

void CollectColumns(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == ExprKind::kColumn && !e.path.empty()) {
    if (std::find(out->begin(), out->end(), e.path[0]) == out->end()) out->push_back(e.path[0]);
  }
  for (const auto& child : e.children) {
    if (child) CollectColumns(*child, out);
  }
}

}  // namespace

std::string Expr::ToString() const {
  std::string out;
  AppendExpr(*this, &out);
  return out;
}

std::vector<std::string> ReferencedColumns(const Expr& expr) {
  std::vector<std::string> out;
  CollectColumns(expr, &out);
  return out;
}

namespace internal {

std::string_view ArithText(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "+";
    case ArithOp::kSub:
      return "-";
    case ArithOp::kMul:
      return "*";
    case ArithOp::kDiv:
      return "/";
    case ArithOp::kMod:
      return "%";
  }
  return "?";
}

}  // namespace internal

}  // namespace cdclake::data
