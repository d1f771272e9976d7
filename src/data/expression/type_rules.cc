// Type rules for value expressions (Spark's, non-ANSI): arithmetic and decimal precision,
// negation, the common type of CASE and COALESCE branches, allowed casts, function signatures.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "data/expression/expression_internal.h"

namespace cdclake::data::internal {

namespace {

constexpr int kMaxPrecision = 38;
constexpr int kMinAdjustedScale = 6;

int Digits(Int128 v) {
  int digits = 1;
  if (v < 0) v = -v;
  while (v >= 10) {
    v /= 10;
    ++digits;
  }
  return digits;
}

// The decimal an integer type counts as: enough digits for any of its values.
TypePtr DecimalOfType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt8:
      return DataType::Decimal(3, 0);
    case TypeId::kInt16:
      return DataType::Decimal(5, 0);
    case TypeId::kInt32:
      return DataType::Decimal(10, 0);
    case TypeId::kInt64:
      return DataType::Decimal(20, 0);
    default:
      return DataType::Decimal(type.precision(), type.scale());
  }
}

// Two non-null types widened for CASE and COALESCE; nullptr when they do not meet.
TypePtr Wider(const TypePtr& a, const TypePtr& b) {
  if (a->Equals(*b)) return a;
  Category ca = CategoryOf(a.get());
  Category cb = CategoryOf(b.get());
  if (IsNumeric(ca) && IsNumeric(cb)) {
    if (ca == Category::kFloating || cb == Category::kFloating) return DataType::Double();
    if (ca == Category::kInteger && cb == Category::kInteger) {
      return IntegerRank(a->id()) >= IntegerRank(b->id()) ? a : b;
    }
    TypePtr da = DecimalOfType(*a);
    TypePtr db = DecimalOfType(*b);
    int scale = std::max(da->scale(), db->scale());
    int whole = std::max(da->precision() - da->scale(), db->precision() - db->scale());
    return DataType::Decimal(std::min(whole + scale, kMaxPrecision),
                             std::min(scale, kMaxPrecision));
  }
  if (IsTemporal(ca) && IsTemporal(cb)) {
    if (ca == Category::kDate) return b;
    if (cb == Category::kDate) return a;
    return DataType::Timestamp();
  }
  auto stringy = [](Category c) { return IsNumeric(c) || IsTemporal(c); };
  if (a->id() == TypeId::kString && stringy(cb)) return a;
  if (b->id() == TypeId::kString && stringy(ca)) return b;
  return nullptr;
}

bool IsPrimitive(const DataType& t) {
  return !t.is_nested();
}

Status Arity(const Expr& e, size_t n, size_t min, size_t max) {
  if (n >= min && n <= max) return Status::OK();
  std::string want = std::to_string(min);
  if (max != min) want += max == SIZE_MAX ? " or more" : " or " + std::to_string(max);
  return Status::InvalidArgument(e.function + " takes " + want + " argument" +
                                 (min == 1 && max == 1 ? "" : "s") + ", found " +
                                 std::to_string(n) + ": " + e.ToString());
}

}  // namespace

TypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= kMaxPrecision) return DataType::Decimal(std::max(precision, 1), scale);
  int whole = precision - scale;
  int min_scale = std::min(scale, kMinAdjustedScale);
  int adjusted = std::max(kMaxPrecision - whole, min_scale);
  return DataType::Decimal(kMaxPrecision, adjusted);
}

TypePtr DecimalOf(const Bound& b) {
  const Expr& e = *b.expr;
  if (e.kind == ExprKind::kLiteral && e.literal.is_int() && b.type != nullptr &&
      CategoryOf(b.type.get()) == Category::kInteger) {
    return DataType::Decimal(Digits(e.literal.int_value()), 0);
  }
  return DecimalOfType(*b.type);
}

Result<TypePtr> ArithmeticType(ArithOp op, const Bound& l, const Bound& r, const Expr& whole) {
  Category cl = CategoryOf(l.type.get());
  Category cr = CategoryOf(r.type.get());
  for (Category c : {cl, cr}) {
    if (c != Category::kNull && !IsNumeric(c)) {
      return Status::InvalidArgument("cannot apply '" + std::string(ArithText(op)) + "' to " +
                                     TypeName(l.type.get()) + " and " + TypeName(r.type.get()) +
                                     ": " + whole.ToString());
    }
  }
  if (cl == Category::kNull && cr == Category::kNull) return TypePtr();
  if (cl == Category::kFloating || cr == Category::kFloating) return DataType::Double();
  bool integers = (cl == Category::kInteger || cl == Category::kNull) &&
                  (cr == Category::kInteger || cr == Category::kNull);
  if (integers) return op == ArithOp::kDiv ? DataType::Double() : DataType::Int64();
  // A NULL beside a decimal takes its type.
  TypePtr a = cl == Category::kNull ? DecimalOf(r) : DecimalOf(l);
  TypePtr b = cr == Category::kNull ? DecimalOf(l) : DecimalOf(r);
  int p1 = a->precision(), s1 = a->scale(), p2 = b->precision(), s2 = b->scale();
  switch (op) {
    case ArithOp::kAdd:
    case ArithOp::kSub: {
      int scale = std::max(s1, s2);
      return AdjustedDecimal(std::max(p1 - s1, p2 - s2) + scale + 1, scale);
    }
    case ArithOp::kMul:
      return AdjustedDecimal(p1 + p2 + 1, s1 + s2);
    case ArithOp::kDiv: {
      int scale = std::max(kMinAdjustedScale, s1 + p2 + 1);
      return AdjustedDecimal(p1 - s1 + s2 + scale, scale);
    }
    case ArithOp::kMod: {
      int scale = std::max(s1, s2);
      return AdjustedDecimal(std::min(p1 - s1, p2 - s2) + scale, scale);
    }
  }
  return DataType::Double();
}

