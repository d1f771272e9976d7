// ChangeFlowRunner: discovery, the resume point from the target's and the quarantine table's
// commits, opening and checking every file, then batches across files with their positions.
#include "pipeline/change_flow_runner.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <type_traits>

#include "apply/quarantine.h"
#include "base/read_ahead.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "pipeline/file_input_internal.h"
#include "pipeline/flow_checkpoint.h"
#include "pipeline/pending_rows.h"
#include "sources/input_discovery.h"

namespace cdclake::pipeline {

namespace {

// The files a batch's rows and records came from, for error messages.
std::string FilesOf(const change::ChangeBatch& batch) {
  std::set<std::string> seen;
  std::string out;
  auto add = [&](std::string_view f) {
    if (!f.empty() && seen.emplace(f).second) out += (out.empty() ? "" : ", ") + std::string(f);
  };
  for (size_t i = 0; i < batch.positions.size(); ++i) add(batch.positions.file(i));
  for (const change::RejectedRecord& r : batch.rejected) add(r.position.file);
  return out;
}

// A batch of truncates only, which lacks a key column (a truncate event names no table column):
// it says nothing to check the flow against, and the applier gives it the target's columns.
bool TruncatesOnly(const apply::FlowDefinition& flow, const data::RecordBatch& rows) {
  if (!flow.truncate_when || rows.num_rows() == 0) return false;
  const data::Schema& schema = rows.schema();
  if (std::none_of(flow.keys.begin(), flow.keys.end(),
                   [&](const std::string& k) { return schema.FieldIndex(k) < 0; })) {
    return false;
  }
  auto truncates = data::EvaluatePredicate(*flow.truncate_when, rows);
  return truncates.ok() &&
         std::all_of(truncates->begin(), truncates->end(), [](uint8_t t) { return t != 0; });
}

}  // namespace

Status RunChangeFlow(io::FileSystem& fs, const apply::FlowDefinition& flow,
                     const std::vector<FlowInput>& inputs, const FlowRunOptions& options,
                     FlowRunSummary* summary) {
  *summary = FlowRunSummary();
  const std::string qtable =
      options.quarantine_table.empty() ? flow.target + "_quarantine" : options.quarantine_table;
  summary->quarantine_table = qtable;

  // The files, and whether they form a stream read in path order from a position.
  auto listed = ListRunFiles(fs, inputs, options.unknown_format_advice);
  if (!listed.ok()) {
    summary->usage_error = listed.status().code() == StatusCode::kInvalidArgument;
    return listed.status();
  }
  RunFiles& run = *listed;

  // The target as it is, and where this flow stopped.
  std::shared_ptr<const delta::Snapshot> target;
  CDCLAKE_ASSIGN_OR_RETURN(bool target_exists, delta::TableExists(fs, flow.target));
  if (target_exists) {
    CDCLAKE_ASSIGN_OR_RETURN(target, delta::Snapshot::Load(fs, flow.target));
  }
  const std::string app_id = FlowAppId(flow.name);
  int64_t txn_version = target ? target->TxnVersion(app_id).value_or(0) : 0;
  auto resumed = FindResumePoint(
      fs, &run,
      ResumeRequest{flow.target, qtable, flow.name, flow.target, options.reset_position,
                    /*rereading_is_harmless=*/true, target});
  if (!resumed.ok()) {
    summary->usage_error = resumed.status().code() == StatusCode::kInvalidArgument;
    return resumed.status();
  }
  ResumePoint& resume = *resumed;
  const std::vector<RunFile>& files = run.files;
  const std::optional<change::SourcePosition> quarantined_before = resume.quarantined_before;
  // Named files are read whole each run: what an earlier run quarantined is not written twice.
  std::shared_ptr<const std::set<std::string>> quarantined;
  if (!run.stream) {
    CDCLAKE_ASSIGN_OR_RETURN(std::set<std::string> ids,
                             apply::QuarantinedIdentities(fs, qtable, flow.name));
    if (!ids.empty()) quarantined = std::make_shared<const std::set<std::string>>(std::move(ids));
  }
  summary->resumed_from = resume.resumed_from;
  summary->warnings = resume.warnings;
  summary->applied_before = resume.applied_before;
  if (!resume.keep_old_generations) resume.ledger.DeleteOldGenerations(fs);
  LedgerTracker tracker(std::move(resume.ledger), std::move(resume.seed),
                        /*digests=*/!run.stream);

  // Every file to read is opened (and checked against the flow) before anything is written;
  // each is read with the types earlier files and the target fixed. A source without a fixed
  // schema (Debezium, SQL Server) is checked against its first batch with rows, read ahead
  // here, and each later batch is checked again, since a column may appear mid-stream.
  std::vector<data::Field> known = KnownTypes(&flow, options.schema, target.get());
  std::vector<OpenFile> opened;
  for (size_t i = 0; i < files.size(); ++i) {
    const RunFile& file = files[i];
    sources::ChangeSourceOptions source_options;
    source_options.file_format = file.file_format;
    source_options.sequence_columns = flow.sequence_by;
    if (!known.empty()) source_options.schema = data::Schema(known);
    if (options.batch_size > 0) {
      source_options.batch_rows = std::min<int64_t>(options.batch_size, 1 << 16);
    }
    source_options.unterminated_last = file.unterminated_last;
    auto source = sources::OpenChangeSource(fs, file.path, file.format, source_options);
    if (!source.ok()) return InFile(source.status(), file.path);
    OpenFile in{static_cast<int64_t>(i), std::move(*source), {}, file.drop_before};
    tracker.Opened(static_cast<int64_t>(i), file, fs);
    const data::Schema* schema = in.source->schema();
    while (schema == nullptr) {
      auto next = in.source->Next();
      if (!next.ok()) return InFile(next.status(), file.path);
      if (!next->has_value()) break;
      DropBefore(in.drop_before, &**next);
      in.read_ahead.push_back(std::move(**next));
      // Rows without the key columns (truncates) tell nothing to check the flow against.
      const data::RecordBatch& read = in.read_ahead.back().rows;
      if (read.num_rows() > 0 && !TruncatesOnly(flow, read)) schema = &read.schema();
    }
    if (schema != nullptr) {
      Status valid = apply::ValidateFlow(flow, *schema);
      if (!valid.ok()) {
        summary->usage_error = true;
        return valid.WithContext(file.path);
      }
      for (const data::Field& f : schema->fields()) {
        if (!HasField(known, f.name)) known.push_back({f.name, f.type, true});
      }
    }
    opened.push_back(std::move(in));
  }
  summary->files_read = static_cast<int64_t>(opened.size());

  apply::ApplyOptions apply_options;
  apply_options.quarantine_table = qtable;
  apply_options.clock = options.clock;
  apply_options.persistent_index = options.persistent_index;
  apply_options.snapshot = target;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<apply::Applier> applier,
                           apply::Applier::Open(fs, flow, apply_options));
  int64_t last_version = applier->version();
  int64_t last_quarantine_version = -1;
  CDCLAKE_ASSIGN_OR_RETURN(bool quarantine_exists, delta::TableExists(fs, qtable));
  if (quarantine_exists) {
    CDCLAKE_ASSIGN_OR_RETURN(auto q, delta::Snapshot::Load(fs, qtable));
    last_quarantine_version = q->version();
  }
  // Every version since the last call: the table's creation and a schema change are commits of
  // their own before a batch's.
  auto note_versions = [&] {
    for (int64_t v = last_version + 1; v <= applier->version(); ++v) {
      summary->versions.push_back(v);
    }
    last_version = std::max(last_version, applier->version());
  };
  PendingRows pending;
  // The position after the run's last batch when that batch changed nothing (no commit records
  // it).
  std::optional<json::Json> unchanged_after;
  auto apply_batch = [&](const change::ChangeBatch& batch, const ReadPoint& end) -> Status {
    Report(options.progress, "applying", "rows", 0, batch.rows.num_rows());
    CDCLAKE_ASSIGN_OR_RETURN(LedgerRef ledger,
                             tracker.Record(fs, files, end, pending.first_file_index()));
    FlowPosition position = PositionAfter(run, end, ledger);
    position.batch = txn_version + 1;
    apply::CommitExtras extras;
    extras.txn_app_id = app_id;
    extras.txn_version = txn_version + 1;
    extras.txn_after = txn_version;
    extras.operation_parameters = PositionParameters(flow.name, position);
    extras.quarantined_before = quarantined_before;
    extras.quarantined = quarantined;
    auto result = applier->Apply(batch, extras);
    note_versions();
    if (!result.ok()) {
      std::string from = FilesOf(batch);
      return from.empty() ? result.status() : result.status().WithContext("applying " + from);
    }
    if (result->version) ++txn_version;
    // Nothing changed, so no commit records the position; the last such batch's is kept.
    if (result->version || result->quarantine_version) {
      unchanged_after.reset();
    } else if (run.stream) {
      unchanged_after = position.ToJson();
    }
    ++summary->batches;
    summary->counts += result->counts;
    if (result->quarantine_version) {
      // The quarantine table's creation is a commit of its own too.
      for (int64_t v = last_quarantine_version + 1; v <= *result->quarantine_version; ++v) {
        summary->quarantine_versions.push_back(v);
      }
      last_quarantine_version = *result->quarantine_version;
    }
    summary->position = std::move(position);
    return Status::OK();
  };
  // The run's end: a position no commit records is kept beside the table, or every later run
  // would read that input again. Best effort: without it, the input is read again and changes
  // nothing again.
  auto finished = [&] {
    if (unchanged_after) {
      (void)RecordUnchangedPosition(fs, flow.target, qtable, flow.name, *unchanged_after);
    }
    return Status::OK();
  };
  auto limit_reached = [&] {
    if (options.max_batches <= 0 || summary->batches < options.max_batches) return false;
    summary->stopped_early = true;
    return true;
  };

