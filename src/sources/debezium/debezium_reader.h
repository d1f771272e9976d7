// DebeziumReader: Debezium change events (JSON: one message value per line, a JSON array, or
// {"key": ..., "value": ...} pairs; with or without the `schema` part; the unwrapped form) into
// change batches of decoded rows (docs/sources.md; ../shared/design/SOURCE-FORMATS.md §1).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/record_span.h"

namespace cdclake::sources {

struct DebeziumOptions {
  /// A dotted field path of the envelope to use as the sequence instead of the connector's
  /// source position (for example "source.commit_lsn" or "after.version").
  std::optional<std::string> sequence_path;
  /// Column types for messages without a `schema` part (else inferred from the JSON values,
  /// as ChangeFileReader infers JSON Lines: a number with a fraction or exponent is a DOUBLE).
  std::optional<data::Schema> schema;
  /// Rows per batch returned by Next (the last may be shorter).
  int64_t batch_rows = 1 << 16;
  /// Give each row its record text (ChangeBatch::raw, left in the file and read back by
  /// change::RowText). Off, raw[i] is empty (a consumer that needs it, such as quarantine,
  /// writes the row as JSON instead). Rejected records always keep their text.
  bool keep_row_text = true;
  /// The last record an earlier run consumed when it ended the file without a line ending
  /// (ChangeSourceOptions::unterminated_last): a record there that now ends elsewhere is
  /// rejected with both versions.
  std::optional<RecordSpan> unterminated_last;
  /// A file of one record per line this large or larger (up to kSplitUpToBytes,
  /// sources/files/change_file_reader.h) is decoded as
  /// two halves on two threads, with the same batches' rows, rejected records and positions as
  /// reading it front to back (docs/sources.md, "Decoding on two cores"). 0: never.
  int64_t split_from_bytes = int64_t{8} << 20;
};

/// Records that are not rows, counted.
struct DebeziumCounts {
  int64_t tombstones = 0;           // Kafka tombstones: empty or null values
  int64_t messages = 0;             // op "m" (logical decoding messages), ignored
  int64_t transaction_records = 0;  // BEGIN/END records of the transaction topic, ignored
  int64_t schema_changes = 0;       // schema-change events, ignored
};

/// Decoded rows: the table's columns — the after image, or for a delete the before image (at
/// least its key) — then `_op` STRING (c, u, d, r, t), `_seq` (the connector's position as one
/// sortable value: PostgreSQL STRUCT(commit_lsn BIGINT, lsn BIGINT); MySQL STRUCT(file STRING,
/// pos BIGINT, row INT); SQL Server STRUCT(commit_lsn STRING, change_lsn STRING,
/// event_serial_no BIGINT), where a snapshot row's missing change_lsn and event_serial_no are ""
/// and 0 so it sorts before the changes of its commit_lsn; Oracle STRUCT(commit_scn DECIMAL(38,0),
/// scn DECIMAL(38,0)); MongoDB the resume order; or the value at `sequence_path`), `_source_ts_ms`
/// BIGINT and
/// `_source_table` STRING (db.schema.table). A truncate (op t) has NULL table columns.
/// PostgreSQL's `__debezium_unavailable_value` placeholder (in any column type's shape) is a
/// NULL cell marked in ChangeBatch::unchanged, never data.
///
/// Each batch has one schema; a column that appears mid-stream starts a new batch whose schema
/// has it. Bad input — a truncated line, invalid JSON, a value of the wrong type for its schema
/// field, an unknown op — is returned in `rejected` with the raw text, file, line, byte offset
/// and the reason; reading goes on. A record the file ends in whose JSON ends early is not bad
/// input but Pending(): a later run reads it once its writer has finished it.
class DebeziumReader {
 public:
  static Result<std::unique_ptr<DebeziumReader>> Open(io::FileSystem& fs, std::string path,
                                                      DebeziumOptions options = {});
  virtual ~DebeziumReader() = default;

  /// The next batch, or nullopt at the end of the file.
  virtual Result<std::optional<change::ChangeBatch>> Next() = 0;

  virtual const DebeziumCounts& counts() const = 0;

  /// Once Next() has returned nullopt: the record the file ends in when its JSON ends early (its
  /// writer has not finished it; not returned, not consumed), as ChangeSource::Pending.
  virtual std::optional<PendingRecord> Pending() const = 0;
  /// Once Next() has returned nullopt: the last record's span when the file ends right after
  /// it without a line ending (ChangeSource::UnterminatedLast).
  virtual std::optional<RecordSpan> UnterminatedLast() const = 0;
};

}  // namespace cdclake::sources
