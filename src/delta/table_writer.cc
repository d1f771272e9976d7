// Table creation and appends.
#include "delta/table_writer.h"

#include <set>

#include "base/strings.h"
#include "base/uuid.h"
#include "delta/file_statistics.h"
#include "delta/partition_value.h"
#include "delta/schema_json.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::delta {

namespace {

bool UsesType(const data::DataType& t, data::TypeId id) {
  if (t.id() == id) return true;
  for (const data::Field& f : t.fields()) {
    if (UsesType(*f.type, id)) return true;
  }
  return false;
}

}  // namespace

Protocol ProtocolFor(const TableSpec& spec) {
  auto prop = [&](const std::string& k) {
    auto it = spec.properties.find(k);
    return it != spec.properties.end() && it->second == "true";
  };
  std::vector<std::string> reader, writer;
  if (prop("delta.enableDeletionVectors")) {
    reader.push_back("deletionVectors");
    writer.push_back("deletionVectors");
  }
  bool ntz = false;
  for (const data::Field& f : spec.schema.fields())
    ntz = ntz || UsesType(*f.type, data::TypeId::kTimestampNtz);
  if (ntz) {
    reader.push_back("timestampNtz");
    writer.push_back("timestampNtz");
  }
  if (prop("delta.enableTypeWidening")) {
    reader.push_back("typeWidening");
    writer.push_back("typeWidening");
  }
  bool ict = prop("delta.enableInCommitTimestamps");
  Protocol p;
  if (reader.empty() && !ict) {
    p.min_reader_version = 1;
    p.min_writer_version = prop("delta.enableChangeDataFeed") ? 4 : 2;
    return p;
  }
  if (prop("delta.enableChangeDataFeed")) writer.push_back("changeDataFeed");
  if (ict) writer.push_back("inCommitTimestamp");
  // Features implied by writer version 2 must be listed explicitly at version 7.
  writer.push_back("appendOnly");
  writer.push_back("invariants");
  // Writer-only features (in-commit timestamps) leave readers at version 1.
  p.min_reader_version = reader.empty() ? 1 : 3;
  p.min_writer_version = 7;
  if (!reader.empty()) p.reader_features = reader;
  p.writer_features = writer;
  return p;
}

Result<std::shared_ptr<const Snapshot>> CreateTable(io::FileSystem& fs,
                                                    const std::string& table_root,
                                                    const TableSpec& spec) {
  for (const std::string& p : spec.partition_columns) {
    if (spec.schema.FieldIndex(p) < 0) {
      return Status::InvalidArgument("partition column '" + p + "' is not in the schema");
    }
  }
  Metadata m;
  CDCLAKE_ASSIGN_OR_RETURN(m.id, NewUuid());
  m.name = spec.name;
  m.schema_string = SchemaToJson(spec.schema);
  m.partition_columns = spec.partition_columns;
  m.configuration = spec.properties;
  m.created_time = NowMillis();
  Transaction txn(fs, table_root, nullptr);
  txn.Add(ProtocolFor(spec));
  txn.Add(std::move(m));
  CommitOptions options;
  options.operation = "CREATE TABLE";
  options.operation_parameters = {{"isManaged", "false"},
                                  {"partitionBy", json::Dump(spec.partition_columns)}};
  auto version = txn.Commit(options);
  if (!version.ok()) {
    if (version.status().code() == StatusCode::kConflict ||
        version.status().code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists(table_root + ": a Delta table exists there");
    }
    return version.status();
  }
  return Snapshot::Load(fs, table_root, *version);
}

