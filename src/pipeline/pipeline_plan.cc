// Planning: statements to flows, sources resolved through views, flows ordered by what they read.
#include "pipeline/pipeline_plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "base/strings.h"
#include "delta/partition_value.h"
#include "io/file_system.h"
#include "pipeline/bronze_columns.h"
#include "sql/lexer.h"
#include "sql/schema_ddl.h"

namespace cdclake::pipeline {

namespace {

using sql::PipelineAst;
using sql::SourcePosition;

apply::ColumnSelection ToSelection(const sql::ColumnSelection& s) {
  switch (s.mode) {
    case sql::ColumnSelection::Mode::kAll:
      return apply::ColumnSelection::All();
    case sql::ColumnSelection::Mode::kOnly:
      return apply::ColumnSelection::Only(s.columns);
    case sql::ColumnSelection::Mode::kExcept:
      return apply::ColumnSelection::Except(s.columns);
  }
  return apply::ColumnSelection::All();
}

// The SET keys cdclake reads (docs/pipeline-language.md).
constexpr const char* kTriggerInterval = "pipelines.trigger.interval";
constexpr std::string_view kDeltaDefaults = "spark.databricks.delta.properties.defaults.";
// Table properties a SET gives every table of the pipeline that does not set them itself.
constexpr std::string_view kPropertyKeys[] = {"pipelines.cdc.tombstoneGCThresholdInSeconds",
                                              "cdclake.lateEventPolicy"};

// A SET value without the quotes around it.
std::string Unquoted(std::string value) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// A string or number argument holding a whole number in [min, max]; nullopt otherwise.
std::optional<int64_t> WholeNumberArgument(const sql::NamedArgument& arg, int64_t min,
                                           int64_t max) {
  if (arg.kind == sql::NamedArgument::Kind::kBoolean) return std::nullopt;
  int64_t n = 0;
  const char* last = arg.value.data() + arg.value.size();
  auto [end, ec] = std::from_chars(arg.value.data(), last, n);
  if (ec != std::errc() || end != last || n < min || n > max) return std::nullopt;
  return n;
}

// "10 seconds", "1 minute", "500 milliseconds", "2 hours", "1s" -> milliseconds.
std::optional<int64_t> ParseDuration(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 12) return std::nullopt;
  int64_t n = std::stoll(text.substr(0, i));
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit = ToLower(text.substr(i));
  if (!unit.empty() && unit.back() == 's' && unit.size() > 2) unit.pop_back();  // plurals
  if (unit == "ms" || unit == "millisecond") return n;
  if (unit == "s" || unit == "sec" || unit == "second") return n * 1000;
  if (unit == "m" || unit == "min" || unit == "minute") return n * 60'000;
  if (unit == "h" || unit == "hour") return n * 3'600'000;
  return std::nullopt;
}

class Planner {
 public:
  Planner(const PipelineAst& ast, const Warehouse& warehouse) : ast_(ast), warehouse_(warehouse) {}

  Result<PipelinePlan> Plan() {
    CDCLAKE_RETURN_IF_ERROR(CollectDefinitions());
    for (const sql::PipelineStatement& st : ast_.statements) {
      if (const auto* table = st.As<sql::CreateStreamingTable>()) {
        if (table->query) CDCLAKE_RETURN_IF_ERROR(PlanIngest(*table, st.position));
      } else if (const auto* flow = st.As<sql::AutoCdcFlow>()) {
        CDCLAKE_RETURN_IF_ERROR(PlanAutoCdc(*flow, st.position));
      } else if (const auto* snap = st.As<sql::SnapshotFlow>()) {
        CDCLAKE_RETURN_IF_ERROR(PlanSnapshot(*snap, st.position));
      } else if (const auto* append = st.As<sql::AppendFlow>()) {
        CDCLAKE_RETURN_IF_ERROR(PlanAppend(*append, st.position));
      }
    }
    CDCLAKE_RETURN_IF_ERROR(CheckTargetWriters());
    CDCLAKE_RETURN_IF_ERROR(Order());
    CDCLAKE_RETURN_IF_ERROR(CheckTableReads());
    CDCLAKE_RETURN_IF_ERROR(CheckSettings());
    CDCLAKE_RETURN_IF_ERROR(CheckSharedSlots());
    RequireDownstreamSequences();
    for (FlowPlan& f : plan_.flows) {
      // A large transaction's changes wait for its commit beside the table they go to.
      if (f.source.kind != SourcePlan::Kind::kPostgres) continue;
      f.source.postgres.spill.folder = io::JoinPath(f.target_folder, "_cdclake/spill");
    }
    return std::move(plan_);
  }

 private:
  // A slot several flows read moves on only once all of them have read (SharedSlot): an
  // AUTO CDC ONCE flow stops reading after its first run and would hold it back for good.
  Status CheckSharedSlots() const {
    for (const FlowPlan& once : plan_.flows) {
      if (!once.once || once.source.kind != SourcePlan::Kind::kPostgres) continue;
      for (const FlowPlan& other : plan_.flows) {
        if (&other == &once || other.source.kind != SourcePlan::Kind::kPostgres ||
            other.source.postgres.connection != once.source.postgres.connection ||
            other.source.postgres.slot != once.source.postgres.slot) {
          continue;
        }
        return Status::InvalidArgument(
            "flow " + once.name + ": AUTO CDC ONCE reads slot '" + once.source.postgres.slot +
            "', which flow " + other.name +
            " reads too; a shared slot moves on only once every flow reading it has read, and a "
            "ONCE flow stops after its first run: give it a slot of its own");
      }
    }
    return Status::OK();
  }

