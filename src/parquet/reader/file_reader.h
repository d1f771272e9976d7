// FileReader: opens a Parquet file through io::RandomAccessFile, validates its footer, and
// reads row groups into record batches — with column projection, row-group skipping by
// statistics, and the file-wide row index of every row (deletion vectors address rows by it).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "io/file_system.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

/// A predicate on one top-level primitive column that statistics can refute.
struct StatisticsFilter {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull };
  std::string column;
  Op op = Op::kEq;
  data::Value value;  // unused for kIsNull / kIsNotNull
};

struct ReadOptions {
  /// Top-level columns to read, in this order; empty reads every column.
  std::vector<std::string> columns;
  /// Append an int64 column with each row's position in the file (0-based).
  bool with_row_index = false;
  std::string row_index_column = "_row_index";
  /// Row groups whose statistics prove that no row passes every filter are skipped.
  std::vector<StatisticsFilter> filters;
};

class FileReader {
 public:
  static Result<std::unique_ptr<FileReader>> Open(std::unique_ptr<io::RandomAccessFile> file);
  static Result<std::unique_ptr<FileReader>> Open(const io::FileSystem& fs,
                                                  const std::string& path);

  const format::FileMetaData& metadata() const { return metadata_; }
  const FileSchema& file_schema() const { return schema_; }
  const data::Schema& schema() const { return schema_.schema(); }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  const std::string& path() const { return file_->path(); }

  /// The schema a read with `options` returns.
  Result<data::Schema> ProjectedSchema(const ReadOptions& options) const;
  /// False when the statistics of row group `i` prove no row passes `filters`.
  bool RowGroupMayMatch(int i, const std::vector<StatisticsFilter>& filters) const;
  Result<data::RecordBatch> ReadRowGroup(int i, const ReadOptions& options = {}) const;
  /// Every row group that may match, concatenated.
  Result<data::RecordBatch> ReadAll(const ReadOptions& options = {}) const;

 private:
  FileReader(std::unique_ptr<io::RandomAccessFile> file, format::FileMetaData metadata,
             FileSchema schema);
  Result<std::vector<int>> ProjectedFields(const ReadOptions& options) const;
  Status Error(const Status& s) const { return s.WithContext(file_->path()); }

  std::unique_ptr<io::RandomAccessFile> file_;
  format::FileMetaData metadata_;
  FileSchema schema_;
  std::vector<int64_t> first_row_;  // per row group
};

}  // namespace cdclake::parquet
