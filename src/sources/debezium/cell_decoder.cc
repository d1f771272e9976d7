// Debezium cell decoding: Connect logical types (decimals, temporal units), base64, and the
// unchanged-TOAST placeholder shapes.
#include "sources/debezium/cell_decoder_internal.h"

#include <cstring>
#include <limits>

#include "data/decimal.h"

namespace cdclake::sources::internal {

namespace {

using data::Int128;
using data::TypeId;
using Problem = ConversionError::Problem;

constexpr std::string_view kPlaceholder = "__debezium_unavailable_value";
constexpr std::string_view kPlaceholderBase64 = "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==";
// UUID.nameUUIDFromBytes of the placeholder's bytes (uuid[] columns).
constexpr std::string_view kPlaceholderUuid = "b68a35a7-17ad-35b3-af2a-ae46edb4545a";
constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

bool Fail(ConversionError* error, Problem problem, std::string_view text,
          const data::TypePtr& type) {
  error->problem = problem;
  error->path.clear();
  error->text.assign(text);
  error->type = type;
  error->detail = nullptr;
  return false;
}

int Base64Digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Decodes into `out` (room for text.size() * 3 / 4 + 3 bytes); the decoded length or -1.
int64_t DecodeBase64Into(std::string_view text, char* out) {
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '=') --n;
  if (text.size() - n > 2 || n % 4 == 1) return -1;
  if (text.size() != n && text.size() % 4 != 0) return -1;  // padding only on full quads
  size_t w = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    int d = Base64Digit(text[i]);
    if (d < 0) return -1;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[w++] = static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return static_cast<int64_t>(w);
}

// An integer JSON number or numeric string.
bool ReadInteger(const JsonValue& value, int64_t* out) {
  if (value.kind != JsonKind::kNumber && value.kind != JsonKind::kString) return false;
  return ParseInteger(value.text, out) == IntParse::kOk;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool SetInt(int64_t v, StagedCell* cell) {
  cell->kind = StagedCell::Kind::kInt;
  cell->i = v;
  return true;
}

bool SetDecimal(Int128 v, StagedCell* cell) {
  cell->kind = StagedCell::Kind::kDecimal;
  cell->dec = v;
  return true;
}

// An unscaled base64 value at `scale` into a DECIMAL of `type`. Empty bytes are refused (Java's
// BigInteger has no zero-length form).
bool DecimalFromBase64(std::string_view text, int scale, const data::TypePtr& type,
                       ScratchArena* arena, StagedCell* cell, ConversionError* error) {
  std::string_view bytes;
  if (!DecodeBase64(text, arena, &bytes) || bytes.empty()) {
    return Fail(error, Problem::kNotType, text, type);
  }
  Int128 unscaled = 0;
  Int128 v = 0;
  if (!TwosComplementToInt128(bytes, &unscaled) ||
      !Rescale(unscaled, scale, type->scale(), type->precision(), &v)) {
    return Fail(error, Problem::kDoesNotFit, text, type);
  }
  return SetDecimal(v, cell);
}

bool IsBase64(std::string_view text) {
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '=') --n;
  if (n == 0 || text.size() - n > 2 || n % 4 == 1) return false;
  if (text.size() != n && text.size() % 4 != 0) return false;
  for (size_t i = 0; i < n; ++i) {
    if (Base64Digit(text[i]) < 0) return false;
  }
  return true;
}

// Connect Decimal: base64 first (the literal type is bytes), else a number or decimal text.
bool DecodeDecimal(const JsonValue& value, const data::TypePtr& type, ScratchArena* arena,
                   StagedCell* cell, ConversionError* error) {
  if (value.kind == JsonKind::kString && IsBase64(value.text)) {
    return DecimalFromBase64(value.text, type->scale(), type, arena, cell, error);
  }
  if (value.kind == JsonKind::kNumber || value.kind == JsonKind::kString) {
    return ConvertJson(value, type, arena, cell, error);
  }
  return Fail(error, Problem::kNotType, value.text, type);
}

bool DecodeVariableScale(const JsonValue& value, const data::TypePtr& type, ScratchArena* arena,
                         StagedCell* cell, ConversionError* error) {
  if (value.kind != JsonKind::kObject) return ConvertJson(value, type, arena, cell, error);
  int scale = 0;
  Int128 unscaled = 0;
  if (!ReadVariableScaleDecimal(value, arena, &scale, &unscaled)) {
    return Fail(error, Problem::kNotType, value.text, type);
  }
  Int128 v = 0;
  if (!Rescale(unscaled, scale, type->scale(), type->precision(), &v)) {
    return Fail(error, Problem::kDoesNotFit, value.text, type);
  }
  return SetDecimal(v, cell);
}

// An integer count of `unit`-sized steps, as microseconds: multiplied by `multiply` or floor
// divided by `divide`.
bool DecodeScaledInteger(const JsonValue& value, int64_t multiply, int64_t divide,
                         const data::TypePtr& type, StagedCell* cell, ConversionError* error) {
  int64_t v = 0;
  if (!ReadInteger(value, &v)) return Fail(error, Problem::kNotType, value.text, type);
  if (multiply != 1) {
    if (__builtin_mul_overflow(v, multiply, &v)) {
      return Fail(error, Problem::kOutOfRange, value.text, type);
    }
  }
  if (divide != 1) v = FloorDiv(v, divide);
  return SetInt(v, cell);
}

// An integer column's JSON number that fits it, the common case, without the general
// conversion; false leaves the value to ConvertJson (which says why it does not fit).
bool QuickIntegerCell(const JsonValue& value, TypeId id, StagedCell* cell) {
  if (value.kind != JsonKind::kNumber || value.has_point || value.has_exponent) return false;
  int64_t v = 0;
  if (ParseInteger(value.text, &v) != IntParse::kOk) return false;
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  if (id == TypeId::kInt8) {
    lo = std::numeric_limits<int8_t>::min();
    hi = std::numeric_limits<int8_t>::max();
  } else if (id == TypeId::kInt16) {
    lo = std::numeric_limits<int16_t>::min();
    hi = std::numeric_limits<int16_t>::max();
  } else if (id == TypeId::kInt32) {
    lo = std::numeric_limits<int32_t>::min();
    hi = std::numeric_limits<int32_t>::max();
  }
  if (v < lo || v > hi) return false;
  return SetInt(v, cell);
}

bool DecodePlain(const JsonValue& value, const data::TypePtr& type, ScratchArena* arena,
                 StagedCell* cell, ConversionError* error) {
  switch (type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (QuickIntegerCell(value, type->id(), cell)) return true;
      break;
    case TypeId::kBinary: {
      if (value.kind != JsonKind::kString) break;
      std::string_view bytes;
      if (!DecodeBase64(value.text, arena, &bytes)) {
        return Fail(error, Problem::kNotType, value.text, type);
      }
      cell->kind = StagedCell::Kind::kBytes;
      cell->bytes = bytes;
      return true;
    }
    case TypeId::kDecimal: {
      // Decimal text first: without a schema, digits-only text that is also base64 ("1234")
      // reads as a number.
      if (ConvertJson(value, type, arena, cell, error)) return true;
      if (value.kind == JsonKind::kString && IsBase64(value.text)) {
        return DecimalFromBase64(value.text, type->scale(), type, arena, cell, error);
      }
      return false;
    }
    case TypeId::kDate: {
      if (value.kind != JsonKind::kNumber) break;
      int64_t days = 0;
      if (!ReadInteger(value, &days)) return Fail(error, Problem::kNotType, value.text, type);
      if (days < std::numeric_limits<int32_t>::min() ||
          days > std::numeric_limits<int32_t>::max()) {
        return Fail(error, Problem::kOutOfRange, value.text, type);
      }
      return SetInt(days, cell);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      if (value.kind != JsonKind::kNumber) break;
      return DecodeScaledInteger(value, 1, 1, type, cell, error);
    default:
      break;
  }
  return ConvertJson(value, type, arena, cell, error);
}

}  // namespace

IntParse ParseInteger(std::string_view text, int64_t* out) {
  // Up to 18 digits cannot overflow: no check per digit.
  constexpr size_t kSafeDigits = 18;
  size_t i = 0;
  const size_t n = text.size();
  const bool negative = n > 0 && text[0] == '-';
  if (n > 0 && (text[0] == '-' || text[0] == '+')) i = 1;
  if (i == n || n - i > kSafeDigits) return ParseInt64(text, out);
  uint64_t acc = 0;
  for (; i < n; ++i) {
    const unsigned d = static_cast<unsigned char>(text[i]) - static_cast<unsigned>('0');
    if (d > 9) return IntParse::kNotInteger;
    acc = acc * 10 + d;
  }
  *out = negative ? -static_cast<int64_t>(acc) : static_cast<int64_t>(acc);
  return IntParse::kOk;
}

bool DecodeBase64(std::string_view text, std::string* out) {
  size_t at = out->size();
  out->resize(at + text.size() / 4 * 3 + 3);
  int64_t n = DecodeBase64Into(text, out->data() + at);
  if (n < 0) {
    out->resize(at);
    return false;
  }
  out->resize(at + static_cast<size_t>(n));
  return true;
}

bool DecodeBase64(std::string_view text, ScratchArena* arena, std::string_view* out) {
  char* dst = arena->Allocate(text.size() / 4 * 3 + 3);
  int64_t n = DecodeBase64Into(text, dst);
  if (n < 0) return false;
  *out = std::string_view(dst, static_cast<size_t>(n));
  return true;
}

bool TwosComplementToInt128(std::string_view bytes, Int128* out) {
  if (bytes.empty()) {
    *out = 0;
    return true;
  }
  const bool negative = (static_cast<unsigned char>(bytes[0]) & 0x80) != 0;
  const unsigned char fill = negative ? 0xFF : 0x00;
  // Bytes beyond sixteen must only repeat the sign.
  while (bytes.size() > 16) {
    if (static_cast<unsigned char>(bytes[0]) != fill) return false;
    bytes.remove_prefix(1);
  }
  if (((static_cast<unsigned char>(bytes[0]) & 0x80) != 0) != negative) return false;
  unsigned __int128 acc = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) acc = (acc << 8) | static_cast<unsigned char>(c);
  *out = static_cast<Int128>(acc);
  return true;
}

