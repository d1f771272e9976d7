// Delta schema JSON: the type grammar both ways, field metadata by path, physical names.
#include "delta/schema_json.h"

#include <set>
#include <utility>

#include "json/json.h"

namespace cdclake::delta {

namespace {

using data::DataType;
using data::Field;
using data::TypeId;
using data::TypePtr;
using Json = nlohmann::json;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string AtPath(const std::vector<std::string>& path) {
  return path.empty() ? std::string() : " (column '" + FieldPath(path) + "')";
}

// "decimal(p,s)" with optional blanks, or "decimal" (Spark's default decimal(10,0)).
Result<TypePtr> ParseDecimalName(std::string_view name, const std::vector<std::string>& path) {
  auto bad = [&] {
    return Status::Corrupt("malformed decimal type '" + std::string(name) + "'" + AtPath(path));
  };
  if (name == "decimal") return DataType::Decimal(10, 0);
  size_t pos = 7;  // after "decimal"
  auto skip_blanks = [&] {
    while (pos < name.size() && name[pos] == ' ') ++pos;
  };
  auto number = [&](int* out) {
    skip_blanks();
    bool negative = pos < name.size() && name[pos] == '-';
    if (negative) ++pos;
    int v = 0, digits = 0;
    while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9' && digits < 4) {
      v = v * 10 + (name[pos++] - '0');
      ++digits;
    }
    skip_blanks();
    *out = negative ? -v : v;
    return digits > 0;
  };
  skip_blanks();
  if (pos >= name.size() || name[pos] != '(') return bad();
  ++pos;
  int precision = 0, scale = 0;
  if (!number(&precision) || pos >= name.size() || name[pos] != ',') return bad();
  ++pos;
  if (!number(&scale) || pos >= name.size() || name[pos] != ')' || pos + 1 != name.size())
    return bad();
  if (scale < 0)
    return Status::NotSupported("type " + std::string(name) + " (negative scale)" + AtPath(path));
  if (precision < 1 || precision > 38 || scale > precision) {
    return Status::Corrupt("decimal precision/scale out of range in '" + std::string(name) + "'" +
                           AtPath(path));
  }
  return DataType::Decimal(precision, scale);
}

Result<TypePtr> ParsePrimitive(const std::string& name, const std::vector<std::string>& path) {
  if (name == "boolean") return DataType::Boolean();
  if (name == "byte") return DataType::Int8();
  if (name == "short") return DataType::Int16();
  if (name == "integer") return DataType::Int32();
  if (name == "long") return DataType::Int64();
  if (name == "float") return DataType::Float();
  if (name == "double") return DataType::Double();
  if (name == "string") return DataType::String();
  if (name == "binary") return DataType::Binary();
  if (name == "date") return DataType::Date();
  if (name == "timestamp") return DataType::Timestamp();
  if (name == "timestamp_ntz") return DataType::TimestampNtz();
  if (name.rfind("decimal", 0) == 0) return ParseDecimalName(name, path);
  return Status::NotSupported("type " + name + AtPath(path));
}

// A boolean member that defaults to true when absent or null.
Result<bool> FlagOr(const Json& object, const char* key, const std::vector<std::string>& path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_boolean())
    return Status::Corrupt(std::string("'") + key + "' is not a boolean" + AtPath(path));
  return it->get<bool>();
}

Result<const Json*> Member(const Json& object, const char* key,
                           const std::vector<std::string>& path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return Status::Corrupt(std::string("missing '") + key + "'" + AtPath(path));
  }
  return &*it;
}

Result<std::vector<Field>> ParseStruct(const Json& object, std::vector<std::string>* path,
                                       DeltaSchema* out);

