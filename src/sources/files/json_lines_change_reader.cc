// JsonLinesChangeReader: member discovery and inference pass, then lines converted batch by
// batch.
#include "sources/files/json_lines_change_reader_internal.h"

#include "sources/files/file_halves_internal.h"

#include <cstdint>
#include <utility>

#include "sources/files/column_type_inference_internal.h"
#include "sources/files/file_halves_internal.h"
#include "sources/files/json_scanner_internal.h"

namespace cdclake::sources::internal {

namespace {

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

std::string InvalidJsonReason(const JsonScanner& scanner) {
  return "invalid JSON at column " + std::to_string(scanner.error_offset() + 1) + ": " +
         scanner.error();
}

}  // namespace

JsonLinesChangeReader::JsonLinesChangeReader(ChunkedInput input, data::Schema schema,
                                             std::vector<std::string> keys, std::string path,
                                             int64_t batch_rows,
                                             std::optional<RecordSpan> unterminated_last,
                                             bool rescue)
    : input_(std::move(input)),
      cursor_(&input_),
      builder_(std::move(schema), path, batch_rows),
      keys_(std::move(keys)),
      tail_(unterminated_last),
      rescue_(rescue),
      rescued_(std::move(path)) {
  for (size_t i = 0; i < keys_.size(); ++i) key_index_.emplace(keys_[i], static_cast<int>(i));
  builder_.set_text_source(input_.text_source());  // rows leave their text in the file
  // The file's columns: all of the schema's but the rescued-data column.
  const size_t file_columns = builder_.schema().num_fields() - (rescue_ ? 1 : 0);
  for (size_t c = 0; c < file_columns; ++c) types_.push_back(builder_.schema().field(c).type);
  cells_.resize(builder_.schema().num_fields());
  seen_.resize(types_.size());
}

Result<std::unique_ptr<ChangeFileReader>> JsonLinesChangeReader::Open(
    io::FileSystem& fs, std::string path, const ChangeFileOptions& options) {
  CDCLAKE_ASSIGN_OR_RETURN(ChunkedInput input,
                           ChunkedInput::Open(fs, path, options.read_chunk_bytes));
  // A large file is decoded in two halves; discovery, which reads every line, counts the line
  // the cut falls on.
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<uint64_t> cut_offset,
                           FindCutOffset(fs, path, input.size(), options.split_from_bytes));
  std::optional<FileCut> cut;
  // Discovery: every member name of every valid line, in order of first appearance; the
  // values of members without a schema type feed their inference.
  struct Column {
    std::string key;
    data::Field field;
    bool inferred = false;
    ColumnTypeInference inference;
  };
  std::vector<Column> columns;
  KeyIndex index;
  std::vector<std::pair<std::string_view, JsonValue>> members;
  std::vector<size_t> last_order;  // column of each member position in the last line
  ScratchArena arena;
  {
    LineCursor cursor(&input);
    std::string_view line;
    int64_t number = 0;
    uint64_t offset = 0;
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(bool more, cursor.Next(&line, &number, &offset));
      if (!more) break;
      if (cut_offset && offset == *cut_offset) cut = FileCut{offset, number};
      if (IsBlank(line)) continue;
      arena.Reset();
      members.clear();
      JsonScanner scanner(line, &arena);
      if (!scanner.EnterObject()) continue;
      std::string_view name;
      JsonValue value;
      JsonScanner::Step step;
      while ((step = scanner.NextMember(&name)) == JsonScanner::Step::kItem &&
             scanner.ReadValue(&value)) {
        members.emplace_back(name, value);
      }
      if (step != JsonScanner::Step::kEnd || !scanner.AtEnd()) continue;
      for (size_t position = 0; position < members.size(); ++position) {
        const auto& [key, v] = members[position];
        // Members usually come in the same order on every line: try the last line's first.
        if (position < last_order.size() && last_order[position] < columns.size() &&
            columns[last_order[position]].key == key) {
          Column& column = columns[last_order[position]];
          if (column.inferred && !column.inference.settled()) column.inference.ObserveJson(v);
          continue;
        }
        auto it = index.find(key);
        size_t c;
        if (it == index.end()) {
          c = columns.size();
          index.emplace(std::string(key), static_cast<int>(c));
          Column column;
          column.key = std::string(key);
          const data::Field* match = FindSchemaField(options.schema, key);
          if (match != nullptr) {
            column.field = data::Field{match->name, match->type, true};
          } else {
            column.field = data::Field{std::string(key), nullptr, true};
            column.inferred = true;
            if (NamedIn(options.sequence_columns, key)) column.inference.MarkSequence();
          }
          columns.push_back(std::move(column));
        } else {
          c = static_cast<size_t>(it->second);
        }
        if (position >= last_order.size()) last_order.resize(position + 1, SIZE_MAX);
        last_order[position] = c;
        Column& column = columns[c];
        if (column.inferred && !column.inference.settled()) column.inference.ObserveJson(v);
      }
    }
  }
  input.Rewind();

  std::vector<data::Field> fields;
  std::vector<std::string> keys;
  for (Column& column : columns) {
    if (column.inferred) column.field.type = column.inference.Type();
    fields.push_back(std::move(column.field));
    keys.push_back(std::move(column.key));
  }
  const bool rescue = !options.rescued_data_column.empty();
  if (rescue) {
    fields.push_back(data::Field{options.rescued_data_column, data::DataType::String(), true});
  }
  data::Schema schema(std::move(fields));
  CDCLAKE_RETURN_IF_ERROR(CheckUniqueNames(schema, path));
  if (cut) {
    // Both parts know the earlier run's unterminated last line (it may lie in the first half
    // of a file that has grown since).
    OpenFilePart open = [&fs, path, schema, keys, options, rescue](
                            uint64_t begin, uint64_t end,
                            int64_t first_line) -> Result<std::unique_ptr<ChangeFileReader>> {
      CDCLAKE_ASSIGN_OR_RETURN(
          ChunkedInput part,
          ChunkedInput::OpenRange(fs, path, options.read_chunk_bytes, begin, end));
      auto reader = std::make_unique<JsonLinesChangeReader>(std::move(part), schema, keys, path,
                                                            options.batch_rows,
                                                            options.unterminated_last, rescue);
      reader->StartAtLine(first_line);
      return std::unique_ptr<ChangeFileReader>(std::move(reader));
    };
    return NewTwoHalvesReader(schema, std::move(open), *cut);
  }
  return std::unique_ptr<ChangeFileReader>(std::make_unique<JsonLinesChangeReader>(
      std::move(input), std::move(schema), std::move(keys), std::move(path), options.batch_rows,
      options.unterminated_last, rescue));
}

