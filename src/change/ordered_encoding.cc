// Order-preserving value encoding: sign-flipped big-endian numbers, escaped byte strings,
// nested values as sequences (see ordered_encoding.h for the order).
#include "change/ordered_encoding.h"

#include <cstring>

#include "data/column.h"

namespace cdclake::change {
namespace {

using data::DataType;
using data::TypeId;
using data::Value;

constexpr char kNull = 0x00;
constexpr char kPresent = 0x01;

void AppendBigEndian64(uint64_t v, std::string* out) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

bool IsIntegerLike(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

uint64_t DoubleKey(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return (bits & (uint64_t{1} << 63)) ? ~bits : bits | (uint64_t{1} << 63);
}

double DoubleFromKey(uint64_t key) {
  uint64_t bits = (key & (uint64_t{1} << 63)) ? key & ~(uint64_t{1} << 63) : ~key;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

void AppendIntKey(int64_t v, std::string* out) {
  AppendBigEndian64(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63), out);
}

void AppendDecimalKey(data::Int128 v, std::string* out) {
  auto u = static_cast<unsigned __int128>(v) ^ (static_cast<unsigned __int128>(1) << 127);
  AppendBigEndian64(static_cast<uint64_t>(u >> 64), out);
  AppendBigEndian64(static_cast<uint64_t>(u), out);
}

void AppendBytesKey(std::string_view bytes, std::string* out) {
  // Runs between zero bytes are appended whole; each zero byte becomes 0x00 0xFF.
  while (!bytes.empty()) {
    const void* zero = std::memchr(bytes.data(), 0, bytes.size());
    const size_t run = zero == nullptr
                           ? bytes.size()
                           : static_cast<size_t>(static_cast<const char*>(zero) - bytes.data());
    out->append(bytes.data(), run);
    if (zero == nullptr) break;
    out->push_back(0);
    out->push_back(static_cast<char>(0xFF));
    bytes.remove_prefix(run + 1);
  }
  out->push_back(0);
  out->push_back(0);
}

void AppendPayload(const Value& value, const DataType& type, std::string* out) {
  TypeId id = type.id();
  if (IsIntegerLike(id)) {
    AppendIntKey(value.int_value(), out);
    return;
  }
  switch (id) {
    case TypeId::kBoolean:
      out->push_back(value.bool_value() ? 1 : 0);
      return;
    case TypeId::kFloat:
    case TypeId::kDouble:
      AppendBigEndian64(DoubleKey(value.double_value()), out);
      return;
    case TypeId::kDecimal:
      AppendDecimalKey(value.decimal_value(), out);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      AppendBytesKey(value.bytes(), out);
      return;
    case TypeId::kStruct: {
      const auto& fields = type.fields();
      const auto& children = value.children();
      for (size_t i = 0; i < fields.size(); ++i) {
        AppendOrdered(i < children.size() ? children[i] : Value::Null(), *fields[i].type, out);
      }
      return;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      for (const Value& element : value.children()) {
        out->push_back(kPresent);
        if (id == TypeId::kList) {
          AppendOrdered(element, *type.fields()[0].type, out);
        } else {
          const auto& kv = element.children();
          AppendOrdered(kv.empty() ? Value::Null() : kv[0], *type.fields()[0].type, out);
          AppendOrdered(kv.size() < 2 ? Value::Null() : kv[1], *type.fields()[1].type, out);
        }
      }
      out->push_back(kNull);
      return;
    }
    default:
      return;
  }
}

Result<uint64_t> ReadBigEndian64(std::string_view* in) {
  if (in->size() < 8) return Status::Corrupt("ordered encoding: truncated number");
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(8);
  return v;
}

Result<Value> ReadPayload(std::string_view* in, const DataType& type) {
  TypeId id = type.id();
  if (IsIntegerLike(id)) {
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t v, ReadBigEndian64(in));
    return Value::Int(static_cast<int64_t>(v ^ (uint64_t{1} << 63)));
  }
  switch (id) {
    case TypeId::kBoolean: {
      if (in->empty()) return Status::Corrupt("ordered encoding: truncated boolean");
      bool b = (*in)[0] != 0;
      in->remove_prefix(1);
      return Value::Bool(b);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      CDCLAKE_ASSIGN_OR_RETURN(uint64_t v, ReadBigEndian64(in));
      return Value::Double(DoubleFromKey(v));
    }
    case TypeId::kDecimal: {
      CDCLAKE_ASSIGN_OR_RETURN(uint64_t hi, ReadBigEndian64(in));
      CDCLAKE_ASSIGN_OR_RETURN(uint64_t lo, ReadBigEndian64(in));
      auto u = (static_cast<unsigned __int128>(hi) << 64) | lo;
      u ^= static_cast<unsigned __int128>(1) << 127;
      return Value::Decimal(static_cast<data::Int128>(u));
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      // Runs of non-zero bytes are copied whole (a byte at a time was a tenth of decoding an
      // SCD2 batch's events); a zero byte is 0x00 0xFF inside and 0x00 0x00 at the end.
      std::string bytes;
      size_t i = 0;
      while (true) {
        const void* zero = std::memchr(in->data() + i, 0, in->size() - i);
        if (zero == nullptr) return Status::Corrupt("ordered encoding: unterminated string");
        const auto at = static_cast<size_t>(static_cast<const char*>(zero) - in->data());
        bytes.append(in->data() + i, at - i);
        if (at + 1 >= in->size()) return Status::Corrupt("ordered encoding: truncated string");
        const char next = (*in)[at + 1];
        i = at + 2;
        if (next == 0) break;
        bytes.push_back(0);
      }
      in->remove_prefix(i);
      return Value::Bytes(std::move(bytes));
    }
    case TypeId::kStruct: {
      Value::Children children;
      for (const auto& field : type.fields()) {
        CDCLAKE_ASSIGN_OR_RETURN(Value child, ReadOrdered(in, *field.type));
        children.push_back(std::move(child));
      }
      return Value::Nested(std::move(children));
    }
    case TypeId::kList:
    case TypeId::kMap: {
      Value::Children elements;
      while (true) {
        if (in->empty()) return Status::Corrupt("ordered encoding: unterminated list");
        char marker = (*in)[0];
        in->remove_prefix(1);
        if (marker == kNull) break;
        if (id == TypeId::kList) {
          CDCLAKE_ASSIGN_OR_RETURN(Value element, ReadOrdered(in, *type.fields()[0].type));
          elements.push_back(std::move(element));
        } else {
          CDCLAKE_ASSIGN_OR_RETURN(Value key, ReadOrdered(in, *type.fields()[0].type));
          CDCLAKE_ASSIGN_OR_RETURN(Value value, ReadOrdered(in, *type.fields()[1].type));
          elements.push_back(Value::Nested({std::move(key), std::move(value)}));
        }
      }
      return Value::Nested(std::move(elements));
    }
    default:
      return Status::Corrupt("ordered encoding: unsupported type " + type.ToString());
  }
}

}  // namespace

void AppendOrdered(const Value& value, const DataType& type, std::string* out) {
  if (value.is_null()) {
    out->push_back(kNull);
    return;
  }
  out->push_back(kPresent);
  AppendPayload(value, type, out);
}

void AppendOrderedCell(const data::Column& column, int64_t row, const DataType& type,
                       std::string* out) {
  if (column.IsNull(row)) {
    out->push_back(kNull);
    return;
  }
  switch (column.type()->id()) {
    case TypeId::kInt8:
      out->push_back(kPresent);
      AppendIntKey(column.ValueAt<int8_t>(row), out);
      return;
    case TypeId::kInt16:
      out->push_back(kPresent);
      AppendIntKey(column.ValueAt<int16_t>(row), out);
      return;
    case TypeId::kInt32:
    case TypeId::kDate:
      out->push_back(kPresent);
      AppendIntKey(column.ValueAt<int32_t>(row), out);
      return;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      out->push_back(kPresent);
      AppendIntKey(column.ValueAt<int64_t>(row), out);
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      out->push_back(kPresent);
      AppendBytesKey(column.StringAt(row), out);
      return;
    case TypeId::kDecimal:
      if (type.id() != TypeId::kDecimal) break;
      out->push_back(kPresent);
      AppendDecimalKey(column.ValueAt<data::Int128>(row), out);
      return;
    default:
      break;
  }
  AppendOrdered(column.GetValue(row), type, out);
}

std::string EncodeOrdered(const std::vector<Value>& values,
                          const std::vector<data::TypePtr>& types) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) AppendOrdered(values[i], *types[i], &out);
  return out;
}

Result<Value> ReadOrdered(std::string_view* in, const DataType& type) {
  if (in->empty()) return Status::Corrupt("ordered encoding: truncated value");
  char marker = (*in)[0];
  in->remove_prefix(1);
  if (marker == kNull) return Value::Null();
  if (marker != kPresent) return Status::Corrupt("ordered encoding: bad null marker");
  return ReadPayload(in, type);
}

bool IsOrderable(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kMap:
      return false;
    case TypeId::kStruct:
      for (const auto& f : type.fields()) {
        if (!IsOrderable(*f.type)) return false;
      }
      return !type.fields().empty();
    default:
      return true;
  }
}

}  // namespace cdclake::change
