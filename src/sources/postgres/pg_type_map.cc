// PgTypeMap: built-in type OIDs (pg_type.dat) to Delta types, and their text output parsed.
#include "sources/postgres/pg_type_map.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "data/decimal.h"
#include "data/expression.h"

namespace cdclake::sources::postgres {
namespace {

using data::DataType;
using data::TypePtr;

constexpr int kMaxPrecision = 38;

struct Scalar {
  TypePtr type;
  PgText text;
};

// numeric(p, s) carries (p << 16 | s) + 4 in its modifier (s an 11-bit signed value since 15).
Scalar NumericOf(int32_t modifier) {
  if (modifier < 4) return {DataType::String(), PgText::kString};
  int32_t packed = modifier - 4;
  int precision = (packed >> 16) & 0xffff;
  int scale = ((packed & 0x7ff) ^ 1024) - 1024;
  if (precision < 1 || precision > kMaxPrecision || scale < 0 || scale > precision) {
    return {DataType::String(), PgText::kString};
  }
  return {DataType::Decimal(precision, scale), PgText::kDecimal};
}

Scalar ScalarOf(uint32_t oid, int32_t modifier) {
  switch (oid) {
    case 16:
      return {DataType::Boolean(), PgText::kBoolean};
    case 21:
      return {DataType::Int16(), PgText::kInteger};
    case 23:
      return {DataType::Int32(), PgText::kInteger};
    case 20:
    case 26:  // oid: unsigned 32 bits
      return {DataType::Int64(), PgText::kInteger};
    case 700:
      return {DataType::Float(), PgText::kFloat};
    case 701:
      return {DataType::Double(), PgText::kFloat};
    case 1700:
      return NumericOf(modifier);
    case 790:
      return {DataType::Decimal(19, 2), PgText::kMoney};
    case 1082:
      return {DataType::Date(), PgText::kDate};
    case 1114:
      return {DataType::TimestampNtz(), PgText::kTimestamp};
    case 1184:
      return {DataType::Timestamp(), PgText::kTimestamp};
    case 1083:
      return {DataType::Int64(), PgText::kTime};
    case 17:
      return {DataType::Binary(), PgText::kBytea};
    default:
      return {DataType::String(), PgText::kString};
  }
}

// The element type of a built-in array type, or 0.
uint32_t ElementOf(uint32_t array_oid) {
  switch (array_oid) {
    case 1000:
      return 16;  // _bool
    case 1005:
      return 21;  // _int2
    case 1007:
      return 23;  // _int4
    case 1016:
      return 20;  // _int8
    case 1028:
      return 26;  // _oid
    case 1021:
      return 700;  // _float4
    case 1022:
      return 701;  // _float8
    case 1231:
      return 1700;  // _numeric
    case 791:
      return 790;  // _money
    case 1182:
      return 1082;  // _date
    case 1115:
      return 1114;  // _timestamp
    case 1185:
      return 1184;  // _timestamptz
    case 1183:
      return 1083;  // _time
    case 1001:
      return 17;  // _bytea
    case 1009:
      return 25;  // _text
    case 1015:
      return 1043;  // _varchar
    case 1014:
      return 1042;  // _bpchar
    case 1003:
      return 19;  // _name
    case 2951:
      return 2950;  // _uuid
    case 199:
      return 114;  // _json
    case 3807:
      return 3802;  // _jsonb
    case 143:
      return 142;  // _xml
    case 1041:
      return 869;  // _inet
    case 651:
      return 650;  // _cidr
    case 1040:
      return 829;  // _macaddr
    case 1270:
      return 1266;  // _timetz
    case 1187:
      return 1186;  // _interval
    default:
      return 0;
  }
}

Status NotA(std::string_view text, const char* what, const std::string& why = "") {
  return Status::InvalidArgument("'" + std::string(text.substr(0, 64)) +
                                 (text.size() > 64 ? "...'" : "'") + " is not " + what +
                                 (why.empty() ? "" : " (" + why + ")"));
}

template <typename T>
Status AppendInteger(std::string_view text, data::Column* column) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return NotA(text, "an integer");
  column->Append<T>(static_cast<T>(v));
  return Status::OK();
}

Status AppendFloat(std::string_view text, bool single, data::Column* column) {
  double v = 0;
  if (text == "NaN") {
    v = std::nan("");
  } else if (text == "Infinity") {
    v = HUGE_VAL;
  } else if (text == "-Infinity") {
    v = -HUGE_VAL;
  } else {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return NotA(text, "a number");
  }
  if (single) {
    column->Append<float>(static_cast<float>(v));
  } else {
    column->Append<double>(v);
  }
  return Status::OK();
}

Status AppendDecimal(std::string_view text, const DataType& type, data::Column* column) {
  if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
    return NotA(text, "a decimal Delta can hold", "a Delta DECIMAL has no NaN or infinity");
  }
  auto v = data::ParseDecimal(text, type.precision(), type.scale());
  if (!v.ok()) return NotA(text, "a decimal", v.status().message());
  column->Append<data::Int128>(*v);
  return Status::OK();
}

// money's text under lc_monetary C: an optional '-', '$', digits with ',' groups, '.', cents.
Status AppendMoney(std::string_view text, data::Column* column) {
  std::string plain;
  for (char c : text) {
    if (c != '$' && c != ',') plain.push_back(c);
  }
  auto v = data::ParseDecimal(plain, 19, 2);
  if (!v.ok()) return NotA(text, "an amount of money", v.status().message());
  column->Append<data::Int128>(*v);
  return Status::OK();
}

