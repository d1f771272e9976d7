// Gathering a key's story: the table and key, its rows, its index entry, the table-wide
// horizon, and the replay of its bronze events (key_event_replay.h).
#include "pipeline/key_story.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "apply/file_dictionary.h"
#include "apply/index_log.h"
#include "apply/index_peek.h"
#include "apply/index_recovery.h"
#include "apply/key_history.h"
#include "apply/key_state.h"
#include "apply/optimize.h"
#include "change/ordered_encoding.h"
#include "data/value_compare.h"
#include "delta/file_statistics.h"
#include "delta/log_segment.h"
#include "delta/partition_value.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/canonical_path.h"
#include "pipeline/key_event_replay.h"
#include "pipeline/warehouse.h"
#include "sql/schema_ddl.h"

namespace cdclake::pipeline {
namespace {

constexpr int64_t kDefaultTombstoneSeconds = 172800;  // SEMANTICS §6

std::string Trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// The folder of `options.table`: a Delta table there, else a name in the warehouse.
Result<std::string> ResolveTable(const io::FileSystem& fs, const KeyStoryOptions& options) {
  std::string folder = options.table;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, folder));
  if (exists) return folder;
  auto named = Warehouse(options.warehouse).TableFolder(options.table);
  if (named.ok()) {
    CDCLAKE_ASSIGN_OR_RETURN(bool found, delta::TableExists(fs, *named));
    if (found) return *named;
  }
  return Status::NotFound(options.table +
                          " is neither a Delta table folder nor a table of the "
                          "warehouse " +
                          options.warehouse +
                          (named.ok() ? " (no Delta table at " + *named + ")" : ""));
}

Result<std::vector<std::string>> TableKeys(const delta::Snapshot& snapshot) {
  const std::string text = snapshot.Property(apply::kKeysProperty);
  if (text.empty()) {
    return Status::InvalidArgument(snapshot.table_root() +
                                   " has no cdclake.keys property: it is not a table cdclake "
                                   "applies changes to, so its keys have no story to tell");
  }
  CDCLAKE_ASSIGN_OR_RETURN(json::Json parsed, json::Parse(text));
  std::vector<std::string> keys;
  if (parsed.is_array()) {
    for (const json::Json& k : parsed) {
      if (k.is_string()) keys.push_back(k.get<std::string>());
    }
  }
  if (keys.empty() || keys.size() != parsed.size()) {
    return Status::Corrupt(snapshot.table_root() + ": table property cdclake.keys = " + text +
                           " is not a list of column names");
  }
  return keys;
}

// The key in the table's key order, its values, and its ordered encoding (the key index's).
struct TableKey {
  std::vector<std::pair<std::string, std::string>> text;
  std::vector<int> fields;
  std::vector<data::Value> values;
  std::string encoded;
};

Result<TableKey> MakeKey(const delta::Snapshot& snapshot, const std::vector<std::string>& keys,
                         const std::vector<std::pair<std::string, std::string>>& given) {
  std::string names;
  for (const std::string& k : keys) names += (names.empty() ? "" : ", ") + k;
  const std::string table = " of " + snapshot.table_root() + " (its keys: " + names + ")";
  auto given_value = [&](const std::string& k) {
    return std::find_if(given.begin(), given.end(), [&](const auto& p) { return p.first == k; });
  };
  auto unknown = std::find_if(given.begin(), given.end(), [&](const auto& p) {
    return std::find(keys.begin(), keys.end(), p.first) == keys.end();
  });
  if (unknown != given.end()) {
    return Status::InvalidArgument("--key names '" + unknown->first +
                                   "', which is not a key column" + table);
  }
  auto missing = std::find_if(keys.begin(), keys.end(),
                              [&](const std::string& k) { return given_value(k) == given.end(); });
  if (missing != keys.end()) {
    return Status::InvalidArgument("--key gives no value for the key column '" + *missing + "'" +
                                   table);
  }
  TableKey key;
  const data::Schema& schema = snapshot.schema();
  for (const std::string& k : keys) {
    auto it = given_value(k);
    const int field = schema.FieldIndex(k);
    if (field < 0) return Status::Corrupt(snapshot.table_root() + ": no key column '" + k + "'");
    const data::DataType& type = *schema.field(static_cast<size_t>(field)).type;
    data::Value value;
    if (type.id() == data::TypeId::kString) {
      value = data::Value::Bytes(it->second);
    } else {
      auto parsed = delta::ParsePartitionValue(it->second, type);
      if (!parsed.ok() || parsed->is_null()) {
        return Status::InvalidArgument("--key " + k + "=" + it->second + ": not a value of the " +
                                       "column's type " + type.ToString());
      }
      value = std::move(*parsed);
    }
    change::AppendOrdered(value, type, &key.encoded);
    key.text.emplace_back(k, it->second);
    key.fields.push_back(field);
    key.values.push_back(std::move(value));
  }
  return key;
}

