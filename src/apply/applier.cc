// The apply engine's batch path: events from rows, per-key timelines from the key index, the
// rows that changed, one Delta commit with the index's changes, then the index itself.
#include "apply/applier.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "apply/declared_columns.h"
#include "apply/file_dictionary.h"
#include "apply/flow_domain.h"
#include "apply/index_log.h"
#include "apply/index_recovery.h"
#include "apply/key_history.h"
#include "apply/key_index.h"
#include "apply/key_state.h"
#include "apply/optimize.h"
#include "apply/phase_trace.h"
#include "apply/quarantine.h"
#include "apply/target_layout.h"
#include "apply/target_rows.h"
#include "apply/timeline.h"
#include "base/bytes.h"
#include "base/heap_value.h"
#include "base/strings.h"
#include "change/ordered_encoding.h"
#include "change/row_text.h"
#include "data/value_format.h"
#include "delta/change_data_writer.h"
#include "delta/log_segment.h"
#include "delta/metadata_change.h"
#include "delta/row_deleter.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/type_widening.h"

namespace cdclake::apply {
namespace {

constexpr char kKeyPrefix = 'k';
constexpr char kTombstonePrefix = 't';
constexpr int64_t kDefaultTombstoneSeconds = 172800;
constexpr int64_t kDefaultOptimizeInterval = 10;

std::string StateKey(std::string_view key) {
  std::string out(1, kKeyPrefix);
  out.append(key);
  return out;
}

std::string TombstoneKey(int64_t ms, std::string_view key) {
  std::string out(1, kTombstonePrefix);
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>(static_cast<uint64_t>(ms) >> shift));
  }
  out.append(key);
  return out;
}

int64_t TombstoneKeyTime(std::string_view entry) {
  uint64_t ms = 0;
  for (int i = 1; i <= 8; ++i) ms = (ms << 8) | static_cast<uint8_t>(entry[i]);
  return static_cast<int64_t>(ms);
}

// The table property recording the sequence's type (its encoding must not change).
constexpr const char* kSequenceTypeProperty = "cdclake.sequenceType";

// Integers of every width share one encoding, so a sequence may widen among them.
bool SameIntegerEncoding(const std::string& a, const std::string& b) {
  auto integer = [](const std::string& t) {
    return t == "tinyint" || t == "smallint" || t == "int" || t == "bigint";
  };
  return integer(a) && integer(b);
}

// Runs work(0, n / 2) on this thread and work(n / 2, n) on a second one (this machine class has
// two cores), for the batch's per-row and per-key passes that are large enough to be worth it.
template <typename Work>
void InTwoHalves(size_t n, const Work& work) {
  const size_t half = n / 2;
  std::thread helper([&] { work(half, n); });
  work(0, half);
  helper.join();
}

// KeyIndex::MultiGet split over two threads when there are many keys: lookups that miss the
// caches cost microseconds each, and this machine class has two cores.
Status ParallelMultiGet(KeyIndex& index, std::span<const std::string> keys,
                        std::vector<std::optional<std::string>>* out) {
  constexpr size_t kParallelFrom = 8192;
  if (keys.size() < kParallelFrom || !index.SupportsConcurrentReads()) {
    return index.MultiGet(keys, out);
  }
  const size_t half = keys.size() / 2;
  std::vector<std::optional<std::string>> second_out;
  Status second_status;
  std::thread helper([&] { second_status = index.MultiGet(keys.subspan(half), &second_out); });
  Status first_status = index.MultiGet(keys.first(half), out);
  helper.join();
  CDCLAKE_RETURN_IF_ERROR(first_status);
  CDCLAKE_RETURN_IF_ERROR(second_status);
  out->reserve(keys.size());
  for (auto& v : second_out) out->push_back(std::move(v));
  return Status::OK();
}

// A table property holding a whole number; `fallback` when unset.
Result<int64_t> IntegerProperty(const std::string& name, const std::string& text,
                                int64_t fallback) {
  if (text.empty()) return fallback;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return Status::InvalidArgument("table property " + name + " = '" + text +
                                   "' is not a whole number of the right kind");
  }
  return value;
}

// A row's encodings (TargetLayout), made before the rows become events.
struct RowEncoding {
  std::string seq, key, values;
  bool has_seq = false;  // no NULL in the sequence (seq is set)
  bool has_key = false;  // not a truncate, no NULL in the key (key, and values for upserts)
  bool partial = false;
  bool digest = false;  // `values` is their ValuesDigest
};

// One event of the batch, before it meets its key's state.
struct PendingEvent {
  std::string key;
  StoredEvent event;
  int64_t row = 0;
};

// One key whose state this batch changes.
struct KeyWork {
  std::string key;
  bool had_state = false;
  int64_t source_row = -1;  // the batch row of the last upsert that changed the state
  /// On the heap once set: a load's keys have none, and a KeyState is 56 bytes a key.
  HeapValue<KeyState> old_state;
  KeyState new_state;
  /// SCD2: the archived chunks the key had in the index, when its states were made whole
  /// (key_history.h); the new state replaces them.
  uint32_t replaced_chunks = 0;
  /// SCD2: the sequence of the key's oldest event in the batch (its newer events stay in the
  /// key's entry when older ones are archived).
  HeapValue<std::string> first_seq;
};

// The batch's KeyWork by key. The batch's own keys arrive in ascending order and are found by a
// binary search (a hash map keyed by strings was 4% of a 1M-row load); the few added later (keys
// a truncate reaches, keys whose rows copy-on-write moved) go in a map beside them.
class WorkLookup {
 public:
  /// `work`'s key sorts after every key added so far by AddInOrder.
  void AddInOrder(KeyWork* work) { in_order_.push_back(work); }
  void AddLater(KeyWork* work) { later_[work->key] = work; }

  KeyWork* Find(const std::string& key) const {
    auto it = std::lower_bound(in_order_.begin(), in_order_.end(), key,
                               [](const KeyWork* w, const std::string& k) { return w->key < k; });
    if (it != in_order_.end() && (*it)->key == key) return *it;
    if (later_.empty()) return nullptr;
    auto found = later_.find(key);
    return found == later_.end() ? nullptr : found->second;
  }

 private:
  std::vector<KeyWork*> in_order_;
  std::unordered_map<std::string, KeyWork*> later_;
};

void DiffRows(std::vector<FoldedRow> old_rows, std::span<const RowLocation> old_locations,
              std::vector<FoldedRow> new_rows, RowLocation* new_locations, TargetRows& rows,
              ApplyCounts& counts);

class ApplierImpl : public Applier {
 public:
  ApplierImpl(io::FileSystem& fs, FlowDefinition flow, ApplyOptions options,
              std::unique_ptr<KeyIndex> index, std::shared_ptr<const delta::Snapshot> snapshot)
      : fs_(fs),
        flow_(std::move(flow)),
        options_(std::move(options)),
        index_(std::move(index)),
        snapshot_(std::move(snapshot)) {}

  Result<ApplyResult> Apply(const change::ChangeBatch& batch, const CommitExtras& extras) override;
  Result<ApplyResult> ApplyConformed(const change::ChangeBatch& batch, const CommitExtras& extras);
  int64_t version() const override { return snapshot_ ? snapshot_->version() : -1; }
  Status LoadFiles() {
    CDCLAKE_ASSIGN_OR_RETURN(max_seq_, index_->Get(kMaxSequenceKey));
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> unchanged, index_->Get(kUnchangedCellsKey));
    sends_unchanged_ = unchanged.has_value();
    return files_.Load(*index_);
  }

 private:
  int64_t Now() const { return options_.clock ? options_.clock() : delta::NowMillis(); }
  std::string Property(const std::string& key) const;
  Status PrepareTarget(const data::Schema& source, int64_t first_row, bool create);
  // The end of a batch whose state changes move no row: the index is written, no version.
  Status Quarantine(const change::ChangeBatch& batch, int64_t row, std::string reason,
                    std::vector<change::RejectedRecord>* out) const;
  Status DiffKey(KeyWork& work, TargetRows& rows, ApplyCounts& counts) const;
  Result<bool> DiffAfterSharedEvents(KeyWork& work, TargetRows& rows, ApplyCounts& counts) const;
  // New rows are the batch's rows as they came (DiffFromSource): SCD1 without IGNORE NULL
  // UPDATES or change data, of a source whose rows are the target's.
  bool WritesSourceRows(bool change_data) const {
    return flow_.scd_type == ScdType::kType1 && !settings_.AnyIgnoreNull() && !change_data &&
           layout_.CanGather();
  }
  bool DiffFromSource(KeyWork& work, const data::RecordBatch& source, TargetRows& rows,
                      ApplyCounts& counts) const;
  Status DiffDigest(KeyWork& work, const data::RecordBatch& source, TargetRows& rows,
                    ApplyCounts& counts) const;
  Result<int64_t> ReadBackValues(std::span<KeyWork* const> works) const;
  Status RemapMovedRows(const std::vector<delta::Action>& deletion_actions,
                        const std::map<std::string, std::vector<int64_t>>& deleted,
                        WorkLookup& by_key, std::vector<std::unique_ptr<KeyWork>>& moved,
                        IndexWriteBatch* batch);

  io::FileSystem& fs_;
  FlowDefinition flow_;
  ApplyOptions options_;
  std::unique_ptr<KeyIndex> index_;
  std::shared_ptr<const delta::Snapshot> snapshot_;
  TimelineSettings settings_;
  TargetLayout layout_;
  FileDictionary files_;
  std::set<std::string> warned_undeclared_;  // source columns already reported as undeclared
  std::optional<std::string> max_seq_;       // the largest sequence applied (kMaxSequenceKey)
  bool sends_unchanged_ = false;  // the source has sent unchanged cells (kUnchangedCellsKey)
};

