// ConnectSchema: the parts of a Kafka Connect schema (JsonConverter's `schema` member) that
// type a Debezium row: the fields of the before/after structs, or of a flat (unwrapped) value.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sources/debezium/cell_decoder_internal.h"

namespace cdclake::sources::internal {

/// One row field of a Connect schema and how its values decode.
struct ConnectField {
  std::string name;
  ColumnSpec spec;
};

/// A value schema read once per distinct schema text. Field types follow SOURCE-FORMATS.md
/// §1.9 by semantic name first, literal type second: Decimal -> DECIMAL(p, s) (p from
/// connect.decimal.precision, else 38, at most 38; a scale beyond 38 gives STRING);
/// VariableScaleDecimal -> a DECIMAL the reader chooses; Date -> DATE; Time, MicroTime,
/// NanoTime -> BIGINT microseconds of the day; Timestamp, MicroTimestamp, NanoTimestamp ->
/// TIMESTAMP_NTZ; ZonedTimestamp -> TIMESTAMP; ZonedTime, Interval, Uuid, Json, Xml, Enum,
/// EnumSet -> STRING; Bits and bytes -> BINARY; int8..int64, float32/64, boolean, string as
/// such; struct, array and string-keyed map -> STRUCT, ARRAY, MAP whose members keep their
/// literal types (bytes and logical types inside stay as their JSON text or number); other
/// maps -> STRING (their JSON text).
struct ConnectSchema {
  /// True when the schema is an envelope (it has before/after structs); else `after` holds the
  /// fields of a flat value (the unwrapped form, or a key).
  bool envelope = false;
  std::vector<ConnectField> after;
  std::vector<ConnectField> before;

  /// Parses the schema's JSON text. kCorrupt when it is not a Connect struct schema.
  static Result<ConnectSchema> Parse(std::string_view text);

  /// The field of `fields` named `name`, trying index `hint` first; nullptr when none.
  static const ConnectField* Find(const std::vector<ConnectField>& fields, std::string_view name,
                                  size_t hint) {
    if (hint < fields.size() && fields[hint].name == name) return &fields[hint];
    for (const ConnectField& field : fields) {
      if (field.name == name) return &field;
    }
    return nullptr;
  }
};

}  // namespace cdclake::sources::internal