  Status ErrorAt(const SourcePosition& at, const std::string& message) const {
    return sql::SyntaxError(ast_.source, at.offset, message);
  }

  Result<std::string> Canonical(const sql::TableName& name, const SourcePosition& at) const {
    auto canonical = warehouse_.CanonicalName(name.ToString());
    if (!canonical.ok()) return ErrorAt(at, canonical.status().message());
    return canonical;
  }

  Status CollectDefinitions() {
    for (const sql::PipelineStatement& st : ast_.statements) {
      if (const auto* set = st.As<sql::SetStatement>()) {
        plan_.settings[set->key] = set->value;
      } else if (const auto* table = st.As<sql::CreateStreamingTable>()) {
        CDCLAKE_ASSIGN_OR_RETURN(std::string name, Canonical(table->name, st.position));
        if (tables_.count(name) > 0 || views_.count(name) > 0) {
          return ErrorAt(st.position, "'" + name + "' is defined twice");
        }
        tables_[name] = table;
        CDCLAKE_ASSIGN_OR_RETURN(plan_.tables[name],
                                 warehouse_.TableFolder(table->name.ToString()));
      } else if (const auto* view = st.As<sql::CreateView>()) {
        // Views are not tables: their names are not folders, so they keep the names as written.
        std::string name = ToLower(JoinNames(view->name.WithoutLive()));
        CDCLAKE_ASSIGN_OR_RETURN(std::string canonical, Canonical(view->name, st.position));
        if (tables_.count(canonical) > 0 || views_.count(name) > 0) {
          return ErrorAt(st.position, "'" + view->name.ToString() + "' is defined twice");
        }
        views_[name] = view;
        views_[ToLower(canonical)] = view;
      }
    }
    return Status::OK();
  }

  const sql::CreateView* FindView(const sql::TableName& name) const {
    std::vector<std::string> parts = name.WithoutLive();
    std::string joined;
    for (const std::string& p : parts) joined += (joined.empty() ? "" : ".") + p;
    auto it = views_.find(ToLower(joined));
    return it == views_.end() ? nullptr : it->second;
  }

  Status ReadFilesOptions(const sql::SourceRef& ref, SourcePlan* source) const {
    source->kind = SourcePlan::Kind::kFiles;
    source->pattern = ref.path;
    const sql::NamedArgument* format = ref.FindOption("format");
    if (format == nullptr) {
      return ErrorAt(ref.position,
                     "read_files needs format => 'debezium', 'sqlserver', 'csv', 'json' or "
                     "'parquet'");
    }
    std::string name = ToLower(format->value);
    if (name == "json") name = "jsonl";
    auto parsed = sources::SourceFormatFromName(name);
    if (!parsed) {
      return ErrorAt(format->position, "read_files format '" + format->value +
                                           "' is not supported (debezium, sqlserver, csv, json, "
                                           "parquet)");
    }
    source->format = *parsed;
    source->options.file_format = source->format == sources::SourceFormat::kJsonLines
                                      ? sources::FileFormat::kJsonLines
                                      : sources::FileFormat::kCsv;
    for (const sql::NamedArgument& arg : ref.options) {
      std::string key = ToLower(arg.name);
      if (key == "format") continue;
      if (key == "schema" || key == "schemahints") {
        auto schema = sql::ParseSchemaDdl(arg.value);
        if (!schema.ok()) {
          return ErrorAt(arg.position, "read_files " + arg.name + ": " + schema.status().message());
        }
        source->options.schema = std::move(*schema);
      } else if (key == "fileformat") {
        std::string f = ToLower(arg.value);
        if (f == "csv") {
          source->options.file_format = sources::FileFormat::kCsv;
        } else if (f == "json" || f == "jsonl") {
          source->options.file_format = sources::FileFormat::kJsonLines;
        } else {
          return ErrorAt(arg.position, "read_files fileFormat must be 'csv' or 'json'");
        }
      } else if (key == "rescueddatacolumn") {
        if (source->format != sources::SourceFormat::kCsv &&
            source->format != sources::SourceFormat::kJsonLines) {
          return ErrorAt(arg.position,
                         "read_files rescuedDataColumn is for format 'csv' and 'json' files");
        }
        if (arg.value.empty()) {
          return ErrorAt(arg.position,
                         "read_files rescuedDataColumn names a column: give it a "
                         "name, such as '_rescued_data'");
        }
        for (const char* taken : kBronzeColumns) {
          if (ToLower(arg.value) == taken) {
            return ErrorAt(arg.position, "read_files rescuedDataColumn '" + arg.value +
                                             "' is a column cdclake adds to rows read from "
                                             "files; name it otherwise, such as "
                                             "'_rescued_data'");
          }
        }
        source->options.rescued_data_column = arg.value;
      } else {
        return ErrorAt(arg.position, "read_files option '" + arg.name +
                                         "' is not supported by cdclake (supported: format, "
                                         "schema, schemaHints, fileFormat, rescuedDataColumn)");
      }
    }
    return Status::OK();
  }

