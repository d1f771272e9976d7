// Vectorized comparison: each side brought to the comparison's domain (an array or a scalar),
// then one loop per operator over every row, NULL where either side is NULL.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/decimal.h"
#include "data/expression/expression_internal.h"

namespace cdclake::data::internal {

namespace {

double DecimalToDouble(Int128 v, int scale) {
  return static_cast<double>(v) / std::pow(10.0, scale);
}

// a * 10^(sb - sa) against b without overflow: a value that overflows when scaled is larger in
// magnitude than any decimal of 38 digits.
inline int CompareDecimals(Int128 a, int sa, Int128 b, int sb) {
  if (sa < sb) {
    Int128 scaled;
    if (__builtin_mul_overflow(a, PowerOfTen(sb - sa), &scaled)) return a < 0 ? -1 : 1;
    return (scaled > b) - (scaled < b);
  }
  if (sa > sb) {
    Int128 scaled;
    if (__builtin_mul_overflow(b, PowerOfTen(sa - sb), &scaled)) return b < 0 ? 1 : -1;
    return (a > scaled) - (a < scaled);
  }
  return (a > b) - (a < b);
}

// SQL orders NaN above every other double and equal to itself.
struct CompareDoubles {
  int operator()(double a, double b) const {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a == b) return 0;
    return std::isnan(a) - std::isnan(b);
  }
};

template <typename T>
struct ArrayAt {
  const T* p;
  T operator()(int64_t i) const { return p[i]; }
};

template <typename T>
struct ScalarAt {
  T v;
  T operator()(int64_t) const { return v; }
};

struct StringsAt {
  const int64_t* offsets;
  const char* bytes;
  std::string_view operator()(int64_t i) const {
    return std::string_view(bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
};

struct ThreeWay {
  template <typename T>
  int operator()(const T& a, const T& b) const {
    return (a > b) - (a < b);
  }
};

template <typename L, typename R, typename Cmp>
void RunCompare(CompareOp op, int64_t n, L l, R r, Cmp cmp, uint8_t* out) {
  auto loop = [&](auto test) {
    for (int64_t i = 0; i < n; ++i) out[i] = test(cmp(l(i), r(i))) ? kTrue : kFalse;
  };
  switch (op) {
    case CompareOp::kEq:
      loop([](int c) { return c == 0; });
      break;
    case CompareOp::kNe:
      loop([](int c) { return c != 0; });
      break;
    case CompareOp::kLt:
      loop([](int c) { return c < 0; });
      break;
    case CompareOp::kLe:
      loop([](int c) { return c <= 0; });
      break;
    case CompareOp::kGt:
      loop([](int c) { return c > 0; });
      break;
    case CompareOp::kGe:
      loop([](int c) { return c >= 0; });
      break;
  }
}

// `l` is an array; `r` an array or a scalar.
template <typename T, typename Cmp>
void CompareTyped(CompareOp op, int64_t n, const T* l, const Operand& r, const T* r_array,
                  T r_value, Cmp cmp, uint8_t* out) {
  if (r.scalar) {
    RunCompare(op, n, ArrayAt<T>{l}, ScalarAt<T>{r_value}, cmp, out);
  } else {
    RunCompare(op, n, ArrayAt<T>{l}, ArrayAt<T>{r_array}, cmp, out);
  }
}

CompareOp Flip(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return CompareOp::kGt;
    case CompareOp::kLe:
      return CompareOp::kGe;
    case CompareOp::kGt:
      return CompareOp::kLt;
    case CompareOp::kGe:
      return CompareOp::kLe;
    default:
      return op;
  }
}

bool Holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq:
      return c == 0;
    case CompareOp::kNe:
      return c != 0;
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLe:
      return c <= 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGe:
      return c >= 0;
  }
  return false;
}

int CompareScalars(Domain domain, const Operand& l, const Operand& r) {
  switch (domain) {
    case Domain::kInt:
      return ThreeWay()(l.i64_value, r.i64_value);
    case Domain::kDecimal:
      return CompareDecimals(l.dec_value, l.scale, r.dec_value, r.scale);
    case Domain::kDouble:
      return CompareDoubles()(l.f64_value, r.f64_value);
    case Domain::kBytes:
      return std::string_view(l.str_value).compare(r.str_value);
    case Domain::kNull:
      break;
  }
  return 0;
}

template <typename Src>
void WidenToInt64(const Column& c, int64_t n, int64_t multiplier, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(n));
  const Src* src = c.Data<Src>();
  for (int64_t i = 0; i < n; ++i) (*out)[i] = static_cast<int64_t>(src[i]) * multiplier;
}

template <typename Src, typename Dst>
void Convert(const Column& c, int64_t n, std::vector<Dst>* out) {
  out->resize(static_cast<size_t>(n));
  const Src* src = c.Data<Src>();
  for (int64_t i = 0; i < n; ++i) (*out)[i] = static_cast<Dst>(src[i]);
}

