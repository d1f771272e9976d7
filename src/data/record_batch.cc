// RecordBatch rows.
#include "data/record_batch.h"

namespace cdclake::data {

RecordBatch::RecordBatch(Schema schema) : schema_(std::move(schema)) {
  for (const Field& f : schema_.fields()) columns_.emplace_back(f.type);
}

RecordBatch::RecordBatch(Schema schema, std::vector<Column> columns)
    : schema_(std::move(schema)), columns_(std::move(columns)) {}

void RecordBatch::AppendRow(const std::vector<Value>& row) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    columns_[i].AppendValue(i < row.size() ? row[i] : Value::Null());
  }
}

std::vector<Value> RecordBatch::GetRow(int64_t i) const {
  std::vector<Value> row;
  row.reserve(columns_.size());
  for (const Column& c : columns_) row.push_back(c.GetValue(i));
  return row;
}

}  // namespace cdclake::data