  Status ReadPostgresOptions(const sql::SourceRef& ref, SourcePlan* source) const {
    source->kind = SourcePlan::Kind::kPostgres;
    if (!ref.streaming) {
      return ErrorAt(ref.position,
                     "read_postgres is a stream of changes: write STREAM(read_postgres(...))");
    }
    sources::postgres::PgTableSpec& spec = source->postgres;
    for (const sql::NamedArgument& arg : ref.options) {
      const std::string key = ToLower(arg.name);
      if (key == "spill_mb") {
        const std::optional<int64_t> mb = WholeNumberArgument(arg, 0, int64_t{1} << 30);
        if (!mb) {
          return ErrorAt(arg.position,
                         "read_postgres spill_mb must be a whole number of megabytes (0 or "
                         "more): the changes a transaction holds in memory before its commit");
        }
        spec.spill.memory_bytes = *mb << 20;
        continue;
      }
      if (key == "copy_connections") {
        const std::optional<int64_t> n = WholeNumberArgument(arg, 1, 64);
        if (!n) {
          return ErrorAt(arg.position,
                         "read_postgres copy_connections must be a whole number from 1 to 64: "
                         "the connections copying the table at once on the first run");
        }
        spec.copy_connections = static_cast<int>(*n);
        continue;
      }
      std::string* into = key == "connection"    ? &spec.connection
                          : key == "publication" ? &spec.publication
                          : key == "slot"        ? &spec.slot
                          : key == "table"       ? &spec.table
                                                 : nullptr;
      if (into == nullptr) {
        return ErrorAt(arg.position, "read_postgres option '" + arg.name +
                                         "' is not supported (connection, publication, slot, "
                                         "table, spill_mb, copy_connections)");
      }
      if (arg.kind != sql::NamedArgument::Kind::kString || arg.value.empty()) {
        return ErrorAt(arg.position, "read_postgres " + arg.name + " must be a non-empty string");
      }
      *into = arg.value;
    }
    for (const auto& [name, value] : {std::pair{"connection", &spec.connection},
                                      {"publication", &spec.publication},
                                      {"slot", &spec.slot},
                                      {"table", &spec.table}}) {
      if (value->empty()) {
        return ErrorAt(ref.position, std::string("read_postgres needs ") + name +
                                         " => '...' (connection, publication, slot and table "
                                         "are required)");
      }
    }
    return Status::OK();
  }

  Status ReadKafkaOptions(const sql::SourceRef& ref, SourcePlan* source) const {
    source->kind = SourcePlan::Kind::kKafka;
    if (!ref.streaming) {
      return ErrorAt(ref.position,
                     "read_kafka is a stream of messages: write STREAM(read_kafka(...))");
    }
    sources::kafka::KafkaSpec& spec = source->kafka;
    for (const sql::NamedArgument& arg : ref.options) {
      const std::string key = ToLower(arg.name);
      auto string_value = [&]() -> Result<std::string> {
        if (arg.kind != sql::NamedArgument::Kind::kString || arg.value.empty()) {
          return ErrorAt(arg.position, "read_kafka " + arg.name + " must be a non-empty string");
        }
        return arg.value;
      };
      if (key.rfind("kafka.", 0) == 0) {
        spec.kafka_options[arg.name.substr(6)] = arg.value;
      } else if (key == "bootstrapservers") {
        CDCLAKE_ASSIGN_OR_RETURN(spec.bootstrap_servers, string_value());
      } else if (key == "subscribe") {
        CDCLAKE_ASSIGN_OR_RETURN(std::string topics, string_value());
        for (std::string& t : Split(topics, ',')) {
          t.erase(0, t.find_first_not_of(' '));
          t.erase(t.find_last_not_of(' ') + 1);
          if (!t.empty()) spec.topics.push_back(std::move(t));
        }
      } else if (key == "subscribepattern") {
        CDCLAKE_ASSIGN_OR_RETURN(spec.topic_pattern, string_value());
      } else if (key == "startingoffsets") {
        CDCLAKE_ASSIGN_OR_RETURN(spec.starting_offsets, string_value());
        auto parsed = sources::kafka::StartingOffsets::Parse(spec.starting_offsets);
        if (!parsed.ok()) return ErrorAt(arg.position, parsed.status().message());
      } else if (key == "format") {
        CDCLAKE_ASSIGN_OR_RETURN(std::string format, string_value());
        format = ToLower(format);
        if (format == "avro" || format == "debezium-avro") {
          return ErrorAt(arg.position,
                         "read_kafka cannot decode Avro yet (it needs a schema registry client, "
                         "which Debian does not ship): configure Debezium's JSON converter "
                         "(with or without schemas) and write format => 'debezium'");
        }
        if (format != "debezium") {
          return ErrorAt(arg.position,
                         "read_kafka format must be 'debezium' (Debezium's JSON "
                         "converter); leave it out for the messages' own columns");
        }
        spec.debezium = true;
      } else if (key == "failondataloss") {
        const std::string v = ToLower(arg.value);
        if (v != "true" && v != "false") {
          return ErrorAt(arg.position, "read_kafka failOnDataLoss must be true or false");
        }
        spec.fail_on_data_loss = v == "true";
      } else if (key == "maxoffsetspertrigger") {
        if (arg.kind == sql::NamedArgument::Kind::kBoolean) {
          return ErrorAt(arg.position, "read_kafka maxOffsetsPerTrigger must be a number");
        }
        const std::optional<int64_t> n =
            WholeNumberArgument(arg, 1, std::numeric_limits<int64_t>::max());
        if (!n) {
          return ErrorAt(arg.position,
                         "read_kafka maxOffsetsPerTrigger must be a whole number "
                         "above 0");
        }
        spec.max_offsets_per_trigger = *n;
      } else if (key == "schema") {
        CDCLAKE_ASSIGN_OR_RETURN(std::string ddl, string_value());
        auto schema = sql::ParseSchemaDdl(ddl);
        if (!schema.ok()) {
          return ErrorAt(arg.position, "read_kafka schema: " + schema.status().message());
        }
        spec.schema = std::move(*schema);
      } else {
        return ErrorAt(arg.position,
                       "read_kafka option '" + arg.name +
                           "' is not supported (bootstrapServers, subscribe, subscribePattern, "
                           "startingOffsets, format, failOnDataLoss, maxOffsetsPerTrigger, "
                           "schema, and `kafka.<librdkafka property>`)");
      }
    }
    if (spec.bootstrap_servers.empty()) {
      return ErrorAt(ref.position, "read_kafka needs bootstrapServers => 'host:port[,...]'");
    }
    if (spec.topics.empty() == spec.topic_pattern.empty()) {
      return ErrorAt(ref.position,
                     "read_kafka needs one of subscribe => 'topic[,topic...]' or "
                     "subscribePattern => 'regex'");
    }
    if (spec.schema && !spec.debezium) {
      return ErrorAt(ref.position,
                     "read_kafka schema types Debezium values: it needs "
                     "format => 'debezium'");
    }
    return Status::OK();
  }

