// Value: one scalar or nested value, untyped (its DataType travels beside it). Used where code
// works row by row: tests, printing, conditions, statistics. Columns are the bulk form.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cdclake::data {

using Int128 = __int128;

/// Holds: null; bool; int64 (every integer type, dates as days, timestamps as micros); double
/// (float and double); Int128 (a decimal's unscaled value); bytes (string and binary); or a
/// vector of children (struct members in order, list elements, or map entries as 2-member
/// structs).
class Value {
 public:
  using Children = std::vector<Value>;

  Value() = default;
  static Value Null() { return Value(); }
  static Value Bool(bool v) { return Value(Rep(v)); }
  static Value Int(int64_t v) { return Value(Rep(v)); }
  static Value Double(double v) { return Value(Rep(v)); }
  static Value Decimal(Int128 unscaled) { return Value(Rep(unscaled)); }
  static Value Bytes(std::string v) { return Value(Rep(std::move(v))); }
  static Value Nested(Children children) { return Value(Rep(std::move(children))); }

  bool is_null() const { return std::holds_alternative<std::monostate>(rep_); }
  bool is_bool() const { return std::holds_alternative<bool>(rep_); }
  bool is_int() const { return std::holds_alternative<int64_t>(rep_); }
  bool is_double() const { return std::holds_alternative<double>(rep_); }
  bool is_decimal() const { return std::holds_alternative<Int128>(rep_); }
  bool is_bytes() const { return std::holds_alternative<std::string>(rep_); }
  bool is_nested() const { return std::holds_alternative<Children>(rep_); }

  // REQUIRES: the matching is_*().
  bool bool_value() const { return std::get<bool>(rep_); }
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  Int128 decimal_value() const { return std::get<Int128>(rep_); }
  const std::string& bytes() const { return std::get<std::string>(rep_); }
  const Children& children() const { return std::get<Children>(rep_); }

  /// Exact equality; doubles compare by bits, so NaN equals NaN and -0.0 differs from 0.0.
  bool operator==(const Value& other) const;

  /// A debugging spelling (not the CSV contract; see value_format.h).
  std::string DebugString() const;

 private:
  using Rep = std::variant<std::monostate, bool, int64_t, double, Int128, std::string, Children>;
  explicit Value(Rep rep) : rep_(std::move(rep)) {}
  Rep rep_;
};

}  // namespace cdclake::data