std::string ApplierImpl::Property(const std::string& key) const {
  if (snapshot_) {
    std::string v = snapshot_->Property(key);
    if (!v.empty()) return v;
  }
  auto it = flow_.table_properties.find(key);
  return it == flow_.table_properties.end() ? "" : it->second;
}

Status ApplierImpl::Quarantine(const change::ChangeBatch& batch, int64_t row, std::string reason,
                               std::vector<change::RejectedRecord>* out) const {
  change::RejectedRecord record;
  record.raw = change::RowTextOrJson(batch, static_cast<size_t>(row));
  if (static_cast<size_t>(row) < batch.positions.size()) record.position = batch.positions[row];
  record.reason = std::move(reason);
  out->push_back(std::move(record));
  return Status::OK();
}

// Creates the target, or checks the batch's columns against it and adds new columns.
Status ApplierImpl::PrepareTarget(const data::Schema& source, int64_t first_row, bool create) {
  CDCLAKE_RETURN_IF_ERROR(CheckDeclaredHistoryBounds(flow_, source));
  if (!snapshot_) {
    if (!create) {
      CDCLAKE_ASSIGN_OR_RETURN(layout_,
                               TargetLayout::Make(flow_, source, TargetSchema(flow_, source)));
      settings_ = layout_.Settings(flow_);
      return Status::OK();
    }
    delta::TableSpec spec;
    spec.schema = TargetSchema(flow_, source);
    CDCLAKE_RETURN_IF_ERROR(CheckPartitionColumns(flow_, spec.schema));
    spec.partition_columns = flow_.partition_columns;
    spec.properties = flow_.table_properties;
    spec.properties[kKeysProperty] = KeysPropertyValue(flow_.keys);
    spec.properties[kSequenceTypeProperty] = SequenceType(flow_, source)->ToString();
    if (!spec.properties.count("delta.enableDeletionVectors")) {
      spec.properties["delta.enableDeletionVectors"] = "true";
    }
    CDCLAKE_ASSIGN_OR_RETURN(snapshot_, delta::CreateTable(fs_, flow_.target, spec));
    CDCLAKE_RETURN_IF_ERROR(
        index_->Write({{{kIndexVersionKey, std::to_string(snapshot_->version())}}, {}}));
  }
  const data::Schema& target = snapshot_->schema();
  const auto& partitioned = snapshot_->metadata().partition_columns;
  if (!flow_.partition_columns.empty() && flow_.partition_columns != partitioned) {
    return Status::InvalidArgument(
        flow_.target + ": the flow says PARTITIONED BY (" + JoinNames(flow_.partition_columns) +
        ") but the table is " +
        (partitioned.empty() ? std::string("not partitioned")
                             : "partitioned by (" + JoinNames(partitioned) + ")") +
        "; Delta cannot change a table's partitioning: do a full refresh of the table, or "
        "declare the partitioning it has");
  }
  std::string stored = snapshot_->Property(kSequenceTypeProperty);
  std::string now_type = SequenceType(flow_, source)->ToString();
  if (!stored.empty() && stored != now_type && !SameIntegerEncoding(stored, now_type)) {
    return Status::InvalidArgument(
        flow_.target + ": the sequence was " + stored + " when the target was created and is " +
        now_type + " in this batch; sequences of different types cannot be compared");
  }
  std::vector<data::Field> added;
  std::map<std::string, data::TypePtr> widened;
  CDCLAKE_RETURN_IF_ERROR(CheckSourceTypes(flow_, source, target, first_row, &added, &widened));
  if (flow_.scd_type == ScdType::kType2) {
    // A sequence widened among integers widens the history's bounds too.
    data::TypePtr sequence = SequenceType(flow_, source);
    for (const char* bound : {"__START_AT", "__END_AT"}) {
      int i = target.FieldIndex(bound);
      if (i >= 0 && SameIntegerEncoding(target.field(i).type->ToString(), sequence->ToString()) &&
          delta::IsTypeWidening(*target.field(i).type, *sequence)) {
        widened.emplace(bound, sequence);
      }
    }
  }
  if (create && !widened.empty()) {
    CDCLAKE_RETURN_IF_ERROR(delta::WidenColumns(fs_, flow_.target, widened).status());
  }
  if (create && !added.empty()) {
    CDCLAKE_ASSIGN_OR_RETURN(auto current, delta::Snapshot::Load(fs_, flow_.target));
    std::vector<data::Field> fields = current->schema().fields();
    fields.insert(fields.end(), added.begin(), added.end());
    CDCLAKE_RETURN_IF_ERROR(delta::EvolveSchema(fs_, flow_.target, data::Schema(fields)).status());
  }
  if (create && (!added.empty() || !widened.empty())) {
    CDCLAKE_ASSIGN_OR_RETURN(snapshot_, delta::Snapshot::Load(fs_, flow_.target));
    CDCLAKE_RETURN_IF_ERROR(CatchUp(fs_, flow_.target, snapshot_->version(), *index_));
  }
  std::vector<data::Field> fields = snapshot_->schema().fields();
  if (!create) {
    for (auto& f : fields) {
      if (auto it = widened.find(f.name); it != widened.end()) f.type = it->second;
    }
    fields.insert(fields.end(), added.begin(), added.end());
  }
  data::Schema effective(fields);
  CDCLAKE_ASSIGN_OR_RETURN(layout_, TargetLayout::Make(flow_, source, effective));
  settings_ = layout_.Settings(flow_);
  return Status::OK();
}

// Works out which of the key's rows stay, which go and which are new; fills
// new_state.locations for the rows that stay and queues the new ones in `rows`.
Status ApplierImpl::DiffKey(KeyWork& work, TargetRows& rows, ApplyCounts& counts) const {
  CDCLAKE_ASSIGN_OR_RETURN(bool done, DiffAfterSharedEvents(work, rows, counts));
  if (done) return Status::OK();
  if (work.old_state->archived->chunks > 0) {
    return Status::Internal(flow_.target + ": an SCD2 key's archived history was not read");
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> old_rows, Fold(settings_, *work.old_state));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> new_rows, Fold(settings_, work.new_state));
  if (old_rows.size() != work.old_state->locations.size()) {
    return Status::Corrupt(flow_.target + ": key index entry holds " +
                           std::to_string(work.old_state->locations.size()) +
                           " row locations for " + std::to_string(old_rows.size()) + " rows");
  }
  work.new_state.locations.assign(new_rows.size(), RowLocation{});
  DiffRows(std::move(old_rows), work.old_state->locations, std::move(new_rows),
           work.new_state.locations.data(), rows, counts);
  return Status::OK();
}

// DiffKey's shortcut for SCD2 keys whose old and new events share their first ones (the
// common case: a key with a history gets updates, deletes or a late event near its end).
// Versions those first events closed stay as they are, so only the rest of each timeline is
// folded, from the version open after the shared events (FindLastVersion, FoldAfter), and
// only those rows are paired. A hot key's whole history was decoded twice per batch before.
// False, having done nothing, for other shapes of state.
Result<bool> ApplierImpl::DiffAfterSharedEvents(KeyWork& work, TargetRows& rows,
                                                ApplyCounts& counts) const {
  const std::vector<StoredEvent>& before = work.old_state->events;
  const std::vector<StoredEvent>& now = work.new_state.events;
  if (flow_.scd_type != ScdType::kType2) return false;
  const size_t shared = static_cast<size_t>(
      std::mismatch(before.begin(), before.end(), now.begin(), now.end()).first - before.begin());
  // A state whose first events are archived (key_history.h) starts from the version they leave
  // open; the batch's events all sort after them (else the state was read whole).
  const bool archived = work.old_state->archived->chunks > 0;
  if (shared == 0 && !archived) return false;
  std::span<const StoredEvent> old_events(before), new_events(now);
  LastVersion last;
  if (archived) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<FoldedRow> open,
                             ArchivedOpenVersion(settings_, *work.old_state));
    CDCLAKE_ASSIGN_OR_RETURN(
        last.open, OpenVersionAfter(settings_, std::move(open), old_events.first(shared)));
    last.known = true;
  } else {
    CDCLAKE_ASSIGN_OR_RETURN(last, FindLastVersion(settings_, old_events.first(shared)));
    if (!last.known) return false;
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> old_rows,
                           FoldAfter(settings_, last.open, old_events.subspan(shared)));
  const std::vector<RowLocation>& old_locations = work.old_state->locations;
  if (old_locations.size() < old_rows.size()) {
    if (!archived) return false;  // DiffKey reports it
    return Status::Corrupt(flow_.target + ": key index entry holds " +
                           std::to_string(old_locations.size()) + " row locations for " +
                           std::to_string(old_rows.size()) + " rows after its archived history");
  }
  const size_t closed = old_locations.size() - old_rows.size();
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> new_rows,
                           FoldAfter(settings_, std::move(last.open), new_events.subspan(shared)));
  std::vector<RowLocation>& locations = work.new_state.locations;
  locations.assign(closed + new_rows.size(), RowLocation{});
  std::copy(old_locations.begin(), old_locations.begin() + static_cast<std::ptrdiff_t>(closed),
            locations.begin());
  DiffRows(std::move(old_rows), std::span<const RowLocation>(old_locations).subspan(closed),
           std::move(new_rows), locations.data() + closed, rows, counts);
  return true;
}

