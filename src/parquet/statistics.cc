// Statistics collection and encoding.
#include "parquet/statistics.h"

#include <cmath>
#include <cstring>

#include "base/bytes.h"
#include "parquet/physical_value.h"

namespace cdclake::parquet {

using data::TypeId;
using data::Value;

int CompareValues(const Value& a, const Value& b, const data::DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return static_cast<int>(a.bool_value()) - static_cast<int>(b.bool_value());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = a.double_value(), y = b.double_value();
      if (x < y) return -1;
      if (x > y) return 1;
      // -0.0 sorts before +0.0 so that the bounds cover both.
      return static_cast<int>(std::signbit(y)) - static_cast<int>(std::signbit(x));
    }
    case TypeId::kDecimal: {
      data::Int128 x = a.decimal_value(), y = b.decimal_value();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int c = a.bytes().compare(b.bytes());  // std::string compares as unsigned char
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: {
      int64_t x = a.int_value(), y = b.int_value();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
  }
}

namespace {

template <typename T>
void TypedMinMax(const data::Column& c, const int64_t* idx, size_t n, T* lo, T* hi, bool* any) {
  const T* v = c.Data<T>();
  for (size_t i = 0; i < n; ++i) {
    T x = v[idx[i]];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) continue;
    }
    if (!*any) {
      *lo = *hi = x;
      *any = true;
      continue;
    }
    if (x < *lo) *lo = x;
    if (x > *hi) *hi = x;
  }
  if constexpr (std::is_floating_point_v<T>) {
    // The format's rule for zeros: a zero minimum is written as -0.0, a zero maximum as +0.0.
    if (*any && *lo == 0) *lo = -T(0);
    if (*any && *hi == 0) *hi = T(0);
  }
}

}  // namespace

void StatisticsCollector::Consider(const Value& v) {
  const data::DataType& t = *leaf_->type;
  if (!min_ || CompareValues(v, *min_, t) < 0) min_ = v;
  if (!max_ || CompareValues(v, *max_, t) > 0) max_ = v;
}

void StatisticsCollector::Update(const data::Column& c, const int64_t* idx, size_t n) {
  if (n == 0) return;
  const data::DataType& t = *leaf_->type;
  bool any = false;
  switch (t.id()) {
    case TypeId::kBoolean: {
      uint8_t lo = 0, hi = 0;
      TypedMinMax<uint8_t>(c, idx, n, &lo, &hi, &any);
      if (any) Consider(Value::Bool(lo != 0)), Consider(Value::Bool(hi != 0));
      return;
    }
#define CDCLAKE_INT_CASE(Id, T)                                  \
  case TypeId::Id: {                                             \
    T lo{}, hi{};                                                \
    TypedMinMax<T>(c, idx, n, &lo, &hi, &any);                   \
    if (any) Consider(Value::Int(lo)), Consider(Value::Int(hi)); \
    return;                                                      \
  }
      CDCLAKE_INT_CASE(kInt8, int8_t)
      CDCLAKE_INT_CASE(kInt16, int16_t)
      CDCLAKE_INT_CASE(kInt32, int32_t)
      CDCLAKE_INT_CASE(kDate, int32_t)
      CDCLAKE_INT_CASE(kInt64, int64_t)
      CDCLAKE_INT_CASE(kTimestamp, int64_t)
      CDCLAKE_INT_CASE(kTimestampNtz, int64_t)
#undef CDCLAKE_INT_CASE
    case TypeId::kFloat: {
      float lo = 0, hi = 0;
      TypedMinMax<float>(c, idx, n, &lo, &hi, &any);
      if (any) Consider(Value::Double(lo)), Consider(Value::Double(hi));
      return;
    }
    case TypeId::kDouble: {
      double lo = 0, hi = 0;
      TypedMinMax<double>(c, idx, n, &lo, &hi, &any);
      if (any) Consider(Value::Double(lo)), Consider(Value::Double(hi));
      return;
    }
    case TypeId::kDecimal: {
      data::Int128 lo = 0, hi = 0;
      TypedMinMax<data::Int128>(c, idx, n, &lo, &hi, &any);
      if (any) Consider(Value::Decimal(lo)), Consider(Value::Decimal(hi));
      return;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view lo = c.StringAt(idx[0]), hi = lo;
      for (size_t i = 1; i < n; ++i) {
        std::string_view s = c.StringAt(idx[i]);
        if (s < lo) lo = s;
        if (s > hi) hi = s;
      }
      Consider(Value::Bytes(std::string(lo)));
      Consider(Value::Bytes(std::string(hi)));
      return;
    }
    default:
      return;
  }
}

