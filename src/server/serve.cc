// Serve: the board, the HTTP server on its own thread, one runner thread per pipeline.
#include "server/serve.h"

#include <httplib.h>

#include <atomic>
#include <map>
#include <thread>

#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "pipeline/pipeline_runner.h"
#include "pipeline/warehouse.h"
#include "server/flow_board.h"
#include "server/http_routes.h"

namespace cdclake::server {

namespace {

// Each table written by one pipeline only, each flow name used once: the page names flows, and
// two runners writing one table would only fight over its commits.
Status CheckDisjoint(const std::vector<ServedPipeline>& pipelines) {
  std::map<std::string, std::string> target_file;
  std::map<std::string, std::string> flow_file;
  for (const ServedPipeline& p : pipelines) {
    for (const pipeline::FlowPlan& f : p.plan.flows) {
      auto [t, new_target] = target_file.emplace(f.target, p.file);
      if (!new_target && t->second != p.file) {
        return Status::InvalidArgument("table " + f.target + " is written by both " + t->second +
                                       " and " + p.file + "; serve each table from one pipeline");
      }
      auto [n, new_flow] = flow_file.emplace(f.name, p.file);
      if (!new_flow && n->second != p.file) {
        return Status::InvalidArgument("flow " + f.name + " is declared in both " + n->second +
                                       " and " + p.file + "; give one of them another name");
      }
    }
  }
  return Status::OK();
}

std::string BatchLine(const pipeline::FlowBatchReport& r) {
  std::string line = "flow " + r.flow + ": " + std::to_string(r.counts.read) + " rows read, " +
                     std::to_string(r.counts.applied) + " applied";
  if (r.table_version) line += ", version " + std::to_string(*r.table_version);
  return line + " (" + std::to_string(r.duration_ms) + " ms)";
}

}  // namespace

Status Serve(const ServeOptions& options) {
  CDCLAKE_RETURN_IF_ERROR(CheckDisjoint(options.pipelines));
  auto say = [&](const std::string& line) {
    if (options.say) options.say(line);
  };
  FlowBoard board;
  RouteContext routes;
  routes.board = &board;
  std::shared_ptr<io::LocalFileSystem> fs = io::LocalFileSystem::Instance();
  routes.fs = fs.get();
  routes.warehouse = options.warehouse;
  routes.refresh_ms = options.refresh_ms;
  for (const ServedPipeline& p : options.pipelines) {
    board.AddPipeline(p.file, p.plan);
    for (const pipeline::FlowPlan& f : p.plan.flows) routes.tables[f.target] = f.target_folder;
  }

  httplib::Server http;
  http.set_default_headers({{"Cache-Control", "no-store"}});
  AddRoutes(http, routes);
  int port = options.port;
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
    if (port < 0) return Status::IoError("cannot listen on " + options.host + ": no free port");
  } else if (!http.bind_to_port(options.host, port)) {
    return Status::IoError("cannot listen on " + options.host + ":" + std::to_string(port) +
                           " (in use, or not an address of this machine)");
  }
  std::thread listener([&http] { http.listen_after_bind(); });
  say("serving on http://" + options.host + ":" + std::to_string(port) + "/ (" +
      std::to_string(options.pipelines.size()) + " pipelines, warehouse " + options.warehouse +
      ")");
  if (options.on_listening) options.on_listening(port);

  const pipeline::Warehouse warehouse(options.warehouse);
  std::vector<std::thread> runners;
  for (const ServedPipeline& p : options.pipelines) {
    runners.emplace_back([&, plan = &p.plan, file = p.file] {
      pipeline::PipelineRunOptions run;
      run.continuous = true;
      run.interval_ms =
          options.interval_ms > 0 ? options.interval_ms : plan->trigger_interval_ms.value_or(1000);
      run.batch_rows = options.batch_rows;
      run.retry_min_ms = options.retry_min_ms;
      run.retry_max_ms = options.retry_max_ms;
      run.run_id = "serve-" + std::to_string(delta::NowMillis()) + "-" + file;
      run.stop_requested = options.stop_requested;
      run.on_batch = [&](const pipeline::FlowBatchReport& r) {
        board.OnBatch(r, delta::NowMillis());
        say(BatchLine(r));
      };
      run.on_flow_error = [&](const std::string& flow, const Status& s) {
        say("flow " + flow + " failed (tried again after a pause): " + s.ToString());
      };
      run.on_pass = [&](const pipeline::PipelineRunSummary& summary) { board.OnPass(summary); };
      pipeline::RunPipeline(*fs, *plan, warehouse, run);
    });
  }
  for (std::thread& t : runners) t.join();
  http.stop();
  listener.join();
  say("stopped");
  return Status::OK();
}

}  // namespace cdclake::server
