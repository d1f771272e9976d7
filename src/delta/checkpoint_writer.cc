// Checkpoint writing: snapshot actions to rows of the checkpoint schema, the Parquet bytes built
// in memory and published with put-if-absent, then the `_last_checkpoint` hint.
#include "delta/checkpoint_writer.h"

#include <charconv>
#include <cstdio>

#include "delta/log_segment.h"
#include "delta/transaction.h"
#include "delta/vacuum.h"
#include "json/json.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::delta {

namespace {

using data::DataType;
using data::Field;
using data::TypePtr;
using data::Value;

enum Column { kTxn = 0, kAdd, kRemove, kMetaData, kProtocol, kDomainMetadata, kCheckpointMetadata };

TypePtr StringMapType() {
  return DataType::Map(DataType::String(), DataType::String());
}

TypePtr DvType() {
  return DataType::Struct({{"storageType", DataType::String()},
                           {"pathOrInlineDv", DataType::String()},
                           {"offset", DataType::Int32()},
                           {"sizeInBytes", DataType::Int32()},
                           {"cardinality", DataType::Int64()}});
}

data::Schema BuildSchema(bool v2) {
  TypePtr txn = DataType::Struct({{"appId", DataType::String()},
                                  {"version", DataType::Int64()},
                                  {"lastUpdated", DataType::Int64()}});
  TypePtr add = DataType::Struct({{"path", DataType::String()},
                                  {"partitionValues", StringMapType()},
                                  {"size", DataType::Int64()},
                                  {"modificationTime", DataType::Int64()},
                                  {"dataChange", DataType::Boolean()},
                                  {"tags", StringMapType()},
                                  {"deletionVector", DvType()},
                                  {"baseRowId", DataType::Int64()},
                                  {"defaultRowCommitVersion", DataType::Int64()},
                                  {"stats", DataType::String()},
                                  {"clusteringProvider", DataType::String()}});
  TypePtr remove = DataType::Struct({{"path", DataType::String()},
                                     {"deletionTimestamp", DataType::Int64()},
                                     {"dataChange", DataType::Boolean()},
                                     {"extendedFileMetadata", DataType::Boolean()},
                                     {"partitionValues", StringMapType()},
                                     {"size", DataType::Int64()},
                                     {"deletionVector", DvType()},
                                     {"baseRowId", DataType::Int64()},
                                     {"defaultRowCommitVersion", DataType::Int64()}});
  TypePtr format =
      DataType::Struct({{"provider", DataType::String()}, {"options", StringMapType()}});
  TypePtr metadata = DataType::Struct({{"id", DataType::String()},
                                       {"name", DataType::String()},
                                       {"description", DataType::String()},
                                       {"format", format},
                                       {"schemaString", DataType::String()},
                                       {"partitionColumns", DataType::List(DataType::String())},
                                       {"configuration", StringMapType()},
                                       {"createdTime", DataType::Int64()}});
  TypePtr protocol = DataType::Struct({{"minReaderVersion", DataType::Int32()},
                                       {"minWriterVersion", DataType::Int32()},
                                       {"readerFeatures", DataType::List(DataType::String())},
                                       {"writerFeatures", DataType::List(DataType::String())}});
  TypePtr domain = DataType::Struct({{"domain", DataType::String()},
                                     {"configuration", DataType::String()},
                                     {"removed", DataType::Boolean()}});
  std::vector<Field> fields = {{"txn", txn},           {"add", add},
                               {"remove", remove},     {"metaData", metadata},
                               {"protocol", protocol}, {"domainMetadata", domain}};
  if (v2) {
    fields.push_back({"checkpointMetadata", DataType::Struct({{"version", DataType::Int64()},
                                                              {"tags", StringMapType()}})});
  }
  return data::Schema(std::move(fields));
}

Value Str(const std::string& s) {
  return Value::Bytes(s);
}
Value OptStr(const std::optional<std::string>& s) {
  return s ? Value::Bytes(*s) : Value::Null();
}
Value OptLong(const std::optional<int64_t>& v) {
  return v ? Value::Int(*v) : Value::Null();
}
Value OptBool(const std::optional<bool>& v) {
  return v ? Value::Bool(*v) : Value::Null();
}

Value StringMap(const std::map<std::string, std::optional<std::string>>& m) {
  Value::Children entries;
  entries.reserve(m.size());
  for (const auto& [k, v] : m) entries.push_back(Value::Nested({Str(k), OptStr(v)}));
  return Value::Nested(std::move(entries));
}

Value PlainStringMap(const std::map<std::string, std::string>& m) {
  Value::Children entries;
  entries.reserve(m.size());
  for (const auto& [k, v] : m) entries.push_back(Value::Nested({Str(k), Str(v)}));
  return Value::Nested(std::move(entries));
}

Value StringList(const std::vector<std::string>& list) {
  Value::Children out;
  out.reserve(list.size());
  for (const std::string& s : list) out.push_back(Str(s));
  return Value::Nested(std::move(out));
}

Value OptStringList(const std::optional<std::vector<std::string>>& list) {
  return list ? StringList(*list) : Value::Null();
}

Value Dv(const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) return Value::Null();
  return Value::Nested({Str(dv->storage_type), Str(dv->path_or_inline_dv),
                        dv->offset ? Value::Int(*dv->offset) : Value::Null(),
                        Value::Int(dv->size_in_bytes), Value::Int(dv->cardinality)});
}

