// Cell conversion: text and JSON values to typed cells, and the reasons for the ones that fail.
#include "sources/files/cell_conversion_internal.h"

#include <charconv>
#include <limits>
#include <system_error>
#include <vector>

#include "data/decimal.h"
#include "data/value_format.h"

namespace cdclake::sources::internal {

namespace {

using data::DataType;
using data::TypeId;
using data::TypePtr;
using data::Value;
using Problem = ConversionError::Problem;

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;
constexpr size_t kMaxTextInReason = 80;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view lower_b) {
  if (a.size() != lower_b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != lower_b[i]) return false;
  }
  return true;
}

// Exactly `count` digits at `*pos`.
bool ReadFixedDigits(std::string_view s, size_t* pos, int count, int* out) {
  if (*pos + static_cast<size_t>(count) > s.size()) return false;
  int v = 0;
  for (int k = 0; k < count; ++k) {
    char c = s[*pos + static_cast<size_t>(k)];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += static_cast<size_t>(count);
  *out = v;
  return true;
}

bool IsLeapYear(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

bool ParseDateAt(std::string_view s, size_t* pos, int64_t* days) {
  int year, month, day;
  if (!ReadFixedDigits(s, pos, 4, &year)) return false;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadFixedDigits(s, pos, 2, &month)) return false;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadFixedDigits(s, pos, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  *days = data::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return true;
}

bool Fail(ConversionError* error, Problem problem, std::string_view text, const TypePtr& type) {
  error->problem = problem;
  error->path.clear();
  error->text.assign(text);
  error->type = type;
  error->detail = nullptr;
  return false;
}

bool ParseIntegerCell(std::string_view text, const TypePtr& type, StagedCell* cell,
                      ConversionError* error) {
  int64_t v = 0;
  IntParse parsed = ParseInt64(text, &v);
  if (parsed == IntParse::kNotInteger) return Fail(error, Problem::kNotType, text, type);
  if (parsed == IntParse::kOverflow) return Fail(error, Problem::kOutOfRange, text, type);
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  switch (type->id()) {
    case TypeId::kInt8:
      lo = std::numeric_limits<int8_t>::min();
      hi = std::numeric_limits<int8_t>::max();
      break;
    case TypeId::kInt16:
      lo = std::numeric_limits<int16_t>::min();
      hi = std::numeric_limits<int16_t>::max();
      break;
    case TypeId::kInt32:
      lo = std::numeric_limits<int32_t>::min();
      hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      break;
  }
  if (v < lo || v > hi) return Fail(error, Problem::kOutOfRange, text, type);
  cell->kind = StagedCell::Kind::kInt;
  cell->i = v;
  return true;
}

template <typename T>
bool ParseFloatingCell(std::string_view text, const TypePtr& type, StagedCell* cell,
                       ConversionError* error) {
  std::string_view t = text;
  if (!t.empty() && t[0] == '+') {
    t.remove_prefix(1);
    if (!t.empty() && t[0] == '-') return Fail(error, Problem::kNotType, text, type);
  }
  T v{};
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) return Fail(error, Problem::kOutOfRange, text, type);
  if (ec != std::errc() || end != t.data() + t.size()) {
    return Fail(error, Problem::kNotType, text, type);
  }
  cell->kind = StagedCell::Kind::kDouble;
  cell->d = static_cast<double>(v);
  return true;
}

bool LooksNumeric(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < text.size() && IsDigit(text[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == text.size();
}

// Plain decimal text ("-12.30") of at most 18 digits, converted without ParseDecimal's
// general (and slower) path. False when the text needs that path: exponents, more fraction
// digits than `scale`, long numbers, or anything that is not plain.
bool FastPlainDecimal(std::string_view text, int precision, int scale, data::Int128* out) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  int64_t unscaled = 0;
  int digits = 0;
  int fraction = 0;
  bool point = false;
  for (; i < n; ++i) {
    char c = text[i];
    if (IsDigit(c)) {
      if (++digits > 18) return false;
      unscaled = unscaled * 10 + (c - '0');
      fraction += point ? 1 : 0;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (digits == 0 || fraction > scale) return false;
  data::Int128 v = static_cast<data::Int128>(unscaled) * data::PowerOfTen(scale - fraction);
  if (!data::FitsPrecision(v, precision)) return false;
  *out = negative ? -v : v;
  return true;
}

Value CellToValue(StagedCell& cell, const DataType& type) {
  switch (cell.kind) {
    case StagedCell::Kind::kNull:
      return Value::Null();
    case StagedCell::Kind::kInt:
      return type.id() == TypeId::kBoolean ? Value::Bool(cell.i != 0) : Value::Int(cell.i);
    case StagedCell::Kind::kDouble:
      return Value::Double(cell.d);
    case StagedCell::Kind::kDecimal:
      return Value::Decimal(cell.dec);
    case StagedCell::Kind::kBytes:
      return Value::Bytes(std::string(cell.bytes));
    case StagedCell::Kind::kValue:
      return std::move(cell.value);
  }
  return Value::Null();
}

int FindMember(const std::vector<data::Field>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i].name;
    if (f.size() != name.size()) continue;
    bool same = true;
    for (size_t k = 0; k < f.size() && same; ++k) same = Lower(f[k]) == Lower(name[k]);
    if (same) return static_cast<int>(i);
  }
  return -1;
}

bool JsonToValue(const JsonValue& json, const TypePtr& type, ScratchArena* arena, Value* out,
                 ConversionError* error);

// A JSON object or array (already validated) walked into a nested value of `type`.
bool NestedJsonToValue(const JsonValue& json, const TypePtr& type, ScratchArena* arena, Value* out,
                       ConversionError* error) {
  const bool object = json.kind == JsonKind::kObject;
  const TypeId id = type->id();
  if ((id == TypeId::kList && object) || (id != TypeId::kList && !object) ||
      (json.kind != JsonKind::kObject && json.kind != JsonKind::kArray)) {
    return Fail(error, Problem::kNotType, json.text, type);
  }
  JsonScanner scanner(json.text, arena);
  auto bad_json = [&]() {
    Fail(error, Problem::kBadJson, json.text, type);
    error->detail = scanner.error();
    return false;
  };
  Value::Children children;
  if (id == TypeId::kStruct) {
    children.resize(type->fields().size());
    if (!scanner.EnterObject()) return bad_json();
    std::string_view name;
    for (;;) {
      JsonScanner::Step step = scanner.NextMember(&name);
      if (step == JsonScanner::Step::kEnd) break;
      JsonValue member;
      if (step == JsonScanner::Step::kError || !scanner.ReadValue(&member)) return bad_json();
      int index = FindMember(type->fields(), name);
      if (index < 0) continue;  // a member the struct type does not have
      if (!JsonToValue(member, type->fields()[static_cast<size_t>(index)].type, arena,
                       &children[static_cast<size_t>(index)], error)) {
        error->path.insert(0, "." + std::string(name));
        return false;
      }
    }
  } else if (id == TypeId::kList) {
    if (!scanner.EnterArray()) return bad_json();
    for (;;) {
      JsonScanner::Step step = scanner.NextElement();
      if (step == JsonScanner::Step::kEnd) break;
      JsonValue element;
      if (step == JsonScanner::Step::kError || !scanner.ReadValue(&element)) return bad_json();
      children.emplace_back();
      if (!JsonToValue(element, type->fields()[0].type, arena, &children.back(), error)) {
        error->path.insert(0, "[" + std::to_string(children.size() - 1) + "]");
        return false;
      }
    }
  } else {  // map: member names are the keys
    if (!scanner.EnterObject()) return bad_json();
    std::string_view name;
    for (;;) {
      JsonScanner::Step step = scanner.NextMember(&name);
      if (step == JsonScanner::Step::kEnd) break;
      JsonValue member;
      if (step == JsonScanner::Step::kError || !scanner.ReadValue(&member)) return bad_json();
      StagedCell key_cell;
      if (!ConvertText(name, type->fields()[0].type, arena, &key_cell, error)) {
        error->path.insert(0, "." + std::string(name));
        return false;
      }
      Value::Children entry(2);
      entry[0] = CellToValue(key_cell, *type->fields()[0].type);
      if (!JsonToValue(member, type->fields()[1].type, arena, &entry[1], error)) {
        error->path.insert(0, "." + std::string(name));
        return false;
      }
      children.push_back(Value::Nested(std::move(entry)));
    }
  }
  *out = Value::Nested(std::move(children));
  return true;
}

bool JsonToValue(const JsonValue& json, const TypePtr& type, ScratchArena* arena, Value* out,
                 ConversionError* error) {
  if (json.kind == JsonKind::kNull) {
    *out = Value::Null();
    return true;
  }
  if (type->is_nested()) return NestedJsonToValue(json, type, arena, out, error);
  StagedCell cell;
  if (!ConvertJson(json, type, arena, &cell, error)) return false;
  *out = CellToValue(cell, *type);
  return true;
}

std::string TypeName(const DataType& type) {
  std::string name = type.ToString();
  if (!type.is_nested()) {
    for (char& c : name) c = c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return name;
}

std::string Quoted(std::string_view text) {
  if (text.size() > kMaxTextInReason) {
    size_t cut = kMaxTextInReason - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return "'" + std::string(text.substr(0, cut)) + "...'";
  }
  return "'" + std::string(text) + "'";
}

}  // namespace

std::string ConversionError::Describe(std::string_view column) const {
  std::string out = "column '" + std::string(column) + path + "': " + Quoted(text) + " ";
  std::string name = type == nullptr ? "?" : TypeName(*type);
  switch (problem) {
    case Problem::kNotType: {
      char first = name.empty() ? ' ' : Lower(name[0]);
      bool vowel = first == 'a' || first == 'e' || first == 'i' || first == 'o' || first == 'u';
      return out + "is not " + (vowel ? "an " : "a ") + name;
    }
    case Problem::kOutOfRange:
      return out + "is out of range for " + name;
    case Problem::kDoesNotFit:
      return out + "does not fit " + name;
    case Problem::kHasTimeZone:
      return out + "is not a " + name + " (it has a time zone)";
    case Problem::kBadJson:
      return out + "is not valid JSON for " + name + " (" + (detail ? detail : "invalid") + ")";
  }
  return out;
}

IntParse ParseInt64(std::string_view text, int64_t* out) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == n) return IntParse::kNotInteger;
  uint64_t acc = 0;
  bool overflow = false;
  for (; i < n; ++i) {
    char c = text[i];
    if (!IsDigit(c)) return IntParse::kNotInteger;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (acc > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      overflow = true;
    } else {
      acc = acc * 10 + d;
    }
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (overflow || acc > limit) return IntParse::kOverflow;
  *out = negative ? static_cast<int64_t>(uint64_t{0} - acc) : static_cast<int64_t>(acc);
  return IntParse::kOk;
}

bool IsPlainDecimal(std::string_view text, int* integer_digits, int* fraction_digits,
                    bool* has_point) {
  size_t i = 0;
  const size_t n = text.size();
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  while (i < n && text[i] == '0') ++i;
  size_t leading_zeros_end = i;
  while (i < n && IsDigit(text[i])) ++i;
  int int_digits = static_cast<int>(i - leading_zeros_end);
  bool any_digit = i > 0 && IsDigit(text[i - 1]);
  int frac = 0;
  bool point = false;
  if (i < n && text[i] == '.') {
    point = true;
    ++i;
    size_t start = i;
    while (i < n && IsDigit(text[i])) ++i;
    frac = static_cast<int>(i - start);
    any_digit = any_digit || frac > 0;
  }
  if (i != n || !any_digit) return false;
  *integer_digits = int_digits;
  *fraction_digits = frac;
  *has_point = point;
  return true;
}

bool ParseDateText(std::string_view text, int64_t* days) {
  size_t pos = 0;
  return ParseDateAt(text, &pos, days) && pos == text.size();
}

bool ParseTimestampText(std::string_view text, int64_t* micros, bool* has_zone) {
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDateAt(text, &pos, &days)) return false;
  *has_zone = false;
  int64_t result = days * kMicrosPerDay;
  if (pos == text.size()) {
    *micros = result;
    return true;
  }
  char sep = text[pos++];
  if (sep != ' ' && sep != 'T' && sep != 't') return false;
  int hour, minute, second = 0;
  if (!ReadFixedDigits(text, &pos, 2, &hour)) return false;
  if (pos >= text.size() || text[pos] != ':') return false;
  ++pos;
  if (!ReadFixedDigits(text, &pos, 2, &minute)) return false;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!ReadFixedDigits(text, &pos, 2, &second)) return false;
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  int64_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && IsDigit(text[pos])) {
      if (digits < 6) fraction = fraction * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (int k = digits; k < 6; ++k) fraction *= 10;
  }
  result += ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + fraction;
  if (pos < text.size()) {
    char z = text[pos];
    if (z == 'Z' || z == 'z') {
      ++pos;
    } else if (z == '+' || z == '-') {
      ++pos;
      int oh, om = 0;
      if (!ReadFixedDigits(text, &pos, 2, &oh)) return false;
      bool colon = pos < text.size() && text[pos] == ':';
      if (colon) ++pos;
      if ((colon || pos < text.size()) && !ReadFixedDigits(text, &pos, 2, &om)) return false;
      if (oh > 18 || om > 59) return false;
      int64_t offset = (oh * 60 + om) * 60 * kMicrosPerSecond;
      result += z == '+' ? -offset : offset;
    } else {
      return false;
    }
    *has_zone = true;
  }
  if (pos != text.size()) return false;
  *micros = result;
  return true;
}

