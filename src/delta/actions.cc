// Action JSON parsing and serialization.
#include "delta/actions.h"

namespace cdclake::delta {

using json::Json;

namespace {

Result<std::optional<std::vector<std::string>>> OptStringList(const Json& obj,
                                                              std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::vector<std::string>>();
  if (!it->is_array())
    return Status::Corrupt("field '" + std::string(key) + "' should be an array");
  std::vector<std::string> out;
  for (const Json& e : *it) {
    if (!e.is_string())
      return Status::Corrupt("field '" + std::string(key) + "' should hold strings");
    out.push_back(e.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::optional<DeletionVectorDescriptor>> ParseDv(const Json& obj) {
  auto it = obj.find("deletionVector");
  if (it == obj.end() || it->is_null()) return std::optional<DeletionVectorDescriptor>();
  const Json& d = *it;
  DeletionVectorDescriptor dv;
  CDCLAKE_ASSIGN_OR_RETURN(dv.storage_type, json::GetString(d, "storageType"));
  CDCLAKE_ASSIGN_OR_RETURN(dv.path_or_inline_dv, json::GetString(d, "pathOrInlineDv"));
  CDCLAKE_ASSIGN_OR_RETURN(auto offset, json::OptInt(d, "offset"));
  if (offset) dv.offset = static_cast<int32_t>(*offset);
  CDCLAKE_ASSIGN_OR_RETURN(int64_t size, json::GetInt(d, "sizeInBytes"));
  dv.size_in_bytes = static_cast<int32_t>(size);
  CDCLAKE_ASSIGN_OR_RETURN(dv.cardinality, json::GetInt(d, "cardinality"));
  return std::optional<DeletionVectorDescriptor>(std::move(dv));
}

Json DvToJson(const DeletionVectorDescriptor& dv) {
  Json d = Json::object();
  d["storageType"] = dv.storage_type;
  d["pathOrInlineDv"] = dv.path_or_inline_dv;
  if (dv.offset) d["offset"] = *dv.offset;
  d["sizeInBytes"] = dv.size_in_bytes;
  d["cardinality"] = dv.cardinality;
  return d;
}

Json StringMapToJson(const std::map<std::string, std::optional<std::string>>& m) {
  Json o = Json::object();
  for (const auto& [k, v] : m) o[k] = v ? Json(*v) : Json(nullptr);
  return o;
}

// The fields add and remove share (§Add File and Remove File).
template <typename T>
Status ParseFileFields(const Json& b, T* f) {
  CDCLAKE_ASSIGN_OR_RETURN(f->path, json::GetString(b, "path"));
  CDCLAKE_ASSIGN_OR_RETURN(auto dc, json::OptBool(b, "dataChange"));
  f->data_change = dc.value_or(true);
  CDCLAKE_ASSIGN_OR_RETURN(f->stats, json::OptString(b, "stats"));
  CDCLAKE_ASSIGN_OR_RETURN(f->tags, json::OptStringMap(b, "tags"));
  CDCLAKE_ASSIGN_OR_RETURN(f->deletion_vector, ParseDv(b));
  CDCLAKE_ASSIGN_OR_RETURN(f->base_row_id, json::OptInt(b, "baseRowId"));
  CDCLAKE_ASSIGN_OR_RETURN(f->default_row_commit_version,
                           json::OptInt(b, "defaultRowCommitVersion"));
  return Status::OK();
}

template <typename T>
void FileFieldsToJson(const T& f, Json* b) {
  // The keys of a Json object are kept sorted, so the order of these lines does not matter.
  if (f.stats) (*b)["stats"] = *f.stats;
  if (f.tags) (*b)["tags"] = StringMapToJson(*f.tags);
  if (f.deletion_vector) (*b)["deletionVector"] = DvToJson(*f.deletion_vector);
  if (f.base_row_id) (*b)["baseRowId"] = *f.base_row_id;
  if (f.default_row_commit_version) (*b)["defaultRowCommitVersion"] = *f.default_row_commit_version;
}

Result<Action> ParseKind(const std::string& kind, const Json& b) {
  if (!b.is_object()) return Status::Corrupt("action '" + kind + "' is not an object");
  if (kind == "add") {
    Add a;
    CDCLAKE_RETURN_IF_ERROR(ParseFileFields(b, &a));
    CDCLAKE_ASSIGN_OR_RETURN(auto pv, json::OptStringMap(b, "partitionValues"));
    if (pv) a.partition_values = std::move(*pv);
    CDCLAKE_ASSIGN_OR_RETURN(a.size, json::GetInt(b, "size"));
    CDCLAKE_ASSIGN_OR_RETURN(auto mt, json::OptInt(b, "modificationTime"));
    a.modification_time = mt.value_or(0);
    CDCLAKE_ASSIGN_OR_RETURN(a.clustering_provider, json::OptString(b, "clusteringProvider"));
    return Action(std::move(a));
  }
  if (kind == "remove") {
    Remove r;
    CDCLAKE_RETURN_IF_ERROR(ParseFileFields(b, &r));
    CDCLAKE_ASSIGN_OR_RETURN(r.deletion_timestamp, json::OptInt(b, "deletionTimestamp"));
    CDCLAKE_ASSIGN_OR_RETURN(r.extended_file_metadata, json::OptBool(b, "extendedFileMetadata"));
    CDCLAKE_ASSIGN_OR_RETURN(r.partition_values, json::OptStringMap(b, "partitionValues"));
    CDCLAKE_ASSIGN_OR_RETURN(r.size, json::OptInt(b, "size"));
    return Action(std::move(r));
  }
  if (kind == "metaData") {
    Metadata m;
    CDCLAKE_ASSIGN_OR_RETURN(m.id, json::GetString(b, "id"));
    CDCLAKE_ASSIGN_OR_RETURN(m.name, json::OptString(b, "name"));
    CDCLAKE_ASSIGN_OR_RETURN(m.description, json::OptString(b, "description"));
    auto fmt = b.find("format");
    if (fmt != b.end() && fmt->is_object()) {
      CDCLAKE_ASSIGN_OR_RETURN(auto provider, json::OptString(*fmt, "provider"));
      if (provider) m.format_provider = *provider;
      CDCLAKE_ASSIGN_OR_RETURN(auto options, json::OptStringMap(*fmt, "options"));
      if (options) {
        for (auto& [k, v] : *options) m.format_options[k] = v.value_or("");
      }
    }
    CDCLAKE_ASSIGN_OR_RETURN(m.schema_string, json::GetString(b, "schemaString"));
    CDCLAKE_ASSIGN_OR_RETURN(auto pc, OptStringList(b, "partitionColumns"));
    if (pc) m.partition_columns = std::move(*pc);
    CDCLAKE_ASSIGN_OR_RETURN(auto conf, json::OptStringMap(b, "configuration"));
    if (conf) {
      for (auto& [k, v] : *conf) {
        if (v) m.configuration[k] = *v;
      }
    }
    CDCLAKE_ASSIGN_OR_RETURN(m.created_time, json::OptInt(b, "createdTime"));
    return Action(std::move(m));
  }
  if (kind == "protocol") {
    Protocol p;
    CDCLAKE_ASSIGN_OR_RETURN(int64_t r, json::GetInt(b, "minReaderVersion"));
    CDCLAKE_ASSIGN_OR_RETURN(int64_t w, json::GetInt(b, "minWriterVersion"));
    p.min_reader_version = static_cast<int32_t>(r);
    p.min_writer_version = static_cast<int32_t>(w);
    CDCLAKE_ASSIGN_OR_RETURN(p.reader_features, OptStringList(b, "readerFeatures"));
    CDCLAKE_ASSIGN_OR_RETURN(p.writer_features, OptStringList(b, "writerFeatures"));
    return Action(std::move(p));
  }
  if (kind == "txn") {
    Txn t;
    CDCLAKE_ASSIGN_OR_RETURN(t.app_id, json::GetString(b, "appId"));
    CDCLAKE_ASSIGN_OR_RETURN(t.version, json::GetInt(b, "version"));
    CDCLAKE_ASSIGN_OR_RETURN(t.last_updated, json::OptInt(b, "lastUpdated"));
    return Action(std::move(t));
  }
  if (kind == "cdc") {
    AddCdc c;
    CDCLAKE_ASSIGN_OR_RETURN(c.path, json::GetString(b, "path"));
    CDCLAKE_ASSIGN_OR_RETURN(auto pv, json::OptStringMap(b, "partitionValues"));
    if (pv) c.partition_values = std::move(*pv);
    CDCLAKE_ASSIGN_OR_RETURN(c.size, json::GetInt(b, "size"));
    CDCLAKE_ASSIGN_OR_RETURN(auto dc, json::OptBool(b, "dataChange"));
    c.data_change = dc.value_or(false);
    CDCLAKE_ASSIGN_OR_RETURN(c.tags, json::OptStringMap(b, "tags"));
    return Action(std::move(c));
  }
  if (kind == "commitInfo") {
    CommitInfo ci;
    ci.value = b;
    CDCLAKE_ASSIGN_OR_RETURN(ci.in_commit_timestamp, json::OptInt(b, "inCommitTimestamp"));
    CDCLAKE_ASSIGN_OR_RETURN(ci.timestamp, json::OptInt(b, "timestamp"));
    auto op = json::OptString(b, "operation");
    if (op.ok()) ci.operation = *op;
    return Action(std::move(ci));
  }
  if (kind == "domainMetadata") {
    DomainMetadata d;
    CDCLAKE_ASSIGN_OR_RETURN(d.domain, json::GetString(b, "domain"));
    CDCLAKE_ASSIGN_OR_RETURN(d.configuration, json::GetString(b, "configuration"));
    CDCLAKE_ASSIGN_OR_RETURN(d.removed, json::GetBool(b, "removed"));
    return Action(std::move(d));
  }
  if (kind == "sidecar") {
    Sidecar s;
    CDCLAKE_ASSIGN_OR_RETURN(s.path, json::GetString(b, "path"));
    CDCLAKE_ASSIGN_OR_RETURN(s.size_in_bytes, json::GetInt(b, "sizeInBytes"));
    CDCLAKE_ASSIGN_OR_RETURN(auto mt, json::OptInt(b, "modificationTime"));
    s.modification_time = mt.value_or(0);
    return Action(std::move(s));
  }
  if (kind == "checkpointMetadata") {
    CheckpointMetadata c;
    CDCLAKE_ASSIGN_OR_RETURN(c.version, json::GetInt(b, "version"));
    return Action(c);
  }
  return Status::NotFound(kind);
}

}  // namespace

Result<std::optional<Action>> ParseAction(const Json& line) {
  if (!line.is_object()) return Status::Corrupt("an action must be a JSON object");
  for (auto it = line.begin(); it != line.end(); ++it) {
    if (it->is_null()) continue;
    auto action = ParseKind(it.key(), *it);
    if (!action.ok()) {
      if (action.status().code() == StatusCode::kNotFound) continue;  // unknown kind: ignored
      return action.status().WithContext("action '" + it.key() + "'");
    }
    return std::optional<Action>(std::move(action).value());
  }
  return std::optional<Action>();
}

Json ActionToJson(const Action& action) {
  Json out = Json::object();
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        Json b = Json::object();
        if constexpr (std::is_same_v<T, Protocol>) {
          b["minReaderVersion"] = a.min_reader_version;
          b["minWriterVersion"] = a.min_writer_version;
          if (a.reader_features) b["readerFeatures"] = *a.reader_features;
          if (a.writer_features) b["writerFeatures"] = *a.writer_features;
          out["protocol"] = b;
        } else if constexpr (std::is_same_v<T, Metadata>) {
          b["id"] = a.id;
          if (a.name) b["name"] = *a.name;
          if (a.description) b["description"] = *a.description;
          b["format"] = Json{{"provider", a.format_provider}, {"options", a.format_options}};
          b["schemaString"] = a.schema_string;
          b["partitionColumns"] = a.partition_columns;
          b["configuration"] = a.configuration;
          if (a.created_time) b["createdTime"] = *a.created_time;
          out["metaData"] = b;
        } else if constexpr (std::is_same_v<T, Add>) {
          b["path"] = a.path;
          b["partitionValues"] = StringMapToJson(a.partition_values);
          b["size"] = a.size;
          b["modificationTime"] = a.modification_time;
          b["dataChange"] = a.data_change;
          FileFieldsToJson(a, &b);
          if (a.clustering_provider) b["clusteringProvider"] = *a.clustering_provider;
          out["add"] = b;
        } else if constexpr (std::is_same_v<T, Remove>) {
          b["path"] = a.path;
          if (a.deletion_timestamp) b["deletionTimestamp"] = *a.deletion_timestamp;
          b["dataChange"] = a.data_change;
          if (a.extended_file_metadata) b["extendedFileMetadata"] = *a.extended_file_metadata;
          if (a.partition_values) b["partitionValues"] = StringMapToJson(*a.partition_values);
          if (a.size) b["size"] = *a.size;
          FileFieldsToJson(a, &b);
          out["remove"] = b;
        } else if constexpr (std::is_same_v<T, AddCdc>) {
          b["path"] = a.path;
          b["partitionValues"] = StringMapToJson(a.partition_values);
          b["size"] = a.size;
          b["dataChange"] = a.data_change;
          if (a.tags) b["tags"] = StringMapToJson(*a.tags);
          out["cdc"] = b;
        } else if constexpr (std::is_same_v<T, Txn>) {
          b["appId"] = a.app_id;
          b["version"] = a.version;
          if (a.last_updated) b["lastUpdated"] = *a.last_updated;
          out["txn"] = b;
        } else if constexpr (std::is_same_v<T, CommitInfo>) {
          out["commitInfo"] = a.value;
        } else if constexpr (std::is_same_v<T, DomainMetadata>) {
          b["domain"] = a.domain;
          b["configuration"] = a.configuration;
          b["removed"] = a.removed;
          out["domainMetadata"] = b;
        } else if constexpr (std::is_same_v<T, Sidecar>) {
          b["path"] = a.path;
          b["sizeInBytes"] = a.size_in_bytes;
          b["modificationTime"] = a.modification_time;
          out["sidecar"] = b;
        } else if constexpr (std::is_same_v<T, CheckpointMetadata>) {
          b["version"] = a.version;
          out["checkpointMetadata"] = b;
        }
      },
      action);
  return out;
}

Result<std::vector<Action>> ParseActions(std::string_view content) {
  std::vector<Action> out;
  size_t line_no = 0;
  while (!content.empty()) {
    ++line_no;
    size_t nl = content.find('\n');
    std::string_view line = content.substr(0, nl);
    content = nl == std::string_view::npos ? std::string_view() : content.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto parsed = json::Parse(line);
    if (!parsed.ok()) return parsed.status().WithContext("line " + std::to_string(line_no));
    auto action = ParseAction(*parsed);
    if (!action.ok()) return action.status().WithContext("line " + std::to_string(line_no));
    if (*action) out.push_back(std::move(**action));
  }
  return out;
}

std::string ActionsToJsonLines(const std::vector<Action>& actions) {
  std::string out;
  for (const Action& a : actions) {
    out += json::Dump(ActionToJson(a));
    out += '\n';
  }
  return out;
}

std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? path + "\x1f" + dv->UniqueId() : path;
}

Remove RemoveOf(const Add& add, int64_t now_ms, bool data_change) {
  Remove r;
  r.path = add.path;
  r.deletion_timestamp = now_ms;
  r.data_change = data_change;
  r.extended_file_metadata = true;
  r.partition_values = add.partition_values;
  r.size = add.size;
  r.stats = add.stats;
  r.tags = add.tags;
  r.deletion_vector = add.deletion_vector;
  r.base_row_id = add.base_row_id;
  r.default_row_commit_version = add.default_row_commit_version;
  return r;
}

}  // namespace cdclake::delta
