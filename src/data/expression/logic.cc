// Evaluation of boolean nodes with SQL's three-valued logic: columns, IS NULL, IN, AND, OR and
// NOT (comparisons are in comparison.cc; values in value.cc), and EvaluatePredicate.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "data/expression.h"
#include "data/expression/expression_internal.h"

namespace cdclake::data {
namespace internal {

std::vector<uint8_t> Evaluator::EvalBool(const Bound& b) {
  const Expr& e = *b.expr;
  switch (e.kind) {
    case ExprKind::kLiteral: {
      uint8_t v = e.literal.is_null() ? kNull : (e.literal.bool_value() ? kTrue : kFalse);
      return std::vector<uint8_t>(static_cast<size_t>(n_), v);
    }
    case ExprKind::kColumn: {
      std::vector<uint8_t> storage;
      const uint8_t* valid = nullptr;
      const Column& c = Leaf(b, &storage, &valid);
      std::vector<uint8_t> out(static_cast<size_t>(n_));
      const uint8_t* values = c.Data<uint8_t>();
      for (int64_t i = 0; i < n_; ++i) out[i] = values[i] != 0 ? kTrue : kFalse;
      if (valid != nullptr) {
        for (int64_t i = 0; i < n_; ++i) {
          if (!valid[i]) out[i] = kNull;
        }
      }
      return out;
    }
    case ExprKind::kCompare: {
      std::vector<uint8_t> out(static_cast<size_t>(n_));
      const CompareSpec& spec = b.specs[0];
      Operand l = MakeOperand(b.children[0], spec.domain, spec.side[0]);
      Operand r = MakeOperand(b.children[1], spec.domain, spec.side[1]);
      Compare(spec.domain, e.op, l, r, out.data());
      return out;
    }
    case ExprKind::kIn:
      return EvalIn(b);
    case ExprKind::kIsNull: {
      std::vector<uint8_t> out = NullMask(b.children[0]);
      uint8_t when_null = e.negated ? kFalse : kTrue;
      uint8_t when_valid = e.negated ? kTrue : kFalse;
      for (auto& v : out) v = v ? when_null : when_valid;
      return out;
    }
    case ExprKind::kAnd: {
      std::vector<uint8_t> out = EvalBool(b.children[0]);
      std::vector<uint8_t> right = EvalBool(b.children[1]);
      for (size_t i = 0; i < out.size(); ++i) out[i] = std::min(out[i], right[i]);
      return out;
    }
    case ExprKind::kOr: {
      std::vector<uint8_t> out = EvalBool(b.children[0]);
      std::vector<uint8_t> right = EvalBool(b.children[1]);
      for (size_t i = 0; i < out.size(); ++i) out[i] = std::max(out[i], right[i]);
      return out;
    }
    case ExprKind::kNot: {
      std::vector<uint8_t> out = EvalBool(b.children[0]);
      for (auto& v : out) v = static_cast<uint8_t>(kTrue - v);
      return out;
    }
    case ExprKind::kArithmetic:
    case ExprKind::kNegate:
    case ExprKind::kConcat:
    case ExprKind::kCast:
    case ExprKind::kCase:
    case ExprKind::kFunction:
      return BoolFromValue(b);
  }
  return std::vector<uint8_t>(static_cast<size_t>(n_), kNull);
}

// The column a path names, and the rows where it and every struct above it are valid.
const Column& Evaluator::Leaf(const Bound& b, std::vector<uint8_t>* storage,
                              const uint8_t** valid) {
  const Column* c = &batch_.column(static_cast<size_t>(b.field_path[0]));
  for (size_t level = 0;; ++level) {
    if (c->has_nulls()) {
      if (storage->empty()) {
        storage->assign(c->validity().begin(), c->validity().begin() + n_);
      } else {
        for (int64_t i = 0; i < n_; ++i) (*storage)[i] &= c->validity()[i];
      }
    }
    if (level + 1 == b.field_path.size()) break;
    c = &c->child(static_cast<size_t>(b.field_path[level + 1]));
  }
  *valid = storage->empty() ? nullptr : storage->data();
  return *c;
}

// 1 where the node's value is NULL.
std::vector<uint8_t> Evaluator::NullMask(const Bound& b) {
  const Expr& e = *b.expr;
  if (e.kind == ExprKind::kLiteral) {
    return std::vector<uint8_t>(static_cast<size_t>(n_), e.literal.is_null() ? 1 : 0);
  }
  if (e.kind == ExprKind::kColumn) {
    std::vector<uint8_t> storage;
    const uint8_t* valid = nullptr;
    Leaf(b, &storage, &valid);
    std::vector<uint8_t> out(static_cast<size_t>(n_), 0);
    if (valid != nullptr) {
      for (int64_t i = 0; i < n_; ++i) out[i] = valid[i] ? 0 : 1;
    }
    return out;
  }
  if (!IsPredicateKind(e.kind)) {
    std::vector<uint8_t> out(static_cast<size_t>(n_), 1);
    Result<Column> c = EvalValue(b);
    if (!c.ok()) {
      Keep(c.status());
      return out;
    }
    for (int64_t i = 0; i < n_; ++i) out[i] = c->IsNull(i) ? 1 : 0;
    return out;
  }
  std::vector<uint8_t> out = EvalBool(b);
  for (auto& v : out) v = v == kNull ? 1 : 0;
  return out;
}

std::vector<uint8_t> Evaluator::EvalIn(const Bound& b) {
  std::vector<uint8_t> out(static_cast<size_t>(n_), kFalse);
  std::vector<uint8_t> item(static_cast<size_t>(n_));
  // The value's operand, shared by list items that compare in the same domain.
  std::map<std::tuple<int, int, int64_t>, Operand> values;
  for (size_t k = 0; k < b.specs.size(); ++k) {
    const CompareSpec& spec = b.specs[k];
    Operand r = MakeOperand(b.children[k + 1], spec.domain, spec.side[1]);
    if (spec.side[0].has_converted) {
      Operand l = MakeOperand(b.children[0], spec.domain, spec.side[0]);
      Compare(spec.domain, CompareOp::kEq, l, r, item.data());
    } else {
      auto key = std::make_tuple(static_cast<int>(spec.domain), spec.side[0].scale,
                                 spec.side[0].multiplier);
      auto it = values.find(key);
      if (it == values.end()) {
        it = values.emplace(key, MakeOperand(b.children[0], spec.domain, spec.side[0])).first;
      }
      Compare(spec.domain, CompareOp::kEq, it->second, r, item.data());
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::max(out[i], item[i]);
  }
  if (b.expr->negated) {
    for (auto& v : out) v = static_cast<uint8_t>(kTrue - v);
  }
  return out;
}

}  // namespace internal

Result<std::vector<uint8_t>> EvaluatePredicate(const Expr& expr, const RecordBatch& batch) {
  CDCLAKE_ASSIGN_OR_RETURN(internal::Bound bound, internal::BindExpr(expr, batch.schema()));
  CDCLAKE_RETURN_IF_ERROR(internal::RequireBoolean(bound));
  if (batch.num_columns() != batch.schema().num_fields()) {
    return Status::InvalidArgument("record batch has " + std::to_string(batch.num_columns()) +
                                   " columns for " + std::to_string(batch.schema().num_fields()) +
                                   " fields");
  }
  internal::Evaluator evaluator(batch);
  std::vector<uint8_t> result = evaluator.EvalBool(bound);
  if (!evaluator.status().ok()) return evaluator.status();
  for (auto& v : result) v = v == internal::kTrue ? 1 : 0;
  return result;
}

}  // namespace cdclake::data
