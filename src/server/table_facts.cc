// TableFacts: snapshots, commit files and event-log files read for the monitoring page.
#include "server/table_facts.h"

#include <algorithm>

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "json/json.h"

namespace cdclake::server {

namespace {

std::string FieldText(const data::Value& v) {
  return v.is_bytes() ? v.bytes() : std::string();
}
int64_t FieldInt(const data::Value& v) {
  return v.is_int() ? v.int_value() : 0;
}

}  // namespace

Result<TableFacts> LoadTableFacts(const io::FileSystem& fs, const std::string& folder) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, folder));
  if (!exists) return Status::NotFound(folder + " does not exist yet");
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, folder));
  TableFacts facts;
  facts.version = snapshot->version();
  facts.files = static_cast<int64_t>(snapshot->files().size());
  facts.rows = snapshot->num_records();
  for (const delta::Add& a : snapshot->files()) facts.bytes += a.size;
  facts.timestamp_ms = snapshot->timestamp_ms();
  facts.schema = snapshot->schema();
  facts.partition_columns = snapshot->metadata().partition_columns;
  return facts;
}

Result<std::vector<CommitFacts>> RecentCommits(const io::FileSystem& fs, const std::string& folder,
                                               size_t limit) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::LogFile> commits, delta::ListCommits(fs, folder));
  std::vector<CommitFacts> out;
  for (auto it = commits.rbegin(); it != commits.rend() && out.size() < limit; ++it) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(it->path));
    auto actions = delta::ParseActions(content);
    if (!actions.ok()) return actions.status().WithContext(it->path);
    CommitFacts c;
    c.version = it->version;
    c.timestamp_ms = it->modification_time_ms;
    for (const delta::Action& a : *actions) {
      const auto* info = std::get_if<delta::CommitInfo>(&a);
      if (info == nullptr) continue;
      c.timestamp_ms = info->in_commit_timestamp.value_or(info->timestamp.value_or(c.timestamp_ms));
      c.operation = info->operation.value_or("");
      if (info->value.contains("operationMetrics")) {
        c.metrics = json::Dump(info->value["operationMetrics"]);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<LoggedBatch>> RecentLoggedBatches(const io::FileSystem& fs,
                                                     const std::string& folder,
                                                     const std::string& flow, size_t limit) {
  std::vector<LoggedBatch> out;
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, folder));
  if (!exists) return out;
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, folder));
  // One file per pass: the newest files hold the newest rows.
  std::vector<const delta::Add*> files;
  for (const delta::Add& a : snapshot->files()) files.push_back(&a);
  std::sort(files.begin(), files.end(), [](const delta::Add* a, const delta::Add* b) {
    return a->modification_time != b->modification_time
               ? a->modification_time > b->modification_time
               : a->path > b->path;
  });
  delta::ScanOptions scan;
  scan.columns = {"event_time",    "event_type",   "flow",           "input_to",
                  "rows_read",     "rows_applied", "rows_discarded", "rows_quarantined",
                  "table_version", "duration_ms",  "status",         "message"};
  for (const delta::Add* add : files) {
    if (out.size() >= limit) break;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows,
                             delta::ReadDataFile(fs, *snapshot, *add, scan));
    std::vector<LoggedBatch> of_file;
    for (int64_t i = 0; i < rows.num_rows(); ++i) {
      std::vector<data::Value> row = rows.GetRow(i);
      if (FieldText(row[2]) != flow) continue;
      LoggedBatch b;
      b.time_ms = FieldInt(row[0]) / 1000;
      b.event_type = row[1].is_null() ? "flow_progress" : FieldText(row[1]);
      b.input_to = FieldText(row[3]);
      b.rows_read = FieldInt(row[4]);
      b.rows_applied = FieldInt(row[5]);
      b.rows_discarded = FieldInt(row[6]);
      b.rows_quarantined = FieldInt(row[7]);
      if (row[8].is_int()) b.table_version = row[8].int_value();
      b.duration_ms = FieldInt(row[9]);
      b.status = FieldText(row[10]);
      b.message = FieldText(row[11]);
      of_file.push_back(std::move(b));
    }
    // Within a file, the later rows are the later events.
    for (auto it = of_file.rbegin(); it != of_file.rend() && out.size() < limit; ++it) {
      out.push_back(std::move(*it));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LoggedBatch& a, const LoggedBatch& b) {
    return a.time_ms > b.time_ms;
  });
  return out;
}

}  // namespace cdclake::server