template <typename Cmp>
void CompareStrings(CompareOp op, int64_t n, StringsAt l, const Operand& r, Cmp cmp, uint8_t* out) {
  if (r.scalar) {
    RunCompare(op, n, l, ScalarAt<std::string_view>{r.str_value}, cmp, out);
  } else {
    RunCompare(op, n, l, StringsAt{r.strings->offsets().data(), r.strings->bytes().data()}, cmp,
               out);
  }
}

void CompareDecimalArrays(CompareOp op, int64_t n, const Operand& l, const Operand& r,
                          uint8_t* out) {
  if (r.scalar) {
    // Bring the literal to the column's scale when that is exact, for the plain loop.
    Int128 value = r.dec_value;
    bool same_scale = r.scale == l.scale;
    if (r.scale < l.scale) {
      same_scale = !__builtin_mul_overflow(value, PowerOfTen(l.scale - r.scale), &value);
    }
    if (same_scale) {
      RunCompare(op, n, ArrayAt<Int128>{l.dec}, ScalarAt<Int128>{value}, ThreeWay(), out);
      return;
    }
    int ls = l.scale, rs = r.scale;
    Int128 rv = r.dec_value;
    auto cmp = [ls, rs](Int128 a, Int128 b) { return CompareDecimals(a, ls, b, rs); };
    RunCompare(op, n, ArrayAt<Int128>{l.dec}, ScalarAt<Int128>{rv}, cmp, out);
    return;
  }
  if (l.scale == r.scale) {
    RunCompare(op, n, ArrayAt<Int128>{l.dec}, ArrayAt<Int128>{r.dec}, ThreeWay(), out);
    return;
  }
  int ls = l.scale, rs = r.scale;
  auto cmp = [ls, rs](Int128 a, Int128 b) { return CompareDecimals(a, ls, b, rs); };
  RunCompare(op, n, ArrayAt<Int128>{l.dec}, ArrayAt<Int128>{r.dec}, cmp, out);
}

}  // namespace

void Evaluator::SetScalar(const Value& v, Domain domain, const Side& side, Operand* o) {
  o->scalar = true;
  if (v.is_null()) {
    o->null = true;
    return;
  }
  o->scale = side.scale;
  switch (domain) {
    case Domain::kInt:
      o->i64_value = v.is_bool() ? (v.bool_value() ? 1 : 0) : v.int_value() * side.multiplier;
      break;
    case Domain::kDecimal:
      o->dec_value = v.is_decimal() ? v.decimal_value() : static_cast<Int128>(v.int_value());
      break;
    case Domain::kDouble:
      o->f64_value = v.is_double()    ? v.double_value()
                     : v.is_decimal() ? DecimalToDouble(v.decimal_value(), side.scale)
                                      : static_cast<double>(v.int_value());
      break;
    case Domain::kBytes:
      o->str_value = v.bytes();
      break;
    case Domain::kNull:
      o->null = true;
      break;
  }
}

void Evaluator::SetArray(const Column& c, Domain domain, const Side& side, Operand* o) {
  o->scale = side.scale;
  TypeId id = c.type()->id();
  switch (domain) {
    case Domain::kInt:
      switch (id) {
        case TypeId::kBoolean:
          WidenToInt64<uint8_t>(c, n_, 1, &o->i64_storage);
          break;
        case TypeId::kInt8:
          WidenToInt64<int8_t>(c, n_, 1, &o->i64_storage);
          break;
        case TypeId::kInt16:
          WidenToInt64<int16_t>(c, n_, 1, &o->i64_storage);
          break;
        case TypeId::kInt32:
        case TypeId::kDate:
          WidenToInt64<int32_t>(c, n_, side.multiplier, &o->i64_storage);
          break;
        default:  // int64, timestamps
          if (side.multiplier == 1) {
            o->i64 = c.Data<int64_t>();
            return;
          }
          WidenToInt64<int64_t>(c, n_, side.multiplier, &o->i64_storage);
          break;
      }
      o->i64 = o->i64_storage.data();
      return;
    case Domain::kDecimal:
      switch (id) {
        case TypeId::kDecimal:
          o->dec = c.Data<Int128>();
          return;
        case TypeId::kInt8:
          Convert<int8_t>(c, n_, &o->dec_storage);
          break;
        case TypeId::kInt16:
          Convert<int16_t>(c, n_, &o->dec_storage);
          break;
        case TypeId::kInt32:
          Convert<int32_t>(c, n_, &o->dec_storage);
          break;
        default:
          Convert<int64_t>(c, n_, &o->dec_storage);
          break;
      }
      o->dec = o->dec_storage.data();
      return;
    case Domain::kDouble:
      switch (id) {
        case TypeId::kDouble:
          o->f64 = c.Data<double>();
          return;
        case TypeId::kFloat:
          Convert<float>(c, n_, &o->f64_storage);
          break;
        case TypeId::kInt8:
          Convert<int8_t>(c, n_, &o->f64_storage);
          break;
        case TypeId::kInt16:
          Convert<int16_t>(c, n_, &o->f64_storage);
          break;
        case TypeId::kInt32:
          Convert<int32_t>(c, n_, &o->f64_storage);
          break;
        case TypeId::kInt64:
          Convert<int64_t>(c, n_, &o->f64_storage);
          break;
        default: {  // decimal
          o->f64_storage.resize(static_cast<size_t>(n_));
          const Int128* src = c.Data<Int128>();
          double divisor = std::pow(10.0, side.scale);
          for (int64_t i = 0; i < n_; ++i)
            o->f64_storage[i] = static_cast<double>(src[i]) / divisor;
          break;
        }
      }
      o->f64 = o->f64_storage.data();
      return;
    case Domain::kBytes:
      o->strings = &c;
      return;
    case Domain::kNull:
      o->null = true;
      o->scalar = true;
      return;
  }
}

