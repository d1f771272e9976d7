// Text forms of values.
#include "data/value_format.h"

#include <cmath>
#include <cstdio>

#include "base/bytes.h"
#include "data/decimal.h"

namespace cdclake::data {

namespace {

struct Civil {
  int64_t year;
  unsigned month;
  unsigned day;
};

// Days since 1970-01-01 to a proleptic Gregorian date, by 400-year eras (146097 days each).
Civil CivilFromDays(int64_t z) {
  z += 719468;  // shift the epoch to 0000-03-01
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);                    // [0, 146096]
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);  // [0, 365]
  const unsigned mp = (5 * doy + 2) / 153;                       // March-based month [0, 11]
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return Civil{m <= 2 ? y + 1 : y, m, d};
}

std::string FormatYear(int64_t year) {
  char buf[32];
  if (year >= 0 && year <= 9999) {
    std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(year));
  } else {
    std::snprintf(buf, sizeof(buf), "%+05lld", static_cast<long long>(year));
  }
  return buf;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string FormatFloating(double d, bool is_float) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  // Shortest text that reads back to the same value.
  int digits = is_float ? 9 : 17;
  for (int p = is_float ? 6 : 15; p <= digits; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*g", p, d);
    if (is_float ? static_cast<float>(std::strtod(buf, nullptr)) == static_cast<float>(d)
                 : std::strtod(buf, nullptr) == d) {
      break;
    }
  }
  return buf;
}

}  // namespace

int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::string FormatDate(int64_t days) {
  Civil c = CivilFromDays(days);
  char buf[16];
  std::snprintf(buf, sizeof(buf), "-%02u-%02u", c.month, c.day);
  return FormatYear(c.year) + buf;
}

std::string FormatTimestamp(int64_t micros, bool utc) {
  int64_t days = FloorDiv(micros, 86400LL * 1000000);
  int64_t rem = micros - days * 86400LL * 1000000;
  int64_t secs = rem / 1000000;
  int64_t frac = rem % 1000000;
  char buf[48];
  std::snprintf(buf, sizeof(buf), " %02lld:%02lld:%02lld.%06lld%s",
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60), static_cast<long long>(frac), utc ? "Z" : "");
  return FormatDate(days) + buf;
}

std::string FormatValueText(const Value& v, const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return v.bool_value() ? "true" : "false";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return std::to_string(v.int_value());
    case TypeId::kFloat:
      return FormatFloating(v.double_value(), true);
    case TypeId::kDouble:
      return FormatFloating(v.double_value(), false);
    case TypeId::kDecimal:
      return FormatDecimal(v.decimal_value(), type.scale());
    case TypeId::kString:
      return v.bytes();
    case TypeId::kBinary:
      return HexEncode(v.bytes());
    case TypeId::kDate:
      return FormatDate(v.int_value());
    case TypeId::kTimestamp:
      return FormatTimestamp(v.int_value(), true);
    case TypeId::kTimestampNtz:
      return FormatTimestamp(v.int_value(), false);
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      std::string out;
      AppendValueJson(v, type, &out);
      return out;
    }
  }
  return "";
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void AppendValueJson(const Value& v, const DataType& type, std::string* out) {
  if (v.is_null()) {
    out->append("null");
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal:
      out->append(FormatValueText(v, type));
      return;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.double_value();
      if (std::isfinite(d)) {
        out->append(FormatValueText(v, type));
      } else {
        AppendJsonString(FormatValueText(v, type), out);
      }
      return;
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendJsonString(FormatValueText(v, type), out);
      return;
    case TypeId::kStruct: {
      out->push_back('{');
      const auto& c = v.children();
      for (size_t i = 0; i < type.fields().size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(type.fields()[i].name, out);
        out->push_back(':');
        AppendValueJson(i < c.size() ? c[i] : Value::Null(), *type.fields()[i].type, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {
      out->push_back('[');
      const auto& c = v.children();
      for (size_t i = 0; i < c.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendValueJson(c[i], *type.fields()[0].type, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      // JSON objects need string keys; a map is written as an object with the key's text.
      out->push_back('{');
      const auto& c = v.children();
      for (size_t i = 0; i < c.size(); ++i) {
        if (i > 0) out->push_back(',');
        const Value& key = c[i].children()[0];
        AppendJsonString(key.is_null() ? "null" : FormatValueText(key, *type.fields()[0].type),
                         out);
        out->push_back(':');
        AppendValueJson(c[i].children()[1], *type.fields()[1].type, out);
      }
      out->push_back('}');
      return;
    }
  }
}

std::string CsvField(const Value& v, const DataType& type) {
  if (v.is_null()) return "";
  std::string text = FormatValueText(v, type);
  bool quote = text.empty() || text.find_first_of(",\"\r\n") != std::string::npos;
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace cdclake::data
