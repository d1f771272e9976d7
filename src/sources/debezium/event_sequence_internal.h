// EventSequence: the `_seq` column of Debezium rows — which source-block fields order events
// for each connector, their sortable types, and reading them from one event.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/column.h"
#include "data/data_type.h"
#include "data/value.h"
#include "sources/files/json_scanner_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

/// The source-block fields the reader uses (views into the record, kNull when absent).
struct SourceFields {
  enum Field : uint8_t {
    kConnector,
    kTsMs,
    kDb,
    kSchema,
    kTable,
    kCollection,
    kLsn,
    kSequence,
    kFile,
    kPos,
    kRow,
    kChangeLsn,
    kCommitLsn,
    kEventSerialNo,
    kScn,
    kCommitScn,
    kOrd,
    kCount
  };
  JsonValue values[kCount];

  void Clear() {
    for (JsonValue& v : values) v.kind = JsonKind::kNull;
  }
  const JsonValue& operator[](Field f) const { return values[f]; }
  bool has(Field f) const { return values[f].kind != JsonKind::kNull; }
  /// The field a source member named `name` feeds, or kCount.
  static Field FieldOf(std::string_view name);
};

/// Which fields order a connector's events (SOURCE-FORMATS.md §1.5).
enum class SequenceKind : uint8_t {
  kNone,       // unknown connector: `_seq` is NULL (BIGINT)
  kPostgres,   // STRUCT(commit_lsn BIGINT, lsn BIGINT)
  kMySql,      // STRUCT(file STRING, pos BIGINT, row INT)
  kSqlServer,  // STRUCT(commit_lsn STRING, change_lsn STRING, event_serial_no BIGINT)
  kOracle,     // STRUCT(commit_scn DECIMAL(38,0), scn DECIMAL(38,0))
  kMongo,      // STRUCT(ts_ms BIGINT, ord BIGINT): the cluster time (seconds) and increment
};

/// One event's sequence, decoded.
struct EventSequence {
  bool null = true;
  bool field_null[3] = {true, true, true};
  int64_t ints[3] = {0, 0, 0};
  std::string_view texts[2];
  data::Int128 decimals[2] = {0, 0};

  /// The kind for `source.connector` ("postgresql", "mysql", "mariadb", "sqlserver", "oracle",
  /// "mongodb"); kNone for others.
  static SequenceKind KindOfConnector(std::string_view connector);
  /// The kind whose fields `source` has, for records that do not name their connector.
  static SequenceKind GuessKind(const SourceFields& source);
  /// The `_seq` type of `kind`.
  static data::TypePtr TypeOf(SequenceKind kind);

  /// Reads the sequence of `kind` from `source`. PostgreSQL: `sequence` is a JSON array of two
  /// decimal strings in a string, [last commit LSN, LSN]; commit_lsn is its first element, else
  /// the event's own LSN (`lsn`, else the second element), and lsn the second, else `lsn`.
  /// SQL Server LSNs must be fixed-width hex (xxxxxxxx:xxxxxxxx:xxxx; kept as given, hex
  /// letters lower-cased) so they sort bytewise. A snapshot row (op r) has a commit_lsn but a
  /// NULL change_lsn and event_serial_no: they read as "" and 0, so the row sorts before every
  /// change streamed under the same commit_lsn (a streamed change_lsn is never empty). Oracle SCNs
  /// are decimal strings (or numbers); a missing commit_scn takes scn. Integers may come as numbers
  /// or numeric strings. False with `*reason` when a field has the wrong shape.
  bool Read(SequenceKind kind, const SourceFields& source, ScratchArena* arena,
            std::string* reason);

  /// Appends this sequence to a column of TypeOf(kind).
  void AppendTo(SequenceKind kind, data::Column* column) const;
};

}  // namespace cdclake::sources::internal
