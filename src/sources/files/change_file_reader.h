// ChangeFileReader: plain change files — CSV with a header, and JSON Lines — into change
// batches, with the position of every row and the raw text of every rejected line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/record_span.h"

namespace cdclake::sources {

enum class FileFormat { kCsv, kJsonLines };

struct ChangeFileOptions {
  FileFormat format = FileFormat::kCsv;
  /// Types to read columns as. Columns the file has and the schema does not are read with the
  /// inferred type; schema columns missing from the file are absent from the batch.
  std::optional<data::Schema> schema;
  /// Rows per batch returned by Next (the last may be shorter).
  int64_t batch_rows = 1 << 16;
  /// Bytes read from the file at a time. A record may span chunks; tests make this small to
  /// cut records at every byte.
  int64_t read_chunk_bytes = 4 << 20;
  /// The last record an earlier run consumed when it ended the file without a terminator
  /// (ChangeSourceOptions::unterminated_last).
  std::optional<RecordSpan> unterminated_last;
  /// The flow's sequence columns (SEQUENCE BY): when no schema types one, it is inferred from
  /// its values that are numbers or timestamps, never STRING because of a value that is neither
  /// (that value's record is rejected instead; see ColumnTypeInference).
  std::vector<std::string> sequence_columns;
  /// Columns no row can do without further down (the SEQUENCE BY columns of the flows that read
  /// a bronze table): an empty one as the last field of the file's last, unterminated record
  /// means its writer has not finished it (CSV: Pending). Unlike `sequence_columns`, types are
  /// inferred as for any column. A sequence column is required too.
  std::vector<std::string> required_columns;
  /// CSV and JSON Lines files of this many bytes or more (up to kSplitUpToBytes) are decoded in
  /// two halves on two threads (file_halves_internal.h); 0: never. The rows, rejected records and
  /// positions are those of reading front to back.
  int64_t split_from_bytes = int64_t{8} << 20;
  /// CSV and JSON Lines: when not empty, the name of a STRING column added after the file's
  /// columns: a value that does not convert to its column's type makes that cell NULL and is
  /// kept there instead ({"column": "value as written", "_file_path": "..."}), so the record is
  /// not rejected for it (Auto Loader's rescuedDataColumn). NULL when nothing was rescued.
  std::string rescued_data_column;
};

/// The largest file decoded in two halves (CSV, JSON Lines, Debezium): both halves' batches are
/// held until handed out.
inline constexpr int64_t kSplitUpToBytes = int64_t{256} << 20;

/// Reads one file in batches. CSV (RFC 4180): comma separated, a header row naming the
/// columns, "double quotes" around fields with commas, quotes or newlines; an empty unquoted
/// field is NULL, "" is an empty string. JSON Lines: one object per line; a missing member is
/// NULL; nested objects become structs when the schema says so, else their JSON text.
///
/// Types when no schema names a column: CSV columns are STRING, except that a column whose
/// every non-empty field in the file is an integer becomes BIGINT and one whose every field is
/// a plain decimal number (digits, one point) becomes DECIMAL(p, s) wide enough for all of
/// them (the whole file is scanned once to decide). JSON: BIGINT for integers, DECIMAL for
/// numbers with a point and no exponent, DOUBLE with an exponent, BOOLEAN, STRING; a column
/// with mixed kinds becomes STRING. A sequence column (`sequence_columns`) is the exception:
/// numbers (or else timestamps) whatever other values it holds, those values rejected.
///
/// The last record of the file, when no line ending follows it, may be one its writer has not
/// finished: when it is not a whole record (CSV: fewer fields than the header, a quoted field
/// still open, or a last field that does not convert yet; JSON Lines: JSON that ends early) it is
/// neither a row nor rejected but Pending(), so that a later run reads it once it is complete.
/// A whole last record without a line ending is read (UnterminatedLast() gives its span); given
/// that span again as `unterminated_last`, a record there that now ends elsewhere (bytes were
/// appended to it) is rejected with both versions (see RecordTail).
///
/// A record that does not parse (wrong field count, unterminated quote, invalid JSON, a value
/// that is not of the column's type such as 'abc' for INT) is returned in `rejected` with its
/// raw text, file, line, byte offset and a reason naming the column; reading goes on.
///
/// Details: header and member names match schema fields exactly, else ignoring ASCII case, and
/// the batch uses the schema's name (two file columns matching one field is an error); every
/// batch field is nullable. Columns come in file order (CSV header order; JSON order of first
/// appearance). Blank lines are skipped but counted; a UTF-8 byte order mark is skipped.
/// Inference: quoted CSV fields count too ("7" is an integer, "" is not); JSON numbers of
/// different shapes widen (integer < decimal < double) rather than fall to STRING; integers
/// beyond BIGINT give DECIMAL(38, 0); numbers wider than DECIMAL(38) give STRING. Values:
/// timestamps are 'YYYY-MM-DD[ T]HH:MM[:SS[.f...]][Z|+hh[:mm]]' (a bare date is midnight;
/// digits past microseconds are dropped); TIMESTAMP_NTZ refuses a zone. Nested schema types
/// (struct, array, map) read JSON (in CSV, the field's text); struct members the type lacks are
/// ignored. JSON strings convert to any scalar type like CSV text.
class ChangeFileReader {
 public:
  static Result<std::unique_ptr<ChangeFileReader>> Open(io::FileSystem& fs, std::string path,
                                                        ChangeFileOptions options);
  virtual ~ChangeFileReader() = default;

  /// The columns of every batch (fixed once the file is opened).
  virtual const data::Schema& schema() const = 0;

  /// The next batch, or nullopt at the end of the file.
  virtual Result<std::optional<change::ChangeBatch>> Next() = 0;

  /// Once Next() has returned nullopt: the record at the end of the file that is not whole yet,
  /// if any (ChangeSource::Pending).
  virtual std::optional<PendingRecord> Pending() const { return std::nullopt; }
  /// Once Next() has returned nullopt: the last record's span when it ended the file without a
  /// terminator (ChangeSource::UnterminatedLast).
  virtual std::optional<RecordSpan> UnterminatedLast() const { return std::nullopt; }
};

}  // namespace cdclake::sources
