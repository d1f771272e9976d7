// Metadata changes: properties, additive schema evolution, column type widening.
#include "delta/metadata_change.h"

#include <algorithm>

#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/type_widening.h"

namespace cdclake::delta {

namespace {

// Features a legacy protocol version implies; they must be listed once the table moves to reader
// version 3 or writer version 7 (§Table Features for New and Existing Tables).
std::vector<std::string> ImpliedReaderFeatures(int32_t version) {
  if (version >= 2) return {"columnMapping"};
  return {};
}

std::vector<std::string> ImpliedWriterFeatures(int32_t version) {
  std::vector<std::string> out;
  if (version >= 2) out.insert(out.end(), {"appendOnly", "invariants"});
  if (version >= 3) out.push_back("checkConstraints");
  if (version >= 4) out.insert(out.end(), {"changeDataFeed", "generatedColumns"});
  if (version >= 5) out.push_back("columnMapping");
  if (version >= 6) out.push_back("identityColumns");
  return out;
}

// The protocol that covers both `current` and what `spec` needs.
Protocol Upgrade(const Protocol& current, const TableSpec& spec) {
  Protocol needed = ProtocolFor(spec);
  if (HasTypeWidening(current)) {
    // A table on the preview name keeps it rather than listing the feature twice.
    for (auto* list : {&needed.reader_features, &needed.writer_features}) {
      if (list->has_value()) std::erase((*list).value(), std::string(kTypeWideningFeature));
    }
  }
  if (needed.min_reader_version <= current.min_reader_version &&
      needed.min_writer_version <= current.min_writer_version && !needed.writer_features) {
    return current;
  }
  Protocol out = current;
  out.min_reader_version = std::max(current.min_reader_version, needed.min_reader_version);
  out.min_writer_version = std::max(current.min_writer_version, needed.min_writer_version);
  auto merge = [](std::optional<std::vector<std::string>>& into,
                  const std::optional<std::vector<std::string>>& from) {
    if (!from) return;
    if (!into) into = std::vector<std::string>{};
    for (const std::string& f : *from) {
      if (std::find(into->begin(), into->end(), f) == into->end()) into->push_back(f);
    }
  };
  if (out.min_reader_version >= 3) {
    if (current.min_reader_version < 3) {
      merge(out.reader_features, ImpliedReaderFeatures(current.min_reader_version));
    }
    merge(out.reader_features, needed.reader_features);
  }
  if (out.min_writer_version >= 7) {
    if (current.min_writer_version < 7) {
      merge(out.writer_features, ImpliedWriterFeatures(current.min_writer_version));
    }
    merge(out.writer_features, needed.writer_features);
  }
  return out;
}

Status CheckAdditive(const data::DataType& before, const data::DataType& after,
                     const std::string& name) {
  if (before.id() != after.id()) {
    return Status::InvalidArgument("column '" + name + "' changes type from " + before.ToString() +
                                   " to " + after.ToString());
  }
  if (before.id() != data::TypeId::kStruct) {
    if (!before.Equals(after)) {
      return Status::InvalidArgument("column '" + name + "' changes type from " +
                                     before.ToString() + " to " + after.ToString());
    }
    return Status::OK();
  }
  for (const data::Field& f : before.fields()) {
    const data::Field* match = nullptr;
    for (const data::Field& g : after.fields()) {
      if (g.name == f.name) match = &g;
    }
    if (match == nullptr)
      return Status::InvalidArgument("column '" + name + "." + f.name + "' would be dropped");
    CDCLAKE_RETURN_IF_ERROR(CheckAdditive(*f.type, *match->type, name + "." + f.name));
  }
  return Status::OK();
}

Result<int64_t> Commit(io::FileSystem& fs, const std::string& table_root,
                       const std::shared_ptr<const Snapshot>& snap, Metadata metadata,
                       const data::Schema& schema, const std::string& operation,
                       json::Json parameters) {
  TableSpec spec;
  spec.schema = schema;
  spec.properties = metadata.configuration;
  Protocol protocol = Upgrade(snap->protocol(), spec);
  Transaction txn(fs, table_root, snap);
  if (protocol.min_reader_version != snap->protocol().min_reader_version ||
      protocol.min_writer_version != snap->protocol().min_writer_version ||
      protocol.reader_features != snap->protocol().reader_features ||
      protocol.writer_features != snap->protocol().writer_features) {
    txn.Add(protocol);
  }
  txn.Add(std::move(metadata));
  CommitOptions options;
  options.operation = operation;
  options.operation_parameters = std::move(parameters);
  return txn.Commit(options);
}

}  // namespace

Protocol WithWriterFeature(const Protocol& current, const std::string& feature) {
  Protocol out = current;
  if (out.min_writer_version < 7) {
    out.writer_features = ImpliedWriterFeatures(current.min_writer_version);
    out.min_writer_version = 7;
  }
  if (!out.writer_features) out.writer_features = std::vector<std::string>{};
  if (std::find(out.writer_features->begin(), out.writer_features->end(), feature) ==
      out.writer_features->end()) {
    out.writer_features->push_back(feature);
  }
  return out;
}

Result<int64_t> SetTableProperties(io::FileSystem& fs, const std::string& table_root,
                                   const std::map<std::string, std::string>& properties) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(fs, table_root));
  Metadata m = snap->metadata();
  json::Json params = json::Json::object();
  for (const auto& [k, v] : properties) {
    m.configuration[k] = v;
    params[k] = v;
  }
  return Commit(fs, table_root, snap, std::move(m), snap->schema(), "SET TBLPROPERTIES",
                json::Json{{"properties", json::Dump(params)}});
}

