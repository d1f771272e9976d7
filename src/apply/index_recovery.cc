// Rebuilding a target's key index: from the index log when it is whole, else from the rows.
#include "apply/index_recovery.h"

#include <algorithm>
#include <map>

#include "apply/file_dictionary.h"
#include "apply/index_log.h"
#include "apply/key_state.h"
#include "apply/optimize.h"
#include "apply/timeline.h"
#include "base/bytes.h"
#include "change/ordered_encoding.h"
#include "data/value_format.h"
#include "delta/actions.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "json/json.h"

namespace cdclake::apply {
namespace {

// Key-index writes of a rebuild go in slices of this many entries.
constexpr size_t kRebuildSlice = 100000;

std::string StateEntry(std::string_view key) {
  std::string out(1, 'k');  // the applier's key-state entries: `k<key>`
  out.append(key);
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// The largest applied sequence the latest commit recording it names (commits are read back
// from the latest until one has it or a commit file is gone).
Result<std::optional<std::string>> RecordedMaxSequence(const io::FileSystem& fs,
                                                       const delta::Snapshot& snapshot) {
  for (int64_t v = snapshot.version(); v >= 0; --v) {
    std::string path = delta::CommitPath(snapshot.table_root(), v);
    CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(path));
    if (!exists) break;
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(path));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(content));
    for (const auto& action : actions) {
      const auto* info = std::get_if<delta::CommitInfo>(&action);
      if (!info) continue;
      const json::Json& params = info->value["operationParameters"];
      if (params.is_object() && params.contains(kMaxSequenceParameter) &&
          params[kMaxSequenceParameter].is_string()) {
        if (auto bytes = HexDecode(params[kMaxSequenceParameter].get<std::string>())) return bytes;
      }
    }
  }
  return std::optional<std::string>();
}

// The flow a target was written by, as far as the table tells: keys from `cdclake.keys`,
// SCD type 2 when it has __START_AT and __END_AT, every column, no sequence columns.
Result<FlowDefinition> FlowFromTable(const delta::Snapshot& snapshot) {
  FlowDefinition flow;
  flow.target = snapshot.table_root();
  std::string keys = snapshot.Property(kKeysProperty);
  if (keys.empty()) {
    return Status::InvalidArgument(snapshot.table_root() +
                                   " has no cdclake.keys property: it was not written by cdclake "
                                   "apply, so it has no key index to repair");
  }
  CDCLAKE_ASSIGN_OR_RETURN(json::Json parsed, json::Parse(keys));
  if (!parsed.is_array()) return Status::Corrupt("table property cdclake.keys: not an array");
  for (const auto& k : parsed) {
    if (!k.is_string()) return Status::Corrupt("table property cdclake.keys: not strings");
    flow.keys.push_back(k.get<std::string>());
  }
  const data::Schema& schema = snapshot.schema();
  if (schema.FieldIndex("__START_AT") >= 0 && schema.FieldIndex("__END_AT") >= 0) {
    flow.scd_type = ScdType::kType2;
  }
  return flow;
}

// The sequence as text (for the report): decoded with the sequence's type when known.
std::string SequenceText(const delta::Snapshot& snapshot, const std::string& encoded) {
  data::TypePtr type;
  int start = snapshot.schema().FieldIndex("__START_AT");
  if (start >= 0) {
    type = snapshot.schema().field(start).type;
  } else {
    // cdclake.sequenceType holds the SQL name; integers of every width share one encoding.
    std::string name = snapshot.Property("cdclake.sequenceType");
    if (name == "tinyint" || name == "smallint" || name == "int" || name == "bigint") {
      type = data::DataType::Int64();
    } else if (auto parsed = delta::ParsePrimitiveTypeName(name); parsed.ok()) {
      type = *parsed;
    }
  }
  if (type) {
    std::string_view in = encoded;
    if (auto value = change::ReadOrdered(&in, *type); value.ok() && in.empty()) {
      return data::FormatValueText(*value, *type);
    }
  }
  return "0x" + HexEncode(encoded);
}

// One live row of the table, as the rebuild needs it.
struct TableRow {
  RowLocation location;
  std::string values;  // EncodeValues form of the row columns
  std::string start, seq;
  std::optional<std::string> end;
};

Status WriteSliced(KeyIndex& index, IndexWriteBatch& batch) {
  if (batch.puts.size() + batch.deletes.size() < kRebuildSlice) return Status::OK();
  CDCLAKE_RETURN_IF_ERROR(index.Write(batch));
  batch = IndexWriteBatch();
  return Status::OK();
}

}  // namespace

