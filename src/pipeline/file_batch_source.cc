// FileBatchSource: read_files(...) inputs as a BatchSource — the files the ledger says are new or
// grew, opened one at a time in path order, rows gathered across files into batches, each
// batch's position naming the ledger after it.
#include <optional>

#include "delta/log_segment.h"
#include "pipeline/batch_source.h"
#include "pipeline/file_input_internal.h"
#include "pipeline/pending_rows.h"

namespace cdclake::pipeline {

namespace {

class FileBatchSource : public BatchSource {
 public:
  FileBatchSource(io::FileSystem& fs, RunFiles run, ResumePoint resume,
                  std::vector<data::Field> known, int64_t batch_rows, bool keep_row_text,
                  std::vector<std::string> sequence_columns,
                  std::vector<std::string> required_columns, std::string rescued_data_column,
                  bool peek)
      : fs_(fs),
        run_(std::move(run)),
        resume_(std::move(resume)),
        tracker_(std::move(resume_.ledger), std::move(resume_.seed)),
        known_(std::move(known)),
        batch_rows_(std::max<int64_t>(batch_rows, 1)),
        keep_row_text_(keep_row_text),
        sequence_columns_(std::move(sequence_columns)),
        required_columns_(std::move(required_columns)),
        rescued_data_column_(std::move(rescued_data_column)),
        peek_(peek) {}

  std::string StartText() const override {
    return resume_.resumed_from ? resume_.resumed_from->ToString() : "start";
  }

  std::vector<sources::SourceCount> Counts() const override { return counts_; }
  std::vector<sources::PendingFile> Pending() const override { return pending_files_; }

  std::vector<std::string> Notices() const override { return resume_.warnings; }

  std::optional<change::SourcePosition> QuarantinedBefore() const override {
    return resume_.quarantined_before;
  }

  Result<std::optional<InputBatch>> Next() override {
    // Reading goes one batch past a full batch, so that a file whose rows the batch ends with
    // is known to have ended, and the ledger records it as read whole.
    while (true) {
      const bool full = pending_.num_rows() >= batch_rows_;
      if (held_) {
        if (full) break;
        // A batch whose column types differ from the pending rows' waits for them to go.
        if (!pending_.empty() && !pending_.Accepts(held_->rows.schema())) break;
        if (!pending_.Accepts(held_->rows.schema())) pending_ = PendingRows();
        CDCLAKE_RETURN_IF_ERROR(pending_.Add(std::move(*held_), held_path_, held_index_));
        held_.reset();
        continue;
      }
      if (!current_) {
        if (full || next_file_ >= run_.files.size()) break;
        CDCLAKE_RETURN_IF_ERROR(OpenNext());
      }
      const std::string& path = run_.files[static_cast<size_t>(current_->index)].path;
      auto next = NextBatch(*current_);
      if (!next.ok()) return InFile(next.status(), path);
      if (!next->has_value()) {
        tracker_.Ended(current_->index, *current_->source);
        AddSourceCounts(current_->source->Counts(), &counts_);
        if (auto p = current_->source->Pending()) pending_files_.push_back({path, *p});
        current_.reset();
        ++files_finished_;
        continue;
      }
      for (const data::Field& f : (*next)->rows.schema().fields()) {
        if (!HasField(known_, f.name)) known_.push_back({f.name, f.type, true});
      }
      tracker_.Saw(current_->index, **next);
      held_ = std::move(**next);
      held_path_ = path;
      held_index_ = current_->index;
    }
    if (pending_.empty()) return std::optional<InputBatch>();
    InputBatch out;
    out.rows = pending_.Take(batch_rows_);
    int64_t waiting = pending_.first_file_index();
    if (held_ && (waiting < 0 || held_index_ < waiting)) waiting = held_index_;
    LedgerRef ledger;
    if (!peek_) {
      CDCLAKE_ASSIGN_OR_RETURN(ledger,
                               tracker_.Record(fs_, run_.files, pending_.last_taken(), waiting));
    }
    FlowPosition end = PositionAfter(run_, pending_.last_taken(), ledger);
    out.end = end.ToJson();
    out.end_text = end.ToString();
    out.files_done = files_finished_;
    out.written_ms = written_ms_;
    files_finished_ = 0;
    return std::optional<InputBatch>(std::move(out));
  }

