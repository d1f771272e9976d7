// Writing change data files.
#include "delta/change_data_writer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "base/strings.h"
#include "base/uuid.h"
#include "delta/partition_value.h"
#include "delta/transaction.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::delta {

bool IsChangeType(std::string_view value) {
  return value == kChangeInsert || value == kChangeDelete || value == kChangeUpdatePreimage ||
         value == kChangeUpdatePostimage;
}

bool ChangeDataFeedEnabled(const Snapshot& snapshot) {
  if (snapshot.Property("delta.enableChangeDataFeed") != "true") return false;
  const Protocol& p = snapshot.protocol();
  if (p.min_writer_version < 4) return false;
  if (p.min_writer_version < 7) return true;
  const auto& features = p.writer_features.value_or(std::vector<std::string>{});
  return std::find(features.begin(), features.end(), "changeDataFeed") != features.end();
}

data::RecordBatch WithChangeType(const data::RecordBatch& rows, std::string_view change_type) {
  std::vector<data::Field> fields = rows.schema().fields();
  fields.push_back({std::string(kChangeTypeColumn), data::DataType::String(), true});
  std::vector<data::Column> columns = rows.columns();
  columns.push_back(data::Column::Repeat(
      data::DataType::String(), data::Value::Bytes(std::string(change_type)), rows.num_rows()));
  return data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
}

namespace {

Status CheckColumns(const data::Schema& table, const data::RecordBatch& rows) {
  const data::Schema& given = rows.schema();
  if (given.num_fields() != table.num_fields() + 1) {
    return Status::InvalidArgument(
        "change data needs the table's " + std::to_string(table.num_fields()) +
        " columns and _change_type; got " + std::to_string(given.num_fields()) + " columns");
  }
  for (size_t i = 0; i < table.num_fields(); ++i) {
    const data::Field& want = table.field(i);
    const data::Field& got = given.field(i);
    if (got.name != want.name || !got.type->Equals(*want.type)) {
      return Status::InvalidArgument("change data column " + std::to_string(i) + " is '" +
                                     got.name + "' " + got.type->ToString() + ", the table's is '" +
                                     want.name + "' " + want.type->ToString());
    }
  }
  const data::Field& last = given.field(table.num_fields());
  if (last.name != kChangeTypeColumn || last.type->id() != data::TypeId::kString) {
    return Status::InvalidArgument("the last change data column must be the string '" +
                                   std::string(kChangeTypeColumn) + "', not '" + last.name + "' " +
                                   last.type->ToString());
  }
  const data::Column& types = rows.column(table.num_fields());
  for (int64_t r = 0; r < types.length(); ++r) {
    if (types.IsNull(r)) {
      return Status::InvalidArgument("change data row " + std::to_string(r) +
                                     ": _change_type is NULL");
    }
    if (!IsChangeType(types.StringAt(r))) {
      return Status::InvalidArgument("change data row " + std::to_string(r) +
                                     ": unknown _change_type '" + std::string(types.StringAt(r)) +
                                     "'");
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<AddCdc>> WriteChangeDataFiles(io::FileSystem& fs, const Snapshot& snapshot,
                                                 const data::RecordBatch& rows,
                                                 const parquet::WriterOptions& options) {
  if (snapshot.column_mapping_mode() != "none") {
    return Status::NotSupported("not supported: writing change data with column mapping mode '" +
                                snapshot.column_mapping_mode() + "'");
  }
  const data::Schema& schema = snapshot.schema();
  CDCLAKE_RETURN_IF_ERROR(CheckColumns(schema, rows));
  const auto& parts = snapshot.metadata().partition_columns;
  std::vector<int> part_idx;
  std::set<int> part_set;
  for (const std::string& p : parts) {
    int i = schema.FieldIndex(p);
    if (i < 0) return Status::Corrupt("partition column '" + p + "' is not in the schema");
    part_idx.push_back(i);
    part_set.insert(i);
  }
  // The file's columns: the data columns and _change_type, all nullable.
  std::vector<int> file_idx;
  std::vector<data::Field> file_fields;
  for (size_t i = 0; i <= schema.num_fields(); ++i) {
    if (part_set.count(static_cast<int>(i))) continue;
    file_idx.push_back(static_cast<int>(i));
    data::Field f = rows.schema().field(i);
    f.nullable = true;
    file_fields.push_back(std::move(f));
  }
  // Rows grouped by their partition values' text, in order of first appearance per group.
  std::map<std::vector<std::optional<std::string>>, std::vector<int64_t>> groups;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    std::vector<std::optional<std::string>> key;
    for (int p : part_idx) {
      data::Value v = rows.column(p).GetValue(r);
      if (v.is_null()) {
        key.push_back(std::nullopt);
      } else {
        key.push_back(FormatPartitionValue(v, *schema.field(p).type));
      }
    }
    groups[key].push_back(r);
  }
  std::vector<AddCdc> out;
  for (const auto& [key, group] : groups) {
    std::vector<data::Column> columns;
    columns.reserve(file_idx.size());
    for (int i : file_idx) {
      columns.push_back(part_idx.empty() ? rows.column(i) : rows.column(i).Take(group));
    }
    data::RecordBatch file(data::Schema(file_fields), std::move(columns));
    AddCdc cdc;
    std::string name = std::string(kChangeDataDir) + "/";
    for (size_t k = 0; k < parts.size(); ++k) {
      name += PartitionPathSegment(parts[k], key[k]) + "/";
      cdc.partition_values[parts[k]] = key[k];
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::string uuid, NewUuid());
    name += "cdc-00000-" + uuid + ".c000.snappy.parquet";
    std::string path = io::JoinPath(snapshot.table_root(), name);
    CDCLAKE_RETURN_IF_ERROR(parquet::WriteParquetFile(fs, path, file, options));
    CDCLAKE_ASSIGN_OR_RETURN(io::FileInfo info, fs.Stat(path));
    cdc.path = PercentEncodePath(name);
    cdc.size = static_cast<int64_t>(info.size);
    cdc.data_change = false;
    out.push_back(std::move(cdc));
  }
  return out;
}

}  // namespace cdclake::delta