std::string IndexRecovery::Describe(const std::string& table_root) const {
  std::string out = table_root + ": ";
  if (!rebuilt) return out + "the key index is whole; nothing to repair";
  if (log_rewritten) {
    return out + problem + "; the index log was written anew from the key index";
  }
  out += problem.empty() ? "key index rebuilt" : problem + "; key index rebuilt";
  if (!from_rows) {
    return out + " from the index log (" + std::to_string(versions) + " versions replayed)";
  }
  out += " from the table's rows (" + std::to_string(keys) + " keys)";
  if (!horizon.empty()) {
    out += "; tombstones were lost with the index log, so the purge horizon is raised to " +
           horizon +
           ": a later event at or below it for a key without a row is quarantined under "
           "cdclake.lateEventPolicy = 'quarantine', else applied as new";
  }
  if (sequence_unknown) {
    out +=
        "; the target does not hold the sequence, so an event at or below the horizon "
        "replaces a rebuilt row (or is quarantined under that policy)";
  }
  return out;
}

Status RebuildIndexFromRows(const io::FileSystem& fs, const delta::Snapshot& snapshot,
                            const FlowDefinition& flow, KeyIndex& index, IndexRecovery* recovery) {
  const data::Schema& schema = snapshot.schema();
  const std::string& root = snapshot.table_root();
  const bool scd2 = flow.scd_type == ScdType::kType2;
  // The row columns (timeline.h): the target's columns without the version bounds.
  std::vector<int> row_fields;
  TimelineSettings settings;
  settings.scd_type = flow.scd_type;
  for (size_t f = 0; f < schema.num_fields(); ++f) {
    const std::string& name = schema.field(f).name;
    if (scd2 && (name == "__START_AT" || name == "__END_AT")) continue;
    bool key = std::find(flow.keys.begin(), flow.keys.end(), name) != flow.keys.end();
    row_fields.push_back(static_cast<int>(f));
    settings.column_types.push_back(schema.field(f).type);
    settings.tracked.push_back(!key && (!flow.track_history || flow.track_history->Selects(name)));
    settings.ignore_null.push_back(!key && flow.ignore_null_updates &&
                                   flow.ignore_null_updates->Selects(name));
  }
  std::vector<int> key_fields, sequence_fields;
  for (const auto& k : flow.keys) {
    int i = schema.FieldIndex(k);
    if (i < 0) return Status::Corrupt(root + ": key column '" + k + "' is not in the table");
    key_fields.push_back(i);
  }
  bool has_sequence = !scd2 && !flow.sequence_by.empty();
  for (const auto& s : flow.sequence_by) {
    int i = schema.FieldIndex(s);
    if (i < 0) has_sequence = false;
    sequence_fields.push_back(i);
  }
  const bool sequence_members = flow.sequence_is_struct || flow.sequence_by.size() > 1;
  int start_field = schema.FieldIndex("__START_AT"), end_field = schema.FieldIndex("__END_AT");
  if (scd2 && (start_field < 0 || end_field < 0)) {
    return Status::Corrupt(root + ": an SCD type 2 target without __START_AT / __END_AT");
  }

  // SCD1 states hold their row's values as a digest where the applier's would (applier.cc).
  const bool digest_states = !scd2 && !settings.AnyIgnoreNull() &&
                             snapshot.Property("delta.enableChangeDataFeed") != "true";

  // Every live row, grouped by key.
  FileDictionary files;
  IndexWriteBatch batch;
  std::map<std::string, std::vector<TableRow>> by_key;
  std::optional<std::string> max_seq;
  auto raise = [&max_seq](const std::string& seq) {
    if (!max_seq || seq > *max_seq) max_seq = seq;
  };
  const auto file_count = static_cast<int64_t>(snapshot.files().size());
  int64_t files_read = 0;
  for (const delta::Add& add : snapshot.files()) {
    Report(recovery->progress, "rebuilding from the rows", "files", files_read++, file_count);
    delta::Add whole = add;
    whole.deletion_vector.reset();  // physical row numbers are the locations
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadDataFile(fs, snapshot, whole));
    std::optional<delta::RowBitmap> deleted;
    if (add.deletion_vector) {
      CDCLAKE_ASSIGN_OR_RETURN(deleted, delta::LoadDeletionVector(fs, root, *add.deletion_vector));
    }
    const uint32_t file = files.IdOf(add.path, &batch);
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (deleted && deleted->Contains(static_cast<uint64_t>(r))) continue;
      std::string key;
      for (size_t k = 0; k < key_fields.size(); ++k) {
        change::AppendOrderedCell(rows.column(key_fields[k]), r, *schema.field(key_fields[k]).type,
                                  &key);
      }
      TableRow row;
      row.location = {file, r};
      row.values = EncodeTableRow(rows, r, row_fields);
      if (scd2) {
        change::AppendOrderedCell(rows.column(start_field), r, *schema.field(start_field).type,
                                  &row.start);
        raise(row.start);
        if (!rows.column(end_field).IsNull(r)) {
          row.end.emplace();
          change::AppendOrderedCell(rows.column(end_field), r, *schema.field(end_field).type,
                                    &*row.end);
          raise(*row.end);
        }
      } else if (has_sequence) {
        if (sequence_members) row.seq.push_back(0x01);  // a non-NULL struct, as EncodeSequence
        for (int s : sequence_fields) {
          change::AppendOrderedCell(rows.column(s), r, *schema.field(s).type, &row.seq);
        }
        raise(row.seq);
      }
      by_key[key].push_back(std::move(row));
    }
  }

  // Each key's state.
  for (auto& [key, rows] : by_key) {
    KeyState state;
    if (!scd2) {
      if (rows.size() != 1) {
        return Status::Corrupt(root + ": " + std::to_string(rows.size()) +
                               " current rows share one key; an SCD type 1 target has one per "
                               "key, so its key index cannot be rebuilt from its rows");
      }
      StoredEvent e;
      e.seq = rows[0].seq;  // empty (sorts first) when the target lacks the sequence
      e.values = std::move(rows[0].values);
      state.events.push_back(std::move(e));
      state.locations.push_back(rows[0].location);
    } else {
      std::sort(rows.begin(), rows.end(),
                [](const TableRow& a, const TableRow& b) { return a.start < b.start; });
      for (size_t i = 0; i < rows.size(); ++i) {
        StoredEvent up;
        up.seq = rows[i].start;
        up.values = rows[i].values;
        state.events.push_back(std::move(up));
        state.locations.push_back(rows[i].location);
        if (rows[i].end && (i + 1 == rows.size() || rows[i + 1].start != *rows[i].end)) {
          StoredEvent del;
          del.seq = *rows[i].end;
          del.kind = EventKind::kDelete;
          state.events.push_back(std::move(del));
        }
      }
      // The events must fold back into exactly these versions.
      CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> folded, Fold(settings, state));
      bool same = folded.size() == rows.size();
      for (size_t i = 0; same && i < rows.size(); ++i) {
        same = folded[i].start == rows[i].start && folded[i].end == rows[i].end;
      }
      if (!same) {
        return Status::Corrupt(root + ": the versions of a key do not form one history (" +
                               std::to_string(rows.size()) +
                               " rows); the key index cannot be rebuilt from them");
      }
    }
    batch.puts.emplace_back(StateEntry(key), SerializeKeyState(state, digest_states));
    CDCLAKE_RETURN_IF_ERROR(WriteSliced(index, batch));
  }
  recovery->keys = static_cast<int64_t>(by_key.size());
  recovery->sequence_unknown = !scd2 && !has_sequence && !by_key.empty();

  // SCD1 forgot its tombstones: no late event may bring a deleted row back unnoticed.
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> recorded, RecordedMaxSequence(fs, snapshot));
  if (recorded) raise(*recorded);
  if (max_seq) {
    batch.puts.emplace_back(kMaxSequenceKey, *max_seq);
    if (!scd2) {
      batch.puts.emplace_back(kHorizonKey, *max_seq);
      recovery->horizon = SequenceText(snapshot, *max_seq);
    }
  }
  batch.puts.emplace_back(kIndexVersionKey, std::to_string(snapshot.version()));
  return index.Write(batch);
}