 private:
  Status OpenNext() {
    const size_t i = next_file_++;
    const RunFile& file = run_.files[i];
    sources::ChangeSourceOptions options;
    options.file_format = file.file_format;
    if (!known_.empty()) options.schema = data::Schema(known_);
    options.batch_rows = std::min<int64_t>(batch_rows_, 1 << 16);
    // Appends never quarantine a decoded row, so its record text is not kept (rejected records
    // keep theirs); the apply engine needs it for rows it may quarantine.
    options.keep_row_text = keep_row_text_;
    options.sequence_columns = sequence_columns_;
    options.required_columns = required_columns_;
    options.rescued_data_column = rescued_data_column_;
    options.unterminated_last = file.unterminated_last;
    auto source = sources::OpenChangeSource(fs_, file.path, file.format, options);
    if (!source.ok()) return InFile(source.status(), file.path);
    current_ = OpenFile{static_cast<int64_t>(i), std::move(*source), {}, file.drop_before};
    tracker_.Opened(static_cast<int64_t>(i), file, fs_);
    auto info = fs_.Stat(file.path);
    if (info.ok()) written_ms_ = std::max(written_ms_, info->modification_time_ms);
    return Status::OK();
  }

  io::FileSystem& fs_;
  RunFiles run_;
  ResumePoint resume_;
  LedgerTracker tracker_;
  size_t next_file_ = 0;
  std::vector<data::Field> known_;
  int64_t batch_rows_;
  bool keep_row_text_;
  std::vector<std::string> sequence_columns_;  // the AUTO CDC flow's SEQUENCE BY columns
  std::vector<std::string> required_columns_;  // SourcePlan::options.required_columns
  std::string rescued_data_column_;            // SourcePlan::options.rescued_data_column
  bool peek_;                                  // FileSourceTarget::peek
  std::optional<OpenFile> current_;
  PendingRows pending_;
  std::optional<change::ChangeBatch> held_;
  std::string held_path_;
  int64_t held_index_ = 0;
  int64_t files_finished_ = 0;
  int64_t written_ms_ = 0;  // the newest modification time of the files opened
  std::vector<sources::SourceCount> counts_;
  std::vector<sources::PendingFile> pending_files_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenFileSource(io::FileSystem& fs, const SourcePlan& source,
                                                    const FileSourceTarget& target,
                                                    const apply::FlowDefinition* cdc_flow,
                                                    int64_t batch_rows) {
  FlowInput input{source.pattern, source.format};
  CDCLAKE_ASSIGN_OR_RETURN(RunFiles run,
                           ListRunFiles(fs, {input}, "give read_files a format => option",
                                        /*named_file_streams=*/true));
  // read_files naming one file is still a stream: it is read once, and appended lines later.
  run.stream = true;
  std::shared_ptr<const delta::Snapshot> snapshot;
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, target.folder));
  if (exists) {
    CDCLAKE_ASSIGN_OR_RETURN(snapshot, delta::Snapshot::Load(fs, target.folder));
  }
  CDCLAKE_ASSIGN_OR_RETURN(
      ResumePoint resume,
      FindResumePoint(fs, &run,
                      ResumeRequest{target.folder, target.quarantine_table, target.flow,
                                    target.table, target.reset,
                                    /*rereading_is_harmless=*/cdc_flow != nullptr, snapshot}));
  if (!target.peek && !resume.keep_old_generations) resume.ledger.DeleteOldGenerations(fs);
  std::vector<data::Field> known = KnownTypes(cdc_flow, source.options.schema, snapshot.get());
  return std::unique_ptr<BatchSource>(std::make_unique<FileBatchSource>(
      fs, std::move(run), std::move(resume), std::move(known), batch_rows,
      /*keep_row_text=*/cdc_flow != nullptr,
      cdc_flow != nullptr ? cdc_flow->sequence_by : std::vector<std::string>(),
      source.options.required_columns, source.options.rescued_data_column, target.peek));
}

}  // namespace cdclake::pipeline
