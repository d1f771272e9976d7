// DebeziumReader: records decoded into batches whose schema grows (a new batch) when a column or
// a type appears; a first pass over the file infers the types of columns no schema names, run
// only when a record has such a column.
#include "sources/debezium/debezium_reader.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sources/batch_reserve.h"
#include "sources/debezium/debezium_range_internal.h"
#include "sources/debezium/event_decoder_internal.h"
#include "sources/debezium/record_framer_internal.h"
#include "sources/files/chunked_input_internal.h"
#include "sources/files/record_tail_internal.h"

namespace cdclake::sources {

namespace internal {

class ObservationPass {
 public:
  std::once_flag once;
  Status status;
  std::unique_ptr<EventDecoder> observer;
};

std::shared_ptr<ObservationPass> NewObservationPass() {
  return std::make_shared<ObservationPass>();
}

}  // namespace internal

namespace {

using internal::ChunkedInput;
using internal::EventDecoder;
using internal::RecordFramer;
using Outcome = EventDecoder::Outcome;

constexpr int64_t kChunkBytes = 4 << 20;

// Room for `rows` more values, struct members included; `bytes` for string and binary data.
void ReserveColumn(data::Column* column, int64_t rows, size_t bytes) {
  column->Reserve(rows);
  if (bytes > 0) column->mutable_bytes().reserve(bytes);
  if (column->type()->id() == data::TypeId::kStruct) {
    for (size_t i = 0; i < column->num_children(); ++i) {
      ReserveColumn(&column->mutable_child(i), rows, 0);
    }
  }
}

bool SameType(const data::TypePtr& a, const data::TypePtr& b) {
  return a.get() == b.get() || (a != nullptr && b != nullptr && a->Equals(*b));
}

// One record read and decoded. For kSyntaxError the framer has already skipped the record and
// `raw`/`reason` say what and why; for every other outcome the record is still unconsumed.
// `pending`: the file ends inside the record's JSON; it is neither decoded nor consumed.
struct Step {
  RecordFramer::Record record;
  Outcome outcome = Outcome::kRow;
  std::string raw;
  std::string reason;
  bool pending = false;
};

Result<bool> ReadStep(RecordFramer& framer, EventDecoder& decoder, Step* step) {
  CDCLAKE_ASSIGN_OR_RETURN(bool more, framer.Next(&step->record));
  if (!more) return false;
  step->outcome = decoder.Decode(step->record.text);
  step->reason.clear();
  step->pending = false;
  const bool retry = step->outcome == Outcome::kIncomplete ||
                     (step->outcome == Outcome::kSyntaxError && step->record.cut);
  if (retry && !step->record.whole) {
    // The value goes on past its first line.
    CDCLAKE_ASSIGN_OR_RETURN(bool whole, framer.Extend(&step->record, &step->reason));
    if (!whole && step->record.pending) {
      step->pending = true;
      return true;
    }
    step->outcome = whole ? decoder.Decode(step->record.text) : Outcome::kSyntaxError;
  }
  if (step->outcome == Outcome::kIncomplete) {
    step->outcome = Outcome::kSyntaxError;
    step->reason = "invalid JSON: the record ends early";
  }
  if (step->outcome == Outcome::kSyntaxError) {
    if (step->reason.empty()) step->reason = decoder.reason();
    CDCLAKE_RETURN_IF_ERROR(framer.Skip(&step->raw));
  }
  return true;
}

class DebeziumReaderImpl final : public DebeziumReader {
 public:
  DebeziumReaderImpl(ChunkedInput input, ChunkedInput observe_input, std::string path,
                     DebeziumOptions options, int64_t first_line,
                     std::shared_ptr<internal::ObservationPass> pass)
      : pass_(std::move(pass)),
        input_(std::move(input)),
        observe_input_(std::move(observe_input)),
        path_(std::move(path)),
        options_(std::move(options)),
        tail_(options_.unterminated_last) {
    framer_ = std::make_unique<RecordFramer>(&input_, first_line);
    decoder_ = std::make_unique<EventDecoder>(options_, EventDecoder::Mode::kDecode);
  }

