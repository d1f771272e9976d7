// PipelineAst: the syntax tree of a pipeline file (Lakeflow / DLT pipeline SQL) as written, with
// the position of every statement and clause for later error messages. No meaning is checked here.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "data/expression.h"
#include "data/schema.h"

namespace cdclake::sql {

/// Where a statement or clause starts in PipelineAst::source: lines and columns count from 1,
/// columns in characters (as SyntaxError counts them); `offset` is the byte offset.
struct SourcePosition {
  int line = 1;
  int column = 1;
  size_t offset = 0;
};

/// A possibly qualified name as written: `LIVE.orders` -> {"LIVE", "orders"}, `c.s.t` -> 3 parts.
struct TableName {
  std::vector<std::string> parts;

  /// True when the first of two or more parts is the legacy `LIVE` schema (any case).
  bool HasLivePrefix() const;
  /// The parts without a leading `LIVE.`.
  std::vector<std::string> WithoutLive() const;
  /// The parts joined by '.', quoting none: "LIVE.orders".
  std::string ToString() const;
};

/// The columns a clause picks: every column, only the listed ones, or all but the listed ones.
struct ColumnSelection {
  enum class Mode { kAll, kOnly, kExcept };
  Mode mode = Mode::kAll;
  std::vector<std::string> columns;
  SourcePosition position;  // of the list; meaningless for kAll when the clause is absent
};

/// One `name => value` argument of read_files(...), read_postgres(...) or read_kafka(...).
struct NamedArgument {
  enum class Kind { kString, kNumber, kBoolean };
  std::string name;
  Kind kind = Kind::kString;
  std::string value;  // the string without quotes, the number as written, "true" / "false"
  SourcePosition position;
};

/// What a flow or query reads: a table or view by name, files through read_files(...), a
/// PostgreSQL table's changes through read_postgres(...), or Kafka topics through read_kafka(...).
struct SourceRef {
  enum class Kind { kTable, kReadFiles, kReadPostgres, kReadKafka, kTableChanges };
  Kind kind = Kind::kTable;
  bool streaming = false;  // STREAM(x) or STREAM x
  /// STREAM(t) WITH ('skipChangeCommits' = 'true'): commits that removed or rewrote rows are
  /// passed over instead of stopping the stream.
  bool skip_change_commits = false;
  TableName table;  // kTable; kTableChanges: the table whose changes are read
  /// kTableChanges: table_changes('t', start): the first version read, or a timestamp.
  std::optional<int64_t> starting_version;
  std::string starting_timestamp;
  std::string path;                    // kReadFiles: the first (positional) argument
  std::vector<NamedArgument> options;  // the function's named arguments in order
  SourcePosition position;

