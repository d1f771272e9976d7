// PipelineRunner: a planned pipeline run once or continuously — flows in dependency order,
// full refreshes, failed flows isolated from the rest, and one event-log row per flow batch.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "io/file_system.h"
#include "pipeline/flow_executor.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/warehouse.h"

namespace cdclake::pipeline {

struct PipelineRunSummary;

struct PipelineRunOptions {
  /// Keep polling the sources until stop_requested says so (else: one pass, then stop).
  bool continuous = false;
  int64_t interval_ms = 1000;  // continuous: the pause after a pass that found nothing new
  int64_t max_passes = 0;      // continuous: stop after this many passes (0: no limit)
  /// Rebuild these tables (canonical names) from their sources before running; with
  /// `full_refresh_all`, every table none of whose flows reads files (they may be gone).
  std::vector<std::string> full_refresh;
  bool full_refresh_all = false;
  /// Flows (by name) whose recorded positions are forgotten: their first batch of this run
  /// reads their source from its start (the tables keep their rows). An unknown name fails
  /// every flow.
  std::vector<std::string> reset_positions;
  int64_t batch_rows = 100'000;
  std::function<int64_t()> clock_ms;  // processing time (default: the wall clock)
  bool persistent_index = true;
  std::string run_id;                                    // written to the event log (NewRunId)
  std::function<void(const FlowBatchReport&)> on_batch;  // after each batch of any flow
  std::function<void(const std::string& flow, const Status&)> on_flow_error;
  std::function<bool()> stop_requested;  // continuous: checked between passes and batches
  /// Continuous: a failed flow is tried again after this pause, doubled with each failure in
  /// a row up to retry_max_ms (0: a failed flow stays stopped for the rest of the run).
  int64_t retry_min_ms = 0;
  int64_t retry_max_ms = 300'000;
  /// After each pass over the flows (its event-log rows written): the run so far.
  std::function<void(const PipelineRunSummary&)> on_pass;
};

struct FlowSummary {
  std::string flow;
  std::string target;
  FlowOutcome outcome;  // summed over passes
  Status status;        // the error that stopped the flow (with retries: its latest)
  std::string skipped;  // why it did not run: "upstream table X failed", "ONCE: ran before"
  std::vector<std::string> warnings;  // e.g. a read_files glob that matches no file
  int64_t failures_in_row = 0;        // with retries: failed passes since the flow last succeeded
  int64_t retry_at_ms = 0;            // with retries: when a failed flow is tried again
  /// The flow did not run because the table it reads failed in this pass (`skipped` says
  /// which); a run with such a flow failed.
  bool upstream_failed = false;
};

struct PipelineRunSummary {
  std::vector<FlowSummary> flows;  // in plan order
  int64_t passes = 0;
  bool failed() const;
};

/// Runs `plan`, whose tables live under `warehouse`. A flow that fails stops itself and the
/// flows that read what it writes; the others go on. Event-log rows go to
/// `<warehouse>/_event_log` in one commit after each pass over the flows (an error writing them
/// is reported as each logged flow's error).
PipelineRunSummary RunPipeline(io::FileSystem& fs, const PipelinePlan& plan,
                               const Warehouse& warehouse, const PipelineRunOptions& options);

/// The tables `options` asks to refresh in full, checked against the plan: kInvalidArgument
/// for a name the pipeline does not define. Canonical names: those asked for, then the tables
/// a flow fills by appending one of them (STREAM(t)) or by reading its changes
/// (table_changes), transitively, since their positions are versions of a table that starts
/// again at 0; each of those is said in `notes` with its reason. AUTO CDC over a table's rows
/// reads a rebuilt table again and a snapshot flow compares states: their targets stay.
Result<std::vector<std::string>> TablesToRefresh(const PipelinePlan& plan,
                                                 const Warehouse& warehouse,
                                                 const PipelineRunOptions& options,
                                                 std::vector<std::string>* notes = nullptr);

/// The checks of a run's first batches that need its sources' columns (CheckNewFlowColumns for
/// each AUTO CDC flow whose target does not exist yet; none for the tables in `refreshed`,
/// which the run empties first), nothing written. `cdclake run` and `--dry-run` both call it
/// before anything runs, so both refuse such a plan with the same message and exit code.
Status CheckSources(io::FileSystem& fs, const PipelinePlan& plan,
                    const std::vector<std::string>& refreshed);

/// A run's id for the event log: `<prefix>-<milliseconds since the epoch>-<process id>`.
std::string NewRunId(const std::string& prefix);

}  // namespace cdclake::pipeline
