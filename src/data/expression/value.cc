// Evaluation of value nodes into columns: columns, literals, CAST, ||, CASE, COALESCE and the
// string functions; and the public ResultType and EvaluateValue.
#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "data/expression.h"
#include "data/expression/expression_internal.h"

namespace cdclake::data {
namespace internal {

namespace {

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

int64_t CountChars(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

// The byte offset of character `index` (clamped to the end).
size_t ByteOffsetOfChar(std::string_view s, int64_t index) {
  int64_t seen = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsContinuation(s[i]) && ++seen == index) return i;
  }
  return s.size();
}

// Spark's substring: 1-based `pos` (0 counts as 1, negative from the end), `len` characters.
std::string_view Substring(std::string_view s, int64_t pos, int64_t len) {
  int64_t chars = CountChars(s);
  int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? chars + pos : 0);
  int64_t end;
  if (__builtin_add_overflow(start, len, &end)) end = len > 0 ? INT64_MAX : INT64_MIN;
  start = std::max<int64_t>(start, 0);
  if (start >= end || start >= chars) return {};
  size_t from = ByteOffsetOfChar(s, start);
  size_t to = ByteOffsetOfChar(s, std::min(end, chars));
  return s.substr(from, to - from);
}

std::string AsciiCase(std::string_view s, bool upper) {
  std::string out(s);
  for (char& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

int64_t IntegerAt(const Column& c, int64_t i) {
  Value v = c.GetValue(i);
  return v.is_int() ? v.int_value() : 0;
}

Column BooleanColumn(const std::vector<uint8_t>& tri) {
  Column out(DataType::Boolean());
  out.Reserve(static_cast<int64_t>(tri.size()));
  for (uint8_t t : tri) {
    if (t == kNull) {
      out.AppendNull();
    } else {
      out.Append<uint8_t>(t == kTrue ? 1 : 0);
    }
  }
  return out;
}

// One output column assembled from branch columns: row i comes from branch[i] at pos[i], or is
// NULL when branch[i] < 0.
Column Assemble(const TypePtr& type, const std::vector<Column>& values,
                const std::vector<int>& branch, const std::vector<int64_t>& pos) {
  Column out(type);
  out.Reserve(static_cast<int64_t>(branch.size()));
  for (size_t i = 0; i < branch.size(); ++i) {
    if (branch[i] < 0) {
      out.AppendNull();
    } else {
      out.AppendFrom(values[static_cast<size_t>(branch[i])], pos[i]);
    }
  }
  return out;
}

}  // namespace

bool IsPredicateKind(ExprKind kind) {
  switch (kind) {
    case ExprKind::kCompare:
    case ExprKind::kIn:
    case ExprKind::kIsNull:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return true;
    default:
      return false;
  }
}

Result<Column> Evaluator::EvalValue(const Bound& b) {
  const Expr& e = *b.expr;
  if (IsPredicateKind(e.kind)) {
    std::vector<uint8_t> tri = EvalBool(b);
    if (!status_.ok()) return status_;
    return BooleanColumn(tri);
  }
  if (b.type == nullptr) return Column::Repeat(DataType::String(), Value::Null(), n_);
  switch (e.kind) {
    case ExprKind::kColumn: {
      std::vector<uint8_t> storage;
      const uint8_t* valid = nullptr;
      Column out = Leaf(b, &storage, &valid);
      if (valid != nullptr) out.SetLengthAndValidity(n_, std::move(storage));
      return out;
    }
    case ExprKind::kLiteral:
      return Column::Repeat(b.type, e.literal, n_);
    case ExprKind::kArithmetic:
      return EvalArithmetic(b);
    case ExprKind::kNegate:
      return EvalNegate(b);
    case ExprKind::kCast: {
      CDCLAKE_ASSIGN_OR_RETURN(Column c, EvalValue(b.children[0]));
      return CastColumn(c, b.type);
    }
    case ExprKind::kConcat:
    case ExprKind::kFunction:
      return EvalFunction(b);
    case ExprKind::kCase:
      return EvalCase(b);
    default:
      return Status::Internal("not a value node: " + e.ToString());
  }
}

Result<Column> Evaluator::EvalFunction(const Bound& b) {
  const Expr& e = *b.expr;
  const std::string& f = e.kind == ExprKind::kConcat ? std::string("concat") : e.function;
  if (f == "coalesce") return EvalCoalesce(b);
  std::vector<Column> args;
  for (const Bound& child : b.children) {
    CDCLAKE_ASSIGN_OR_RETURN(Column c, EvalValue(child));
    args.push_back(std::move(c));
  }
  if (f == "abs") return NegateColumn(args[0], b.type, true, e);
  bool binary = args[0].type()->id() == TypeId::kBinary;
  // Text arguments as STRING; substring's position and length stay integers.
  size_t texts = f == "substring" || f == "substr" ? 1 : args.size();
  for (size_t k = 0; k < texts; ++k) args[k] = CastColumn(args[k], DataType::String());
  Column out(b.type);
  out.Reserve(n_);
  std::string buffer;
  for (int64_t i = 0; i < n_; ++i) {
    bool null = false;
    for (const Column& a : args) null |= a.IsNull(i);
    if (null) {
      out.AppendNull();
      continue;
    }
    std::string_view s = args[0].StringAt(i);
    if (f == "upper" || f == "lower") {
      out.AppendBytes(AsciiCase(s, f == "upper"));
    } else if (f == "trim") {
      out.AppendBytes(TrimSpaces(s));
    } else if (f == "length") {
      out.Append<int32_t>(
          static_cast<int32_t>(binary ? static_cast<int64_t>(s.size()) : CountChars(s)));
    } else if (f == "concat") {
      buffer.clear();
      for (const Column& a : args) buffer.append(a.StringAt(i));
      out.AppendBytes(buffer);
    } else {  // substring
      int64_t len = args.size() > 2 ? IntegerAt(args[2], i) : INT64_MAX;
      out.AppendBytes(Substring(s, IntegerAt(args[1], i), len));
    }
  }
  return out;
}

Result<Column> Evaluator::EvalCoalesce(const Bound& b) {
  std::vector<int64_t> remaining(static_cast<size_t>(n_));
  std::iota(remaining.begin(), remaining.end(), 0);
  std::vector<int> branch(static_cast<size_t>(n_), -1);
  std::vector<int64_t> pos(static_cast<size_t>(n_));
  std::vector<Column> values;
  for (const Bound& arg : b.children) {
    if (remaining.empty()) break;
    if (arg.type == nullptr) continue;
    CDCLAKE_ASSIGN_OR_RETURN(Column v, EvalValueOn(arg, remaining));
    std::vector<int64_t> rest;
    for (size_t j = 0; j < remaining.size(); ++j) {
      int64_t row = remaining[j];
      if (v.IsNull(static_cast<int64_t>(j))) {
        rest.push_back(row);
      } else {
        branch[row] = static_cast<int>(values.size());
        pos[row] = static_cast<int64_t>(j);
      }
    }
    values.push_back(CastColumn(v, b.type));
    remaining = std::move(rest);
  }
  return Assemble(b.type, values, branch, pos);
}

Result<Column> Evaluator::EvalCase(const Bound& b) {
  const Expr& e = *b.expr;
  std::vector<int64_t> remaining(static_cast<size_t>(n_));
  std::iota(remaining.begin(), remaining.end(), 0);
  std::vector<int> branch(static_cast<size_t>(n_), -1);
  std::vector<int64_t> pos(static_cast<size_t>(n_));
  std::vector<Column> values;
  auto take = [&](const Bound& result, const std::vector<int64_t>& rows) -> Status {
    if (rows.empty()) return Status::OK();
    CDCLAKE_ASSIGN_OR_RETURN(Column v, EvalValueOn(result, rows));
    for (size_t j = 0; j < rows.size(); ++j) {
      branch[rows[j]] = static_cast<int>(values.size());
      pos[rows[j]] = static_cast<int64_t>(j);
    }
    values.push_back(CastColumn(v, b.type));
    return Status::OK();
  };
  size_t first = e.case_operand ? 1 : 0;
  size_t end = b.children.size() - (e.case_else ? 1 : 0);
  for (size_t i = first, k = 0; i < end && !remaining.empty(); i += 2, ++k) {
    std::vector<uint8_t> tri;
    if (e.case_operand) {
      CDCLAKE_ASSIGN_OR_RETURN(tri, EqualOn(b.children[0], b.children[i], b.specs[k], remaining));
    } else {
      CDCLAKE_ASSIGN_OR_RETURN(tri, EvalBoolOn(b.children[i], remaining));
    }
    std::vector<int64_t> taken, rest;
    for (size_t j = 0; j < remaining.size(); ++j) {
      (tri[j] == kTrue ? taken : rest).push_back(remaining[j]);
    }
    CDCLAKE_RETURN_IF_ERROR(take(b.children[i + 1], taken));
    remaining = std::move(rest);
  }
  if (e.case_else) CDCLAKE_RETURN_IF_ERROR(take(b.children.back(), remaining));
  return Assemble(b.type, values, branch, pos);
}

namespace {

// The rows `rows` of `batch`, every column taken.
RecordBatch Subset(const RecordBatch& batch, const std::vector<int64_t>& rows) {
  std::vector<Column> columns;
  columns.reserve(batch.num_columns());
  for (const Column& c : batch.columns()) columns.push_back(c.Take(rows));
  RecordBatch out(batch.schema(), std::move(columns));
  out.set_num_rows(static_cast<int64_t>(rows.size()));
  return out;
}

}  // namespace

Result<Column> Evaluator::EvalValueOn(const Bound& b, const std::vector<int64_t>& rows) {
  if (static_cast<int64_t>(rows.size()) == n_) return EvalValue(b);
  RecordBatch subset = Subset(batch_, rows);
  Evaluator sub(subset);
  return sub.EvalValue(b);
}

Result<std::vector<uint8_t>> Evaluator::EvalBoolOn(const Bound& b,
                                                   const std::vector<int64_t>& rows) {
  if (static_cast<int64_t>(rows.size()) == n_) {
    std::vector<uint8_t> out = EvalBool(b);
    if (!status_.ok()) return status_;
    return out;
  }
  RecordBatch subset = Subset(batch_, rows);
  Evaluator sub(subset);
  std::vector<uint8_t> out = sub.EvalBool(b);
  if (!sub.status_.ok()) return sub.status_;
  return out;
}

Result<std::vector<uint8_t>> Evaluator::EqualOn(const Bound& operand, const Bound& value,
                                                const CompareSpec& spec,
                                                const std::vector<int64_t>& rows) {
  auto run = [&](Evaluator& ev) -> Result<std::vector<uint8_t>> {
    Operand l = ev.MakeOperand(operand, spec.domain, spec.side[0]);
    Operand r = ev.MakeOperand(value, spec.domain, spec.side[1]);
    std::vector<uint8_t> out(static_cast<size_t>(ev.n_));
    ev.Compare(spec.domain, CompareOp::kEq, l, r, out.data());
    if (!ev.status_.ok()) return ev.status_;
    return out;
  };
  if (static_cast<int64_t>(rows.size()) == n_) return run(*this);
  RecordBatch subset = Subset(batch_, rows);
  Evaluator sub(subset);
  return run(sub);
}

std::vector<uint8_t> Evaluator::BoolFromValue(const Bound& b) {
  std::vector<uint8_t> out(static_cast<size_t>(n_), kNull);
  if (b.type == nullptr) return out;
  Result<Column> c = EvalValue(b);
  if (!c.ok()) {
    Keep(c.status());
    return out;
  }
  for (int64_t i = 0; i < n_; ++i) {
    if (c->IsValid(i)) out[i] = c->ValueAt<uint8_t>(i) != 0 ? kTrue : kFalse;
  }
  return out;
}

}  // namespace internal

Result<TypePtr> ResultType(const Expr& expr, const Schema& schema) {
  CDCLAKE_ASSIGN_OR_RETURN(internal::Bound bound, internal::BindExpr(expr, schema));
  return bound.type;
}

Result<Column> EvaluateValue(const Expr& expr, const RecordBatch& batch) {
  CDCLAKE_ASSIGN_OR_RETURN(internal::Bound bound, internal::BindExpr(expr, batch.schema()));
  if (batch.num_columns() != batch.schema().num_fields()) {
    return Status::InvalidArgument("record batch has " + std::to_string(batch.num_columns()) +
                                   " columns for " + std::to_string(batch.schema().num_fields()) +
                                   " fields");
  }
  internal::Evaluator evaluator(batch);
  return evaluator.EvalValue(bound);
}

}  // namespace cdclake::data