  // The files' batches in order, each file's end marked, read one batch ahead on a thread of
  // its own (decoding the next batch overlaps applying this one).
  struct FileBatch {
    size_t slot = 0;                           // in `opened`
    std::optional<change::ChangeBatch> batch;  // nullopt: the file's end
  };
  std::vector<bool> fixed_schema;
  for (const OpenFile& file : opened) fixed_schema.push_back(file.source->schema() != nullptr);
  // The bytes before each file, for the progress of reading (a file that cannot be sized
  // counts as empty).
  std::vector<int64_t> bytes_before(files.size() + 1, 0);
  if (options.progress) {
    for (size_t i = 0; i < files.size(); ++i) {
      auto info = fs.Stat(files[i].path);
      bytes_before[i + 1] = bytes_before[i] + (info.ok() ? static_cast<int64_t>(info->size) : 0);
    }
  }
  size_t reading = 0;
  ReadAhead<FileBatch> ahead([&]() -> Result<std::optional<FileBatch>> {
    if (reading >= opened.size()) return std::optional<FileBatch>();
    OpenFile& file = opened[reading];
    auto next = NextBatch(file);
    if (!next.ok()) return InFile(next.status(), files[static_cast<size_t>(file.index)].path);
    FileBatch item{reading, std::move(*next)};
    if (!item.batch) ++reading;
    return std::optional<FileBatch>(std::move(item));
  });

  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<FileBatch> item, ahead.Next());
    if (!item) break;
    OpenFile& file = opened[item->slot];
    const std::string& path = files[static_cast<size_t>(file.index)].path;
    if (!item->batch) {
      // The reader has moved on to the next file: this one's source is no longer in use.
      tracker.Ended(file.index, *file.source);
      AddSourceCounts(file.source->Counts(), &summary->source_counts);
      if (auto p = file.source->Pending()) summary->pending.push_back({path, *p});
      continue;
    }
    change::ChangeBatch batch = std::move(*item->batch);
    tracker.Saw(file.index, batch);
    if (options.progress && !batch.positions.empty()) {
      const change::SourcePosition& last = batch.positions.back();
      Report(
          options.progress, "reading", "bytes",
          bytes_before[static_cast<size_t>(file.index)] + std::max(last.byte_end, last.byte_offset),
          bytes_before.back());
    }
    if (!fixed_schema[item->slot] && batch.rows.num_rows() > 0 &&
        !TruncatesOnly(flow, batch.rows)) {
      Status valid = apply::ValidateFlow(flow, batch.rows.schema());
      if (!valid.ok()) {
        summary->usage_error = true;
        return valid.WithContext(path);
      }
    }
    if (!pending.Accepts(batch.rows.schema())) {
      // A column's type changed mid-stream: the rows so far go as a batch of their own.
      if (!pending.empty()) {
        change::ChangeBatch head = pending.Take(0);
        CDCLAKE_RETURN_IF_ERROR(apply_batch(head, pending.last_taken()));
        if (limit_reached()) return finished();
      }
      pending = PendingRows();
    }
    CDCLAKE_RETURN_IF_ERROR(pending.Add(std::move(batch), path, file.index));
    // A full batch is applied once a row after it is there, so that a file it ends with has
    // ended (its end comes first) and the ledger records it as read whole.
    while (options.batch_size > 0 && pending.num_rows() > options.batch_size) {
      change::ChangeBatch head = pending.Take(options.batch_size);
      CDCLAKE_RETURN_IF_ERROR(apply_batch(head, pending.last_taken()));
      if (limit_reached()) return finished();
    }
  }
  if (!pending.empty()) {
    change::ChangeBatch rest = pending.Take(0);
    CDCLAKE_RETURN_IF_ERROR(apply_batch(rest, pending.last_taken()));
  }
  return finished();
}

}  // namespace cdclake::pipeline
