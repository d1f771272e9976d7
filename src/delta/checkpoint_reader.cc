// Checkpoint reading.
#include "delta/checkpoint_reader.h"

#include "data/decimal.h"
#include "data/value_format.h"
#include "delta/log_segment.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {

using data::TypeId;
using json::Json;

Json ValueToJson(const data::Value& v, const data::DataType& type) {
  if (v.is_null()) return Json(nullptr);
  switch (type.id()) {
    case TypeId::kBoolean:
      return Json(v.bool_value());
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDate:
      return Json(v.int_value());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Json(v.double_value());
    case TypeId::kDecimal:
      return Json(data::FormatDecimal(v.decimal_value(), type.scale()));
    case TypeId::kString:
    case TypeId::kBinary:
      return Json(v.bytes());
    case TypeId::kStruct: {
      Json o = Json::object();
      const auto& c = v.children();
      for (size_t i = 0; i < type.fields().size() && i < c.size(); ++i) {
        o[type.fields()[i].name] = ValueToJson(c[i], *type.fields()[i].type);
      }
      return o;
    }
    case TypeId::kList: {
      Json a = Json::array();
      for (const data::Value& e : v.children()) a.push_back(ValueToJson(e, *type.fields()[0].type));
      return a;
    }
    case TypeId::kMap: {
      Json o = Json::object();
      for (const data::Value& entry : v.children()) {
        const data::Value& key = entry.children()[0];
        if (key.is_null()) continue;
        std::string k =
            key.is_bytes() ? key.bytes() : data::FormatValueText(key, *type.fields()[0].type);
        o[k] = ValueToJson(entry.children()[1], *type.fields()[1].type);
      }
      return o;
    }
  }
  return Json(nullptr);
}

namespace {

Status ReadParquetActions(const io::FileSystem& fs, const std::string& path,
                          std::vector<Action>* out) {
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  const data::Schema& schema = reader->schema();
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch batch, reader->ReadRowGroup(g));
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        const data::Column& col = batch.column(c);
        if (col.IsNull(r)) continue;
        Json line = Json::object();
        line[schema.field(c).name] = ValueToJson(col.GetValue(r), *schema.field(c).type);
        auto action = ParseAction(line);
        if (!action.ok()) return action.status().WithContext(path + ": row " + std::to_string(r));
        if (*action) out->push_back(std::move(**action));
      }
    }
  }
  return Status::OK();
}

Status ReadFileActions(const io::FileSystem& fs, const std::string& path,
                       std::vector<Action>* out) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(path));
    auto actions = ParseActions(content);
    if (!actions.ok()) return actions.status().WithContext(path);
    for (Action& a : *actions) out->push_back(std::move(a));
    return Status::OK();
  }
  return ReadParquetActions(fs, path, out);
}

}  // namespace

Result<std::vector<Action>> ReadCheckpoint(const io::FileSystem& fs, const std::string& table_root,
                                           const std::vector<std::string>& files) {
  std::vector<Action> actions;
  for (const std::string& f : files) CDCLAKE_RETURN_IF_ERROR(ReadFileActions(fs, f, &actions));
  std::vector<Action> from_sidecars;
  for (const Action& a : actions) {
    if (const auto* s = std::get_if<Sidecar>(&a)) {
      std::string path = s->path.find('/') == std::string::npos
                             ? io::JoinPath(io::JoinPath(LogDir(table_root), "_sidecars"), s->path)
                             : s->path;
      CDCLAKE_RETURN_IF_ERROR(ReadFileActions(fs, path, &from_sidecars));
    }
  }
  for (Action& a : from_sidecars) actions.push_back(std::move(a));
  return actions;
}

}  // namespace cdclake::delta
