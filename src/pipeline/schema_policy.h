// SchemaPolicy: a target's cdclake.schemaPolicy (evolve, block, quarantine) applied to a batch
// before anything of it is committed, and the "refused" schema-change events of the rows whose
// values did not fit the target's columns.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "pipeline/schema_changes.h"

namespace cdclake::pipeline {

enum class SchemaPolicy { kEvolve, kBlock, kQuarantine };

/// The policy table property `value` names ("evolve" when absent); kInvalidArgument naming the
/// table and the known values for another one.
Result<SchemaPolicy> ParseSchemaPolicy(const std::string& table,
                                       const std::optional<std::string>& value);

/// 'block': kInvalidArgument naming the first record of `rows` rejected because a value did not
/// fit its column's type (RejectedRecord::misfit_column), with where it was; each such column
/// is added to `blocked` with its count of rows (`target` gives its type in the table).
Status CheckNoMisfits(const change::ChangeBatch& rows, const std::string& table,
                      const std::optional<data::Schema>& target,
                      std::vector<SchemaChange>* blocked);

/// 'quarantine': `rows` fitted to the target's columns (`target`): a row holding a value in a
/// column the flow writes (`writes`) and the target lacks, or a value that does not cast to the
/// target column's type, moves to `rows.rejected` naming the column; the columns the target
/// lacks are then dropped, so the target's schema does not change. Columns the flow reads
/// without writing them (conditions, an excluded sequence) stay as they are.
Result<change::ChangeBatch> QuarantineMisfits(change::ChangeBatch rows, const data::Schema& target,
                                              const std::function<bool(const std::string&)>& writes,
                                              const std::string& table);

/// One "refused" change per column for the records of `rows.rejected` a misfit put there (those
/// at or after `quarantined_before`, when given, are new), with their count; `target` gives the
/// column's type in the table when it has the column.
std::vector<SchemaChange> RefusedChanges(
    const change::ChangeBatch& rows,
    const std::optional<change::SourcePosition>& quarantined_before, const std::string& table,
    const std::optional<data::Schema>& target);

}  // namespace cdclake::pipeline