  // Resolves `ref` into `source`, following views (each view's query becomes a transform, the
  // innermost first). `seen` holds the views on the way, to refuse a view that reads itself.
  Status Resolve(const sql::SourceRef& ref, SourcePlan* source,
                 std::set<const sql::CreateView*>* seen) {
    // STREAM(v) WITH ('skipChangeCommits' = ...) of a view: the table the view reads takes it.
    source->skip_change_commits = source->skip_change_commits || ref.skip_change_commits;
    if (source->skip_change_commits && ref.kind != sql::SourceRef::Kind::kTable) {
      return ErrorAt(ref.position,
                     "skipChangeCommits is for a Delta table read as a stream; this source is "
                     "not one");
    }
    if (ref.kind == sql::SourceRef::Kind::kReadFiles) {
      source->streaming = source->streaming && ref.streaming;
      return ReadFilesOptions(ref, source);
    }
    if (ref.kind == sql::SourceRef::Kind::kReadPostgres) {
      source->streaming = source->streaming && ref.streaming;
      return ReadPostgresOptions(ref, source);
    }
    if (ref.kind == sql::SourceRef::Kind::kReadKafka) {
      source->streaming = source->streaming && ref.streaming;
      return ReadKafkaOptions(ref, source);
    }
    if (ref.kind == sql::SourceRef::Kind::kTableChanges) {
      if (!ref.streaming) {
        return ErrorAt(ref.position,
                       "table_changes is read as a stream: write STREAM(table_changes(...))");
      }
      CDCLAKE_ASSIGN_OR_RETURN(std::string name, Canonical(ref.table, ref.position));
      source->kind = SourcePlan::Kind::kTable;
      source->changes = true;
      source->table = name;
      auto folder = warehouse_.TableFolder(ref.table.ToString());
      if (!folder.ok()) return ErrorAt(ref.position, folder.status().message());
      source->table_folder = *folder;
      source->changes_from = ref.starting_version.value_or(0);
      if (!ref.starting_timestamp.empty()) {
        auto ts = delta::ParsePartitionValue(ref.starting_timestamp, *data::DataType::Timestamp());
        if (!ts.ok() || ts->is_null()) {
          return ErrorAt(ref.position, "table_changes: '" + ref.starting_timestamp +
                                           "' is not a timestamp (YYYY-MM-DD[ HH:MM:SS])");
        }
        source->changes_from_ms = ts->int_value() / 1000;
      }
      return Status::OK();
    }
    if (const sql::CreateView* view = FindView(ref.table)) {
      if (!seen->insert(view).second) {
        return ErrorAt(ref.position, "view '" + view->name.ToString() + "' reads itself");
      }
      source->streaming = source->streaming && ref.streaming;
      CDCLAKE_RETURN_IF_ERROR(Resolve(view->query.from, source, seen));
      source->transforms.push_back(view->query);
      if (!view->expectations.empty()) {
        source->view_expectations.push_back(
            {source->transforms.size() - 1, view->name.ToString(), view->expectations});
      }
      return Status::OK();
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, Canonical(ref.table, ref.position));
    source->kind = SourcePlan::Kind::kTable;
    source->table = name;
    source->streaming = source->streaming && ref.streaming;
    auto folder = warehouse_.TableFolder(ref.table.ToString());
    if (!folder.ok()) return ErrorAt(ref.position, folder.status().message());
    source->table_folder = *folder;
    return Status::OK();
  }

