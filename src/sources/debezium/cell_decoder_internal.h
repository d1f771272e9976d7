// Debezium cell decoding: one JSON value of a change event's row image turned into a cell of
// its column's type, following the Kafka Connect / Debezium encoding its schema names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/data_type.h"
#include "data/value.h"
#include "sources/files/cell_conversion_internal.h"
#include "sources/files/json_scanner_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

/// How a column's JSON values encode their cells (SOURCE-FORMATS.md §1.9).
enum class CellEncoding : uint8_t {
  /// As the JSON Lines reader converts JSON, except: BINARY reads base64; DECIMAL also reads a
  /// base64 unscaled value that is not decimal text; numbers for DATE are days and for
  /// TIMESTAMP / TIMESTAMP_NTZ microseconds since the epoch.
  kPlain,
  /// org.apache.kafka.connect.data.Decimal: base64 big-endian two's-complement unscaled value
  /// at the column's scale, or (decimal.format=NUMERIC) a JSON number read from its text.
  kDecimal,
  /// io.debezium.data.VariableScaleDecimal: {"scale": s, "value": base64 unscaled}, rescaled to
  /// the column's scale (never rounded).
  kVariableScaleDecimal,
  kDays,             // io.debezium.time.Date: int32 days -> DATE
  kTimestampMillis,  // io.debezium.time.Timestamp -> TIMESTAMP_NTZ
  kTimestampMicros,  // io.debezium.time.MicroTimestamp -> TIMESTAMP_NTZ
  kTimestampNanos,   // io.debezium.time.NanoTimestamp -> TIMESTAMP_NTZ (floor to micros)
  kTimeMillis,       // io.debezium.time.Time -> BIGINT microseconds of the day
  kTimeMicros,       // io.debezium.time.MicroTime -> BIGINT microseconds of the day
  kTimeNanos,        // io.debezium.time.NanoTime -> BIGINT microseconds of the day (floor)
  kZonedTimestamp,   // io.debezium.time.ZonedTimestamp: ISO-8601 text with offset -> TIMESTAMP
};

/// A column's type and how its values are encoded.
struct ColumnSpec {
  data::TypePtr type;  // nullptr for kVariableScaleDecimal until the reader chooses the scale
  CellEncoding encoding = CellEncoding::kPlain;
};

/// Converts `value` to a cell of spec.type. False with `*error` filled when it does not convert.
/// REQUIRES: spec.type != nullptr.
bool DecodeCell(const JsonValue& value, const ColumnSpec& spec, ScratchArena* arena,
                StagedCell* cell, ConversionError* error);

/// Whether `value` is PostgreSQL's unchanged-TOAST placeholder (`__debezium_unavailable_value`)
/// in any of the shapes Debezium gives it: the string, its bytes as base64, a one-element array
/// of it (text[]) or of its name-based UUID (uuid[]), its bytes as a number array (int[]), or a
/// one-entry map of it (hstore).
bool IsUnavailablePlaceholder(const JsonValue& value, ScratchArena* arena);

/// ParseInt64 (cell_conversion_internal.h) with the same results, quicker for texts of at most
/// 18 digits (which cannot overflow).
IntParse ParseInteger(std::string_view text, int64_t* out);

/// Decodes standard or URL-safe base64 (padding optional) into `*out` (appended).
bool DecodeBase64(std::string_view text, std::string* out);
/// Base64 into the arena; false when `text` is not base64.
bool DecodeBase64(std::string_view text, ScratchArena* arena, std::string_view* out);

/// A big-endian two's-complement integer (Java BigInteger.toByteArray); false when it does
/// not fit 128 bits.
bool TwosComplementToInt128(std::string_view bytes, data::Int128* out);

/// `unscaled` at `from_scale` as an unscaled value at `to_scale`; false when that loses digits
/// or the result needs more than `precision` digits.
bool Rescale(data::Int128 unscaled, int from_scale, int to_scale, int precision, data::Int128* out);

/// Decimal digits of |v| (0 has one).
int DecimalDigits(data::Int128 v);

/// A VariableScaleDecimal object read: its scale and unscaled value. False when `value` is not
/// an object of exactly an integer "scale" and a base64 "value".
bool ReadVariableScaleDecimal(const JsonValue& value, ScratchArena* arena, int* scale,
                              data::Int128* unscaled);

}  // namespace cdclake::sources::internal
