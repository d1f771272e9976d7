// FileMetadata: the `_metadata` struct built from the rows' positions.
#include "pipeline/file_metadata.h"

#include <map>

#include "base/strings.h"
#include "data/expression.h"

namespace cdclake::pipeline {

namespace {

// `_metadata`, `_metadata.file_path`, or either qualified by the source's alias
// (`s._metadata`); not a field of that name inside another column (`payload._metadata`).
bool NamesMetadata(const data::Expr& e, const std::string& alias) {
  if (e.kind == data::ExprKind::kColumn && !e.path.empty()) {
    if (ToLower(e.path[0]) == kFileMetadataColumn) return true;
    if (e.path.size() > 1 && !alias.empty() && ToLower(e.path[0]) == ToLower(alias) &&
        ToLower(e.path[1]) == kFileMetadataColumn) {
      return true;
    }
  }
  for (const auto& child : e.children) {
    if (NamesMetadata(*child, alias)) return true;
  }
  return false;
}

}  // namespace

data::TypePtr FileMetadataType() {
  return data::DataType::Struct({{"file_path", data::DataType::String(), true},
                                 {"file_name", data::DataType::String(), true},
                                 {"file_size", data::DataType::Int64(), true},
                                 {"file_modification_time", data::DataType::Timestamp(), true}});
}

bool ReadsFileMetadata(const sql::SelectQuery& query) {
  for (const sql::SelectItem& item : query.items) {
    if (item.expression && NamesMetadata(*item.expression, query.from_alias)) return true;
  }
  return query.where && NamesMetadata(*query.where, query.from_alias);
}

bool HasColumnNamedMetadata(const data::Schema& schema) {
  for (const data::Field& f : schema.fields()) {
    if (ToLower(f.name) == kFileMetadataColumn) return true;
  }
  return false;
}

Result<change::ChangeBatch> AddFileMetadata(const io::FileSystem& fs, change::ChangeBatch batch) {
  const int64_t n = batch.rows.num_rows();
  data::Column metadata(FileMetadataType());
  std::map<std::string, io::FileInfo, std::less<>> seen;
  for (int64_t r = 0; r < n; ++r) {
    const auto i = static_cast<size_t>(r);
    const std::string_view file = i < batch.positions.size() ? batch.positions.file(i) : "";
    if (file.empty()) {
      metadata.AppendNull();
      continue;
    }
    auto it = seen.find(file);
    if (it == seen.end()) {
      auto info = fs.Stat(std::string(file));
      if (!info.ok()) {
        return Status(info.status().code(),
                      std::string(file) + ": _metadata: " + info.status().message());
      }
      it = seen.emplace(std::string(file), *info).first;
    }
    const size_t slash = file.find_last_of('/');
    metadata.mutable_child(0).AppendBytes(file);
    metadata.mutable_child(1).AppendBytes(slash == std::string_view::npos ? file
                                                                          : file.substr(slash + 1));
    metadata.mutable_child(2).Append<int64_t>(static_cast<int64_t>(it->second.size));
    metadata.mutable_child(3).Append<int64_t>(it->second.modification_time_ms * 1000);
    metadata.AppendStructSlot();
  }
  std::vector<data::Field> fields = batch.rows.schema().fields();
  std::vector<data::Column> columns = batch.rows.ReleaseColumns();
  fields.push_back({kFileMetadataColumn, FileMetadataType(), true});
  columns.push_back(std::move(metadata));
  batch.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  batch.rows.set_num_rows(n);
  if (!batch.unchanged.empty()) batch.unchanged.emplace_back(static_cast<size_t>(n), 0);
  return batch;
}

}  // namespace cdclake::pipeline
