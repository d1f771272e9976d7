// Date and timestamp literals: ParseDateLiteral and ParseTimestampLiteral, the text SQL casts
// to DATE, TIMESTAMP and TIMESTAMP_NTZ.
#include "data/expression.h"

#include <string>

#include "data/expression/expression_internal.h"
#include "data/value_format.h"

namespace cdclake::data {

namespace {

using internal::kMicrosPerDay;
using internal::kMicrosPerSecond;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads between `min_digits` and `max_digits` digits at `*pos`.
bool ReadDigits(std::string_view s, size_t* pos, int min_digits, int max_digits, int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (*pos < s.size() && IsDigit(s[*pos]) && n < max_digits) {
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
    ++n;
  }
  *out = v;
  return n >= min_digits;
}

int DaysInMonth(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

struct CivilTime {
  int64_t days = 0;           // since 1970-01-01
  int64_t micros = 0;         // since midnight
  int64_t offset_micros = 0;  // east of UTC
};

bool ParseCivil(std::string_view s, CivilTime* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0;
  if (!ReadDigits(s, &pos, 4, 4, &year) || pos >= s.size() || s[pos++] != '-') return false;
  if (!ReadDigits(s, &pos, 1, 2, &month) || pos >= s.size() || s[pos++] != '-') return false;
  if (!ReadDigits(s, &pos, 1, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  out->days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  if (pos == s.size()) return true;
  if (s[pos] != ' ' && s[pos] != 'T') return false;
  ++pos;
  int64_t hour = 0, minute = 0, second = 0, fraction = 0;
  if (!ReadDigits(s, &pos, 1, 2, &hour) || pos >= s.size() || s[pos++] != ':') return false;
  if (!ReadDigits(s, &pos, 2, 2, &minute)) return false;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!ReadDigits(s, &pos, 2, 2, &second)) return false;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      size_t start = pos;
      int64_t digits = 0;
      if (!ReadDigits(s, &pos, 1, 9, &digits)) return false;
      for (size_t n = pos - start; n < 9; ++n) digits *= 10;
      fraction = digits / 1000;  // nanoseconds to microseconds
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  out->micros = ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + fraction;
  if (pos < s.size() && s[pos] == ' ') ++pos;
  if (pos == s.size()) return true;
  if (s.substr(pos) == "Z" || s.substr(pos) == "UTC") return true;
  if (s[pos] != '+' && s[pos] != '-') return false;
  bool negative = s[pos++] == '-';
  int64_t oh = 0, om = 0;
  if (!ReadDigits(s, &pos, 2, 2, &oh)) return false;
  if (pos < s.size() && s[pos] == ':') ++pos;
  if (pos < s.size() && !ReadDigits(s, &pos, 2, 2, &om)) return false;
  if (pos != s.size() || oh > 18 || om > 59) return false;
  out->offset_micros = (oh * 60 + om) * 60 * kMicrosPerSecond * (negative ? -1 : 1);
  return true;
}

}  // namespace

Result<int64_t> ParseDateLiteral(std::string_view text) {
  CivilTime t;
  if (!ParseCivil(text, &t)) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a valid date");
  }
  return t.days;
}

Result<int64_t> ParseTimestampLiteral(std::string_view text, bool apply_offset) {
  CivilTime t;
  if (!ParseCivil(text, &t)) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a valid timestamp");
  }
  int64_t micros = t.days * kMicrosPerDay + t.micros;
  if (apply_offset) micros -= t.offset_micros;
  return micros;
}

}  // namespace cdclake::data
