// Partition values (PROTOCOL.md §Partition Value Serialization): the text in `partitionValues`
// to and from data::Value, and Hive-style folder names (`col=value/`) as Spark spells them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::delta {

/// The value of a partition column of `type` from its `partitionValues` entry. Absent, JSON null
/// and "" are NULL for every type (a string column's literal "null" is the 4-letter string).
/// Accepted forms: booleans true/false (any case); integers in the type's range; floats as
/// Java/Spark print them ("1.0", "1.0E10", "NaN", "Infinity"); decimals exactly (no rounding);
/// dates YYYY-MM-DD; timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" or ISO-8601
/// "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" / "+hh:mm". A zone-less `timestamp` is read as UTC (Spark
/// wrote it in the writer's zone, which the log does not record); `timestamp_ntz` is taken as
/// is. Binary is the raw bytes of the string. kCorrupt when the text does not fit the type;
/// kNotSupported for nested types.
Result<data::Value> ParsePartitionValue(const std::optional<std::string>& text,
                                        const data::DataType& type);

/// The `partitionValues` text of a non-null value: numbers as Spark prints them, decimals plain
/// ("-2342342.23423"), dates YYYY-MM-DD, `timestamp` as ISO-8601 UTC with microseconds
/// ("2024-01-01T10:00:00.000000Z", the form the protocol recommends and Delta 3.x writes, so no
/// reader applies its own zone), `timestamp_ntz` as "YYYY-MM-DD HH:MM:SS.ffffff", binary as its
/// bytes. A NULL gives "" (which reads back as NULL), but callers should write JSON null.
std::string FormatPartitionValue(const data::Value& value, const data::DataType& type);

/// A folder-name component escaped as Spark escapes partition directories: control characters,
/// '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', DEL, '{', '[', ']', '^' become %XX
/// (uppercase hex); everything else, UTF-8 included, is kept.
std::string EscapePartitionPathValue(std::string_view value);

/// One Hive-style folder name, "col=value" with both sides escaped; NULL (or "") becomes
/// "col=__HIVE_DEFAULT_PARTITION__". No trailing '/'.
std::string PartitionPathSegment(std::string_view column, const std::optional<std::string>& value);

inline constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

/// Days since 1970-01-01 from "YYYY-MM-DD" (1- or 2-digit month and day, optional sign and more
/// year digits as data::FormatDate writes them). kCorrupt otherwise.
Result<int64_t> ParseDateText(std::string_view text);

/// Microseconds since the epoch from "YYYY-MM-DD[ T]HH:MM:SS[.f{1,9}][Z|+hh:mm|-hh:mm|+hhmm]" or
/// a bare date (midnight). Digits past the sixth fractional one are truncated. A zone moves the
/// value to UTC; without one the wall clock is returned as is. With `allow_zone` false a zone
/// other than "Z" is an error (timestamp_ntz). kCorrupt on anything else.
Result<int64_t> ParseTimestampText(std::string_view text, bool allow_zone = true);

/// Java's Double.toString / Float.toString (which Spark uses for partition values): the
/// shortest round-trip digits, "1.0", "0.001", "1.0E7", "1.0E-4", "NaN", "Infinity".
std::string JavaFloatingText(double value, bool is_float);

}  // namespace cdclake::delta
