// CsvChangeReader: header, type inference pass, then records converted batch by batch.
#include "sources/files/csv_change_reader_internal.h"

#include <set>

#include "sources/files/column_type_inference_internal.h"

namespace cdclake::sources::internal {

namespace {

std::string FieldCountReason(size_t expected, size_t found) {
  return "expected " + std::to_string(expected) + " fields, found " + std::to_string(found);
}

}  // namespace

CsvChangeReader::CsvChangeReader(ChunkedInput input, data::Schema schema, std::string path,
                                 int64_t batch_rows)
    : input_(std::move(input)),
      splitter_(&input_),
      builder_(std::move(schema), std::move(path), batch_rows) {
  for (const data::Field& field : builder_.schema().fields()) types_.push_back(field.type);
  cells_.resize(types_.size());
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

  auto reader = std::make_unique<CsvChangeReader>(std::move(input), data::Schema(std::move(fields)),
                                                  std::move(path), options.batch_rows);
  CDCLAKE_RETURN_IF_ERROR(reader->SkipHeader());
  return std::unique_ptr<ChangeFileReader>(std::move(reader));
}

Status CsvChangeReader::SkipHeader() {
  splitter_.Restart();
  CDCLAKE_ASSIGN_OR_RETURN(bool has_header, splitter_.Next(&record_));
  if (!has_header) return Status::Corrupt("the file lost its header while being read");
  return Status::OK();
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
    if (r.error != nullptr) {
      builder_.Reject(r.text, r.line, r.offset, r.error);
      continue;
    }
    if (r.fields.size() != num_columns) {
      builder_.Reject(r.text, r.line, r.offset, FieldCountReason(num_columns, r.fields.size()));
      continue;
    }
    arena_.Reset();
    bool converted = true;
    for (size_t c = 0; c < num_columns; ++c) {
      if (r.IsNull(c)) {
        cells_[c].SetNull();
        continue;
      }
      std::string_view text = CsvRecordSplitter::FieldText(r, c, &arena_);
      if (!ConvertText(text, types_[c], &arena_, &cells_[c], &error_)) {
        builder_.Reject(r.text, r.line, r.offset, error_.Describe(builder_.schema().field(c).name));
        converted = false;
        break;
      }
    }
    if (converted) builder_.AddRow(cells_, r.text, r.line, r.offset);
  }
  if (builder_.empty()) {
    done_ = true;
    return std::optional<change::ChangeBatch>();
  }
  return std::optional<change::ChangeBatch>(builder_.Finish());
}

}  // namespace cdclake::sources::internal
