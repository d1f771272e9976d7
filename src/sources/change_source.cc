// ChangeSource adapters: ChangeFileReader, ParquetChangeReader, DebeziumReader and
// SqlServerCdcReader behind one interface, with their counts under labels that add up across files.
#include "sources/change_source.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "sources/debezium/debezium_reader.h"
#include "sources/files/parquet_change_reader.h"
#include "sources/sqlserver/sqlserver_cdc_reader.h"

namespace cdclake::sources {

namespace {

constexpr std::string_view kParquetMagic = "PAR1";

// A Parquet file its writer has not finished: it starts like one (or is still empty) but has
// no footer yet. It gives no rows and is pending as a whole, so a later run reads it once
// complete; a file that does not start like Parquet is left to the reader's error.
Result<std::optional<int64_t>> UnfinishedParquetSize(const io::FileSystem& fs,
                                                     const std::string& path) {
  CDCLAKE_ASSIGN_OR_RETURN(auto file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::string head, tail;
  if (size >= kParquetMagic.size()) {
    CDCLAKE_RETURN_IF_ERROR(file->ReadAt(0, kParquetMagic.size(), &head));
    if (head != kParquetMagic) return std::optional<int64_t>();
  }
  if (size >= 2 * kParquetMagic.size() + 4) {
    CDCLAKE_RETURN_IF_ERROR(file->ReadAt(size - kParquetMagic.size(), kParquetMagic.size(), &tail));
    if (tail == kParquetMagic) return std::optional<int64_t>();
  }
  return std::optional<int64_t>(static_cast<int64_t>(size));
}

class UnfinishedParquetSource final : public ChangeSource {
 public:
  UnfinishedParquetSource(std::string path, int64_t size)
      : ChangeSource(SourceFormat::kParquet, std::move(path)), size_(size) {}
  Result<std::optional<change::ChangeBatch>> Next() override {
    return std::optional<change::ChangeBatch>();
  }
  std::optional<PendingRecord> Pending() const override {
    return PendingRecord{1, 0, size_, /*whole_file=*/true};
  }

 private:
  int64_t size_;
};

class FileChangeSource final : public ChangeSource {
 public:
  FileChangeSource(SourceFormat format, std::string path, std::unique_ptr<ChangeFileReader> reader)
      : ChangeSource(format, std::move(path)), reader_(std::move(reader)) {}

  const data::Schema* schema() const override { return &reader_->schema(); }
  Result<std::optional<change::ChangeBatch>> Next() override { return reader_->Next(); }
  std::optional<PendingRecord> Pending() const override { return reader_->Pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override {
    return reader_->UnterminatedLast();
  }

 private:
  std::unique_ptr<ChangeFileReader> reader_;
};

class DebeziumChangeSource final : public ChangeSource {
 public:
  DebeziumChangeSource(std::string path, std::unique_ptr<DebeziumReader> reader)
      : ChangeSource(SourceFormat::kDebezium, std::move(path)), reader_(std::move(reader)) {}

  Result<std::optional<change::ChangeBatch>> Next() override { return reader_->Next(); }

  std::vector<SourceCount> Counts() const override {
    const DebeziumCounts& c = reader_->counts();
    return {{"Kafka tombstones skipped", c.tombstones},
            {"op m messages ignored", c.messages},
            {"transaction records ignored", c.transaction_records},
            {"schema changes ignored", c.schema_changes}};
  }
  std::optional<PendingRecord> Pending() const override { return reader_->Pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override {
    return reader_->UnterminatedLast();
  }

 private:
  std::unique_ptr<DebeziumReader> reader_;
};

class SqlServerChangeSource final : public ChangeSource {
 public:
  SqlServerChangeSource(std::string path, std::unique_ptr<SqlServerCdcReader> reader)
      : ChangeSource(SourceFormat::kSqlServer, std::move(path)), reader_(std::move(reader)) {}

  Result<std::optional<change::ChangeBatch>> Next() override { return reader_->Next(); }

  std::vector<SourceCount> Counts() const override {
    return {{"before-images skipped", reader_->counts().before_images}};
  }
  std::optional<PendingRecord> Pending() const override { return reader_->Pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override {
    return reader_->UnterminatedLast();
  }

 private:
  std::unique_ptr<SqlServerCdcReader> reader_;
};

// `schema` without the fields the change-stream readers add themselves.
std::optional<data::Schema> TableColumns(const std::optional<data::Schema>& schema) {
  if (!schema.has_value()) return std::nullopt;
  const std::vector<std::string>& added = ChangeStreamColumns();
  std::vector<data::Field> fields;
  for (const data::Field& f : schema->fields()) {
    if (std::find(added.begin(), added.end(), f.name) == added.end()) fields.push_back(f);
  }
  return data::Schema(std::move(fields));
}

}  // namespace

std::string_view SourceFormatName(SourceFormat format) {
  switch (format) {
    case SourceFormat::kCsv:
      return "csv";
    case SourceFormat::kJsonLines:
      return "jsonl";
    case SourceFormat::kDebezium:
      return "debezium";
    case SourceFormat::kSqlServer:
      return "sqlserver";
    case SourceFormat::kParquet:
      return "parquet";
  }
  return "unknown";
}

std::optional<SourceFormat> SourceFormatFromName(std::string_view name) {
  const std::string lower = ToLower(name);
  for (SourceFormat f : {SourceFormat::kCsv, SourceFormat::kJsonLines, SourceFormat::kDebezium,
                         SourceFormat::kSqlServer, SourceFormat::kParquet}) {
    if (lower == SourceFormatName(f)) return f;
  }
  return std::nullopt;
}

std::optional<SourceFormat> SourceFormatFromPath(std::string_view path) {
  const std::string lower = ToLower(path);
  if (EndsWith(lower, ".csv")) return SourceFormat::kCsv;
  if (EndsWith(lower, ".jsonl") || EndsWith(lower, ".json")) return SourceFormat::kJsonLines;
  if (EndsWith(lower, ".parquet")) return SourceFormat::kParquet;
  return std::nullopt;
}

bool IsChangeStreamFormat(SourceFormat format) {
  return format == SourceFormat::kDebezium || format == SourceFormat::kSqlServer;
}

const std::vector<std::string>& ChangeStreamColumns() {
  static const std::vector<std::string> columns = {"_op", "_seq", "_source_ts_ms", "_source_table"};
  return columns;
}

std::string DescribePending(const PendingFile& pending) {
  const PendingRecord& r = pending.record;
  if (r.whole_file) {
    return pending.file + " is not a whole Parquet file yet (" + std::to_string(r.bytes) +
           " bytes, no footer): read once its writer finishes it";
  }
  return "1 record pending in " + pending.file + " (line " + std::to_string(r.line) + ", byte " +
         std::to_string(r.byte_offset) + ", " + std::to_string(r.bytes) +
         " bytes so far, not whole yet): read once it is complete";
}

std::string ChangeSource::CountsSummary() const {
  std::string out;
  for (const SourceCount& c : Counts()) {
    out += (out.empty() ? "" : "; ") + c.label + ": " + std::to_string(c.value);
  }
  return out;
}

Result<std::unique_ptr<ChangeSource>> OpenChangeSource(io::FileSystem& fs, const std::string& path,
                                                       SourceFormat format,
                                                       const ChangeSourceOptions& options) {
  switch (format) {
    case SourceFormat::kCsv:
    case SourceFormat::kJsonLines: {
      ChangeFileOptions file_options;
      file_options.format =
          format == SourceFormat::kCsv ? FileFormat::kCsv : FileFormat::kJsonLines;
      file_options.schema = options.schema;
      file_options.batch_rows = options.batch_rows;
      file_options.unterminated_last = options.unterminated_last;
      file_options.sequence_columns = options.sequence_columns;
      file_options.required_columns = options.required_columns;
      file_options.rescued_data_column = options.rescued_data_column;
      CDCLAKE_ASSIGN_OR_RETURN(auto reader, ChangeFileReader::Open(fs, path, file_options));
      return std::unique_ptr<ChangeSource>(
          std::make_unique<FileChangeSource>(format, path, std::move(reader)));
    }
    case SourceFormat::kParquet: {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<int64_t> unfinished, UnfinishedParquetSize(fs, path));
      if (unfinished) {
        return std::unique_ptr<ChangeSource>(
            std::make_unique<UnfinishedParquetSource>(path, *unfinished));
      }
      ParquetChangeOptions parquet_options;
      parquet_options.schema = options.schema;
      parquet_options.batch_rows = options.batch_rows;
      CDCLAKE_ASSIGN_OR_RETURN(auto reader, ParquetChangeReader::Open(fs, path, parquet_options));
      return std::unique_ptr<ChangeSource>(
          std::make_unique<FileChangeSource>(format, path, std::move(reader)));
    }
    case SourceFormat::kDebezium: {
      DebeziumOptions debezium_options;
      debezium_options.schema = TableColumns(options.schema);
      debezium_options.batch_rows = options.batch_rows;
      debezium_options.keep_row_text = options.keep_row_text;
      debezium_options.unterminated_last = options.unterminated_last;
      CDCLAKE_ASSIGN_OR_RETURN(auto reader, DebeziumReader::Open(fs, path, debezium_options));
      return std::unique_ptr<ChangeSource>(
          std::make_unique<DebeziumChangeSource>(path, std::move(reader)));
    }
    case SourceFormat::kSqlServer: {
      SqlServerCdcOptions sqlserver_options;
      sqlserver_options.format = options.file_format;
      sqlserver_options.schema = TableColumns(options.schema);
      sqlserver_options.batch_rows = options.batch_rows;
      sqlserver_options.unterminated_last = options.unterminated_last;
      CDCLAKE_ASSIGN_OR_RETURN(auto reader, SqlServerCdcReader::Open(fs, path, sqlserver_options));
      return std::unique_ptr<ChangeSource>(
          std::make_unique<SqlServerChangeSource>(path, std::move(reader)));
    }
  }
  return Status::InvalidArgument("unknown source format");
}

}  // namespace cdclake::sources