// DiffRows for a few rows on each side (an SCD2 key closing its open version and opening
// another: one row before, two after): the same matching and pairing, in the same order, by
// scanning instead of through maps and sets built per key.
void DiffFewRows(const std::vector<FoldedRow>& old_rows, std::span<const RowLocation> old_locations,
                 const std::vector<FoldedRow>& new_rows, RowLocation* new_locations,
                 TargetRows& rows, ApplyCounts& counts) {
  std::vector<bool> old_matched(old_rows.size(), false);
  std::vector<size_t> fresh;
  for (size_t j = 0; j < new_rows.size(); ++j) {
    bool found = false;
    for (size_t i = 0; i < old_rows.size() && !found; ++i) {
      if (!old_matched[i] && old_rows[i].start == new_rows[j].start && old_rows[i] == new_rows[j]) {
        old_matched[i] = true;
        new_locations[j] = old_locations[i];
        found = true;
      }
    }
    if (!found) fresh.push_back(j);
  }
  // Changed rows pair by their version's start, each gone row with the first fresh one.
  std::vector<bool> paired_fresh(new_rows.size(), false);
  std::vector<bool> paired_gone(old_rows.size(), false);
  int64_t paired = 0, gone = 0;
  for (size_t g = 0; g < old_rows.size(); ++g) {
    if (old_matched[g]) continue;
    ++gone;
    for (size_t f : fresh) {
      if (!paired_fresh[f] && new_rows[f].start == old_rows[g].start) {
        paired_fresh[f] = paired_gone[g] = true;
        ++paired;
        rows.AddChange(old_rows[g], new_rows[f]);
        break;
      }
    }
  }
  for (size_t g = 0; g < old_rows.size(); ++g) {
    if (old_matched[g]) continue;
    rows.Delete(old_locations[g]);
    if (!paired_gone[g]) rows.AddDeleted(old_rows[g]);
  }
  for (size_t f : fresh) {
    if (!paired_fresh[f]) rows.AddInserted(new_rows[f]);
    rows.Append(new_rows[f], &new_locations[f]);
  }
  counts.updated += paired;
  counts.deleted += gone - paired;
  counts.inserted += static_cast<int64_t>(fresh.size()) - paired;
}

// Pairs a key's rows before and after: rows that stay keep their location (written to
// `new_locations`, one per new row), the others are deleted or queued in `rows`.
void DiffRows(std::vector<FoldedRow> old_rows, std::span<const RowLocation> old_locations,
              std::vector<FoldedRow> new_rows, RowLocation* new_locations, TargetRows& rows,
              ApplyCounts& counts) {
  if (old_rows.size() <= 1 && new_rows.size() <= 1) {
    // At most one row before and after (every SCD1 key, most SCD2 keys): the matching below
    // without its maps and sets, with the same outcome.
    const bool had = !old_rows.empty(), has = !new_rows.empty();
    if (had && has && old_rows[0] == new_rows[0]) {
      new_locations[0] = old_locations[0];
      return;
    }
    const bool paired = had && has && old_rows[0].start == new_rows[0].start;
    if (paired) rows.AddChange(old_rows[0], new_rows[0]);
    if (had) {
      rows.Delete(old_locations[0]);
      if (!paired) rows.AddDeleted(old_rows[0]);
    }
    if (has) {
      if (!paired) rows.AddInserted(new_rows[0]);
      rows.Append(new_rows[0], &new_locations[0]);
    }
    counts.updated += paired ? 1 : 0;
    counts.deleted += had && !paired ? 1 : 0;
    counts.inserted += has && !paired ? 1 : 0;
    return;
  }
  if (old_rows.size() * new_rows.size() <= 256) {
    DiffFewRows(old_rows, old_locations, new_rows, new_locations, rows, counts);
    return;
  }
  std::vector<bool> old_matched(old_rows.size(), false);
  std::vector<size_t> fresh;
  // Rows that stay are found by their start (unique among a key's versions; SCD1 has one row).
  std::unordered_map<std::string_view, std::vector<size_t>> old_by_start;
  for (size_t i = 0; i < old_rows.size(); ++i) old_by_start[old_rows[i].start].push_back(i);
  for (size_t j = 0; j < new_rows.size(); ++j) {
    bool found = false;
    if (auto it = old_by_start.find(new_rows[j].start); it != old_by_start.end()) {
      for (size_t i : it->second) {
        if (!old_matched[i] && old_rows[i] == new_rows[j]) {
          old_matched[i] = true;
          new_locations[j] = old_locations[i];
          found = true;
          break;
        }
      }
    }
    if (!found) fresh.push_back(j);
  }
  std::vector<size_t> gone;
  for (size_t i = 0; i < old_rows.size(); ++i) {
    if (!old_matched[i]) gone.push_back(i);
  }
  // Pair rows that changed: same version start (SCD2) or the key's one row (SCD1).
  std::set<size_t> paired_fresh, paired_gone;
  std::unordered_map<std::string_view, std::vector<size_t>> fresh_by_start;
  for (size_t f : fresh) fresh_by_start[new_rows[f].start].push_back(f);
  for (size_t g : gone) {
    auto it = fresh_by_start.find(old_rows[g].start);
    if (it == fresh_by_start.end()) continue;
    for (size_t f : it->second) {
      if (paired_fresh.count(f)) continue;
      paired_fresh.insert(f);
      paired_gone.insert(g);
      rows.AddChange(old_rows[g], new_rows[f]);
      break;
    }
  }
  for (size_t g : gone) {
    rows.Delete(old_locations[g]);
    if (!paired_gone.count(g)) rows.AddDeleted(old_rows[g]);
  }
  for (size_t f : fresh) {
    if (!paired_fresh.count(f)) rows.AddInserted(new_rows[f]);
    rows.Append(new_rows[f], &new_locations[f]);
  }
  counts.updated += static_cast<int64_t>(paired_gone.size());
  counts.deleted += static_cast<int64_t>(gone.size() - paired_gone.size());
  counts.inserted += static_cast<int64_t>(fresh.size() - paired_fresh.size());
}

// The number of columns an EncodeValues form (or its ValuesDigest) holds (its leading varint),
// or -1.
int64_t EncodedColumnCount(std::string_view values) {
  Result<uint64_t> n = ByteReader(values).ReadVarint();
  return n.ok() ? static_cast<int64_t>(*n) : -1;
}

// Bytes [from, from + 8) of `key` as a big-endian integer, zeros past its end: two keys whose
// heads differ sort as their heads do (a key ending inside the head sorts first, or ties).
uint64_t BigEndianHead(std::string_view key, size_t from) {
  uint64_t head = 0;
  for (size_t i = from; i < from + 8; ++i) {
    head = (head << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  }
  return head;
}

// Whether a key's stored state holds its row's values as a digest (key_state.h).
bool HoldsDigest(const KeyState& state) {
  return !state.events.empty() && state.events[0].digest;
}

// DiffKey for a key whose old state holds its one row's values as a digest (SCD1 without
// IGNORE NULL UPDATES or change data): the batch left it without a row, or with one whole upsert
// of as many columns or more, told unchanged by comparing digests. Any other outcome had the
// values read back before its events were added (ReadBackValues), so it does not come here.
Status ApplierImpl::DiffDigest(KeyWork& work, const data::RecordBatch& source, TargetRows& rows,
                               ApplyCounts& counts) const {
  const StoredEvent& before = work.old_state->events[0];
  const std::vector<StoredEvent>& now = work.new_state.events;
  if (!DigestEligible(*work.old_state)) {
    return Status::Corrupt(flow_.target + ": a key index entry holds a digest but not one row");
  }
  const RowLocation old_location = work.old_state->locations[0];
  if (now.empty() || now.back().kind == EventKind::kDelete) {
    work.new_state.locations.clear();
    rows.Delete(old_location);
    ++counts.deleted;
    return Status::OK();
  }
  const int64_t held_columns = EncodedColumnCount(before.values);
  if (now.size() != 1 || now[0].partial || now[0].digest || held_columns < 0 ||
      EncodedColumnCount(now[0].values) < held_columns) {
    return Status::Internal(flow_.target +
                            ": a key whose values are stored as a digest was not read back");
  }
  // Columns added since the state was stored are NULL in its row: the new values are the
  // same when they are NULL there too and their first columns have the stored digest.
  bool same = now[0].SameValues(before);
  if (!same && EncodedColumnCount(now[0].values) > held_columns) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> first,
                             FirstColumnsOfValues(now[0].values, static_cast<size_t>(held_columns),
                                                  settings_.column_types));
    same = first && ValuesDigest(*first) == before.values;
  }
  work.new_state.locations.assign(1, RowLocation{});
  if (same) {
    work.new_state.locations[0] = old_location;
    return Status::OK();
  }
  rows.Delete(old_location);
  ++counts.updated;
  if (layout_.CanGather() && work.source_row >= 0) {
    rows.AppendSourceRow(source, work.source_row, &work.new_state.locations[0]);
    return Status::OK();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> new_rows, Fold(settings_, work.new_state));
  if (new_rows.size() != 1) return Status::Internal(flow_.target + ": one upsert, no row");
  rows.Append(new_rows[0], &work.new_state.locations[0]);
  return Status::OK();
}