bool ConvertText(std::string_view text, const TypePtr& type, ScratchArena* arena, StagedCell* cell,
                 ConversionError* error) {
  switch (type->id()) {
    case TypeId::kBoolean:
      if (EqualsIgnoreCase(text, "true")) {
        cell->i = 1;
      } else if (EqualsIgnoreCase(text, "false")) {
        cell->i = 0;
      } else {
        return Fail(error, Problem::kNotType, text, type);
      }
      cell->kind = StagedCell::Kind::kInt;
      return true;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return ParseIntegerCell(text, type, cell, error);
    case TypeId::kFloat:
      return ParseFloatingCell<float>(text, type, cell, error);
    case TypeId::kDouble:
      return ParseFloatingCell<double>(text, type, cell, error);
    case TypeId::kDecimal: {
      if (FastPlainDecimal(text, type->precision(), type->scale(), &cell->dec)) {
        cell->kind = StagedCell::Kind::kDecimal;
        return true;
      }
      Result<data::Int128> v = data::ParseDecimal(text, type->precision(), type->scale());
      if (!v.ok()) {
        return Fail(error, LooksNumeric(text) ? Problem::kDoesNotFit : Problem::kNotType, text,
                    type);
      }
      cell->kind = StagedCell::Kind::kDecimal;
      cell->dec = *v;
      return true;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      cell->kind = StagedCell::Kind::kBytes;
      cell->bytes = text;
      return true;
    case TypeId::kDate: {
      int64_t days = 0;
      if (!ParseDateText(text, &days)) return Fail(error, Problem::kNotType, text, type);
      cell->kind = StagedCell::Kind::kInt;
      cell->i = days;
      return true;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      int64_t micros = 0;
      bool has_zone = false;
      if (!ParseTimestampText(text, &micros, &has_zone)) {
        return Fail(error, Problem::kNotType, text, type);
      }
      if (has_zone && type->id() == TypeId::kTimestampNtz) {
        return Fail(error, Problem::kHasTimeZone, text, type);
      }
      cell->kind = StagedCell::Kind::kInt;
      cell->i = micros;
      return true;
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      JsonScanner scanner(text, arena);
      JsonValue json;
      if (!scanner.ReadValue(&json) || !scanner.AtEnd()) {
        Fail(error, Problem::kBadJson, text, type);
        error->detail = scanner.error();
        return false;
      }
      if (json.kind == JsonKind::kNull) {
        cell->SetNull();
        return true;
      }
      Value value;
      if (!NestedJsonToValue(json, type, arena, &value, error)) return false;
      cell->kind = StagedCell::Kind::kValue;
      cell->value = std::move(value);
      return true;
    }
  }
  return Fail(error, Problem::kNotType, text, type);
}

bool ConvertJson(const JsonValue& value, const TypePtr& type, ScratchArena* arena, StagedCell* cell,
                 ConversionError* error) {
  if (value.kind == JsonKind::kNull) {
    cell->SetNull();
    return true;
  }
  switch (type->id()) {
    case TypeId::kString:
      cell->kind = StagedCell::Kind::kBytes;
      cell->bytes = value.text;
      return true;
    case TypeId::kBinary:
      if (value.kind != JsonKind::kString) break;
      cell->kind = StagedCell::Kind::kBytes;
      cell->bytes = value.text;
      return true;
    case TypeId::kBoolean:
      if (value.kind == JsonKind::kBool) {
        cell->kind = StagedCell::Kind::kInt;
        cell->i = value.bool_value ? 1 : 0;
        return true;
      }
      if (value.kind != JsonKind::kString) break;
      return ConvertText(value.text, type, arena, cell, error);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      if (value.kind != JsonKind::kNumber && value.kind != JsonKind::kString) break;
      return ConvertText(value.text, type, arena, cell, error);
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      if (value.kind != JsonKind::kString) break;
      return ConvertText(value.text, type, arena, cell, error);
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      Value nested;
      if (!NestedJsonToValue(value, type, arena, &nested, error)) return false;
      cell->kind = StagedCell::Kind::kValue;
      cell->value = std::move(nested);
      return true;
    }
  }
  return Fail(error, Problem::kNotType, value.text, type);
}

void AppendCell(const StagedCell& cell, data::Column* column) {
  if (cell.kind == StagedCell::Kind::kNull) {
    column->AppendNull();
    return;
  }
  switch (column->type()->id()) {
    case TypeId::kBoolean:
      column->Append<uint8_t>(cell.i != 0 ? 1 : 0);
      return;
    case TypeId::kInt8:
      column->Append<int8_t>(static_cast<int8_t>(cell.i));
      return;
    case TypeId::kInt16:
      column->Append<int16_t>(static_cast<int16_t>(cell.i));
      return;
    case TypeId::kInt32:
    case TypeId::kDate:
      column->Append<int32_t>(static_cast<int32_t>(cell.i));
      return;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      column->Append<int64_t>(cell.i);
      return;
    case TypeId::kFloat:
      column->Append<float>(static_cast<float>(cell.d));
      return;
    case TypeId::kDouble:
      column->Append<double>(cell.d);
      return;
    case TypeId::kDecimal:
      column->Append<data::Int128>(cell.dec);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      column->AppendBytes(cell.bytes);
      return;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      column->AppendValue(cell.value);
      return;
  }
}

}  // namespace cdclake::sources::internal
