// PipelineRunner: passes over the plan's flows, refreshes, failure isolation and the event log.
#include "pipeline/pipeline_runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <unistd.h>

#include "base/crash_point.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "pipeline/event_log.h"
#include "sources/input_discovery.h"

namespace cdclake::pipeline {

namespace {

// A read_files glob that matched no file on the run's first pass is worth a word: it is
// normal for a stream not written yet, and also what a misspelled path looks like.
void WarnOfEmptyGlob(const io::FileSystem& fs, const FlowPlan& flow, FlowSummary* summary) {
  if (flow.source.kind != SourcePlan::Kind::kFiles || !sources::HasGlob(flow.source.pattern)) {
    return;
  }
  auto listing = sources::DiscoverInputs(fs, flow.source.pattern);
  if (listing.ok() && listing->files.empty()) {
    summary->warnings.push_back("flow " + flow.name + ": read_files('" + flow.source.pattern +
                                "') matches no file");
  }
}

// The pause before a failed flow's next try: retry_min_ms doubled per failure in a row.
int64_t RetryPause(const PipelineRunOptions& options, int64_t failures_in_row) {
  int64_t pause = options.retry_min_ms;
  for (int64_t i = 1; i < failures_in_row && pause < options.retry_max_ms; ++i) pause *= 2;
  return std::min(pause, options.retry_max_ms);
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Where a folder goes while a full refresh removes it: a hidden sibling, so that a run killed
// while removing leaves the table whole or gone, never a log whose first versions are deleted.
std::string SetAside(const std::string& folder) {
  const std::filesystem::path path(folder);
  return (path.parent_path() / ("." + path.filename().string() + ".removing")).string();
}

// Removes a table's folder and its quarantine table's, so its flows start over: both are
// renamed aside, the table first, before either is deleted, so a kill leaves the pair whole,
// or the table aside (FinishRemovals then sets the quarantine aside too), or both aside.
Status RemoveTable(const std::string& folder) {
  const auto local = io::LocalFileSystem::Instance();
  const std::vector<std::string> pair = {folder, folder + "_quarantine"};
  for (const std::string& f : pair) {
    CDCLAKE_RETURN_IF_ERROR(local->DeleteTree(SetAside(f)).WithContext("full refresh"));
  }
  for (const std::string& f : pair) {
    CDCLAKE_ASSIGN_OR_RETURN(const bool exists, local->Exists(f));
    if (exists) {
      CDCLAKE_RETURN_IF_ERROR(local->Rename(f, SetAside(f)).WithContext("full refresh"));
    }
    if (f == folder) CrashPoint("full-refresh-table-aside");
  }
  for (const std::string& f : pair) {
    CDCLAKE_RETURN_IF_ERROR(local->DeleteTree(SetAside(f)).WithContext("full refresh"));
  }
  return Status::OK();
}

// What a run killed while refreshing left: a table set aside whose quarantine table was not
// yet is set aside with it (the quarantine of the old table beside a rebuilt one would keep
// its records from being quarantined again); then everything aside is deleted.
Status FinishRemovals(const PipelinePlan& plan) {
  const auto local = io::LocalFileSystem::Instance();
  for (const auto& [name, folder] : plan.tables) {
    const std::string quarantine = folder + "_quarantine";
    CDCLAKE_ASSIGN_OR_RETURN(const bool aside, local->Exists(SetAside(folder)));
    CDCLAKE_ASSIGN_OR_RETURN(const bool whole, local->Exists(folder));
    CDCLAKE_ASSIGN_OR_RETURN(const bool quarantined, local->Exists(quarantine));
    if (aside && !whole && quarantined) {
      CDCLAKE_RETURN_IF_ERROR(
          local->Rename(quarantine, SetAside(quarantine)).WithContext("full refresh"));
    }
    for (const std::string& f : {folder, quarantine}) {
      CDCLAKE_RETURN_IF_ERROR(local->DeleteTree(SetAside(f)).WithContext("full refresh"));
    }
  }
  return Status::OK();
}

// The tables a refresh of `refresh` must refresh too: those with a flow appending one of
// them (STREAM(t)) or reading its changes (table_changes), whose positions are versions of a
// table that is about to start again at version 0, with keys it removes getting no delete;
// transitively. Each added table's reason goes to `notes`. A such table that another flow
// fills from files or a live source is refreshed only when `named`: a refresh reads those again
// from what is there now, which may be less than what the table holds. Unnamed, it is
// kInvalidArgument, or with `all` (--full-refresh without names, which leaves such tables out)
// it is left out and said in `notes` (its flow then stops, saying to refresh it).
Status AddReaders(const PipelinePlan& plan, const std::vector<std::string>& named, bool all,
                  std::vector<std::string>* refresh, std::vector<std::string>* notes) {
  for (size_t i = 0; i < refresh->size(); ++i) {
    const std::string upstream = (*refresh)[i];
    for (const FlowPlan& f : plan.flows) {
      // An AUTO CDC flow over a table's rows reads a rebuilt table again from its start, its
      // sequence guards making the rows read twice harmless (docs/pipelines.md, "Lineage").
      const bool follows = f.source.changes || f.kind == FlowPlan::Kind::kIngest;
      if (!follows || f.source.kind != SourcePlan::Kind::kTable || f.source.table != upstream ||
          Contains(*refresh, f.target)) {
        continue;
      }
      const FlowPlan* live = nullptr;
      for (const FlowPlan& other : plan.flows) {
        if (other.target == f.target && other.source.kind != SourcePlan::Kind::kTable &&
            !Contains(named, f.target)) {
          live = &other;
        }
      }
      if (live != nullptr && all) {
        if (notes != nullptr) {
          notes->push_back("not refreshing " + f.target + ", which reads " + upstream + " (flow " +
                           f.name + "): its flow " + live->name + " reads " +
                           live->source.Describe() + "; refresh it by name (--full-refresh " +
                           f.target + ")");
        }
        continue;
      }
      if (live != nullptr) {
        const FlowPlan& other = *live;
        return Status::InvalidArgument(
            "--full-refresh: " + f.target + " reads " + upstream + " (flow " + f.name +
            "), which is refreshed in full, so it must be refreshed too; but its flow " +
            other.name + " reads " + other.source.Describe() +
            ", which a refresh reads again from what is there now: name " + f.target +
            " in --full-refresh to refresh it anyway");
      }
      refresh->push_back(f.target);
      if (notes != nullptr) {
        notes->push_back("full refresh of " + f.target + " too: its flow " + f.name + " reads " +
                         (f.source.changes ? "the changes of " : "") + upstream +
                         ", which is refreshed in full (its versions start again at 0)");
      }
    }
  }
  return Status::OK();
}

// `refresh` in the order to remove its tables: a table before those it reads (the plan's
// flows are in dependency order), so a run killed in between leaves no reader behind a table
// that was rebuilt.
std::vector<std::string> RemovalOrder(const PipelinePlan& plan, std::vector<std::string> refresh) {
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < plan.flows.size(); ++i) last[plan.flows[i].target] = i;
  std::stable_sort(refresh.begin(), refresh.end(),
                   [&](const std::string& a, const std::string& b) { return last[a] > last[b]; });
  return refresh;
}

EventLogEntry EntryOf(const FlowBatchReport& r, const std::string& run_id, int64_t now_ms) {
  EventLogEntry e;
  e.time_ms = now_ms;
  e.run_id = run_id;
  e.flow = r.flow;
  e.target = r.target;
  e.input_from = r.input_from;
  e.input_to = r.input_to;
  e.rows_read = r.counts.read;
  e.rows_applied = r.counts.applied;
  e.rows_discarded = r.counts.discarded;
  e.rows_quarantined = r.counts.quarantined;
  e.rows_inserted = r.counts.inserted;
  e.rows_updated = r.counts.updated;
  e.rows_deleted = r.counts.deleted;
  e.table_version = r.table_version;
  e.duration_ms = r.duration_ms;
  e.status = r.table_version ? "ok" : "no change";
  e.table_id = r.table_id;
  e.input_table_id = r.input_table_id;
  if (!r.expectations.empty()) {
    e.data_quality =
        json::Dump(DataQualityJson(r.target, r.expectations, r.dropped_by_expectations));
  }
  return e;
}

}  // namespace

bool PipelineRunSummary::failed() const {
  return std::any_of(flows.begin(), flows.end(),
                     [](const FlowSummary& f) { return !f.status.ok() || f.upstream_failed; });
}

Status CheckSources(io::FileSystem& fs, const PipelinePlan& plan,
                    const std::vector<std::string>& refreshed) {
  for (const FlowPlan& flow : plan.flows) {
    // A refreshed target exists until the run empties it; its first batch checks it then.
    if (std::find(refreshed.begin(), refreshed.end(), flow.target) != refreshed.end()) continue;
    CDCLAKE_RETURN_IF_ERROR(CheckNewFlowColumns(fs, flow));
  }
  return Status::OK();
}

Result<std::vector<std::string>> TablesToRefresh(const PipelinePlan& plan,
                                                 const Warehouse& warehouse,
                                                 const PipelineRunOptions& options,
                                                 std::vector<std::string>* notes) {
  std::vector<std::string> out;
  for (const std::string& name : options.full_refresh) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string canonical, warehouse.CanonicalName(name));
    if (plan.tables.count(canonical) == 0) {
      return Status::InvalidArgument("--full-refresh " + name +
                                     ": the pipeline defines no such table");
    }
    if (!Contains(out, canonical)) out.push_back(canonical);
  }
  if (options.full_refresh_all) {
    // A table any of whose flows reads files, Kafka or PostgreSQL is left alone: it is not
    // computed from other tables, and those files or messages may be gone.
    std::set<std::string> fed_by_files;
    for (const FlowPlan& f : plan.flows) {
      if (f.source.kind != SourcePlan::Kind::kTable) fed_by_files.insert(f.target);
    }
    for (const FlowPlan& f : plan.flows) {
      if (fed_by_files.count(f.target) == 0 && !Contains(out, f.target)) out.push_back(f.target);
    }
  }
  std::vector<std::string> named;
  for (const std::string& name : options.full_refresh) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string canonical, warehouse.CanonicalName(name));
    named.push_back(std::move(canonical));
  }
  CDCLAKE_RETURN_IF_ERROR(AddReaders(plan, named, options.full_refresh_all, &out, notes));
  return out;
}

