// Compaction: pick files, copy their live rows into new files, move the index's locations,
// commit removes and adds (dataChange false) with the index's changes.
#include "apply/optimize.h"

#include <map>
#include <unordered_map>

#include "apply/file_dictionary.h"
#include "apply/index_log.h"
#include "apply/key_history.h"
#include "apply/key_state.h"
#include "change/ordered_encoding.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/file_statistics.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "json/json.h"

namespace cdclake::apply {
namespace {

struct Candidate {
  const delta::Add* add = nullptr;
  int64_t live_rows = 0;
  int64_t deleted_rows = 0;
};

Result<std::vector<std::string>> TableKeys(const delta::Snapshot& snapshot) {
  std::string text = snapshot.Property(kKeysProperty);
  if (text.empty()) {
    return Status::NotSupported(snapshot.table_root() +
                                " has no cdclake.keys property: it was not written by cdclake's "
                                "apply engine, so optimize cannot keep a key index for it");
  }
  CDCLAKE_ASSIGN_OR_RETURN(json::Json keys, json::Parse(text));
  std::vector<std::string> out;
  if (!keys.is_array()) return Status::Corrupt("cdclake.keys is not a JSON array: " + text);
  for (const auto& k : keys) {
    if (!k.is_string()) return Status::Corrupt("cdclake.keys holds a non-string: " + text);
    out.push_back(k.get<std::string>());
  }
  return out;
}

}  // namespace

std::string KeysPropertyValue(const std::vector<std::string>& keys) {
  json::Json array = json::Json::array();
  for (const auto& k : keys) array.push_back(k);
  return json::Dump(array);
}

Result<OptimizeResult> OptimizeTable(io::FileSystem& fs,
                                     const std::shared_ptr<const delta::Snapshot>& snapshot,
                                     KeyIndex& index, const OptimizeOptions& options) {
  OptimizeResult result;
  const std::string& root = snapshot->table_root();
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<std::string> keys, TableKeys(*snapshot));
  const data::Schema& schema = snapshot->schema();
  std::vector<int> key_fields;
  for (const auto& k : keys) {
    int i = schema.FieldIndex(k);
    if (i < 0) return Status::Corrupt(root + ": key column '" + k + "' is not in the schema");
    key_fields.push_back(i);
  }

  // Which files to rewrite, partition by partition (files of two partitions never merge).
  std::map<delta::PartitionValues, std::pair<std::vector<Candidate>, std::vector<Candidate>>>
      by_partition;  // heavy, small
  for (const delta::Add& add : snapshot->files()) {
    if (!add.stats) continue;
    CDCLAKE_ASSIGN_OR_RETURN(delta::ParsedStats stats, delta::ParseStatsJson(*add.stats));
    if (stats.num_records < 0) continue;
    Candidate c{&add, stats.num_records, 0};
    if (add.deletion_vector) {
      c.deleted_rows = add.deletion_vector->cardinality;
      c.live_rows -= c.deleted_rows;
    }
    auto& [heavy, small] = by_partition[add.partition_values];
    if (stats.num_records > 0 &&
        static_cast<double>(c.deleted_rows) >=
            options.max_deleted_fraction * static_cast<double>(stats.num_records)) {
      heavy.push_back(c);
    } else if (c.live_rows < options.small_file_rows) {
      small.push_back(c);
    }
  }
  std::vector<std::vector<Candidate>> groups;
  for (auto& [partition, candidates] : by_partition) {
    auto& [heavy, small] = candidates;
    std::vector<Candidate> chosen = heavy;
    if (small.size() >= 2 || (!heavy.empty() && !small.empty())) {
      chosen.insert(chosen.end(), small.begin(), small.end());
    }
    if (!chosen.empty()) groups.push_back(std::move(chosen));
  }
  if (groups.empty()) return result;