  /// The option named `name` (case-insensitive), or nullptr.
  const NamedArgument* FindOption(std::string_view name) const;
};

/// One item of a SELECT list.
struct SelectItem {
  enum class Kind { kStar, kExpression };
  Kind kind = Kind::kStar;
  std::vector<std::string> qualifier;            // kStar: `t` of `t.*`; empty for a bare `*`
  std::vector<std::string> except;               // kStar: `* EXCEPT (a, b)`
  std::shared_ptr<const data::Expr> expression;  // kExpression
  std::string alias;                             // kExpression: empty without AS
  SourcePosition position;
};

/// SELECT items FROM source [alias] [WHERE condition].
struct SelectQuery {
  std::vector<SelectItem> items;
  SourceRef from;
  std::string from_alias;                   // empty when none
  std::shared_ptr<const data::Expr> where;  // nullptr when none
  SourcePosition position;
};

/// SET key = value: both as written, trimmed (quotes kept).
struct SetStatement {
  std::string key;
  std::string value;
};

/// A `'key' = 'value'` pair of TBLPROPERTIES, values unquoted.
struct TableProperty {
  std::string key;
  std::string value;
};

/// CREATE [OR REFRESH] STREAMING [LIVE] TABLE name [(columns)] [clauses] [AS SELECT ...].
/// CONSTRAINT name EXPECT (condition) [ON VIOLATION {DROP ROW | FAIL UPDATE}]: a data-quality
/// check of every row a flow writes into the table. A row passes when the condition is TRUE.
struct Expectation {
  enum class Action { kWarn, kDropRow, kFailUpdate };
  std::string name;
  std::shared_ptr<const data::Expr> condition;
  std::string text;  // the condition as written
  Action action = Action::kWarn;
  SourcePosition position;
};

/// "warn", "drop row", "fail update".
const char* ExpectationActionName(Expectation::Action action);

struct CreateStreamingTable {
  TableName name;
  bool or_refresh = false;
  bool legacy_live = false;            // CREATE STREAMING LIVE TABLE
  std::optional<data::Schema> schema;  // the column definitions, when given
  std::vector<Expectation> expectations;
  std::string comment;
  std::vector<std::string> partition_columns;
  std::vector<TableProperty> properties;
  std::optional<SelectQuery> query;  // AS SELECT ...
};

/// CREATE [OR REPLACE] TEMPORARY [STREAMING] [LIVE] VIEW name [COMMENT '...'] AS SELECT ...
struct CreateView {
  TableName name;
  bool or_replace = false;
  std::vector<Expectation> expectations;  // (CONSTRAINT ... EXPECT ..., ...) after the name
  std::string comment;
  SelectQuery query;
};

/// CREATE FLOW f [COMMENT '...'] AS INSERT INTO [ONCE] target BY NAME SELECT ...: an append flow,
/// one of several that may append to the same streaming table, each from its own position.
struct AppendFlow {
  std::string flow_name;
  std::string comment;
  bool once = false;
  TableName target;
  SelectQuery query;
};

/// CREATE FLOW f AS AUTO CDC [ONCE] INTO target FROM source ..., the same with APPLY CHANGES
/// INTO, or the legacy statement APPLY CHANGES INTO target FROM source ... (no flow name).
struct AutoCdcFlow {
  enum class Spelling { kAutoCdc, kApplyChanges };
  std::string flow_name;  // empty for a bare APPLY CHANGES INTO statement
  std::string comment;
  Spelling spelling = Spelling::kAutoCdc;
  bool once = false;
  TableName target;
  SourceRef source;
  std::vector<std::string> keys;
  bool ignore_null_updates = false;
  ColumnSelection ignore_null_updates_columns;          // kAll unless IGNORE NULL UPDATES ON ...
  std::shared_ptr<const data::Expr> apply_as_delete;    // nullptr when absent
  std::shared_ptr<const data::Expr> apply_as_truncate;  // nullptr when absent
  std::vector<std::string> sequence_by;                 // one column, or the fields of STRUCT(...)
  bool sequence_by_struct = false;
  ColumnSelection columns;        // COLUMNS ...; kAll when absent
  int scd_type = 1;               // STORED AS SCD TYPE n
  ColumnSelection track_history;  // TRACK HISTORY ON ...; kAll when absent
  SourcePosition sequence_by_position;
};

/// CREATE FLOW f AS AUTO CDC INTO target FROM SNAPSHOT (source) [WITH VERSION (expr)] KEYS (...)
/// [STORED AS SCD TYPE n] [TRACK HISTORY ON ...]. Databricks has this only in Python; the SQL
/// spelling is cdclake's.
struct SnapshotFlow {
  std::string flow_name;
  std::string comment;
  TableName target;
  SourceRef source;
  std::shared_ptr<const data::Expr> version;  // nullptr without WITH VERSION
  std::vector<std::string> keys;
  int scd_type = 1;
  ColumnSelection track_history;
};

/// One statement of a pipeline file and where it starts.
struct PipelineStatement {
  using Body = std::variant<SetStatement, CreateStreamingTable, CreateView, AutoCdcFlow,
                            SnapshotFlow, AppendFlow>;
  Body body;
  SourcePosition position;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&body);
  }
};

/// A parsed pipeline file. Positions point into `source`, the text after ${var} substitution, so
/// SyntaxError(source, position.offset, ...) reports a later problem with a caret.
struct PipelineAst {
  std::string source;
  std::vector<PipelineStatement> statements;
};

}  // namespace cdclake::sql