  Result<std::optional<change::ChangeBatch>> Next() override;
  const DebeziumCounts& counts() const override { return counts_; }
  std::optional<PendingRecord> Pending() const override { return tail_.pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override { return tail_.unterminated_last(); }

 private:
  // The first pass, over the whole file through its own input: the types of columns no schema
  // names, for records without a schema part (events with one never need it).
  Status Observe() {
    if (pass_ == nullptr) {
      auto observer = std::make_unique<EventDecoder>(options_, EventDecoder::Mode::kObserve);
      CDCLAKE_RETURN_IF_ERROR(RunFirstPass(observer.get()));
      decoder_->AdoptObservations(std::move(*observer));
      return Status::OK();
    }
    std::call_once(pass_->once, [this] {
      pass_->observer = std::make_unique<EventDecoder>(options_, EventDecoder::Mode::kObserve);
      pass_->status = RunFirstPass(pass_->observer.get());
    });
    CDCLAKE_RETURN_IF_ERROR(pass_->status);
    decoder_->AdoptObservations(*pass_->observer);
    return Status::OK();
  }
  Status RunFirstPass(EventDecoder* observer) {
    RecordFramer framer(&observe_input_);
    Step step;
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(bool more, ReadStep(framer, *observer, &step));
      if (!more || step.pending) break;
      if (step.outcome != Outcome::kSyntaxError) framer.Consume(observer->consumed());
    }
    observe_input_.Rewind();
    return Status::OK();
  }
  void BeginBatch();
  // Whether the decoded row fits the batch's schema.
  bool Fits() const;
  // Takes the decoded row's columns and types into the (still empty) batch's schema.
  void Adopt();
  void Materialize();
  // The record is [offset, end) in the file (a rejected record's position may say otherwise:
  // RecordTail::AppendedOffset).
  void AppendRow(const RecordFramer::Record& record, uint64_t end);
  void Reject(std::string raw, const RecordFramer::Record& record, uint64_t offset, uint64_t end,
              std::string reason);
  change::ChangeBatch FinishBatch();

  std::shared_ptr<internal::ObservationPass> pass_;  // shared with the other half's reader
  ChunkedInput input_;
  ChunkedInput observe_input_;  // the first pass's
  std::string path_;
  DebeziumOptions options_;
  std::unique_ptr<RecordFramer> framer_;
  std::unique_ptr<EventDecoder> decoder_;
  DebeziumCounts counts_;
  internal::RecordTail tail_;
  bool done_ = false;