int JsonLinesChangeReader::ColumnOf(std::string_view name, size_t position) {
  // Lines usually list their members in the same order: try the previous line's column first.
  if (position < last_order_.size()) {
    int guess = last_order_[position];
    if (guess >= 0 && keys_[static_cast<size_t>(guess)] == name) return guess;
  }
  auto it = key_index_.find(name);
  int column = it == key_index_.end() ? -1 : it->second;
  if (position >= last_order_.size()) last_order_.resize(position + 1, -1);
  last_order_[position] = column;
  return column;
}

bool JsonLinesChangeReader::ConvertLine(std::string_view line, std::string* reason) {
  for (StagedCell& cell : cells_) cell.SetNull();
  for (uint8_t& seen : seen_) seen = 0;
  rescued_.Clear();
  ended_early_ = false;
  JsonScanner scanner(line, &arena_);
  if (!scanner.PeekObject()) {
    *reason = "not a JSON object";
    return false;
  }
  scanner.EnterObject();
  std::string_view name;
  JsonValue value;
  for (size_t position = 0;; ++position) {
    JsonScanner::Step step = scanner.NextMember(&name);
    if (step == JsonScanner::Step::kEnd) break;
    if (step == JsonScanner::Step::kError || !scanner.ReadValue(&value)) {
      ended_early_ = scanner.ended_early();
      *reason = InvalidJsonReason(scanner);
      return false;
    }
    int c = ColumnOf(name, position);
    if (c < 0) {
      // Not seen when the file was opened: only a line that has changed since can do this.
      *reason = "member '" + std::string(name) + "' was not in the file when it was opened";
      return false;
    }
    size_t column = static_cast<size_t>(c);
    if (seen_[column] != 0) {
      *reason = "duplicate member '" + std::string(name) + "'";
      return false;
    }
    seen_[column] = 1;
    if (!ConvertJson(value, types_[column], &arena_, &cells_[column], &error_)) {
      if (rescue_) {
        cells_[column].SetNull();
        rescued_.Add(builder_.schema().field(column).name, value.text);
        continue;
      }
      misfit_column_ = builder_.schema().field(column).name;
      *reason = error_.Describe(misfit_column_);
      return false;
    }
  }
  if (!scanner.AtEnd()) {
    *reason = InvalidJsonReason(scanner);
    return false;
  }
  if (rescue_) rescued_.Stage(&arena_, &cells_.back());
  return true;
}

Result<std::optional<change::ChangeBatch>> JsonLinesChangeReader::Next() {
  if (done_) return std::optional<change::ChangeBatch>();
  builder_.Start();
  std::string_view line;
  int64_t number = 0;
  uint64_t offset = 0;
  std::string reason;
  while (!builder_.full()) {
    CDCLAKE_ASSIGN_OR_RETURN(bool more, cursor_.Next(&line, &number, &offset));
    if (!more) {
      done_ = true;
      break;
    }
    if (IsBlank(line)) continue;
    const uint64_t end = cursor_.end();
    const bool terminated = cursor_.terminated();
    const uint64_t content_end = offset + line.size();
    if (tail_.Appended(offset, content_end)) {
      builder_.Reject(tail_.AppendedRaw(line), number, tail_.AppendedOffset(), end,
                      tail_.AppendedReason(number, content_end));
      tail_.NoteReturned(offset, end, terminated);
      continue;
    }
    arena_.Reset();
    misfit_column_.clear();
    if (ConvertLine(line, &reason)) {
      builder_.AddRow(cells_, line, number, offset, end);
    } else if (!terminated && ended_early_) {
      // The file ends in a line whose JSON is not whole yet: not consumed, read again by a
      // later run once it is.
      tail_.NotePending(number, offset, end);
      done_ = true;
      break;
    } else {
      builder_.Reject(line, number, offset, end, std::move(reason), std::move(misfit_column_));
      reason.clear();
    }
    tail_.NoteReturned(offset, end, terminated);
  }
  if (builder_.empty()) {
    done_ = true;
    return std::optional<change::ChangeBatch>();
  }
  return std::optional<change::ChangeBatch>(builder_.Finish());
}

}  // namespace cdclake::sources::internal
