// Binding: names resolved to field indexes and every comparison given a domain, before any row
// (BindExpr, RequireBoolean and ValidatePredicate).
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"
#include "data/expression.h"
#include "data/expression/expression_internal.h"

namespace cdclake::data {
namespace internal {

namespace {

std::string Names(const std::vector<Field>& fields) {
  std::string out;
  for (const Field& f : fields) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out.empty() ? "none" : out;
}

// The field named `name`: exact match first, then the only case-insensitive one.
Result<int> FindField(const std::vector<Field>& fields, const std::string& name,
                      std::string_view where) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  std::string lower = ToLower(name);
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (ToLower(fields[i].name) != lower) continue;
    if (found >= 0) {
      return Status::InvalidArgument("column '" + name + "' is ambiguous " + std::string(where) +
                                     ": it matches '" + fields[found].name + "' and '" +
                                     fields[i].name + "'");
    }
    found = static_cast<int>(i);
  }
  if (found < 0) {
    return Status::InvalidArgument("column '" + name + "' not found " + std::string(where) +
                                   " (columns: " + Names(fields) + ")");
  }
  return found;
}

// Whether a literal's value has the shape its type asks for.
bool LiteralFits(const Value& v, const DataType& type) {
  if (v.is_null()) return true;
  switch (CategoryOf(&type)) {
    case Category::kBoolean:
      return v.is_bool();
    case Category::kInteger:
    case Category::kDate:
    case Category::kTime:
      return v.is_int();
    case Category::kDecimal:
      return v.is_decimal();
    case Category::kFloating:
      return v.is_double();
    case Category::kString:
      return v.is_bytes();
    default:
      return v.is_nested();
  }
}

class Binder {
 public:
  explicit Binder(const Schema& schema) : schema_(schema) {}

  Result<Bound> Bind(const Expr& e) {
    Bound b;
    b.expr = &e;
    for (const auto& child : e.children) {
      if (child == nullptr) return Malformed(e);
      CDCLAKE_ASSIGN_OR_RETURN(Bound c, Bind(*child));
      b.children.push_back(std::move(c));
    }
    size_t n = e.children.size();
    switch (e.kind) {
      case ExprKind::kColumn:
        if (e.path.empty() || n != 0) return Malformed(e);
        CDCLAKE_RETURN_IF_ERROR(BindColumn(e, &b));
        return b;
      case ExprKind::kLiteral:
        if (n != 0) return Malformed(e);
        if (e.literal_type == nullptr ? !e.literal.is_null()
                                      : !LiteralFits(e.literal, *e.literal_type)) {
          return Status::InvalidArgument("literal " + e.literal.DebugString() +
                                         " does not match its type " +
                                         TypeName(e.literal_type.get()));
        }
        b.type = e.literal_type;
        return b;
      case ExprKind::kCompare: {
        if (n != 2) return Malformed(e);
        CDCLAKE_ASSIGN_OR_RETURN(CompareSpec spec, BindComparison(b.children[0], b.children[1], e));
        b.specs.push_back(std::move(spec));
        b.type = DataType::Boolean();
        return b;
      }
      case ExprKind::kIn:
        if (n < 2) return Malformed(e);
        for (size_t i = 1; i < n; ++i) {
          CDCLAKE_ASSIGN_OR_RETURN(CompareSpec spec,
                                   BindComparison(b.children[0], b.children[i], e));
          b.specs.push_back(std::move(spec));
        }
        b.type = DataType::Boolean();
        return b;
      case ExprKind::kIsNull:
        if (n != 1) return Malformed(e);
        b.type = DataType::Boolean();
        return b;
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        if (n != (e.kind == ExprKind::kNot ? 1u : 2u)) return Malformed(e);
        for (const Bound& c : b.children) CDCLAKE_RETURN_IF_ERROR(RequireBoolean(c));
        b.type = DataType::Boolean();
        return b;
      case ExprKind::kArithmetic: {
        if (n != 2) return Malformed(e);
        CDCLAKE_ASSIGN_OR_RETURN(b.type,
                                 ArithmeticType(e.arith_op, b.children[0], b.children[1], e));
        return b;
      }
      case ExprKind::kNegate: {
        if (n != 1) return Malformed(e);
        CDCLAKE_ASSIGN_OR_RETURN(b.type, NegateType(b.children[0], e));
        return b;
      }
      case ExprKind::kConcat:
        if (n != 2) return Malformed(e);
        for (const Bound& c : b.children) {
          if (c.type != nullptr && !CanCast(*c.type, *DataType::String())) {
            return Status::InvalidArgument("cannot apply '||' to " + TypeName(c.type.get()) + ": " +
                                           e.ToString());
          }
        }
        b.type = DataType::String();
        return b;
      case ExprKind::kCast:
        if (n != 1 || e.cast_type == nullptr) return Malformed(e);
        if (b.children[0].type != nullptr && !CanCast(*b.children[0].type, *e.cast_type)) {
          return Status::InvalidArgument("cannot cast " + TypeName(b.children[0].type.get()) +
                                         " to " + e.cast_type->ToString() + ": " + e.ToString());
        }
        b.type = e.cast_type;
        return b;
      case ExprKind::kCase:
        CDCLAKE_RETURN_IF_ERROR(BindCase(e, &b));
        return b;
      case ExprKind::kFunction: {
        CDCLAKE_ASSIGN_OR_RETURN(b.type, FunctionType(e, b.children));
        return b;
      }
    }
    return Malformed(e);
  }

 private:
  static Status Malformed(const Expr& e) {
    return Status::InvalidArgument("malformed expression: " + e.ToString());
  }