int DecimalDigits(Int128 v) {
  unsigned __int128 u =
      v < 0 ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  int digits = 1;
  while (u >= 10) {
    u /= 10;
    ++digits;
  }
  return digits;
}

bool Rescale(Int128 unscaled, int from_scale, int to_scale, int precision, Int128* out) {
  Int128 v = unscaled;
  if (from_scale > to_scale) {
    int drop = from_scale - to_scale;
    if (drop > 38) {
      if (v != 0) return false;
    } else {
      Int128 p = data::PowerOfTen(drop);
      if (v % p != 0) return false;
      v /= p;
    }
  } else if (from_scale < to_scale) {
    int add = to_scale - from_scale;
    if (v != 0 && DecimalDigits(v) + add > 38) return false;
    if (v == 0) add = 0;
    v *= data::PowerOfTen(add);
  }
  if (!data::FitsPrecision(v, precision)) return false;
  *out = v;
  return true;
}

bool ReadVariableScaleDecimal(const JsonValue& value, ScratchArena* arena, int* scale,
                              Int128* unscaled) {
  if (value.kind != JsonKind::kObject) return false;
  JsonScanner scanner(value.text, arena);
  if (!scanner.EnterObject()) return false;
  bool have_scale = false;
  bool have_value = false;
  std::string_view name;
  JsonValue member;
  for (;;) {
    JsonScanner::Step step = scanner.NextMember(&name);
    if (step == JsonScanner::Step::kEnd) break;
    if (step == JsonScanner::Step::kError || !scanner.ReadValue(&member)) return false;
    if (name == "scale") {
      int64_t s = 0;
      if (member.kind != JsonKind::kNumber || ParseInt64(member.text, &s) != IntParse::kOk ||
          s < -1000 || s > 1000) {
        return false;
      }
      *scale = static_cast<int>(s);
      have_scale = true;
    } else if (name == "value") {
      std::string_view bytes;
      if (member.kind != JsonKind::kString || !DecodeBase64(member.text, arena, &bytes) ||
          !TwosComplementToInt128(bytes, unscaled)) {
        return false;
      }
      have_value = true;
    } else {
      return false;
    }
  }
  return have_scale && have_value;
}

