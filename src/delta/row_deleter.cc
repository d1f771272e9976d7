// Deleting rows with deletion vectors or by copy-on-write.
#include "delta/row_deleter.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "delta/change_data_writer.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/file_statistics.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {

bool UsesDeletionVectors(const Snapshot& snapshot) {
  if (snapshot.Property("delta.enableDeletionVectors") != "true") return false;
  const Protocol& p = snapshot.protocol();
  auto listed = [](const std::optional<std::vector<std::string>>& features) {
    return features &&
           std::find(features->begin(), features->end(), "deletionVectors") != features->end();
  };
  return p.min_reader_version >= 3 && p.min_writer_version >= 7 && listed(p.reader_features) &&
         listed(p.writer_features);
}

namespace {

// The physical row count of a data file: `numRecords` from its stats, else the Parquet footer.
Result<int64_t> PhysicalRows(const io::FileSystem& fs, const Snapshot& snapshot, const Add& add) {
  if (add.stats) {
    auto stats = ParseStatsJson(*add.stats);
    if (stats.ok() && stats->num_records >= 0) return stats->num_records;
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::string path, ResolvePath(snapshot.table_root(), add.path));
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, parquet::FileReader::Open(fs, path));
  return reader->num_rows();
}

// Every physical row of the file, deleted ones included, in file order.
Result<data::RecordBatch> ReadPhysicalRows(const io::FileSystem& fs, const Snapshot& snapshot,
                                           const Add& add, int64_t expected_rows) {
  Add whole = add;
  whole.deletion_vector.reset();
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, ReadDataFile(fs, snapshot, whole));
  if (rows.num_rows() != expected_rows) {
    return Status::Corrupt(add.path + ": the file has " + std::to_string(rows.num_rows()) +
                           " rows, its stats say numRecords " + std::to_string(expected_rows));
  }
  return rows;
}

std::vector<int64_t> ToPositions(const RowBitmap& bitmap) {
  std::vector<int64_t> out;
  out.reserve(bitmap.Cardinality());
  bitmap.ForEach([&](uint64_t row) { out.push_back(static_cast<int64_t>(row)); });
  return out;
}

void AppendRows(data::RecordBatch* to, const data::RecordBatch& from) {
  for (size_t c = 0; c < to->num_columns(); ++c) to->mutable_column(c).AppendColumn(from.column(c));
}

// `stats` (a JSON object's text) with `numRecords` present and `tightBounds` false, edited as
// text so that every other number keeps its exact spelling (decimals beyond double precision).
Result<std::string> WideStats(const std::optional<std::string>& stats, int64_t num_records) {
  std::string records = "\"numRecords\":" + std::to_string(num_records);
  if (!stats) return "{" + records + "}";
  CDCLAKE_ASSIGN_OR_RETURN(ParsedStats parsed, ParseStatsJson(*stats));
  const std::string& text = *stats;
  // Find the top-level members: each key's text and where its value starts and ends.
  std::optional<std::pair<size_t, size_t>> tight_value;
  bool has_column_stats = false;
  size_t i = text.find('{');
  if (i == std::string::npos) return Status::Corrupt("stats: not a JSON object");
  int depth = 0;
  std::string key;
  bool expect_key = true;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (depth == 1 && expect_key) {
        key = text.substr(start, i - start);
        expect_key = false;
      }
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      continue;
    }
    if (c == '}' || c == ']') {
      --depth;
      continue;
    }
    if (depth != 1) continue;
    if (c == ',') {
      expect_key = true;
    } else if (c == ':') {
      if (key == "minValues" || key == "maxValues" || key == "nullCount") has_column_stats = true;
      if (key == "tightBounds") {
        size_t start = i + 1;
        while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
          ++start;
        size_t end = start;
        while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
        tight_value = {start, end};
      }
    }
  }
  std::string out = text;
  if (tight_value) {
    out.replace(tight_value->first, tight_value->second - tight_value->first, "false");
  } else if (has_column_stats) {
    size_t close = out.rfind('}');
    bool empty = out.find_first_not_of(" \t\r\n", out.find('{') + 1) == close;
    out.insert(close, std::string(empty ? "" : ",") + "\"tightBounds\":false");
  }
  if (parsed.num_records < 0) {
    size_t open = out.find('{');
    bool empty = out.find_first_not_of(" \t\r\n", open + 1) == out.rfind('}');
    out.insert(open + 1, records + (empty ? "" : ","));
  }
  return out;
}

// One file's deletion, planned.
struct FilePlan {
  const Add* add = nullptr;
  int64_t num_records = 0;
  RowBitmap fresh;   // rows this call deletes
  RowBitmap merged;  // the file's deletion vector afterwards
};

}  // namespace

