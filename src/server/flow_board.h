// FlowBoard: what `cdclake serve` knows of each flow while its pipelines run — counters, last
// commit, lag, recent batches and state — fed by the runners' callbacks, read by the pages and
// /metrics from other threads.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/flow_executor.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/pipeline_runner.h"

namespace cdclake::server {

/// One committed batch, for the flow page's chart.
struct BatchPoint {
  int64_t time_ms = 0;      // when it finished
  int64_t rows = 0;         // rows read
  int64_t duration_ms = 0;  // how long it took
  int64_t lag_ms = -1;      // its newest input's write time to its commit (-1: unknown)
  std::optional<int64_t> version;
};

/// Batch durations are counted under these upper bounds (seconds), as a Prometheus histogram.
const std::vector<double>& DurationBounds();

struct FlowCard {
  std::string pipeline;  // the pipeline file the flow is declared in
  std::string flow;
  std::string target;
  std::string target_folder;
  std::string source;  // SourcePlan::Describe()
  std::string kind;    // "append", "auto cdc" or "snapshot"
  /// "starting" (no pass yet), "ok", "failed" (waiting to be tried again), "waiting" (its
  /// upstream failed) or "skipped" (ONCE, already ran).
  std::string state = "starting";
  std::string message;  // why it failed, waits or was skipped
  int64_t failures_in_row = 0;
  int64_t retry_at_ms = 0;
  int64_t failures = 0;  // failed passes since serve started
  int64_t batches = 0;
  int64_t rows_read = 0;
  int64_t rows_applied = 0;
  int64_t rows_discarded = 0;
  int64_t rows_quarantined = 0;
  int64_t rows_inserted = 0;
  int64_t rows_updated = 0;
  int64_t rows_deleted = 0;
  int64_t expectation_failed = 0;  // failed checks: each expectation a row fails counts once
  int64_t rows_dropped = 0;        // rows expectations dropped (ON VIOLATION DROP ROW)
  int64_t last_commit_ms = 0;      // 0: nothing committed since serve started
  std::optional<int64_t> last_version;
  int64_t last_lag_ms = -1;
  std::vector<int64_t> duration_counts;  // per DurationBounds() entry, not cumulative; +Inf last
  double duration_sum_s = 0;
  std::deque<BatchPoint> recent;  // the newest batches, oldest first

  /// Rows read per second over the minute before `now_ms` (0 when idle).
  double RowsPerSecond(int64_t now_ms) const;
};

class FlowBoard {
 public:
  /// Adds `plan`'s flows, as declared in `pipeline` (a file name).
  void AddPipeline(const std::string& pipeline, const pipeline::PipelinePlan& plan);
  void OnBatch(const pipeline::FlowBatchReport& report, int64_t now_ms);
  void OnPass(const pipeline::PipelineRunSummary& summary);

  /// Copies, in the order the pipelines declared them.
  std::vector<FlowCard> Cards() const;
  std::optional<FlowCard> Card(const std::string& flow) const;
  /// True once every pipeline has finished its first pass.
  bool Started() const;

 private:
  mutable std::mutex mu_;
  std::vector<FlowCard> cards_;
  std::map<std::string, size_t> by_flow_;
};

}  // namespace cdclake::server