bool DecodeCell(const JsonValue& value, const ColumnSpec& spec, ScratchArena* arena,
                StagedCell* cell, ConversionError* error) {
  if (value.kind == JsonKind::kNull) {
    cell->SetNull();
    return true;
  }
  const data::TypePtr& type = spec.type;
  switch (spec.encoding) {
    case CellEncoding::kPlain:
      return DecodePlain(value, type, arena, cell, error);
    case CellEncoding::kDecimal:
      return DecodeDecimal(value, type, arena, cell, error);
    case CellEncoding::kVariableScaleDecimal:
      return DecodeVariableScale(value, type, arena, cell, error);
    case CellEncoding::kDays: {
      if (value.kind == JsonKind::kString) return ConvertJson(value, type, arena, cell, error);
      return DecodePlain(value, type, arena, cell, error);
    }
    case CellEncoding::kTimestampMillis:
      return DecodeScaledInteger(value, 1000, 1, type, cell, error);
    case CellEncoding::kTimestampMicros:
      return DecodeScaledInteger(value, 1, 1, type, cell, error);
    case CellEncoding::kTimestampNanos:
      return DecodeScaledInteger(value, 1, 1000, type, cell, error);
    case CellEncoding::kTimeMillis:
      return DecodeScaledInteger(value, 1000, 1, type, cell, error);
    case CellEncoding::kTimeMicros:
      return DecodeScaledInteger(value, 1, 1, type, cell, error);
    case CellEncoding::kTimeNanos:
      return DecodeScaledInteger(value, 1, 1000, type, cell, error);
    case CellEncoding::kZonedTimestamp: {
      if (value.kind != JsonKind::kString) return Fail(error, Problem::kNotType, value.text, type);
      int64_t micros = 0;
      bool has_zone = false;
      if (!ParseTimestampText(value.text, &micros, &has_zone)) {
        return Fail(error, Problem::kNotType, value.text, type);
      }
      return SetInt(micros, cell);
    }
  }
  return Fail(error, Problem::kNotType, value.text, type);
}

