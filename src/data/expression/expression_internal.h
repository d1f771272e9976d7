// Shared by the files of data/expression/ (not part of the public contract): the bound tree the
// binder checks once against a schema, and the evaluator that runs it a column at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "data/column.h"
#include "data/data_type.h"
#include "data/expression.h"
#include "data/record_batch.h"
#include "data/schema.h"
#include "data/value.h"

namespace cdclake::data::internal {

/// The operator's SQL spelling: + - * / %.
std::string_view ArithText(ArithOp op);

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

// What a type is for the binder's rules.
enum class Category {
  kNull,
  kBoolean,
  kInteger,
  kDecimal,
  kFloating,
  kString,
  kDate,
  kTime,
  kOther
};

inline Category CategoryOf(const DataType* type) {
  if (type == nullptr) return Category::kNull;
  switch (type->id()) {
    case TypeId::kBoolean:
      return Category::kBoolean;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return Category::kInteger;
    case TypeId::kDecimal:
      return Category::kDecimal;
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Category::kFloating;
    case TypeId::kString:
    case TypeId::kBinary:
      return Category::kString;
    case TypeId::kDate:
      return Category::kDate;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return Category::kTime;
    default:
      return Category::kOther;
  }
}

inline bool IsNumeric(Category c) {
  return c == Category::kInteger || c == Category::kDecimal || c == Category::kFloating;
}

inline bool IsTemporal(Category c) {
  return c == Category::kDate || c == Category::kTime;
}

inline std::string TypeName(const DataType* type) {
  return type == nullptr ? "NULL" : type->ToString();
}

// Three-valued results, ordered so that AND is min, OR is max and NOT is 2 - x.
inline constexpr uint8_t kFalse = 0;
inline constexpr uint8_t kNull = 1;
inline constexpr uint8_t kTrue = 2;

// The representation both sides of a comparison are brought to.
enum class Domain {
  kNull,     // one side is the NULL literal: every row is NULL
  kInt,      // int64: integers, booleans, dates (days), timestamps (micros)
  kDecimal,  // Int128 with a scale per side: integers and decimals
  kDouble,   // floats and doubles with anything numeric
  kBytes,    // strings and binary, bytewise
};

struct Side {
  int scale = 0;               // kDecimal
  int64_t multiplier = 1;      // kInt: a date compared with a timestamp is brought to micros
  bool has_converted = false;  // a string literal parsed as a date or timestamp
  Value converted;
};

struct CompareSpec {
  Domain domain = Domain::kNull;
  Side side[2];
};

struct Bound {
  const Expr* expr = nullptr;
  TypePtr type;                    // the value's type; nullptr for the NULL literal
  std::vector<int> field_path;     // kColumn: the field index at each level
  std::vector<CompareSpec> specs;  // kCompare: one; kIn: one per list item
  std::vector<Bound> children;
};

/// Resolves the names in `e` to field indexes of `schema` and gives every comparison a domain,
/// before any row is read. kInvalidArgument for a missing or ambiguous column, types that cannot
/// be compared, or a malformed tree.
Result<Bound> BindExpr(const Expr& e, const Schema& schema);

/// kInvalidArgument unless `b` is a boolean value (or the NULL literal).
Status RequireBoolean(const Bound& b);

// type_rules.cc: the types of value nodes (see ResultType in expression.h).

/// The type of `l op r`; nullptr when both are the NULL literal.
Result<TypePtr> ArithmeticType(ArithOp op, const Bound& l, const Bound& r, const Expr& whole);
/// The type of `-x` and abs(x).
Result<TypePtr> NegateType(const Bound& x, const Expr& whole);
/// The one type `items` all widen to; `what` names them in messages ("CASE branches").
Result<TypePtr> CommonType(const std::vector<const Bound*>& items, std::string_view what,
                           const Expr& whole);
/// Whether CAST(from AS to) is allowed.
bool CanCast(const DataType& from, const DataType& to);
/// The type of a kFunction node whose arguments are bound.
Result<TypePtr> FunctionType(const Expr& e, const std::vector<Bound>& args);
/// Spark's bound on decimal results past 38 digits: scale gives way, down to 6.
TypePtr AdjustedDecimal(int precision, int scale);
/// The decimal an integer or decimal operand counts as (an integer literal by its digits).
TypePtr DecimalOf(const Bound& b);

// cast.cc: conversions of values and columns (non-ANSI: NULL where a value does not convert).

/// `v` of type `from` as `to`. REQUIRES: CanCast(from, to).
Value CastValue(const Value& v, const DataType& from, const DataType& to);
/// Every row of `c` cast to `to` (a copy when the types are equal).
Column CastColumn(const Column& c, const TypePtr& to);
/// Unscaled `v` at scale `from` brought to scale `to`, rounding half away from zero; false when
/// the result does not fit 128 bits.
bool Rescale(Int128 v, int from, int to, Int128* out);

// arithmetic.cc

/// -c (or |c| when `abs`) as `type` (BIGINT, DECIMAL or DOUBLE); kOutOfRange naming `e` when
/// a BIGINT overflows.
Result<Column> NegateColumn(const Column& c, const TypePtr& type, bool abs, const Expr& e);

// One side of a comparison over every row, in the comparison's domain: a scalar (a literal) or
// an array, with its validity.
struct Operand {
  bool scalar = false;
  bool null = false;               // a NULL scalar
  const uint8_t* valid = nullptr;  // arrays: nullptr when every row is valid
  std::vector<uint8_t> valid_storage;
  int scale = 0;  // kDecimal
  const int64_t* i64 = nullptr;
  std::vector<int64_t> i64_storage;
  int64_t i64_value = 0;
  const Int128* dec = nullptr;
  std::vector<Int128> dec_storage;
  Int128 dec_value = 0;
  const double* f64 = nullptr;
  std::vector<double> f64_storage;
  double f64_value = 0;
  const Column* strings = nullptr;
  std::string str_value;
  std::shared_ptr<const Column> owned;  // a computed value the pointers above read
};

/// Evaluates a bound tree over every row of one batch (whose schema it was bound to).
class Evaluator {
 public:
  explicit Evaluator(const RecordBatch& batch) : batch_(batch), n_(batch.num_rows()) {}

