// Shared by the files of data/expression/ (not part of the public contract): the bound tree the
// binder checks once against a schema, and the evaluator that runs it a column at a time.
#pragma once

#include <cstdint>
#include <string>
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

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

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
};

/// Evaluates a bound tree over every row of one batch (whose schema it was bound to).
class Evaluator {
 public:
  explicit Evaluator(const RecordBatch& batch) : batch_(batch), n_(batch.num_rows()) {}

  /// The three-valued result of a boolean node for every row.
  std::vector<uint8_t> EvalBool(const Bound& b);

 private:
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
};

}  // namespace cdclake::data::internal