PipelineRunSummary RunPipeline(io::FileSystem& fs, const PipelinePlan& plan,
                               const Warehouse& warehouse, const PipelineRunOptions& options) {
  PipelineRunSummary summary;
  for (const FlowPlan& f : plan.flows) summary.flows.push_back({f.name, f.target, {}, {}, {}, {}});
  auto now_ms = [&] { return options.clock_ms ? options.clock_ms() : delta::NowMillis(); };
  auto stop = [&] { return options.stop_requested && options.stop_requested(); };

  auto refresh = TablesToRefresh(plan, warehouse, options);
  std::vector<std::string> refreshed;
  if (!refresh.ok()) {
    for (FlowSummary& f : summary.flows) f.status = refresh.status();
    return summary;
  }
  // Readers first; a removal that fails stops the rest, so no table is rebuilt under a reader
  // that still holds a position in it (their flows fail, naming the error).
  if (Status finished = FinishRemovals(plan); !finished.ok()) {
    for (FlowSummary& f : summary.flows) f.status = finished;
    return summary;
  }
  Status removals;
  const std::vector<std::string> order = RemovalOrder(plan, *refresh);
  for (size_t i = 0; i < order.size(); ++i) {
    removals = RemoveTable(plan.tables.at(order[i]));
    if (!removals.ok()) {
      const std::vector<std::string> left(order.begin() + static_cast<std::ptrdiff_t>(i),
                                          order.end());
      for (FlowSummary& f : summary.flows) {
        if (Contains(left, f.target)) f.status = removals;
      }
      break;
    }
    refreshed.push_back(order[i]);
    CrashPoint("full-refresh-table-removed");
  }

  std::vector<std::string> reset = options.reset_positions;
  for (const std::string& name : reset) {
    bool known = false;
    for (const FlowPlan& f : plan.flows) known = known || f.name == name;
    if (known) continue;
    std::string names;
    for (const FlowPlan& f : plan.flows) names += (names.empty() ? "" : ", ") + f.name;
    Status unknown = Status::InvalidArgument("--reset-position " + name +
                                             ": the pipeline has no flow of that name (its "
                                             "flows: " +
                                             names + ")");
    for (FlowSummary& f : summary.flows) f.status = unknown;
    return summary;
  }

  const std::string event_log = EventLogFolder(warehouse.root());
  // A pass holds what it reads of a shared slot for its flows: a few batches' worth at most.
  PostgresSlots slots(plan, std::max<int64_t>(options.batch_rows * 4, 1000));
  while (true) {
    ++summary.passes;
    slots.StartPass();
    bool found_any = false;
    std::set<std::string> failed_tables;
    // The pass's event-log rows, written in one commit after the pass.
    std::vector<EventLogEntry> entries;
    std::vector<size_t> logged_flows;
    for (size_t i = 0; i < plan.flows.size(); ++i) {
      const FlowPlan& flow = plan.flows[i];
      FlowSummary& fs_summary = summary.flows[i];
      if (!fs_summary.status.ok()) {
        if (options.retry_min_ms <= 0 || now_ms() < fs_summary.retry_at_ms) {
          failed_tables.insert(flow.target);
          continue;
        }
        fs_summary.status = Status::OK();  // its pause is over: try again
      }
      if (flow.source.kind == SourcePlan::Kind::kTable &&
          failed_tables.count(flow.source.table) > 0) {
        fs_summary.skipped = "upstream table " + flow.source.table + " failed";
        fs_summary.upstream_failed = true;
        failed_tables.insert(flow.target);
        continue;
      }
      if (fs_summary.upstream_failed) {
        fs_summary.skipped.clear();
        fs_summary.upstream_failed = false;
      }
      if (stop()) break;
      FlowExecution execution;
      execution.batch_rows = options.batch_rows;
      execution.clock_ms = options.clock_ms;
      execution.persistent_index = options.persistent_index;
      execution.full_refresh = Contains(refreshed, flow.target);
      execution.reset_position = Contains(reset, flow.name);
      execution.postgres_slots = &slots;
      execution.on_batch = [&](const FlowBatchReport& r) {
        entries.push_back(EntryOf(r, options.run_id, now_ms()));
        for (const SchemaChange& change : r.schema_changes) {
          EventLogEntry e;
          e.time_ms = now_ms();
          e.run_id = options.run_id;
          e.flow = r.flow;
          e.target = r.target;
          e.table_version = r.table_version;
          e.status = "ok";
          e.event_type = "schema_change";
          e.message = change.Text();
          e.details = json::Dump(change.ToJson());
          e.table_id = r.table_id;
          entries.push_back(std::move(e));
        }
        if (options.on_batch) options.on_batch(r);
      };
      FlowOutcome outcome;
      Status status = ExecuteFlow(fs, flow, execution, &outcome);
      if (outcome.skipped) fs_summary.skipped = "ONCE: ran before";
      if (outcome.batches > 0) found_any = true;
      FlowOutcome& total = fs_summary.outcome;
      total.batches += outcome.batches;
      total.counts += outcome.counts;
      total.files += outcome.files;
      total.versions.insert(total.versions.end(), outcome.versions.begin(), outcome.versions.end());
      total.source_counts = outcome.source_counts;
      AddExpectationCounts(outcome.expectations, &total.expectations);
      total.pending = outcome.pending;
      total.notices.insert(total.notices.end(), outcome.notices.begin(), outcome.notices.end());
      if (total.input_from.empty()) total.input_from = outcome.input_from;
      total.input_to = outcome.input_to;
      if (!outcome.source_lag.empty()) {
        total.source_lag = outcome.source_lag;
        // The event log has it on the flow's last batch of this pass.
        for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
          if (e->flow != flow.name) continue;
          e->source_lag = outcome.source_lag;
          break;
        }
      }
      if (status.ok() && summary.passes == 1 && outcome.files == 0) {
        WarnOfEmptyGlob(fs, flow, &fs_summary);
      }
      if (!status.ok()) {
        EventLogEntry failed;
        failed.time_ms = now_ms();
        failed.run_id = options.run_id;
        failed.flow = flow.name;
        failed.target = flow.target;
        failed.input_from = outcome.input_to;
        failed.status = "failed";
        failed.message = status.ToString();
        entries.push_back(failed);
        for (const SchemaChange& change : outcome.blocked) {
          EventLogEntry e = failed;
          e.event_type = "schema_change";
          e.message = change.Text();
          e.details = json::Dump(change.ToJson());
          entries.push_back(std::move(e));
        }
      }
      logged_flows.push_back(i);
      if (!status.ok()) {
        fs_summary.status = status.WithContext("flow " + flow.name);
        failed_tables.insert(flow.target);
        ++fs_summary.failures_in_row;
        fs_summary.retry_at_ms = now_ms() + RetryPause(options, fs_summary.failures_in_row);
        if (options.on_flow_error) options.on_flow_error(flow.name, fs_summary.status);
      } else {
        fs_summary.failures_in_row = 0;
      }
    }
    for (PostgresSlots::Ended& ended : slots.EndPass()) {
      if (ended.what.ok()) continue;
      // Said once per run: the slot keeps its WAL until every flow reading it has gone on.
      const std::string warning = ended.what.status().message();
      for (FlowSummary& f : summary.flows) {
        if (!Contains(ended.flows, f.flow) || Contains(f.warnings, warning)) continue;
        f.warnings.push_back(warning);
      }
    }
    Status logged = AppendEventLog(fs, event_log, entries).status();
    if (!logged.ok()) {
      // The data is committed; the failure to log it is each logged flow's error.
      for (size_t i : logged_flows) {
        FlowSummary& f = summary.flows[i];
        if (!f.status.ok()) continue;
        f.status = logged.WithContext("flow " + f.flow + ": writing the event log");
        if (options.on_flow_error) options.on_flow_error(f.flow, f.status);
      }
    }
    if (options.on_pass) options.on_pass(summary);
    refreshed.clear();  // a refresh happens once, before the first pass
    reset.clear();      // and so does a reset
    // A shared slot read only part of what there is goes on in another pass, also in a run
    // that is not continuous.
    const bool more = slots.more();
    if ((!options.continuous && !more) || stop()) break;
    if (options.max_passes > 0 && summary.passes >= options.max_passes) break;
    if (!found_any && !more) {
      // Sleep in short steps so a stop request is seen quickly.
      const int64_t until = now_ms() + options.interval_ms;
      while (!stop() && now_ms() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(
            std::min<int64_t>(50, std::max<int64_t>(1, until - now_ms()))));
      }
    }
  }
  return summary;
}

std::string NewRunId(const std::string& prefix) {
  return prefix + "-" + std::to_string(delta::NowMillis()) + "-" + std::to_string(::getpid());
}

}  // namespace cdclake::pipeline
