// ChangeBatchBuilder: columns, positions, raw text and rejected records of one batch.
#include "sources/files/change_batch_builder_internal.h"

#include <algorithm>
#include <set>

#include "base/strings.h"
#include "sources/batch_reserve.h"

namespace cdclake::sources::internal {

namespace {

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

}  // namespace

const data::Field* FindSchemaField(const std::optional<data::Schema>& schema,
                                   std::string_view name) {
  if (!schema.has_value()) return nullptr;
  int exact = schema->FieldIndex(name);
  if (exact >= 0) return &schema->field(static_cast<size_t>(exact));
  for (const data::Field& field : schema->fields()) {
    if (EqualsIgnoreAsciiCase(field.name, name)) return &field;
  }
  return nullptr;
}

bool NamedIn(const std::vector<std::string>& names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return EqualsIgnoreAsciiCase(n, name); });
}

Status CheckUniqueNames(const data::Schema& schema, const std::string& path) {
  std::set<std::string> names;  // lower case: Delta's column names ignore case
  for (const data::Field& field : schema.fields()) {
    if (!names.insert(ToLower(field.name)).second) {
      return Status::InvalidArgument(path + ": more than one column is named '" + field.name +
                                     "' (names are matched to the schema ignoring case)");
    }
  }
  return Status::OK();
}

void ChangeBatchBuilder::Start() {
  batch_ = change::ChangeBatch();
  batch_.rows = data::RecordBatch(schema_);
  const int64_t reserve = ReservedRows(batch_rows_);
  for (size_t c = 0; c < batch_.rows.num_columns(); ++c) {
    data::Column& column = batch_.rows.mutable_column(c);
    column.Reserve(reserve);
    // String bytes as many as the last batch had per row, and a little more: grown by doubling
    // they were copied again at every step (4% of a 1M-row CSV load's CPU).
    if (c < bytes_per_row_.size()) {
      const size_t bytes = ReservedBytes(bytes_per_row_[c] * 1.1, reserve);
      if (bytes > 0) column.mutable_bytes().reserve(bytes);
    }
  }
  batch_.positions.reserve(static_cast<size_t>(reserve));
  batch_.raw.reserve(static_cast<size_t>(reserve));
  batch_.text_source = text_source_;
  rows_ = 0;
}

void ChangeBatchBuilder::AddRow(const std::vector<StagedCell>& cells, std::string_view raw,
                                int64_t line, uint64_t offset, uint64_t end) {
  for (size_t c = 0; c < cells.size(); ++c) AppendCell(cells[c], &batch_.rows.mutable_column(c));
  batch_.positions.Add(path_, line, static_cast<int64_t>(offset), static_cast<int64_t>(end));
  if (text_source_ != nullptr) {
    batch_.raw.AddInFile(raw.size(), change::RowTextDigest(raw));
  } else {
    batch_.raw.push_back(raw);
  }
  ++rows_;
}

void ChangeBatchBuilder::Reject(std::string_view raw, int64_t line, uint64_t offset, uint64_t end,
                                std::string reason, std::string misfit_column) {
  batch_.rejected.push_back(change::RejectedRecord{std::string(raw), Position(line, offset, end),
                                                   std::move(reason), std::move(misfit_column)});
}

change::ChangeBatch ChangeBatchBuilder::Finish() {
  if (batch_.rows.num_columns() == 0) batch_.rows.set_num_rows(rows_);
  if (rows_ > 0) {
    bytes_per_row_.resize(batch_.rows.num_columns());
    for (size_t c = 0; c < batch_.rows.num_columns(); ++c) {
      bytes_per_row_[c] =
          static_cast<double>(batch_.rows.column(c).bytes().size()) / static_cast<double>(rows_);
    }
  }
  rows_ = 0;
  return std::move(batch_);
}

}  // namespace cdclake::sources::internal
