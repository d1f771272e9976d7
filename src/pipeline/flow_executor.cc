// FlowExecutor: sources (tables, files) to sinks (appends, the applier, snapshots) for one flow.
#include "pipeline/flow_executor.h"

#include <chrono>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include "apply/declared_columns.h"
#include "apply/quarantine.h"
#include "base/crash_point.h"
#include "delta/log_segment.h"
#include "delta/metadata_change.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "pipeline/append_writer.h"
#include "pipeline/batch_source.h"
#include "pipeline/bronze_columns.h"
#include "pipeline/file_metadata.h"
#include "pipeline/flow_checkpoint.h"
#include "pipeline/flow_position.h"
#include "pipeline/schema_policy.h"
#include "pipeline/select_transform.h"
#include "pipeline/snapshot_flow.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t NowMs(const FlowExecution& e) {
  return e.clock_ms ? e.clock_ms() : delta::NowMillis();
}

std::string QuarantineFolder(const FlowPlan& flow) {
  return flow.target_folder + "_quarantine";
}

// The latest of the batch's row and rejected-record positions, as the point before which a
// later run finds every record of it already quarantined.
std::optional<change::SourcePosition> LastPosition(const change::ChangeBatch& batch) {
  std::optional<change::SourcePosition> last;
  auto consider = [&](const change::SourcePosition& p) {
    if (p.file.empty()) return;
    if (!last || apply::SortsBefore(*last, p)) last = p;
  };
  // The rows' latest found on the packed fields, its position built once.
  const change::PositionList& positions = batch.positions;
  std::optional<size_t> latest;
  for (size_t i = 0; i < positions.size(); ++i) {
    const std::string_view file = positions.file(i);
    if (file.empty()) continue;
    if (latest) {
      const int c = positions.file(*latest).compare(file);
      if (c > 0 || (c == 0 && positions.byte_offset(i) <= positions.byte_offset(*latest))) {
        continue;
      }
    }
    latest = i;
  }
  if (latest) consider(positions[*latest]);
  for (const change::RejectedRecord& r : batch.rejected) consider(r.position);
  return last;
}

json::Json PositionJson(const change::SourcePosition& p) {
  json::Json out = json::Json::object();
  out["file"] = p.file;
  out["offset"] = p.byte_offset;
  return out;
}

// Where a flow reading a table quarantined up to in earlier runs (records before it are there
// already): the `last_row` its quarantine commit recorded. File sources know it from where they
// resume (BatchSource::QuarantinedBefore).
Result<std::optional<change::SourcePosition>> TableQuarantinedBefore(const io::FileSystem& fs,
                                                                     const FlowPlan& flow) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> commit,
                           FindFlowCommit(fs, QuarantineFolder(flow), flow.name));
  if (!commit || !commit->position.is_object() || !commit->position.contains("last_row")) {
    return std::optional<change::SourcePosition>();
  }
  const json::Json& last = commit->position["last_row"];
  if (!last.is_object() || !last.contains("file") || !last["file"].is_string() ||
      !last.contains("offset") || !last["offset"].is_number_integer()) {
    return std::optional<change::SourcePosition>();
  }
  change::SourcePosition p;
  p.file = last["file"].get<std::string>();
  p.byte_offset = last["offset"].get<int64_t>() + 1;
  return std::optional<change::SourcePosition>(p);
}

// An ingest flow's rows as its table declares them: cast to the declared types (rows that do
// not cast, or leave a NOT NULL column NULL, become rejected records), undeclared columns
// dropped (but the bronze columns) and named once in `warnings`.
// The columns a declared table gets from a flow whose rows have the columns `sent`: the
// declared ones, then the columns cdclake adds to file rows (downstream flows read positions
// from them) and the rescued-data column (read_files' rescuedDataColumn, which also takes the
// values that do not cast to their declared types) when the rows have them.
data::Schema DeclaredTableColumns(const FlowPlan& flow, const data::Schema& sent) {
  std::vector<data::Field> fields = flow.declared_schema->fields();
  const std::string& rescue = flow.source.options.rescued_data_column;
  std::vector<std::string> kept;
  if (flow.kind == FlowPlan::Kind::kIngest) {
    kept.assign(std::begin(kBronzeColumns), std::end(kBronzeColumns));
  }
  if (!rescue.empty()) kept.push_back(rescue);
  for (const std::string& name : kept) {
    int at = sent.FieldIndex(name);
    if (at >= 0 && flow.declared_schema->FieldIndex(name) < 0) {
      fields.push_back(sent.field(static_cast<size_t>(at)));
    }
  }
  return data::Schema(std::move(fields));
}

