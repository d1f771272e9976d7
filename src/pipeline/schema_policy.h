// SchemaPolicy: a target's cdclake.schemaPolicy (evolve, block, quarantine) applied to a batch
// before anything of it is committed, and the "refused" schema-change events of the rows whose
// values did not fit the target's columns.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "pipeline/schema_changes.h"

namespace cdclake::pipeline {

/// kDeclared is no value of the property: it is what a table with a declared column list gets
/// when the property is absent (the seeds' contract, see CheckDeclaredContract).
enum class SchemaPolicy { kEvolve, kBlock, kQuarantine, kDeclared };

/// The policy table property `value` names: when absent, kDeclared for a table that declares
/// its columns (`declared`), kEvolve otherwise; kInvalidArgument naming the table and the known
/// values for another one.
Result<SchemaPolicy> ParseSchemaPolicy(const std::string& table,
                                       const std::optional<std::string>& value,
                                       bool declared = false);

/// 'block': kInvalidArgument naming the first record of `rows` rejected because a value did not
/// fit its column's type (RejectedRecord::misfit_column), with where it was; each such column
/// is added to `blocked` with its count of rows (`target` gives its type in the table).
Status CheckNoMisfits(const change::ChangeBatch& rows, const std::string& table,
                      const std::optional<data::Schema>& target,
                      std::vector<SchemaChange>* blocked);

/// kDeclared: tolerate a column the declaration lacks (it is left out, as ever), stop on a
/// declared column the flow writes (`writes`) that the source stopped sending or retyped.
/// kInvalidArgument, before anything of the batch is committed, naming each such column:
///  - no longer sent: the flow's previous batch read it (`read_before`; null when not known,
///    or when this batch cannot tell: key-only deletes, JSON Lines' left-out keys) and this
///    one (`read`: the columns as the source sent them) does not;
///  - retyped: at least two of its values did not fit the declared type (`rows.rejected`
///    records naming the column, set aside by the reader or by the cast) and not one did: none
///    is left in `rows` (the batch after the cast) and the batch held no more values of it
///    before the cast than were refused (`values_sent`: each column's non-NULL values, so that
///    a fitting value in a row set aside for NOT NULL counts). CSV
///    and JSON types are inferred per file, so a type name cannot tell a retyped column from
///    one bad value: a value that does not fit among values that do, or alone, is a bad row,
///    set aside as under 'evolve'; a type change whose values still cast is no change; values
///    a rescued-data column took are kept there and do not count.
/// Each column stopped for is added to `blocked` (action "blocked", by_declaration; old_type
/// the declared type).
Status CheckDeclaredContract(const change::ChangeBatch& rows, const data::Schema& read,
                             const std::map<std::string, int64_t>& values_sent,
                             const data::Schema* read_before, const data::Schema& declared,
                             const std::function<bool(const std::string&)>& writes,
                             const std::string& table, std::vector<SchemaChange>* blocked);

/// kNotSupported for kQuarantine on `table_name`, the target of a FROM SNAPSHOT flow: a row set
/// aside from a snapshot would read as a deleted key. OK for the other policies.
Status CheckSnapshotPolicy(SchemaPolicy policy, const std::string& table_name);

/// A snapshot's columns (`columns`, of file `path`) under `policy`, before anything of it is
/// applied to a FROM SNAPSHOT flow's target, whose columns are `table` (null before it exists
/// and without a declaration: the first snapshot makes it). kBlock: kInvalidArgument when a
/// column the flow writes (`writes`) is not in the table or has another type, or a table
/// column the flow writes is not in the snapshot; with `cast_to_table` (a declared table, whose
/// types the snapshot's values are cast to) types are not compared. kDeclared (`table` the
/// declared columns): a
/// declared column the previous snapshot had (`previous`, null when not known) and this one
/// lacks; an added column is left out, a value that does not cast is a bad row as ever.
/// kQuarantine is refused (CheckSnapshotPolicy). Each column stopped for is added to `blocked`.
Status CheckSnapshotColumns(SchemaPolicy policy, const data::Schema& columns,
                            const data::Schema* previous, const data::Schema* table,
                            bool cast_to_table,
                            const std::function<bool(const std::string&)>& writes,
                            const std::string& table_name, const std::string& path,
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
