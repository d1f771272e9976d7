// Replaying one key's bronze events: read them as the flow reads them, cut them into the batches
// the target's commits record, and run each batch through the engine's timeline rules.
#include "pipeline/key_event_replay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <variant>

#include "apply/declared_columns.h"
#include "apply/index_log.h"
#include "apply/index_peek.h"
#include "apply/index_recovery.h"
#include "apply/key_state.h"
#include "apply/target_layout.h"
#include "apply/timeline.h"
#include "change/ordered_encoding.h"
#include "data/value_format.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "pipeline/bronze_columns.h"
#include "pipeline/flow_checkpoint.h"
#include "pipeline/flow_position.h"
#include "pipeline/select_transform.h"
#include "pipeline/table_stream.h"
#include "pipeline/version_row_names.h"

namespace cdclake::pipeline {
namespace {

using apply::EventKind;
using apply::KeyState;
using apply::StoredEvent;

// One bronze row of the key, as the applier would have met it.
struct Pending {
  int64_t bronze_version = -1;
  change::SourcePosition position;
  std::string null_sequence;  // the NULL sequence column, when the sequence is NULL
  StoredEvent event;          // seq, kind, values, partial
  std::optional<std::pair<std::string, int64_t>> quarantined;  // reason, quarantine version
  KeyEvent out;
};

// One commit of the target, as far as the replay needs it.
struct CommitFacts {
  int64_t version = -1;
  bool flow_batch = false;  // a batch of the flow, with a bronze position
  int64_t bronze_end = -1;  // its position: the last bronze version it read
  std::string bronze_id;    // the bronze table id the position is in ("" when not recorded)
  std::optional<std::string> index_log;
};

std::string PositionText(const change::SourcePosition& p) {
  return p.file + "@" + std::to_string(p.byte_offset);
}

// The bronze version a position JSON of `table` names, and the table id it records.
std::optional<std::pair<int64_t, std::string>> BronzeEnd(const json::Json& position,
                                                         const std::string& table) {
  if (!position.is_object() || !position.contains("table") || position["table"] != table ||
      !position.contains("version") || !position["version"].is_number_integer()) {
    return std::nullopt;
  }
  std::string id;
  if (position.contains("tableId") && position["tableId"].is_string()) {
    id = position["tableId"].get<std::string>();
  }
  return std::make_pair(position["version"].get<int64_t>(), id);
}

Result<std::vector<CommitFacts>> ReadCommits(const io::FileSystem& fs, const FlowPlan& flow,
                                             const delta::Snapshot& target) {
  std::vector<CommitFacts> out;
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::LogFile> commits,
                           delta::ListCommits(fs, target.table_root()));
  for (const delta::LogFile& file : commits) {
    if (file.version > target.version()) break;
    CDCLAKE_ASSIGN_OR_RETURN(std::string content,
                             fs.ReadFile(delta::CommitPath(target.table_root(), file.version)));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(content));
    CommitFacts facts;
    facts.version = file.version;
    for (const delta::Action& action : actions) {
      const auto* info = std::get_if<delta::CommitInfo>(&action);
      if (info == nullptr) continue;
      auto found = info->value.find("operationParameters");
      if (found == info->value.end() || !found->is_object()) continue;
      const json::Json& params = *found;
      if (params.contains(apply::kIndexLogParameter) &&
          params[apply::kIndexLogParameter].is_string()) {
        facts.index_log = params[apply::kIndexLogParameter].get<std::string>();
      }
      if (!params.contains(kFlowParameter) || params[kFlowParameter] != flow.name ||
          !params.contains(kPositionParameter) || !params[kPositionParameter].is_string()) {
        continue;
      }
      auto position = json::Parse(params[kPositionParameter].get<std::string>());
      if (!position.ok()) continue;
      if (auto end = BronzeEnd(*position, flow.source.table)) {
        facts.flow_batch = true;
        facts.bronze_end = end->first;
        facts.bronze_id = end->second;
      }
    }
    out.push_back(std::move(facts));
  }
  return out;
}