// The values of states held as digests, read back from the key's row in the table (each file
// read once), for keys whose batch needs them: a tie at the stored sequence, unchanged cells,
// fewer columns, or a flow that folds old values (IGNORE NULL UPDATES, change data, a source
// that sends unchanged cells). A row read back must be of the key; one whose values hash to
// another digest is the key's row spelled otherwise than the event that wrote it (a value
// that does not read back bit for bit): its values are the table's, and it is counted.
Result<int64_t> ApplierImpl::ReadBackValues(std::span<KeyWork* const> works) const {
  int64_t respelled = 0;
  if (works.empty()) return respelled;
  if (!snapshot_) return Status::Corrupt(flow_.target + ": key states without a table");
  std::map<uint32_t, std::vector<KeyWork*>> by_file;
  int64_t columns = 0;
  for (KeyWork* w : works) {
    if (!DigestEligible(*w->old_state)) {
      return Status::Corrupt(flow_.target + ": a key index entry holds a digest but not one row");
    }
    by_file[w->old_state->locations[0].file].push_back(w);
    columns = std::max(columns, EncodedColumnCount(w->old_state->events[0].values));
  }
  std::vector<std::string> names;
  for (const data::Field& f : layout_.target().fields()) {
    if (f.name != "__START_AT" && f.name != "__END_AT") names.push_back(f.name);
  }
  if (columns < 0 || static_cast<size_t>(columns) > names.size()) {
    return Status::Corrupt(flow_.target + ": a key index entry holds " + std::to_string(columns) +
                           " columns; the table has " + std::to_string(names.size()));
  }
  names.resize(static_cast<size_t>(columns));
  std::vector<int> fields(names.size());  // the columns read, in order
  for (size_t f = 0; f < fields.size(); ++f) fields[f] = static_cast<int>(f);
  std::unordered_map<std::string_view, const delta::Add*> adds;
  for (const delta::Add& add : snapshot_->files()) adds.emplace(add.path, &add);
  for (auto& [file, keyed] : by_file) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string path, files_.PathOf(file));
    auto found = adds.find(path);
    if (found == adds.end()) {
      return Status::Corrupt(flow_.target + ": the key index places a row in " + path +
                             ", which is not a file of the table; cdclake repair rebuilds it");
    }
    delta::Add whole = *found->second;
    whole.deletion_vector.reset();  // locations are physical row numbers
    delta::ScanOptions read;
    read.columns = names;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows,
                             delta::ReadDataFile(fs_, *snapshot_, whole, read));
    for (KeyWork* w : keyed) {
      StoredEvent& held = w->old_state.mut().events[0];
      const int64_t r = w->old_state->locations[0].row;
      const int64_t count = EncodedColumnCount(held.values);
      if (r < 0 || r >= rows.num_rows()) {
        return Status::Corrupt(flow_.target + ": the key index places a row at " +
                               std::to_string(r) + " of " + path + ", which has " +
                               std::to_string(rows.num_rows()) + " rows");
      }
      std::string values =
          EncodeTableRow(rows, r, std::span<const int>(fields).first(static_cast<size_t>(count)));
      if (ValuesDigest(values) != held.values) {
        if (layout_.EncodeKey(rows, r) != w->key) {
          return Status::Corrupt(flow_.target + ": row " + std::to_string(r) + " of " + path +
                                 " is another key's row than the key index says; cdclake "
                                 "repair rebuilds the key index");
        }
        ++respelled;
      }
      for (StoredEvent& e : w->new_state.events) {
        if (e.digest && e.kind == EventKind::kUpsert && e.seq == held.seq) {
          e.values = values;
          e.digest = false;
        }
      }
      held.values = std::move(values);
      held.digest = false;
    }
  }
  return respelled;
}

// DiffKey's shortcut for SCD1 without IGNORE NULL UPDATES or change data (the caller checks
// those): a key's row is then its one upsert's values, so the new row is the batch row that
// upsert came from, appended as it is, and an unchanged row is told by comparing the two
// stored encodings (with the same column count the encoding is one to one), decoding neither.
// False, having done nothing, for any other shape of state (DiffKey then does the work).
bool ApplierImpl::DiffFromSource(KeyWork& work, const data::RecordBatch& source, TargetRows& rows,
                                 ApplyCounts& counts) const {
  const std::vector<StoredEvent>& now = work.new_state.events;
  const std::vector<StoredEvent>& before = work.old_state->events;
  if (work.source_row < 0 || now.size() != 1 || now[0].kind != EventKind::kUpsert ||
      now[0].partial || before.size() > 1) {
    return false;
  }
  const bool had = before.size() == 1 && before[0].kind == EventKind::kUpsert;
  if (had && (before[0].partial ||
              EncodedColumnCount(before[0].values) != EncodedColumnCount(now[0].values))) {
    return false;
  }
  if (work.old_state->locations.size() != (had ? 1U : 0U)) return false;  // DiffKey reports it
  work.new_state.locations.assign(1, RowLocation{});
  if (had && before[0].values == now[0].values) {
    work.new_state.locations[0] = work.old_state->locations[0];
    return true;
  }
  if (had) rows.Delete(work.old_state->locations[0]);
  rows.AppendSourceRow(source, work.source_row, &work.new_state.locations[0]);
  counts.updated += had ? 1 : 0;
  counts.inserted += had ? 0 : 1;
  return true;
}

// Copy-on-write rewrote files: point the keys whose rows moved at their new place.
Status ApplierImpl::RemapMovedRows(const std::vector<delta::Action>& deletion_actions,
                                   const std::map<std::string, std::vector<int64_t>>& deleted,
                                   WorkLookup& by_key, std::vector<std::unique_ptr<KeyWork>>& moved,
                                   IndexWriteBatch* batch) {
  // Each rewritten file and the file that replaces it. The actions come in the order of the
  // files' names (random); the new files get their dictionary ids in the order of the old ones',
  // so that the key index does not depend on the names drawn.
  std::vector<std::tuple<uint32_t, std::string, const delta::Add*>> rewrites;
  std::string last_removed;
  for (const auto& action : deletion_actions) {
    if (const auto* remove = std::get_if<delta::Remove>(&action)) {
      last_removed = remove->path;
      continue;
    }
    const auto* add = std::get_if<delta::Add>(&action);
    if (!add || add->path == last_removed || last_removed.empty()) continue;
    rewrites.emplace_back(files_.IdOf(last_removed, batch), last_removed, add);
    last_removed.clear();
  }
  std::sort(rewrites.begin(), rewrites.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  ArchivedRowMoves archived;
  for (const auto& [removed_id, removed_path, add] : rewrites) {
    std::vector<int64_t> gone = deleted.at(removed_path);
    const uint32_t added_id = files_.IdOf(add->path, batch);
    std::sort(gone.begin(), gone.end());
    // Through the table scan: a key that is a partition column is not in the file.
    delta::ScanOptions read;
    read.columns = flow_.keys;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch keys,
                             delta::ReadDataFile(fs_, *snapshot_, *add, read));
    size_t skip = 0;
    int64_t old_row = 0;
    for (int64_t r = 0; r < keys.num_rows(); ++r, ++old_row) {
      while (skip < gone.size() && gone[skip] <= old_row) {
        if (gone[skip] == old_row) ++old_row;
        ++skip;
      }
      std::string key = layout_.EncodeKey(keys, r);
      KeyWork* work = by_key.Find(key);
      if (work == nullptr) {
        CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> bytes, index_->Get(StateKey(key)));
        if (!bytes) {
          return Status::Corrupt(flow_.target + ": a row of " + add->path +
                                 " has a key the key index does not know");
        }
        auto fresh = std::make_unique<KeyWork>();
        fresh->key = key;
        fresh->had_state = true;
        CDCLAKE_ASSIGN_OR_RETURN(fresh->old_state.mut(), ParseKeyState(*bytes));
        fresh->new_state = *fresh->old_state;
        work = fresh.get();
        by_key.AddLater(work);
        moved.push_back(std::move(fresh));
      }
      // In the key's entry, or in the chunks of its archived history (key_history.h).
      CDCLAKE_RETURN_IF_ERROR(archived
                                  .Move(*index_, key, work->new_state,
                                        RowLocation{removed_id, old_row}, RowLocation{added_id, r})
                                  .status());
    }
  }
  archived.Write(batch);
  return Status::OK();
}

// `batch` with the target's columns it lacks added as NULL, when it lacks a key column: a
// truncate event names no table column (a Debezium truncate has no row images), so a batch of
// truncates (or one that starts a file with them) carries only the operation and sequence
// columns. nullopt when the batch has every key column, or when there is no target yet.
std::optional<change::ChangeBatch> WithTargetColumns(const change::ChangeBatch& batch,
                                                     const FlowDefinition& flow,
                                                     const delta::Snapshot* target) {
  const data::Schema& schema = batch.rows.schema();
  if (target == nullptr || batch.rows.num_rows() == 0) return std::nullopt;
  bool lacks_key = false;
  for (const std::string& k : flow.keys) lacks_key = lacks_key || schema.FieldIndex(k) < 0;
  if (!lacks_key) return std::nullopt;
  change::ChangeBatch patched = batch;
  std::vector<data::Field> fields = schema.fields();
  std::vector<data::Column> columns = batch.rows.columns();
  const int64_t n = batch.rows.num_rows();
  for (const data::Field& f : target->schema().fields()) {
    if (f.name == "__START_AT" || f.name == "__END_AT" || schema.FieldIndex(f.name) >= 0) {
      continue;
    }
    fields.push_back({f.name, f.type, true});
    columns.push_back(data::Column::Repeat(f.type, data::Value::Null(), n));
    if (!patched.unchanged.empty()) patched.unchanged.emplace_back(static_cast<size_t>(n), 0);
  }
  patched.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  patched.rows.set_num_rows(n);
  return patched;
}