  // Copy the live rows, remembering where each came from.
  data::RecordBatch out(schema);
  std::vector<std::pair<std::string, int64_t>> origin;  // old path, old row
  std::vector<std::string> row_keys;
  std::vector<delta::Action> actions;
  int64_t now = options.now_ms ? options.now_ms : delta::NowMillis();
  std::vector<delta::Add> adds;
  std::vector<std::vector<std::pair<std::string, int64_t>>> origins;
  std::vector<std::vector<std::string>> keys_per_file;
  auto flush = [&]() -> Status {
    if (out.num_rows() == 0) return Status::OK();
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Add> written,
                             delta::WriteDataFiles(fs, *snapshot, out));
    if (written.size() != 1) return Status::Internal("optimize: expected one file per output");
    written[0].data_change = false;
    result.rows_written += out.num_rows();
    adds.push_back(std::move(written[0]));
    origins.push_back(std::move(origin));
    keys_per_file.push_back(std::move(row_keys));
    origin.clear();
    row_keys.clear();
    out = data::RecordBatch(schema);
    return Status::OK();
  };
  int64_t chosen_files = 0;
  for (const std::vector<Candidate>& chosen : groups)
    chosen_files += static_cast<int64_t>(chosen.size());
  int64_t files_read = 0;
  for (const std::vector<Candidate>& chosen : groups) {
    for (const Candidate& c : chosen) {
      Report(options.progress, "optimize", "files", files_read++, chosen_files);
      const delta::Add& add = *c.add;
      // Every physical row (the deletion vector is applied below, to keep row numbers), in the
      // table's columns: partition values filled in, narrow types of older files widened.
      delta::Add whole = add;
      whole.deletion_vector.reset();
      CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadDataFile(fs, *snapshot, whole));
      std::optional<delta::RowBitmap> dv;
      if (add.deletion_vector) {
        CDCLAKE_ASSIGN_OR_RETURN(dv, delta::LoadDeletionVector(fs, root, *add.deletion_vector));
      }
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        if (dv && dv->Contains(static_cast<uint64_t>(r))) {
          ++result.deleted_rows_purged;
          continue;
        }
        for (size_t col = 0; col < rows.num_columns(); ++col) {
          out.mutable_column(col).AppendFrom(rows.column(col), r);
        }
        std::string key;
        for (size_t k = 0; k < key_fields.size(); ++k) {
          change::AppendOrdered(rows.column(key_fields[k]).GetValue(r),
                                *schema.field(key_fields[k]).type, &key);
        }
        row_keys.push_back(std::move(key));
        origin.emplace_back(add.path, r);
        if (out.num_rows() >= options.target_file_rows) CDCLAKE_RETURN_IF_ERROR(flush());
      }
      actions.emplace_back(delta::RemoveOf(add, now, /*data_change=*/false));
      ++result.files_removed;
    }
    CDCLAKE_RETURN_IF_ERROR(flush());  // a file never spans two partitions
  }
  Report(options.progress, "optimize", "files", files_read, chosen_files);

  // Point every moved row's key at its new place.
  std::unordered_map<std::string, KeyState> states;
  // Rows of SCD2 versions in the chunks of a key's archived history (key_history.h).
  ArchivedRowMoves archived;
  IndexWriteBatch index_batch;
  FileDictionary files;
  CDCLAKE_RETURN_IF_ERROR(files.Load(index));
  for (size_t f = 0; f < adds.size(); ++f) {
    for (size_t r = 0; r < keys_per_file[f].size(); ++r) {
      const std::string& key = keys_per_file[f][r];
      auto it = states.find(key);
      if (it == states.end()) {
        CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> bytes, index.Get("k" + key));
        if (!bytes) {
          return Status::Corrupt(root + ": a row of " + origins[f][r].first +
                                 " has a key the key index does not know");
        }
        CDCLAKE_ASSIGN_OR_RETURN(KeyState state, ParseKeyState(*bytes));
        it = states.emplace(key, std::move(state)).first;
      }
      const uint32_t from = files.IdOf(origins[f][r].first, &index_batch);
      const uint32_t to = files.IdOf(adds[f].path, &index_batch);
      CDCLAKE_ASSIGN_OR_RETURN(
          bool moved, archived.Move(index, key, it->second, RowLocation{from, origins[f][r].second},
                                    RowLocation{to, static_cast<int64_t>(r)}));
      if (!moved) {
        return Status::Corrupt(root + ": the key index does not place any row at " +
                               origins[f][r].first + " row " +
                               std::to_string(origins[f][r].second));
      }
    }
  }
  for (auto& [key, state] : states)
    index_batch.puts.emplace_back("k" + key, SerializeKeyState(state));
  archived.Write(&index_batch);
  CDCLAKE_ASSIGN_OR_RETURN(std::string log_name, WriteIndexLog(fs, root, index_batch));

  result.files_added = static_cast<int64_t>(adds.size());
  for (auto& a : adds) actions.emplace_back(std::move(a));
  delta::Transaction txn(fs, root, snapshot);
  for (auto& a : actions) txn.Add(std::move(a));
  delta::CommitOptions commit;
  commit.operation = "OPTIMIZE";
  commit.operation_parameters[kIndexLogParameter] = log_name;
  commit.operation_metrics = json::Json{{"numRemovedFiles", std::to_string(result.files_removed)},
                                        {"numAddedFiles", std::to_string(result.files_added)}};
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, txn.Commit(commit));
  result.version = version;
  index_batch.puts.emplace_back(kIndexVersionKey, std::to_string(version));
  CDCLAKE_RETURN_IF_ERROR(index.Write(index_batch));
  return result;
}

Result<OptimizeResult> Optimize(io::FileSystem& fs, const std::string& table_root,
                                const OptimizeOptions& options, bool persistent_index) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KeyIndex> index,
                           OpenTableIndex(fs, table_root, snapshot->version(), persistent_index));
  return OptimizeTable(fs, snapshot, *index, options);
}

}  // namespace cdclake::apply
