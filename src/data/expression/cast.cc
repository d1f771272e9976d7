// CAST between primitive types as Spark's non-ANSI mode does it, except that a value out of
// the target's range becomes NULL instead of wrapping; also decimal rescaling with rounding.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "base/strings.h"
#include "data/decimal.h"
#include "data/expression/expression_internal.h"
#include "data/value_format.h"

namespace cdclake::data::internal {

namespace {

std::string_view TrimSpaces(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Java's Double.toString / Float.toString shapes: "1.0", "0.001", "1.0E7", "1.5E-4".
template <typename F>
std::string FloatingText(F d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  F mag = std::fabs(d);
  if (d == 0 || (mag >= F(1e-3) && mag < F(1e7))) {
    auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  std::string exponent = s.substr(e + 1);
  bool negative = !exponent.empty() && exponent[0] == '-';
  size_t digits = exponent.find_first_not_of("+-0");
  exponent = digits == std::string::npos ? "0" : exponent.substr(digits);
  return mantissa + "E" + (negative ? "-" : "") + exponent;
}

// "YYYY-MM-DD HH:MM:SS[.fraction without trailing zeros]".
std::string TimestampText(int64_t micros) {
  std::string s = FormatTimestamp(micros, false);
  size_t point = s.rfind('.');
  if (point != std::string::npos && point > 10) {
    size_t end = s.find_last_not_of('0');
    s.erase(end == point ? point : end + 1);
  }
  return s;
}

std::string Text(const Value& v, const DataType& from) {
  switch (from.id()) {
    case TypeId::kBoolean:
      return v.bool_value() ? "true" : "false";
    case TypeId::kFloat:
      return FloatingText(static_cast<float>(v.double_value()));
    case TypeId::kDouble:
      return FloatingText(v.double_value());
    case TypeId::kDecimal:
      return FormatDecimal(v.decimal_value(), from.scale());
    case TypeId::kString:
    case TypeId::kBinary:
      return v.bytes();
    case TypeId::kDate:
      return FormatDate(v.int_value());
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return TimestampText(v.int_value());
    default:
      if (v.is_int()) return std::to_string(v.int_value());
      return FormatValueText(v, from);
  }
}

// Spark's string to integral: optional sign, digits, and an optional fraction that is dropped.
std::optional<Int128> ParseIntegral(std::string_view s) {
  s = TrimSpaces(s);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t point = s.find('.');
  std::string_view whole = s.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? "" : s.substr(point + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  for (char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  Int128 v = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > std::numeric_limits<int64_t>::max()) v = Int128(1) << 100;  // out of every range
  }
  return negative ? -v : v;
}

std::optional<double> ParseFloating(std::string_view s) {
  s = TrimSpaces(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  std::string lower = ToLower(s);
  if (lower == "nan") return std::nan("");
  if (lower == "infinity" || lower == "inf") return std::numeric_limits<double>::infinity();
  if (lower == "-infinity" || lower == "-inf") return -std::numeric_limits<double>::infinity();
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return d;
}

// The decimal text at scale `scale`, rounded half up; nullopt when it is not a number.
std::optional<Int128> ParseDecimalText(std::string_view s, int scale) {
  s = TrimSpaces(s);
  size_t point = s.find('.');
  size_t exp = s.find_first_of("eE");
  int fraction = 0;
  if (point != std::string_view::npos) {
    fraction = static_cast<int>((exp == std::string_view::npos ? s.size() : exp) - point - 1);
  }
  int parse_scale = std::min(38, std::max(scale, fraction));
  Result<Int128> v = ParseDecimal(s, 38, parse_scale);
  if (!v.ok()) return std::nullopt;
  Int128 out;
  if (!Rescale(*v, parse_scale, scale, &out)) return std::nullopt;
  return out;
}

bool IntegerFits(Int128 v, TypeId to) {
  switch (to) {
    case TypeId::kInt8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case TypeId::kInt16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case TypeId::kInt32:
      return v >= INT32_MIN && v <= INT32_MAX;
    default:
      return v >= INT64_MIN && v <= INT64_MAX;
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Any numeric, boolean or timestamp value as a double (timestamps in seconds).
double AsDouble(const Value& v, const DataType& from) {
  if (v.is_bool()) return v.bool_value() ? 1 : 0;
  if (v.is_double()) return v.double_value();
  if (v.is_decimal()) {
    return static_cast<double>(v.decimal_value()) / std::pow(10.0, from.scale());
  }
  if (CategoryOf(&from) == Category::kTime) return static_cast<double>(v.int_value()) / 1e6;
  return static_cast<double>(v.int_value());
}

Value ToIntegral(const Value& v, const DataType& from, TypeId to) {
  std::optional<Int128> i;
  switch (CategoryOf(&from)) {
    case Category::kBoolean:
      i = v.bool_value() ? 1 : 0;
      break;
    case Category::kInteger:
      i = v.int_value();
      break;
    case Category::kDecimal:
      i = v.decimal_value() / PowerOfTen(from.scale());  // truncates toward zero
      break;
    case Category::kFloating: {
      double d = std::trunc(v.double_value());
      if (std::isnan(d) || std::fabs(d) > 1e19) return Value::Null();
      i = static_cast<Int128>(d);
      break;
    }
    case Category::kTime:
      i = FloorDiv(v.int_value(), kMicrosPerSecond);
      break;
    case Category::kString:
      i = ParseIntegral(v.bytes());
      break;
    default:
      break;
  }
  if (!i || !IntegerFits(*i, to)) return Value::Null();
  return Value::Int(static_cast<int64_t>(*i));
}

Value ToDecimal(const Value& v, const DataType& from, const DataType& to) {
  int scale = to.scale();
  std::optional<Int128> out;
  switch (CategoryOf(&from)) {
    case Category::kBoolean:
    case Category::kInteger: {
      Int128 i = v.is_bool() ? (v.bool_value() ? 1 : 0) : v.int_value();
      Int128 scaled;
      if (Rescale(i, 0, scale, &scaled)) out = scaled;
      break;
    }
    case Category::kDecimal: {
      Int128 scaled;
      if (Rescale(v.decimal_value(), from.scale(), scale, &scaled)) out = scaled;
      break;
    }
    case Category::kFloating:
    case Category::kTime: {
      long double d = static_cast<long double>(AsDouble(v, from)) * std::pow(10.0L, scale);
      if (std::isnan(d) || std::fabs(d) >= 1e38L) return Value::Null();
      out = static_cast<Int128>(std::round(d));
      break;
    }
    case Category::kString:
      out = ParseDecimalText(v.bytes(), scale);
      break;
    default:
      break;
  }
  if (!out || !FitsPrecision(*out, to.precision())) return Value::Null();
  return Value::Decimal(*out);
}

Value ToBoolean(const Value& v, const DataType& from) {
  if (from.id() == TypeId::kString) {
    std::string s = ToLower(TrimSpaces(v.bytes()));
    if (s == "t" || s == "true" || s == "y" || s == "yes" || s == "1") return Value::Bool(true);
    if (s == "f" || s == "false" || s == "n" || s == "no" || s == "0") return Value::Bool(false);
    return Value::Null();
  }
  if (v.is_decimal()) return Value::Bool(v.decimal_value() != 0);
  if (v.is_double()) return Value::Bool(v.double_value() != 0);
  if (v.is_bool()) return v;
  return Value::Bool(v.int_value() != 0);
}

Value ToDate(const Value& v, const DataType& from) {
  switch (from.id()) {
    case TypeId::kString: {
      Result<int64_t> days = ParseDateLiteral(TrimSpaces(v.bytes()));
      return days.ok() ? Value::Int(*days) : Value::Null();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return Value::Int(FloorDiv(v.int_value(), kMicrosPerDay));
    default:
      return v;
  }
}

Value ToTimestamp(const Value& v, const DataType& from, const DataType& to) {
  switch (CategoryOf(&from)) {
    case Category::kString: {
      Result<int64_t> micros =
          ParseTimestampLiteral(TrimSpaces(v.bytes()), to.id() == TypeId::kTimestamp);
      return micros.ok() ? Value::Int(*micros) : Value::Null();
    }
    case Category::kDate:
      return Value::Int(v.int_value() * kMicrosPerDay);
    case Category::kTime:
      return v;
    case Category::kInteger: {
      int64_t micros;
      if (__builtin_mul_overflow(v.int_value(), kMicrosPerSecond, &micros)) return Value::Null();
      return Value::Int(micros);
    }
    default: {
      double d = AsDouble(v, from) * 1e6;
      if (std::isnan(d) || std::fabs(d) >= 9.2e18) return Value::Null();
      return Value::Int(static_cast<int64_t>(std::floor(d)));
    }
  }
}

}  // namespace

bool Rescale(Int128 v, int from, int to, Int128* out) {
  if (to >= from) return !__builtin_mul_overflow(v, PowerOfTen(to - from), out);
  Int128 divisor = PowerOfTen(from - to);
  Int128 q = v / divisor;
  Int128 r = v % divisor;
  if (r < 0) r = -r;
  if (r >= divisor - r) q += v < 0 ? -1 : 1;
  *out = q;
  return true;
}

Value CastValue(const Value& v, const DataType& from, const DataType& to) {
  if (v.is_null() || from.Equals(to)) return v;
  switch (to.id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return Value::Bytes(Text(v, from));
    case TypeId::kBoolean:
      return ToBoolean(v, from);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return ToIntegral(v, from, to.id());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (from.id() == TypeId::kString) {
        std::optional<double> d = ParseFloating(v.bytes());
        if (!d) return Value::Null();
        return Value::Double(to.id() == TypeId::kFloat ? static_cast<float>(*d) : *d);
      }
      double d = AsDouble(v, from);
      return Value::Double(to.id() == TypeId::kFloat ? static_cast<float>(d) : d);
    }
    case TypeId::kDecimal:
      return ToDecimal(v, from, to);
    case TypeId::kDate:
      return ToDate(v, from);
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return ToTimestamp(v, from, to);
    default:
      return Value::Null();
  }
}

namespace {

void AppendIntegral(TypeId to, int64_t v, Column* out) {
  switch (to) {
    case TypeId::kInt8:
      out->Append<int8_t>(static_cast<int8_t>(v));
      break;
    case TypeId::kInt16:
      out->Append<int16_t>(static_cast<int16_t>(v));
      break;
    case TypeId::kInt32:
      out->Append<int32_t>(static_cast<int32_t>(v));
      break;
    default:
      out->Append<int64_t>(v);
      break;
  }
}

// The common casts of declared columns (text or integers to integers or floating point)
// slot by slot, without a Value per row; false when `c` and `to` take the general path.
bool CastColumnFast(const Column& c, const DataType& to, Column* out) {
  const TypeId from = c.type()->id();
  const bool from_integer = IntegerRank(from) > 0, from_string = from == TypeId::kString;
  if (!from_integer && !from_string) return false;
  const int64_t n = c.length();
  if (IntegerRank(to.id()) > 0) {
    for (int64_t i = 0; i < n; ++i) {
      std::optional<Int128> v;
      if (c.IsValid(i)) v = from_integer ? Int128(c.IntegerAt(i)) : ParseIntegral(c.StringAt(i));
      if (!v || !IntegerFits(*v, to.id())) {
        out->AppendNull();
      } else {
        AppendIntegral(to.id(), static_cast<int64_t>(*v), out);
      }
    }
    return true;
  }
  if (to.id() == TypeId::kDouble || to.id() == TypeId::kFloat) {
    for (int64_t i = 0; i < n; ++i) {
      std::optional<double> d;
      if (c.IsValid(i)) {
        d = from_integer ? std::optional<double>(static_cast<double>(c.IntegerAt(i)))
                         : ParseFloating(c.StringAt(i));
      }
      if (!d) {
        out->AppendNull();
      } else if (to.id() == TypeId::kFloat) {
        out->Append<float>(static_cast<float>(*d));
      } else {
        out->Append<double>(*d);
      }
    }
    return true;
  }
  return false;
}

}  // namespace

Column CastColumn(const Column& c, const TypePtr& to) {
  if (c.type()->Equals(*to)) return c;
  Column out(to);
  int64_t n = c.length();
  out.Reserve(n);
  if (CastColumnFast(c, *to, &out)) return out;
  for (int64_t i = 0; i < n; ++i) {
    if (c.IsNull(i)) {
      out.AppendNull();
    } else {
      out.AppendValue(CastValue(c.GetValue(i), *c.type(), *to));
    }
  }
  return out;
}

}  // namespace cdclake::data::internal

namespace cdclake::data {

Result<Column> CastColumnAs(const Column& column, const TypePtr& to) {
  if (!internal::CanCast(*column.type(), *to)) {
    return Status::InvalidArgument("a " + column.type()->ToString() + " cannot be cast to " +
                                   to->ToString());
  }
  return internal::CastColumn(column, to);
}

}  // namespace cdclake::data