Result<ApplyResult> ApplierImpl::Apply(const change::ChangeBatch& batch,
                                       const CommitExtras& extras) {
  if (std::optional<change::ChangeBatch> patched =
          WithTargetColumns(batch, flow_, snapshot_.get())) {
    return Apply(*patched, extras);
  }
  if (!flow_.declared_schema || batch.rows.num_rows() == 0) return ApplyConformed(batch, extras);
  // A declared column list: the source's columns cast to it first (conditions and the
  // sequence then see the declared types), undeclared columns kept for them but not written.
  // Column lists are checked on the conformed batch below (which holds the declared columns).
  CDCLAKE_RETURN_IF_ERROR(ValidateFlow(flow_, batch.rows.schema(), /*check_column_lists=*/false));
  ConformReport report;
  CDCLAKE_ASSIGN_OR_RETURN(change::ChangeBatch conformed,
                           ConformToDeclared(batch, *flow_.declared_schema, true, &report));
  std::string undeclared;
  for (const std::string& name : report.undeclared) {
    if (std::find(flow_.keys.begin(), flow_.keys.end(), name) != flow_.keys.end() ||
        !flow_.columns.Selects(name) || !warned_undeclared_.insert(name).second) {
      continue;
    }
    undeclared += (undeclared.empty() ? "'" : ", '") + name + "'";
  }
  CDCLAKE_ASSIGN_OR_RETURN(ApplyResult result, ApplyConformed(conformed, extras));
  if (!undeclared.empty()) {
    result.warnings.push_back("source columns " + undeclared + " are not in " + flow_.target +
                              "'s declared column list and are not written; declare them, or "
                              "leave them out with COLUMNS * EXCEPT (...)");
  }
  return result;
}

