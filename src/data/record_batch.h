// RecordBatch: a schema and one column per field, all of the same length.
#pragma once

#include <vector>

#include "data/column.h"
#include "data/schema.h"

namespace cdclake::data {

class RecordBatch {
 public:
  RecordBatch() = default;
  /// Empty columns for every field of `schema`.
  explicit RecordBatch(Schema schema);
  RecordBatch(Schema schema, std::vector<Column> columns);

  const Schema& schema() const { return schema_; }
  int64_t num_rows() const { return columns_.empty() ? num_rows_ : columns_[0].length(); }
  size_t num_columns() const { return columns_.size(); }
  const Column& column(size_t i) const { return columns_[i]; }
  Column& mutable_column(size_t i) { return columns_[i]; }
  const std::vector<Column>& columns() const { return columns_; }
  /// The columns, moved out (the batch is left without columns): for building another batch
  /// from them without copying every value.
  std::vector<Column> ReleaseColumns() { return std::move(columns_); }

  /// Appends a row given as one Value per column.
  void AppendRow(const std::vector<Value>& row);
  std::vector<Value> GetRow(int64_t i) const;
  /// For a batch without columns (a projection of nothing), the row count to report.
  void set_num_rows(int64_t n) { num_rows_ = n; }

 private:
  Schema schema_;
  std::vector<Column> columns_;
  int64_t num_rows_ = 0;
};

}  // namespace cdclake::data