// Whether `add`'s statistics rule the key out (columns compared by their logical names, so only
// for tables without column mapping).
bool RuledOut(const delta::Snapshot& snapshot, const delta::Add& add, const TableKey& key) {
  if (!add.stats || snapshot.Property("delta.columnMapping.mode") == "name" ||
      snapshot.Property("delta.columnMapping.mode") == "id") {
    return false;
  }
  auto stats = delta::ParseStatsJson(*add.stats);
  if (!stats.ok()) return false;
  for (size_t k = 0; k < key.fields.size(); ++k) {
    const data::Field& f = snapshot.schema().field(static_cast<size_t>(key.fields[k]));
    auto min = stats->MinValue({f.name}, *f.type);
    auto max = stats->MaxValue({f.name}, *f.type);
    if (min.ok() && !min->is_null() && data::CompareForSort(key.values[k], *min, *f.type) < 0) {
      return true;
    }
    if (max.ok() && !max->is_null() && data::CompareForSort(key.values[k], *max, *f.type) > 0) {
      return true;
    }
  }
  return false;
}

// The key's rows in the table (SCD2: by __START_AT).
Result<data::RecordBatch> KeyRowsOf(const io::FileSystem& fs, const delta::Snapshot& snapshot,
                                    const TableKey& key) {
  const data::Schema& schema = snapshot.schema();
  data::RecordBatch out(schema);
  for (const delta::Add& add : snapshot.files()) {
    if (RuledOut(snapshot, add, key)) continue;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadDataFile(fs, snapshot, add));
    std::vector<int64_t> picked;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      std::string encoded;
      for (int f : key.fields) {
        const auto c = static_cast<size_t>(f);
        change::AppendOrderedCell(rows.column(c), r, *schema.field(c).type, &encoded);
      }
      if (encoded == key.encoded) picked.push_back(r);
    }
    for (size_t c = 0; c < out.num_columns() && !picked.empty(); ++c) {
      out.mutable_column(c).AppendColumn(rows.column(c).Take(picked));
    }
  }
  const int start = schema.FieldIndex("__START_AT");
  if (start < 0 || out.num_rows() < 2) return out;
  std::vector<int64_t> order(static_cast<size_t>(out.num_rows()));
  std::iota(order.begin(), order.end(), 0);
  const data::Column& starts = out.column(static_cast<size_t>(start));
  const data::DataType& type = *schema.field(static_cast<size_t>(start)).type;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return data::CompareForSort(starts.GetValue(a), starts.GetValue(b), type) < 0;
  });
  std::vector<data::Column> columns;
  for (const data::Column& c : out.columns()) columns.push_back(c.Take(order));
  return data::RecordBatch(schema, std::move(columns));
}

// The sequence's type as the table records it (for showing the index's sequences).
data::TypePtr TableSequenceType(const delta::Snapshot& snapshot) {
  const int start = snapshot.schema().FieldIndex("__START_AT");
  if (start >= 0) return snapshot.schema().field(static_cast<size_t>(start)).type;
  const std::string name = snapshot.Property("cdclake.sequenceType");
  // Integers of every width share one encoding (as index_recovery.cc reads them).
  if (name == "tinyint" || name == "smallint" || name == "int" || name == "bigint") {
    return data::DataType::Int64();
  }
  auto parsed = sql::ParseTypeName(name);
  return parsed.ok() ? *parsed : nullptr;
}

Result<int64_t> TombstoneSeconds(const delta::Snapshot& snapshot) {
  const std::string text = snapshot.Property("pipelines.cdc.tombstoneGCThresholdInSeconds");
  if (text.empty()) return kDefaultTombstoneSeconds;
  int64_t seconds = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error == std::errc() && end == text.data() + text.size() && seconds >= 0) return seconds;
  return Status::InvalidArgument("table property pipelines.cdc.tombstoneGCThresholdInSeconds = '" +
                                 text + "' is not a whole number");
}