Result<std::unique_ptr<KeyIndex>> OpenOrRecoverIndex(
    io::FileSystem& fs, const std::string& table_root,
    const std::shared_ptr<const delta::Snapshot>& snapshot, bool persistent,
    const FlowDefinition* flow, bool force, IndexRecovery* recovery) {
  ProgressFn progress = std::move(recovery->progress);
  *recovery = IndexRecovery();
  recovery->progress = std::move(progress);
  if (!snapshot) return OpenTableIndex(fs, table_root, -1, persistent);
  const int64_t version = snapshot->version();
  const bool on_disk = persistent && dynamic_cast<io::LocalFileSystem*>(&fs) != nullptr;
  const std::string dir = IndexDir(table_root);
  CDCLAKE_ASSIGN_OR_RETURN(bool had_index, fs.Exists(dir));
  CDCLAKE_ASSIGN_OR_RETURN(bool had_log, fs.Exists(IndexLogDir(table_root)));
  if (!force) {
    auto opened = OpenTableIndex(fs, table_root, version, persistent);
    if (opened.ok()) {
      if (on_disk && !had_index) {
        recovery->rebuilt = true;
        recovery->problem = "the key index (" + dir + ") was missing";
        recovery->versions = version + 1;
      } else if (on_disk && !had_log) {
        // The index is whole but its durable form is gone: write it anew from the index.
        CDCLAKE_RETURN_IF_ERROR(WriteIndexBase(fs, table_root, **opened, version));
        recovery->rebuilt = true;
        recovery->log_rewritten = true;
        recovery->problem = "the index log (" + IndexLogDir(table_root) + ") was missing";
      }
      return opened;
    }
    // Not damage: an index another process holds open (its LOCK), or an unsupported one.
    const StatusCode code = opened.status().code();
    if (code == StatusCode::kNotSupported || code == StatusCode::kConflict) return opened.status();
    recovery->problem = opened.status().message();
  } else if (on_disk && had_index) {
    // Repair takes the index's lock first: it never rebuilds under a running flow.
    auto held = OpenRocksKeyIndex(dir, 1 << 20, /*write_ahead_log=*/false);
    if (!held.ok() && held.status().code() == StatusCode::kConflict) return held.status();
  }
  if (force && !had_log) {
    recovery->problem = "the index log (" + IndexLogDir(table_root) + ") was missing";
  } else if (force && on_disk && !had_index) {
    recovery->problem = "the key index (" + dir + ") was missing";
  }
  recovery->rebuilt = true;
  auto fresh = [&]() -> Result<std::unique_ptr<KeyIndex>> {
    if (!on_disk) return NewMemoryKeyIndex();
    CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(dir));
    if (exists) {
      // RocksDB removes the files it knows by name; whatever a damage left there goes too.
      (void)DestroyRocksKeyIndex(dir);
      CDCLAKE_ASSIGN_OR_RETURN(bool still, fs.Exists(dir));
      std::vector<io::FileInfo> left;
      if (still) {
        CDCLAKE_ASSIGN_OR_RETURN(left, fs.List(dir));
      }
      for (const io::FileInfo& f : left) {
        if (!f.is_directory) CDCLAKE_RETURN_IF_ERROR(fs.Delete(f.path));
      }
    }
    CDCLAKE_RETURN_IF_ERROR(fs.CreateDirs(dir));
    return OpenRocksKeyIndex(dir, 256 << 20, /*write_ahead_log=*/false);
  };
  // The index log, replayed from version 0, when every file it needs is readable.
  if (had_log) {
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KeyIndex> index, fresh());
    Status replayed = CatchUp(fs, table_root, version, *index, recovery->progress);
    if (replayed.ok()) {
      recovery->versions = version + 1;
      return index;
    }
    // Only a log that is damaged or incomplete makes the lossy rebuild from rows; a failure to
    // read it (no space, too many open files) is reported as it is.
    if (replayed.code() != StatusCode::kCorrupt && replayed.code() != StatusCode::kNotFound) {
      return replayed;
    }
    if (recovery->problem.empty() || recovery->problem == replayed.message()) {
      recovery->problem = "the index log is damaged (" + replayed.message() + ")";
    } else {
      recovery->problem += "; the index log is damaged (" + replayed.message() + ")";
    }
  } else if (recovery->problem.empty() || !force) {
    recovery->problem = "the index log (" + IndexLogDir(table_root) + ") was missing";
  }
  // The table's rows.
  FlowDefinition from_table;
  if (!flow) {
    CDCLAKE_ASSIGN_OR_RETURN(from_table, FlowFromTable(*snapshot));
    flow = &from_table;
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KeyIndex> index, fresh());
  recovery->from_rows = true;
  CDCLAKE_RETURN_IF_ERROR(RebuildIndexFromRows(fs, *snapshot, *flow, *index, recovery));
  // The earlier index-log files are gone: later replays start from this rebuild.
  CDCLAKE_RETURN_IF_ERROR(WriteIndexBase(fs, table_root, *index, version));
  return index;
}

Result<IndexRecovery> RepairTableIndex(io::FileSystem& fs, const std::string& table_root,
                                       const ProgressFn& progress) {
  std::string root = table_root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, root));
  if (!exists) return Status::NotFound(root + " is not a Delta table (no _delta_log)");
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snapshot,
                           delta::Snapshot::Load(fs, root));
  CDCLAKE_ASSIGN_OR_RETURN(FlowDefinition flow, FlowFromTable(*snapshot));
  IndexRecovery recovery;
  recovery.progress = progress;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KeyIndex> index,
                           OpenOrRecoverIndex(fs, root, snapshot, /*persistent=*/true, &flow,
                                              /*force=*/true, &recovery));
  return recovery;
}

}  // namespace cdclake::apply
