// Bronze metadata columns: added on ingest, read back into positions and unchanged marks.
#include "pipeline/bronze_columns.h"

#include <string_view>

namespace cdclake::pipeline {

change::ChangeBatch AddBronzeColumns(change::ChangeBatch batch, int64_t ingested_at_micros) {
  using data::DataType;
  const int64_t n = batch.rows.num_rows();
  std::vector<data::Field> fields = batch.rows.schema().fields();
  std::vector<data::Column> columns = batch.rows.ReleaseColumns();
  data::Column file(DataType::String());
  data::Column offset(DataType::Int64());
  data::Column unchanged(DataType::String());
  for (int64_t r = 0; r < n; ++r) {
    auto i = static_cast<size_t>(r);
    if (i < batch.positions.size()) {
      file.AppendBytes(batch.positions.file(i));
      offset.Append<int64_t>(batch.positions.byte_offset(i));
    } else {
      file.AppendNull();
      offset.AppendNull();
    }
    std::string names;
    for (size_t c = 0; c < batch.unchanged.size() && c < fields.size(); ++c) {
      if (i < batch.unchanged[c].size() && batch.unchanged[c][i] != 0) {
        names += (names.empty() ? "" : ",") + fields[c].name;
      }
    }
    if (names.empty()) {
      unchanged.AppendNull();
    } else {
      unchanged.AppendBytes(names);
    }
  }
  fields.push_back({kSourceFileColumn, DataType::String(), true});
  fields.push_back({kSourceOffsetColumn, DataType::Int64(), true});
  fields.push_back({kIngestedAtColumn, DataType::Timestamp(), true});
  fields.push_back({kUnchangedColumnsColumn, DataType::String(), true});
  columns.push_back(std::move(file));
  columns.push_back(std::move(offset));
  columns.push_back(
      data::Column::Repeat(DataType::Timestamp(), data::Value::Int(ingested_at_micros), n));
  columns.push_back(std::move(unchanged));
  batch.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  batch.rows.set_num_rows(n);
  batch.unchanged.clear();
  return batch;
}

Result<change::ChangeBatch> ChangeRowsFromTable(data::RecordBatch rows) {
  change::ChangeBatch batch;
  const int64_t n = rows.num_rows();
  const data::Schema& schema = rows.schema();
  int file = schema.FieldIndex(kSourceFileColumn);
  int offset = schema.FieldIndex(kSourceOffsetColumn);
  if (file >= 0 || offset >= 0) {
    batch.positions.reserve(static_cast<size_t>(n));
    const data::Column* f = file >= 0 ? &rows.column(static_cast<size_t>(file)) : nullptr;
    const data::Column* o = offset >= 0 ? &rows.column(static_cast<size_t>(offset)) : nullptr;
    for (int64_t r = 0; r < n; ++r) {
      std::string_view path = f != nullptr && !f->IsNull(r) ? f->StringAt(r) : std::string_view();
      int64_t at = o != nullptr && !o->IsNull(r) ? o->GetValue(r).int_value() : 0;
      batch.positions.Add(path, 0, at, 0);
    }
  }
  int marks = schema.FieldIndex(kUnchangedColumnsColumn);
  if (marks < 0) {
    batch.rows = std::move(rows);
    return batch;
  }
  std::vector<data::Field> fields;
  std::vector<data::Column> columns;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    if (static_cast<int>(c) == marks) continue;
    fields.push_back(schema.field(c));
    columns.push_back(rows.column(c));
  }
  const data::Column& names = rows.column(static_cast<size_t>(marks));
  std::vector<std::vector<uint8_t>> unchanged;
  for (int64_t r = 0; r < n; ++r) {
    if (names.IsNull(r)) continue;
    if (unchanged.empty()) {
      unchanged.assign(fields.size(), std::vector<uint8_t>(static_cast<size_t>(n), 0));
    }
    std::string_view list = names.StringAt(r);
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      std::string_view name = list.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      size_t at = 0;
      while (at < fields.size() && fields[at].name != name) ++at;
      if (at == fields.size()) {
        return Status::Corrupt(std::string(kUnchangedColumnsColumn) + " names column '" +
                               std::string(name) + "', which the rows do not have");
      }
      unchanged[at][static_cast<size_t>(r)] = 1;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  batch.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  batch.rows.set_num_rows(n);
  batch.unchanged = std::move(unchanged);
  return batch;
}

}  // namespace cdclake::pipeline
