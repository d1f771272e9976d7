// `cdclake run PIPELINE.sql`: a pipeline file parsed, planned and run once or continuously, with
// progress lines, a summary table, and exit codes 0 (ok), 1 (a flow failed), 2 (invalid).
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <iostream>
#include <map>
#include <sstream>

#include "cdclake/pipeline_run.h"
#include "cli/commands.h"
#include "cli/pipeline_file.h"

namespace cdclake::cli {

namespace {

struct RunArgs {
  std::string pipeline;
  std::string warehouse = "lake";
  bool once = false;
  bool continuous = false;
  std::string interval = "1s";
  std::vector<std::string> full_refresh;
  std::vector<std::string> reset_positions;
  std::vector<std::string> vars;
  bool dry_run = false;
  std::string log_format = "text";
  int64_t batch_rows = 100'000;
  int64_t max_passes = 0;
};

std::string Json(const pipeline::FlowBatchReport& r) {
  json::Json j = json::Json::object();
  j["event"] = "batch";
  j["flow"] = r.flow;
  j["target"] = r.target;
  j["input_from"] = r.input_from;
  j["input_to"] = r.input_to;
  j["rows_read"] = r.counts.read;
  j["rows_applied"] = r.counts.applied;
  j["rows_discarded"] = r.counts.discarded;
  j["rows_quarantined"] = r.counts.quarantined;
  j["rows_inserted"] = r.counts.inserted;
  j["rows_updated"] = r.counts.updated;
  j["rows_deleted"] = r.counts.deleted;
  j["table_version"] = r.table_version ? json::Json(*r.table_version) : json::Json();
  j["files"] = r.files;
  j["duration_ms"] = r.duration_ms;
  if (r.input_written_ms > 0) j["input_written_ms"] = r.input_written_ms;
  if (!r.schema_changes.empty()) {
    json::Json changes = json::Json::array();
    for (const pipeline::SchemaChange& c : r.schema_changes) changes.push_back(c.ToJson());
    j["schema_changes"] = std::move(changes);
  }
  if (!r.expectations.empty()) {
    j["data_quality"] =
        pipeline::DataQualityJson(r.target, r.expectations, r.dropped_by_expectations);
  }
  return json::Dump(j);
}

std::string Text(const pipeline::FlowBatchReport& r) {
  std::ostringstream out;
  out << r.flow << ": " << r.counts.read << " rows read, " << r.counts.applied << " applied, "
      << r.counts.discarded << " discarded, " << r.counts.quarantined << " quarantined; "
      << r.counts.inserted << " inserted, " << r.counts.updated << " updated, " << r.counts.deleted
      << " deleted; "
      << (r.table_version ? "version " + std::to_string(*r.table_version) : "no new version")
      << "; " << r.input_to << " (" << r.duration_ms << " ms)";
  for (const pipeline::SchemaChange& c : r.schema_changes) {
    out << "\n" << r.flow << ": schema change: " << c.Text();
  }
  return out.str();
}

void PrintSummary(const pipeline::PipelineRunSummary& summary, std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {{"flow", "target", "batches", "read", "applied",
                                                 "discarded", "quarantined", "inserted", "updated",
                                                 "deleted", "versions", "status"}};
  for (const pipeline::FlowSummary& f : summary.flows) {
    const apply::ApplyCounts& c = f.outcome.counts;
    std::string versions;
    if (!f.outcome.versions.empty()) {
      versions = std::to_string(f.outcome.versions.front());
      if (f.outcome.versions.size() > 1)
        versions += "-" + std::to_string(f.outcome.versions.back());
    }
    std::string status = !f.status.ok() ? "FAILED" : !f.skipped.empty() ? "skipped" : "ok";
    rows.push_back({f.flow, f.target, std::to_string(f.outcome.batches), std::to_string(c.read),
                    std::to_string(c.applied), std::to_string(c.discarded),
                    std::to_string(c.quarantined), std::to_string(c.inserted),
                    std::to_string(c.updated), std::to_string(c.deleted), versions, status});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      const bool number = i >= 2 && i <= 9;
      std::string pad(width[i] - row[i].size(), ' ');
      out << (i == 0 ? "" : "  ")
          << (number ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : ""));
    }
    out << "\n";
  }
  for (const pipeline::FlowSummary& f : summary.flows) {
    if (!f.status.ok()) out << "flow " << f.flow << " failed: " << f.status.ToString() << "\n";
    if (!f.skipped.empty()) out << "flow " << f.flow << " skipped: " << f.skipped << "\n";
    for (const sources::PendingFile& p : f.outcome.pending) {
      out << "flow " << f.flow << ": " << sources::DescribePending(p) << "\n";
    }
    for (const std::string& n : f.outcome.notices) out << "flow " << f.flow << ": " << n << "\n";
    if (!f.outcome.source_lag.empty()) {
      out << "flow " << f.flow << ": source lag: " << f.outcome.source_lag << "\n";
    }
    for (const pipeline::ExpectationCount& e : f.outcome.expectations) {
      out << "flow " << f.flow << ": expectation " << e.name
          << (e.dataset.empty() || e.dataset == f.target ? "" : " of " + e.dataset) << " ("
          << sql::ExpectationActionName(e.action) << "): " << e.passed << " passed, " << e.failed
          << " failed\n";
    }
  }
}

