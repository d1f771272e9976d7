// ChangeSource: one change file of any supported format (CSV, JSON Lines, Parquet, Debezium,
// SQL Server CDC export) behind a single interface, so callers read batches without knowing the
// reader.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/record_span.h"

namespace cdclake::sources {

/// What a change file holds: plain rows (CSV, JSON Lines, Parquet), Debezium change events, or
/// rows exported from SQL Server's CDC change tables.
enum class SourceFormat { kCsv, kJsonLines, kDebezium, kSqlServer, kParquet };

/// The format's name as options spell it: csv, jsonl, debezium, sqlserver, parquet.
std::string_view SourceFormatName(SourceFormat format);

/// The format a name gives (the names above, ignoring ASCII case); nullopt for any other.
std::optional<SourceFormat> SourceFormatFromName(std::string_view name);

/// The plain-row format a file name's extension gives, ignoring ASCII case: .csv, .jsonl or
/// .json, .parquet; nullopt for any other (Debezium and SQL Server files must be named).
std::optional<SourceFormat> SourceFormatFromPath(std::string_view path);

/// Whether batches of `format` carry the change-stream columns `_op`, `_seq` (and, when the
/// source knows them, `_source_ts_ms`, `_source_table`): Debezium and SQL Server.
bool IsChangeStreamFormat(SourceFormat format);

/// The metadata columns change-stream readers add after the table's columns.
const std::vector<std::string>& ChangeStreamColumns();

struct ChangeSourceOptions {
  /// Types to read columns as (see ChangeFileReader, DebeziumReader, SqlServerCdcReader).
  /// Fields named like a change-stream column are not passed to the Debezium and SQL Server
  /// readers, which type those columns themselves.
  std::optional<data::Schema> schema;
  /// Rows per batch returned by Next (the last may be shorter).
  int64_t batch_rows = 1 << 16;
  /// The file's own layout for kSqlServer exports (CSV or JSON Lines). kCsv and kJsonLines
  /// name theirs; kDebezium finds it in the file.
  FileFormat file_format = FileFormat::kCsv;
  /// kDebezium: keep each row's record text in ChangeBatch::raw (DebeziumOptions::keep_row_text).
  /// Off, raw is empty for rows, which saves a copy of every record.
  bool keep_row_text = true;
  /// The last record an earlier run consumed in this file, when it ended the file without a
  /// terminator (ChangeSource::UnterminatedLast then). If the record starting at its offset now
  /// ends elsewhere (bytes were appended to it), it comes back as a rejected record holding both
  /// versions, with a reason that says so, instead of being taken as the record already read.
  std::optional<RecordSpan> unterminated_last;
  /// kCsv, kJsonLines: the flow's sequence columns (ChangeFileOptions::sequence_columns).
  std::vector<std::string> sequence_columns;
  /// kCsv: columns a row cannot do without further down (ChangeFileOptions::required_columns).
  std::vector<std::string> required_columns;
  /// kCsv, kJsonLines: ChangeFileOptions::rescued_data_column.
  std::string rescued_data_column;
};

/// A count a source keeps of records that are not rows, e.g. Kafka tombstones.
struct SourceCount {
  std::string label;  // what was counted and what became of it: "Kafka tombstones skipped"
  int64_t value = 0;
};

/// "1 record pending in FILE (line L, byte B, N bytes so far): read once it is complete".
std::string DescribePending(const PendingFile& pending);

/// Reads one change file in batches. Rows of every format carry their position (file, line,
/// byte offset) and raw text; records that do not decode come back in `rejected`. Parquet rows
/// have no text (raw is empty) and their byte offset is the row's ordinal in the file (see
/// ParquetChangeReader).
class ChangeSource {
 public:
  virtual ~ChangeSource() = default;

  SourceFormat format() const { return format_; }
  const std::string& path() const { return path_; }

  /// The columns of every batch when the format fixes them once the file is open (CSV, JSON
  /// Lines, Parquet); nullptr when each batch carries its own schema (Debezium, where a column may
  /// appear mid-stream, and SQL Server exports).
  virtual const data::Schema* schema() const { return nullptr; }

  /// The next batch, or nullopt at the end of the file.
  virtual Result<std::optional<change::ChangeBatch>> Next() = 0;

  /// The reader's counts of records that are not rows, so far: none for CSV, JSON Lines and
  /// Parquet;
  /// Kafka tombstones, op m messages, transaction records and schema changes for Debezium;
  /// before-images (__$operation 3) for SQL Server. The labels are the same for every file of
  /// a format, so counts of several files add up by label.
  virtual std::vector<SourceCount> Counts() const { return {}; }

  /// Counts() as one line, "label: value" joined by "; " (empty when there are none).
  virtual std::string CountsSummary() const;

  /// Once Next() has returned nullopt: the unterminated last record that is not whole yet
  /// (PendingRecord), if the file ends in one; nullopt otherwise.
  virtual std::optional<PendingRecord> Pending() const { return std::nullopt; }

  /// Once Next() has returned nullopt: the span of the last record returned (row or rejected)
  /// when it ended the file without a terminator, so a later run can tell whether bytes were
  /// appended to it (ChangeSourceOptions::unterminated_last); nullopt otherwise.
  virtual std::optional<RecordSpan> UnterminatedLast() const { return std::nullopt; }

 protected:
  ChangeSource(SourceFormat format, std::string path) : format_(format), path_(std::move(path)) {}

 private:
  SourceFormat format_;
  std::string path_;
};

/// Opens `path` with the reader of `format`. Errors are the reader's (a file that cannot be
/// read, a SQL Server export without its `__$` columns, a Parquet column whose type the schema
/// contradicts, bad options).
Result<std::unique_ptr<ChangeSource>> OpenChangeSource(io::FileSystem& fs, const std::string& path,
                                                       SourceFormat format,
                                                       const ChangeSourceOptions& options);

}  // namespace cdclake::sources