void AppendAction(data::RecordBatch* batch, Column column, Value value) {
  std::vector<Value> row(batch->num_columns());
  row[column] = std::move(value);
  batch->AppendRow(row);
}

// The Parquet bytes of a checkpoint, kept in memory until they are published whole.
class MemoryOutputStream : public io::OutputStream {
 public:
  explicit MemoryOutputStream(std::string path) : path_(std::move(path)) {}
  Status Append(std::string_view data) override {
    data_.append(data);
    return Status::OK();
  }
  uint64_t BytesWritten() const override { return data_.size(); }
  Status Close() override { return Status::OK(); }
  const std::string& path() const override { return path_; }
  const std::string& data() const { return data_; }

 private:
  std::string path_;
  std::string data_;
};

std::string CheckpointPath(const std::string& table_root, int64_t version) {
  char name[48];
  std::snprintf(name, sizeof(name), "%020lld.checkpoint.parquet", static_cast<long long>(version));
  return io::JoinPath(LogDir(table_root), name);
}

// The version named by an existing `_last_checkpoint`, or -1 when there is none or it is
// unreadable (it is only a hint).
int64_t LastCheckpointVersion(const io::FileSystem& fs, const std::string& path) {
  auto content = fs.ReadFile(path);
  if (!content.ok()) return -1;
  auto parsed = json::Parse(*content);
  if (!parsed.ok() || !parsed->is_object()) return -1;
  auto version = json::GetInt(*parsed, "version");
  return version.ok() ? *version : -1;
}

}  // namespace

int64_t CheckpointInterval(const Metadata& metadata) {
  auto it = metadata.configuration.find("delta.checkpointInterval");
  if (it == metadata.configuration.end()) return kDefaultCheckpointInterval;
  int64_t n = 0;
  const std::string& text = it->second;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (err != std::errc() || end != text.data() + text.size() || n <= 0) {
    return kDefaultCheckpointInterval;
  }
  return n;
}

const data::Schema& CheckpointSchema(bool v2_spec) {
  static const data::Schema kV1 = BuildSchema(false);
  static const data::Schema kV2 = BuildSchema(true);
  return v2_spec ? kV2 : kV1;
}

bool UsesV2Checkpoints(const Protocol& protocol) {
  for (const std::string& f : protocol.writer_features.value_or(std::vector<std::string>{})) {
    if (f == "v2Checkpoint") return true;
  }
  return false;
}

