// Partition value text: parsing per type, Spark's printing of numbers, Hive folder escaping.
#include "delta/partition_value.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "data/decimal.h"
#include "data/value_format.h"

namespace cdclake::delta {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

Status BadText(std::string_view text, std::string_view what) {
  return Status::Corrupt("'" + std::string(text) + "' is not a valid " + std::string(what));
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads between `min_digits` and `max_digits` decimal digits at `*pos`.
bool ReadNumber(std::string_view s, size_t* pos, int min_digits, int max_digits, int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (*pos < s.size() && IsDigit(s[*pos]) && n < max_digits) {
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
    ++n;
  }
  if (n < min_digits) return false;
  *out = v;
  return true;
}

bool IsLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int DaysInMonth(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeapYear(year)) return 29;
  return kDays[month - 1];
}

// Parses the date at the front of `s` and leaves `*pos` after it. Years are limited to six
// digits so that any date's microseconds fit in an int64.
bool ReadDate(std::string_view s, size_t* pos, int64_t* days) {
  bool negative = false;
  if (*pos < s.size() && (s[*pos] == '+' || s[*pos] == '-')) negative = s[(*pos)++] == '-';
  int64_t year = 0, month = 0, day = 0;
  if (!ReadNumber(s, pos, 4, 6, &year)) return false;
  if (year > 290000) return false;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadNumber(s, pos, 1, 2, &month)) return false;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadNumber(s, pos, 1, 2, &day)) return false;
  if (negative) year = -year;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  *days = data::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

Result<data::Value> ParseInteger(std::string_view text, const data::DataType& type) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return BadText(text, type.ToString());
  }
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  switch (type.id()) {
    case data::TypeId::kInt8:
      lo = -128, hi = 127;
      break;
    case data::TypeId::kInt16:
      lo = -32768, hi = 32767;
      break;
    case data::TypeId::kInt32:
      lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      break;
  }
  if (v < lo || v > hi) return BadText(text, type.ToString() + " (out of range)");
  return data::Value::Int(v);
}

Result<data::Value> ParseFloating(std::string_view text, bool is_float) {
  std::string_view body = text;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  const char* first = body.data();
  const char* last = body.data() + body.size();
  if (is_float) {
    float f = 0;
    auto [end, ec] = std::from_chars(first, last, f);
    if (body.empty() || ec != std::errc() || end != last) return BadText(text, "float");
    return data::Value::Double(static_cast<double>(f));
  }
  double d = 0;
  auto [end, ec] = std::from_chars(first, last, d);
  if (body.empty() || ec != std::errc() || end != last) return BadText(text, "double");
  return data::Value::Double(d);
}

bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<int64_t> ParseDateText(std::string_view text) {
  size_t pos = 0;
  int64_t days = 0;
  if (!ReadDate(text, &pos, &days) || pos != text.size()) return BadText(text, "date");
  return days;
}

Result<int64_t> ParseTimestampText(std::string_view text, bool allow_zone) {
  auto bad = [&] { return BadText(text, allow_zone ? "timestamp" : "timestamp_ntz"); };
  size_t pos = 0;
  int64_t days = 0;
  if (!ReadDate(text, &pos, &days)) return bad();
  int64_t hour = 0, minute = 0, second = 0, micros = 0, offset_seconds = 0;
  if (pos < text.size()) {
    if (text[pos] != ' ' && text[pos] != 'T') return bad();
    ++pos;
    if (!ReadNumber(text, &pos, 1, 2, &hour)) return bad();
    if (pos >= text.size() || text[pos] != ':') return bad();
    ++pos;
    if (!ReadNumber(text, &pos, 2, 2, &minute)) return bad();
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!ReadNumber(text, &pos, 2, 2, &second)) return bad();
      if (pos < text.size() && text[pos] == '.') {
        ++pos;
        int digits = 0;
        while (pos < text.size() && IsDigit(text[pos])) {
          if (digits < 6) micros = micros * 10 + (text[pos] - '0');
          ++digits;
          ++pos;
        }
        if (digits == 0 || digits > 9) return bad();
        for (int d = digits; d < 6; ++d) micros *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return bad();
    if (pos < text.size()) {
      char z = text[pos];
      if ((z == 'Z' || z == 'z') && pos + 1 == text.size()) {
        pos = text.size();
      } else if (z == '+' || z == '-') {
        if (!allow_zone) return bad();
        ++pos;
        int64_t oh = 0, om = 0;
        if (!ReadNumber(text, &pos, 2, 2, &oh)) return bad();
        if (pos < text.size() && text[pos] == ':') ++pos;
        if (pos < text.size() && !ReadNumber(text, &pos, 2, 2, &om)) return bad();
        if (pos != text.size() || oh > 18 || om > 59) return bad();
        offset_seconds = (oh * 3600 + om * 60) * (z == '-' ? -1 : 1);
      } else {
        return bad();
      }
    }
  }
  // Six-digit years keep this within int64 (|days| <= ~1.06e8, times 8.64e10 us/day).
  int64_t seconds = hour * 3600 + minute * 60 + second - offset_seconds;
  return days * kMicrosPerDay + seconds * kMicrosPerSecond + micros;
}