Result<std::vector<Add>> WriteDataFiles(io::FileSystem& fs, const Snapshot& snapshot,
                                        const data::RecordBatch& batch,
                                        const parquet::WriterOptions& options,
                                        std::vector<RowPlacement>* placement) {
  const data::Schema& schema = snapshot.schema();
  if (snapshot.column_mapping_mode() != "none") {
    return Status::NotSupported("not supported: writing to a table with column mapping (" +
                                snapshot.table_root() + ")");
  }
  if (batch.num_columns() != schema.num_fields()) {
    return Status::InvalidArgument("the rows have " + std::to_string(batch.num_columns()) +
                                   " columns, the table " + std::to_string(schema.num_fields()));
  }
  const auto& parts = snapshot.metadata().partition_columns;
  std::vector<int> part_idx, data_idx;
  std::set<int> part_set;
  for (const std::string& p : parts) {
    part_idx.push_back(schema.FieldIndex(p));
    part_set.insert(schema.FieldIndex(p));
  }
  std::vector<data::Field> data_fields;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (!part_set.count(static_cast<int>(i))) {
      data_idx.push_back(static_cast<int>(i));
      data_fields.push_back(schema.field(i));
    }
  }
  // Group rows by partition values (their text form).
  std::map<std::vector<std::optional<std::string>>, std::vector<int64_t>> groups;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::vector<std::optional<std::string>> key;
    for (int p : part_idx) {
      data::Value v = batch.column(p).GetValue(r);
      key.push_back(
          v.is_null() ? std::nullopt
                      : std::optional<std::string>(FormatPartitionValue(v, *schema.field(p).type)));
    }
    groups[key].push_back(r);
  }
  std::vector<Add> adds;
  if (placement) placement->assign(static_cast<size_t>(batch.num_rows()), RowPlacement{});
  for (const auto& [key, rows] : groups) {
    if (placement) {
      for (size_t j = 0; j < rows.size(); ++j) {
        (*placement)[static_cast<size_t>(rows[j])] =
            RowPlacement{static_cast<uint32_t>(adds.size()), static_cast<int64_t>(j)};
      }
    }
    // Unpartitioned rows already in the table's schema are written as they are (no copy).
    data::RecordBatch copy;
    const bool whole = part_idx.empty() && batch.schema() == schema;
    if (!whole) {
      std::vector<data::Column> columns;
      for (int i : data_idx) {
        columns.push_back(part_idx.empty() ? batch.column(i) : batch.column(i).Take(rows));
      }
      copy = data::RecordBatch(data::Schema(data_fields), std::move(columns));
    }
    const data::RecordBatch& part = whole ? batch : copy;
    std::string dir;
    Add add;
    for (size_t k = 0; k < parts.size(); ++k) {
      dir +=
          parts[k] + "=" +
          (key[k] ? EscapePartitionPathValue(*key[k]) : std::string("__HIVE_DEFAULT_PARTITION__")) +
          "/";
      add.partition_values[parts[k]] = key[k];
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::string uuid, NewUuid());
    std::string name = dir + "part-00000-" + uuid + "-c000.snappy.parquet";
    std::string path = io::JoinPath(snapshot.table_root(), name);
    CDCLAKE_RETURN_IF_ERROR(parquet::WriteParquetFile(fs, path, part, options));
    CDCLAKE_ASSIGN_OR_RETURN(io::FileInfo info, fs.Stat(path));
    add.path = PercentEncodePath(name);
    add.size = static_cast<int64_t>(info.size);
    add.modification_time = info.modification_time_ms;
    add.data_change = true;
    add.stats = ComputeStatsJson(part, {}, 32);
    adds.push_back(std::move(add));
  }
  return adds;
}

Result<int64_t> AppendRows(io::FileSystem& fs, const std::string& table_root,
                           const data::RecordBatch& batch) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, table_root));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Add> adds, WriteDataFiles(fs, *snapshot, batch));
  Transaction txn(fs, table_root, snapshot);
  int64_t bytes = 0;
  for (Add& a : adds) {
    bytes += a.size;
    txn.Add(std::move(a));
  }
  CommitOptions options;
  options.operation = "WRITE";
  options.operation_parameters = {{"mode", "Append"}};
  options.operation_metrics = {{"numFiles", std::to_string(txn.actions().size())},
                               {"numOutputRows", std::to_string(batch.num_rows())},
                               {"numOutputBytes", std::to_string(bytes)}};
  return txn.Commit(options);
}

}  // namespace cdclake::delta
