// PgTypeMap: which Delta type a PostgreSQL column becomes, and a value's text output (as
// pgoutput and COPY send it, with PgConnection's pinned settings) appended as that type.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "data/column.h"
#include "data/data_type.h"

namespace cdclake::sources::postgres {

/// How a column's text is read. docs/sources.md, "PostgreSQL", has the table of types.
enum class PgText : uint8_t {
  kBoolean,    // t / f
  kInteger,    // int2, int4, int8, oid
  kFloat,      // float4, float8 (NaN, Infinity, -Infinity)
  kDecimal,    // numeric(p, s) with p <= 38
  kMoney,      // money under lc_monetary C: "$1,234.56", "-$0.50"
  kDate,       // YYYY-MM-DD
  kTimestamp,  // timestamp and timestamptz (the session is UTC)
  kTime,       // time: microseconds since midnight, as Debezium's MicroTime
  kBytea,      // \x followed by hex digits
  kString,     // text, varchar, uuid, json, jsonb, numeric without (p, s), enums, the rest
  kArray,      // a one-dimensional array of any of the above
};

struct PgColumnType {
  data::TypePtr type;
  PgText text = PgText::kString;
  PgText element = PgText::kString;  // for kArray
};

/// The Delta type of a column of type `type_oid` with modifier `type_modifier` (-1: none), as a
/// Relation message or the catalog gives them. Types cdclake does not know (enums, domains,
/// composite and extension types) are strings holding PostgreSQL's text output.
PgColumnType PgColumnTypeOf(uint32_t type_oid, int32_t type_modifier);

/// Appends the value whose text output is `text` to `column` (of `type.type`). A text that the
/// Delta type cannot hold (infinity or a BC date in a DATE, NaN in a DECIMAL, a
/// multi-dimensional array) is kInvalidArgument saying why, and appends nothing.
Status AppendPgText(const PgColumnType& type, std::string_view text, data::Column* column);

}  // namespace cdclake::sources::postgres
