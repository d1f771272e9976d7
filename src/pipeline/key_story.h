// KeyStory: one key of a cdclake target told whole (`cdclake explain`) — its current rows, its
// state in the key index, the purge horizon and truncate that reach it, and, when a pipeline's
// AUTO CDC flow feeds the table from a bronze table, every bronze event of the key with what the
// engine did with it and in which table version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "io/file_system.h"
#include "pipeline/pipeline_plan.h"

namespace cdclake::pipeline {

/// What the engine did with one event (SEMANTICS §2, §3, §6).
enum class EventDecision {
  kApplied,         // it changed the key's state (and rows)
  kDiscardedOlder,  // older than what the key holds (a delete's tombstone included)
  kDuplicate,       // the same sequence and content as an event applied already
  kLostTie,         // same sequence as another event that wins (a delete, or larger values)
  kTruncated,       // at or below a truncate's sequence
  kQuarantined,     // set aside in the flow's quarantine table, with the reason
  kNotRead,         // after the position the flow has read to
};

/// "applied", "discarded as older", "duplicate", "lost a tie", "discarded by truncate",
/// "quarantined", "not read yet".
std::string_view DecisionName(EventDecision decision);

/// One bronze event of the key.
struct KeyEvent {
  std::string sequence;  // as text ("NULL" when NULL)
  std::string op;        // "upsert" or "delete"
  int64_t bronze_version = -1;
  std::string source;  // where bronze says the row came from: "<file>@<offset>"
  EventDecision decision = EventDecision::kNotRead;
  std::string detail;  // why, in words
  /// The target version whose commit recorded the flow's position past the event's bronze
  /// version (the batch that read it); nullopt when no commit did (a batch that changed
  /// nothing, a quarantined event, one not read yet).
  std::optional<int64_t> target_version;
  std::optional<int64_t> quarantine_version;  // the quarantine table's, for a quarantined event
};

/// The key's entry in the key index.
struct KeyIndexState {
  bool available = false;  // the index could be read
  std::string source;      // how it was read
  std::string problem;     // why the key index could not be used, or could not be read at all
  struct Event {
    std::string sequence;
    std::string kind;                     // "upsert" or "delete"
    std::optional<int64_t> processed_ms;  // deletes: when they were applied
    std::optional<int64_t> expires_ms;    // SCD1 tombstones: when they may be purged
  };
  std::vector<Event> events;  // empty: the index holds nothing for the key
  bool tombstone = false;     // SCD1: only the delete that removed the row
  std::string last_sequence;  // the largest sequence of `events`
  struct Location {
    std::string file;
    int64_t row = 0;
  };
  std::vector<Location> locations;
};

/// The table-wide state that reaches every key.
struct KeyHorizon {
  std::optional<std::string> purge_horizon;  // the largest purged tombstone's sequence
  bool late_events_quarantined = false;      // cdclake.lateEventPolicy = 'quarantine'
  std::optional<std::string> truncate;       // the last truncate's sequence
  std::optional<std::string> max_sequence;   // the largest sequence applied
  int64_t tombstone_seconds = 0;             // pipelines.cdc.tombstoneGCThresholdInSeconds
};

struct KeyStory {
  std::string table;  // the table's folder
  int64_t version = -1;
  int scd_type = 1;
  std::vector<std::pair<std::string, std::string>> key;  // in the table's key order
  data::RecordBatch rows;  // the key's rows now (SCD2: every version, by __START_AT)
  KeyIndexState index;
  KeyHorizon horizon;
  /// The flow whose bronze events were replayed ("" when none), its bronze table and folder.
  std::string flow;
  std::string bronze;
  std::string bronze_folder;
  std::string events_note;       // why events are not listed, or what limits them
  std::vector<KeyEvent> events;  // in sequence order (the engine's order of events)
  /// What the replay met: purged tombstones, a refreshed bronze, a state it did not reproduce.
  std::vector<std::string> notes;
};

struct KeyStoryOptions {
  /// A table folder, or a name (`c.s.t`, `s.t`, `t`) resolved against `warehouse`.
  std::string table;
  std::string warehouse = "lake";
  /// Column = value, for every key column (values as text, parsed to the column's type).
  std::vector<std::pair<std::string, std::string>> key;
  /// The pipeline that feeds the table, when known: its AUTO CDC flow into the table, reading a
  /// bronze table, has its events replayed.
  const PipelinePlan* plan = nullptr;
};

/// "col=value[,col=value]" as pairs. kInvalidArgument for a part without `=` or a name given twice.
Result<std::vector<std::pair<std::string, std::string>>> ParseKeyText(std::string_view text);

/// The story of one key of the cdclake target `options.table`, read without writing anything.
/// kNotFound when there is no such table; kInvalidArgument when it has no cdclake.keys property
/// or `options.key` does not name exactly its key columns or a value does not fit its column.
/// Problems reading the index or the bronze table are told in the story, not returned.
Result<KeyStory> TellKeyStory(const io::FileSystem& fs, const KeyStoryOptions& options);

/// The story as text: sections "row", "index", "horizon" and "events" (one line per event).
std::string KeyStoryText(const KeyStory& story);
/// The story as one JSON object (for scripts).
std::string KeyStoryJson(const KeyStory& story);

}  // namespace cdclake::pipeline