Result<std::optional<int64_t>> UpdateTableProperties(
    io::FileSystem& fs, const std::string& table_root, const Snapshot& snapshot,
    const std::map<std::string, std::string>& wanted) {
  const Snapshot* snap = &snapshot;
  std::map<std::string, std::string> changed;
  for (const auto& [key, value] : wanted) {
    const std::string have = snap->Property(key);
    if (have == value) continue;
    const std::string where = table_root + ": table property " + key + " is '" + have +
                              "' and the definition says '" + value + "'; ";
    if (key == "delta.columnMapping.mode" && !(have.empty() && value == "none")) {
      return Status::InvalidArgument(where +
                                     "changing column mapping renames the physical columns of "
                                     "every file, which cdclake does not do in place; rebuild "
                                     "the table (--full-refresh) to change it");
    }
    if (key == "delta.enableDeletionVectors" && have == "true" && value != "true") {
      return Status::InvalidArgument(where +
                                     "the table's files carry deletion vectors already, and "
                                     "turning them off would leave the apply engine rewriting "
                                     "files around them; rebuild the table (--full-refresh) or "
                                     "keep the value");
    }
    if (key == "cdclake.keys" || key == "cdclake.sequenceType") {
      return Status::InvalidArgument(where +
                                     "it records how the table was created and cannot change; "
                                     "rebuild the table (--full-refresh) instead");
    }
    changed[key] = value;
  }
  if (changed.empty()) return std::optional<int64_t>();
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, SetTableProperties(fs, table_root, changed));
  return std::optional<int64_t>(version);
}

Result<int64_t> EvolveSchema(io::FileSystem& fs, const std::string& table_root,
                             const data::Schema& schema) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(fs, table_root));
  if (snap->column_mapping_mode() != "none") {
    return Status::NotSupported("not supported: schema changes on a table with column mapping");
  }
  const data::Schema& before = snap->schema();
  for (const data::Field& f : before.fields()) {
    int i = schema.FieldIndex(f.name);
    if (i < 0) return Status::InvalidArgument("column '" + f.name + "' would be dropped");
    CDCLAKE_RETURN_IF_ERROR(CheckAdditive(*f.type, *schema.field(i).type, f.name));
  }
  for (const data::Field& f : schema.fields()) {
    if (before.FieldIndex(f.name) < 0 && !f.nullable) {
      return Status::InvalidArgument("new column '" + f.name +
                                     "' must be nullable (older rows have no value)");
    }
  }
  // Existing fields keep their metadata (§Type Widening: writers must preserve typeChanges).
  DeltaSchema evolved{schema, snap->delta_schema().field_metadata};
  Metadata m = snap->metadata();
  m.schema_string = DeltaSchemaToJson(evolved);
  return Commit(fs, table_root, snap, std::move(m), schema, "ADD COLUMNS", json::Json::object());
}

Result<int64_t> WidenColumns(io::FileSystem& fs, const std::string& table_root,
                             const std::map<std::string, data::TypePtr>& new_types) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(fs, table_root));
  const std::string enable(kEnableTypeWideningProperty);
  if (snap->Property(enable) == "false") {
    return Status::InvalidArgument(table_root + ": type widening is turned off (" + enable +
                                   "=false)");
  }
  const auto& writer_features = snap->protocol().writer_features;
  auto listed = [&](const char* feature) {
    return writer_features && std::find(writer_features->begin(), writer_features->end(),
                                        feature) != writer_features->end();
  };
  const bool iceberg = listed("icebergCompatV1") || listed("icebergCompatV2");

  DeltaSchema widened = snap->delta_schema();
  std::vector<data::Field> fields = widened.schema.fields();
  json::Json changed = json::Json::array();
  for (const auto& [name, type] : new_types) {
    int i = widened.schema.FieldIndex(name);
    if (i < 0) return Status::NotFound(table_root + ": no column named '" + name + "'");
    data::Field& field = fields[i];
    if (type == nullptr) return Status::InvalidArgument("column '" + name + "': no type given");
    if (field.type->Equals(*type)) continue;
    auto refuse = [&](const std::string& why) {
      return Status::InvalidArgument("column '" + name + "' cannot change type from " +
                                     DeltaTypeName(*field.type) + " to " + DeltaTypeName(*type) +
                                     ": " + why);
    };
    if (!IsTypeWidening(*field.type, *type)) return refuse("not a widening Delta allows");
    if (iceberg && !IsIcebergCompatibleWidening(*field.type, *type)) {
      return refuse(
          "Iceberg compatibility allows only integer, float and decimal precision "
          "widening");
    }
    json::Json& metadata = widened.field_metadata[FieldPath({name})];
    if (!metadata.is_object()) metadata = json::Json::object();
    json::Json& history = metadata[std::string(kTypeChangesKey)];
    if (history.is_null()) history = json::Json::array();
    if (!history.is_array()) {
      return Status::Corrupt(table_root + ": column '" + name + "' has a " +
                             std::string(kTypeChangesKey) + " that is not an array");
    }
    history.push_back(TypeChangeToJson(TypeChange{field.type, type, ""}));
    changed.push_back(json::Json{{"name", name},
                                 {"fromType", DeltaTypeName(*field.type)},
                                 {"toType", DeltaTypeName(*type)}});
    field.type = type;
  }
  if (changed.empty()) return snap->version();
  widened.schema = data::Schema(std::move(fields));
  Metadata m = snap->metadata();
  m.schema_string = DeltaSchemaToJson(widened);
  m.configuration[enable] = "true";
  return Commit(fs, table_root, snap, std::move(m), widened.schema, "CHANGE COLUMN",
                json::Json{{"columns", json::Dump(changed)}});
}

}  // namespace cdclake::delta
