// SelectTransform: a pipeline's SELECT (a view's, or a streaming table's AS SELECT) applied to
// change rows — the WHERE filter, then the SELECT list — keeping each row's position, raw text
// and unchanged marks.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sql/pipeline_ast.h"

namespace cdclake::pipeline {

/// The columns `query` yields over rows of `input`: `*` (or `t.*`) gives every column, `*
/// EXCEPT (a, b)` every column but those (each must exist), `expr [AS name]` one column named
/// by the alias, else by the column's own name for a column reference (`a.b` → `b`), else by
/// the expression's SQL text. kInvalidArgument for a name that is missing, two output columns
/// with one name, or a WHERE that is not a condition over `input`.
/// `hidden` names columns of `input` that `*` leaves out (the file sources' `_metadata`).
Result<data::Schema> SelectSchema(const sql::SelectQuery& query, const data::Schema& input,
                                  const std::vector<std::string>& hidden = {});

/// Applies `query` to `batch`: rows where WHERE is not TRUE are dropped, then the SELECT list
/// is evaluated. A column passed through keeps its unchanged marks; a computed column is
/// unchanged in a row when a column it reads is.
Result<change::ChangeBatch> ApplySelect(const sql::SelectQuery& query, change::ChangeBatch batch,
                                        const std::vector<std::string>& hidden = {});

}  // namespace cdclake::pipeline
