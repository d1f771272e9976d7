// Expression: a condition or value over the columns of a record batch (the tree and its
// evaluation). sql/ builds trees from text; apply/ evaluates them and never parses SQL.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "data/data_type.h"
#include "data/record_batch.h"
#include "data/value.h"

namespace cdclake::data {

enum class ExprKind {
  kColumn,   // a column reference; `path` has one name per level (a.b -> {"a", "b"})
  kLiteral,  // `literal` of `literal_type` (nullptr type for NULL)
  kCompare,  // children[0] op children[1]
  kIn,       // children[0] IN (children[1..]); `negated` for NOT IN
  kIsNull,   // children[0] IS NULL; `negated` for IS NOT NULL
  kAnd,      // children[0] AND children[1]
  kOr,       // children[0] OR children[1]
  kNot,      // NOT children[0]
  // Values (usable anywhere a column is, comparisons included):
  kArithmetic,  // children[0] arith_op children[1]
  kNegate,      // -children[0]
  kConcat,      // children[0] || children[1]
  kCast,        // CAST(children[0] AS cast_type)
  kCase,        // CASE [children[0] if case_operand] (WHEN c THEN v)... [ELSE last child] END
  kFunction,    // function(children...): a name IsScalarFunction knows, lower case
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod };

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  std::vector<std::string> path;     // kColumn
  Value literal;                     // kLiteral
  TypePtr literal_type;              // kLiteral: Boolean, Int64, Decimal(p,s), Double, String
  CompareOp op = CompareOp::kEq;     // kCompare
  bool negated = false;              // kIn, kIsNull
  ArithOp arith_op = ArithOp::kAdd;  // kArithmetic
  TypePtr cast_type;                 // kCast
  std::string function;              // kFunction
  bool case_operand = false;         // kCase: `CASE x WHEN v THEN ...` (children[0] is x)
  bool case_else = false;            // kCase: the last child is the ELSE value
  std::vector<std::unique_ptr<Expr>> children;

  /// SQL text for messages, e.g. "operation = 'DELETE'".
  std::string ToString() const;

  /// A deep copy.
  std::unique_ptr<Expr> Clone() const;

  static std::unique_ptr<Expr> Column(std::vector<std::string> path);
  static std::unique_ptr<Expr> Literal(Value value, TypePtr type);
  static std::unique_ptr<Expr> Compare(CompareOp op, std::unique_ptr<Expr> left,
                                       std::unique_ptr<Expr> right);
  static std::unique_ptr<Expr> And(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right);
  static std::unique_ptr<Expr> Or(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right);
  static std::unique_ptr<Expr> Not(std::unique_ptr<Expr> child);
  /// `value [NOT] IN (list...)`.
  static std::unique_ptr<Expr> In(std::unique_ptr<Expr> value,
                                  std::vector<std::unique_ptr<Expr>> list, bool negated = false);
  /// `child IS [NOT] NULL`.
  static std::unique_ptr<Expr> IsNull(std::unique_ptr<Expr> child, bool negated = false);
  static std::unique_ptr<Expr> Arithmetic(ArithOp op, std::unique_ptr<Expr> left,
                                          std::unique_ptr<Expr> right);
  static std::unique_ptr<Expr> Negate(std::unique_ptr<Expr> child);
  static std::unique_ptr<Expr> Concat(std::unique_ptr<Expr> left, std::unique_ptr<Expr> right);
  static std::unique_ptr<Expr> Cast(std::unique_ptr<Expr> child, TypePtr type);
  /// `name(args...)`; `name` is stored in lower case.
  static std::unique_ptr<Expr> Function(std::string_view name,
                                        std::vector<std::unique_ptr<Expr>> args);
  /// `CASE [operand] WHEN when[i] THEN then[i]... [ELSE otherwise] END`; `operand` and
  /// `otherwise` may be null. REQUIRES: when.size() == then.size().
  static std::unique_ptr<Expr> Case(std::unique_ptr<Expr> operand,
                                    std::vector<std::unique_ptr<Expr>> when,
                                    std::vector<std::unique_ptr<Expr>> then,
                                    std::unique_ptr<Expr> otherwise);
};

/// True for the scalar functions expressions support, by lower-case name: abs, coalesce,
/// concat, length, lower, substr, substring, trim, upper.
bool IsScalarFunction(std::string_view name);

/// The names IsScalarFunction accepts, comma-separated, for messages.
std::string ScalarFunctionNames();

