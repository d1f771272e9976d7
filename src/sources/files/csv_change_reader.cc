// CsvChangeReader: header, type inference pass, then records converted batch by batch.
#include "sources/files/csv_change_reader_internal.h"

#include <set>

#include "sources/files/column_type_inference_internal.h"
#include "sources/files/csv_split_reader_internal.h"

namespace cdclake::sources::internal {

namespace {

std::string FieldCountReason(size_t expected, size_t found) {
  return "expected " + std::to_string(expected) + " fields, found " + std::to_string(found);
}

}  // namespace

CsvChangeReader::CsvChangeReader(ChunkedInput input, data::Schema schema, std::string path,
                                 int64_t batch_rows, std::optional<RecordSpan> unterminated_last,
                                 bool last_is_required, bool rescue)
    : input_(std::move(input)),
      splitter_(&input_),
      builder_(std::move(schema), path, batch_rows),
      tail_(unterminated_last),
      last_is_required_(last_is_required),
      rescue_(rescue),
      rescued_(std::move(path)) {
  builder_.set_text_source(input_.text_source());  // rows leave their text in the file
  // The file's columns: all of the schema's but the rescued-data column.
  const size_t file_columns = builder_.schema().num_fields() - (rescue_ ? 1 : 0);
  for (size_t c = 0; c < file_columns; ++c) types_.push_back(builder_.schema().field(c).type);
  cells_.resize(builder_.schema().num_fields());
}

Result<std::unique_ptr<ChangeFileReader>> CsvChangeReader::Open(io::FileSystem& fs,
                                                                std::string path,
                                                                const ChangeFileOptions& options) {
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput input,
                           ChunkedInput::Open(fs, path, options.read_chunk_bytes));
  CsvRecordSplitter splitter(&input);
  CsvRecord header;
  ScratchArena arena;
  CDCLAKE_ASSIGN_OR_RETURN(bool has_header, splitter.Next(&header));
  if (!has_header) return Status::Corrupt(path + ": no header row (the file is empty)");
  if (header.error != nullptr) {
    return Status::Corrupt(path + ": line " + std::to_string(header.line) +
                           ": bad header: " + header.error);
  }

  // Columns: the header's names, typed by the schema or marked for inference.
  std::vector<data::Field> fields;
  std::vector<size_t> inferred;
  for (size_t i = 0; i < header.fields.size(); ++i) {
    std::string name(CsvRecordSplitter::FieldText(header, i, &arena));
    if (name.empty()) {
      return Status::Corrupt(path + ": header column " + std::to_string(i + 1) + " has no name");
    }
    const data::Field* match = FindSchemaField(options.schema, name);
    if (match != nullptr) {
      fields.push_back(data::Field{match->name, match->type, true});
    } else {
      fields.push_back(data::Field{std::move(name), nullptr, true});
      inferred.push_back(i);
    }
  }
  CDCLAKE_RETURN_IF_ERROR(CheckUniqueNames(data::Schema(fields), path));

  if (!inferred.empty()) {
    // One pass over the whole file decides the inferred types; malformed records and records
    // with the wrong field count are left out (they will be rejected).
    std::vector<ColumnTypeInference> inference(inferred.size());
    for (size_t k = 0; k < inferred.size(); ++k) {
      if (NamedIn(options.sequence_columns, fields[inferred[k]].name)) inference[k].MarkSequence();
    }
    CsvRecord record;
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(bool more, splitter.Next(&record));
      if (!more) break;
      if (record.error != nullptr || record.fields.size() != fields.size()) continue;
      arena.Reset();
      for (size_t k = 0; k < inferred.size(); ++k) {
        size_t c = inferred[k];
        if (inference[k].settled() || record.IsNull(c)) continue;
        inference[k].ObserveText(CsvRecordSplitter::FieldText(record, c, &arena));
      }
    }
    for (size_t k = 0; k < inferred.size(); ++k) fields[inferred[k]].type = inference[k].Type();
  }
  input.Rewind();

  const bool last_is_required =
      !fields.empty() && (NamedIn(options.sequence_columns, fields.back().name) ||
                          NamedIn(options.required_columns, fields.back().name));
  const bool rescue = !options.rescued_data_column.empty();
  if (rescue) {
    fields.push_back(data::Field{options.rescued_data_column, data::DataType::String(), true});
    CDCLAKE_RETURN_IF_ERROR(CheckUniqueNames(data::Schema(fields), path));
  }
  data::Schema schema(std::move(fields));
  CDCLAKE_ASSIGN_OR_RETURN(
      std::unique_ptr<ChangeFileReader> split,
      OpenSplitCsvReader(fs, path, schema, options, last_is_required, input.size()));
  if (split != nullptr) return split;
  auto reader = std::make_unique<CsvChangeReader>(
      std::move(input), std::move(schema), std::move(path), options.batch_rows,
      options.unterminated_last, last_is_required, rescue);
  CDCLAKE_RETURN_IF_ERROR(reader->SkipHeader());
  return std::unique_ptr<ChangeFileReader>(std::move(reader));
}