  // The definition of `target` a flow writes, which must be a streaming table of the pipeline.
  Result<const sql::CreateStreamingTable*> TargetTable(const sql::TableName& target,
                                                       const SourcePosition& at,
                                                       std::string* name) const {
    CDCLAKE_ASSIGN_OR_RETURN(*name, Canonical(target, at));
    auto it = tables_.find(*name);
    if (it == tables_.end()) {
      return ErrorAt(at, "the flow's target '" + target.ToString() +
                             "' is not defined; add CREATE OR REFRESH STREAMING TABLE " +
                             target.ToString() + ";");
    }
    return it->second;
  }

  // PARTITIONED BY of an AUTO CDC target: with a declared column list the columns are known
  // now (the declared ones, and SCD2's __START_AT/__END_AT), so a wrong name fails planning
  // and --dry-run; without one the first batch checks them against the source.
  Status CheckPartitions(const FlowPlan& flow) const {
    const apply::FlowDefinition& def = flow.flow;
    if (def.partition_columns.empty() || !def.declared_schema) return Status::OK();
    std::vector<data::Field> fields = def.declared_schema->fields();
    if (def.scd_type == apply::ScdType::kType2) {
      // Undeclared bounds have the sequence's type: a STRUCT for SEQUENCE BY STRUCT(...), else
      // a primitive (which one the source decides; any will do for this check).
      data::TypePtr bound_type =
          def.sequence_is_struct || def.sequence_by.size() > 1
              ? data::DataType::Struct({{def.sequence_by.empty() ? "s" : def.sequence_by[0],
                                         data::DataType::Int64(), true}})
              : data::DataType::Int64();
      for (const char* bound : {"__START_AT", "__END_AT"}) {
        if (def.declared_schema->FieldIndex(bound) < 0) fields.push_back({bound, bound_type, true});
      }
    }
    Status s = apply::CheckPartitionColumns(def, data::Schema(fields));
    if (!s.ok()) return ErrorAt(flow.position, "'" + flow.target + "': " + s.message());
    return Status::OK();
  }

  // After the flow's source is resolved: a declared column list gains the source's rescued-data
  // column (read_files' rescuedDataColumn), which must be STRING when it is declared.
  Status TakeTableDefinition(const sql::CreateStreamingTable& table, FlowPlan* flow) const {
    flow->declared_schema = table.schema;
    const std::string& rescue = flow->source.options.rescued_data_column;
    if (flow->declared_schema && !rescue.empty()) {
      const int at = flow->declared_schema->FieldIndex(rescue);
      if (at < 0) {
        std::vector<data::Field> fields = flow->declared_schema->fields();
        fields.push_back({rescue, data::DataType::String(), true});
        flow->declared_schema = data::Schema(std::move(fields));
      } else if (flow->declared_schema->field(static_cast<size_t>(at)).type->id() !=
                 data::TypeId::kString) {
        return ErrorAt(flow->position,
                       "column '" + rescue + "' of " + flow->target + " is declared " +
                           flow->declared_schema->field(static_cast<size_t>(at)).type->ToString() +
                           ", but it is the source's rescued-data column, which holds JSON text: "
                           "declare it STRING");
      }
    }
    for (const sql::TableProperty& p : table.properties) flow->table_properties[p.key] = p.value;
    flow->partition_columns = table.partition_columns;
    flow->flow.partition_columns = table.partition_columns;
    flow->expectations = table.expectations;
    return Status::OK();
  }

  Status AddFlow(FlowPlan flow) {
    // A flow's name names folders beside its table (its file ledger, its unchanged position).
    if (flow.name.empty() || flow.name == "." || flow.name == ".." ||
        flow.name.find_first_of("/\\") != std::string::npos) {
      return ErrorAt(flow.position, "flow name '" + flow.name +
                                        "' cannot name a folder: write it without '/', '\\' "
                                        "and not as '.' or '..'");
    }
    for (const FlowPlan& f : plan_.flows) {
      if (f.name == flow.name) {
        return ErrorAt(flow.position, "flow '" + flow.name + "' is defined twice");
      }
    }
    plan_.flows.push_back(std::move(flow));
    return Status::OK();
  }