Result<TypePtr> ParseType(const Json& type, std::vector<std::string>* path, DeltaSchema* out) {
  if (type.is_string()) return ParsePrimitive(type.get<std::string>(), *path);
  if (!type.is_object())
    return Status::Corrupt("a type is neither a name nor an object" + AtPath(*path));
  CDCLAKE_ASSIGN_OR_RETURN(const Json* kind, Member(type, "type", *path));
  if (!kind->is_string()) return Status::Corrupt("'type' is not a string" + AtPath(*path));
  const std::string& name = kind->get_ref<const std::string&>();
  if (name == "struct") {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Field> fields, ParseStruct(type, path, out));
    return DataType::Struct(std::move(fields));
  }
  if (name == "array") {
    CDCLAKE_ASSIGN_OR_RETURN(const Json* element, Member(type, "elementType", *path));
    CDCLAKE_ASSIGN_OR_RETURN(bool contains_null, FlagOr(type, "containsNull", *path));
    path->push_back("element");
    auto element_type = ParseType(*element, path, out);
    path->pop_back();
    if (!element_type.ok()) return element_type.status();
    return DataType::List(std::move(element_type).value(), contains_null);
  }
  if (name == "map") {
    CDCLAKE_ASSIGN_OR_RETURN(const Json* key, Member(type, "keyType", *path));
    CDCLAKE_ASSIGN_OR_RETURN(const Json* value, Member(type, "valueType", *path));
    CDCLAKE_ASSIGN_OR_RETURN(bool value_contains_null, FlagOr(type, "valueContainsNull", *path));
    path->push_back("key");
    auto key_type = ParseType(*key, path, out);
    path->back() = "value";
    auto value_type = ParseType(*value, path, out);
    path->pop_back();
    if (!key_type.ok()) return key_type.status();
    if (!value_type.ok()) return value_type.status();
    return DataType::Map(std::move(key_type).value(), std::move(value_type).value(),
                         value_contains_null);
  }
  return Status::NotSupported("type " + name + AtPath(*path));
}

Result<std::vector<Field>> ParseStruct(const Json& object, std::vector<std::string>* path,
                                       DeltaSchema* out) {
  CDCLAKE_ASSIGN_OR_RETURN(const Json* fields, Member(object, "fields", *path));
  if (!fields->is_array()) return Status::Corrupt("'fields' is not an array" + AtPath(*path));
  std::vector<Field> result;
  std::set<std::string> seen;
  for (const Json& f : *fields) {
    if (!f.is_object()) return Status::Corrupt("a struct field is not an object" + AtPath(*path));
    CDCLAKE_ASSIGN_OR_RETURN(const Json* name, Member(f, "name", *path));
    if (!name->is_string()) return Status::Corrupt("a field name is not a string" + AtPath(*path));
    Field field;
    field.name = name->get<std::string>();
    path->push_back(field.name);
    if (!seen.insert(Lower(field.name)).second) {
      return Status::Corrupt("duplicate column name (names must differ ignoring case)" +
                             AtPath(*path));
    }
    auto type_json = Member(f, "type", *path);
    if (!type_json.ok()) return type_json.status();
    auto type = ParseType(**type_json, path, out);
    if (!type.ok()) return type.status();
    field.type = std::move(type).value();
    auto nullable = FlagOr(f, "nullable", *path);
    if (!nullable.ok()) return nullable.status();
    field.nullable = *nullable;
    auto metadata = f.find("metadata");
    if (metadata != f.end() && !metadata->is_null()) {
      if (!metadata->is_object())
        return Status::Corrupt("'metadata' is not an object" + AtPath(*path));
      if (!metadata->empty()) out->field_metadata[FieldPath(*path)] = *metadata;
    }
    path->pop_back();
    result.push_back(std::move(field));
  }
  return result;
}

const char* PrimitiveName(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "byte";
    case TypeId::kInt16:
      return "short";
    case TypeId::kInt32:
      return "integer";
    case TypeId::kInt64:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
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
    default:
      return "";
  }
}

void AppendString(const std::string& s, std::string* out) {
  out->append(json::Dump(Json(s)));
}

void AppendFields(const std::vector<Field>& fields, std::vector<std::string>* path,
                  const DeltaSchema& schema, std::string* out);

