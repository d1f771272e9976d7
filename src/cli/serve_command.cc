// `cdclake serve PIPELINE... --warehouse DIR [--listen HOST:PORT] [--interval 1s]`: the pipelines
// run continuously (as `run --continuous`, failed flows tried again after a growing pause) while
// an HTTP server shows them; SIGTERM or SIGINT stops both cleanly with exit code 0.
#include <algorithm>
#include <charconv>
#include <iostream>

#include "cdclake/serve.h"
#include "cli/commands.h"
#include "cli/pipeline_file.h"

namespace cdclake::cli {

namespace {

struct ServeArgs {
  std::vector<std::string> pipelines;
  std::string warehouse = "lake";
  std::string listen = "127.0.0.1:8080";
  std::string interval;
  std::string refresh = "2s";
  std::vector<std::string> vars;
  int64_t batch_rows = 100'000;
};

// "127.0.0.1:8080", "[::1]:8080", ":8080" (loopback) or "8080".
Result<std::pair<std::string, int>> ParseListen(const std::string& text) {
  std::string host = "127.0.0.1";
  std::string port = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos && text.find(':') != colon && text.front() != '[') {
    return Status::InvalidArgument("--listen '" + text +
                                   "': write an IPv6 address in brackets ([::1]:8080)");
  }
  if (colon != std::string::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (host.empty()) host = "127.0.0.1";
  }
  int value = -1;
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return Status::InvalidArgument("--listen '" + text +
                                   "': write it as HOST:PORT (127.0.0.1:8080; port 0 picks a "
                                   "free one)");
  }
  return std::make_pair(host, value);
}

int RunServe(const ServeArgs& args) {
  auto vars = ParseVars(args.vars);
  if (!vars.ok()) return UsageFail(vars.status());
  auto listen = ParseListen(args.listen);
  if (!listen.ok()) return UsageFail(listen.status());
  server::ServeOptions options;
  if (!args.interval.empty()) {
    auto interval = ParseInterval(args.interval);
    if (!interval.ok()) return UsageFail(interval.status());
    options.interval_ms = std::max<int64_t>(*interval, 1);
  }
  auto refresh = ParseInterval(args.refresh);
  if (!refresh.ok()) {
    return UsageFail(Status::InvalidArgument("--refresh: " + refresh.status().message()));
  }
  pipeline::Warehouse warehouse(args.warehouse);
  for (const std::string& file : args.pipelines) {
    auto plan = LoadPipelineFile(file, *vars, warehouse);
    if (!plan.ok()) return UsageFail(plan.status());
    // What the first batches would refuse, before anything runs (as `run` does).
    if (Status s = pipeline::CheckSources(*io::LocalFileSystem::Instance(), *plan, {}); !s.ok()) {
      return UsageFail(s.WithContext(file));
    }
    options.pipelines.push_back({file, std::move(*plan)});
  }
  options.warehouse = args.warehouse;
  options.host = listen->first;
  options.port = listen->second;
  options.batch_rows = args.batch_rows;
  options.refresh_ms = *refresh;
  // One write per line: the pipelines' threads say things at the same time.
  options.say = [](const std::string& line) { std::cerr << ("cdclake: " + line + "\n"); };
  options.stop_requested = StopOnSignals();
  Status served = server::Serve(options);
  if (!served.ok()) return Fail(served);
  return 0;
}

}  // namespace

Action AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Run pipelines continuously behind a monitoring page, Prometheus /metrics, /healthz and "
      "/readyz (read-only HTTP; loopback unless --listen says otherwise)");
  cmd->add_option("pipelines", args->pipelines, "the pipeline files (.sql or .py)")->required();
  cmd->add_option("--warehouse", args->warehouse, "the folder holding the tables")
      ->capture_default_str();
  cmd->add_option("--listen", args->listen,
                  "HOST:PORT to serve on (port 0: a free one, printed); another address than "
                  "loopback must be given here")
      ->capture_default_str();
  cmd->add_option("--interval", args->interval,
                  "the pause between polls that found nothing (default: the pipeline's SET "
                  "pipelines.trigger.interval, else 1s)");
  cmd->add_option("--refresh", args->refresh, "how often the page refreshes itself")
      ->capture_default_str();
  cmd->add_option("--var", args->vars, "name=value for ${name} in the files (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--batch-rows", args->batch_rows, "rows per batch")->capture_default_str();
  return [args]() -> int { return RunServe(*args); };
}

}  // namespace cdclake::cli