// The rows of one bronze version as the flow hands them to the applier: bronze columns back
// into positions, rows named by version, the flow's views and SELECT, the declared columns.
Result<change::ChangeBatch> FlowRows(const FlowPlan& flow, AppendedRows appended) {
  const int64_t n = appended.rows.num_rows();
  CDCLAKE_ASSIGN_OR_RETURN(change::ChangeBatch batch,
                           ChangeRowsFromTable(std::move(appended.rows)));
  NameRowsByVersion(flow.source.table,
                    std::vector<int64_t>(static_cast<size_t>(n), appended.version), &batch);
  for (const sql::SelectQuery& query : flow.source.transforms) {
    CDCLAKE_ASSIGN_OR_RETURN(batch, ApplySelect(query, std::move(batch)));
  }
  if (flow.flow.declared_schema) {
    apply::ConformReport report;
    CDCLAKE_ASSIGN_OR_RETURN(batch,
                             apply::ConformToDeclared(std::move(batch), *flow.flow.declared_schema,
                                                      /*keep_undeclared=*/true, &report,
                                                      flow.source.options.rescued_data_column));
  }
  return batch;
}

// Rows `picked` of `batch`, with their positions and unchanged marks.
change::ChangeBatch TakeRows(const change::ChangeBatch& batch, const std::vector<int64_t>& picked) {
  change::ChangeBatch out;
  std::vector<data::Column> columns;
  for (const data::Column& c : batch.rows.columns()) columns.push_back(c.Take(picked));
  out.rows = data::RecordBatch(batch.rows.schema(), std::move(columns));
  out.rows.set_num_rows(static_cast<int64_t>(picked.size()));
  for (int64_t r : picked) {
    const auto i = static_cast<size_t>(r);
    if (i < batch.positions.size()) {
      out.positions.AddFrom(batch.positions, i);
    } else {
      out.positions.push_back(change::SourcePosition());
    }
  }
  for (const std::vector<uint8_t>& marks : batch.unchanged) {
    std::vector<uint8_t> taken;
    for (int64_t r : picked) {
      const auto i = static_cast<size_t>(r);
      taken.push_back(i < marks.size() ? marks[i] : 0);
    }
    out.unchanged.push_back(std::move(taken));
  }
  return out;
}

// What reading the bronze table gives: the key's events and how to compare them.
struct KeyRows {
  std::vector<Pending> events;
  apply::TimelineSettings settings;
  data::TypePtr sequence_type;
};

// Every bronze row of `key`, version by version.
Result<KeyRows> ReadKeyRows(const io::FileSystem& fs, const FlowPlan& flow,
                            const delta::Snapshot& target, const std::string& key) {
  KeyRows out;
  CDCLAKE_ASSIGN_OR_RETURN(
      std::unique_ptr<TableStream> stream,
      TableStream::Open(fs, flow.source.table_folder, -1, flow.source.skip_change_commits));
  std::optional<apply::TargetLayout> layout;
  std::optional<data::Schema> layout_schema;
  const apply::FlowDefinition& def = flow.flow;
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<AppendedRows> next, stream->Next());
    if (!next) break;
    const int64_t version = next->version;
    CDCLAKE_ASSIGN_OR_RETURN(change::ChangeBatch batch, FlowRows(flow, std::move(*next)));
    const data::RecordBatch& rows = batch.rows;
    if (rows.num_rows() == 0) continue;
    if (!layout_schema || !(*layout_schema == rows.schema())) {
      CDCLAKE_RETURN_IF_ERROR(
          apply::ValidateFlow(def, rows.schema(), /*check_column_lists=*/false));
      CDCLAKE_ASSIGN_OR_RETURN(layout,
                               apply::TargetLayout::Make(def, rows.schema(), target.schema()));
      layout_schema = rows.schema();
      out.settings = layout->Settings(def);
      out.sequence_type = apply::SequenceType(def, rows.schema());
    }
    std::vector<uint8_t> truncates(static_cast<size_t>(rows.num_rows()), 0);
    if (def.truncate_when) {
      CDCLAKE_ASSIGN_OR_RETURN(truncates, data::EvaluatePredicate(*def.truncate_when, rows));
    }
    std::vector<int64_t> picked;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (truncates[static_cast<size_t>(r)] || layout->NullKeyColumn(rows, r)) continue;
      if (layout->EncodeKey(rows, r) == key) picked.push_back(r);
    }
    if (picked.empty()) continue;
    change::ChangeBatch mine = TakeRows(batch, picked);
    std::vector<uint8_t> deletes(picked.size(), 0);
    if (def.delete_when) {
      CDCLAKE_ASSIGN_OR_RETURN(deletes, data::EvaluatePredicate(*def.delete_when, mine.rows));
    }
    for (int64_t r = 0; r < mine.rows.num_rows(); ++r) {
      Pending p;
      p.bronze_version = version;
      p.position = mine.positions[static_cast<size_t>(r)];
      const bool is_delete = deletes[static_cast<size_t>(r)] != 0;
      p.event.kind = is_delete ? EventKind::kDelete : EventKind::kUpsert;
      if (auto null_sequence = layout->NullSequenceColumn(mine.rows, r)) {
        p.null_sequence = *null_sequence;
      } else {
        p.event.seq = layout->EncodeSequence(mine.rows, r);
        if (!is_delete) {
          p.event.values = layout->EncodeRowValues(mine.rows, mine.unchanged, r, &p.event.partial);
        }
      }
      p.out.bronze_version = version;
      p.out.source = PositionText(p.position);
      p.out.op = is_delete ? "delete" : "upsert";
      p.out.sequence =
          p.null_sequence.empty() ? SequenceText(p.event.seq, out.sequence_type) : "NULL";
      out.events.push_back(std::move(p));
    }
  }
  return out;
}

