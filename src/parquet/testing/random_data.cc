// Random test data.
#include "parquet/testing/random_data.h"

#include <cmath>
#include <limits>
#include <string>

#include "data/decimal.h"

namespace cdclake::parquet::testing {

using data::DataType;
using data::TypeId;
using data::TypePtr;

TypePtr RandomData::Type(int depth) {
  int pick = static_cast<int>(Int(0, depth > 0 ? 15 : 12));
  switch (pick) {
    case 0:
      return DataType::Boolean();
    case 1:
      return DataType::Int8();
    case 2:
      return DataType::Int16();
    case 3:
      return DataType::Int32();
    case 4:
      return DataType::Int64();
    case 5:
      return DataType::Float();
    case 6:
      return DataType::Double();
    case 7: {
      int p = static_cast<int>(Int(1, 38));
      return DataType::Decimal(p, static_cast<int>(Int(0, p)));
    }
    case 8:
      return DataType::String();
    case 9:
      return DataType::Binary();
    case 10:
      return DataType::Date();
    case 11:
      return DataType::Timestamp();
    case 12:
      return DataType::TimestampNtz();
    case 13: {
      std::vector<data::Field> fields;
      int n = static_cast<int>(Int(1, 3));
      for (int i = 0; i < n; ++i)
        fields.push_back({"f" + std::to_string(i), Type(depth - 1), Chance(0.7)});
      return DataType::Struct(std::move(fields));
    }
    case 14:
      return DataType::List(Type(depth - 1), Chance(0.7));
    default: {
      static const TypeId kKeys[] = {TypeId::kInt32, TypeId::kString, TypeId::kInt64,
                                     TypeId::kDate};
      TypeId k = kKeys[Int(0, 3)];
      TypePtr key = k == TypeId::kInt32    ? DataType::Int32()
                    : k == TypeId::kString ? DataType::String()
                    : k == TypeId::kInt64  ? DataType::Int64()
                                           : DataType::Date();
      return DataType::Map(key, Type(depth - 1), Chance(0.7));
    }
  }
}

data::Schema RandomData::Schema(int num_fields, int depth) {
  std::vector<data::Field> fields;
  for (int i = 0; i < num_fields; ++i)
    fields.push_back({"c" + std::to_string(i), Type(depth), Chance(0.8)});
  return data::Schema(std::move(fields));
}

data::Value RandomData::Value(const DataType& type, bool nullable, double null_rate) {
  if (nullable && Chance(null_rate)) return data::Value::Null();
  auto extreme_int = [&](int64_t lo, int64_t hi) {
    int r = static_cast<int>(Int(0, 9));
    if (r == 0) return lo;
    if (r == 1) return hi;
    if (r < 5) return Int(-100, 100) < lo ? lo : std::min(hi, Int(-100, 100));
    return Int(lo, hi);
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      return data::Value::Bool(Chance(0.5));
    case TypeId::kInt8:
      return data::Value::Int(extreme_int(INT8_MIN, INT8_MAX));
    case TypeId::kInt16:
      return data::Value::Int(extreme_int(INT16_MIN, INT16_MAX));
    case TypeId::kInt32:
      return data::Value::Int(extreme_int(INT32_MIN, INT32_MAX));
    case TypeId::kInt64:
      return data::Value::Int(extreme_int(INT64_MIN, INT64_MAX));
    case TypeId::kDate:
      return data::Value::Int(extreme_int(-719162, 2932896));  // years 1..9999
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return data::Value::Int(extreme_int(-62135596800000000LL, 253402300799999999LL));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      int r = static_cast<int>(Int(0, 12));
      double v;
      if (r == 0)
        v = std::numeric_limits<double>::quiet_NaN();
      else if (r == 1)
        v = std::numeric_limits<double>::infinity();
      else if (r == 2)
        v = -std::numeric_limits<double>::infinity();
      else if (r == 3)
        v = -0.0;
      else if (r == 4)
        v = 0.0;
      else
        v = std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
      if (type.id() == TypeId::kFloat) v = static_cast<float>(v);
      return data::Value::Double(v);
    }
    case TypeId::kDecimal: {
      data::Int128 limit = data::PowerOfTen(type.precision()) - 1;
      int r = static_cast<int>(Int(0, 5));
      if (r == 0) return data::Value::Decimal(limit);
      if (r == 1) return data::Value::Decimal(-limit);
      data::Int128 v = 0;
      for (int d = 0; d < type.precision(); ++d) v = v * 10 + Int(0, 9);
      return data::Value::Decimal(Chance(0.5) ? -v : v);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int r = static_cast<int>(Int(0, 9));
      size_t len = r == 0 ? 0
                          : (r == 1 ? static_cast<size_t>(Int(1000, 20000))
                                    : static_cast<size_t>(Int(1, 12)));
      std::string s(len, 'a');
      for (char& c : s)
        c = type.id() == TypeId::kString ? static_cast<char>(Int('a', 'z'))
                                         : static_cast<char>(Int(0, 255));
      if (type.id() == TypeId::kString && r == 2) s = "é,\"quoted\"\n☃";
      return data::Value::Bytes(std::move(s));
    }
    case TypeId::kStruct: {
      data::Value::Children c;
      for (const data::Field& f : type.fields()) c.push_back(Value(*f.type, f.nullable, null_rate));
      return data::Value::Nested(std::move(c));
    }
    case TypeId::kList: {
      data::Value::Children c;
      int n = static_cast<int>(Int(0, 4));
      for (int i = 0; i < n; ++i)
        c.push_back(Value(*type.fields()[0].type, type.fields()[0].nullable, null_rate));
      return data::Value::Nested(std::move(c));
    }
    case TypeId::kMap: {
      data::Value::Children c;
      int n = static_cast<int>(Int(0, 3));
      for (int i = 0; i < n; ++i) {
        c.push_back(data::Value::Nested(
            {Value(*type.fields()[0].type, false, 0),
             Value(*type.fields()[1].type, type.fields()[1].nullable, null_rate)}));
      }
      return data::Value::Nested(std::move(c));
    }
  }
  return data::Value::Null();
}

data::RecordBatch RandomData::Batch(const data::Schema& schema, int64_t rows) {
  data::RecordBatch batch(schema);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<data::Value> row;
    for (const data::Field& f : schema.fields()) row.push_back(Value(*f.type, f.nullable));
    batch.AppendRow(row);
  }
  return batch;
}

}  // namespace cdclake::parquet::testing