Status AppendTime(std::string_view text, data::Column* column) {
  // HH:MM:SS[.ffffff]; 24:00:00 is a valid time.
  auto v = data::ParseTimestampLiteral("1970-01-01 " + std::string(text), false);
  if (!v.ok()) {
    if (text == "24:00:00") {
      column->Append<int64_t>(int64_t{86400} * 1000000);
      return Status::OK();
    }
    return NotA(text, "a time");
  }
  column->Append<int64_t>(*v);
  return Status::OK();
}

Status AppendBytea(std::string_view text, data::Column* column) {
  std::optional<std::string> bytes;
  if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') bytes = HexDecode(text.substr(2));
  if (!bytes) return NotA(text, "bytea in hex output", "bytea_output must be hex");
  column->AppendBytes(*bytes);
  return Status::OK();
}

Status AppendScalar(PgText text_kind, std::string_view text, data::Column* column) {
  const DataType& type = *column->type();
  switch (text_kind) {
    case PgText::kBoolean:
      // The output function's t / f; a cast to text gives true / false.
      if (text == "t" || text == "true") {
        column->Append<uint8_t>(1);
      } else if (text == "f" || text == "false") {
        column->Append<uint8_t>(0);
      } else {
        return NotA(text, "a boolean");
      }
      return Status::OK();
    case PgText::kInteger:
      switch (type.id()) {
        case data::TypeId::kInt16:
          return AppendInteger<int16_t>(text, column);
        case data::TypeId::kInt32:
          return AppendInteger<int32_t>(text, column);
        default:
          return AppendInteger<int64_t>(text, column);
      }
    case PgText::kFloat:
      return AppendFloat(text, type.id() == data::TypeId::kFloat, column);
    case PgText::kDecimal:
      return AppendDecimal(text, type, column);
    case PgText::kMoney:
      return AppendMoney(text, column);
    case PgText::kDate: {
      auto days = data::ParseDateLiteral(text);
      if (!days.ok()) return NotA(text, "a date Delta can hold", "years 0001 to 9999");
      column->Append<int32_t>(static_cast<int32_t>(*days));
      return Status::OK();
    }
    case PgText::kTimestamp: {
      auto micros = data::ParseTimestampLiteral(text, type.id() == data::TypeId::kTimestamp);
      if (!micros.ok()) return NotA(text, "a timestamp Delta can hold", "years 0001 to 9999");
      column->Append<int64_t>(*micros);
      return Status::OK();
    }
    case PgText::kTime:
      return AppendTime(text, column);
    case PgText::kBytea:
      return AppendBytea(text, column);
    case PgText::kString:
    case PgText::kArray:
      column->AppendBytes(text);
      return Status::OK();
  }
  return Status::Internal("unknown PgText");
}

// The elements of a one-dimensional array's text output: {a,"b c",NULL}. nullopt is NULL.
Status SplitArray(std::string_view text, std::vector<std::optional<std::string>>* elements) {
  if (!text.empty() && text[0] == '[') {
    return NotA(text, "an array Delta can hold", "lower bounds other than 1");
  }
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return NotA(text, "an array");
  std::string_view body = text.substr(1, text.size() - 2);
  if (body.empty()) return Status::OK();
  size_t i = 0;
  while (true) {
    if (i < body.size() && body[i] == '{') {
      return NotA(text, "an array Delta can hold", "more than one dimension");
    }
    std::string element;
    bool quoted = false;
    if (i < body.size() && body[i] == '"') {
      quoted = true;
      ++i;
      while (i < body.size() && body[i] != '"') {
        if (body[i] == '\\' && i + 1 < body.size()) ++i;
        element.push_back(body[i++]);
      }
      if (i >= body.size()) return NotA(text, "an array", "an unterminated quoted element");
      ++i;
    } else {
      while (i < body.size() && body[i] != ',') {
        if (body[i] == '\\' && i + 1 < body.size()) ++i;
        element.push_back(body[i++]);
      }
    }
    if (!quoted && element == "NULL") {
      elements->emplace_back();
    } else {
      elements->emplace_back(std::move(element));
    }
    if (i == body.size()) return Status::OK();
    if (body[i] != ',') return NotA(text, "an array", "',' expected after an element");
    ++i;
  }
}

}  // namespace

PgColumnType PgColumnTypeOf(uint32_t type_oid, int32_t type_modifier) {
  if (uint32_t element = ElementOf(type_oid); element != 0) {
    // An array's modifier is its element's.
    Scalar e = ScalarOf(element, type_modifier);
    return {DataType::List(e.type), PgText::kArray, e.text};
  }
  Scalar s = ScalarOf(type_oid, type_modifier);
  return {s.type, s.text, PgText::kString};
}

Status AppendPgText(const PgColumnType& type, std::string_view text, data::Column* column) {
  if (type.text != PgText::kArray) return AppendScalar(type.text, text, column);
  std::vector<std::optional<std::string>> elements;
  CDCLAKE_RETURN_IF_ERROR(SplitArray(text, &elements));
  // Converted apart first, so a bad element appends nothing.
  data::Column values(column->type()->fields()[0].type);
  for (const auto& e : elements) {
    if (!e) {
      values.AppendNull();
      continue;
    }
    Status s = AppendScalar(type.element, *e, &values);
    if (!s.ok()) return s.WithContext("array element");
  }
  column->mutable_child(0).AppendColumn(values);
  column->AppendListSlot(static_cast<int64_t>(elements.size()));
  return Status::OK();
}

}  // namespace cdclake::sources::postgres