// The target's cdclake.schemaPolicy: 'evolve', 'block' or 'quarantine', and without the
// property kDeclared for a declared table, kEvolve otherwise.
Result<SchemaPolicy> PolicyOf(const FlowPlan& flow) {
  std::optional<std::string> value;
  if (auto p = flow.table_properties.find("cdclake.schemaPolicy");
      p != flow.table_properties.end()) {
    value = p->second;
  }
  return ParseSchemaPolicy(flow.target, value, flow.declared_schema.has_value());
}

// Whether the flow's source adds the change-stream column `_op` itself (Debezium and SQL
// Server files, read_kafka with Debezium, read_postgres), so that its values are the readers'
// own 'c', 'u', 'd', 't', 'r'.
bool ReaderAddsOp(const SourcePlan& source) {
  switch (source.kind) {
    case SourcePlan::Kind::kPostgres:
      return true;
    case SourcePlan::Kind::kKafka:
      return source.kafka.debezium;
    case SourcePlan::Kind::kFiles:
      return sources::IsChangeStreamFormat(source.format);
    case SourcePlan::Kind::kTable:
      return false;
  }
  return false;
}

// Whether a batch as the reader gave it says which columns its source sends: it has a row
// carrying a whole row image. A change stream's batch of deletes and truncates only (`_op` 'd'
// or 't') may carry the key alone (a Debezium delete's `before` under PostgreSQL's default
// replica identity), so its columns say nothing of the others.
bool SendsWholeRows(const SourcePlan& source, const change::ChangeBatch& rows) {
  if (rows.rows.num_rows() == 0) return false;
  const int op = rows.rows.schema().FieldIndex("_op");
  if (op < 0 || !ReaderAddsOp(source)) return true;
  const data::Column& ops = rows.rows.column(static_cast<size_t>(op));
  for (int64_t r = 0; r < rows.rows.num_rows(); ++r) {
    if (ops.IsNull(r)) return true;
    const std::string_view op_code = ops.StringAt(r);
    if (op_code != "d" && op_code != "t") return true;
  }
  return false;
}

// The non-NULL values each column of `rows` holds.
std::map<std::string, int64_t> ValuesPerColumn(const change::ChangeBatch& rows) {
  std::map<std::string, int64_t> out;
  for (size_t c = 0; c < rows.rows.num_columns(); ++c) {
    out[rows.rows.schema().field(c).name] = rows.rows.num_rows() - rows.rows.column(c).null_count();
  }
  return out;
}

// `sent`'s columns, each with its type in `cast` when it has the column.
data::Schema WithCastTypes(const data::Schema& sent, const data::Schema& cast) {
  std::vector<data::Field> fields = sent.fields();
  for (data::Field& f : fields) {
    const int at = cast.FieldIndex(f.name);
    if (at >= 0) f.type = cast.field(static_cast<size_t>(at)).type;
  }
  return data::Schema(std::move(fields));
}

Result<change::ChangeBatch> ConformIngestRows(const FlowPlan& flow, change::ChangeBatch rows,
                                              std::set<std::string>* seen,
                                              std::vector<std::string>* warnings) {
  const data::Schema declared = DeclaredTableColumns(flow, rows.rows.schema());
  const std::string& rescue = flow.source.options.rescued_data_column;
  apply::ConformReport report;
  CDCLAKE_ASSIGN_OR_RETURN(rows,
                           apply::ConformToDeclared(std::move(rows), declared,
                                                    /*keep_undeclared=*/false, &report, rescue));
  apply::RejectNotNullViolations(declared, &rows);
  std::string names;
  for (const std::string& name : report.undeclared) {
    if (seen->insert(name).second) names += (names.empty() ? "'" : ", '") + name + "'";
  }
  if (!names.empty()) {
    warnings->push_back("source columns " + names + " are not in " + flow.target +
                        "'s declared column list and are not written; declare them, or leave "
                        "them out of the flow's SELECT");
  }
  return rows;
}

// The table's Delta table id (lineage in the event log); "" while it does not exist.
std::string TableIdOf(io::FileSystem& fs, const std::string& folder) {
  auto exists = delta::TableExists(fs, folder);
  if (!exists.ok() || !*exists) return "";
  auto snapshot = delta::Snapshot::Load(fs, folder);
  return snapshot.ok() ? (*snapshot)->metadata().id : "";
}