  Status PlanIngest(const sql::CreateStreamingTable& table, const SourcePosition& at) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string target, Canonical(table.name, at));
    return PlanAppendInto(table, target, target, *table.query, /*once=*/false, at);
  }

  // CREATE FLOW f AS INSERT INTO t BY NAME SELECT ...: appends like t's own AS SELECT, from a
  // position of its own (kept under the flow's name).
  Status PlanAppend(const sql::AppendFlow& append, const SourcePosition& at) {
    std::string target;
    CDCLAKE_ASSIGN_OR_RETURN(const sql::CreateStreamingTable* table,
                             TargetTable(append.target, at, &target));
    return PlanAppendInto(*table, target, append.flow_name, append.query, append.once, at);
  }

  // A flow appending `query`'s rows to `table` (canonical name `target`).
  Status PlanAppendInto(const sql::CreateStreamingTable& table, const std::string& target,
                        const std::string& name, const sql::SelectQuery& query, bool once,
                        const SourcePosition& at) {
    FlowPlan flow;
    flow.kind = FlowPlan::Kind::kIngest;
    flow.position = at;
    flow.once = once;
    flow.target = target;
    flow.name = name;
    flow.target_folder = plan_.tables[flow.target];
    std::set<const sql::CreateView*> seen;
    CDCLAKE_RETURN_IF_ERROR(Resolve(query.from, &flow.source, &seen));
    flow.source.transforms.push_back(query);
    CDCLAKE_RETURN_IF_ERROR(TakeTableDefinition(table, &flow));
    return AddFlow(std::move(flow));
  }

  // A table is appended to (by its own query and append flows) or kept by key (by AUTO CDC or
  // snapshot flows), not both: an append would break the one-row-per-key state.
  Status CheckTargetWriters() const {
    for (const FlowPlan& cdc : plan_.flows) {
      if (cdc.kind == FlowPlan::Kind::kIngest) continue;
      for (const FlowPlan& other : plan_.flows) {
        if (other.kind != FlowPlan::Kind::kIngest || other.target != cdc.target) continue;
        return ErrorAt(other.position,
                       "flow " + other.name + " writes " + cdc.target + ", which " +
                           (cdc.kind == FlowPlan::Kind::kAutoCdc ? "AUTO CDC" : "snapshot") +
                           " flow " + cdc.name +
                           " already keeps by key; append to a table of its own (append flows "
                           "share a table with each other and with the table's own query)");
      }
    }
    return Status::OK();
  }

  Status PlanAutoCdc(const sql::AutoCdcFlow& cdc, const SourcePosition& at) {
    FlowPlan flow;
    flow.kind = FlowPlan::Kind::kAutoCdc;
    flow.position = at;
    flow.once = cdc.once;
    CDCLAKE_ASSIGN_OR_RETURN(const sql::CreateStreamingTable* table,
                             TargetTable(cdc.target, at, &flow.target));
    if (table->query) {
      return ErrorAt(at, "'" + flow.target +
                             "' is filled by its own AS SELECT query; an AUTO CDC flow needs a "
                             "target defined without one");
    }
    flow.name = cdc.flow_name.empty() ? flow.target : cdc.flow_name;
    flow.target_folder = plan_.tables[flow.target];
    std::set<const sql::CreateView*> seen;
    CDCLAKE_RETURN_IF_ERROR(Resolve(cdc.source, &flow.source, &seen));
    CDCLAKE_RETURN_IF_ERROR(TakeTableDefinition(*table, &flow));
    apply::FlowDefinition& def = flow.flow;
    def.name = flow.name;
    def.target = flow.target_folder;
    def.keys = cdc.keys;
    def.sequence_by = cdc.sequence_by;
    def.sequence_is_struct = cdc.sequence_by_struct;
    def.delete_when = cdc.apply_as_delete;
    def.truncate_when = cdc.apply_as_truncate;
    def.columns = ToSelection(cdc.columns);
    def.scd_type = cdc.scd_type == 2 ? apply::ScdType::kType2 : apply::ScdType::kType1;
    if (cdc.track_history.mode != sql::ColumnSelection::Mode::kAll) {
      def.track_history = ToSelection(cdc.track_history);
    }
    if (cdc.ignore_null_updates)
      def.ignore_null_updates = ToSelection(cdc.ignore_null_updates_columns);
    def.table_properties = flow.table_properties;
    def.declared_schema = flow.declared_schema;
    // What the first batch would refuse whatever the source holds (--dry-run refuses it too).
    Status shape = apply::ValidateFlowShape(def);
    if (!shape.ok()) return ErrorAt(at, "flow " + flow.name + ": " + shape.message());
    CDCLAKE_RETURN_IF_ERROR(CheckPartitions(flow));
    return AddFlow(std::move(flow));
  }

  // SET statements: the keys cdclake reads take effect (docs/pipeline-language.md, "SET
  // keys"); any other key is a warning, not silence.
  Status CheckSettings() {
    std::map<std::string, std::string> defaults;  // table property defaults
    for (const sql::PipelineStatement& st : ast_.statements) {
      const auto* set = st.As<sql::SetStatement>();
      if (set == nullptr) continue;
      std::string value = Unquoted(set->value);
      if (set->key == kTriggerInterval) {
        auto ms = ParseDuration(value);
        if (!ms) {
          return ErrorAt(st.position, "SET " + set->key + " = " + set->value +
                                          ": write it as a number and a unit (500 milliseconds, "
                                          "10 seconds, 1 minute, 1 hour)");
        }
        plan_.trigger_interval_ms = *ms;
      } else if (StartsWith(set->key, kDeltaDefaults) && set->key.size() > kDeltaDefaults.size()) {
        defaults["delta." + set->key.substr(kDeltaDefaults.size())] = value;
      } else if (std::find(std::begin(kPropertyKeys), std::end(kPropertyKeys), set->key) !=
                 std::end(kPropertyKeys)) {
        defaults[set->key] = value;
      } else {
        plan_.warnings.push_back(
            "SET key '" + set->key +
            "' is not used by cdclake; the keys it reads are pipelines.trigger.interval, "
            "spark.databricks.delta.properties.defaults.<property> and the table properties "
            "pipelines.cdc.tombstoneGCThresholdInSeconds and cdclake.lateEventPolicy "
            "(docs/pipeline-language.md)");
      }
    }
    // A table's own TBLPROPERTIES win over the pipeline's defaults.
    for (FlowPlan& f : plan_.flows) {
      for (const auto& [key, value] : defaults) {
        if (f.table_properties.count(key)) continue;
        f.table_properties[key] = value;
        f.property_defaults.insert(key);
        if (f.kind != FlowPlan::Kind::kIngest) {
          f.flow.table_properties[key] = value;
          f.flow.property_defaults.insert(key);
        }
      }
    }
    return Status::OK();
  }

  // A flow reading a table another flow applies AUTO CDC to would stop at that flow's first
  // update or delete (a table read as a stream may only be appended to; table_stream.h).
  Status CheckTableReads() const {
    for (const FlowPlan& f : plan_.flows) {
      if (f.source.kind != SourcePlan::Kind::kTable || f.source.changes ||
          f.source.skip_change_commits) {
        continue;
      }
      for (const FlowPlan& w : plan_.flows) {
        if (w.target != f.source.table || w.kind == FlowPlan::Kind::kIngest) continue;
        return ErrorAt(f.position,
                       "flow " + f.name + " reads " + f.source.table + " as a stream, but " +
                           f.source.table + " is the target of AUTO CDC flow " + w.name +
                           " (SCD type " + std::to_string(static_cast<int>(w.flow.scd_type)) +
                           "), which updates and deletes its rows; a table read as a stream may "
                           "only be appended to: read what changed in it with STREAM("
                           "table_changes('" +
                           f.source.table +
                           "', 0)), or the upstream streaming table, or pass over its changes "
                           "with STREAM(" +
                           f.source.table + ") WITH ('skipChangeCommits' = 'true')");
      }
    }
    return Status::OK();
  }

  Status PlanSnapshot(const sql::SnapshotFlow& snap, const SourcePosition& at) {
    FlowPlan flow;
    flow.kind = FlowPlan::Kind::kSnapshot;
    flow.position = at;
    CDCLAKE_ASSIGN_OR_RETURN(const sql::CreateStreamingTable* table,
                             TargetTable(snap.target, at, &flow.target));
    flow.name = snap.flow_name.empty() ? flow.target : snap.flow_name;
    flow.target_folder = plan_.tables[flow.target];
    std::set<const sql::CreateView*> seen;
    CDCLAKE_RETURN_IF_ERROR(Resolve(snap.source, &flow.source, &seen));
    if (flow.source.kind != SourcePlan::Kind::kFiles) {
      // Also refused by RunSnapshotFlow; here so that --dry-run refuses it too.
      return ErrorAt(at, "flow " + flow.name +
                             ": AUTO CDC FROM SNAPSHOT reads files (a folder of versioned "
                             "snapshots, or one file re-read each run), not tables yet");
    }
    CDCLAKE_RETURN_IF_ERROR(TakeTableDefinition(*table, &flow));
    if (!flow.expectations.empty()) {
      return ErrorAt(flow.expectations[0].position,
                     "expectation '" + flow.expectations[0].name + "' on " + flow.target +
                         ": expectations on a table fed FROM SNAPSHOT are not supported yet");
    }
    apply::FlowDefinition& def = flow.flow;
    def.name = flow.name;
    def.target = flow.target_folder;
    def.keys = snap.keys;
    def.scd_type = snap.scd_type == 2 ? apply::ScdType::kType2 : apply::ScdType::kType1;
    if (snap.track_history.mode != sql::ColumnSelection::Mode::kAll) {
      def.track_history = ToSelection(snap.track_history);
    }
    def.table_properties = flow.table_properties;
    def.declared_schema = flow.declared_schema;
    CDCLAKE_RETURN_IF_ERROR(CheckPartitions(flow));
    return AddFlow(std::move(flow));
  }

  // A streaming table filled from files and read by AUTO CDC flows: their SEQUENCE BY columns
  // are required of its rows, so that a CSV record its writer has not finished, cut just before
  // a last sequence field ("4,d,U,"), waits as pending instead of landing with a NULL sequence
  // (which the flow below would quarantine, and then the rest of the line once appended), also
  // through streaming tables appended from it. Only columns of the same name are known: a view
  // or query that renames the sequence hides it.
  void RequireDownstreamSequences() {
    auto add_new = [](std::vector<std::string>* to, const std::string& name) {
      if (std::find(to->begin(), to->end(), name) == to->end()) to->push_back(name);
    };
    for (FlowPlan& f : plan_.flows) {
      if (f.kind != FlowPlan::Kind::kIngest || f.source.kind != SourcePlan::Kind::kFiles) continue;
      // The tables its rows reach: its own, and those appended to from them (Order refused
      // cycles, so this ends).
      std::vector<std::string> reached{f.target};
      for (size_t i = 0; i < reached.size(); ++i) {
        for (const FlowPlan& d : plan_.flows) {
          if (d.source.kind != SourcePlan::Kind::kTable || d.source.table != reached[i]) continue;
          if (d.kind == FlowPlan::Kind::kIngest) add_new(&reached, d.target);
          if (d.kind != FlowPlan::Kind::kAutoCdc) continue;
          for (const std::string& c : d.flow.sequence_by) {
            add_new(&f.source.options.required_columns, c);
          }
        }
      }
    }
  }

  // Fills depends_on and sorts the flows so that each runs after the writers of its source
  // (statement order among independent flows); a cycle is an error naming its flows.
  Status Order() {
    std::vector<FlowPlan>& flows = plan_.flows;
    for (FlowPlan& f : flows) {
      if (f.source.kind != SourcePlan::Kind::kTable) continue;
      for (const FlowPlan& w : flows) {
        if (w.target == f.source.table && w.name != f.name) f.depends_on.push_back(w.name);
      }
      if (f.source.table == f.target) {
        return ErrorAt(f.position, "flow '" + f.name + "' reads the table it writes");
      }
    }
    std::vector<FlowPlan> ordered;
    std::set<std::string> done;
    std::vector<bool> placed(flows.size(), false);
    while (ordered.size() < flows.size()) {
      bool progress = false;
      for (size_t i = 0; i < flows.size(); ++i) {
        if (placed[i]) continue;
        bool ready = std::all_of(flows[i].depends_on.begin(), flows[i].depends_on.end(),
                                 [&](const std::string& d) { return done.count(d) > 0; });
        if (!ready) continue;
        placed[i] = true;
        done.insert(flows[i].name);
        ordered.push_back(flows[i]);
        progress = true;
      }
      if (!progress) {
        std::vector<std::string> cycle;
        size_t first = 0;
        for (size_t i = 0; i < flows.size(); ++i) {
          if (!placed[i]) {
            if (cycle.empty()) first = i;
            cycle.push_back(flows[i].name);
          }
        }
        return ErrorAt(flows[first].position,
                       "flows read each other's tables in a cycle: " + JoinNames(cycle));
      }
    }
    flows = std::move(ordered);
    return Status::OK();
  }

  const PipelineAst& ast_;
  const Warehouse& warehouse_;
  PipelinePlan plan_;
  std::map<std::string, const sql::CreateStreamingTable*> tables_;
  std::map<std::string, const sql::CreateView*> views_;
};

}  // namespace