Result<ApplyResult> ApplierImpl::ApplyConformed(const change::ChangeBatch& batch,
                                                const CommitExtras& extras) {
  if (extras.txn_app_id && extras.txn_after && snapshot_ &&
      snapshot_->TxnVersion(*extras.txn_app_id).value_or(0) != *extras.txn_after) {
    return Status::Conflict(
        flow_.target + ": another writer of the same flow committed its batch " +
        std::to_string(snapshot_->TxnVersion(*extras.txn_app_id).value_or(0)) +
        " while this one read from the position after batch " + std::to_string(*extras.txn_after) +
        "; this batch is not applied (it would apply input twice): run again");
  }
  ApplyResult result;
  PhaseTrace trace;
  ApplyCounts& counts = result.counts;
  counts.read = batch.num_records();
  std::vector<change::RejectedRecord> quarantined = batch.rejected;
  const data::RecordBatch& rows = batch.rows;
  const int64_t now = Now();

  if (rows.num_rows() > 0) {
    // The column lists are checked when the target is created; later batches may lack a
    // column the source stopped sending (§5), or carry only truncates.
    CDCLAKE_RETURN_IF_ERROR(ValidateFlow(flow_, rows.schema(), /*check_column_lists=*/!snapshot_));
    CDCLAKE_RETURN_IF_ERROR(PrepareTarget(rows.schema(), 0, /*create=*/false));
  }

  const bool change_data = Property("delta.enableChangeDataFeed") == "true";

  // Kinds from the conditions.
  std::vector<uint8_t> is_delete(rows.num_rows(), 0), is_truncate(rows.num_rows(), 0);
  if (flow_.delete_when && rows.num_rows() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(is_delete, data::EvaluatePredicate(*flow_.delete_when, rows));
  }
  if (flow_.truncate_when && rows.num_rows() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(is_truncate, data::EvaluatePredicate(*flow_.truncate_when, rows));
  }

  // Declared NOT NULL columns: an upsert must give them a value.
  std::vector<std::string> not_null;
  if (flow_.declared_schema) {
    // A NULL that keeps the row's value (an unchanged cell, IGNORE NULL UPDATES) breaks nothing.
    std::function<bool(const std::string&)> keeps_on_null;
    if (flow_.ignore_null_updates) {
      keeps_on_null = [this](const std::string& c) {
        return flow_.ignore_null_updates->Selects(c);
      };
    }
    not_null = NotNullViolations(rows, *flow_.declared_schema, batch.unchanged, keeps_on_null);
  }

  // String partition columns: Delta's partitionValues cannot tell an empty string from NULL
  // (both read back as NULL, as Spark writes them), so an upsert holding "" there would read
  // back other than it was applied (and a key that is a partition column could no longer be
  // found). Such rows are quarantined.
  std::vector<std::pair<int, std::string>> string_partitions;
  for (const std::string& p :
       snapshot_ ? snapshot_->metadata().partition_columns : flow_.partition_columns) {
    int i = rows.schema().FieldIndex(p);
    if (i >= 0 && rows.schema().field(i).type->id() == data::TypeId::kString) {
      string_partitions.emplace_back(i, p);
    }
  }
  auto empty_partition_value = [&](int64_t r) -> std::optional<std::string> {
    for (const auto& [i, name] : string_partitions) {
      const data::Column& c = rows.column(i);
      if (!c.IsNull(r) && c.StringAt(r).empty()) return name;
    }
    return std::nullopt;
  };

  // A load or a snapshot into an index that holds no state yet skips the look-ups (a million of
  // them were 0.3-0.6 s of a 1M-row load): one seek tells. No key's entry is then built for a
  // look-up either (another 0.4 s of a 1M-row load).
  bool no_state = false;
  if (rows.num_rows() > 0 && rows.num_rows() >= options_.bulk_from) {
    no_state = true;
    CDCLAKE_RETURN_IF_ERROR(
        index_->Scan(std::string(1, kKeyPrefix), [&no_state](std::string_view, std::string_view) {
          no_state = false;
          return false;
        }));
  }
  // Such a batch of an SCD1 flow whose states are digests (see digest_states below) with rows
  // written as they came (DiffFromSource) needs no event's values, only their digest: each is
  // hashed as it is encoded instead of kept (a 1M-row load kept ~170 MB of encodings to hash
  // them at the end). Keys with two upserts at one sequence get their values back after the
  // sort: a tie is settled by the encodings.
  bool any_unchanged = false;
  for (const auto& marks : batch.unchanged) {
    any_unchanged = any_unchanged || std::any_of(marks.begin(), marks.end(),
                                                 [](uint8_t marked) { return marked != 0; });
  }
  const bool digests_only = no_state && WritesSourceRows(change_data) && !any_unchanged &&
                            !sends_unchanged_ && !options_.full_states;

  // Each row's sequence, key and values encoded first, on two threads for a large batch
  // (encoding is a tenth of a batch); rows the loop below quarantines are left unencoded.
  std::vector<RowEncoding> encoded(static_cast<size_t>(rows.num_rows()));
  auto encode = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      const auto r = static_cast<int64_t>(i);
      RowEncoding& out = encoded[i];
      if (layout_.NullSequenceColumn(rows, r)) continue;
      out.seq = layout_.EncodeSequence(rows, r);
      out.has_seq = true;
      if (is_truncate[r] || layout_.NullKeyColumn(rows, r)) continue;
      out.key = layout_.EncodeKey(rows, r);
      out.has_key = true;
      if (is_delete[r]) continue;
      if (digests_only) {
        out.values = layout_.EncodeRowDigest(rows, r);
        out.digest = true;
      } else {
        out.values = layout_.EncodeRowValues(rows, batch.unchanged, r, &out.partial);
      }
    }
  };
  constexpr int64_t kEncodeInParallelFrom = 16384;
  if (rows.num_rows() >= kEncodeInParallelFrom) {
    InTwoHalves(encoded.size(), encode);
  } else {
    encode(0, encoded.size());
  }

  // Events, with invalid rows sent to quarantine.
  std::vector<PendingEvent> events;
  std::vector<std::pair<std::string, int64_t>> truncates;  // sequence, row
  events.reserve(rows.num_rows());
  bool any_partial = false;  // an upsert with unchanged cells
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    RowEncoding& row_encoding = encoded[static_cast<size_t>(r)];
    if (!row_encoding.has_seq) {
      std::optional<std::string> null_seq = layout_.NullSequenceColumn(rows, r);
      CDCLAKE_RETURN_IF_ERROR(
          Quarantine(batch, r, "NULL sequence: column '" + *null_seq + "' is NULL", &quarantined));
      continue;
    }
    std::string seq = std::move(row_encoding.seq);
    if (is_truncate[r]) {
      truncates.emplace_back(std::move(seq), r);
      continue;
    }
    if (!row_encoding.has_key) {
      std::optional<std::string> null_key = layout_.NullKeyColumn(rows, r);
      CDCLAKE_RETURN_IF_ERROR(
          Quarantine(batch, r, "NULL in key column '" + *null_key + "'", &quarantined));
      continue;
    }
    if (!is_delete[r] && !not_null.empty() && !not_null[r].empty()) {
      CDCLAKE_RETURN_IF_ERROR(Quarantine(batch, r, std::move(not_null[r]), &quarantined));
      continue;
    }
    if (!is_delete[r] && !string_partitions.empty()) {
      if (auto name = empty_partition_value(r)) {
        CDCLAKE_RETURN_IF_ERROR(Quarantine(
            batch, r,
            "partition column '" + *name +
                "' holds an empty string, which a Delta partition value cannot tell from NULL; "
                "send NULL or a value",
            &quarantined));
        continue;
      }
    }
    PendingEvent e;
    e.key = std::move(row_encoding.key);
    e.row = r;
    e.event.seq = std::move(seq);
    if (is_delete[r]) {
      e.event.kind = EventKind::kDelete;
      e.event.processed_ms = now;
    } else {
      e.event.kind = EventKind::kUpsert;
      e.event.values = std::move(row_encoding.values);
      e.event.partial = row_encoding.partial;
      e.event.digest = row_encoding.digest;
      any_partial = any_partial || row_encoding.partial;
    }
    events.push_back(std::move(e));
  }
  // The encodings' strings are the events' now; the rest is freed here, not at the end, so
  // later phases reuse the memory instead of touching fresh pages (a 1M-row load: 100 MiB).
  std::vector<RowEncoding>().swap(encoded);
  trace.Mark("events");
  // The largest sequence seen, recorded with each commit (index_recovery.h needs it when the
  // index log is lost).
  std::optional<std::string> max_seq = max_seq_;
  for (const PendingEvent& e : events) {
    if (!max_seq || e.event.seq > *max_seq) max_seq = e.event.seq;
  }
  for (const auto& t : truncates) {
    if (!max_seq || t.first > *max_seq) max_seq = t.first;
  }
  // Sorted by key, then the events' order. The entries sorted hold each key's first 16 bytes
  // as two integers, so most comparisons touch neither the key nor the event (keys of integer
  // columns differ there); equal heads fall back to the whole key, then the event.
  struct SortEntry {
    uint64_t head0, head1;
    uint32_t event;
  };
  std::vector<SortEntry> entries(events.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const std::string& key = events[i].key;
    entries[i] = {BigEndianHead(key, 0), BigEndianHead(key, 8), i};
  }
  std::sort(entries.begin(), entries.end(), [&events](const SortEntry& x, const SortEntry& y) {
    if (x.head0 != y.head0) return x.head0 < y.head0;
    if (x.head1 != y.head1) return x.head1 < y.head1;
    const PendingEvent& a = events[x.event];
    const PendingEvent& b = events[y.event];
    if (int c = a.key.compare(b.key); c != 0) return c < 0;
    return a.event < b.event;
  });
  if (digests_only) {
    // Upserts of one key at one sequence (a tie, or a duplicate) are ordered by their values
    // (§2 Ties): theirs are encoded again and the run sorted again. Neighbours whose key heads
    // differ are not looked at (reading each event in key order was 0.3 s of a 1M-row load).
    auto tied = [&events](const SortEntry& a, const SortEntry& b) {
      if (a.head0 != b.head0 || a.head1 != b.head1) return false;
      const PendingEvent& x = events[a.event];
      const PendingEvent& y = events[b.event];
      return x.event.kind == EventKind::kUpsert && y.event.kind == EventKind::kUpsert &&
             x.event.seq == y.event.seq && x.key == y.key;
    };
    for (size_t i = 0; i + 1 < entries.size(); ++i) {
      if (!tied(entries[i], entries[i + 1])) continue;
      size_t end = i + 1;
      while (end + 1 < entries.size() && tied(entries[end], entries[end + 1])) ++end;
      for (size_t j = i; j <= end; ++j) {
        PendingEvent& pending = events[entries[j].event];
        StoredEvent& e = pending.event;
        e.values = layout_.EncodeRowValues(rows, batch.unchanged, pending.row, &e.partial);
        e.digest = false;
      }
      std::sort(entries.begin() + static_cast<std::ptrdiff_t>(i),
                entries.begin() + static_cast<std::ptrdiff_t>(end + 1),
                [&events](const SortEntry& a, const SortEntry& b) {
                  return events[a.event].event < events[b.event].event;
                });
      i = end;
    }
  }
  std::vector<uint32_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = entries[i].event;
  std::vector<SortEntry>().swap(entries);

  // Engine-wide state: the last truncate and the purge horizon.
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> old_truncate, index_->Get(kTruncateKey));
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> horizon, index_->Get(kHorizonKey));
  std::optional<std::string> truncate = old_truncate;
  for (const auto& [seq, row] : truncates) {
    if (truncate && seq <= *truncate && (!old_truncate || seq <= *old_truncate)) {
      ++counts.discarded;
      continue;
    }
    ++counts.applied;
    if (!truncate || seq > *truncate) truncate = seq;
  }
  const bool truncate_raised = truncate != old_truncate;
  // SCD1 without IGNORE NULL UPDATES or change data keeps a key's row only in the table: its
  // state holds the values as a digest (key_state.h), read back when a batch needs them. Not
  // once the source has sent unchanged cells: each such event needs the stored values.
  const bool sends_unchanged = any_partial || sends_unchanged_;
  const bool folds_old_values =
      flow_.scd_type != ScdType::kType1 || settings_.AnyIgnoreNull() || change_data;
  const bool digest_states = !folds_old_values && !sends_unchanged && !options_.full_states;
  const bool late_quarantine = Property("cdclake.lateEventPolicy") == "quarantine";

  trace.Mark("sort");
  // Each key's state, then its events.
  std::deque<KeyWork> works;  // a deque: pointers to its elements stay valid
  WorkLookup by_key;
  {
    // Each distinct key's stored state, from the index (none when it holds no state).
    std::vector<std::optional<std::string>> found;
    std::vector<std::string> entries;
    // (Nothing to look up without state: no entry per key either, 40 MB at 1M keys.)
    for (size_t i = 0; i < order.size() && !no_state; ++i) {
      if (i != 0 && events[order[i]].key == events[order[i - 1]].key) continue;
      entries.push_back(StateKey(events[order[i]].key));
    }
    if (!no_state) CDCLAKE_RETURN_IF_ERROR(ParallelMultiGet(*index_, entries, &found));
    trace.Mark("multiget");
    // Each key's work, and where its events are in `order`.
    std::vector<size_t> ends;
    std::vector<std::string> whole_keys;
    std::vector<KeyState*> whole_states;
    for (size_t i = 0; i < order.size(); ++i) {
      const PendingEvent& e = events[order[i]];
      if (i != 0 && e.key == events[order[i - 1]].key) {
        ends.back() = i + 1;
        continue;
      }
      KeyWork& work = works.emplace_back();
      work.key = e.key;
      if (flow_.scd_type == ScdType::kType2) work.first_seq.mut() = e.event.seq;
      if (std::optional<std::string>* bytes = no_state ? nullptr : &found[ends.size()];
          bytes && *bytes) {
        work.had_state = true;
        CDCLAKE_ASSIGN_OR_RETURN(work.old_state.mut(), ParseKeyState(**bytes));
        bytes->reset();  // parsed: its memory goes to the next keys' states
        // The key's first event in the batch is its oldest: one that lands among archived
        // events needs the whole history (rare: the archive holds older batches' events).
        if (ReachesArchive(*work.old_state, e.event.seq)) {
          whole_keys.push_back(work.key);
          whole_states.push_back(&work.old_state.mut());
          work.replaced_chunks = work.old_state->archived->chunks;
        }
      }
      by_key.AddInOrder(&work);
      ends.push_back(i + 1);
    }
    CDCLAKE_RETURN_IF_ERROR(ReadWholeHistories(*index_, whole_keys, whole_states));
    for (KeyWork& work : works) {
      work.new_state = *work.old_state;
      if (truncate) DropThrough(*truncate, &work.new_state);
    }
    // States held as digests whose values this batch needs are read back from the table first.
    std::vector<KeyWork*> read_back;
    for (size_t k = 0, i = 0; k < works.size(); i = ends[k++]) {
      KeyWork& work = works[k];
      if (!HoldsDigest(*work.old_state)) continue;
      const StoredEvent& held = work.old_state->events[0];
      bool needed = folds_old_values;
      for (size_t j = i; j < ends[k] && !needed; ++j) {
        // A tie with other values is settled by the two encodings (a repeat of the stored
        // event, by the digests); unchanged cells take the stored values.
        const StoredEvent& e = events[order[j]].event;
        if (e.kind != EventKind::kUpsert) continue;
        needed = e.partial || EncodedColumnCount(e.values) < EncodedColumnCount(held.values) ||
                 (e.seq == held.seq && !e.SameValues(held));
      }
      if (needed) read_back.push_back(&work);
    }
    CDCLAKE_ASSIGN_OR_RETURN(int64_t respelled, ReadBackValues(read_back));
    if (respelled > 0) {
      result.warnings.push_back(
          std::to_string(respelled) + " rows of " + flow_.target +
          " read back from the table hold their values otherwise spelled than the events that "
          "wrote them (their digests differ, their keys match); the table's values were used");
    }
    size_t k = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i == ends[k]) ++k;
      PendingEvent& e = events[order[i]];
      KeyWork& work = works[k];
      if (truncate && e.event.seq <= *truncate) {
        ++counts.discarded;
        continue;
      }
      // A key without state, or one rebuilt from a row that did not hold its sequence
      // (index_recovery.h), cannot tell an event at or below the horizon from a late one.
      const bool unknown_state = !work.had_state || (work.new_state.events.size() == 1 &&
                                                     work.new_state.events[0].seq.empty());
      if (late_quarantine && horizon && unknown_state && e.event.seq <= *horizon) {
        CDCLAKE_RETURN_IF_ERROR(Quarantine(batch, e.row,
                                           "late event: its sequence is at or below the purge "
                                           "horizon of expired tombstones and its key has no "
                                           "state (cdclake.lateEventPolicy = 'quarantine')",
                                           &quarantined));
        continue;
      }
      const bool upsert = e.event.kind == EventKind::kUpsert;
      InsertOutcome outcome = InsertEvent(settings_, std::move(e.event), &work.new_state);
      if (outcome.conflict) ++counts.sequence_conflicts;
      if (outcome.changed) {
        work.source_row = upsert ? e.row : -1;
        ++counts.applied;
      } else {
        ++counts.discarded;
      }
    }
  }

  // The events are in the keys' states now; what is left of them goes (130 MiB at 1M rows).
  std::vector<PendingEvent>().swap(events);
  std::vector<uint32_t>().swap(order);
  trace.Mark("states");
  // A new truncate reaches every key, not only those in the batch.
  if (truncate_raised) {
    std::vector<KeyWork> reached;
    Status scan_status;
    CDCLAKE_RETURN_IF_ERROR(index_->Scan(std::string(1, kKeyPrefix),
                                         [&](std::string_view entry, std::string_view value) {
                                           std::string key(entry.substr(1));
                                           if (by_key.Find(key) != nullptr) return true;
                                           auto state = ParseKeyState(value);
                                           if (!state.ok()) {
                                             scan_status = state.status();
                                             return false;
                                           }
                                           KeyWork work;
                                           work.key = key;
                                           work.had_state = true;
                                           work.old_state.mut() = *state;
                                           work.new_state = std::move(*state);
                                           if (DropThrough(*truncate, &work.new_state))
                                             reached.push_back(std::move(work));
                                           return true;
                                         }));
    CDCLAKE_RETURN_IF_ERROR(scan_status);
    for (auto& w : reached) {
      KeyWork& added = works.emplace_back(std::move(w));
      by_key.AddLater(&added);
    }
  }

  // Keys whose state changed, and what that does to their rows.
  std::vector<KeyWork*> changed;
  for (auto& w : works) {
    if (!(w.new_state.events == w.old_state->events)) changed.push_back(&w);
  }
  const bool state_changed = !changed.empty() || truncate_raised;

  // Expired tombstones (SCD1).
  IndexWriteBatch index_batch;
  std::optional<std::string> new_horizon = horizon;
  if (flow_.scd_type == ScdType::kType1 && (snapshot_ || state_changed)) {
    std::string threshold = Property("pipelines.cdc.tombstoneGCThresholdInSeconds");
    CDCLAKE_ASSIGN_OR_RETURN(
        int64_t seconds, IntegerProperty("pipelines.cdc.tombstoneGCThresholdInSeconds", threshold,
                                         kDefaultTombstoneSeconds));
    int64_t cutoff = now - seconds * 1000;
    std::vector<std::pair<std::string, std::string>> expired;  // queue entry, key
    CDCLAKE_RETURN_IF_ERROR(index_->Scan(
        std::string(1, kTombstonePrefix), [&](std::string_view entry, std::string_view) {
          if (TombstoneKeyTime(entry) >= cutoff) return false;
          expired.emplace_back(std::string(entry), std::string(entry.substr(9)));
          return true;
        }));
    for (auto& [entry, key] : expired) {
      KeyState state;
      if (const KeyWork* work = by_key.Find(key)) {
        state = work->new_state;
      } else {
        CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> bytes, index_->Get(StateKey(key)));
        if (bytes) {
          CDCLAKE_ASSIGN_OR_RETURN(state, ParseKeyState(*bytes));
        }
      }
      if (!state.IsTombstone() || state.events[0].processed_ms != TombstoneKeyTime(entry)) {
        continue;  // the key changed in this batch; its queue entry is replaced below
      }
      index_batch.deletes.push_back(entry);
      index_batch.deletes.push_back(StateKey(key));
      if (!new_horizon || state.events[0].seq > *new_horizon) new_horizon = state.events[0].seq;
      ++counts.tombstones_purged;
      if (KeyWork* work = by_key.Find(key)) {
        work->new_state.events.clear();
        work->old_state.mut().events.clear();  // no rows either way; nothing to write
        work->old_state.mut().locations.clear();
      }
    }
  }

  counts.quarantined = static_cast<int64_t>(quarantined.size());
  if (extras.quarantined_before || extras.quarantined) {
    auto done = [&](const change::RejectedRecord& r) {
      if (extras.quarantined_before && SortsBefore(r.position, *extras.quarantined_before)) {
        return true;
      }
      return extras.quarantined && extras.quarantined->count(QuarantineIdentity(r)) > 0;
    };
    quarantined.erase(std::remove_if(quarantined.begin(), quarantined.end(), done),
                      quarantined.end());
    counts.already_quarantined = counts.quarantined - static_cast<int64_t>(quarantined.size());
  }
  // The quarantine commit carries the caller's parameters and says whether a target commit
  // follows, so a reader can tell a batch that only quarantined from one cut short.
  auto quarantine_parameters = [&](bool target_commit) {
    json::Json params = extras.operation_parameters;
    if (!params.empty()) params["cdclake.targetCommit"] = target_commit ? "true" : "false";
    return params;
  };
  const std::string qtable =
      options_.quarantine_table.empty() ? flow_.target + "_quarantine" : options_.quarantine_table;
  trace.Mark("expiry");
  if (!state_changed && index_batch.empty()) {
    if (!quarantined.empty()) {
      CDCLAKE_ASSIGN_OR_RETURN(
          result.quarantine_version,
          WriteQuarantine(fs_, qtable, flow_.name, quarantined, now, quarantine_parameters(false)));
    }
    return result;
  }

  // The target exists from here on.
  CDCLAKE_RETURN_IF_ERROR(PrepareTarget(rows.schema(), 0, /*create=*/true));
  TargetRows target_rows(layout_, change_data);
  // New rows straight from the batch where nothing merges into them (DiffFromSource).
  const bool from_source = WritesSourceRows(change_data);
  if (digests_only && !(from_source && digest_states)) {
    return Status::Internal(flow_.target +
                            ": a batch's events kept only digests of their values, "
                            "but its rows are not written as they came");
  }
  for (KeyWork* w : changed) {
    if (HoldsDigest(*w->old_state)) {
      CDCLAKE_RETURN_IF_ERROR(DiffDigest(*w, rows, target_rows, counts));
      continue;
    }
    if (from_source && DiffFromSource(*w, rows, target_rows, counts)) continue;
    CDCLAKE_RETURN_IF_ERROR(DiffKey(*w, target_rows, counts));
  }
  trace.Mark("diff");

  // New rows, then deletions of old ones.
  std::vector<delta::Action> actions;
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch appended, target_rows.TakeAppendedBatch());
  if (appended.num_rows() > 0) {
    // One file per partition the new rows fall in.
    std::vector<delta::RowPlacement> placement;
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Add> adds,
                             delta::WriteDataFiles(fs_, *snapshot_, appended, {}, &placement));
    std::vector<uint32_t> file_ids;
    for (delta::Add& add : adds) {
      file_ids.push_back(files_.IdOf(add.path, &index_batch));
      actions.emplace_back(std::move(add));
    }
    target_rows.SetAppendedFiles(file_ids, placement);
  }
  std::vector<std::unique_ptr<KeyWork>> moved;
  trace.Mark("write");
  if (!target_rows.deleted_locations().empty()) {
    std::map<std::string, std::vector<int64_t>> deleted;
    for (const auto& [file, rows_in_file] : target_rows.deleted_locations()) {
      CDCLAKE_ASSIGN_OR_RETURN(std::string path, files_.PathOf(file));
      deleted[path] = rows_in_file;
    }
    delta::DeleteRowsOptions delete_options;
    delete_options.write_change_data = false;
    CDCLAKE_ASSIGN_OR_RETURN(delta::RowDeletion deletion,
                             delta::DeleteRows(fs_, *snapshot_, deleted, delete_options));
    if (!delta::UsesDeletionVectors(*snapshot_)) {
      CDCLAKE_RETURN_IF_ERROR(
          RemapMovedRows(deletion.actions, deleted, by_key, moved, &index_batch));
    }
    for (auto& a : deletion.actions) actions.push_back(std::move(a));
  }
  if (Property("delta.enableChangeDataFeed") == "true") {
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch change_rows, target_rows.ChangeDataBatch());
    if (change_rows.num_rows() > 0) {
      CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::AddCdc> cdc,
                               delta::WriteChangeDataFiles(fs_, *snapshot_, change_rows));
      for (auto& c : cdc) actions.emplace_back(std::move(c));
    }
  }

  // SCD2: long histories changed by the batch leave their first events in chunks.
  if (flow_.scd_type == ScdType::kType2) {
    const HistoryTail tail{options_.history_tail_events, 2 * options_.history_tail_events};
    auto archive = [&](KeyWork& w) -> Status {
      if (w.new_state == *w.old_state) return Status::OK();
      return ArchiveHistory(settings_, w.key, tail, *w.first_seq, w.replaced_chunks, &w.new_state,
                            &index_batch);
    };
    for (KeyWork& w : works) CDCLAKE_RETURN_IF_ERROR(archive(w));
    for (auto& w : moved) CDCLAKE_RETURN_IF_ERROR(archive(*w));
  }
  // The index's changes: states, tombstone queue, engine-wide entries.
  std::set<std::string> purged(index_batch.deletes.begin(), index_batch.deletes.end());
  // A large batch's new states are serialized on two threads first (a 1M-row load spent a
  // second serializing them one by one).
  constexpr size_t kSerializeInParallelFrom = 16384;
  std::vector<std::string> serialized;
  if (works.size() >= kSerializeInParallelFrom) {
    serialized.resize(works.size());
    auto serialize = [&](size_t from, size_t to) {
      for (size_t i = from; i < to; ++i) {
        const KeyWork& w = works[i];
        if (!w.new_state.events.empty() && !(w.new_state == *w.old_state)) {
          serialized[i] = SerializeKeyState(w.new_state, digest_states);
        }
      }
    };
    InTwoHalves(works.size(), serialize);
  }
  // Every key whose events or row locations changed (copy-on-write moves rows of keys whose
  // events did not change, in the batch or not); `ready`: its state serialized above, if it was.
  auto put_state = [&](const KeyWork& w, std::string* ready) {
    if (purged.count(StateKey(w.key)) || w.new_state == *w.old_state) return;
    std::optional<std::string> old_queue, new_queue;
    const bool scd1 = flow_.scd_type == ScdType::kType1;  // SCD2 keeps no tombstones (§6)
    if (scd1 && w.old_state->IsTombstone()) {
      old_queue = TombstoneKey(w.old_state->events[0].processed_ms, w.key);
    }
    if (scd1 && w.new_state.IsTombstone()) {
      new_queue = TombstoneKey(w.new_state.events[0].processed_ms, w.key);
    }
    if (old_queue != new_queue) {
      if (old_queue) index_batch.deletes.push_back(*old_queue);
      if (new_queue) index_batch.puts.emplace_back(*new_queue, "");
    }
    if (w.new_state.events.empty()) {
      index_batch.deletes.push_back(StateKey(w.key));
    } else if (ready != nullptr) {
      index_batch.puts.emplace_back(StateKey(w.key), std::move(*ready));
    } else {
      index_batch.puts.emplace_back(StateKey(w.key), SerializeKeyState(w.new_state, digest_states));
    }
  };
  for (size_t i = 0; i < works.size(); ++i) {
    put_state(works[i], serialized.empty() ? nullptr : &serialized[i]);
  }
  for (auto& w : moved) put_state(*w, nullptr);
  if (truncate_raised) index_batch.puts.emplace_back(kTruncateKey, *truncate);
  if (any_partial && !sends_unchanged_) index_batch.puts.emplace_back(kUnchangedCellsKey, "1");
  if (new_horizon != horizon) index_batch.puts.emplace_back(kHorizonKey, *new_horizon);
  if (max_seq != max_seq_) index_batch.puts.emplace_back(kMaxSequenceKey, *max_seq);
  trace.Mark("delete+cdf");
  // A batch that changed key states but no row (an SCD2 update identical to the open version
  // at a newer sequence, a delete of a key without a row) still commits: a version without
  // data files that carries its index-log file and the flow's position, so that a lost key
  // index rebuilt from the log, or a replay, knows what it changed (docs/apply.md). Only a
  // batch that changes nothing writes no version (see above).
  CDCLAKE_ASSIGN_OR_RETURN(std::string log_name, WriteIndexLog(fs_, flow_.target, index_batch));
  trace.Mark("index_log");

  // Quarantine first: nothing is lost if the commit below fails.
  if (!quarantined.empty()) {
    CDCLAKE_ASSIGN_OR_RETURN(
        result.quarantine_version,
        WriteQuarantine(fs_, qtable, flow_.name, quarantined, now, quarantine_parameters(true)));
  }

  delta::Transaction txn(fs_, flow_.target, snapshot_);
  for (auto& a : actions) txn.Add(std::move(a));
  if (extras.txn_app_id) {
    txn.Add(delta::Txn{*extras.txn_app_id, extras.txn_version, now});
  }
  for (const auto& [app_id, version] : extras.source_txns) {
    txn.Add(delta::Txn{app_id, version, now});
  }
  delta::CommitOptions commit;
  commit.operation = "AUTO CDC";
  commit.operation_parameters = extras.operation_parameters;
  commit.operation_parameters[kIndexLogParameter] = log_name;
  if (max_seq) commit.operation_parameters[kMaxSequenceParameter] = HexEncode(*max_seq);
  if (!flow_.name.empty()) commit.operation_parameters["flow"] = flow_.name;
  commit.operation_parameters["scdType"] = flow_.scd_type == ScdType::kType1 ? "1" : "2";
  if (auto domain = FlowDomain(commit.operation_parameters)) txn.Add(std::move(*domain));
  commit.operation_metrics = json::Json{{"numSourceRows", std::to_string(counts.read)},
                                        {"numTargetRowsInserted", std::to_string(counts.inserted)},
                                        {"numTargetRowsUpdated", std::to_string(counts.updated)},
                                        {"numTargetRowsDeleted", std::to_string(counts.deleted)}};
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, txn.Commit(commit));
  trace.Mark("commit");
  result.version = version;

  index_batch.puts.emplace_back(kIndexVersionKey, std::to_string(version));
  CDCLAKE_RETURN_IF_ERROR(index_->Write(index_batch));
  trace.Mark("index_write");
  max_seq_ = max_seq;
  sends_unchanged_ = sends_unchanged;
  // The commit's own actions replayed onto the snapshot it was made from, not the whole log
  // (its checkpoint holds every file of the table) read again.
  CDCLAKE_ASSIGN_OR_RETURN(snapshot_, delta::Snapshot::LoadAfter(fs_, *snapshot_, version));
  trace.Mark("snapshot");

  // Compaction every N commits when the table asks for it.
  if (Property("cdclake.autoOptimize") == "true") {
    std::string every = Property("cdclake.autoOptimize.commitInterval");
    CDCLAKE_ASSIGN_OR_RETURN(
        int64_t interval,
        IntegerProperty("cdclake.autoOptimize.commitInterval", every, kDefaultOptimizeInterval));
    if (interval > 0 && version % interval == 0) {
      OptimizeOptions optimize;
      optimize.now_ms = now;
      CDCLAKE_ASSIGN_OR_RETURN(OptimizeResult compacted,
                               OptimizeTable(fs_, snapshot_, *index_, optimize));
      if (compacted.version) {
        CDCLAKE_RETURN_IF_ERROR(files_.Load(*index_));
        result.optimize_version = compacted.version;
        CDCLAKE_ASSIGN_OR_RETURN(snapshot_,
                                 delta::Snapshot::LoadAfter(fs_, *snapshot_, *compacted.version));
      }
    }
  }
  return result;
}

}  // namespace