// Marks the events the flow's quarantine table holds (by the row's source file and offset).
Status FindQuarantined(const io::FileSystem& fs, const FlowPlan& flow,
                       std::vector<Pending>& events) {
  const std::string folder = flow.target_folder + "_quarantine";
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, folder));
  if (!exists || events.empty()) return Status::OK();
  std::map<std::pair<std::string, int64_t>, std::vector<Pending*>> by_position;
  for (Pending& p : events) by_position[{p.position.file, p.position.byte_offset}].push_back(&p);
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<TableStream> stream,
                           TableStream::Open(fs, folder, -1, /*skip_change_commits=*/true));
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<AppendedRows> next, stream->Next());
    if (!next) break;
    const data::RecordBatch& rows = next->rows;
    const data::Schema& schema = rows.schema();
    const int f = schema.FieldIndex("flow"), file = schema.FieldIndex("source_file");
    const int offset = schema.FieldIndex("source_offset"), reason = schema.FieldIndex("reason");
    if (f < 0 || file < 0 || offset < 0 || reason < 0) {
      return Status::Corrupt(folder +
                             ": not a quarantine table (flow, source_file, source_offset, "
                             "reason)");
    }
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const data::Column& flows = rows.column(static_cast<size_t>(f));
      const data::Column& files = rows.column(static_cast<size_t>(file));
      const data::Column& offsets = rows.column(static_cast<size_t>(offset));
      if (flows.IsNull(r) || flows.StringAt(r) != flow.name || files.IsNull(r) ||
          offsets.IsNull(r)) {
        continue;
      }
      auto it = by_position.find({std::string(files.StringAt(r)), offsets.GetValue(r).int_value()});
      if (it == by_position.end()) continue;
      const data::Column& reasons = rows.column(static_cast<size_t>(reason));
      for (Pending* p : it->second) {
        if (!p->quarantined) {
          p->quarantined.emplace(reasons.IsNull(r) ? "" : std::string(reasons.StringAt(r)),
                                 next->version);
        }
      }
    }
  }
  return Status::OK();
}

// The replay's engine-wide state and the key's state between batches.
struct ReplayState {
  KeyState key;
  std::optional<std::string> truncate;
  std::optional<std::string> horizon;
  bool late_quarantine = false;
  std::map<std::pair<std::string, EventKind>, int64_t> applied_in;  // event -> target version
};

