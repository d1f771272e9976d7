// TableChangesSource: table_changes('t', start) as a BatchSource: a table's change data feed,
// version after version, each batch ending at a whole version.
#include <algorithm>
#include <variant>

#include "delta/actions.h"
#include "delta/change_feed.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "pipeline/batch_source.h"
#include "pipeline/bronze_columns.h"
#include "pipeline/version_row_names.h"

namespace cdclake::pipeline {

namespace {

class TableChangesSource : public BatchSource {
 public:
  TableChangesSource(const io::FileSystem& fs, const SourcePlan& source, std::string table_id,
                     int64_t first, int64_t latest, int64_t batch_rows, bool drop_preimages,
                     std::vector<std::string> notices)
      : fs_(fs),
        table_(source.table),
        folder_(source.table_folder),
        table_id_(std::move(table_id)),
        next_(first),
        first_(first),
        latest_(latest),
        batch_rows_(std::max<int64_t>(batch_rows, 1)),
        drop_preimages_(drop_preimages),
        notices_(std::move(notices)) {}

  std::vector<std::string> Notices() const override { return notices_; }

  std::string StartText() const override {
    return table_ + " changes from v" + std::to_string(first_);
  }

  // Leaves out update pre-images for an AUTO CDC flow; the newest commit time in `written_ms`.
  void Filter(data::RecordBatch* rows, int64_t* written_ms) const {
    const int type = rows->schema().FieldIndex("_change_type");
    const int at = rows->schema().FieldIndex(std::string(delta::kCommitTimestampColumn));
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      if (at >= 0 && !rows->column(static_cast<size_t>(at)).IsNull(r)) {
        *written_ms = std::max(
            *written_ms, rows->column(static_cast<size_t>(at)).GetValue(r).int_value() / 1000);
      }
      // An AUTO CDC flow applies the post-image of an update, not the state before it.
      if (drop_preimages_ && type >= 0 &&
          rows->column(static_cast<size_t>(type)).StringAt(r) == "update_preimage") {
        continue;
      }
      keep.push_back(r);
    }
    if (static_cast<int64_t>(keep.size()) == rows->num_rows()) return;
    std::vector<data::Column> kept;
    for (size_t c = 0; c < rows->num_columns(); ++c) kept.push_back(rows->column(c).Take(keep));
    *rows = data::RecordBatch(rows->schema(), std::move(kept));
  }

  // Rows without a position of their own (no bronze columns) are named by version and place
  // in it: "<table>@v<20 digits>" and the row's ordinal. Versions are whole in a batch and the
  // rows of one come in the same order each time, so a quarantined row is known again when a
  // run reads it a second time (FindResumePoint's guard).
  void NameRows(change::ChangeBatch* batch) const {
    const data::RecordBatch& rows = batch->rows;
    const int version = rows.schema().FieldIndex(std::string(delta::kCommitVersionColumn));
    if (version < 0) return;
    std::vector<int64_t> versions(static_cast<size_t>(rows.num_rows()));
    for (size_t r = 0; r < versions.size(); ++r) {
      versions[r] =
          rows.column(static_cast<size_t>(version)).GetValue(static_cast<int64_t>(r)).int_value();
    }
    NameRowsByVersion(table_, versions, batch);
  }

  Result<std::optional<InputBatch>> Next() override {
    std::optional<data::RecordBatch> rows;
    int64_t last = -1;
    int64_t written_ms = 0;
    if (pending_) {
      rows = std::move(*pending_);
      pending_.reset();
      last = pending_last_;
      written_ms = pending_written_ms_;
    }
    // Versions are read in spans that double while the batch stays small, each span one read
    // of the log (a version at a time would list and load the log once per version).
    int64_t span = 1;
    while (next_ <= latest_ && (!rows || rows->num_rows() < batch_rows_)) {
      const int64_t to = std::min(latest_, next_ + span - 1);
      CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch read, delta::ReadChanges(fs_, folder_, next_, to));
      next_ = to + 1;
      span = std::min<int64_t>(span * 2, 64);
      int64_t read_ms = 0;
      Filter(&read, &read_ms);
      // Rows of another schema (columns added between) make a batch of their own.
      if (rows && !(read.schema() == rows->schema())) {
        pending_ = std::move(read);
        pending_last_ = to;
        pending_written_ms_ = read_ms;
        break;
      }
      last = to;
      written_ms = std::max(written_ms, read_ms);
      if (!rows) {
        rows = std::move(read);
        continue;
      }
      for (size_t c = 0; c < rows->num_columns(); ++c) {
        rows->mutable_column(c).AppendColumn(read.column(c));
      }
    }
    if (!rows) return std::optional<InputBatch>();
    InputBatch out;
    CDCLAKE_ASSIGN_OR_RETURN(out.rows, ChangeRowsFromTable(std::move(*rows)));
    NameRows(&out.rows);
    out.end = json::Json::object();
    out.end["table"] = table_;
    out.end["version"] = last;
    out.end["tableId"] = table_id_;
    out.end["changes"] = true;
    out.end_text = table_ + "@v" + std::to_string(last) + " (changes)";
    out.written_ms = written_ms;
    return std::optional<InputBatch>(std::move(out));
  }

 private:
  const io::FileSystem& fs_;
  std::string table_;
  std::string folder_;
  std::string table_id_;
  int64_t next_;  // the next version to read
  int64_t first_;
  int64_t latest_;  // the table's version when the source opened: a run reads up to it
  int64_t batch_rows_;
  bool drop_preimages_;
  std::vector<std::string> notices_;
  // Read past a schema change: the next batch's start.
  std::optional<data::RecordBatch> pending_;
  int64_t pending_last_ = -1;
  int64_t pending_written_ms_ = 0;
};

