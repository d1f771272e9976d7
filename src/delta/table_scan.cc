// Reading table data through the log.
#include "delta/table_scan.h"

#include "base/strings.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/partition_value.h"
#include "delta/type_widening.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {

Result<std::string> ResolvePath(const std::string& table_root, const std::string& log_path) {
  std::string path = log_path;
  if (StartsWith(path, "file://")) {
    path = path.substr(7);
  } else if (StartsWith(path, "file:")) {
    path = path.substr(5);
  } else if (path.find("://") != std::string::npos) {
    return Status::NotSupported("not supported: file URI scheme in '" + log_path + "'");
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(path));
  if (!decoded.empty() && decoded[0] == '/') return decoded;
  return io::JoinPath(table_root, decoded);
}

namespace {

// The schema of the projection: logical fields in the requested order.
Result<std::vector<int>> Projection(const data::Schema& schema, const ScanOptions& options) {
  std::vector<int> out;
  if (options.columns.empty()) {
    for (size_t i = 0; i < schema.num_fields(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const std::string& c : options.columns) {
    int i = schema.FieldIndex(c);
    if (i < 0) return Status::NotFound("no column named '" + c + "'");
    out.push_back(i);
  }
  return out;
}

bool IsPartitionColumn(const Snapshot& s, const std::string& name) {
  for (const std::string& p : s.metadata().partition_columns) {
    if (p == name) return true;
  }
  return false;
}

}  // namespace

Result<data::RecordBatch> ReadDataFile(const io::FileSystem& fs, const Snapshot& snapshot,
                                       const Add& add, const ScanOptions& options) {
  const data::Schema& logical = snapshot.schema();
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<int> fields, Projection(logical, options));
  CDCLAKE_ASSIGN_OR_RETURN(std::string path, ResolvePath(snapshot.table_root(), add.path));
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  const std::string& mode = snapshot.column_mapping_mode();
  CDCLAKE_ASSIGN_OR_RETURN(data::Schema physical, PhysicalSchema(snapshot.delta_schema(), mode));

  // Which file column serves each projected data column.
  parquet::ReadOptions ro;
  std::vector<int> file_column(fields.size(), -1);  // index into the read batch
  for (size_t k = 0; k < fields.size(); ++k) {
    const data::Field& f = logical.field(fields[k]);
    if (IsPartitionColumn(snapshot, f.name)) continue;
    std::string physical_name = physical.field(fields[k]).name;
    // Under column mapping ("name" or "id") files name their columns by physical name, which
    // writers set for both modes; the Parquet field ids are not needed to find them.
    int idx = -1;
    if (idx < 0) idx = reader->schema().FieldIndex(physical_name);
    if (idx < 0) continue;  // an older file without this column: NULLs
    file_column[k] = static_cast<int>(ro.columns.size());
    ro.columns.push_back(physical_name);
  }
  ro.with_row_index = add.deletion_vector.has_value();
  auto batch_or = reader->ReadAll(ro);
  if (!batch_or.ok()) return batch_or.status();
  data::RecordBatch batch = std::move(batch_or).value();
  int64_t rows = reader->num_rows();

  std::vector<int64_t> keep;
  bool filter = false;
  if (add.deletion_vector) {
    auto dv = LoadDeletionVector(fs, snapshot.table_root(), *add.deletion_vector);
    if (!dv.ok()) return dv.status().WithContext(path + ": deletion vector");
    const data::Column& index = batch.column(batch.num_columns() - 1);
    for (int64_t r = 0; r < index.length(); ++r) {
      if (!dv->Contains(static_cast<uint64_t>(index.ValueAt<int64_t>(r)))) keep.push_back(r);
    }
    filter = static_cast<int64_t>(keep.size()) != rows;
  }

  std::vector<data::Field> out_fields;
  std::vector<data::Column> out_columns;
  for (size_t k = 0; k < fields.size(); ++k) {
    const data::Field& f = logical.field(fields[k]);
    out_fields.push_back(f);
    data::Column column;
    if (IsPartitionColumn(snapshot, f.name)) {
      std::optional<std::string> text;
      auto it = add.partition_values.find(physical.field(fields[k]).name);
      if (it == add.partition_values.end()) it = add.partition_values.find(f.name);
      if (it != add.partition_values.end()) text = it->second;
      auto value = ParsePartitionValue(text, *f.type);
      if (!value.ok())
        return value.status().WithContext(path + ": partition value of '" + f.name + "'");
      column = data::Column::Repeat(f.type, *value, rows);
    } else if (file_column[k] < 0) {
      column = data::Column::Repeat(f.type, data::Value::Null(), rows);
    } else {
      // Files written before a type change keep the narrower type (§Type Widening).
      auto converted = UpcastColumn(batch.column(file_column[k]), f.type, f.name);
      if (!converted.ok()) return converted.status().WithContext(path);
      column = std::move(converted).value();
    }
    out_columns.push_back(filter ? column.Take(keep) : std::move(column));
  }
  data::RecordBatch out(data::Schema(std::move(out_fields)), std::move(out_columns));
  out.set_num_rows(filter ? static_cast<int64_t>(keep.size()) : rows);
  return out;
}

Result<data::RecordBatch> ReadTable(const io::FileSystem& fs, const Snapshot& snapshot,
                                    const ScanOptions& options) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<int> fields, Projection(snapshot.schema(), options));
  std::vector<data::Field> out_fields;
  for (int i : fields) out_fields.push_back(snapshot.schema().field(i));
  data::RecordBatch out{data::Schema(out_fields)};
  int64_t rows = 0;
  for (const Add& add : snapshot.files()) {
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch part, ReadDataFile(fs, snapshot, add, options));
    for (size_t c = 0; c < out.num_columns(); ++c)
      out.mutable_column(c).AppendColumn(part.column(c));
    rows += part.num_rows();
  }
  out.set_num_rows(rows);
  return out;
}

}  // namespace cdclake::delta