// Where `a`'s events line up with `b`'s when the two hold the same timeline (sequences and
// kinds; values may be digests): 0, or, when `b`'s first events are archived (SCD2,
// apply/key_history.h) and `a` holds them all, the number of them; nullopt when they differ.
std::optional<size_t> TimelineOffset(const KeyState& a, const KeyState& b) {
  if (a.events.size() < b.events.size()) return std::nullopt;
  const size_t offset = a.events.size() - b.events.size();
  if (offset != 0 &&
      (b.archived->chunks == 0 || a.events[offset - 1].seq != b.archived->last_seq)) {
    return std::nullopt;
  }
  if (offset == 0 && b.archived->chunks != 0) return std::nullopt;
  for (size_t i = 0; i < b.events.size(); ++i) {
    if (a.events[offset + i].seq != b.events[i].seq ||
        a.events[offset + i].kind != b.events[i].kind) {
      return std::nullopt;
    }
  }
  return offset;
}

bool SameTimeline(const KeyState& a, const KeyState& b) {
  return TimelineOffset(a, b).has_value();
}

std::string TimelineText(const KeyState& state, const data::TypePtr& type) {
  if (state.events.empty()) return "no state";
  std::string out;
  for (const StoredEvent& e : state.events) {
    out += (out.empty() ? "" : ", ") +
           std::string(e.kind == EventKind::kDelete ? "delete at " : "upsert at ") +
           SequenceText(e.seq, type);
  }
  return out;
}

// Why InsertEvent left `state` as it was for `e` (SEMANTICS §2 ties and duplicates, §3 order).
void ClassifyUnchanged(const apply::InsertOutcome& outcome, const StoredEvent& e,
                       const KeyState& before, const ReplayState& replay, const data::TypePtr& type,
                       KeyEvent* out) {
  if (outcome.duplicate) {
    out->decision = EventDecision::kDuplicate;
    out->detail = "the same sequence and content as an event applied before";
    if (auto it = replay.applied_in.find({e.seq, e.kind}); it != replay.applied_in.end()) {
      out->detail += " (in version " + std::to_string(it->second) + ")";
    }
    return;
  }
  if (outcome.conflict) {
    out->decision = EventDecision::kLostTie;
    out->detail =
        "another upsert at the same sequence wins (its values sort last); counted as a "
        "sequence_conflict";
    return;
  }
  for (const StoredEvent& held : before.events) {
    if (held.seq == e.seq && held.kind == EventKind::kDelete && e.kind == EventKind::kUpsert) {
      out->decision = EventDecision::kLostTie;
      out->detail = "a delete at the same sequence wins";
      return;
    }
  }
  out->decision = EventDecision::kDiscardedOlder;
  if (before.events.empty()) return;
  // SCD1 keeps the events since its last delete: the newest one tells what it was older than.
  const StoredEvent& newest = before.events.back();
  const StoredEvent& first = before.events.front();
  if (first.kind == EventKind::kDelete && e.seq < first.seq) {
    out->detail = "older than the delete at " + SequenceText(first.seq, type) +
                  (before.IsTombstone() ? " (the key's tombstone)" : "");
  } else {
    out->detail = std::string("older than the ") +
                  (newest.kind == EventKind::kDelete ? "delete" : "upsert") + " at " +
                  SequenceText(newest.seq, type) + " applied before";
  }
}

