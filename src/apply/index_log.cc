// Index-log files: (entry_key, entry_value) rows, a NULL value deleting the entry.
#include "apply/index_log.h"

#include <algorithm>
#include <charconv>

#include "base/uuid.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "io/file_system.h"
#include "io/local_file_system.h"
#include "json/json.h"
#include "parquet/reader/file_reader.h"
#include "parquet/writer/file_writer.h"

namespace cdclake::apply {
namespace {

// The index's block cache. Its writes skip RocksDB's write-ahead log: the index log under the
// table is the log, and CatchUp redoes whatever a crash lost.
constexpr int64_t kIndexCacheBytes = 256 << 20;

data::Schema IndexLogSchema() {
  return data::Schema({{"entry_key", data::DataType::Binary(), false},
                       {"entry_value", data::DataType::Binary(), true}});
}

// The index-log file a commit names, whether it changed data files, and its operation.
struct CommitSummary {
  std::optional<std::string> index_log;
  bool changes_files = false;
  std::string operation;
};

Result<CommitSummary> SummarizeCommit(const io::FileSystem& fs, const std::string& root,
                                      int64_t version) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(delta::CommitPath(root, version)));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(content));
  CommitSummary summary;
  for (const auto& action : actions) {
    if (std::holds_alternative<delta::Add>(action) ||
        std::holds_alternative<delta::Remove>(action)) {
      summary.changes_files = true;
    }
    if (const auto* info = std::get_if<delta::CommitInfo>(&action)) {
      summary.operation = info->operation.value_or("");
      const json::Json& params = info->value["operationParameters"];
      if (params.is_object() && params.contains(kIndexLogParameter) &&
          params[kIndexLogParameter].is_string()) {
        summary.index_log = params[kIndexLogParameter].get<std::string>();
      }
    }
  }
  return summary;
}

}  // namespace

std::string IndexDir(const std::string& table_root) {
  return io::JoinPath(table_root, "_cdclake/index");
}

std::string IndexLogDir(const std::string& table_root) {
  return io::JoinPath(table_root, "_cdclake/index_log");
}

Result<std::string> WriteIndexLog(io::FileSystem& fs, const std::string& table_root,
                                  const IndexWriteBatch& batch) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string uuid, NewUuid());
  std::string name = uuid + ".parquet";
  CDCLAKE_RETURN_IF_ERROR(fs.CreateDirs(IndexLogDir(table_root)));
  parquet::WriterOptions options;
  // Snappy rather than zstd: 0.65 of the time to write a batch's entries, 1.5 times the
  // bytes (docs/apply.md, "The key index and its durable form").
  options.compression = parquet::format::CompressionCodec::kSnappy;
  // The entries go through the writer in slices, in row groups of a few megabytes, so that the
  // memory each one takes is the next one's: made whole, an SCD2 batch's 43 MB of entries were
  // copied into columns, then pages, then compressed pages, all of it fresh memory (docs/apply.md,
  // "Memory").
  options.row_group_bytes = int64_t{8} << 20;
  // Keys are distinct and values nearly so: a dictionary would only be built and dropped.
  options.dictionary = false;
  CDCLAKE_ASSIGN_OR_RETURN(
      auto writer, parquet::FileWriter::Open(fs, io::JoinPath(IndexLogDir(table_root), name),
                                             IndexLogSchema(), options));
  const size_t entries = batch.puts.size() + batch.deletes.size();
  constexpr size_t kSlice = 16384;
  for (size_t from = 0; from < entries; from += kSlice) {
    const size_t to = std::min(entries, from + kSlice);
    data::RecordBatch rows(IndexLogSchema());
    // Sized first: grown by doubling, the bytes were copied again at every step.
    size_t key_bytes = 0;
    size_t value_bytes = 0;
    for (size_t i = from; i < to; ++i) {
      if (i < batch.puts.size()) {
        key_bytes += batch.puts[i].first.size();
        value_bytes += batch.puts[i].second.size();
      } else {
        key_bytes += batch.deletes[i - batch.puts.size()].size();
      }
    }
    rows.mutable_column(0).Reserve(static_cast<int64_t>(to - from));
    rows.mutable_column(1).Reserve(static_cast<int64_t>(to - from));
    rows.mutable_column(0).mutable_bytes().reserve(key_bytes);
    rows.mutable_column(1).mutable_bytes().reserve(value_bytes);
    for (size_t i = from; i < to; ++i) {
      if (i < batch.puts.size()) {
        rows.mutable_column(0).AppendBytes(batch.puts[i].first);
        rows.mutable_column(1).AppendBytes(batch.puts[i].second);
      } else {
        rows.mutable_column(0).AppendBytes(batch.deletes[i - batch.puts.size()]);
        rows.mutable_column(1).AppendNull();
      }
    }
    CDCLAKE_RETURN_IF_ERROR(writer->Write(rows));
  }
  CDCLAKE_RETURN_IF_ERROR(writer->Close());
  return name;
}

Result<IndexWriteBatch> ReadIndexLog(const io::FileSystem& fs, const std::string& table_root,
                                     const std::string& name) {
  if (name.find('/') != std::string::npos || name.empty()) {
    return Status::Corrupt("index-log name '" + name + "' is not a file name");
  }
  std::string path = io::JoinPath(IndexLogDir(table_root), name);
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, reader->ReadAll());
  if (rows.num_columns() != 2) return Status::Corrupt(path + ": not an index-log file");
  IndexWriteBatch batch;
  const data::Column& keys = rows.column(0);
  const data::Column& values = rows.column(1);
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    if (values.IsNull(i)) {
      batch.deletes.emplace_back(keys.StringAt(i));
    } else {
      batch.puts.emplace_back(std::string(keys.StringAt(i)), std::string(values.StringAt(i)));
    }
  }
  return batch;
}