Status CheckFirstBatchColumns(const FlowDefinition& flow, const change::ChangeBatch& batch) {
  if (!flow.declared_schema) return ValidateFlow(flow, batch.rows.schema());
  CDCLAKE_RETURN_IF_ERROR(ValidateFlow(flow, batch.rows.schema(), /*check_column_lists=*/false));
  ConformReport report;
  CDCLAKE_ASSIGN_OR_RETURN(change::ChangeBatch conformed,
                           ConformToDeclared(batch, *flow.declared_schema, true, &report));
  return ValidateFlow(flow, conformed.rows.schema());
}

ApplyCounts& ApplyCounts::operator+=(const ApplyCounts& o) {
  read += o.read;
  applied += o.applied;
  discarded += o.discarded;
  quarantined += o.quarantined;
  sequence_conflicts += o.sequence_conflicts;
  inserted += o.inserted;
  updated += o.updated;
  deleted += o.deleted;
  tombstones_purged += o.tombstones_purged;
  already_quarantined += o.already_quarantined;
  return *this;
}

Result<std::unique_ptr<Applier>> Applier::Open(io::FileSystem& fs, FlowDefinition flow,
                                               ApplyOptions options) {
  while (flow.target.size() > 1 && flow.target.back() == '/') flow.target.pop_back();
  if (flow.target.empty()) return Status::InvalidArgument("the flow has no target folder");
  std::shared_ptr<const delta::Snapshot> snapshot = options.snapshot;
  if (snapshot && snapshot->table_root() != flow.target) snapshot = nullptr;
  if (!snapshot) {
    CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, flow.target));
    if (exists) {
      CDCLAKE_ASSIGN_OR_RETURN(snapshot, delta::Snapshot::Load(fs, flow.target));
    }
  }
  if (snapshot) {
    std::string keys = snapshot->Property(kKeysProperty);
    if (!keys.empty() && keys != KeysPropertyValue(flow.keys)) {
      return Status::InvalidArgument(flow.target + " was created with KEYS " + keys +
                                     "; the flow says " + KeysPropertyValue(flow.keys));
    }
    // Properties the definition changed since the table was made take effect now (not the
    // pipeline's defaults: those only reach a table when it is created).
    std::map<std::string, std::string> declared = flow.table_properties;
    for (const std::string& key : flow.property_defaults) declared.erase(key);
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<int64_t> updated,
                             delta::UpdateTableProperties(fs, flow.target, *snapshot, declared));
    if (updated) {
      CDCLAKE_ASSIGN_OR_RETURN(snapshot, delta::Snapshot::Load(fs, flow.target, *updated));
    }
  }
  IndexRecovery recovery;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<KeyIndex> index,
                           OpenOrRecoverIndex(fs, flow.target, snapshot, options.persistent_index,
                                              &flow, /*force=*/false, &recovery));
  if (recovery.rebuilt) {
    std::string line = recovery.Describe(flow.target);
    if (options.notice) {
      options.notice(line);
    } else {
      std::fprintf(stderr, "cdclake: %s\n", line.c_str());
    }
  }
  auto applier = std::make_unique<ApplierImpl>(fs, std::move(flow), std::move(options),
                                               std::move(index), snapshot);
  CDCLAKE_RETURN_IF_ERROR(applier->LoadFiles());
  return std::unique_ptr<Applier>(std::move(applier));
}

}  // namespace cdclake::apply
