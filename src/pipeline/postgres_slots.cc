// PostgresSlots: the plan's flows grouped by the slot they read, one SharedSlot per group and
// pass.
#include "pipeline/postgres_slots.h"

#include <algorithm>

namespace cdclake::pipeline {

PostgresSlots::PostgresSlots(const PipelinePlan& plan, int64_t max_changes) {
  std::map<Key, Group> all;
  for (const FlowPlan& flow : plan.flows) {
    if (flow.source.kind != SourcePlan::Kind::kPostgres) continue;
    const sources::postgres::PgTableSpec& pg = flow.source.postgres;
    Group& g = all[{pg.connection, pg.slot}];
    g.spec.connection = pg.connection;
    g.spec.slot = pg.slot;
    g.spec.max_changes = max_changes;
    g.spec.status_interval_ms = pg.status_interval_ms;
    std::vector<std::string>& pubs = g.spec.publications;
    if (std::find(pubs.begin(), pubs.end(), pg.publication) == pubs.end()) {
      pubs.push_back(pg.publication);
    }
    // The first flow's table keeps the files; the smallest budget of the slot's flows holds.
    if (g.flows.empty()) {
      g.spec.spill = pg.spill;
    } else {
      g.spec.spill.memory_bytes = std::min(g.spec.spill.memory_bytes, pg.spill.memory_bytes);
    }
    g.flows.push_back(flow.name);
    g.spec.readers = static_cast<int>(g.flows.size());
  }
  for (auto& [key, group] : all) {
    if (group.flows.size() > 1) groups_.emplace(key, std::move(group));
  }
}

void PostgresSlots::StartPass() {
  for (auto& [key, group] : groups_) {
    group.spec.stop_at =
        group.slot && group.slot->more() && group.moved ? group.slot->stop_at() : 0;
    group.slot.reset();
    group.moved = false;
  }
}

sources::postgres::SharedSlot* PostgresSlots::For(const SourcePlan& source) {
  if (source.kind != SourcePlan::Kind::kPostgres) return nullptr;
  auto it = groups_.find({source.postgres.connection, source.postgres.slot});
  if (it == groups_.end()) return nullptr;
  Group& g = it->second;
  if (!g.slot) g.slot = std::make_unique<sources::postgres::SharedSlot>(g.spec);
  return g.slot.get();
}

std::vector<PostgresSlots::Ended> PostgresSlots::EndPass() {
  std::vector<Ended> out;
  for (auto& [key, group] : groups_) {
    if (!group.slot) continue;  // no flow of it ran this pass
    out.push_back({group.flows, group.slot->Advance()});
    group.moved = out.back().what.ok();
  }
  return out;
}

bool PostgresSlots::more() const {
  return std::any_of(groups_.begin(), groups_.end(), [](const auto& g) {
    return g.second.slot && g.second.slot->more() && g.second.moved;
  });
}

}  // namespace cdclake::pipeline
