// DataType construction and printing.
#include "data/data_type.h"

namespace cdclake::data {

namespace {
TypePtr MakePrimitive(TypeId id) {
  return std::make_shared<const DataType>(id, 0, 0, std::vector<Field>{});
}
}  // namespace

bool Field::operator==(const Field& other) const {
  return name == other.name && nullable == other.nullable &&
         ((type == nullptr && other.type == nullptr) ||
          (type != nullptr && other.type != nullptr && type->Equals(*other.type)));
}

#define CDCLAKE_PRIMITIVE(Name, Id)                 \
  TypePtr DataType::Name() {                        \
    static const TypePtr kType = MakePrimitive(Id); \
    return kType;                                   \
  }
CDCLAKE_PRIMITIVE(Boolean, TypeId::kBoolean)
CDCLAKE_PRIMITIVE(Int8, TypeId::kInt8)
CDCLAKE_PRIMITIVE(Int16, TypeId::kInt16)
CDCLAKE_PRIMITIVE(Int32, TypeId::kInt32)
CDCLAKE_PRIMITIVE(Int64, TypeId::kInt64)
CDCLAKE_PRIMITIVE(Float, TypeId::kFloat)
CDCLAKE_PRIMITIVE(Double, TypeId::kDouble)
CDCLAKE_PRIMITIVE(String, TypeId::kString)
CDCLAKE_PRIMITIVE(Binary, TypeId::kBinary)
CDCLAKE_PRIMITIVE(Date, TypeId::kDate)
CDCLAKE_PRIMITIVE(Timestamp, TypeId::kTimestamp)
CDCLAKE_PRIMITIVE(TimestampNtz, TypeId::kTimestampNtz)
#undef CDCLAKE_PRIMITIVE

TypePtr DataType::Decimal(int precision, int scale) {
  return std::make_shared<const DataType>(TypeId::kDecimal, precision, scale, std::vector<Field>{});
}

TypePtr DataType::Struct(std::vector<Field> fields) {
  return std::make_shared<const DataType>(TypeId::kStruct, 0, 0, std::move(fields));
}

TypePtr DataType::List(TypePtr element, bool element_nullable) {
  std::vector<Field> fields{Field{"element", std::move(element), element_nullable}};
  return std::make_shared<const DataType>(TypeId::kList, 0, 0, std::move(fields));
}

TypePtr DataType::Map(TypePtr key, TypePtr value, bool value_nullable) {
  std::vector<Field> fields{Field{"key", std::move(key), false},
                            Field{"value", std::move(value), value_nullable}};
  return std::make_shared<const DataType>(TypeId::kMap, 0, 0, std::move(fields));
}

int DataType::byte_width() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kFloat:
    case TypeId::kDate:
      return 4;
    case TypeId::kInt64:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return 8;
    case TypeId::kDecimal:
      return 16;
    default:
      return 0;
  }
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "int";
    case TypeId::kInt64:
      return "bigint";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ",";
        out += fields_[i].name + ":" + fields_[i].type->ToString();
        if (!fields_[i].nullable) out += " not null";
      }
      return out + ">";
    }
    case TypeId::kList:
      return "array<" + fields_[0].type->ToString() + ">";
    case TypeId::kMap:
      return "map<" + fields_[0].type->ToString() + "," + fields_[1].type->ToString() + ">";
  }
  return "?";
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_) return false;
  if (id_ == TypeId::kDecimal) return precision_ == other.precision_ && scale_ == other.scale_;
  return fields_ == other.fields_;
}

int IntegerRank(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
      return 3;
    case TypeId::kInt64:
      return 4;
    default:
      return 0;
  }
}

}  // namespace cdclake::data