// The flow's views and SELECT over `rows`; with `counts`, each view's expectations checked on
// what it yields (without: only looking, as planning's check of the first rows does).
Result<change::ChangeBatch> Transform(const io::FileSystem& fs, const FlowPlan& flow,
                                      change::ChangeBatch rows,
                                      std::vector<ExpectationCount>* counts = nullptr,
                                      int64_t* dropped = nullptr) {
  const auto& transforms = flow.source.transforms;
  for (size_t i = 0; i < transforms.size(); ++i) {
    // Files' hidden `_metadata`, for the query that reads them when it names the column (a
    // file's own column of that name wins, as in Databricks).
    std::vector<std::string> hidden;
    if (i == 0 && flow.source.kind == SourcePlan::Kind::kFiles &&
        !HasColumnNamedMetadata(rows.rows.schema()) && ReadsFileMetadata(transforms[0])) {
      CDCLAKE_ASSIGN_OR_RETURN(rows, AddFileMetadata(fs, std::move(rows)));
      hidden.emplace_back(kFileMetadataColumn);
    }
    CDCLAKE_ASSIGN_OR_RETURN(rows, ApplySelect(transforms[i], std::move(rows), hidden));
    if (counts == nullptr) continue;
    for (const SourcePlan::ViewExpectations& v : flow.source.view_expectations) {
      if (v.after_transform != i) continue;
      const size_t before = rows.rejected.size();
      CDCLAKE_ASSIGN_OR_RETURN(
          rows, ApplyExpectations(flow, v.expectations, v.view, std::move(rows), counts));
      if (dropped != nullptr) *dropped += static_cast<int64_t>(rows.rejected.size() - before);
    }
  }
  return rows;
}

// Table properties the definition changed since the target was made, committed before the
// flow reads anything (also when it finds nothing new), so the run uses them.
Status ApplyChangedProperties(io::FileSystem& fs, const FlowPlan& flow) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, flow.target_folder));
  if (!exists || flow.table_properties.empty()) return Status::OK();
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, flow.target_folder));
  // The pipeline's defaults (SET) only reach tables when they are created.
  std::map<std::string, std::string> declared = flow.table_properties;
  for (const std::string& key : flow.property_defaults) declared.erase(key);
  return delta::UpdateTableProperties(fs, flow.target_folder, *snapshot, declared).status();
}