Result<TypePtr> NegateType(const Bound& x, const Expr& whole) {
  switch (CategoryOf(x.type.get())) {
    case Category::kNull:
      return TypePtr();
    case Category::kInteger:
      return DataType::Int64();
    case Category::kDecimal:
      return x.type;
    case Category::kFloating:
      return DataType::Double();
    default:
      return Status::InvalidArgument("cannot negate " + TypeName(x.type.get()) + ": " +
                                     whole.ToString());
  }
}

Result<TypePtr> CommonType(const std::vector<const Bound*>& items, std::string_view what,
                           const Expr& whole) {
  TypePtr out;
  for (const Bound* item : items) {
    if (item->type == nullptr) continue;
    if (out == nullptr) {
      out = item->type;
      continue;
    }
    TypePtr wider = Wider(out, item->type);
    if (wider == nullptr) {
      return Status::InvalidArgument(std::string(what) + " have incompatible types " +
                                     out->ToString() + " and " + item->type->ToString() + ": " +
                                     whole.ToString());
    }
    out = std::move(wider);
  }
  return out;
}

bool CanCast(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return true;
  if (from.is_nested() || to.is_nested()) return false;
  Category f = CategoryOf(&from);
  switch (to.id()) {
    case TypeId::kString:
      return true;
    case TypeId::kBinary:
      return f == Category::kString;
    case TypeId::kBoolean:
      return IsNumeric(f) || f == Category::kBoolean || from.id() == TypeId::kString;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      return IsNumeric(f) || f == Category::kBoolean || f == Category::kTime ||
             from.id() == TypeId::kString;
    case TypeId::kDate:
      return IsTemporal(f) || from.id() == TypeId::kString;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return IsTemporal(f) || IsNumeric(f) || from.id() == TypeId::kString;
    default:
      return false;
  }
}

Result<TypePtr> FunctionType(const Expr& e, const std::vector<Bound>& args) {
  const std::string& f = e.function;
  size_t n = args.size();
  auto require_text = [&](size_t i) -> Status {
    const TypePtr& t = args[i].type;
    if (t == nullptr || IsPrimitive(*t)) return Status::OK();
    return Status::InvalidArgument(f + " expects a string, found " + t->ToString() + ": " +
                                   e.ToString());
  };
  if (f == "upper" || f == "lower" || f == "trim") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 1, 1));
    CDCLAKE_RETURN_IF_ERROR(require_text(0));
    return DataType::String();
  }
  if (f == "length") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 1, 1));
    CDCLAKE_RETURN_IF_ERROR(require_text(0));
    return DataType::Int32();
  }
  if (f == "concat") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 1, SIZE_MAX));
    for (size_t i = 0; i < n; ++i) CDCLAKE_RETURN_IF_ERROR(require_text(i));
    return DataType::String();
  }
  if (f == "substring" || f == "substr") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 2, 3));
    CDCLAKE_RETURN_IF_ERROR(require_text(0));
    for (size_t i = 1; i < n; ++i) {
      Category c = CategoryOf(args[i].type.get());
      if (c != Category::kNull && c != Category::kInteger) {
        return Status::InvalidArgument(f + " expects an integer " +
                                       (i == 1 ? "position" : "length") + ", found " +
                                       args[i].type->ToString() + ": " + e.ToString());
      }
    }
    return DataType::String();
  }
  if (f == "abs") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 1, 1));
    if (!IsNumeric(CategoryOf(args[0].type.get())) && args[0].type != nullptr) {
      return Status::InvalidArgument("abs expects a number, found " + args[0].type->ToString() +
                                     ": " + e.ToString());
    }
    return NegateType(args[0], e);
  }
  if (f == "coalesce") {
    CDCLAKE_RETURN_IF_ERROR(Arity(e, n, 1, SIZE_MAX));
    std::vector<const Bound*> items;
    for (const Bound& a : args) items.push_back(&a);
    return CommonType(items, "COALESCE arguments", e);
  }
  return Status::InvalidArgument("unknown function '" + f +
                                 "' (functions: " + ScalarFunctionNames() + "): " + e.ToString());
}

}  // namespace cdclake::data::internal
