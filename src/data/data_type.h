// DataType and Field: the logical types every module speaks (Delta's primitive and nested types).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cdclake::data {

enum class TypeId {
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kDecimal,  // unscaled value as __int128, precision 1..38
  kString,   // UTF-8
  kBinary,
  kDate,          // int32 days since 1970-01-01
  kTimestamp,     // int64 microseconds since the epoch, UTC
  kTimestampNtz,  // int64 microseconds, no time zone
  kStruct,
  kList,
  kMap,
};

class DataType;
using TypePtr = std::shared_ptr<const DataType>;

struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;

  bool operator==(const Field& other) const;
};

/// An immutable type. Primitive types are shared singletons; nested types own their fields:
/// a struct its members, a list one field (the element), a map two (key, value).
class DataType {
 public:
  static TypePtr Boolean();
  static TypePtr Int8();
  static TypePtr Int16();
  static TypePtr Int32();
  static TypePtr Int64();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr Decimal(int precision, int scale);
  static TypePtr String();
  static TypePtr Binary();
  static TypePtr Date();
  static TypePtr Timestamp();
  static TypePtr TimestampNtz();
  static TypePtr Struct(std::vector<Field> fields);
  static TypePtr List(TypePtr element, bool element_nullable = true);
  static TypePtr Map(TypePtr key, TypePtr value, bool value_nullable = true);

  TypeId id() const { return id_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  const std::vector<Field>& fields() const { return fields_; }

  bool is_nested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap;
  }
  /// Bytes per value in a column's value buffer; 0 for variable-length and nested types.
  int byte_width() const;

  /// SQL DDL spelling: int, bigint, decimal(10,2), struct<a:int,b:string>, array<int>,
  /// map<string,int>, timestamp_ntz.
  std::string ToString() const;
  bool Equals(const DataType& other) const;

  DataType(TypeId id, int precision, int scale, std::vector<Field> fields)
      : id_(id), precision_(precision), scale_(scale), fields_(std::move(fields)) {}

 private:
  TypeId id_;
  int precision_ = 0;
  int scale_ = 0;
  std::vector<Field> fields_;
};

/// 1, 2, 3, 4 for the integer types from tinyint to bigint (their order of width); 0 for any
/// other type.
int IntegerRank(TypeId id);

inline bool operator==(const DataType& a, const DataType& b) {
  return a.Equals(b);
}

}  // namespace cdclake::data