bool IsUnavailablePlaceholder(const JsonValue& value, ScratchArena* arena) {
  switch (value.kind) {
    case JsonKind::kString:
      if (value.text.size() == kPlaceholder.size()) return value.text == kPlaceholder;
      if (value.text.size() == kPlaceholderBase64.size()) return value.text == kPlaceholderBase64;
      return false;
    case JsonKind::kArray: {
      // Cheap refusals first: the shapes start with a string or with 95 ('_').
      size_t i = 1;
      while (i < value.text.size() && (value.text[i] == ' ' || value.text[i] == '\n' ||
                                       value.text[i] == '\t' || value.text[i] == '\r')) {
        ++i;
      }
      if (i >= value.text.size() || (value.text[i] != '"' && value.text[i] != '9')) return false;
      JsonScanner scanner(value.text, arena);
      if (!scanner.EnterArray()) return false;
      JsonValue element;
      size_t count = 0;
      bool strings = false;
      for (;; ++count) {
        JsonScanner::Step step = scanner.NextElement();
        if (step == JsonScanner::Step::kEnd) break;
        if (step == JsonScanner::Step::kError || !scanner.ReadValue(&element)) return false;
        if (element.kind == JsonKind::kString) {
          if (count > 0 || (element.text != kPlaceholder && element.text != kPlaceholderUuid)) {
            return false;
          }
          strings = true;
        } else if (element.kind == JsonKind::kNumber) {
          int64_t v = 0;
          if (strings || count >= kPlaceholder.size() ||
              ParseInt64(element.text, &v) != IntParse::kOk ||
              v != static_cast<unsigned char>(kPlaceholder[count])) {
            return false;
          }
        } else {
          return false;
        }
      }
      return strings ? count == 1 : count == kPlaceholder.size();
    }
    case JsonKind::kObject: {
      if (value.text.find(kPlaceholder) == std::string_view::npos) return false;
      JsonScanner scanner(value.text, arena);
      if (!scanner.EnterObject()) return false;
      std::string_view name;
      JsonValue member;
      size_t count = 0;
      for (;; ++count) {
        JsonScanner::Step step = scanner.NextMember(&name);
        if (step == JsonScanner::Step::kEnd) break;
        if (step == JsonScanner::Step::kError || !scanner.ReadValue(&member)) return false;
        if (count > 0 || name != kPlaceholder) return false;
      }
      return count == 1;
    }
    default:
      return false;
  }
}

}  // namespace cdclake::sources::internal
