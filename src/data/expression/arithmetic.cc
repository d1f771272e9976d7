// Arithmetic over columns: + - * / % and unary minus (and abs) on BIGINT, DOUBLE and DECIMAL,
// with overflow as an error and division by zero as NULL (Spark's non-ANSI mode).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "data/decimal.h"
#include "data/expression/expression_internal.h"

namespace cdclake::data::internal {

namespace {

std::vector<uint8_t> BothValid(const Column& l, const Column& r, int64_t n) {
  std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
  for (const Column* c : {&l, &r}) {
    if (!c->has_nulls()) continue;
    for (int64_t i = 0; i < n; ++i) valid[i] &= c->validity()[i];
  }
  return valid;
}

std::vector<int64_t> Int64s(const Column& c, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = c.IntegerAt(i);
  return out;
}

// Unscaled decimals: integers as themselves, decimals as stored.
std::vector<Int128> Unscaled(const Column& c, int64_t n) {
  std::vector<Int128> out(static_cast<size_t>(n));
  bool decimal = c.type()->id() == TypeId::kDecimal;
  for (int64_t i = 0; i < n; ++i) out[i] = decimal ? c.ValueAt<Int128>(i) : c.IntegerAt(i);
  return out;
}

std::vector<double> Doubles(const Column& c, int64_t n) {
  std::vector<double> out(static_cast<size_t>(n));
  switch (c.type()->id()) {
    case TypeId::kDouble:
      for (int64_t i = 0; i < n; ++i) out[i] = c.ValueAt<double>(i);
      break;
    case TypeId::kFloat:
      for (int64_t i = 0; i < n; ++i) out[i] = c.ValueAt<float>(i);
      break;
    case TypeId::kDecimal: {
      double divisor = std::pow(10.0, c.type()->scale());
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(c.ValueAt<Int128>(i)) / divisor;
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(c.IntegerAt(i));
      break;
  }
  return out;
}

int ScaleOf(const Column& c) {
  return c.type()->id() == TypeId::kDecimal ? c.type()->scale() : 0;
}

// A fixed-width column from values and validity; null slots hold zeros.
template <typename T>
Column Fixed(const TypePtr& type, std::vector<T> values, std::vector<uint8_t> valid) {
  Column out(type);
  size_t n = values.size();
  for (size_t i = 0; i < n; ++i) {
    if (!valid[i]) values[i] = T();
  }
  std::vector<uint8_t>& bytes = out.mutable_values();
  bytes.resize(n * sizeof(T));
  if (n > 0) std::memcpy(bytes.data(), values.data(), n * sizeof(T));
  out.SetLengthAndValidity(static_cast<int64_t>(n), std::move(valid));
  return out;
}

Status IntegerOverflow(const Expr& e) {
  return Status::OutOfRange("integer overflow in " + e.ToString());
}

Status DecimalOverflow(const Expr& e, const DataType& type) {
  return Status::OutOfRange("decimal overflow in " + e.ToString() + ": the result does not fit " +
                            type.ToString());
}

// a / b rounded half away from zero. REQUIRES: b != 0.
Int128 DivideRounded(Int128 a, Int128 b) {
  Int128 q = a / b;
  Int128 r = a % b;
  if (r < 0) r = -r;
  Int128 d = b < 0 ? -b : b;
  if (r >= d - r) q += ((a < 0) != (b < 0)) ? -1 : 1;
  return q;
}

Result<Column> IntegerArithmetic(ArithOp op, const Column& l, const Column& r,
                                 std::vector<uint8_t> valid, const Expr& e, int64_t n) {
  std::vector<int64_t> a = Int64s(l, n);
  std::vector<int64_t> b = Int64s(r, n);
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!valid[i]) continue;
    bool overflow = false;
    switch (op) {
      case ArithOp::kAdd:
        overflow = __builtin_add_overflow(a[i], b[i], &out[i]);
        break;
      case ArithOp::kSub:
        overflow = __builtin_sub_overflow(a[i], b[i], &out[i]);
        break;
      case ArithOp::kMul:
        overflow = __builtin_mul_overflow(a[i], b[i], &out[i]);
        break;
      case ArithOp::kMod:
        if (b[i] == 0) {
          valid[i] = 0;
        } else {
          out[i] = b[i] == -1 ? 0 : a[i] % b[i];
        }
        break;
      case ArithOp::kDiv:  // integers divide as DOUBLE; not reached
        valid[i] = 0;
        break;
    }
    if (overflow) return IntegerOverflow(e);
  }
  return Fixed(DataType::Int64(), std::move(out), std::move(valid));
}

Column DoubleArithmetic(ArithOp op, const Column& l, const Column& r, std::vector<uint8_t> valid,
                        int64_t n) {
  std::vector<double> a = Doubles(l, n);
  std::vector<double> b = Doubles(r, n);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!valid[i]) continue;
    switch (op) {
      case ArithOp::kAdd:
        out[i] = a[i] + b[i];
        break;
      case ArithOp::kSub:
        out[i] = a[i] - b[i];
        break;
      case ArithOp::kMul:
        out[i] = a[i] * b[i];
        break;
      case ArithOp::kDiv:
      case ArithOp::kMod:
        if (b[i] == 0) {
          valid[i] = 0;
        } else {
          out[i] = op == ArithOp::kDiv ? a[i] / b[i] : std::fmod(a[i], b[i]);
        }
        break;
    }
  }
  return Fixed(DataType::Double(), std::move(out), std::move(valid));
}

