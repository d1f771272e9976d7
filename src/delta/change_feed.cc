// Reading the change data feed of a range of versions.
#include "delta/change_feed.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "delta/actions.h"
#include "delta/change_data_writer.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {

namespace {

// Builds the output: the table's columns, then _change_type, _commit_version and
// _commit_timestamp.
class ChangeBatch {
 public:
  explicit ChangeBatch(const data::Schema& table) : table_columns_(table.num_fields()) {
    std::vector<data::Field> fields = table.fields();
    fields.push_back({std::string(kChangeTypeColumn), data::DataType::String(), false});
    fields.push_back({std::string(kCommitVersionColumn), data::DataType::Int64(), false});
    fields.push_back({std::string(kCommitTimestampColumn), data::DataType::Timestamp(), false});
    batch_ = data::RecordBatch(data::Schema(std::move(fields)));
  }

  /// Appends the rows of `rows` (the table's columns) at `take` (every row when nullopt), each
  /// with the change type of `types` at the same position, or `type` when `types` is null.
  void Append(const data::RecordBatch& rows, const std::optional<std::vector<int64_t>>& take,
              const data::Column* types, std::string_view type, int64_t version,
              int64_t timestamp_ms) {
    int64_t n = take ? static_cast<int64_t>(take->size()) : rows.num_rows();
    if (n == 0) return;
    for (size_t c = 0; c < table_columns_; ++c) {
      batch_.mutable_column(c).AppendColumn(take ? rows.column(c).Take(*take) : rows.column(c));
    }
    data::Column& change = batch_.mutable_column(table_columns_);
    data::Column& commit_version = batch_.mutable_column(table_columns_ + 1);
    data::Column& commit_time = batch_.mutable_column(table_columns_ + 2);
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = take ? (*take)[i] : i;
      change.AppendBytes(types ? types->StringAt(r) : type);
      commit_version.Append<int64_t>(version);
      commit_time.Append<int64_t>(timestamp_ms * 1000);
    }
  }

  data::RecordBatch Finish() && { return std::move(batch_); }

 private:
  size_t table_columns_;
  data::RecordBatch batch_;
};

// Reads the changes of one commit.
class CommitChanges {
 public:
  CommitChanges(const io::FileSystem& fs, const std::string& table_root,
                std::shared_ptr<const Snapshot> end, int64_t version, int64_t timestamp_ms,
                ChangeBatch* out)
      : fs_(fs),
        table_root_(table_root),
        end_(std::move(end)),
        version_(version),
        timestamp_ms_(timestamp_ms),
        out_(out) {}

  Status Read(const std::vector<Action>& actions) {
    bool has_cdc = false;
    for (const Action& a : actions) has_cdc = has_cdc || std::holds_alternative<AddCdc>(a);
    if (has_cdc) {
      for (const Action& a : actions) {
        if (const auto* cdc = std::get_if<AddCdc>(&a)) CDCLAKE_RETURN_IF_ERROR(ReadCdcFile(*cdc));
      }
      return Status::OK();
    }
    // A path both removed and added with dataChange is a deletion vector update.
    std::map<std::string, const Add*> added;
    std::set<std::string> removed;
    for (const Action& a : actions) {
      if (const auto* add = std::get_if<Add>(&a); add && add->data_change) added[add->path] = add;
      if (const auto* rm = std::get_if<Remove>(&a); rm && rm->data_change) removed.insert(rm->path);
    }
    for (const Action& a : actions) {
      if (const auto* add = std::get_if<Add>(&a)) {
        if (!add->data_change || removed.count(add->path)) continue;
        CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, ReadDataFile(fs_, *end_, *add));
        out_->Append(rows, std::nullopt, nullptr, kChangeInsert, version_, timestamp_ms_);
      } else if (const auto* rm = std::get_if<Remove>(&a)) {
        if (!rm->data_change) continue;
        CDCLAKE_ASSIGN_OR_RETURN(Add file, FileOf(*rm));
        auto paired = added.find(rm->path);
        if (paired != added.end()) {
          CDCLAKE_RETURN_IF_ERROR(ReadDeletionVectorUpdate(file, *paired->second));
          continue;
        }
        CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, ReadDataFile(fs_, *end_, file));
        out_->Append(rows, std::nullopt, nullptr, kChangeDelete, version_, timestamp_ms_);
      }
    }
    return Status::OK();
  }

 private:
  Status ReadCdcFile(const AddCdc& cdc) {
    Add file;
    file.path = cdc.path;
    file.partition_values = cdc.partition_values;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, ReadDataFile(fs_, *end_, file));
    CDCLAKE_ASSIGN_OR_RETURN(std::string path, ResolvePath(table_root_, cdc.path));
    CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs_, path));
    if (reader->schema().FieldIndex(kChangeTypeColumn) < 0) {
      return Status::Corrupt(path + ": a change data file without a " +
                             std::string(kChangeTypeColumn) + " column");
    }
    parquet::ReadOptions options;
    options.columns = {std::string(kChangeTypeColumn)};
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch types, reader->ReadAll(options));
    const data::Column& column = types.column(0);
    if (column.type()->id() != data::TypeId::kString || column.length() != rows.num_rows()) {
      return Status::Corrupt(path + ": " + std::string(kChangeTypeColumn) +
                             " is not a string column of the file's length");
    }
    for (int64_t r = 0; r < column.length(); ++r) {
      if (column.IsNull(r) || !IsChangeType(column.StringAt(r))) {
        return Status::Corrupt(
            path + ": row " + std::to_string(r) + " has _change_type " +
            (column.IsNull(r) ? std::string("NULL") : "'" + std::string(column.StringAt(r)) + "'"));
      }
    }
    out_->Append(rows, std::nullopt, &column, "", version_, timestamp_ms_);
    return Status::OK();
  }

  // The removed file as an add: its partition values from the remove, or (for removes of old
  // writers, which carry only the path) from the live file of the previous version.
  Result<Add> FileOf(const Remove& rm) {
    Add file;
    file.path = rm.path;
    file.deletion_vector = rm.deletion_vector;
    if (rm.partition_values) {
      file.partition_values = *rm.partition_values;
      return file;
    }
    if (end_->metadata().partition_columns.empty()) return file;
    if (!previous_) {
      auto previous = Snapshot::Load(fs_, table_root_, version_ - 1);
      if (!previous.ok()) {
        return previous.status().WithContext("the partition values of " + rm.path +
                                             ", removed in version " + std::to_string(version_));
      }
      previous_ = std::move(previous).value();
    }
    for (const Add& a : previous_->files()) {
      if (a.path == rm.path) {
        file.partition_values = a.partition_values;
        return file;
      }
    }
    return Status::Corrupt(rm.path + ", removed in version " + std::to_string(version_) +
                           ", was not a live file of version " + std::to_string(version_ - 1));
  }

  // remove(p, old) + add(p, new): the rows in `new` and not in `old` were deleted; rows in
  // `old` and not in `new` came back.
  Status ReadDeletionVectorUpdate(const Add& before, const Add& after) {
    RowBitmap old_dv, new_dv;
    if (before.deletion_vector) {
      CDCLAKE_ASSIGN_OR_RETURN(old_dv,
                               LoadDeletionVector(fs_, table_root_, *before.deletion_vector));
    }
    if (after.deletion_vector) {
      CDCLAKE_ASSIGN_OR_RETURN(new_dv,
                               LoadDeletionVector(fs_, table_root_, *after.deletion_vector));
    }
    std::vector<int64_t> deleted, restored;
    new_dv.ForEach([&](uint64_t r) {
      if (!old_dv.Contains(r)) deleted.push_back(static_cast<int64_t>(r));
    });
    old_dv.ForEach([&](uint64_t r) {
      if (!new_dv.Contains(r)) restored.push_back(static_cast<int64_t>(r));
    });
    if (deleted.empty() && restored.empty()) return Status::OK();
    Add whole = after;
    whole.deletion_vector.reset();  // every physical row, at its position
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, ReadDataFile(fs_, *end_, whole));
    for (const std::vector<int64_t>* list : {&deleted, &restored}) {
      if (!list->empty() && list->back() >= rows.num_rows()) {
        return Status::Corrupt(after.path + ": its deletion vector names row " +
                               std::to_string(list->back()) + " of " +
                               std::to_string(rows.num_rows()));
      }
    }
    out_->Append(rows, deleted, nullptr, kChangeDelete, version_, timestamp_ms_);
    out_->Append(rows, restored, nullptr, kChangeInsert, version_, timestamp_ms_);
    return Status::OK();
  }

  const io::FileSystem& fs_;
  const std::string& table_root_;
  std::shared_ptr<const Snapshot> end_;
  int64_t version_;
  int64_t timestamp_ms_;
  ChangeBatch* out_;
  std::shared_ptr<const Snapshot> previous_;
};

}  // namespace