// Flows whose rows come from a BatchSource: ingest into a streaming table, or AUTO CDC.
// Records before `quarantined_before` are in the quarantine table already: a batch read again
// after a crash between its quarantine commit and its target commit does not add them twice.
// Within a run positions only grow, so it stays as it is.
// `batch_no`: the flow's last batch in the target, read before the source's position was: a
// writer of the same flow committing in between then makes this run's first commit fail
// (kConflict) instead of letting it follow a batch whose input it reads again.
Status RunStreamFlow(io::FileSystem& fs, const FlowPlan& flow, const FlowExecution& execution,
                     int64_t batch_no, std::unique_ptr<BatchSource> source,
                     std::optional<change::SourcePosition> quarantined_before,
                     bool add_bronze_columns, FlowOutcome* outcome) {
  // The next batch is read (decoded) while this one is applied: the second core's work.
  source = ReadingAhead(std::move(source));
  outcome->input_from = source->StartText();
  outcome->notices = source->Notices();
  outcome->input_to = outcome->input_from;
  std::unique_ptr<apply::Applier> applier;
  AppendTableSpec spec{flow.table_properties, flow.partition_columns, flow.declared_schema};
  std::set<std::string> undeclared_seen;  // reported once per run
  // One read of the target's log gives its columns, its id and what the flow last sent.
  CDCLAKE_ASSIGN_OR_RETURN(SchemaWatch schema_watch,
                           SchemaWatch::Open(fs, flow.target, flow.target_folder, flow.name,
                                             batch_no > 0, flow.declared_schema.has_value()));
  std::string table_id = schema_watch.table_id();
  CDCLAKE_ASSIGN_OR_RETURN(const SchemaPolicy policy, PolicyOf(flow));
  auto writes = [&](const std::string& name) {
    return flow.kind == FlowPlan::Kind::kIngest || flow.flow.columns.Selects(name);
  };
  // The position after the last batch when that batch changed nothing (no commit records it).
  std::optional<json::Json> unchanged_after;
  while (true) {
    const int64_t started = SteadyMs();
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<InputBatch> input, source->Next());
    if (!input) break;
    FlowBatchReport report;
    report.flow = flow.name;
    report.target = flow.target;
    report.input_from = outcome->input_to;
    report.input_to = input->end_text;
    report.files = input->files_done;
    report.input_written_ms = input->written_ms;
    change::ChangeBatch rows = std::move(input->rows);
    // Only a batch with a whole row says a column is no longer sent (judged on the reader's
    // rows, before a view could drop or rename `_op`).
    const bool whole_rows = SendsWholeRows(flow.source, rows);
    if (add_bronze_columns) rows = AddBronzeColumns(std::move(rows), NowMs(execution) * 1000);
    std::optional<change::SourcePosition> last = LastPosition(rows);
    CDCLAKE_ASSIGN_OR_RETURN(rows, Transform(fs, flow, std::move(rows), &report.expectations,
                                             &report.dropped_by_expectations));
    // The columns as the source sent them: what the schema policy and the schema-change events
    // compare, before a declared table's cast.
    const data::Schema sent = rows.rows.schema();
    std::map<std::string, int64_t> values_sent;
    if (policy == SchemaPolicy::kDeclared) values_sent = ValuesPerColumn(rows);
    if (flow.declared_schema) schema_watch.HoldTo(DeclaredTableColumns(flow, sent));
    if (flow.kind == FlowPlan::Kind::kIngest && flow.declared_schema) {
      CDCLAKE_ASSIGN_OR_RETURN(
          rows, ConformIngestRows(flow, std::move(rows), &undeclared_seen, &report.warnings));
      spec.schema = rows.rows.schema();  // the declared columns, as a new table gets them
    }
    if (flow.kind == FlowPlan::Kind::kAutoCdc && flow.declared_schema) {
      // Cast to the declared types here (the applier's own cast then has nothing to do), so that
      // the schema policy sees the values that do not fit and the source's rescued-data column
      // takes them.
      apply::ConformReport conformed;
      CDCLAKE_ASSIGN_OR_RETURN(rows,
                               apply::ConformToDeclared(std::move(rows), *flow.declared_schema,
                                                        /*keep_undeclared=*/true, &conformed,
                                                        flow.source.options.rescued_data_column));
    }
    if (policy == SchemaPolicy::kDeclared) {
      // JSON Lines leave a key out of a record to say NULL, so a file whose records all do
      // has no such column: only the other sources say a column is no longer sent.
      const bool sparse = flow.source.kind == SourcePlan::Kind::kFiles &&
                          flow.source.format == sources::SourceFormat::kJsonLines;
      const data::Schema* before = whole_rows && !sparse ? schema_watch.PreviouslySent() : nullptr;
      CDCLAKE_RETURN_IF_ERROR(CheckDeclaredContract(rows, sent, values_sent, before,
                                                    *flow.declared_schema, writes, flow.target,
                                                    &outcome->blocked));
    } else if (policy == SchemaPolicy::kBlock) {
      // A declared table compares the columns as sent, with the types the cast gave them (a
      // CSV column of numbers reads as BIGINT into an INT column): values that did not cast
      // are CheckNoMisfits' to stop on.
      const data::Schema compared =
          flow.declared_schema ? WithCastTypes(sent, rows.rows.schema()) : sent;
      CDCLAKE_RETURN_IF_ERROR(
          schema_watch.CheckBlocked(compared, writes, whole_rows, &outcome->blocked));
      CDCLAKE_RETURN_IF_ERROR(
          CheckNoMisfits(rows, flow.target, schema_watch.known(), &outcome->blocked));
    } else if (policy == SchemaPolicy::kQuarantine && schema_watch.known()) {
      CDCLAKE_ASSIGN_OR_RETURN(
          rows, QuarantineMisfits(std::move(rows), *schema_watch.known(), writes, flow.target));
    }
    // Rows set aside because a value did not fit: said as refused changes once committed.
    std::vector<SchemaChange> refused =
        RefusedChanges(rows, quarantined_before, flow.target, schema_watch.known());
    if (!flow.expectations.empty()) {
      const size_t rejected_before = rows.rejected.size();
      CDCLAKE_ASSIGN_OR_RETURN(rows,
                               ApplyExpectations(flow, std::move(rows), &report.expectations));
      report.dropped_by_expectations +=
          static_cast<int64_t>(rows.rejected.size() - rejected_before);
    }
    json::Json position = input->end;
    std::vector<std::pair<std::string, int64_t>> source_txns;
    if (input->source_txn) source_txns.push_back(*input->source_txn);
    if (last) position["last_row"] = PositionJson(*last);
    position[kSourceColumnsKey] = delta::SchemaToJson(rows.rows.schema());
    if (flow.declared_schema) position[kSourceReadKey] = delta::SchemaToJson(sent);
    if (!whole_rows && schema_watch.PreviouslySent() != nullptr) {
      // Deletes only: what the source sends is still what the last whole row said.
      position[flow.declared_schema ? kSourceReadKey : kSourceColumnsKey] =
          delta::SchemaToJson(*schema_watch.PreviouslySent());
    }
    position["batch"] = batch_no + 1;
    json::Json params = json::Json::object();
    params[kFlowParameter] = flow.name;
    params[kPositionParameter] = json::Dump(position);

    if (flow.kind == FlowPlan::Kind::kIngest && rows.rows.num_rows() == 0 &&
        rows.rejected.empty()) {
      // Nothing to append (a stream that moved past other tables' changes): no commit, the
      // position is kept beside the table as for an AUTO CDC batch that changed nothing.
      unchanged_after = position;
    } else if (flow.kind == FlowPlan::Kind::kIngest) {
      unchanged_after.reset();
      std::vector<change::RejectedRecord> rejected;
      for (change::RejectedRecord& r : rows.rejected) {
        if (!quarantined_before || !apply::SortsBefore(r.position, *quarantined_before)) {
          rejected.push_back(std::move(r));
        }
      }
      report.counts.read = rows.num_records();
      report.counts.quarantined = static_cast<int64_t>(rows.rejected.size());
      report.counts.already_quarantined =
          report.counts.quarantined - static_cast<int64_t>(rejected.size());
      json::Json qparams = params;
      qparams[kTargetCommitParameter] = "true";
      CDCLAKE_RETURN_IF_ERROR(apply::WriteQuarantine(fs, QuarantineFolder(flow), flow.name,
                                                     rejected, NowMs(execution), qparams)
                                  .status());
      if (!rejected.empty()) CrashPoint("ingest-quarantine-committed");  // the target not yet
      // The watch has the target's columns once it exists (read at open, kept after commits).
      if (rows.rows.num_rows() == 0 && !spec.schema && !schema_watch.known()) {
        // A new table's batch whose every record was quarantined: its columns' types are not
        // known (a Debezium batch without events has no sequence struct), so it does not make
        // the table; the position is kept beside it, as for a batch that changed nothing.
        unchanged_after = position;
      } else {
        const int64_t appended = rows.rows.num_rows();
        // The rows' columns move into the files written (their schema stays, for the schema
        // watch below).
        data::RecordBatch appending(rows.rows.schema(), rows.rows.ReleaseColumns());
        appending.set_num_rows(appended);
        CDCLAKE_ASSIGN_OR_RETURN(
            int64_t version,
            AppendWithCheckpoint(fs, flow.target_folder, std::move(appending), spec,
                                 AppendCheckpoint{flow.name, batch_no + 1, position, source_txns}));
        ++batch_no;
        source->Committed(position);
        report.counts.applied = appended;
        report.counts.inserted = appended;
        report.table_version = version;
        outcome->versions.push_back(version);
      }
    } else {
      if (!applier) {
        apply::ApplyOptions options;
        options.clock = execution.clock_ms;
        options.persistent_index = execution.persistent_index;
        options.quarantine_table = QuarantineFolder(flow);
        CDCLAKE_ASSIGN_OR_RETURN(applier, apply::Applier::Open(fs, flow.flow, options));
      }
      apply::CommitExtras extras;
      extras.txn_app_id = FlowAppId(flow.name);
      extras.txn_version = batch_no + 1;
      extras.txn_after = batch_no;
      extras.source_txns = source_txns;
      extras.operation_parameters = params;
      extras.quarantined_before = quarantined_before;
      CDCLAKE_ASSIGN_OR_RETURN(apply::ApplyResult result, applier->Apply(rows, extras));
      report.counts = result.counts;
      for (std::string& w : result.warnings) report.warnings.push_back(std::move(w));
      if (result.version) {
        ++batch_no;
        report.table_version = result.version;
        outcome->versions.push_back(*result.version);
      }
      // Nothing changed, so no commit records the position; the last such batch's is kept.
      if (result.version || result.quarantine_version) {
        unchanged_after.reset();
        // Only the target's commits are where the next run resumes (FindFlowCommit).
        if (result.version) source->Committed(position);
      } else {
        unchanged_after = position;
      }
    }
    if (report.table_version) {
      CDCLAKE_ASSIGN_OR_RETURN(
          report.schema_changes,
          schema_watch.AfterCommit(fs, flow.declared_schema ? sent : rows.rows.schema(),
                                   whole_rows));
    }
    for (SchemaChange& r : refused) {
      // A table this batch created: the column's type is known now.
      if (r.old_type.empty() && schema_watch.known()) {
        const int at = schema_watch.known()->FieldIndex(r.column);
        if (at >= 0) {
          r.old_type = schema_watch.known()->field(static_cast<size_t>(at)).type->ToString();
        }
      }
      report.schema_changes.push_back(std::move(r));
    }
    if (table_id.empty() && report.table_version) table_id = TableIdOf(fs, flow.target_folder);
    report.table_id = table_id;
    if (input->end.is_object() && input->end.contains("tableId") &&
        input->end["tableId"].is_string()) {
      report.input_table_id = input->end["tableId"].get<std::string>();
    }
    report.duration_ms = SteadyMs() - started;
    ++outcome->batches;
    outcome->counts += report.counts;
    AddExpectationCounts(report.expectations, &outcome->expectations);  // once committed
    outcome->files += report.files;
    outcome->input_to = report.input_to;
    if (execution.on_batch) execution.on_batch(report);
  }
  // A position no commit records is kept beside the table, or every later run would read that
  // input again (best effort: without it, the input is read again and changes nothing again).
  if (unchanged_after && RecordUnchangedPosition(fs, flow.target_folder, QuarantineFolder(flow),
                                                 flow.name, *unchanged_after)
                             .ok()) {
    source->Committed(*unchanged_after);
  }
  outcome->source_counts = source->Counts();
  outcome->pending = source->Pending();
  if (std::optional<std::string> lag = source->Lag()) outcome->source_lag = std::move(*lag);
  return Status::OK();
}

