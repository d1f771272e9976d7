// Serve: `cdclake serve` — pipelines run continuously, each on a thread of its own, with failed
// flows tried again after a growing pause, behind a read-only HTTP server: the monitoring page,
// /metrics (Prometheus), /healthz and /readyz.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "pipeline/pipeline_plan.h"

namespace cdclake::server {

struct ServedPipeline {
  std::string file;  // as given, for the page and messages
  pipeline::PipelinePlan plan;
};

struct ServeOptions {
  std::vector<ServedPipeline> pipelines;
  std::string warehouse;
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (on_listening says which)
  /// The pause after a pass that found nothing; 0: each pipeline's SET pipelines.trigger.interval,
  /// else 1 s.
  int64_t interval_ms = 0;
  int64_t batch_rows = 100'000;
  int64_t refresh_ms = 2000;  // how often the page refreshes itself
  int64_t retry_min_ms = 1000;
  int64_t retry_max_ms = 300'000;
  /// Checked between batches and passes; once true, serve finishes the batch in progress,
  /// stops the pipelines and the server, and returns.
  std::function<bool()> stop_requested;
  /// A line for the operator: each batch, each failure, where the server listens.
  std::function<void(const std::string&)> say;
  /// Called once the server listens, with its port.
  std::function<void(int)> on_listening;
};

/// Checks that no table is written by two of the pipelines and no flow name is used twice
/// (kInvalidArgument naming both files), listens (kIoError when it cannot), runs until
/// stop_requested. OK after a clean stop, whatever the flows' states.
Status Serve(const ServeOptions& options);

}  // namespace cdclake::server
