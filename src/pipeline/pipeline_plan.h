// PipelinePlan: what a parsed pipeline file means — its tables mapped to warehouse folders, its
// flows (ingest into streaming tables, AUTO CDC, snapshots) with their sources resolved through
// views, in an order where every flow runs after the flows that write what it reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apply/flow_definition.h"
#include "base/result.h"
#include "data/schema.h"
#include "pipeline/warehouse.h"
#include "sources/change_source.h"
#include "sources/kafka/kafka_reader.h"
#include "sources/postgres/pg_table_reader.h"
#include "sql/pipeline_ast.h"

namespace cdclake::pipeline {

/// Where a flow's rows come from, before the flow's own clauses.
struct SourcePlan {
  enum class Kind { kFiles, kTable, kPostgres, kKafka };
  Kind kind = Kind::kFiles;
  // kFiles: read_files('pattern', format => ..., schema => ..., fileFormat => ...).
  std::string pattern;
  sources::SourceFormat format = sources::SourceFormat::kJsonLines;
  sources::ChangeSourceOptions options;
  // kTable: a streaming table of the pipeline, or any Delta table in the warehouse, read as a
  // stream of its appended rows.
  std::string table;         // canonical name
  std::string table_folder;  // its folder
  /// kTable read with table_changes('t', start): its change data feed (every change with
  /// _change_type, _commit_version, _commit_timestamp), from `changes_from` (a version) or the
  /// first version committed at or after `changes_from_ms` on the first run.
  bool changes = false;
  /// kTable read with STREAM(t) WITH ('skipChangeCommits' = 'true'): commits that removed or
  /// rewrote rows are passed over (their appended rows too), as Delta's option does.
  bool skip_change_commits = false;
  int64_t changes_from = 0;
  std::optional<int64_t> changes_from_ms;
  // kPostgres: read_postgres(connection => ..., publication => ..., slot => ..., table => ...).
  sources::postgres::PgTableSpec postgres;
  // kKafka: read_kafka(bootstrapServers => ..., subscribe | subscribePattern => ..., ...).
  sources::kafka::KafkaSpec kafka;
  /// SELECT transforms applied to the rows in this order (views' queries, then the streaming
  /// table's own AS SELECT); empty to pass rows as they are.
  std::vector<sql::SelectQuery> transforms;
  /// Views' expectations, each checked on the rows the view's transform yields.
  struct ViewExpectations {
    size_t after_transform = 0;  // index into `transforms`
    std::string view;            // the view's name, the dataset its counts are of
    std::vector<sql::Expectation> expectations;
  };
  std::vector<ViewExpectations> view_expectations;
  /// Whether the source is read with STREAM(...) (a batch read of files re-reads every file).
  bool streaming = true;

  /// "files 'data/*.json' (debezium)", "table shop.bronze", "postgres table public.t (slot s)" or
  /// "kafka topic t (debezium)".
  std::string Describe() const;
};

struct FlowPlan {
  enum class Kind {
    kIngest,    // CREATE STREAMING TABLE t AS SELECT ...: append the source's rows to t
    kAutoCdc,   // AUTO CDC / APPLY CHANGES INTO t
    kSnapshot,  // AUTO CDC INTO t FROM SNAPSHOT
  };
  Kind kind = Kind::kIngest;
  std::string name;           // the flow's name (a streaming table's own flow: the table's name)
  std::string target;         // canonical name of the table it writes
  std::string target_folder;  // its folder
  SourcePlan source;
  /// kAutoCdc and kSnapshot: the flow as the engine runs it (target = target_folder; for
  /// kSnapshot the sequence is left empty: the snapshot version is the sequence).
  apply::FlowDefinition flow;
  bool once = false;  // AUTO CDC ONCE: run only on the first update and on full refreshes
  /// The target table's definition: declared columns, properties, partitioning.
  std::optional<data::Schema> declared_schema;
  std::map<std::string, std::string> table_properties;
  std::set<std::string> property_defaults;  // see apply::FlowDefinition::property_defaults
  std::vector<std::string> partition_columns;
  /// The target's expectations: checked on every row the flow writes into it, before the
  /// append or the merge (pipeline/expectations.h).
  std::vector<sql::Expectation> expectations;
  std::vector<std::string> depends_on;  // names of flows that must run first
  sql::SourcePosition position;         // of the statement, for messages
};

struct PipelinePlan {
  /// The flows in a runnable order: each after every flow writing a table it reads.
  std::vector<FlowPlan> flows;
  /// Every table the pipeline defines (canonical name -> folder).
  std::map<std::string, std::string> tables;
  /// SET key = value statements, in order (later ones win).
  std::map<std::string, std::string> settings;
  /// SET pipelines.trigger.interval: the pause between continuous passes (unless --interval).
  std::optional<int64_t> trigger_interval_ms;
  /// Lines to show the user before the run (a SET key cdclake does not read).
  std::vector<std::string> warnings;
};

/// Resolves `ast` against `warehouse`. kInvalidArgument (with the statement's line and column
/// and a caret) for: a name defined twice, a flow into a table the pipeline does not define as
/// a streaming table, a read_files without a known format or with an unknown option, an AUTO
/// CDC flow whose source is missing, a cycle between flows (naming them), a view reading
/// itself.
Result<PipelinePlan> PlanPipeline(const sql::PipelineAst& ast, const Warehouse& warehouse);

/// The plan as text for --dry-run: one block per flow with its source, target, keys, sequence
/// and dependencies.
std::string DescribePlan(const PipelinePlan& plan);

}  // namespace cdclake::pipeline