Result<Column> DecimalArithmetic(ArithOp op, const Column& l, const Column& r,
                                 std::vector<uint8_t> valid, const TypePtr& type, const Expr& e,
                                 int64_t n) {
  std::vector<Int128> a = Unscaled(l, n);
  std::vector<Int128> b = Unscaled(r, n);
  int s1 = ScaleOf(l), s2 = ScaleOf(r), s = type->scale();
  int common = std::max(s1, s2);
  std::vector<Int128> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!valid[i]) continue;
    bool ok = true;
    Int128 x = 0, y = 0, v = 0;
    switch (op) {
      case ArithOp::kAdd:
      case ArithOp::kSub:
      case ArithOp::kMod:
        ok = Rescale(a[i], s1, common, &x) && Rescale(b[i], s2, common, &y);
        if (!ok) break;
        if (op == ArithOp::kMod) {
          if (y == 0) {
            valid[i] = 0;
            continue;
          }
          v = x % y;
        } else if (op == ArithOp::kAdd) {
          ok = !__builtin_add_overflow(x, y, &v);
        } else {
          ok = !__builtin_sub_overflow(x, y, &v);
        }
        ok = ok && Rescale(v, common, s, &v);
        break;
      case ArithOp::kMul:
        ok = !__builtin_mul_overflow(a[i], b[i], &v) && Rescale(v, s1 + s2, s, &v);
        break;
      case ArithOp::kDiv: {
        if (b[i] == 0) {
          valid[i] = 0;
          continue;
        }
        // a / 10^s1 / (b / 10^s2) * 10^s = a * 10^(s - s1 + s2) / b
        int k = s - s1 + s2;
        x = a[i];
        y = b[i];
        ok = k >= 0 ? !__builtin_mul_overflow(x, PowerOfTen(k), &x)
                    : !__builtin_mul_overflow(y, PowerOfTen(-k), &y);
        if (ok) v = DivideRounded(x, y);
        break;
      }
    }
    if (!ok || !FitsPrecision(v, type->precision())) return DecimalOverflow(e, *type);
    out[i] = v;
  }
  return Fixed(type, std::move(out), std::move(valid));
}

}  // namespace

Result<Column> NegateColumn(const Column& c, const TypePtr& type, bool abs, const Expr& e) {
  int64_t n = c.length();
  std::vector<uint8_t> valid = BothValid(c, c, n);
  switch (type->id()) {
    case TypeId::kInt64: {
      std::vector<int64_t> v = Int64s(c, n);
      for (int64_t i = 0; i < n; ++i) {
        if (!valid[i] || (abs && v[i] >= 0)) continue;
        if (__builtin_sub_overflow(int64_t{0}, v[i], &v[i])) return IntegerOverflow(e);
      }
      return Fixed(type, std::move(v), std::move(valid));
    }
    case TypeId::kDecimal: {
      std::vector<Int128> v = Unscaled(c, n);
      for (auto& x : v) x = abs && x >= 0 ? x : -x;
      return Fixed(type, std::move(v), std::move(valid));
    }
    default: {
      std::vector<double> v = Doubles(c, n);
      for (auto& x : v) x = abs ? std::fabs(x) : -x;
      return Fixed(type, std::move(v), std::move(valid));
    }
  }
}

Result<Column> Evaluator::EvalArithmetic(const Bound& b) {
  const Expr& e = *b.expr;
  CDCLAKE_ASSIGN_OR_RETURN(Column l, EvalValue(b.children[0]));
  CDCLAKE_ASSIGN_OR_RETURN(Column r, EvalValue(b.children[1]));
  if (b.children[0].type == nullptr || b.children[1].type == nullptr) {
    return Column::Repeat(b.type, Value::Null(), n_);
  }
  std::vector<uint8_t> valid = BothValid(l, r, n_);
  switch (b.type->id()) {
    case TypeId::kInt64:
      return IntegerArithmetic(e.arith_op, l, r, std::move(valid), e, n_);
    case TypeId::kDecimal:
      return DecimalArithmetic(e.arith_op, l, r, std::move(valid), b.type, e, n_);
    default:
      return DoubleArithmetic(e.arith_op, l, r, std::move(valid), n_);
  }
}

Result<Column> Evaluator::EvalNegate(const Bound& b) {
  CDCLAKE_ASSIGN_OR_RETURN(Column c, EvalValue(b.children[0]));
  if (b.children[0].type == nullptr) return Column::Repeat(b.type, Value::Null(), n_);
  return NegateColumn(c, b.type, false, *b.expr);
}

}  // namespace cdclake::data::internal
