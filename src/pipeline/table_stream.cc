// TableStream: each commit's add actions read back as the rows the commit appended.
#include "pipeline/table_stream.h"

#include <variant>
#include <vector>

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/table_scan.h"

namespace cdclake::pipeline {

Result<std::unique_ptr<TableStream>> TableStream::Open(const io::FileSystem& fs,
                                                       std::string table_root,
                                                       int64_t after_version,
                                                       bool skip_change_commits) {
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snapshot,
                           delta::Snapshot::Load(fs, table_root));
  return std::unique_ptr<TableStream>(
      new TableStream(fs, std::move(table_root), std::move(snapshot),
                      std::max<int64_t>(after_version + 1, 0), skip_change_commits));
}

Result<std::optional<AppendedRows>> TableStream::Next() {
  while (next_version_ <= snapshot_->version()) {
    const int64_t version = next_version_++;
    const std::string path = delta::CommitPath(table_root_, version);
    auto content = fs_.ReadFile(path);
    if (!content.ok()) {
      if (content.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(table_root_ + ": the commit of version " + std::to_string(version) +
                                " is gone (log cleanup removed it), so its rows cannot be read "
                                "as a stream; refresh the tables that read this one in full");
      }
      return content.status();
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(*content));
    std::vector<const delta::Add*> adds;
    int64_t timestamp_ms = 0;
    bool changes_rows = false;
    for (const delta::Action& action : actions) {
      if (const auto* info = std::get_if<delta::CommitInfo>(&action)) {
        timestamp_ms = info->in_commit_timestamp.value_or(info->timestamp.value_or(0));
      }
      if (const auto* remove = std::get_if<delta::Remove>(&action)) {
        if (remove->data_change && !skip_change_commits_) {
          return Status::NotSupported(
              table_root_ + ": version " + std::to_string(version) + " removed or rewrote rows (" +
              remove->path +
              "); a table read as a stream may only be appended to: read its changes with "
              "STREAM(table_changes(...)), or pass over such commits with STREAM(t) WITH "
              "('skipChangeCommits' = 'true')");
        }
        if (remove->data_change) changes_rows = true;
      } else if (const auto* add = std::get_if<delta::Add>(&action)) {
        if (add->data_change) adds.push_back(add);
      }
    }
    if (adds.empty() || changes_rows) continue;
    AppendedRows out{version, timestamp_ms, data::RecordBatch(snapshot_->schema())};
    for (const delta::Add* add : adds) {
      CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadDataFile(fs_, *snapshot_, *add));
      for (size_t c = 0; c < rows.num_columns(); ++c) {
        out.rows.mutable_column(c).AppendColumn(rows.column(c));
      }
    }
    return std::optional<AppendedRows>(std::move(out));
  }
  return std::optional<AppendedRows>();
}

}  // namespace cdclake::pipeline