// The key's entry in the index and the table-wide entries, read without writing anything.
void ReadIndex(const io::FileSystem& fs, const delta::Snapshot& snapshot, const TableKey& key,
               const data::TypePtr& sequence_type, KeyStory* story) {
  KeyIndexState& out = story->index;
  const std::string entry = apply::KeyStateEntry(key.encoded);
  // The key's entry, and the chunks of its archived history (SCD2, apply/key_history.h).
  const std::string chunk_prefix = apply::HistoryChunkKey(key.encoded, 0).substr(0, entry.size());
  auto peek =
      apply::PeekTableIndex(fs, snapshot.table_root(), snapshot.version(), [&](std::string_view e) {
        return e == entry || (e.size() == entry.size() + 4 && e.starts_with(chunk_prefix));
      });
  if (!peek.ok()) {
    out.problem = "the key index cannot be read: " + peek.status().message();
    return;
  }
  out.problem = peek->problem;
  out.source =
      peek->from_disk
          ? "key index " + apply::IndexDir(snapshot.table_root()) + " (read only, at version " +
                std::to_string(peek->disk_version) + ")" +
                (peek->disk_version < snapshot.version()
                     ? ", with the index log up to version " + std::to_string(snapshot.version())
                     : "")
          : "the index log, replayed in memory up to version " + std::to_string(snapshot.version());
  apply::KeyIndex& index = *peek->index;
  auto read = [&](const std::string& name) -> std::optional<std::string> {
    auto value = index.Get(name);
    return value.ok() ? *value : std::nullopt;
  };
  if (auto v = read(apply::kHorizonKey))
    story->horizon.purge_horizon = SequenceText(*v, sequence_type);
  if (auto v = read(apply::kTruncateKey)) story->horizon.truncate = SequenceText(*v, sequence_type);
  if (auto v = read(apply::kMaxSequenceKey)) {
    story->horizon.max_sequence = SequenceText(*v, sequence_type);
  }
  auto bytes = index.Get(entry);
  if (!bytes.ok()) {
    out.problem = "the key index cannot be read: " + bytes.status().message();
    return;
  }
  out.available = true;
  if (!*bytes) return;
  auto state = apply::ParseKeyState(**bytes);
  if (state.ok() && state->archived->chunks > 0) {
    const std::string keys[] = {key.encoded};
    apply::KeyState* const whole[] = {&*state};
    if (Status read = apply::ReadWholeHistories(index, keys, whole); !read.ok()) state = read;
  }
  if (!state.ok()) {
    out.problem = "the key's entry in the index is damaged: " + state.status().message();
    return;
  }
  const bool scd1 = story->scd_type == 1;
  out.tombstone = scd1 && state->IsTombstone();
  for (const apply::StoredEvent& e : state->events) {
    KeyIndexState::Event event;
    event.sequence = SequenceText(e.seq, sequence_type);
    event.kind = e.kind == apply::EventKind::kDelete ? "delete" : "upsert";
    if (e.kind == apply::EventKind::kDelete) {
      event.processed_ms = e.processed_ms;
      if (out.tombstone)
        event.expires_ms = e.processed_ms + story->horizon.tombstone_seconds * 1000;
    }
    out.events.push_back(std::move(event));
  }
  if (!state->events.empty()) {
    out.last_sequence = SequenceText(state->events.back().seq, sequence_type);
  }
  apply::FileDictionary files;
  const bool have_files = files.Load(index).ok();
  for (const apply::RowLocation& l : state->locations) {
    KeyIndexState::Location location;
    std::optional<std::string> path;
    if (have_files) {
      if (auto found = files.PathOf(l.file); found.ok()) path = std::move(*found);
    }
    location.file = path ? *path : "#" + std::to_string(l.file) + " (not in the dictionary)";
    location.row = l.row;
    out.locations.push_back(std::move(location));
  }
}

// The pipeline's AUTO CDC flows into `folder` (those reading a table's appended rows first).
std::vector<const FlowPlan*> FeedingFlows(const io::FileSystem& fs, const PipelinePlan& plan,
                                          const std::string& folder) {
  std::vector<const FlowPlan*> out;
  auto canonical = io::Canonical(fs, folder);
  for (const FlowPlan& flow : plan.flows) {
    if (flow.kind != FlowPlan::Kind::kAutoCdc) continue;
    auto target = io::Canonical(fs, flow.target_folder);
    if (canonical.ok() && target.ok() && *canonical == *target) out.push_back(&flow);
  }
  std::stable_partition(out.begin(), out.end(), [](const FlowPlan* f) {
    return f->source.kind == SourcePlan::Kind::kTable && !f->source.changes;
  });
  return out;
}