bool RecordsChanges(const delta::Metadata& metadata) {
  auto property = metadata.configuration.find("delta.enableChangeDataFeed");
  return property != metadata.configuration.end() && property->second == "true";
}

// Every version in [first, latest] that changed rows recorded its changes: a table that gained
// delta.enableChangeDataFeed later has versions before it whose updates would read as a delete
// and an insert of the same key in one version (Delta refuses such a read too). The table's
// configuration at `first`, then each commit's metaData, decide; the table as of `first` is
// loaded only when a later commit set the configuration (otherwise every version has the
// latest's, checked before). kInvalidArgument naming the version and where a read could start.
Status CheckChangesRecorded(const io::FileSystem& fs, const SourcePlan& source, int64_t first,
                            int64_t latest) {
  if (first > latest) return Status::OK();
  // Per version: whether it changed rows, and whether it set the configuration (metaData).
  struct Commit {
    bool changes = false;
    std::optional<bool> sets_recording;
  };
  std::vector<Commit> commits;
  for (int64_t v = first; v <= latest; ++v) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string content,
                             fs.ReadFile(delta::CommitPath(source.table_folder, v)));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(content));
    Commit& c = commits.emplace_back();
    for (const delta::Action& a : actions) {
      if (const auto* md = std::get_if<delta::Metadata>(&a)) c.sets_recording = RecordsChanges(*md);
      if (const auto* add = std::get_if<delta::Add>(&a); add && add->data_change) c.changes = true;
      if (const auto* rm = std::get_if<delta::Remove>(&a); rm && rm->data_change) c.changes = true;
    }
  }
  // No configuration set after `first`: every version has the latest's, which records them.
  bool later_settings = false;
  for (size_t i = 1; i < commits.size(); ++i)
    later_settings |= commits[i].sets_recording.has_value();
  if (!later_settings) return Status::OK();
  CDCLAKE_ASSIGN_OR_RETURN(auto at_first, delta::Snapshot::Load(fs, source.table_folder, first));
  bool recording = RecordsChanges(at_first->metadata());
  std::optional<int64_t> unrecorded;  // the last version that changed rows without recording
  for (size_t i = 0; i < commits.size(); ++i) {
    if (i > 0 && commits[i].sets_recording) recording = *commits[i].sets_recording;
    if (commits[i].changes && !recording) unrecorded = first + static_cast<int64_t>(i);
  }
  if (!unrecorded) return Status::OK();
  return Status::InvalidArgument(
      "table_changes('" + source.table + "'): version " + std::to_string(*unrecorded) + " of " +
      source.table +
      " changed rows before the table recorded its changes (delta.enableChangeDataFeed was not "
      "'true' then); read from a later version: table_changes('" +
      source.table + "', " + std::to_string(*unrecorded + 1) + ")");
}

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenTableChangesSource(const io::FileSystem& fs,
                                                            const SourcePlan& source,
                                                            const json::Json& position,
                                                            int64_t batch_rows,
                                                            bool drop_preimages) {
  const std::string what = "table_changes('" + source.table + "')";
  std::optional<int64_t> after;
  if (position.is_object() && !position.empty()) {
    if (!position.contains("table") || position["table"] != source.table ||
        !position.contains("changes") || !position.contains("version") ||
        !position["version"].is_number_integer()) {
      return Status::InvalidArgument("the flow's recorded position " + json::Dump(position) +
                                     " is not a position in the changes of " + source.table +
                                     "; the flow's source changed: refresh it in full");
    }
    after = position["version"].get<int64_t>();
  }
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, source.table_folder));
  if (!exists) {
    // Nothing has changed yet.
    return std::unique_ptr<BatchSource>(std::make_unique<TableChangesSource>(
        fs, source, "", 0, -1, batch_rows, drop_preimages, std::vector<std::string>{}));
  }
  CDCLAKE_ASSIGN_OR_RETURN(auto table, delta::Snapshot::Load(fs, source.table_folder));
  if (!RecordsChanges(table->metadata())) {
    return Status::InvalidArgument(
        what + ": " + source.table +
        " does not record its changes; give it TBLPROPERTIES ('delta.enableChangeDataFeed' = "
        "'true') and refresh it in full, so that every version records them");
  }
  std::vector<std::string> notices;
  const std::string table_id = table->metadata().id;
  if (after && position.contains("tableId") && position["tableId"].is_string() &&
      position["tableId"].get<std::string>() != table_id) {
    // A rebuilt table's versions start again at 0: sequenced by _commit_version, its changes
    // would all be older than what the flow applied, and the keys the rebuild removed would
    // get no delete.
    return Status::Conflict(what + ": " + source.table + " was refreshed (its table id is now " +
                            table_id + ", was " + position["tableId"].get<std::string>() +
                            "); refresh the flow's target in full too (cdclake run "
                            "--full-refresh TABLE), which reads the new table's changes from "
                            "the start");
  }
  int64_t first = source.changes_from;
  if (after) {
    first = *after + 1;
  } else if (source.changes_from_ms) {
    // The first version committed at or after the timestamp.
    auto before = delta::Snapshot::LoadAsOf(fs, source.table_folder, *source.changes_from_ms - 1);
    if (!before.ok() && before.status().code() != StatusCode::kNotFound) return before.status();
    first = before.ok() ? (*before)->version() + 1 : 0;  // NotFound: before the first commit
  }
  CDCLAKE_RETURN_IF_ERROR(CheckChangesRecorded(fs, source, first, table->version()));
  return std::unique_ptr<BatchSource>(
      std::make_unique<TableChangesSource>(fs, source, table_id, first, table->version(),
                                           batch_rows, drop_preimages, std::move(notices)));
}

}  // namespace cdclake::pipeline
