// ParseExpression: one SQL expression read at a TokenStream's cursor, for the statement parsers
// (SELECT lists, WHERE, AUTO CDC clauses) that embed expressions in larger statements.
#pragma once

#include <memory>

#include "base/result.h"
#include "data/expression.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

/// Parses the longest expression starting at the cursor (a condition or a value) and leaves the
/// cursor on the first token that cannot continue it (`,` `)` FROM AS WHERE, a keyword that is
/// not part of the expression grammar, the end). Errors as ParseCondition's.
Result<std::unique_ptr<data::Expr>> ParseExpression(TokenStream& tokens);

}  // namespace cdclake::sql
