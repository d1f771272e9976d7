// Cell conversion: the text of a CSV field or a JSON value turned into a value of the column's
// type (staged until the whole record has converted), and the reason when it does not convert.
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

/// One converted value waiting for the rest of its record. Which member holds it follows from
/// the column's type: `i` for booleans, integers, dates and timestamps; `d` for float and
/// double; `dec` for decimals; `bytes` for string and binary (a view into the input or a
/// scratch arena); `value` for nested types.
struct StagedCell {
  enum class Kind : uint8_t { kNull, kInt, kDouble, kDecimal, kBytes, kValue };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  double d = 0;
  data::Int128 dec = 0;
  std::string_view bytes;
  data::Value value;

  void SetNull() {
    if (kind == Kind::kValue) value = data::Value();
    kind = Kind::kNull;
  }
};

/// Why a value did not convert, with what is needed to say so.
struct ConversionError {
  enum class Problem : uint8_t { kNotType, kOutOfRange, kDoesNotFit, kHasTimeZone, kBadJson };
  Problem problem = Problem::kNotType;
  std::string path;  // below the column: ".member" or "[index]"
  std::string text;  // the value's text
  data::TypePtr type;
  const char* detail = nullptr;  // kBadJson: what the JSON scanner found

  /// "column 'age': 'abc' is not an INT".
  std::string Describe(std::string_view column) const;
};

/// Parses a non-NULL CSV field (or any value given as text) as `type`. Nested types take the
/// text as JSON. False, with `*error` filled, when it does not convert.
bool ConvertText(std::string_view text, const data::TypePtr& type, ScratchArena* arena,
                 StagedCell* cell, ConversionError* error);

/// Converts a JSON value to `type`: JSON strings convert like text, numbers from their literal
/// (never through a double unless the type is FLOAT or DOUBLE), objects and arrays into
/// STRUCT, MAP and ARRAY types or, for STRING, their JSON text.
bool ConvertJson(const JsonValue& value, const data::TypePtr& type, ScratchArena* arena,
                 StagedCell* cell, ConversionError* error);

/// Appends a staged cell to a column of the type it was converted to.
void AppendCell(const StagedCell& cell, data::Column* column);

// Text parsers shared with type inference and tests.

enum class IntParse : uint8_t { kOk, kNotInteger, kOverflow };
/// Optional sign and decimal digits, nothing else.
IntParse ParseInt64(std::string_view text, int64_t* out);
/// Whether `text` is a plain decimal number: optional sign, digits with at most one point, at
/// least one digit. Sets the digits before the point (leading zeros not counted) and after it.
bool IsPlainDecimal(std::string_view text, int* integer_digits, int* fraction_digits,
                    bool* has_point);
/// YYYY-MM-DD to days since 1970-01-01.
bool ParseDateText(std::string_view text, int64_t* days);
/// YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]][Z|(+|-)HH[:MM]]] to microseconds, UTC-adjusted when a
/// zone is given (`*has_zone` says whether one was). Fraction digits past the sixth are dropped.
bool ParseTimestampText(std::string_view text, int64_t* micros, bool* has_zone);

}  // namespace cdclake::sources::internal