Status RunSnapshotFlow(io::FileSystem& fs, const FlowPlan& flow, const FlowExecution& execution,
                       FlowOutcome* outcome) {
  if (flow.source.kind != SourcePlan::Kind::kFiles) {
    return Status::NotSupported("flow " + flow.name +
                                ": AUTO CDC FROM SNAPSHOT reads files (a folder of versioned "
                                "snapshots, or one file re-read each run), not tables yet");
  }
  // cdclake.schemaPolicy, on each snapshot's columns before it is applied.
  CDCLAKE_ASSIGN_OR_RETURN(const SchemaPolicy policy, PolicyOf(flow));
  CDCLAKE_RETURN_IF_ERROR(CheckSnapshotPolicy(policy, flow.target));
  SnapshotFlowOptions options;
  // The table's columns: declared, or read once the table exists (under these policies a
  // snapshot does not change them, so one read serves every later snapshot).
  std::optional<data::Schema> table = flow.declared_schema;
  if (policy != SchemaPolicy::kEvolve) {
    options.check_columns = [&](const data::Schema& columns, const data::Schema* previous,
                                const std::string& path) -> Status {
      if (!table) {
        CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, flow.target_folder));
        if (exists) {
          CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, flow.target_folder));
          table = snapshot->schema();
        }
      }
      auto writes = [&](const std::string& name) { return flow.flow.columns.Selects(name); };
      return CheckSnapshotColumns(policy, columns, previous, table ? &*table : nullptr,
                                  flow.declared_schema.has_value(), writes, flow.target, path,
                                  &outcome->blocked);
    };
  }
  options.format = flow.source.format;
  options.schema = flow.source.options.schema;
  options.apply.clock = execution.clock_ms;
  options.apply.persistent_index = execution.persistent_index;
  options.apply.quarantine_table = QuarantineFolder(flow);
  CDCLAKE_ASSIGN_OR_RETURN(io::FileInfo info, fs.Stat(flow.source.pattern));
  const bool is_dir = info.is_directory;
  Result<SnapshotRunResult> result =
      is_dir ? ApplySnapshotFolder(fs, flow.flow, flow.source.pattern, options)
             : ApplyPeriodicSnapshot(fs, flow.flow, flow.source.pattern,
                                     TimestampVersion(NowMs(execution) * 1000), options);
  if (!result.ok()) return result.status();
  const std::string table_id = TableIdOf(fs, flow.target_folder);
  outcome->counts = result->counts;
  outcome->versions = result->table_versions;
  for (const SnapshotOutcome& s : result->snapshots) {
    if (!s.applied) continue;
    ++outcome->batches;
    ++outcome->files;
    FlowBatchReport report;
    report.flow = flow.name;
    report.target = flow.target;
    report.input_to = s.path + "@" + s.version.text;
    report.counts = s.counts;
    if (!s.table_versions.empty()) report.table_version = s.table_versions.back();
    report.table_id = table_id;
    report.files = 1;
    if (execution.on_batch) execution.on_batch(report);
  }
  if (result->last_applied) outcome->input_to = "snapshot " + result->last_applied->text;
  return Status::OK();
}