  // The batch being built. Its schema is settled by its first row.
  change::ChangeBatch batch_;
  int64_t rows_ = 0;
  bool materialized_ = false;
  size_t batch_columns_ = 0;
  std::vector<data::TypePtr> batch_types_;
  data::TypePtr batch_sequence_type_;                      // nullptr: not settled yet
  data::TypePtr next_sequence_type_;                       // the type the next batch starts with
  std::vector<std::pair<int64_t, int>> unchanged_;         // (row, column)
  std::unordered_map<std::string, double> bytes_per_row_;  // string bytes per row, by column
};

void DebeziumReaderImpl::BeginBatch() {
  batch_ = change::ChangeBatch();
  rows_ = 0;
  materialized_ = false;
  unchanged_.clear();
  auto& columns = decoder_->columns();
  batch_columns_ = columns.size();
  batch_types_.clear();
  for (const internal::DebeziumColumn& column : columns) {
    batch_types_.push_back(column.latest != nullptr ? column.latest : column.plain.type);
  }
  batch_sequence_type_ = next_sequence_type_;
}

bool DebeziumReaderImpl::Fits() const {
  for (int c : decoder_->touched()) {
    size_t column = static_cast<size_t>(c);
    if (column >= batch_columns_ || !SameType(decoder_->event_type(column), batch_types_[column])) {
      return false;
    }
  }
  data::TypePtr sequence = decoder_->sequence_type();
  // A sequence type not settled yet is settled by Adopt.
  if (sequence != nullptr && !SameType(sequence, batch_sequence_type_)) return false;
  return true;
}

void DebeziumReaderImpl::Adopt() {
  auto& columns = decoder_->columns();
  for (size_t c = batch_columns_; c < columns.size(); ++c) {
    batch_types_.push_back(columns[c].latest != nullptr ? columns[c].latest
                                                        : columns[c].plain.type);
  }
  batch_columns_ = columns.size();
  for (int c : decoder_->touched()) {
    batch_types_[static_cast<size_t>(c)] = decoder_->event_type(static_cast<size_t>(c));
  }
  data::TypePtr sequence = decoder_->sequence_type();
  if (sequence != nullptr) batch_sequence_type_ = sequence;
}

void DebeziumReaderImpl::Materialize() {
  auto& columns = decoder_->columns();
  std::vector<data::Field> fields;
  fields.reserve(batch_columns_ + 4);
  for (size_t c = 0; c < batch_columns_; ++c) {
    fields.push_back(data::Field{columns[c].name, batch_types_[c], true});
  }
  if (batch_sequence_type_ == nullptr) batch_sequence_type_ = data::DataType::Int64();
  fields.push_back(data::Field{"_op", data::DataType::String(), true});
  fields.push_back(data::Field{"_seq", batch_sequence_type_, true});
  fields.push_back(data::Field{"_source_ts_ms", data::DataType::Int64(), true});
  fields.push_back(data::Field{"_source_table", data::DataType::String(), true});
  batch_.rows = data::RecordBatch(data::Schema(std::move(fields)));
  const int64_t reserve = ReservedRows(options_.batch_rows);
  for (size_t c = 0; c < batch_.rows.num_columns(); ++c) {
    // String bytes: as many per row as the last batch had.
    const std::string& name = batch_.rows.schema().field(c).name;
    auto hint = bytes_per_row_.find(name);
    const size_t bytes = hint == bytes_per_row_.end() ? 0 : ReservedBytes(hint->second, reserve);
    ReserveColumn(&batch_.rows.mutable_column(c), reserve, bytes);
  }
  batch_.positions.reserve(static_cast<size_t>(reserve));
  batch_.raw.reserve(static_cast<size_t>(reserve));
  if (options_.keep_row_text) batch_.text_source = input_.text_source();
  materialized_ = true;
}

void DebeziumReaderImpl::AppendRow(const RecordFramer::Record& record, uint64_t end) {
  if (!materialized_) Materialize();
  const std::vector<internal::StagedCell>& cells = decoder_->cells();
  for (size_t c = 0; c < batch_columns_; ++c) {
    internal::AppendCell(cells[c], &batch_.rows.mutable_column(c));
  }
  const size_t meta = batch_columns_;
  batch_.rows.mutable_column(meta).AppendBytes(decoder_->op());
  decoder_->AppendSequence(&batch_.rows.mutable_column(meta + 1));
  data::Column& ts = batch_.rows.mutable_column(meta + 2);
  if (decoder_->has_source_ts_ms()) {
    ts.Append<int64_t>(decoder_->source_ts_ms());
  } else {
    ts.AppendNull();
  }
  data::Column& table = batch_.rows.mutable_column(meta + 3);
  if (decoder_->source_table().empty()) {
    table.AppendNull();
  } else {
    table.AppendBytes(decoder_->source_table());
  }
  batch_.positions.Add(path_, record.line, static_cast<int64_t>(record.offset),
                       static_cast<int64_t>(end));
  if (options_.keep_row_text) {
    // Left in the file: read back (and checked by digest) only when someone asks for it.
    const std::string_view text = record.text.substr(0, decoder_->consumed());
    batch_.raw.AddInFile(text.size(), change::RowTextDigest(text));
  } else {
    batch_.raw.emplace_back();
  }
  for (int c : decoder_->unchanged()) unchanged_.emplace_back(rows_, c);
  auto& columns = decoder_->columns();
  for (int c : decoder_->touched()) {
    internal::DebeziumColumn& column = columns[static_cast<size_t>(c)];
    const data::TypePtr& type = decoder_->event_type(static_cast<size_t>(c));
    if (column.latest.get() != type.get()) column.latest = type;
  }
  ++rows_;
}

void DebeziumReaderImpl::Reject(std::string raw, const RecordFramer::Record& record,
                                uint64_t offset, uint64_t end, std::string reason) {
  batch_.rejected.push_back(change::RejectedRecord{
      std::move(raw),
      change::SourcePosition{path_, record.line, static_cast<int64_t>(offset),
                             static_cast<int64_t>(end)},
      std::move(reason)});
}

change::ChangeBatch DebeziumReaderImpl::FinishBatch() {
  if (!materialized_) Materialize();
  if (rows_ > 0) {
    for (size_t c = 0; c < batch_.rows.num_columns(); ++c) {
      const data::Column& column = batch_.rows.column(c);
      if (!column.bytes().empty()) {
        bytes_per_row_[batch_.rows.schema().field(c).name] =
            static_cast<double>(column.bytes().size()) / static_cast<double>(rows_);
      }
    }
  }
  if (!unchanged_.empty()) {
    batch_.unchanged.assign(batch_.rows.num_columns(),
                            std::vector<uint8_t>(static_cast<size_t>(rows_), 0));
    for (const auto& [row, column] : unchanged_) {
      batch_.unchanged[static_cast<size_t>(column)][static_cast<size_t>(row)] = 1;
    }
  }
  next_sequence_type_ = batch_sequence_type_;
  return std::move(batch_);
}

Result<std::optional<change::ChangeBatch>> DebeziumReaderImpl::Next() {
  if (done_) return std::optional<change::ChangeBatch>();
  BeginBatch();
  Step step;
  while (rows_ < options_.batch_rows) {
    CDCLAKE_ASSIGN_OR_RETURN(bool more, ReadStep(*framer_, *decoder_, &step));
    if (!more) {
      done_ = true;
      break;
    }
    if (step.pending) {
      // The file ends inside this record: not consumed, read again once it is whole.
      const RecordFramer::Record& r = step.record;
      tail_.NotePending(r.line, r.offset, input_.offset() + input_.available().size());
      done_ = true;
      break;
    }
    if (step.outcome == Outcome::kNeedObservations) {
      if (decoder_->observed()) return Status::Internal("the first pass left a type undecided");
      CDCLAKE_RETURN_IF_ERROR(Observe());
      continue;  // the same record again
    }
    const RecordFramer::Record& r = step.record;
    if (step.outcome == Outcome::kSyntaxError) {
      // Skipped already; bytes appended to it could not have made it valid.
      const uint64_t end = input_.offset();
      if (tail_.Appended(r.offset, r.offset + step.raw.size())) {
        Reject(tail_.AppendedRaw(step.raw), r, tail_.AppendedOffset(), end,
               tail_.AppendedReason(r.line, r.offset + step.raw.size()));
      } else {
        Reject(std::move(step.raw), r, r.offset, end, std::move(step.reason));
      }
      tail_.NoteReturned(r.offset, end, true);
      continue;
    }
    const size_t consumed = decoder_->consumed();
    bool unterminated = false;
    const uint64_t end = framer_->EndOf(r, consumed, &unterminated);
    if (tail_.Appended(r.offset, r.offset + consumed)) {
      std::string_view now = r.text.substr(0, consumed);
      Reject(tail_.AppendedRaw(now), r, tail_.AppendedOffset(), end,
             tail_.AppendedReason(r.line, r.offset + consumed));
      tail_.NoteReturned(r.offset, end, !unterminated);
      framer_->Consume(consumed);
      continue;
    }
    tail_.NoteReturned(r.offset, end, !unterminated);
    switch (step.outcome) {
      case Outcome::kSyntaxError:  // handled above
        break;
      case Outcome::kRejected:
        Reject(std::string(r.text.substr(0, consumed)), r, r.offset, end, decoder_->reason());
        break;
      case Outcome::kTombstone:
        ++counts_.tombstones;
        break;
      case Outcome::kMessage:
        ++counts_.messages;
        break;
      case Outcome::kTransaction:
        ++counts_.transaction_records;
        break;
      case Outcome::kSchemaChange:
        ++counts_.schema_changes;
        break;
      case Outcome::kIncomplete:  // ReadStep turns it into kSyntaxError
      case Outcome::kNeedObservations:
        break;
      case Outcome::kRow:
        if (!Fits()) {
          if (rows_ > 0) {
            // A new column or type: this batch ends; the record is decoded again into the next.
            for (int c : decoder_->touched()) {
              auto& column = decoder_->columns()[static_cast<size_t>(c)];
              column.latest = decoder_->event_type(static_cast<size_t>(c));
            }
            data::TypePtr sequence = decoder_->sequence_type();
            change::ChangeBatch batch = FinishBatch();
            if (sequence != nullptr) next_sequence_type_ = sequence;
            return std::optional<change::ChangeBatch>(std::move(batch));
          }
          Adopt();
        }
        AppendRow(step.record, end);
        break;
    }
    framer_->Consume(consumed);
  }
  if (rows_ == 0 && batch_.rejected.empty()) {
    done_ = true;
    return std::optional<change::ChangeBatch>();
  }
  return std::optional<change::ChangeBatch>(FinishBatch());
}

Status CheckOptions(const DebeziumOptions& options) {
  if (options.batch_rows <= 0) return Status::InvalidArgument("batch_rows must be positive");
  if (options.sequence_path.has_value() && options.sequence_path->empty()) {
    return Status::InvalidArgument("sequence_path is empty");
  }
  return Status::OK();
}

}  // namespace

namespace internal {

Result<std::unique_ptr<DebeziumReader>> OpenDebeziumRange(io::FileSystem& fs, std::string path,
                                                          DebeziumOptions options, uint64_t begin,
                                                          uint64_t end, int64_t first_line,
                                                          std::shared_ptr<ObservationPass> pass) {
  CDCLAKE_RETURN_IF_ERROR(CheckOptions(options));
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput input,
                           ChunkedInput::OpenRange(fs, path, kChunkBytes, begin, end));
  // The first pass infers types from the whole file, as the reader of the whole file does.
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput observe_input, ChunkedInput::Open(fs, path, kChunkBytes));
  return std::unique_ptr<DebeziumReader>(std::make_unique<DebeziumReaderImpl>(
      std::move(input), std::move(observe_input), std::move(path), std::move(options), first_line,
      std::move(pass)));
}

}  // namespace internal

Result<std::unique_ptr<DebeziumReader>> DebeziumReader::Open(io::FileSystem& fs, std::string path,
                                                             DebeziumOptions options) {
  CDCLAKE_RETURN_IF_ERROR(CheckOptions(options));
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<DebeziumReader> split,
                           internal::OpenSplitDebeziumReader(fs, path, options));
  if (split != nullptr) return split;
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput input, ChunkedInput::Open(fs, path, kChunkBytes));
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput observe_input, ChunkedInput::Open(fs, path, kChunkBytes));
  return std::unique_ptr<DebeziumReader>(std::make_unique<DebeziumReaderImpl>(
      std::move(input), std::move(observe_input), std::move(path), std::move(options), 1, nullptr));
}

}  // namespace cdclake::sources
