// Pipeline SELECT queries and sources: SELECT items FROM source [WHERE cond], where a source is
// a name, STREAM(name), STREAM name, read_files('glob', k => v, ...) or read_postgres(k => v, ...),
// streamed or not.
#pragma once

#include "base/result.h"
#include "sql/pipeline_ast.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

/// A source at the cursor: `name`, `LIVE.name`, `c.s.t`, `STREAM(x)`, `STREAM x`,
/// `read_files(...)`, `STREAM(read_files(...))`. Subqueries and other table-valued functions are
/// errors that name them.
Result<SourceRef> ParseSourceRef(TokenStream& tokens);

/// SELECT at the cursor up to the first token it cannot use (';', the end). DISTINCT, joins,
/// GROUP BY, ORDER BY, HAVING, LIMIT, UNION and the like are errors that name them.
Result<SelectQuery> ParseSelectQuery(TokenStream& tokens);

}  // namespace cdclake::sql