// One batch of the flow: the key's events in it, in the engine's order, against the state.
void ReplayBatch(std::vector<Pending*> batch, const std::optional<std::string>& truncate,
                 std::optional<int64_t> version, const KeyRows& rows, ReplayState& replay) {
  std::stable_sort(batch.begin(), batch.end(), [](const Pending* a, const Pending* b) {
    return a->event < b->event;  // StoredEvent's order: sequence, kind, content
  });
  const bool had_state = !replay.key.events.empty();
  KeyState state = replay.key;
  std::vector<Pending*> applied;
  if (truncate) apply::DropThrough(*truncate, &state);
  for (Pending* p : batch) {
    KeyEvent& out = p->out;
    out.target_version = version;
    if (p->quarantined) {
      out.decision = EventDecision::kQuarantined;
      out.detail = p->quarantined->first;
      out.quarantine_version = p->quarantined->second;
      out.target_version.reset();
      continue;
    }
    if (!p->null_sequence.empty()) {
      out.decision = EventDecision::kQuarantined;
      out.detail = "NULL sequence: column '" + p->null_sequence + "' is NULL";
      out.target_version.reset();
      continue;
    }
    if (truncate && p->event.seq <= *truncate) {
      out.decision = EventDecision::kTruncated;
      out.detail = "at or below the truncate at " + SequenceText(*truncate, rows.sequence_type);
      continue;
    }
    // The applier's late-event check (cdclake.lateEventPolicy = 'quarantine', SEMANTICS §6).
    const bool unknown_state =
        !had_state || (state.events.size() == 1 && state.events[0].seq.empty());
    if (replay.late_quarantine && replay.horizon && unknown_state &&
        p->event.seq <= *replay.horizon) {
      out.decision = EventDecision::kQuarantined;
      out.detail = "late event: at or below the purge horizon and the key has no state";
      out.target_version.reset();
      continue;
    }
    const KeyState before = state;
    const StoredEvent& event = p->event;
    const apply::InsertOutcome outcome = apply::InsertEvent(rows.settings, event, &state);
    if (outcome.changed) {
      out.decision = EventDecision::kApplied;
      if (outcome.conflict) {
        out.detail =
            "won a tie with another upsert at the same sequence (its values sort last); "
            "counted as a sequence_conflict";
      } else if (event.kind == EventKind::kDelete &&
                 std::any_of(before.events.begin(), before.events.end(),
                             [&](const StoredEvent& e) { return e.seq == event.seq; })) {
        out.detail = "a delete wins a tie with an upsert at the same sequence";
      } else if (!before.events.empty() && event.seq < before.events.back().seq) {
        out.detail = "late: placed before the sequence " +
                     SequenceText(before.events.back().seq, rows.sequence_type) +
                     " already applied";
      }
      if (version) replay.applied_in[{event.seq, event.kind}] = *version;
      applied.push_back(p);
    } else {
      ClassifyUnchanged(outcome, event, before, replay, rows.sequence_type, &out);
    }
  }
  // SCD1 keeps only what can still matter: an event applied and then overtaken by a later one of
  // the same batch is said so (it changed the state, as the engine counts it, but not the row).
  if (rows.settings.scd_type == apply::ScdType::kType1 && !state.events.empty()) {
    const StoredEvent& last = state.events.back();
    for (Pending* p : applied) {
      const bool kept = std::any_of(state.events.begin(), state.events.end(), [&](const auto& e) {
        return e.seq == p->event.seq && e.kind == p->event.kind;
      });
      if (kept) continue;
      KeyEvent& out = p->out;
      out.detail += out.detail.empty() ? "" : "; ";
      out.detail += std::string("overtaken in the same batch by the ") +
                    (last.kind == EventKind::kDelete ? "delete" : "upsert") + " at " +
                    SequenceText(last.seq, rows.sequence_type);
    }
  }
  replay.key = std::move(state);
}

// The entries of commit `facts`' index-log file (`batch`) the replay needs, applied after its
// batch: the key's state as the engine recorded it, the truncate and the purge horizon.
void SyncWithIndexLog(const CommitFacts& facts, const apply::IndexWriteBatch* batch,
                      const std::string& entry, const KeyState& before, const KeyRows& rows,
                      ReplayState& replay, KeyEventReplay& out) {
  if (batch == nullptr) return;
  std::optional<std::optional<std::string>> state;  // put value, or nullopt for a delete
  for (const auto& [k, v] : batch->puts) {
    if (k == entry) state = v;
    if (k == apply::kTruncateKey) replay.truncate = v;
    if (k == apply::kHorizonKey) replay.horizon = v;
  }
  for (const std::string& k : batch->deletes) {
    if (k == entry) state = std::optional<std::string>();
  }
  const std::string at = "version " + std::to_string(facts.version) + ": ";
  if (!state) {
    if (facts.flow_batch && !SameTimeline(before, replay.key)) {
      out.notes.push_back(at + "the replay changed the key's state to " +
                          TimelineText(replay.key, rows.sequence_type) +
                          " but the engine recorded no change; the replay goes on from " +
                          TimelineText(before, rows.sequence_type));
      replay.key = before;
    }
    return;
  }
  if (!*state) {
    if (replay.key.IsTombstone()) {
      out.notes.push_back(at + "the key's tombstone (the delete at " +
                          SequenceText(replay.key.events[0].seq, rows.sequence_type) +
                          ") expired and was purged; a later event for the key is new to it");
    } else if (!replay.key.events.empty()) {
      out.notes.push_back(at + "the key's state (" + TimelineText(replay.key, rows.sequence_type) +
                          ") was removed");
    }
    replay.key = KeyState();
    return;
  }
  auto recorded = apply::ParseKeyState(**state);
  if (!recorded.ok()) return;
  if (std::optional<size_t> offset = TimelineOffset(replay.key, *recorded)) {
    // The replay's values are whole (the index may hold a digest); times are the engine's.
    for (size_t i = 0; i < recorded->events.size(); ++i) {
      replay.key.events[*offset + i].processed_ms = recorded->events[i].processed_ms;
    }
    // The rows of archived versions are in the archive's chunks; the replay keeps its own.
    if (recorded->archived->chunks == 0) replay.key.locations = recorded->locations;
    return;
  }
  // An SCD2 state with archived events holds only the last ones: the replay cannot go on from
  // it, and keeps its own.
  const bool partial = recorded->archived->chunks > 0;
  out.notes.push_back(at + "the engine's state of the key is " +
                      TimelineText(*recorded, rows.sequence_type) +
                      (partial ? " after its archived events" : "") + ", the replay's " +
                      TimelineText(replay.key, rows.sequence_type) + "; the replay goes on from " +
                      (partial ? "its own" : "the engine's"));
  if (!partial) replay.key = std::move(*recorded);
}