Result<CheckpointInfo> WriteCheckpoint(io::FileSystem& fs, const Snapshot& snapshot,
                                       int64_t now_ms) {
  if (snapshot.Property("delta.checkpoint.writeStatsAsStruct") == "true") {
    return Status::NotSupported(
        "not supported: checkpoints with typed statistics (delta.checkpoint.writeStatsAsStruct)");
  }
  // A malformed retention property must not stop checkpoints: the default applies.
  auto retention = DeletedFileRetentionMs(snapshot);
  if (!retention.ok()) retention = ParseIntervalMs(kDefaultDeletedFileRetention);
  int64_t retention_ms = retention.ok() ? *retention : 0;
  int64_t min_deletion_timestamp = now_ms - retention_ms;

  const Protocol& p = snapshot.protocol();
  const bool v2 = UsesV2Checkpoints(p);
  const data::Schema& schema = CheckpointSchema(v2);
  data::RecordBatch batch(schema);
  if (v2) {
    AppendAction(&batch, kCheckpointMetadata, Value::Nested({Value::Int(snapshot.version())}));
  }
  AppendAction(&batch, kProtocol,
               Value::Nested({Value::Int(p.min_reader_version), Value::Int(p.min_writer_version),
                              OptStringList(p.reader_features), OptStringList(p.writer_features)}));
  const Metadata& m = snapshot.metadata();
  AppendAction(
      &batch, kMetaData,
      Value::Nested({Str(m.id), OptStr(m.name), OptStr(m.description),
                     Value::Nested({Str(m.format_provider), PlainStringMap(m.format_options)}),
                     Str(m.schema_string), StringList(m.partition_columns),
                     PlainStringMap(m.configuration), OptLong(m.created_time)}));
  for (const auto& [_, t] : snapshot.txns()) {
    AppendAction(&batch, kTxn,
                 Value::Nested({Str(t.app_id), Value::Int(t.version), OptLong(t.last_updated)}));
  }
  for (const auto& [_, d] : snapshot.domains()) {
    AppendAction(&batch, kDomainMetadata,
                 Value::Nested({Str(d.domain), Str(d.configuration), Value::Bool(d.removed)}));
  }
  int64_t adds = 0;
  for (const Add& a : snapshot.files()) {
    AppendAction(&batch, kAdd,
                 Value::Nested({Str(a.path), StringMap(a.partition_values), Value::Int(a.size),
                                Value::Int(a.modification_time), Value::Bool(a.data_change),
                                a.tags ? StringMap(*a.tags) : Value::Null(), Dv(a.deletion_vector),
                                OptLong(a.base_row_id), OptLong(a.default_row_commit_version),
                                OptStr(a.stats), OptStr(a.clustering_provider)}));
    ++adds;
  }
  for (const Remove& r : snapshot.tombstones()) {
    if (r.deletion_timestamp.value_or(0) <= min_deletion_timestamp) continue;  // expired
    AppendAction(&batch, kRemove,
                 Value::Nested({Str(r.path), OptLong(r.deletion_timestamp),
                                Value::Bool(r.data_change), OptBool(r.extended_file_metadata),
                                r.partition_values ? StringMap(*r.partition_values) : Value::Null(),
                                OptLong(r.size), Dv(r.deletion_vector), OptLong(r.base_row_id),
                                OptLong(r.default_row_commit_version)}));
  }

  CheckpointInfo info;
  info.version = snapshot.version();
  info.size = batch.num_rows();
  info.num_of_add_files = adds;
  info.path = CheckpointPath(snapshot.table_root(), snapshot.version());

  auto stream = std::make_unique<MemoryOutputStream>(info.path);
  MemoryOutputStream* bytes = stream.get();  // owned by the writer below
  CDCLAKE_ASSIGN_OR_RETURN(auto writer, parquet::FileWriter::Open(std::move(stream), schema));
  CDCLAKE_RETURN_IF_ERROR(writer->Write(batch));
  CDCLAKE_RETURN_IF_ERROR(writer->Close());
  info.size_in_bytes = static_cast<int64_t>(bytes->data().size());
  Status put = fs.PutIfAbsent(info.path, bytes->data());
  if (!put.ok() && put.code() != StatusCode::kAlreadyExists) {
    return put.WithContext("checkpoint " + info.path);
  }
  if (!put.ok()) {
    // Another writer checkpointed this version first; describe its file in the hint.
    auto existing = fs.Stat(info.path);
    if (existing.ok()) info.size_in_bytes = static_cast<int64_t>(existing->size);
  }

  std::string last = io::JoinPath(LogDir(snapshot.table_root()), "_last_checkpoint");
  if (LastCheckpointVersion(fs, last) > info.version) return info;
  json::Json hint = {{"version", info.version},
                     {"size", info.size},
                     {"sizeInBytes", info.size_in_bytes},
                     {"numOfAddFiles", info.num_of_add_files}};
  CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(last, json::Dump(hint)).WithContext(last));
  return info;
}

Status WriteCheckpoint(io::FileSystem& fs, const Snapshot& snapshot) {
  return WriteCheckpoint(fs, snapshot, NowMillis()).status();
}

Status MaybeCheckpoint(io::FileSystem& fs, const std::string& table_root,
                       int64_t committed_version) {
  if (committed_version <= 0) return Status::OK();
  // Another writer may have checkpointed this version already (same content, by the protocol).
  auto exists = fs.Exists(CheckpointPath(table_root, committed_version));
  if (exists.ok() && *exists) return Status::OK();
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, table_root, committed_version));
  if (committed_version % CheckpointInterval(snapshot->metadata()) != 0) return Status::OK();
  return WriteCheckpoint(fs, *snapshot);
}

}  // namespace cdclake::delta