std::string SourcePlan::Describe() const {
  if (kind == Kind::kFiles) {
    return "files '" + pattern + "' (" + std::string(sources::SourceFormatName(format)) + ")";
  }
  if (kind == Kind::kKafka) {
    std::string topics;
    for (const std::string& t : kafka.topics) topics += (topics.empty() ? "" : ",") + t;
    return (kafka.topic_pattern.empty() ? "kafka topic " + topics
                                        : "kafka topics matching '" + kafka.topic_pattern + "'") +
           (kafka.debezium ? " (debezium)" : "");
  }
  if (kind == Kind::kPostgres) {
    return "postgres table " + postgres.table + " (publication " + postgres.publication +
           ", slot " + postgres.slot + ")";
  }
  std::string out = changes ? "changes of table " + table : "table " + table;
  if (!transforms.empty()) out += " through " + std::to_string(transforms.size()) + " SELECT";
  return out;
}

Result<PipelinePlan> PlanPipeline(const sql::PipelineAst& ast, const Warehouse& warehouse) {
  return Planner(ast, warehouse).Plan();
}

std::string DescribePlan(const PipelinePlan& plan) {
  std::ostringstream out;
  int i = 0;
  for (const FlowPlan& f : plan.flows) {
    out << ++i << ". flow " << f.name << "\n";
    const char* kind = f.kind == FlowPlan::Kind::kIngest    ? "append"
                       : f.kind == FlowPlan::Kind::kAutoCdc ? "AUTO CDC"
                                                            : "AUTO CDC FROM SNAPSHOT";
    out << "   " << kind << " into " << f.target << " (" << f.target_folder << ")\n";
    out << "   from " << f.source.Describe() << "\n";
    if (f.kind != FlowPlan::Kind::kIngest) {
      out << "   keys " << JoinNames(f.flow.keys);
      if (!f.flow.sequence_by.empty()) {
        out << ", sequence by "
            << (f.flow.sequence_is_struct ? "STRUCT(" + JoinNames(f.flow.sequence_by) + ")"
                                          : JoinNames(f.flow.sequence_by));
      }
      out << ", SCD type " << static_cast<int>(f.flow.scd_type) << "\n";
    }
    if (!f.depends_on.empty()) out << "   after " << JoinNames(f.depends_on) << "\n";
  }
  return out.str();
}

}  // namespace cdclake::pipeline