// The first rows the flow's source holds now, through its views; nullopt when there are none
// or they cannot be read yet (the run reports that for this flow alone).
Result<std::optional<change::ChangeBatch>> PeekSource(io::FileSystem& fs, const FlowPlan& flow) {
  constexpr int64_t kPeekRows = 1000;
  std::unique_ptr<BatchSource> source;
  // Opening read_postgres creates its slot, read_kafka reaches out to brokers: their columns are
  // checked by their first batch.
  if (flow.source.kind == SourcePlan::Kind::kPostgres ||
      flow.source.kind == SourcePlan::Kind::kKafka) {
    return std::optional<change::ChangeBatch>();
  }
  if (flow.source.kind == SourcePlan::Kind::kTable) {
    CDCLAKE_ASSIGN_OR_RETURN(bool upstream, delta::TableExists(fs, flow.source.table_folder));
    if (!upstream) return std::optional<change::ChangeBatch>();
    if (flow.source.changes) {
      // The change feed's own columns (_change_type, _commit_version) are what the flow reads.
      CDCLAKE_ASSIGN_OR_RETURN(source,
                               OpenTableChangesSource(fs, flow.source, json::Json(), kPeekRows,
                                                      flow.kind == FlowPlan::Kind::kAutoCdc));
    } else {
      CDCLAKE_ASSIGN_OR_RETURN(
          source, OpenTableSource(fs, flow.source.table, flow.source.table_folder, json::Json(),
                                  kPeekRows, flow.source.skip_change_commits));
    }
  } else {
    FileSourceTarget target{flow.target_folder, QuarantineFolder(flow), flow.name, flow.target};
    target.reset = true;
    target.peek = true;
    CDCLAKE_ASSIGN_OR_RETURN(source,
                             OpenFileSource(fs, flow.source, target, &flow.flow, kPeekRows));
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<InputBatch> input, source->Next());
  if (!input || input->rows.rows.num_rows() == 0) return std::optional<change::ChangeBatch>();
  CDCLAKE_ASSIGN_OR_RETURN(change::ChangeBatch rows, Transform(fs, flow, std::move(input->rows)));
  if (rows.rows.num_rows() == 0) return std::optional<change::ChangeBatch>();
  return std::optional<change::ChangeBatch>(std::move(rows));
}

}  // namespace