Operand Evaluator::MakeOperand(const Bound& b, Domain domain, const Side& side) {
  Operand o;
  const Expr& e = *b.expr;
  if (domain == Domain::kNull) {
    o.scalar = o.null = true;
  } else if (side.has_converted) {
    SetScalar(side.converted, domain, side, &o);
  } else if (e.kind == ExprKind::kLiteral) {
    SetScalar(e.literal, domain, side, &o);
  } else if (e.kind == ExprKind::kColumn) {
    const Column& c = Leaf(b, &o.valid_storage, &o.valid);
    SetArray(c, domain, side, &o);
  } else if (!IsPredicateKind(e.kind)) {
    // A computed value: evaluated once, its column kept alive by the operand.
    Result<Column> c = EvalValue(b);
    if (!c.ok()) {
      Keep(c.status());
      o.scalar = o.null = true;
      return o;
    }
    auto owned = std::make_shared<const Column>(std::move(*c));
    if (owned->has_nulls()) o.valid = owned->validity().data();
    SetArray(*owned, domain, side, &o);
    o.owned = std::move(owned);
  } else {
    // A boolean node compared as a value.
    std::vector<uint8_t> tri = EvalBool(b);
    o.i64_storage.resize(tri.size());
    bool any_null = false;
    for (size_t i = 0; i < tri.size(); ++i) {
      o.i64_storage[i] = tri[i] == kTrue ? 1 : 0;
      any_null |= tri[i] == kNull;
    }
    if (any_null) {
      o.valid_storage.resize(tri.size());
      for (size_t i = 0; i < tri.size(); ++i) o.valid_storage[i] = tri[i] != kNull;
      o.valid = o.valid_storage.data();
    }
    o.i64 = o.i64_storage.data();
  }
  return o;
}

void Evaluator::Compare(Domain domain, CompareOp op, const Operand& left, const Operand& right,
                        uint8_t* out) {
  if (left.null || right.null || domain == Domain::kNull) {
    std::fill(out, out + n_, kNull);
    return;
  }
  const Operand* l = &left;
  const Operand* r = &right;
  if (l->scalar && r->scalar) {
    std::fill(out, out + n_, Holds(op, CompareScalars(domain, *l, *r)) ? kTrue : kFalse);
    return;
  }
  if (l->scalar) {
    std::swap(l, r);
    op = Flip(op);
  }
  switch (domain) {
    case Domain::kInt:
      CompareTyped(op, n_, l->i64, *r, r->i64, r->i64_value, ThreeWay(), out);
      break;
    case Domain::kDecimal:
      CompareDecimalArrays(op, n_, *l, *r, out);
      break;
    case Domain::kDouble:
      CompareTyped(op, n_, l->f64, *r, r->f64, r->f64_value, CompareDoubles(), out);
      break;
    case Domain::kBytes: {
      StringsAt la{l->strings->offsets().data(), l->strings->bytes().data()};
      if (op == CompareOp::kEq || op == CompareOp::kNe) {
        // Equality needs no order: lengths first, then the bytes.
        auto cmp = [](std::string_view a, std::string_view b) { return a == b ? 0 : 1; };
        CompareStrings(op, n_, la, *r, cmp, out);
      } else {
        auto cmp = [](std::string_view a, std::string_view b) { return a.compare(b); };
        CompareStrings(op, n_, la, *r, cmp, out);
      }
      break;
    }
    case Domain::kNull:
      break;
  }
  for (const Operand* o : {l, r}) {
    if (o->valid == nullptr) continue;
    for (int64_t i = 0; i < n_; ++i) {
      if (!o->valid[i]) out[i] = kNull;
    }
  }
}

}  // namespace cdclake::data::internal