int RunRun(const CLI::App& cmd, const RunArgs& args) {
  auto vars = ParseVars(args.vars);
  if (!vars.ok()) return UsageFail(vars.status());
  if (args.once && args.continuous) {
    return UsageFail(Status::InvalidArgument("--once and --continuous exclude each other"));
  }
  if (args.log_format != "text" && args.log_format != "json") {
    return UsageFail(Status::InvalidArgument("--log-format must be text or json"));
  }
  auto interval = ParseInterval(args.interval);
  if (!interval.ok()) return UsageFail(interval.status());
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  pipeline::Warehouse warehouse(args.warehouse);
  auto plan = LoadPipelineFile(args.pipeline, *vars, warehouse);
  if (!plan.ok()) return UsageFail(plan.status());

  pipeline::PipelineRunOptions options;
  options.continuous = args.continuous;
  options.interval_ms = *interval;
  if (cmd.get_option("--interval")->count() == 0 && plan->trigger_interval_ms) {
    options.interval_ms = *plan->trigger_interval_ms;  // SET pipelines.trigger.interval
  }
  options.max_passes = args.max_passes;
  options.batch_rows = args.batch_rows;
  if (cmd.get_option("--full-refresh")->count() > 0) {
    // Given without names, CLI11 leaves one empty name.
    for (const std::string& t : args.full_refresh) {
      if (!t.empty()) options.full_refresh.push_back(t);
    }
    options.full_refresh_all = options.full_refresh.empty();
  }
  options.reset_positions = args.reset_positions;
  std::vector<std::string> refresh_notes;
  auto refresh = pipeline::TablesToRefresh(*plan, warehouse, options, &refresh_notes);
  if (!refresh.ok()) return UsageFail(refresh.status());
  for (const std::string& note : refresh_notes) std::cerr << "cdclake: " << note << "\n";
  // What the first batches would refuse (a misspelled column in a column list): before
  // anything runs, the same for --dry-run.
  if (Status s = pipeline::CheckSources(fs, *plan, *refresh); !s.ok()) {
    return UsageFail(s.WithContext(args.pipeline));
  }
  if (args.dry_run) {
    std::cout << pipeline::DescribePlan(*plan);
    if (!refresh->empty()) {
      std::cout << "full refresh of:";
      for (const std::string& t : *refresh) std::cout << " " << t;
      std::cout << "\n";
    }
    return 0;
  }
  options.run_id = pipeline::NewRunId("run");
  const bool json = args.log_format == "json";
  const bool live = !json && ::isatty(STDERR_FILENO) != 0;
  int64_t rows_total = 0;
  int64_t files_total = 0;
  const auto started = std::chrono::steady_clock::now();
  options.on_batch = [&](const pipeline::FlowBatchReport& r) {
    rows_total += r.counts.read;
    files_total += r.files;
    for (const std::string& w : r.warnings) {
      std::cerr << (live ? "\r\033[K" : "") << "cdclake: warning: flow " << r.flow << ": " << w
                << "\n";
    }
    if (json) {
      std::cout << Json(r) << "\n" << std::flush;
    } else if (live) {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
      std::cerr << "\r\033[K" << r.flow << ": " << rows_total << " rows, "
                << static_cast<int64_t>(seconds > 0 ? rows_total / seconds : 0) << " rows/s, "
                << files_total << " files";
      if (r.input_written_ms > 0) {
        std::cerr << ", lag " << std::max<int64_t>(0, now_ms - r.input_written_ms) / 1000.0 << " s";
      }
      std::cerr << ", at " << r.input_to << std::flush;
    } else {
      std::cout << Text(r) << "\n";
    }
  };
  options.on_flow_error = [&](const std::string& flow, const Status& s) {
    if (live) std::cerr << "\r\033[K";
    std::cerr << "cdclake: flow " << flow << " failed: " << s.ToString() << "\n";
  };
  options.stop_requested = StopOnSignals();
  pipeline::PipelineRunSummary summary = pipeline::RunPipeline(fs, *plan, warehouse, options);
  if (live) std::cerr << "\r\033[K";
  for (const pipeline::FlowSummary& f : summary.flows) {
    for (const std::string& w : f.warnings) std::cerr << "cdclake: warning: " << w << "\n";
  }
  if (json) {
    json::Json j = json::Json::object();
    j["event"] = "summary";
    j["passes"] = summary.passes;
    j["failed"] = summary.failed();
    std::cout << json::Dump(j) << "\n";
  } else {
    PrintSummary(summary, std::cout);
  }
  return summary.failed() ? 1 : 0;
}

}  // namespace

Action AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a pipeline file (CREATE STREAMING TABLE ..., CREATE FLOW ... AS AUTO CDC ...)");
  cmd->add_option("pipeline", args->pipeline, "the pipeline's SQL file")->required();
  cmd->add_option("--warehouse", args->warehouse,
                  "the folder holding the tables: c.s.t in DIR/c/s/t, s.t in DIR/s/t, t in "
                  "DIR/default/t")
      ->capture_default_str();
  cmd->add_flag("--once", args->once, "process what is there now and stop (the default)");
  cmd->add_flag("--continuous", args->continuous, "keep polling the sources until interrupted");
  cmd->add_option("--interval", args->interval, "continuous: the pause between polls (500ms, 1s)")
      ->capture_default_str();
  cmd->add_option("--full-refresh", args->full_refresh,
                  "rebuild these tables from their sources, with the tables following them "
                  "(no names: every table computed only from other tables)")
      ->expected(0, -1);
  cmd->add_option("--reset-position", args->reset_positions,
                  "FLOW: forget where this flow stopped; it reads its source again from the "
                  "start (after its source changed; repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--var", args->vars, "name=value for ${name} in the file (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--dry-run", args->dry_run, "check the pipeline and print its plan");
  cmd->add_option("--log-format", args->log_format, "text or json")->capture_default_str();
  cmd->add_option("--batch-rows", args->batch_rows, "rows per batch")->capture_default_str();
  cmd->add_option("--max-passes", args->max_passes,
                  "continuous: stop after this many passes over the flows (0: no limit)");
  return [cmd, args]() -> int { return RunRun(*cmd, *args); };
}

}  // namespace cdclake::cli
