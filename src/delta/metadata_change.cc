// Metadata changes.
#include "delta/metadata_change.h"

#include <algorithm>

#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"

namespace cdclake::delta {

namespace {

// The protocol that covers both `current` and what `spec` needs.
Protocol Upgrade(const Protocol& current, const TableSpec& spec) {
  Protocol needed = ProtocolFor(spec);
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
  if (out.min_reader_version >= 3) merge(out.reader_features, needed.reader_features);
  if (out.min_writer_version >= 7) merge(out.writer_features, needed.writer_features);
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
  Metadata m = snap->metadata();
  m.schema_string = SchemaToJson(schema);
  return Commit(fs, table_root, snap, std::move(m), schema, "ADD COLUMNS", json::Json::object());
}

}  // namespace cdclake::delta
