// The text forms of values that every command shares (the CSV contract of `cdclake show`):
// decimals exact (12.30), dates YYYY-MM-DD, timestamps YYYY-MM-DD HH:MM:SS.ffffff with a trailing
// Z when UTC-adjusted, booleans true/false, binary as hex, nested values as JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::data {

/// Days since 1970-01-01 to YYYY-MM-DD (proleptic Gregorian; years outside 0..9999 get a sign
/// or more digits).
std::string FormatDate(int64_t days);
/// Microseconds since the epoch to YYYY-MM-DD HH:MM:SS.ffffff, plus "Z" when `utc`.
std::string FormatTimestamp(int64_t micros, bool utc);
/// Civil date to days since 1970-01-01.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

/// The text of a non-null value of `type`, as a CSV field would hold it before quoting.
/// Nested values are JSON. REQUIRES: !v.is_null().
std::string FormatValueText(const Value& v, const DataType& type);

/// The value as JSON: numbers bare (decimals as exact numbers), strings quoted and escaped,
/// binary as a hex string, dates and timestamps as strings, NULL as null.
void AppendValueJson(const Value& v, const DataType& type, std::string* out);

/// Appends `s` as a JSON string literal, escaping as RFC 8259 requires.
void AppendJsonString(std::string_view s, std::string* out);

/// RFC 4180 quoting: NULL is an empty field; an empty string is ""; fields with a comma, quote,
/// CR or LF are quoted with quotes doubled.
std::string CsvField(const Value& v, const DataType& type);

}  // namespace cdclake::data