  /// The three-valued result of a boolean node for every row. An error in a value below it
  /// (overflow) leaves those rows NULL and is kept in status().
  std::vector<uint8_t> EvalBool(const Bound& b);

  /// The value of any node for every row, as a column of its bound type (STRING for an untyped
  /// NULL).
  Result<Column> EvalValue(const Bound& b);

  /// The first error EvalBool met.
  const Status& status() const { return status_; }

 private:
  // value.cc: value nodes.
  Result<Column> EvalCase(const Bound& b);
  Result<Column> EvalCoalesce(const Bound& b);
  Result<Column> EvalFunction(const Bound& b);
  /// The value of `b` over the rows `rows` of the batch only (for branches).
  Result<Column> EvalValueOn(const Bound& b, const std::vector<int64_t>& rows);
  /// EvalBool over the rows `rows` only; errors as values.
  Result<std::vector<uint8_t>> EvalBoolOn(const Bound& b, const std::vector<int64_t>& rows);
  /// Operand == value (a simple CASE's WHEN) over the rows `rows` only.
  Result<std::vector<uint8_t>> EqualOn(const Bound& operand, const Bound& value,
                                       const CompareSpec& spec, const std::vector<int64_t>& rows);
  /// The value of a node EvalBool does not know (a value of BOOLEAN type) as three-valued.
  std::vector<uint8_t> BoolFromValue(const Bound& b);
  void Keep(const Status& s) {
    if (status_.ok()) status_ = s;
  }

  /// Unscaled `v` at scale `from` brought to scale `to`, rounding half away from zero; false when
  /// the result does not fit 128 bits.
  bool Rescale(Int128 v, int from, int to, Int128* out);

  // arithmetic.cc
  Result<Column> EvalArithmetic(const Bound& b);
  Result<Column> EvalNegate(const Bound& b);

  // logic.cc: columns, IS NULL, IN and the connectives.
  const Column& Leaf(const Bound& b, std::vector<uint8_t>* storage, const uint8_t** valid);
  std::vector<uint8_t> NullMask(const Bound& b);
  std::vector<uint8_t> EvalIn(const Bound& b);

  // comparison.cc: operands in a comparison's domain, and the vectorized comparison.
  void SetScalar(const Value& v, Domain domain, const Side& side, Operand* o);
  void SetArray(const Column& c, Domain domain, const Side& side, Operand* o);
  Operand MakeOperand(const Bound& b, Domain domain, const Side& side);
  void Compare(Domain domain, CompareOp op, const Operand& left, const Operand& right,
               uint8_t* out);

  const RecordBatch& batch_;
  int64_t n_;
  Status status_;
};

/// True for the kinds EvalBool evaluates itself (predicates and connectives).
bool IsPredicateKind(ExprKind kind);

}  // namespace cdclake::data::internal