format::Statistics StatisticsCollector::Finish(int64_t max_bytes) const {
  format::Statistics s;
  s.null_count = null_count_;
  if (min_ && max_) {
    std::string lo = EncodeStatisticValue(*min_, *leaf_);
    std::string hi = EncodeStatisticValue(*max_, *leaf_);
    if (static_cast<int64_t>(lo.size()) <= max_bytes &&
        static_cast<int64_t>(hi.size()) <= max_bytes) {
      s.min_value = std::move(lo);
      s.max_value = std::move(hi);
      s.is_min_value_exact = true;
      s.is_max_value_exact = true;
    }
  }
  return s;
}

std::string EncodeStatisticValue(const Value& v, const SchemaNode& leaf) {
  const data::DataType& t = *leaf.type;
  if (t.id() == TypeId::kBoolean) return std::string(1, v.bool_value() ? '\1' : '\0');
  if (t.id() == TypeId::kString || t.id() == TypeId::kBinary) return v.bytes();
  data::Column one(leaf.type);
  one.AppendValue(v);
  int64_t zero = 0;
  std::string out;
  AppendPhysicalFixed(one, leaf, &zero, 1, &out);
  return out;
}

Result<Value> DecodeStatisticValue(std::string_view bytes, const SchemaNode& leaf) {
  const data::DataType& t = *leaf.type;
  format::Type physical = *leaf.element.type;
  auto need = [&](size_t n) -> Status {
    if (bytes.size() != n) {
      return Status::Corrupt("statistic of column '" + leaf.name + "' has " +
                             std::to_string(bytes.size()) + " bytes, expected " +
                             std::to_string(n));
    }
    return Status::OK();
  };
  switch (physical) {
    case format::Type::kBoolean:
      CDCLAKE_RETURN_IF_ERROR(need(1));
      return Value::Bool(bytes[0] != 0);
    case format::Type::kInt32: {
      CDCLAKE_RETURN_IF_ERROR(need(4));
      auto v = LoadLE<int32_t>(bytes.data());
      if (t.id() == TypeId::kDecimal) return Value::Decimal(v);
      if (t.id() == TypeId::kInt64) return Value::Int(static_cast<uint32_t>(v));  // UINT_32
      if (t.id() == TypeId::kInt32 && leaf.element.logical_type &&
          leaf.element.logical_type->kind == format::LogicalType::Kind::kInteger &&
          !leaf.element.logical_type->is_signed) {
        return Value::Int(static_cast<uint16_t>(v));
      }
      return Value::Int(v);
    }
    case format::Type::kInt64: {
      CDCLAKE_RETURN_IF_ERROR(need(8));
      auto v = LoadLE<int64_t>(bytes.data());
      if (t.id() == TypeId::kDecimal) {
        return t.precision() == 20 && t.scale() == 0 && leaf.element.precision.value_or(0) == 0
                   ? Value::Decimal(static_cast<data::Int128>(static_cast<uint64_t>(v)))
                   : Value::Decimal(v);
      }
      if (t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampNtz) {
        // Statistics are in the column's own unit; normalise to microseconds.
        const auto& lt = leaf.element.logical_type;
        bool millis = (lt && lt->kind == format::LogicalType::Kind::kTimestamp &&
                       lt->unit == format::TimeUnit::kMillis) ||
                      (leaf.element.converted_type == format::ConvertedType::kTimestampMillis);
        bool nanos = lt && lt->kind == format::LogicalType::Kind::kTimestamp &&
                     lt->unit == format::TimeUnit::kNanos;
        if (millis) return Value::Int(v * 1000);
        if (nanos) return Value::Int(v / 1000 - (v % 1000 < 0 ? 1 : 0));
      }
      return Value::Int(v);
    }
    case format::Type::kFloat: {
      CDCLAKE_RETURN_IF_ERROR(need(4));
      return Value::Double(LoadLE<float>(bytes.data()));
    }
    case format::Type::kDouble: {
      CDCLAKE_RETURN_IF_ERROR(need(8));
      return Value::Double(LoadLE<double>(bytes.data()));
    }
    case format::Type::kInt96:
      return Status::NotSupported("INT96 statistics are not used (their order is undefined)");
    case format::Type::kByteArray:
    case format::Type::kFixedLenByteArray:
      if (t.id() == TypeId::kDecimal) {
        if (bytes.empty() || bytes.size() > 16) {
          return Status::Corrupt("decimal statistic of column '" + leaf.name + "' has " +
                                 std::to_string(bytes.size()) + " bytes");
        }
        return Value::Decimal(
            ReadBigEndianDecimal(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
      }
      return Value::Bytes(std::string(bytes));
  }
  return Status::Corrupt("unknown physical type");
}

}  // namespace cdclake::parquet
