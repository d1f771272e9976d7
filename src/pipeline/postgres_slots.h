// PostgresSlots: the replication slots a pass of a pipeline reads for more than one flow. Flows
// whose read_postgres names the same connection and slot share one SharedSlot per pass: its
// stream is read once for all of them, and the slot moves on at the pass's end to the lowest
// position their tables hold. A slot named by one flow only is that flow's alone, as before.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/pipeline_plan.h"
#include "sources/postgres/shared_slot.h"

namespace cdclake::pipeline {

class PostgresSlots {
 public:
  /// The plan's slots named by more than one flow; a pass reads at most `max_changes` changes
  /// of each (SharedSlot::Spec::max_changes).
  PostgresSlots(const PipelinePlan& plan, int64_t max_changes);

  /// Before each pass: the slots of the last pass are done with. A slot that stopped at
  /// max_changes is read on to where it meant to stop (SharedSlot::Spec::stop_at).
  void StartPass();

  /// The shared slot `source` reads this pass; nullptr when no other flow names it.
  sources::postgres::SharedSlot* For(const SourcePlan& source);

  /// At the end of a pass: each shared slot moved on (SharedSlot::Advance); for each, the flows
  /// reading it and what happened, or the error.
  struct Ended {
    std::vector<std::string> flows;
    Result<std::string> what;
  };
  std::vector<Ended> EndPass();

  /// A shared slot stopped reading at max_changes this pass and moved on at its end: another
  /// pass goes on. (One that could not move would read the same changes again.)
  bool more() const;

 private:
  using Key = std::pair<std::string, std::string>;  // connection, slot
  struct Group {
    sources::postgres::SharedSlot::Spec spec;
    std::vector<std::string> flows;
    std::unique_ptr<sources::postgres::SharedSlot> slot;  // made when a flow first asks
    bool moved = false;                                   // the pass's end moved the slot (EndPass)
  };
  std::map<Key, Group> groups_;
};

}  // namespace cdclake::pipeline
