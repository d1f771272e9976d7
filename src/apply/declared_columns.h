// DeclaredColumns: a target's declared column list (CREATE STREAMING TABLE t (id INT NOT NULL,
// ...)) applied to a batch — values cast to the declared types, missing columns NULL, rows
// whose values do not fit turned into rejected records that name the column, value and type.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"

namespace cdclake::apply {

/// What ConformToDeclared did to a batch besides casting.
struct ConformReport {
  /// Source columns the declaration does not list, in source order (not written to the target).
  std::vector<std::string> undeclared;
};

/// `batch` with every declared column (but `__START_AT`/`__END_AT`, which SCD2 fills) cast to
/// its declared type by Spark's CAST, and declared columns the batch lacks added as NULL.
/// A row holding a value that does not cast (a non-NULL value that casts to NULL) moves to
/// `batch.rejected` with a reason naming the column, the value and the type. With
/// `keep_undeclared`, source columns the declaration lacks stay (AUTO CDC conditions and
/// sequences read them); without it they are dropped and the columns are laid out as declared.
/// NOT NULL is not checked here (see NotNullViolation). kInvalidArgument naming the column
/// when a source column's type has no CAST to the declared one. With `rescue_column` (a STRING
/// column of the batch and of `declared`), a value that does not cast is kept there instead
/// (a JSON object of column -> value, merged with what the reader rescued) and the row stays.
Result<change::ChangeBatch> ConformToDeclared(change::ChangeBatch batch,
                                              const data::Schema& declared, bool keep_undeclared,
                                              ConformReport* report,
                                              const std::string& rescue_column = {});

/// For each row of `rows`, the reason it breaks a NOT NULL declaration ("" when it does not);
/// empty when no row does. Columns are found by name; a declared column `rows` lacks is NULL.
/// A NULL that keeps the target's value is no violation: a cell `unchanged` marks (TOAST, SQL
/// Server's update mask; ChangeBatch::unchanged, may be empty), or a column `keeps_on_null`
/// names (IGNORE NULL UPDATES).
std::vector<std::string> NotNullViolations(
    const data::RecordBatch& rows, const data::Schema& declared,
    const std::vector<std::vector<uint8_t>>& unchanged = {},
    const std::function<bool(const std::string&)>& keeps_on_null = nullptr);

/// Keeps the rows of `batch` that break no NOT NULL declaration, moving the others to
/// `batch->rejected` with the reason.
void RejectNotNullViolations(const data::Schema& declared, change::ChangeBatch* batch);

/// Row `r` of `batch` as a rejected record with `reason`, its position and `misfit_column`: the
/// record's text as the source kept it, else the row as JSON.
change::RejectedRecord Rejected(const change::ChangeBatch& batch, int64_t r, std::string reason,
                                std::string misfit_column = {});

/// Whether `name` is one of the bounds SCD TYPE 2 writes (`__START_AT`, `__END_AT`).
bool IsHistoryBound(const std::string& name);

}  // namespace cdclake::apply