/// The column names an expression reads (the first element of each path), deduplicated, in
/// order of first appearance.
std::vector<std::string> ReferencedColumns(const Expr& expr);

/// Evaluates a boolean condition for every row of `batch` with SQL's three-valued logic; the
/// result holds 1 where the condition is TRUE and 0 where it is FALSE or NULL.
/// Comparisons between numbers of any numeric type compare numerically (integers, decimals of
/// any scale, doubles); a string literal compared with a date or timestamp column is parsed as
/// one ('2024-01-31', '2024-01-31 10:00:00'); strings compare bytewise. kInvalidArgument names
/// the column when it is missing from `batch`, or both types when they cannot be compared
/// (checked once, before any row is evaluated, so an empty batch reports it too).
Result<std::vector<uint8_t>> EvaluatePredicate(const Expr& expr, const RecordBatch& batch);

/// Checks that `expr` is a valid condition over `schema` (columns exist, types comparable,
/// the result is boolean) without evaluating it.
Status ValidatePredicate(const Expr& expr, const Schema& schema);

/// The type of a value expression over `schema`, with Spark's rules (non-ANSI mode):
///  - `+ - *` and `%` on integers give BIGINT; `/` on integers gives DOUBLE; anything with a
///    FLOAT or DOUBLE gives DOUBLE; with a DECIMAL (integers counting as DECIMAL(3|5|10|20,0),
///    an integer literal as DECIMAL(its digits,0)) the precision and scale follow Spark's
///    DecimalPrecision rules, brought within 38 digits by giving up scale down to 6.
///  - unary minus and abs() keep decimals, make integers BIGINT and floats DOUBLE.
///  - `||`, concat, upper, lower, trim and substring give STRING (arguments of other primitive
///    types are cast to STRING); length gives INT.
///  - CAST is allowed between primitives as Spark allows it (strings to and from anything;
///    numbers and booleans among each other; dates and timestamps among each other and from
///    strings; timestamps to and from numbers as seconds); nested types only to themselves.
///  - COALESCE and CASE branches unify: integers widen, integer with decimal widens the decimal,
///    anything numeric with a floating type gives DOUBLE, DATE with TIMESTAMP gives TIMESTAMP,
///    STRING with a number, date or timestamp gives STRING.
///  - comparisons, IN, IS NULL and the connectives give BOOLEAN.
/// Returns nullptr for an expression that is always an untyped NULL (the NULL literal).
/// kInvalidArgument names the expression and the types when the rules reject it.
Result<TypePtr> ResultType(const Expr& expr, const Schema& schema);

/// Evaluates a value expression for every row of `batch` into a column of ResultType (STRING
/// for an untyped NULL). SQL's NULL rules apply: an operator or function with a NULL argument
/// is NULL (except COALESCE and CASE); CASE and COALESCE evaluate a branch only for the rows
/// that take it. Division and modulo by zero give NULL, as Spark's non-ANSI mode does; a CAST
/// of a value that does not convert (a string that is not a number, a number out of the target
/// type's range) gives NULL rather than wrapping. Integer or decimal overflow in arithmetic is
/// kOutOfRange naming the expression. Strings: upper and lower change ASCII letters only;
/// length and substring count UTF-8 characters; trim removes spaces; casting a TIMESTAMP to
/// STRING writes UTC without a zone suffix.
Result<Column> EvaluateValue(const Expr& expr, const RecordBatch& batch);

/// Every row of `column` as CAST(column AS to) gives it in Spark's non-ANSI mode: NULL where a
/// value does not convert (or is out of range). kInvalidArgument when Spark has no such CAST.
Result<Column> CastColumnAs(const Column& column, const TypePtr& to);

/// Parses a date literal as SQL casts a string to DATE: 'YYYY-MM-DD', optionally followed by a
/// time (and zone) that is checked and dropped. Returns days since 1970-01-01.
Result<int64_t> ParseDateLiteral(std::string_view text);

/// Parses a timestamp literal: 'YYYY-MM-DD' (midnight), then ' ' or 'T' and HH:MM[:SS[.f...]]
/// (fractions past microseconds are dropped), then optionally 'Z' or an offset (+HH:MM, -HHMM).
/// Returns microseconds since the epoch; the offset is applied when `apply_offset` (TIMESTAMP)
/// and ignored otherwise (TIMESTAMP_NTZ).
Result<int64_t> ParseTimestampLiteral(std::string_view text, bool apply_offset);

}  // namespace cdclake::data
