// TableBatchSource: a BatchSource over a table's appended rows, whole commits per batch.
#include <algorithm>

#include "delta/log_segment.h"
#include "pipeline/batch_source.h"
#include "pipeline/bronze_columns.h"
#include "pipeline/table_stream.h"
#include "pipeline/version_row_names.h"

namespace cdclake::pipeline {

namespace {

class TableBatchSource : public BatchSource {
 public:
  TableBatchSource(std::string table, std::string table_id, std::unique_ptr<TableStream> stream,
                   int64_t after, int64_t batch_rows, std::vector<std::string> notices)
      : table_(std::move(table)),
        table_id_(std::move(table_id)),
        stream_(std::move(stream)),
        after_(after),
        batch_rows_(std::max<int64_t>(batch_rows, 1)),
        notices_(std::move(notices)) {}

  std::vector<std::string> Notices() const override { return notices_; }

  std::string StartText() const override {
    return after_ < 0 ? table_ + "@start" : table_ + "@v" + std::to_string(after_);
  }

  Result<std::optional<InputBatch>> Next() override {
    if (!stream_) return std::optional<InputBatch>();
    std::optional<data::RecordBatch> rows;
    int64_t last = -1;
    int64_t written_ms = 0;
    std::vector<int64_t> versions;  // each row's
    while (!rows || rows->num_rows() < batch_rows_) {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<AppendedRows> next, stream_->Next());
      if (!next) break;
      last = next->version;
      versions.insert(versions.end(), static_cast<size_t>(next->rows.num_rows()), next->version);
      written_ms = std::max(written_ms, next->timestamp_ms);
      if (!rows) {
        rows = std::move(next->rows);
        continue;
      }
      for (size_t c = 0; c < rows->num_columns(); ++c) {
        rows->mutable_column(c).AppendColumn(next->rows.column(c));
      }
    }
    if (!rows) return std::optional<InputBatch>();
    InputBatch out;
    CDCLAKE_ASSIGN_OR_RETURN(out.rows, ChangeRowsFromTable(std::move(*rows)));
    // Rows without bronze columns are named by version and place (a row quarantined before a
    // crash is not quarantined again when the version is read again).
    NameRowsByVersion(table_, versions, &out.rows);
    out.end = json::Json::object();
    out.end["table"] = table_;
    out.end["version"] = last;
    out.end["tableId"] = table_id_;
    out.end_text = table_ + "@v" + std::to_string(last);
    out.written_ms = written_ms;
    return std::optional<InputBatch>(std::move(out));
  }

 private:
  std::string table_;
  std::string table_id_;                 // the upstream's metaData.id
  std::unique_ptr<TableStream> stream_;  // nullptr: the table does not exist yet
  int64_t after_;
  int64_t batch_rows_;
  std::vector<std::string> notices_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenTableSource(
    const io::FileSystem& fs, const std::string& table, const std::string& folder,
    const json::Json& position, int64_t batch_rows, bool skip_change_commits,
    OnRefreshedUpstream on_refreshed, const std::string& reader_target) {
  int64_t after = -1;
  if (position.is_object()) {
    if (!position.contains("table") || position["table"] != table ||
        !position.contains("version") || !position["version"].is_number_integer()) {
      return Status::InvalidArgument("the flow's recorded position " + json::Dump(position) +
                                     " is not a position in table " + table +
                                     "; the flow's source changed: refresh it in full");
    }
    after = position["version"].get<int64_t>();
  }
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, folder));
  std::unique_ptr<TableStream> stream;
  std::string table_id;
  std::vector<std::string> notices;
  if (exists) {
    // Lineage: a position names the upstream by its table id and version. A refreshed upstream
    // (a new id, or a log that restarted below the recorded version) is read again from its
    // start; the sequence guards make the rows read twice harmless.
    CDCLAKE_ASSIGN_OR_RETURN(auto upstream, delta::Snapshot::Load(fs, folder));
    table_id = upstream->metadata().id;
    std::string refreshed;
    if (after >= 0 && position.contains("tableId") && position["tableId"].is_string() &&
        position["tableId"].get<std::string>() != table_id) {
      refreshed = table + " was refreshed (its table id is now " + table_id + ", was " +
                  position["tableId"].get<std::string>() + ")";
    } else if (after > upstream->version()) {
      refreshed = table + " is at version " + std::to_string(upstream->version()) +
                  ", below the version " + std::to_string(after) +
                  " already read (it was refreshed)";
    }
    if (!refreshed.empty() && on_refreshed == OnRefreshedUpstream::kRefuse) {
      // Reading it again would append every row the flow appended before a second time.
      const std::string target = reader_target.empty() ? "TABLE" : reader_target;
      return Status::Conflict(refreshed +
                              "; an append flow would append its rows again: refresh the flow's "
                              "target in full too (cdclake run --full-refresh " +
                              target + "), which reads the new table from the start");
    }
    if (!refreshed.empty()) {
      notices.push_back(refreshed + ": reading it again from the start");
      after = -1;
    }
    CDCLAKE_ASSIGN_OR_RETURN(stream, TableStream::Open(fs, folder, after, skip_change_commits));
  }
  return std::unique_ptr<BatchSource>(std::make_unique<TableBatchSource>(
      table, std::move(table_id), std::move(stream), after, batch_rows, std::move(notices)));
}

}  // namespace cdclake::pipeline