void AppendType(const DataType& type, std::vector<std::string>* path, const DeltaSchema& schema,
                std::string* out) {
  switch (type.id()) {
    case TypeId::kDecimal:
      out->append("\"decimal(" + std::to_string(type.precision()) + "," +
                  std::to_string(type.scale()) + ")\"");
      return;
    case TypeId::kStruct:
      AppendFields(type.fields(), path, schema, out);
      return;
    case TypeId::kList:
      out->append("{\"type\":\"array\",\"elementType\":");
      path->push_back("element");
      AppendType(*type.fields()[0].type, path, schema, out);
      path->pop_back();
      out->append(",\"containsNull\":");
      out->append(type.fields()[0].nullable ? "true" : "false");
      out->push_back('}');
      return;
    case TypeId::kMap:
      out->append("{\"type\":\"map\",\"keyType\":");
      path->push_back("key");
      AppendType(*type.fields()[0].type, path, schema, out);
      out->append(",\"valueType\":");
      path->back() = "value";
      AppendType(*type.fields()[1].type, path, schema, out);
      path->pop_back();
      out->append(",\"valueContainsNull\":");
      out->append(type.fields()[1].nullable ? "true" : "false");
      out->push_back('}');
      return;
    default:
      out->push_back('"');
      out->append(PrimitiveName(type.id()));
      out->push_back('"');
      return;
  }
}

void AppendFields(const std::vector<Field>& fields, std::vector<std::string>* path,
                  const DeltaSchema& schema, std::string* out) {
  out->append("{\"type\":\"struct\",\"fields\":[");
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (i > 0) out->push_back(',');
    path->push_back(f.name);
    out->append("{\"name\":");
    AppendString(f.name, out);
    out->append(",\"type\":");
    AppendType(*f.type, path, schema, out);
    out->append(",\"nullable\":");
    out->append(f.nullable ? "true" : "false");
    out->append(",\"metadata\":");
    auto it = schema.field_metadata.find(FieldPath(*path));
    out->append(it == schema.field_metadata.end() ? "{}" : json::Dump(it->second));
    out->push_back('}');
    path->pop_back();
  }
  out->append("]}");
}

Result<TypePtr> ToPhysical(const TypePtr& type, std::vector<std::string>* path,
                           const DeltaSchema& schema);

Result<std::vector<Field>> PhysicalFields(const std::vector<Field>& fields,
                                          std::vector<std::string>* path,
                                          const DeltaSchema& schema) {
  std::vector<Field> out;
  out.reserve(fields.size());
  for (const Field& f : fields) {
    path->push_back(f.name);
    std::string key = FieldPath(*path);
    auto info = ColumnMappingOf(schema, key);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) {
        return Status::Corrupt("column '" + key + "' has no delta.columnMapping.physicalName");
      }
      return info.status();
    }
    auto type = ToPhysical(f.type, path, schema);
    path->pop_back();
    if (!type.ok()) return type.status();
    out.push_back(Field{info->physical_name, std::move(type).value(), f.nullable});
  }
  return out;
}

Result<TypePtr> ToPhysical(const TypePtr& type, std::vector<std::string>* path,
                           const DeltaSchema& schema) {
  switch (type->id()) {
    case TypeId::kStruct: {
      CDCLAKE_ASSIGN_OR_RETURN(std::vector<Field> fields,
                               PhysicalFields(type->fields(), path, schema));
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList: {
      path->push_back("element");
      auto element = ToPhysical(type->fields()[0].type, path, schema);
      path->pop_back();
      if (!element.ok()) return element.status();
      return DataType::List(std::move(element).value(), type->fields()[0].nullable);
    }
    case TypeId::kMap: {
      path->push_back("key");
      auto key = ToPhysical(type->fields()[0].type, path, schema);
      path->back() = "value";
      auto value = ToPhysical(type->fields()[1].type, path, schema);
      path->pop_back();
      if (!key.ok()) return key.status();
      if (!value.ok()) return value.status();
      return DataType::Map(std::move(key).value(), std::move(value).value(),
                           type->fields()[1].nullable);
    }
    default:
      return type;
  }
}

}  // namespace

