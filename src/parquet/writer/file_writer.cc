// Parquet file layout: magic, row groups, footer.
#include "parquet/writer/file_writer.h"

#include <algorithm>
#include <functional>
#include <thread>

#include "base/bytes.h"
#include "parquet/writer/shredder.h"

namespace cdclake::parquet {

namespace {
constexpr std::string_view kMagic = "PAR1";
constexpr int64_t kSliceRows = 16384;  // rows shredded at a time; pages close between slices
// Slices this long are worth the threads of WriterOptions::threads; shorter ones stay on one.
constexpr int64_t kParallelSliceRows = 2048;
}  // namespace

FileWriter::FileWriter(std::unique_ptr<io::OutputStream> stream, FileSchema schema,
                       WriterOptions options)
    : stream_(std::move(stream)), schema_(std::move(schema)), options_(std::move(options)) {
  for (const SchemaNode* leaf : schema_.leaves()) {
    chunks_.push_back(std::make_unique<ColumnChunkWriter>(*leaf, options_));
  }
  metadata_.version = 1;
  metadata_.schema = schema_.elements();
  metadata_.created_by = options_.created_by;
  for (const auto& [k, v] : options_.key_value_metadata)
    metadata_.key_value_metadata.push_back({k, v});
  metadata_.column_orders.assign(schema_.leaves().size(), format::ColumnOrder{});
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(io::FileSystem& fs, const std::string& path,
                                                     const data::Schema& schema,
                                                     WriterOptions options) {
  CDCLAKE_ASSIGN_OR_RETURN(auto stream, fs.OpenWrite(path));
  return Open(std::move(stream), schema, std::move(options));
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::unique_ptr<io::OutputStream> stream,
                                                     const data::Schema& schema,
                                                     WriterOptions options) {
  for (const data::Field& f : schema.fields()) {
    if (f.type && f.type->id() == data::TypeId::kStruct && f.type->fields().empty()) {
      return Status::NotSupported("field '" + f.name +
                                  "': Parquet cannot store a struct without fields");
    }
  }
  CDCLAKE_ASSIGN_OR_RETURN(FileSchema file_schema, FileSchema::FromLogical(schema));
  CDCLAKE_RETURN_IF_ERROR(stream->Append(kMagic));
  return std::unique_ptr<FileWriter>(
      new FileWriter(std::move(stream), std::move(file_schema), std::move(options)));
}

Status FileWriter::Write(const data::RecordBatch& batch) {
  if (closed_) return Status::InvalidArgument("write after close");
  const data::Schema& expected = schema_.schema();
  if (batch.num_columns() != expected.num_fields()) {
    return Status::InvalidArgument("batch has " + std::to_string(batch.num_columns()) +
                                   " columns, file has " + std::to_string(expected.num_fields()));
  }
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    if (!batch.column(i).type()->Equals(*expected.field(i).type)) {
      return Status::InvalidArgument("column '" + expected.field(i).name + "' is " +
                                     batch.column(i).type()->ToString() + ", file has " +
                                     expected.field(i).type->ToString());
    }
  }
  int64_t rows = batch.num_rows();
  for (int64_t begin = 0; begin < rows;) {
    int64_t end =
        std::min(rows, begin + std::min(kSliceRows, options_.row_group_rows - row_group_rows_));
    CDCLAKE_RETURN_IF_ERROR(EncodeSlice(batch, begin, end));
    row_group_rows_ += end - begin;
    num_rows_ += end - begin;
    begin = end;
    int64_t buffered = 0;
    for (const auto& c : chunks_) buffered += c->buffered_bytes();
    if (buffered >= options_.row_group_bytes || row_group_rows_ >= options_.row_group_rows) {
      CDCLAKE_RETURN_IF_ERROR(FlushRowGroup());
    }
  }
  return Status::OK();
}

Status FileWriter::EncodeFields(const data::RecordBatch& batch, int64_t begin, int64_t end,
                                size_t first_field, size_t step) {
  std::vector<ShreddedLeaf> shredded;
  const auto& fields = schema_.fields();
  for (size_t f = first_field; f < fields.size(); f += step) {
    CDCLAKE_RETURN_IF_ERROR(Shred(fields[f], batch.column(f), begin, end, &shredded));
    auto leaf = static_cast<size_t>(FirstLeaf(fields[f]).leaf_index);  // leaves go depth first
    for (const ShreddedLeaf& s : shredded) {
      size_t levels = s.def.empty() ? static_cast<size_t>(end - begin) : s.def.size();
      CDCLAKE_RETURN_IF_ERROR(chunks_[leaf]->Add(s.def.data(), s.rep.data(), levels, *s.values,
                                                 s.indices.data(), s.indices.size()));
      CDCLAKE_RETURN_IF_ERROR(chunks_[leaf]->MaybeFlushPage());
      ++leaf;
    }
  }
  return Status::OK();
}

namespace {

// Runs part(0) .. part(parts - 1), part 0 on the calling thread and each other on a thread of
// its own; the first error, after all have finished.
Status RunParts(size_t parts, const std::function<Status(size_t)>& part) {
  std::vector<Status> statuses(parts);
  std::vector<std::thread> helpers;
  helpers.reserve(parts > 0 ? parts - 1 : 0);
  for (size_t t = 1; t < parts; ++t) helpers.emplace_back([&, t] { statuses[t] = part(t); });
  if (parts > 0) statuses[0] = part(0);
  for (auto& h : helpers) h.join();
  for (auto& s : statuses) CDCLAKE_RETURN_IF_ERROR(s);
  return Status::OK();
}

// How many threads work on `items` column chunks (or fields) of a slice or row group of `rows`.
size_t ThreadsFor(const WriterOptions& options, size_t items, int64_t rows) {
  if (rows < kParallelSliceRows) return 1;
  return std::max<size_t>(1, std::min(items, static_cast<size_t>(std::max(1, options.threads))));
}

}  // namespace

Status FileWriter::EncodeSlice(const data::RecordBatch& batch, int64_t begin, int64_t end) {
  // Fields go to the threads in turn (0, 2, 4, ... and 1, 3, 5, ...); each column chunk is
  // written by one thread only, so the file is the same whatever the thread count.
  const size_t threads = ThreadsFor(options_, schema_.fields().size(), end - begin);
  return RunParts(threads, [&](size_t t) { return EncodeFields(batch, begin, end, t, threads); });
}

Status FileWriter::SealChunks() {
  const size_t threads = ThreadsFor(options_, chunks_.size(), row_group_rows_);
  return RunParts(threads, [&](size_t first) {
    for (size_t c = first; c < chunks_.size(); c += threads) {
      CDCLAKE_RETURN_IF_ERROR(chunks_[c]->Seal());
    }
    return Status::OK();
  });
}

Status FileWriter::FlushRowGroup() {
  if (row_group_rows_ == 0) return Status::OK();
  format::RowGroup rg;
  rg.num_rows = row_group_rows_;
  int64_t start = static_cast<int64_t>(stream_->BytesWritten());
  rg.file_offset = start;
  int64_t offset = start;
  int64_t compressed = 0;
  CDCLAKE_RETURN_IF_ERROR(SealChunks());
  for (auto& chunk : chunks_) {
    CDCLAKE_ASSIGN_OR_RETURN(format::ColumnChunk cc, chunk->Finish(offset, stream_.get()));
    offset = static_cast<int64_t>(stream_->BytesWritten());
    compressed += cc.meta_data->total_compressed_size;
    rg.total_byte_size += cc.meta_data->total_uncompressed_size;
    rg.columns.push_back(std::move(cc));
  }
  rg.total_compressed_size = compressed;
  rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
  metadata_.row_groups.push_back(std::move(rg));
  row_group_rows_ = 0;
  return Status::OK();
}

Status FileWriter::Close() {
  if (closed_) return Status::OK();
  CDCLAKE_RETURN_IF_ERROR(FlushRowGroup());
  metadata_.num_rows = num_rows_;
  std::string footer;
  format::EncodeFileMetaData(metadata_, &footer);
  AppendLE<uint32_t>(&footer, static_cast<uint32_t>(footer.size()));
  footer.append(kMagic);
  CDCLAKE_RETURN_IF_ERROR(stream_->Append(footer));
  CDCLAKE_RETURN_IF_ERROR(stream_->Close());
  closed_ = true;
  return Status::OK();
}

Status WriteParquetFile(io::FileSystem& fs, const std::string& path, const data::RecordBatch& batch,
                        const WriterOptions& options) {
  CDCLAKE_ASSIGN_OR_RETURN(auto writer, FileWriter::Open(fs, path, batch.schema(), options));
  CDCLAKE_RETURN_IF_ERROR(writer->Write(batch));
  return writer->Close();
}

}  // namespace cdclake::parquet