Status CsvChangeReader::SkipHeader() {
  splitter_.Restart();
  CDCLAKE_ASSIGN_OR_RETURN(bool has_header, splitter_.Next(&record_));
  if (!has_header) return Status::Corrupt("the file lost its header while being read");
  return Status::OK();
}

bool CsvChangeReader::NotWholeYet(size_t num_columns) {
  const CsvRecord& r = record_;
  if (r.pending) return true;
  if (r.error != nullptr) return false;
  if (r.fields.size() < num_columns) return true;
  if (r.fields.size() > num_columns) return false;
  // Every field is there; the last may still be cut short ("2026-01-0" of a timestamp). An empty
  // sequence there ("4,d,U,"), or another column the rows are required to have, is cut short
  // too: as it stands the row could only be quarantined.
  const size_t last = num_columns - 1;
  if (r.IsNull(last)) return last_is_required_;
  arena_.Reset();
  std::string_view text = CsvRecordSplitter::FieldText(r, last, &arena_);
  return !ConvertText(text, types_[last], &arena_, &cells_[last], &error_);
}

void CsvChangeReader::Reject(std::string reason, std::string misfit_column) {
  const CsvRecord& r = record_;
  builder_.Reject(r.text, r.line, r.offset, r.end, std::move(reason), std::move(misfit_column));
  tail_.NoteReturned(r.offset, r.end, r.terminated);
}

Result<std::optional<change::ChangeBatch>> CsvChangeReader::Next() {
  if (done_) return std::optional<change::ChangeBatch>();
  builder_.Start();
  const size_t num_columns = types_.size();
  while (!builder_.full()) {
    CDCLAKE_ASSIGN_OR_RETURN(bool more, splitter_.Next(&record_));
    if (!more) {
      done_ = true;
      break;
    }
    const CsvRecord& r = record_;
    const uint64_t content_end = r.offset + r.text.size();
    if (tail_.Appended(r.offset, content_end)) {
      builder_.Reject(tail_.AppendedRaw(r.text), r.line, tail_.AppendedOffset(), r.end,
                      tail_.AppendedReason(r.line, content_end));
      tail_.NoteReturned(r.offset, r.end, r.terminated);
      continue;
    }
    if (!r.terminated && NotWholeYet(num_columns)) {
      // The file ends in it: not consumed, read again by a later run once it is whole.
      tail_.NotePending(r.line, r.offset, r.end);
      done_ = true;
      break;
    }
    if (r.error != nullptr) {
      Reject(r.error);
      continue;
    }
    if (r.fields.size() != num_columns) {
      Reject(FieldCountReason(num_columns, r.fields.size()));
      continue;
    }
    arena_.Reset();
    rescued_.Clear();
    bool converted = true;
    for (size_t c = 0; c < num_columns; ++c) {
      if (r.IsNull(c)) {
        cells_[c].SetNull();
        continue;
      }
      std::string_view text = CsvRecordSplitter::FieldText(r, c, &arena_);
      if (!ConvertText(text, types_[c], &arena_, &cells_[c], &error_)) {
        const std::string& name = builder_.schema().field(c).name;
        if (rescue_) {
          cells_[c].SetNull();
          rescued_.Add(name, text);
          continue;
        }
        Reject(error_.Describe(name), name);
        converted = false;
        break;
      }
    }
    if (converted && rescue_) rescued_.Stage(&arena_, &cells_.back());
    if (converted) {
      builder_.AddRow(cells_, r.text, r.line, r.offset, r.end);
      tail_.NoteReturned(r.offset, r.end, r.terminated);
    }
  }
  if (builder_.empty()) {
    done_ = true;
    return std::optional<change::ChangeBatch>();
  }
  return std::optional<change::ChangeBatch>(builder_.Finish());
}

}  // namespace cdclake::sources::internal
