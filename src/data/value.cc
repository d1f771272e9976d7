// Value equality and debug printing.
#include "data/value.h"

#include <bit>
#include <cstdint>

#include "data/decimal.h"

namespace cdclake::data {

bool Value::operator==(const Value& other) const {
  if (rep_.index() != other.rep_.index()) return false;
  if (is_double()) {
    double a = double_value();
    double b = other.double_value();
    if (a != a && b != b) return true;  // NaN == NaN
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  }
  return rep_ == other.rep_;
}

std::string Value::DebugString() const {
  if (is_null()) return "NULL";
  if (is_bool()) return bool_value() ? "true" : "false";
  if (is_int()) return std::to_string(int_value());
  if (is_double()) return std::to_string(double_value());
  if (is_decimal()) return Int128ToString(decimal_value());
  if (is_bytes()) return "'" + bytes() + "'";
  std::string out = "[";
  const Children& c = children();
  for (size_t i = 0; i < c.size(); ++i) {
    if (i > 0) out += ", ";
    out += c[i].DebugString();
  }
  return out + "]";
}

}  // namespace cdclake::data
