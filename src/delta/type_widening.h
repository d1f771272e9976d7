// Type widening (PROTOCOL.md §Type Widening): which type changes are widenings, the
// `delta.typeChanges` field metadata that records them, and the upcast that gives values read
// from files written before a change the table's wider type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "data/column.h"
#include "data/data_type.h"
#include "delta/actions.h"
#include "delta/schema_json.h"

namespace cdclake::delta {

/// The reader-writer feature name, and the name tables used while the feature was in preview.
inline constexpr std::string_view kTypeWideningFeature = "typeWidening";
inline constexpr std::string_view kTypeWideningPreviewFeature = "typeWidening-preview";
/// The field-metadata key holding a field's history of type changes.
inline constexpr std::string_view kTypeChangesKey = "delta.typeChanges";
/// The table property that must be "true" for writers to apply type changes.
inline constexpr std::string_view kEnableTypeWideningProperty = "delta.enableTypeWidening";

/// One entry of `delta.typeChanges`: {"fromType", "toType"[, "fieldPath"]}.
struct TypeChange {
  data::TypePtr from_type;
  data::TypePtr to_type;
  /// Empty for the field itself; "element", "key", "value" (dot-joined when nested, as in
  /// "element.value") for an array element or map key/value inside it.
  std::string field_path;
};

/// Whether `from` -> `to` is a type change the spec lists: byte -> short -> int -> long (any to
/// a wider one); float -> double; byte/short/int -> double; date -> timestamp_ntz;
/// decimal(p,s) -> decimal(p+k1,s+k2) with k1 >= k2 >= 0 (not both 0); byte/short/int ->
/// decimal(10+k1,k2) and long -> decimal(20+k1,k2) with k1 >= k2 >= 0. Only primitive types.
bool IsTypeWidening(const data::DataType& from, const data::DataType& to);

/// IsTypeWidening and also allowed by Iceberg V2 (required when icebergCompatV1/V2 is on): not
/// integer -> double, date -> timestamp_ntz, a decimal scale increase, or integer -> decimal.
bool IsIcebergCompatibleWidening(const data::DataType& from, const data::DataType& to);

/// The type's name in a Delta schema ("integer", "long", "decimal(10,4)", "timestamp_ntz").
/// REQUIRES: a primitive type.
std::string DeltaTypeName(const data::DataType& type);

/// Parses a Delta primitive type name (blanks inside "decimal(6, 2)" allowed). kNotSupported
/// for types cdclake does not model, kCorrupt for malformed names.
Result<data::TypePtr> ParseDeltaTypeName(std::string_view name);

/// Parses the value of a field's `delta.typeChanges`: a JSON array of objects with string
/// members fromType and toType, and optionally fieldPath (other members are ignored).
/// kCorrupt when the shape is wrong; kNotSupported for an unknown type name.
Result<std::vector<TypeChange>> ParseTypeChanges(const nlohmann::json& value);

/// The JSON object of one entry: {"fromType":..,"toType":..} plus "fieldPath" when set.
nlohmann::json TypeChangeToJson(const TypeChange& change);

/// Whether the protocol lists type widening (either name) as a reader or writer feature.
bool HasTypeWidening(const Protocol& protocol);

/// The reader check (§Reader Requirements for Type Widening): every `delta.typeChanges` entry in
/// the schema parses and is a supported widening. kNotSupported names the field and the change.
Status CheckTypeChanges(const DeltaSchema& schema);

/// Converts a column read from a data file to the table's type `to`, as readers must for files
/// written before a type change. Accepted: the same layout under another type (retyped in place:
/// string/binary, timestamp/timestamp_ntz, decimals of equal scale); integer -> wider integer;
/// float or byte/short/int -> double; date -> timestamp_ntz (midnight); integer or decimal ->
/// decimal of equal or larger scale, each value checked against the target precision; structs,
/// lists and maps member by member. kNotSupported, naming column `name` and both types, for
/// anything else; kOutOfRange for a value too wide for the target decimal.
Result<data::Column> UpcastColumn(data::Column column, const data::TypePtr& to,
                                  std::string_view name);

}  // namespace cdclake::delta
