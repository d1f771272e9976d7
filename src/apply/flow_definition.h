// FlowDefinition: what one AUTO CDC flow does — target, keys, sequence, delete and truncate
// conditions, columns, SCD type, tracked history, ignored NULLs, table properties — and the
// checks that reject an invalid one before anything runs.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "data/expression.h"
#include "data/schema.h"

namespace cdclake::apply {

enum class ScdType { kType1 = 1, kType2 = 2 };

/// A column list as the SQL spells it: everything, `cols`, or `* EXCEPT (cols)`.
struct ColumnSelection {
  enum class Mode { kAll, kOnly, kExcept };
  Mode mode = Mode::kAll;
  std::vector<std::string> columns;

  static ColumnSelection All() { return {}; }
  static ColumnSelection Only(std::vector<std::string> c) { return {Mode::kOnly, std::move(c)}; }
  static ColumnSelection Except(std::vector<std::string> c) {
    return {Mode::kExcept, std::move(c)};
  }
  /// Whether `name` is selected.
  bool Selects(const std::string& name) const;
};

struct FlowDefinition {
  std::string name;    // the flow's name, for messages and the commit's txn appId
  std::string target;  // the target table's root folder
  std::vector<std::string> keys;
  std::vector<std::string> sequence_by;             // one column, or the members of a STRUCT
  bool sequence_is_struct = false;                  // SEQUENCE BY STRUCT(...) even with one member
  std::shared_ptr<const data::Expr> delete_when;    // APPLY AS DELETE WHEN
  std::shared_ptr<const data::Expr> truncate_when;  // APPLY AS TRUNCATE WHEN (SCD1 only)
  ColumnSelection columns;                          // COLUMNS ... / * EXCEPT (...)
  ScdType scd_type = ScdType::kType1;
  std::optional<ColumnSelection> track_history;        // TRACK HISTORY ON (SCD2 only)
  std::optional<ColumnSelection> ignore_null_updates;  // IGNORE NULL UPDATES [ON ...]
  std::map<std::string, std::string> table_properties;
  /// Keys of table_properties that are the pipeline's defaults (SET ...defaults...): they reach
  /// a table when it is created and never change an existing one.
  std::set<std::string> property_defaults;
  /// The target's declared column list (CREATE STREAMING TABLE t (id INT NOT NULL, ...)):
  /// when set it is the target's schema; source values are cast to it (declared_columns.h).
  std::optional<data::Schema> declared_schema;
  /// PARTITIONED BY: the target's partition columns when it is created (columns of the target;
  /// an existing table keeps its own, and a different list is an error).
  std::vector<std::string> partition_columns;
};

/// The checks of ValidateFlow that need no source columns (planning runs them): KEYS and
/// SEQUENCE BY given, no key twice, no key left out by COLUMNS, no TRUNCATE with SCD type 2,
/// no TRACK HISTORY with SCD type 1.
Status ValidateFlowShape(const FlowDefinition& flow);

/// Columns Databricks defines on every file source without their being in the data
/// (`_metadata`, `_rescued_data`): a column list may name them though the source lacks them.
bool IsHiddenSourceColumn(const std::string& name);

/// Checks `flow` against the source's columns. kInvalidArgument saying what to change for:
/// no keys; a key, sequence or condition column missing from the source; a column named in
/// COLUMNS, `* EXCEPT`, TRACK HISTORY or IGNORE NULL UPDATES lists (either form) that the source
/// lacks (naming the closest source column; hidden columns count as present); a sequence
/// whose type is not orderable; truncate with SCD type 2; TRACK HISTORY with SCD type 1; a key
/// left out by COLUMNS; a condition that is not boolean over the source.
/// With `check_column_lists` false the lists are not checked (a batch of an existing target
/// that lacks columns: §5 keeps a column the source stops sending).
Status ValidateFlow(const FlowDefinition& flow, const data::Schema& source_schema,
                    bool check_column_lists = true);

/// The target's columns for `source_schema`: selected source columns in source order (the
/// keys always kept), then `__START_AT` and `__END_AT` of the sequence's type for SCD2. With a
/// declared schema: the declared columns in their order (NOT NULL kept), and for SCD2 the
/// declared `__START_AT`/`__END_AT` (of the sequence's type when not declared).
/// REQUIRES: ValidateFlow passed.
data::Schema TargetSchema(const FlowDefinition& flow, const data::Schema& source_schema);

/// The sequence's type: the column's type, or a STRUCT of the members.
data::TypePtr SequenceType(const FlowDefinition& flow, const data::Schema& source_schema);

/// kInvalidArgument when a declared `__START_AT` or `__END_AT` cannot hold the sequence (same
/// type, or an integer at least as wide, is needed). OK without a declaration or for SCD1.
Status CheckDeclaredHistoryBounds(const FlowDefinition& flow, const data::Schema& source_schema);

/// kInvalidArgument naming the column when PARTITIONED BY names a column twice, a column the
/// target (its schema from TargetSchema) lacks, a nested column, or every column.
Status CheckPartitionColumns(const FlowDefinition& flow, const data::Schema& target);

}  // namespace cdclake::apply