void TellEvents(const io::FileSystem& fs, const KeyStoryOptions& options,
                const delta::Snapshot& snapshot, const TableKey& key, KeyStory* story) {
  if (options.plan == nullptr) {
    story->events_note = "no pipeline given (--pipeline FILE): the bronze events are not replayed";
    return;
  }
  const std::vector<const FlowPlan*> flows = FeedingFlows(fs, *options.plan, story->table);
  if (flows.empty()) {
    story->events_note = "the pipeline has no AUTO CDC flow into " + story->table;
    return;
  }
  const FlowPlan* flow = flows.front();
  story->flow = flow->name;
  if (flows.size() > 1) {
    story->notes.push_back(std::to_string(flows.size()) +
                           " AUTO CDC flows write the table; only flow " + flow->name +
                           "'s events are replayed, so its decisions do not see the others'");
  }
  if (flow->source.kind != SourcePlan::Kind::kTable || flow->source.changes) {
    story->events_note = "flow " + flow->name + " reads " + flow->source.Describe() +
                         ", not a bronze table's appended rows (STREAM(bronze)); only those are "
                         "replayed";
    return;
  }
  story->bronze = flow->source.table;
  story->bronze_folder = flow->source.table_folder;
  auto replay = ReplayKeyEvents(fs, *flow, snapshot, key.encoded);
  if (!replay.ok()) {
    story->events_note = "the bronze events cannot be replayed: " + replay.status().message();
    return;
  }
  story->events = std::move(replay->events);
  for (std::string& note : replay->notes) story->notes.push_back(std::move(note));
  story->events_note = std::move(replay->note);
}

}  // namespace

std::string_view DecisionName(EventDecision decision) {
  switch (decision) {
    case EventDecision::kApplied:
      return "applied";
    case EventDecision::kDiscardedOlder:
      return "discarded as older";
    case EventDecision::kDuplicate:
      return "duplicate";
    case EventDecision::kLostTie:
      return "lost a tie";
    case EventDecision::kTruncated:
      return "discarded by truncate";
    case EventDecision::kQuarantined:
      return "quarantined";
    case EventDecision::kNotRead:
      return "not read yet";
  }
  return "?";
}

Result<std::vector<std::pair<std::string, std::string>>> ParseKeyText(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view part = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos || Trimmed(part.substr(0, eq)).empty()) {
      return Status::InvalidArgument("--key " + std::string(text) +
                                     ": write it as col=value[,col=value]");
    }
    std::string name = Trimmed(part.substr(0, eq));
    for (const auto& [known, value] : out) {
      if (known == name) return Status::InvalidArgument("--key names '" + name + "' twice");
    }
    out.emplace_back(std::move(name), std::string(part.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

Result<KeyStory> TellKeyStory(const io::FileSystem& fs, const KeyStoryOptions& options) {
  KeyStory story;
  CDCLAKE_ASSIGN_OR_RETURN(story.table, ResolveTable(fs, options));
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snapshot,
                           delta::Snapshot::Load(fs, story.table));
  story.version = snapshot->version();
  const data::Schema& schema = snapshot->schema();
  story.scd_type =
      schema.FieldIndex("__START_AT") >= 0 && schema.FieldIndex("__END_AT") >= 0 ? 2 : 1;
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<std::string> keys, TableKeys(*snapshot));
  CDCLAKE_ASSIGN_OR_RETURN(TableKey key, MakeKey(*snapshot, keys, options.key));
  story.key = key.text;
  CDCLAKE_ASSIGN_OR_RETURN(story.rows, KeyRowsOf(fs, *snapshot, key));
  story.horizon.late_events_quarantined =
      snapshot->Property("cdclake.lateEventPolicy") == "quarantine";
  CDCLAKE_ASSIGN_OR_RETURN(story.horizon.tombstone_seconds, TombstoneSeconds(*snapshot));
  ReadIndex(fs, *snapshot, key, TableSequenceType(*snapshot), &story);
  TellEvents(fs, options, *snapshot, key, &story);
  return story;
}

}  // namespace cdclake::pipeline
