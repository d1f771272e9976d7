// Expression: a condition or value over the columns of a record batch (the tree and its
// evaluation). sql/ builds trees from text; apply/ evaluates them and never parses SQL.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
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
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  std::vector<std::string> path;  // kColumn
  Value literal;                  // kLiteral
  TypePtr literal_type;           // kLiteral: Boolean, Int64, Decimal(p,s), Double, String
  CompareOp op = CompareOp::kEq;  // kCompare
  bool negated = false;           // kIn, kIsNull
  std::vector<std::unique_ptr<Expr>> children;

  /// SQL text for messages, e.g. "operation = 'DELETE'".
  std::string ToString() const;

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
};

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

/// Parses a date literal as SQL casts a string to DATE: 'YYYY-MM-DD', optionally followed by a
/// time (and zone) that is checked and dropped. Returns days since 1970-01-01.
Result<int64_t> ParseDateLiteral(std::string_view text);

/// Parses a timestamp literal: 'YYYY-MM-DD' (midnight), then ' ' or 'T' and HH:MM[:SS[.f...]]
/// (fractions past microseconds are dropped), then optionally 'Z' or an offset (+HH:MM, -HHMM).
/// Returns microseconds since the epoch; the offset is applied when `apply_offset` (TIMESTAMP)
/// and ignored otherwise (TIMESTAMP_NTZ).
Result<int64_t> ParseTimestampLiteral(std::string_view text, bool apply_offset);

}  // namespace cdclake::data
