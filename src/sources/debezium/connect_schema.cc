// ConnectSchema: Connect field schemas (semantic name, literal type, parameters) to column
// types and cell encodings.
#include "sources/debezium/connect_schema_internal.h"

#include <algorithm>

#include "json/json.h"

namespace cdclake::sources::internal {

namespace {

using data::DataType;
using data::TypePtr;
using json::Json;

constexpr int kMaxPrecision = 38;

std::string StringMember(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::string();
  return it->get<std::string>();
}

// A parameter given as a string (JsonConverter) or a number; `fallback` when absent or bad.
int IntParameter(const Json& field, const char* key, int fallback) {
  auto params = field.find("parameters");
  if (params == field.end() || !params->is_object()) return fallback;
  auto it = params->find(key);
  if (it == params->end()) return fallback;
  if (it->is_number_integer()) return it->get<int>();
  if (!it->is_string()) return fallback;
  int64_t v = 0;
  if (ParseInt64(it->get<std::string>(), &v) != IntParse::kOk || v < -100000 || v > 100000) {
    return fallback;
  }
  return static_cast<int>(v);
}

TypePtr LiteralType(const Json& schema);

std::vector<data::Field> StructFields(const Json& schema) {
  std::vector<data::Field> fields;
  auto it = schema.find("fields");
  if (it == schema.end() || !it->is_array()) return fields;
  for (const Json& field : *it) {
    if (!field.is_object()) continue;
    fields.push_back(data::Field{StringMember(field, "field"), LiteralType(field), true});
  }
  return fields;
}

// The type of a value nested in a struct, array or map: its literal type only.
TypePtr LiteralType(const Json& schema) {
  const std::string type = StringMember(schema, "type");
  if (type == "int8") return DataType::Int8();
  if (type == "int16") return DataType::Int16();
  if (type == "int32") return DataType::Int32();
  if (type == "int64") return DataType::Int64();
  if (type == "float" || type == "float32") return DataType::Float();
  if (type == "double" || type == "float64") return DataType::Double();
  if (type == "boolean") return DataType::Boolean();
  if (type == "struct") return DataType::Struct(StructFields(schema));
  if (type == "array") {
    auto items = schema.find("items");
    return DataType::List(items != schema.end() && items->is_object() ? LiteralType(*items)
                                                                      : DataType::String());
  }
  if (type == "map") {
    auto keys = schema.find("keys");
    auto values = schema.find("values");
    if (keys != schema.end() && keys->is_object() && StringMember(*keys, "type") == "string" &&
        values != schema.end() && values->is_object()) {
      return DataType::Map(DataType::String(), LiteralType(*values));
    }
  }
  return DataType::String();  // string, bytes (base64 text), maps with other keys (JSON text)
}

ColumnSpec FieldSpec(const Json& field) {
  const std::string name = StringMember(field, "name");
  const std::string type = StringMember(field, "type");
  if (!name.empty()) {
    if (name == "org.apache.kafka.connect.data.Decimal") {
      int scale = IntParameter(field, "scale", 0);
      if (scale < 0 || scale > kMaxPrecision) return {DataType::String(), CellEncoding::kPlain};
      int precision = IntParameter(field, "connect.decimal.precision", kMaxPrecision);
      precision = std::clamp(precision, std::max(scale, 1), kMaxPrecision);
      return {DataType::Decimal(precision, scale), CellEncoding::kDecimal};
    }
    if (name == "io.debezium.data.VariableScaleDecimal") {
      return {nullptr, CellEncoding::kVariableScaleDecimal};
    }
    if (name == "io.debezium.time.Date" || name == "org.apache.kafka.connect.data.Date") {
      return {DataType::Date(), CellEncoding::kDays};
    }
    if (name == "io.debezium.time.Time" || name == "org.apache.kafka.connect.data.Time") {
      return {DataType::Int64(), CellEncoding::kTimeMillis};
    }
    if (name == "io.debezium.time.MicroTime") return {DataType::Int64(), CellEncoding::kTimeMicros};
    if (name == "io.debezium.time.NanoTime") return {DataType::Int64(), CellEncoding::kTimeNanos};
    if (name == "io.debezium.time.Timestamp" || name == "org.apache.kafka.connect.data.Timestamp") {
      return {DataType::TimestampNtz(), CellEncoding::kTimestampMillis};
    }
    if (name == "io.debezium.time.MicroTimestamp") {
      return {DataType::TimestampNtz(), CellEncoding::kTimestampMicros};
    }
    if (name == "io.debezium.time.NanoTimestamp") {
      return {DataType::TimestampNtz(), CellEncoding::kTimestampNanos};
    }
    if (name == "io.debezium.time.ZonedTimestamp") {
      return {DataType::Timestamp(), CellEncoding::kZonedTimestamp};
    }
    if (name == "io.debezium.data.Bits" && type == "bytes") {
      return {DataType::Binary(), CellEncoding::kPlain};
    }
    // Uuid, Json, Xml, Enum, EnumSet, ZonedTime, Interval, Year, MicroDuration, geometry...:
    // their literal type below.
  }
  if (type == "bytes") return {DataType::Binary(), CellEncoding::kPlain};
  return {LiteralType(field), CellEncoding::kPlain};
}

std::vector<ConnectField> RowFields(const Json& struct_schema) {
  std::vector<ConnectField> fields;
  auto it = struct_schema.find("fields");
  if (it == struct_schema.end() || !it->is_array()) return fields;
  for (const Json& field : *it) {
    if (!field.is_object()) continue;
    fields.push_back(ConnectField{StringMember(field, "field"), FieldSpec(field)});
  }
  return fields;
}

}  // namespace

Result<ConnectSchema> ConnectSchema::Parse(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(Json root, json::Parse(text));
  if (!root.is_object() || StringMember(root, "type") != "struct") {
    return Status::Corrupt("the Connect schema is not a struct schema");
  }
  auto fields = root.find("fields");
  if (fields == root.end() || !fields->is_array()) {
    return Status::Corrupt("the Connect schema has no fields");
  }
  ConnectSchema schema;
  for (const Json& field : *fields) {
    if (!field.is_object()) return Status::Corrupt("a Connect schema field is not an object");
    const std::string name = StringMember(field, "field");
    if ((name == "after" || name == "before") && StringMember(field, "type") == "struct") {
      schema.envelope = true;
      (name == "after" ? schema.after : schema.before) = RowFields(field);
    }
  }
  if (!schema.envelope) schema.after = RowFields(root);
  return schema;
}

}  // namespace cdclake::sources::internal