Status CheckNewFlowColumns(io::FileSystem& fs, const FlowPlan& flow) {
  if (flow.kind != FlowPlan::Kind::kAutoCdc) return Status::OK();
  CDCLAKE_ASSIGN_OR_RETURN(bool target_exists, delta::TableExists(fs, flow.target_folder));
  if (target_exists) return Status::OK();
  // A source that is missing or unreadable is this flow's failure at run time, not a reason
  // to stop the other flows: only the column checks are made here.
  Result<std::optional<change::ChangeBatch>> rows = PeekSource(fs, flow);
  if (!rows.ok() || !*rows) return Status::OK();
  Status s = apply::CheckFirstBatchColumns(flow.flow, **rows);
  if (s.ok()) return s;
  return Status::InvalidArgument("flow " + flow.name + ": " + s.message());
}

Status ExecuteFlow(io::FileSystem& fs, const FlowPlan& flow, const FlowExecution& given,
                   FlowOutcome* outcome) {
  FlowExecution execution = given;
  // A ONCE flow (AUTO CDC ONCE, INSERT INTO ONCE) takes its whole input as one batch, one
  // commit: "ran before" then means it ran to the end. In batches, a run stopped after the
  // first commit would be skipped for ever with its input half applied.
  if (flow.once) execution.batch_rows = std::numeric_limits<int64_t>::max();
  // The flow's last batch in its target: read once, before any position is (RunStreamFlow),
  // and what AUTO CDC ONCE asks.
  const bool once = flow.once && !execution.full_refresh;
  int64_t batch_no = 0;
  if (once || flow.kind != FlowPlan::Kind::kSnapshot) {
    CDCLAKE_ASSIGN_OR_RETURN(batch_no, LastFlowBatch(fs, flow.target_folder, flow.name));
  }
  if (once && batch_no > 0) {
    outcome->skipped = true;
    return Status::OK();
  }
  CDCLAKE_RETURN_IF_ERROR(ApplyChangedProperties(fs, flow));
  if (flow.kind == FlowPlan::Kind::kSnapshot) return RunSnapshotFlow(fs, flow, execution, outcome);
  if (flow.source.kind == SourcePlan::Kind::kTable ||
      flow.source.kind == SourcePlan::Kind::kPostgres ||
      flow.source.kind == SourcePlan::Kind::kKafka) {
    json::Json position;
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> commit,
                             FindFlowCommit(fs, flow.target_folder, flow.name));
    if (commit && !execution.reset_position) position = commit->position;
    if (!execution.reset_position) {
      CDCLAKE_ASSIGN_OR_RETURN(
          std::optional<json::Json> unchanged,
          FindUnchangedPosition(fs, flow.target_folder, QuarantineFolder(flow), flow.name));
      if (unchanged) position = std::move(*unchanged);
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::SourcePosition> quarantined_before,
                             TableQuarantinedBefore(fs, flow));
    if (flow.source.kind == SourcePlan::Kind::kKafka) {
      CDCLAKE_ASSIGN_OR_RETURN(
          std::unique_ptr<BatchSource> source,
          OpenKafkaSource(flow.source, position, execution.batch_rows, "cdclake." + flow.name));
      return RunStreamFlow(fs, flow, execution, batch_no, std::move(source), quarantined_before,
                           flow.kind == FlowPlan::Kind::kIngest, outcome);
    }
    if (flow.source.kind == SourcePlan::Kind::kPostgres) {
      CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<BatchSource> source,
                               OpenPostgresSource(flow.source, position, execution.batch_rows,
                                                  execution.postgres_slots != nullptr
                                                      ? execution.postgres_slots->For(flow.source)
                                                      : nullptr));
      // Bronze columns carry the unchanged (TOASTed) cells' marks to the flows downstream.
      return RunStreamFlow(fs, flow, execution, batch_no, std::move(source), quarantined_before,
                           flow.kind == FlowPlan::Kind::kIngest, outcome);
    }
    if (flow.source.changes) {
      CDCLAKE_ASSIGN_OR_RETURN(
          std::unique_ptr<BatchSource> source,
          OpenTableChangesSource(fs, flow.source, position, execution.batch_rows,
                                 flow.kind == FlowPlan::Kind::kAutoCdc));
      return RunStreamFlow(fs, flow, execution, batch_no, std::move(source), quarantined_before,
                           false, outcome);
    }
    CDCLAKE_ASSIGN_OR_RETURN(
        std::unique_ptr<BatchSource> source,
        OpenTableSource(fs, flow.source.table, flow.source.table_folder, position,
                        execution.batch_rows, flow.source.skip_change_commits,
                        flow.kind == FlowPlan::Kind::kAutoCdc ? OnRefreshedUpstream::kReadAgain
                                                              : OnRefreshedUpstream::kRefuse,
                        flow.target));
    return RunStreamFlow(fs, flow, execution, batch_no, std::move(source), quarantined_before,
                         false, outcome);
  }
  const bool cdc = flow.kind == FlowPlan::Kind::kAutoCdc;
  CDCLAKE_ASSIGN_OR_RETURN(
      std::unique_ptr<BatchSource> source,
      OpenFileSource(fs, flow.source,
                     FileSourceTarget{flow.target_folder, QuarantineFolder(flow), flow.name,
                                      flow.target, execution.reset_position},
                     cdc ? &flow.flow : nullptr, execution.batch_rows));
  std::optional<change::SourcePosition> quarantined_before = source->QuarantinedBefore();
  return RunStreamFlow(fs, flow, execution, batch_no, std::move(source), quarantined_before,
                       flow.kind == FlowPlan::Kind::kIngest, outcome);
}

}  // namespace cdclake::pipeline
