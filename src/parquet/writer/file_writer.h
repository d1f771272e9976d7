// FileWriter: writes record batches as one Parquet file — row groups cut by size, one column
// chunk per leaf, and the footer — through an io::OutputStream.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "io/file_system.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"
#include "parquet/writer/column_chunk_writer.h"
#include "parquet/writer/writer_options.h"

namespace cdclake::parquet {

class FileWriter {
 public:
  /// Starts a file at `path`; nothing appears there until Close() succeeds.
  static Result<std::unique_ptr<FileWriter>> Open(io::FileSystem& fs, const std::string& path,
                                                  const data::Schema& schema,
                                                  WriterOptions options = {});
  /// Writes into a stream the caller owns (kept open until Close()).
  static Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::OutputStream> stream,
                                                  const data::Schema& schema,
                                                  WriterOptions options = {});

  /// REQUIRES: batch.schema() has this writer's fields (names, types, nullability).
  Status Write(const data::RecordBatch& batch);
  /// Writes the last row group and the footer and publishes the file.
  Status Close();

  int64_t num_rows() const { return num_rows_; }
  /// Bytes written so far (after Close: the file size).
  uint64_t bytes_written() const { return stream_->BytesWritten(); }
  const format::FileMetaData& metadata() const { return metadata_; }

 private:
  FileWriter(std::unique_ptr<io::OutputStream> stream, FileSchema schema, WriterOptions options);
  Status FlushRowGroup();
  // Shreds and encodes rows [begin, end) of every field, on up to options_.threads threads.
  Status EncodeSlice(const data::RecordBatch& batch, int64_t begin, int64_t end);
  // The fields first_field, first_field + step, ... of that slice.
  Status EncodeFields(const data::RecordBatch& batch, int64_t begin, int64_t end,
                      size_t first_field, size_t step);
  // Seals every column chunk of the row group (see ColumnChunkWriter::Seal), in parallel.
  Status SealChunks();

  std::unique_ptr<io::OutputStream> stream_;
  FileSchema schema_;
  WriterOptions options_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> chunks_;  // one per leaf
  format::FileMetaData metadata_;
  int64_t num_rows_ = 0;
  int64_t row_group_rows_ = 0;
  bool closed_ = false;
};

/// Writes `batch` to `path` in one call.
Status WriteParquetFile(io::FileSystem& fs, const std::string& path, const data::RecordBatch& batch,
                        const WriterOptions& options = {});

}  // namespace cdclake::parquet