static std::string IndexBasePath(const std::string& table_root) {
  return io::JoinPath(table_root, "_cdclake/index_base.json");
}

Status WriteIndexBase(io::FileSystem& fs, const std::string& table_root, KeyIndex& index,
                      int64_t version) {
  IndexWriteBatch all;
  CDCLAKE_RETURN_IF_ERROR(index.Scan("", [&](std::string_view key, std::string_view value) {
    if (key != kIndexVersionKey) all.puts.emplace_back(std::string(key), std::string(value));
    return true;
  }));
  CDCLAKE_ASSIGN_OR_RETURN(std::string name, WriteIndexLog(fs, table_root, all));
  json::Json base{{"version", version}, {"indexLog", name}};
  return fs.WriteFile(IndexBasePath(table_root), json::Dump(base));
}

// The index base's version and file, when there is one at or before `table_version`.
static Result<std::optional<std::pair<int64_t, std::string>>> ReadIndexBase(
    const io::FileSystem& fs, const std::string& table_root, int64_t table_version) {
  using Base = std::optional<std::pair<int64_t, std::string>>;
  std::string path = IndexBasePath(table_root);
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(path));
  if (!exists) return Base();
  CDCLAKE_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  auto parsed = json::Parse(text);
  if (!parsed.ok() || !parsed->is_object() || !(*parsed)["version"].is_number_integer() ||
      !(*parsed)["indexLog"].is_string()) {
    return Status::Corrupt(path + ": not an index base (version, indexLog)");
  }
  int64_t version = (*parsed)["version"].get<int64_t>();
  if (version > table_version) return Base();  // the table was restored to before it
  return Base(std::make_pair(version, (*parsed)["indexLog"].get<std::string>()));
}

Result<int64_t> IndexVersion(KeyIndex& index) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> v, index.Get(kIndexVersionKey));
  if (!v) return int64_t{-1};
  int64_t version = 0;
  auto [end, error] = std::from_chars(v->data(), v->data() + v->size(), version);
  if (error != std::errc() || end != v->data() + v->size()) {
    return Status::Corrupt("key index: bad version entry '" + *v + "'");
  }
  return version;
}

Status CatchUp(const io::FileSystem& fs, const std::string& table_root, int64_t table_version,
               KeyIndex& index, const ProgressFn& progress) {
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, IndexVersion(index));
  if (version < 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto base, ReadIndexBase(fs, table_root, table_version));
    if (base) {
      CDCLAKE_ASSIGN_OR_RETURN(IndexWriteBatch batch, ReadIndexLog(fs, table_root, base->second));
      batch.puts.emplace_back(kIndexVersionKey, std::to_string(base->first));
      CDCLAKE_RETURN_IF_ERROR(index.Write(batch));
      version = base->first;
    }
  }
  const int64_t first = version + 1;
  for (int64_t v = first; v <= table_version; ++v) {
    Report(progress, "replaying the index log", "commits", v - first, table_version + 1 - first);
    CDCLAKE_ASSIGN_OR_RETURN(CommitSummary summary, SummarizeCommit(fs, table_root, v));
    IndexWriteBatch batch;
    if (summary.index_log) {
      CDCLAKE_ASSIGN_OR_RETURN(batch, ReadIndexLog(fs, table_root, *summary.index_log));
    } else if (summary.changes_files) {
      return Status::NotSupported(
          table_root + ": version " + std::to_string(v) + " (" + summary.operation +
          ") changed data files without updating cdclake's key index; the table was written by "
          "another writer, so cdclake cannot apply changes to it");
    }
    batch.puts.emplace_back(kIndexVersionKey, std::to_string(v));
    CDCLAKE_RETURN_IF_ERROR(index.Write(batch));
  }
  if (table_version >= first) {
    Report(progress, "replaying the index log", "commits", table_version + 1 - first,
           table_version + 1 - first);
  }
  return Status::OK();
}

Result<std::unique_ptr<KeyIndex>> OpenTableIndex(io::FileSystem& fs, const std::string& table_root,
                                                 int64_t table_version, bool persistent) {
  std::unique_ptr<KeyIndex> index;
  bool local = dynamic_cast<io::LocalFileSystem*>(&fs) != nullptr;
  if (persistent && local) {
    std::string dir = IndexDir(table_root);
    CDCLAKE_ASSIGN_OR_RETURN(bool has_index, fs.Exists(dir));
    if (table_version < 0 && has_index) CDCLAKE_RETURN_IF_ERROR(DestroyRocksKeyIndex(dir));
    CDCLAKE_RETURN_IF_ERROR(fs.CreateDirs(dir));
    CDCLAKE_ASSIGN_OR_RETURN(index,
                             OpenRocksKeyIndex(dir, kIndexCacheBytes, /*write_ahead_log=*/false));
    CDCLAKE_ASSIGN_OR_RETURN(int64_t indexed, IndexVersion(*index));
    if (indexed > table_version) {
      index.reset();
      CDCLAKE_RETURN_IF_ERROR(DestroyRocksKeyIndex(dir));
      CDCLAKE_RETURN_IF_ERROR(fs.CreateDirs(dir));
      CDCLAKE_ASSIGN_OR_RETURN(index,
                               OpenRocksKeyIndex(dir, kIndexCacheBytes, /*write_ahead_log=*/false));
    }
  } else {
    index = NewMemoryKeyIndex();
  }
  if (table_version >= 0) CDCLAKE_RETURN_IF_ERROR(CatchUp(fs, table_root, table_version, *index));
  return index;
}

}  // namespace cdclake::apply