  // WHENs are boolean (or, with an operand, comparable with it); the results unify.
  static Status BindCase(const Expr& e, Bound* b) {
    size_t first = e.case_operand ? 1 : 0;
    size_t end = e.children.size() - (e.case_else ? 1 : 0);
    if (end < first + 2 || (end - first) % 2 != 0) return Malformed(e);
    std::vector<const Bound*> results;
    for (size_t i = first; i < end; i += 2) {
      const Bound& when = b->children[i];
      if (e.case_operand) {
        CDCLAKE_ASSIGN_OR_RETURN(CompareSpec spec, BindComparison(b->children[0], when, e));
        b->specs.push_back(std::move(spec));
      } else {
        CDCLAKE_RETURN_IF_ERROR(RequireBoolean(when));
      }
      results.push_back(&b->children[i + 1]);
    }
    if (e.case_else) results.push_back(&b->children.back());
    CDCLAKE_ASSIGN_OR_RETURN(b->type, CommonType(results, "CASE branches", e));
    return Status::OK();
  }

  Status BindColumn(const Expr& e, Bound* b) {
    const std::vector<Field>* fields = &schema_.fields();
    std::string where = "in the input";
    TypePtr type;
    for (size_t level = 0; level < e.path.size(); ++level) {
      if (level > 0) {
        if (type->id() != TypeId::kStruct) {
          return Status::InvalidArgument("cannot read '" + e.path[level] + "' of '" +
                                         e.path[level - 1] + "': it is " + type->ToString() +
                                         ", not a struct");
        }
        fields = &type->fields();
        where = "in struct '" + e.path[level - 1] + "'";
      }
      CDCLAKE_ASSIGN_OR_RETURN(int index, FindField(*fields, e.path[level], where));
      b->field_path.push_back(index);
      type = (*fields)[static_cast<size_t>(index)].type;
    }
    b->type = std::move(type);
    return Status::OK();
  }

  static Status Incomparable(const Bound& l, const Bound& r, const Expr& whole) {
    return Status::InvalidArgument("cannot compare " + TypeName(l.type.get()) + " with " +
                                   TypeName(r.type.get()) + ": " + whole.ToString());
  }

  // Parses the string literal `lit` as a value of `temporal`'s type.
  static Status ConvertLiteral(const Bound& lit, const DataType& temporal, const Expr& whole,
                               Side* side) {
    side->has_converted = true;
    const Value& v = lit.expr->literal;
    if (v.is_null()) return Status::OK();
    Result<int64_t> parsed =
        temporal.id() == TypeId::kDate
            ? ParseDateLiteral(v.bytes())
            : ParseTimestampLiteral(v.bytes(), temporal.id() == TypeId::kTimestamp);
    if (!parsed.ok()) {
      return Status::InvalidArgument(parsed.status().message() + ": " + whole.ToString());
    }
    side->converted = Value::Int(*parsed);
    return Status::OK();
  }

  static Result<CompareSpec> BindComparison(const Bound& l, const Bound& r, const Expr& whole) {
    CompareSpec spec;
    Category c[2] = {CategoryOf(l.type.get()), CategoryOf(r.type.get())};
    const Bound* sides[2] = {&l, &r};
    if (c[0] == Category::kNull || c[1] == Category::kNull) {
      spec.domain = Domain::kNull;
      return spec;
    }
    if (IsNumeric(c[0]) && IsNumeric(c[1])) {
      if (c[0] == Category::kFloating || c[1] == Category::kFloating) {
        spec.domain = Domain::kDouble;
      } else if (c[0] == Category::kDecimal || c[1] == Category::kDecimal) {
        spec.domain = Domain::kDecimal;
      } else {
        spec.domain = Domain::kInt;
      }
      for (int i = 0; i < 2; ++i) {
        if (c[i] == Category::kDecimal) spec.side[i].scale = sides[i]->type->scale();
      }
      return spec;
    }
    if (c[0] == Category::kBoolean && c[1] == Category::kBoolean) {
      spec.domain = Domain::kInt;
      return spec;
    }
    if (c[0] == Category::kString && c[1] == Category::kString) {
      spec.domain = Domain::kBytes;
      return spec;
    }
    if (IsTemporal(c[0]) && IsTemporal(c[1])) {
      spec.domain = Domain::kInt;
      if (c[0] != c[1]) spec.side[c[0] == Category::kDate ? 0 : 1].multiplier = kMicrosPerDay;
      return spec;
    }
    for (int i = 0; i < 2; ++i) {
      int o = 1 - i;
      if (IsTemporal(c[i]) && c[o] == Category::kString &&
          sides[o]->expr->kind == ExprKind::kLiteral) {
        spec.domain = Domain::kInt;
        CDCLAKE_RETURN_IF_ERROR(ConvertLiteral(*sides[o], *sides[i]->type, whole, &spec.side[o]));
        return spec;
      }
    }
    return Incomparable(l, r, whole);
  }

  const Schema& schema_;
};

}  // namespace

Result<Bound> BindExpr(const Expr& e, const Schema& schema) {
  Binder binder(schema);
  return binder.Bind(e);
}

Status RequireBoolean(const Bound& b) {
  if (b.type == nullptr || b.type->id() == TypeId::kBoolean) return Status::OK();
  return Status::InvalidArgument("expected a boolean condition, found " + TypeName(b.type.get()) +
                                 ": " + b.expr->ToString());
}

}  // namespace internal

Status ValidatePredicate(const Expr& expr, const Schema& schema) {
  CDCLAKE_ASSIGN_OR_RETURN(internal::Bound bound, internal::BindExpr(expr, schema));
  return internal::RequireBoolean(bound);
}

}  // namespace cdclake::data