Result<RowDeletion> DeleteRows(io::FileSystem& fs, const Snapshot& snapshot,
                               const std::map<std::string, std::vector<int64_t>>& rows,
                               const DeleteRowsOptions& options) {
  const bool with_dvs = UsesDeletionVectors(snapshot);
  if (!with_dvs && snapshot.column_mapping_mode() != "none") {
    return Status::NotSupported("not supported: copy-on-write deletes under column mapping mode '" +
                                snapshot.column_mapping_mode() + "'");
  }
  std::map<std::string, const Add*> live;
  for (const Add& a : snapshot.files()) live[a.path] = &a;

  std::vector<FilePlan> plans;
  for (const auto& [path, positions] : rows) {
    auto it = live.find(path);
    if (it == live.end()) {
      return Status::NotFound(path + ": not a live file of the table at version " +
                              std::to_string(snapshot.version()));
    }
    FilePlan plan;
    plan.add = it->second;
    CDCLAKE_ASSIGN_OR_RETURN(plan.num_records, PhysicalRows(fs, snapshot, *plan.add));
    if (plan.add->deletion_vector) {
      auto old = LoadDeletionVector(fs, snapshot.table_root(), *plan.add->deletion_vector);
      if (!old.ok()) return old.status().WithContext(path + ": deletion vector");
      plan.merged = std::move(old).value();
    }
    for (int64_t p : positions) {
      if (p < 0 || p >= plan.num_records) {
        return Status::InvalidArgument(path + ": row " + std::to_string(p) +
                                       " is outside the file's " +
                                       std::to_string(plan.num_records) + " rows");
      }
      if (!plan.merged.Contains(static_cast<uint64_t>(p))) plan.fresh.Add(static_cast<uint64_t>(p));
    }
    if (plan.fresh.IsEmpty()) continue;
    plan.merged.Union(plan.fresh);
    plans.push_back(std::move(plan));
  }

  RowDeletion out;
  const bool change_data =
      !with_dvs && options.write_change_data && ChangeDataFeedEnabled(snapshot);
  const bool collect = options.collect_deleted_rows || change_data;
  out.deleted_rows = data::RecordBatch(snapshot.schema());
  const int64_t now = NowMillis();

  if (with_dvs) {
    // Vectors too big for the log share one new deletion vector file.
    std::vector<const RowBitmap*> to_file;
    for (const FilePlan& plan : plans) {
      bool all_gone = static_cast<int64_t>(plan.merged.Cardinality()) == plan.num_records;
      if (!all_gone && static_cast<int64_t>(plan.merged.SerializePortable().size()) >
                           options.max_inline_dv_bytes) {
        to_file.push_back(&plan.merged);
      }
    }
    std::vector<DeletionVectorDescriptor> stored;
    if (!to_file.empty()) {
      CDCLAKE_ASSIGN_OR_RETURN(stored, WriteDeletionVectorFile(fs, snapshot.table_root(), to_file));
    }
    size_t next_stored = 0;
    for (const FilePlan& plan : plans) {
      out.actions.push_back(RemoveOf(*plan.add, now));
      out.num_deleted += static_cast<int64_t>(plan.fresh.Cardinality());
      if (collect) {
        CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch physical,
                                 ReadPhysicalRows(fs, snapshot, *plan.add, plan.num_records));
        std::vector<int64_t> take = ToPositions(plan.fresh);
        std::vector<data::Column> columns;
        for (const data::Column& c : physical.columns()) columns.push_back(c.Take(take));
        AppendRows(&out.deleted_rows, data::RecordBatch(physical.schema(), std::move(columns)));
      }
      if (static_cast<int64_t>(plan.merged.Cardinality()) == plan.num_records) continue;
      Add add = *plan.add;
      if (next_stored < to_file.size() && to_file[next_stored] == &plan.merged) {
        add.deletion_vector = stored[next_stored++];
      } else {
        add.deletion_vector = InlineDeletionVector(plan.merged);
      }
      add.data_change = true;
      auto stats = WideStats(add.stats, plan.num_records);
      if (!stats.ok()) return stats.status().WithContext(add.path);
      add.stats = std::move(stats).value();
      out.actions.push_back(std::move(add));
    }
    return out;
  }

  // Copy-on-write: rewrite each file without the deleted rows.
  for (const FilePlan& plan : plans) {
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch physical,
                             ReadPhysicalRows(fs, snapshot, *plan.add, plan.num_records));
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < plan.num_records; ++r) {
      if (!plan.merged.Contains(static_cast<uint64_t>(r))) keep.push_back(r);
    }
    out.actions.push_back(RemoveOf(*plan.add, now));
    out.num_deleted += static_cast<int64_t>(plan.fresh.Cardinality());
    out.num_copied += static_cast<int64_t>(keep.size());
    if (collect) {
      std::vector<int64_t> take = ToPositions(plan.fresh);
      std::vector<data::Column> columns;
      for (const data::Column& c : physical.columns()) columns.push_back(c.Take(take));
      AppendRows(&out.deleted_rows, data::RecordBatch(physical.schema(), std::move(columns)));
    }
    if (keep.empty()) continue;
    std::vector<data::Column> columns;
    for (const data::Column& c : physical.columns()) columns.push_back(c.Take(keep));
    data::RecordBatch kept(physical.schema(), std::move(columns));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Add> adds, WriteDataFiles(fs, snapshot, kept));
    for (Add& a : adds) out.actions.push_back(std::move(a));
  }
  if (change_data && out.deleted_rows.num_rows() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(
        std::vector<AddCdc> cdc,
        WriteChangeDataFiles(fs, snapshot, WithChangeType(out.deleted_rows, kChangeDelete)));
    for (AddCdc& c : cdc) out.actions.push_back(std::move(c));
  }
  if (!options.collect_deleted_rows) out.deleted_rows = data::RecordBatch(snapshot.schema());
  return out;
}

Result<std::vector<Action>> DeleteRows(io::FileSystem& fs, const Snapshot& snapshot,
                                       const std::map<std::string, std::vector<int64_t>>& rows) {
  CDCLAKE_ASSIGN_OR_RETURN(RowDeletion deletion, DeleteRows(fs, snapshot, rows, {}));
  return std::move(deletion.actions);
}

}  // namespace cdclake::delta