Result<data::RecordBatch> ReadChanges(const io::FileSystem& fs, const std::string& table_root,
                                      int64_t from_version, std::optional<int64_t> to_version) {
  if (from_version < 0) {
    return Status::InvalidArgument("the first version must be 0 or more, not " +
                                   std::to_string(from_version));
  }
  if (to_version && *to_version < from_version) {
    return Status::InvalidArgument("the last version (" + std::to_string(*to_version) +
                                   ") is before the first (" + std::to_string(from_version) + ")");
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<LogFile> listed, ListCommits(fs, table_root));
  std::map<int64_t, LogFile> commits;
  for (LogFile& f : listed) commits[f.version] = std::move(f);
  if (commits.empty()) return Status::NotFound(table_root + ": the log has no commits");
  const int64_t earliest = commits.begin()->first;
  const int64_t latest = commits.rbegin()->first;
  if (from_version < earliest) {
    return Status::NotFound(
        table_root + ": cannot read changes from version " + std::to_string(from_version) +
        ": the earliest commit still in the log is version " + std::to_string(earliest) +
        " (older commits were removed by log cleanup)");
  }
  if (from_version > latest) {
    return Status::NotFound(table_root + ": version " + std::to_string(from_version) +
                            " does not exist (latest is " + std::to_string(latest) + ")");
  }
  const int64_t to = to_version.value_or(latest);
  if (to > latest) {
    return Status::NotFound(table_root + ": version " + std::to_string(to) +
                            " does not exist (latest is " + std::to_string(latest) + ")");
  }
  for (int64_t v = from_version; v <= to; ++v) {
    if (!commits.count(v)) {
      return Status::Corrupt(table_root + ": the log lacks commit " + std::to_string(v));
    }
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> end, Snapshot::Load(fs, table_root, to));
  ChangeBatch out(end->schema());
  for (int64_t v = from_version; v <= to; ++v) {
    const LogFile& commit = commits[v];
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(commit.path));
    auto actions = ParseActions(content);
    if (!actions.ok()) return actions.status().WithContext(commit.path);
    int64_t timestamp_ms = commit.modification_time_ms;
    for (const Action& a : *actions) {
      const auto* info = std::get_if<CommitInfo>(&a);
      if (info && info->in_commit_timestamp) timestamp_ms = *info->in_commit_timestamp;
    }
    CommitChanges changes(fs, table_root, end, v, timestamp_ms, &out);
    Status read = changes.Read(*actions);
    if (!read.ok()) return read.WithContext("version " + std::to_string(v));
  }
  return std::move(out).Finish();
}

}  // namespace cdclake::delta