std::string FieldPath(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out.push_back('.');
    const std::string& n = names[i];
    if (n.empty() || n.find_first_of(".`") != std::string::npos) {
      out.push_back('`');
      for (char c : n) {
        if (c == '`') out.push_back('`');
        out.push_back(c);
      }
      out.push_back('`');
    } else {
      out += n;
    }
  }
  return out;
}

Result<DeltaSchema> ParseDeltaSchema(std::string_view schema_string) {
  auto parsed = json::Parse(schema_string);
  if (!parsed.ok()) return parsed.status().WithContext("schemaString");
  const Json& root = *parsed;
  if (!root.is_object()) return Status::Corrupt("schemaString: not a JSON object");
  auto kind = root.find("type");
  if (kind == root.end() || !kind->is_string() || kind->get_ref<const std::string&>() != "struct") {
    return Status::Corrupt("schemaString: the top level is not a struct");
  }
  DeltaSchema out;
  std::vector<std::string> path;
  auto fields = ParseStruct(root, &path, &out);
  if (!fields.ok()) {
    // kNotSupported keeps its plain "type <name>" message for callers to show.
    if (fields.status().code() != StatusCode::kCorrupt) return fields.status();
    return fields.status().WithContext("schemaString");
  }
  out.schema = data::Schema(std::move(fields).value());
  return out;
}

Result<data::Schema> ParseSchemaJson(std::string_view schema_string) {
  CDCLAKE_ASSIGN_OR_RETURN(DeltaSchema parsed, ParseDeltaSchema(schema_string));
  return std::move(parsed.schema);
}

std::string DeltaSchemaToJson(const DeltaSchema& schema) {
  std::string out;
  std::vector<std::string> path;
  AppendFields(schema.schema.fields(), &path, schema, &out);
  return out;
}

std::string SchemaToJson(const data::Schema& schema) {
  DeltaSchema wrapped;
  wrapped.schema = schema;
  return DeltaSchemaToJson(wrapped);
}

Result<ColumnMappingInfo> ColumnMappingOf(const DeltaSchema& schema, std::string_view path) {
  auto it = schema.field_metadata.find(std::string(path));
  if (it == schema.field_metadata.end()) {
    return Status::NotFound("column '" + std::string(path) + "' has no column mapping metadata");
  }
  const Json& metadata = it->second;
  auto name = metadata.find("delta.columnMapping.physicalName");
  if (name == metadata.end() || name->is_null()) {
    return Status::NotFound("column '" + std::string(path) +
                            "' has no delta.columnMapping.physicalName");
  }
  if (!name->is_string() || name->get_ref<const std::string&>().empty()) {
    return Status::Corrupt("column '" + std::string(path) +
                           "': delta.columnMapping.physicalName is not a name");
  }
  ColumnMappingInfo info;
  info.physical_name = name->get<std::string>();
  auto id = metadata.find("delta.columnMapping.id");
  if (id != metadata.end() && !id->is_null()) {
    if (!id->is_number_integer()) {
      return Status::Corrupt("column '" + std::string(path) +
                             "': delta.columnMapping.id is not an integer");
    }
    info.id = id->get<int64_t>();
  }
  return info;
}

Result<data::Schema> PhysicalSchema(const DeltaSchema& schema, std::string_view mode) {
  std::string m = Lower(mode);
  if (m.empty() || m == "none") return schema.schema;
  if (m != "name" && m != "id")
    return Status::NotSupported("column mapping mode '" + std::string(mode) + "'");
  std::vector<std::string> path;
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Field> fields,
                           PhysicalFields(schema.schema.fields(), &path, schema));
  return data::Schema(std::move(fields));
}

std::string PrimitiveTypeName(const data::DataType& type) {
  if (type.id() == TypeId::kDecimal) {
    return "decimal(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) + ")";
  }
  if (type.is_nested()) return type.ToString();
  return PrimitiveName(type.id());
}

Result<data::TypePtr> ParsePrimitiveTypeName(std::string_view name) {
  return ParsePrimitive(std::string(name), {});
}

}  // namespace cdclake::delta
