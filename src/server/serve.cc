// Serve: the board, the HTTP server on its own thread, one runner thread per pipeline.
#include "server/serve.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "delta/transaction.h"
#include "io/canonical_path.h"
#include "io/local_file_system.h"
#include "pipeline/pipeline_runner.h"
#include "pipeline/warehouse.h"
#include "server/flow_board.h"
#include "server/http_routes.h"

namespace cdclake::server {

namespace {

constexpr size_t kHttpWorkers = 16;

// Each table written by one pipeline only, each flow name used once: the page names flows, and
// two runners writing one table would only fight over its commits.
Status CheckDisjoint(const io::FileSystem& fs, const std::vector<ServedPipeline>& pipelines) {
  std::map<std::string, std::string> target_file;
  std::map<std::string, std::string> flow_file;
  std::map<std::string, std::string> canonical_file;
  for (const ServedPipeline& p : pipelines) {
    auto canonical = io::Canonical(fs, p.file);
    auto [c, new_file] = canonical_file.emplace(canonical.ok() ? *canonical : p.file, p.file);
    if (!new_file) {
      return Status::InvalidArgument("the pipeline " + p.file + " is given twice (as " + c->second +
                                     " too); give each file once");
    }
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
  std::shared_ptr<io::LocalFileSystem> fs = io::LocalFileSystem::Instance();
  CDCLAKE_RETURN_IF_ERROR(CheckDisjoint(*fs, options.pipelines));
  auto say = [&](const std::string& line) {
    if (options.say) options.say(line);
  };
  FlowBoard board;
  RouteContext routes;
  routes.board = &board;
  routes.fs = fs.get();
  routes.host = options.host;
  routes.warehouse = options.warehouse;
  routes.refresh_ms = options.refresh_ms;
  for (const ServedPipeline& p : options.pipelines) {
    board.AddPipeline(p.file, p.plan);
    for (const pipeline::FlowPlan& f : p.plan.flows) routes.tables[f.target] = f.target_folder;
  }

  httplib::Server http;
  http.set_default_headers({{"Cache-Control", "no-store"}});
  // A page refreshing itself keeps a connection: short keep-alive and read timeouts and more
  // workers than httplib's default eight, so open tabs and idle clients cannot starve /metrics.
  http.set_keep_alive_timeout(1);
  http.set_read_timeout(2, 0);
  http.new_task_queue = [] { return new httplib::ThreadPool(kHttpWorkers); };
  AddRoutes(http, routes);
  int port = options.port;
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
    if (port < 0) return Status::IoError("cannot listen on " + options.host + ": no free port");
  } else if (!http.bind_to_port(options.host, port)) {
    return Status::IoError("cannot listen on " + options.host + ":" + std::to_string(port) +
                           " (in use, or not an address of this machine)");
  }
  routes.port = port;
  std::atomic<bool> listen_ended{false};
  std::thread listener([&] {
    (void)http.listen_after_bind();  // false is seen below as a server that never ran
    listen_ended = true;
  });
  // Nothing runs before the server does: a stop requested meanwhile finds it running, and a
  // listen that fails is an error before any pipeline starts.
  while (!http.is_running() && !listen_ended) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!http.is_running()) {
    listener.join();
    return Status::IoError("cannot serve on " + options.host + ":" + std::to_string(port));
  }
  const std::string shown_host =
      options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  say("serving on http://" + shown_host + ":" + std::to_string(port) + "/ (" +
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
