// KeyEventReplay: a key's bronze events replayed batch by batch the way the AUTO CDC flow
// applied them — the engine's own ordering, tie and duplicate rules (apply/timeline.h), with
// the engine-wide state (truncate, purge horizon) and the key's state checked against each
// target commit's index-log entries. The events part of KeyStory (key_story.h).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "data/data_type.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "pipeline/key_story.h"
#include "pipeline/pipeline_plan.h"

namespace cdclake::pipeline {

struct KeyEventReplay {
  std::vector<KeyEvent> events;    // in the engine's order of events
  std::vector<std::string> notes;  // see KeyStory::notes
  std::string note;                // what limits the list (KeyStory::events_note)
};

/// An ordered encoding of a sequence (change/ordered_encoding.h) as text: the value of `type`
/// as `cdclake show` prints it, else hex.
std::string SequenceText(const std::string& encoded, const data::TypePtr& type);

/// Replays the events of `key` (its ordered encoding, as the key index spells it) that `flow`
/// (AUTO CDC from STREAM(<bronze table>)) read into `target`.
/// REQUIRES: flow.kind == kAutoCdc, flow.source.kind == kTable, !flow.source.changes.
Result<KeyEventReplay> ReplayKeyEvents(const io::FileSystem& fs, const FlowPlan& flow,
                                       const delta::Snapshot& target, const std::string& key);

}  // namespace cdclake::pipeline