std::string JavaFloatingText(double value, bool is_float) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buf[64];
  std::to_chars_result r =
      is_float ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value),
                               std::chars_format::scientific)
               : std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  if (sci.find('.') == std::string_view::npos) {
    // One digit suffices; Java then prints the two-digit decimal closest to the value instead
    // (Double.MIN_VALUE is "4.9E-324", not "5.0E-324").
    r = is_float ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value),
                                 std::chars_format::scientific, 1)
                 : std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific, 1);
    sci = std::string_view(buf, static_cast<size_t>(r.ptr - buf));
  }
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  std::string out = negative ? "-" : "";
  double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() < int_digits) digits.append(int_digits - digits.size(), '0');
      out += digits.substr(0, int_digits);
      out += '.';
      out += digits.size() > int_digits ? digits.substr(int_digits) : "0";
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  out += '.';
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(exponent);
  return out;
}

Result<data::Value> ParsePartitionValue(const std::optional<std::string>& text,
                                        const data::DataType& type) {
  if (!text.has_value() || text->empty()) return data::Value::Null();
  const std::string& s = *text;
  switch (type.id()) {
    case data::TypeId::kBoolean:
      if (EqualsIgnoreCase(s, "true")) return data::Value::Bool(true);
      if (EqualsIgnoreCase(s, "false")) return data::Value::Bool(false);
      return BadText(s, "boolean");
    case data::TypeId::kInt8:
    case data::TypeId::kInt16:
    case data::TypeId::kInt32:
    case data::TypeId::kInt64:
      return ParseInteger(s, type);
    case data::TypeId::kFloat:
      return ParseFloating(s, true);
    case data::TypeId::kDouble:
      return ParseFloating(s, false);
    case data::TypeId::kDecimal: {
      auto unscaled = data::ParseDecimal(s, type.precision(), type.scale());
      if (!unscaled.ok()) return Status::Corrupt(unscaled.status().message());
      return data::Value::Decimal(*unscaled);
    }
    case data::TypeId::kString:
    case data::TypeId::kBinary:
      return data::Value::Bytes(s);
    case data::TypeId::kDate: {
      CDCLAKE_ASSIGN_OR_RETURN(int64_t days, ParseDateText(s));
      return data::Value::Int(days);
    }
    case data::TypeId::kTimestamp: {
      CDCLAKE_ASSIGN_OR_RETURN(int64_t micros, ParseTimestampText(s, /*allow_zone=*/true));
      return data::Value::Int(micros);
    }
    case data::TypeId::kTimestampNtz: {
      CDCLAKE_ASSIGN_OR_RETURN(int64_t micros, ParseTimestampText(s, /*allow_zone=*/false));
      return data::Value::Int(micros);
    }
    case data::TypeId::kStruct:
    case data::TypeId::kList:
    case data::TypeId::kMap:
      break;
  }
  return Status::NotSupported("partition column of type " + type.ToString());
}

std::string FormatPartitionValue(const data::Value& value, const data::DataType& type) {
  if (value.is_null()) return "";
  switch (type.id()) {
    case data::TypeId::kFloat:
      return JavaFloatingText(value.double_value(), true);
    case data::TypeId::kDouble:
      return JavaFloatingText(value.double_value(), false);
    case data::TypeId::kString:
    case data::TypeId::kBinary:
      return value.bytes();
    case data::TypeId::kTimestamp: {
      std::string text = data::FormatTimestamp(value.int_value(), /*utc=*/false);
      size_t space = text.find(' ');
      if (space != std::string::npos) text[space] = 'T';
      return text + "Z";
    }
    case data::TypeId::kTimestampNtz:
      return data::FormatTimestamp(value.int_value(), /*utc=*/false);
    default:
      // Booleans, integers, exact decimals and dates print as value_format.h spells them.
      return data::FormatValueText(value, type);
  }
}

std::string EscapePartitionPathValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if (NeedsEscape(c)) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string PartitionPathSegment(std::string_view column, const std::optional<std::string>& value) {
  std::string out = EscapePartitionPathValue(column);
  out.push_back('=');
  if (!value.has_value() || value->empty()) {
    out += kHiveDefaultPartition;
  } else {
    out += EscapePartitionPathValue(*value);
  }
  return out;
}

}  // namespace cdclake::delta
