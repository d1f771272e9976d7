// Delta schema JSON (PROTOCOL.md §Schema Serialization Format, §Column Mapping): schemaString to
// and from data::Schema, each field's metadata kept beside it, and the physical schema.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "data/schema.h"

namespace cdclake::delta {

/// A field's column-mapping identity: `delta.columnMapping.physicalName` and
/// `delta.columnMapping.id`.
struct ColumnMappingInfo {
  std::string physical_name;
  int64_t id = 0;
};

/// A table schema as the log records it: the logical schema, plus each struct field's `metadata`
/// object (column mapping, identity, generation expressions, invariants, unknown keys: all kept)
/// keyed by the field's path (see FieldPath). Fields whose metadata is `{}` have no entry.
struct DeltaSchema {
  data::Schema schema;  // logical names
  std::map<std::string, nlohmann::json> field_metadata;

  bool operator==(const DeltaSchema& other) const = default;
};

/// Parses a schemaString. kCorrupt on malformed JSON or structure (missing name/type, bad
/// decimal, names that repeat ignoring case); kNotSupported("type <name>") for types cdclake
/// does not model (variant, void, intervals, char/varchar, ...).
Result<DeltaSchema> ParseDeltaSchema(std::string_view schema_string);
/// ParseDeltaSchema without the metadata.
Result<data::Schema> ParseSchemaJson(std::string_view schema_string);

/// Compact JSON in Spark's layout: {"type":"struct","fields":[{"name","type","nullable",
/// "metadata"}]}, metadata always written (`{}` when empty; keys sorted).
std::string DeltaSchemaToJson(const DeltaSchema& schema);
/// SchemaToJson(s) == DeltaSchemaToJson({s, {}}).
std::string SchemaToJson(const data::Schema& schema);

/// The key of a field in DeltaSchema::field_metadata: names joined by '.', with "element" for a
/// list's element and "key"/"value" for a map's ("a.b", "arr.element.x", "m.value.y"). A name
/// holding '.' or '`', or empty, is quoted in backticks with '`' doubled, as Spark quotes.
std::string FieldPath(const std::vector<std::string>& names);

/// The column-mapping identity of the field at `path` (a FieldPath). kNotFound when the field
/// has no metadata entry or lacks physicalName; kCorrupt when the keys have the wrong types.
/// `id` is 0 when only the physical name is recorded.
Result<ColumnMappingInfo> ColumnMappingOf(const DeltaSchema& schema, std::string_view path);

/// The schema as data files name it under `delta.columnMapping.mode` `mode`: "none" (or "")
/// returns the logical schema; "name" and "id" rename every struct field, nested ones and those
/// inside lists and maps included, to its physicalName (kCorrupt if one lacks it). Mode names
/// are case-insensitive; others are kNotSupported.
Result<data::Schema> PhysicalSchema(const DeltaSchema& schema, std::string_view mode);

/// A primitive type's name as Delta schemas spell it ("integer", "long", "decimal(10,2)",
/// "timestamp_ntz"); nested types get their DDL spelling.
std::string PrimitiveTypeName(const data::DataType& type);

/// Parses a primitive type name as Delta schemas spell it. kNotSupported for an unknown name,
/// kCorrupt for a malformed decimal.
Result<data::TypePtr> ParsePrimitiveTypeName(std::string_view name);

}  // namespace cdclake::delta
