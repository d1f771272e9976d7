// ConditionParser: SQL condition and value-expression text (APPLY AS DELETE WHEN ...,
// --delete-when, SELECT lists) into a data::Expr. Errors name the line and column and show the text
// with a caret.
#pragma once

#include <memory>
#include <string_view>

#include "base/result.h"
#include "data/expression.h"

namespace cdclake::sql {

/// Parses a condition: comparisons `= <> != < <= > >=`, `IN (...)`, `NOT IN (...)`,
/// `IS [NOT] NULL`, `AND OR NOT`, parentheses, 'single' and "double" quoted strings (a quote
/// inside doubles itself: 'it''s'), numbers (integers -> BIGINT, with a point -> DECIMAL,
/// with an exponent -> DOUBLE), TRUE FALSE NULL, DATE/TIMESTAMP '...' literals, and column
/// names, dotted for nested fields (`a.b`) or quoted with backticks. Values may be computed:
/// `+ - * / %`, unary minus, `||` (as tight as + and -, as in Spark), CAST(x AS type) (type
/// names as ParseTypeName reads them), CASE [x] WHEN ... THEN ... [ELSE ...] END, and the
/// functions data::IsScalarFunction names (case-insensitive; an unknown name is an error at
/// its position). Keywords are case-insensitive. Types are checked later, by
/// data::ValidatePredicate or data::ResultType. A syntax error is kInvalidArgument with a message
/// such as:
///   line 1, column 12: expected a value after '='
///     operation = AND x
///                 ^
Result<std::unique_ptr<data::Expr>> ParseCondition(std::string_view text);

}  // namespace cdclake::sql