// How far the flow has read without a target commit recording it: a batch that changed nothing
// (RecordUnchangedPosition) or only quarantined (the quarantine table's commit).
Result<int64_t> ReadPastCommits(const io::FileSystem& fs, const FlowPlan& flow,
                                const std::string& bronze_id) {
  int64_t read = -1;
  const std::string quarantine = flow.target_folder + "_quarantine";
  auto consider = [&](const json::Json& position) {
    if (auto end = BronzeEnd(position, flow.source.table)) {
      if (end->second.empty() || end->second == bronze_id) read = std::max(read, end->first);
    }
  };
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<json::Json> unchanged,
                           FindUnchangedPosition(fs, flow.target_folder, quarantine, flow.name));
  if (unchanged) consider(*unchanged);
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> commit,
                           FindFlowCommit(fs, quarantine, flow.name));
  if (commit) consider(commit->position);
  return read;
}

}  // namespace

std::string SequenceText(const std::string& encoded, const data::TypePtr& type) {
  if (type) {
    std::string_view in = encoded;
    if (auto value = change::ReadOrdered(&in, *type); value.ok() && in.empty()) {
      return value->is_null() ? "NULL" : data::FormatValueText(*value, *type);
    }
  }
  if (encoded.empty()) return "unknown (a state rebuilt from a row without its sequence)";
  std::string hex = "0x";
  for (unsigned char c : encoded) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

Result<KeyEventReplay> ReplayKeyEvents(const io::FileSystem& fs, const FlowPlan& flow,
                                       const delta::Snapshot& target, const std::string& key) {
  KeyEventReplay out;
  CDCLAKE_ASSIGN_OR_RETURN(bool bronze_exists, delta::TableExists(fs, flow.source.table_folder));
  if (!bronze_exists) {
    out.note = "the bronze table " + flow.source.table_folder + " does not exist";
    return out;
  }
  CDCLAKE_ASSIGN_OR_RETURN(auto bronze, delta::Snapshot::Load(fs, flow.source.table_folder));
  const std::string bronze_id = bronze->metadata().id;
  CDCLAKE_ASSIGN_OR_RETURN(KeyRows rows, ReadKeyRows(fs, flow, target, key));
  CDCLAKE_RETURN_IF_ERROR(FindQuarantined(fs, flow, rows.events));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<CommitFacts> commits, ReadCommits(fs, flow, target));

  ReplayState replay;
  replay.late_quarantine = target.Property("cdclake.lateEventPolicy") == "quarantine";
  const std::string entry = apply::KeyStateEntry(key);
  std::vector<bool> done(rows.events.size(), false);
  int64_t read_to = -1;  // the last bronze version of the batches replayed so far
  bool warned_log = false;
  bool warned_refresh = false;
  bool warned_reread = false;
  if (!commits.empty() && commits.front().version > 0) {
    out.notes.push_back("the target's log starts at version " +
                        std::to_string(commits.front().version) +
                        " (earlier commits were cleaned up): the batches before it are not "
                        "known, so the replay starts there without the key's earlier state");
  }
  for (const CommitFacts& facts : commits) {
    const KeyState before = replay.key;
    std::optional<apply::IndexWriteBatch> log;
    if (facts.index_log) {
      auto read = apply::ReadIndexLog(fs, target.table_root(), *facts.index_log);
      if (read.ok()) {
        log = std::move(*read);
      } else if (!warned_log) {
        out.notes.push_back("version " + std::to_string(facts.version) +
                            ": its index-log file cannot be read (" + read.status().message() +
                            "); the replay goes on without checking the key's state there");
        warned_log = true;
      }
    }
    if (facts.flow_batch && !facts.bronze_id.empty() && facts.bronze_id != bronze_id) {
      // A position in an earlier table of that name: its events are gone with it.
      if (!warned_refresh) {
        out.notes.push_back("version " + std::to_string(facts.version) +
                            " and others read an earlier table " + flow.source.table +
                            " (since refreshed, a new table id); its events are not listed");
        warned_refresh = true;
      }
      read_to = -1;
    } else if (facts.flow_batch) {
      // A position at or below the last one: the flow read its source again from the start.
      const int64_t from = facts.bronze_end <= read_to ? -1 : read_to;
      std::vector<Pending*> batch;
      for (size_t i = 0; i < rows.events.size(); ++i) {
        Pending& p = rows.events[i];
        if (p.bronze_version > from && p.bronze_version <= facts.bronze_end) {
          if (done[i] && !warned_reread) {
            warned_reread = true;
            out.notes.push_back("bronze version " + std::to_string(p.bronze_version) +
                                " was read again by version " + std::to_string(facts.version) +
                                "; its events show their last reading");
          }
          batch.push_back(&p);
          done[i] = true;
        }
      }
      // The truncate this batch raised (its index-log entry) reached its own events too.
      std::optional<std::string> truncate = replay.truncate;
      if (log) {
        for (const auto& [k, v] : log->puts) {
          if (k == apply::kTruncateKey) truncate = v;
        }
      }
      ReplayBatch(std::move(batch), truncate, facts.version, rows, replay);
      read_to = facts.bronze_end;
    }
    SyncWithIndexLog(facts, log ? &*log : nullptr, entry, before, rows, replay, out);
  }
  // After the last commit: batches that changed nothing, then what the flow has not read.
  CDCLAKE_ASSIGN_OR_RETURN(int64_t read_past, ReadPastCommits(fs, flow, bronze_id));
  std::vector<Pending*> unwritten;
  for (size_t i = 0; i < rows.events.size(); ++i) {
    Pending& p = rows.events[i];
    if (done[i]) continue;
    if (p.bronze_version <= read_past) {
      unwritten.push_back(&p);
    } else {
      p.out.decision = p.quarantined ? EventDecision::kQuarantined : EventDecision::kNotRead;
      p.out.detail = p.quarantined ? p.quarantined->first
                                   : "after the position the flow has read to (bronze version " +
                                         std::to_string(std::max(read_to, read_past)) + ")";
      if (p.quarantined) p.out.quarantine_version = p.quarantined->second;
    }
  }
  ReplayBatch(unwritten, replay.truncate, std::nullopt, rows, replay);
  for (Pending* p : unwritten) {
    if (p->out.decision != EventDecision::kQuarantined) {
      p->out.detail += p->out.detail.empty() ? "" : "; ";
      p->out.detail += "its batch changed nothing, so no version was written";
    }
  }
  // The engine's order: sequence, kind, content; NULL sequences last; then arrival.
  std::vector<size_t> order(rows.events.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Pending& x = rows.events[a];
    const Pending& y = rows.events[b];
    if (x.null_sequence.empty() != y.null_sequence.empty()) return x.null_sequence.empty();
    if (x.event < y.event) return true;
    if (y.event < x.event) return false;
    return x.bronze_version < y.bronze_version;
  });
  for (size_t i : order) out.events.push_back(std::move(rows.events[i].out));
  return out;
}

}  // namespace cdclake::pipeline
