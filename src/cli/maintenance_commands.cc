// `cdclake vacuum TABLE` (delete files no version within the retention needs) and
// `cdclake check TABLE` (verify the files the latest version names), and `cdclake repair
// TABLE` (rebuild a target's key index under `_cdclake/`).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cdclake/flow.h"
#include "cli/commands.h"
#include "cli/progress_line.h"

namespace cdclake::cli {

namespace {

struct VacuumArgs {
  std::string path;
  std::optional<double> retain_hours;
  bool dry_run = false;
};

// `path` relative to the table root, when it lies under it.
std::string Relative(const std::string& root, const std::string& path) {
  std::string prefix = io::JoinPath(root, "");
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  return StartsWith(path, prefix) ? path.substr(prefix.size()) : path;
}

std::string Hours(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(ms) / 3'600'000.0);
  return buf;
}

}  // namespace

Action AddVacuumCommand(CLI::App& app) {
  auto args = std::make_shared<VacuumArgs>();
  CLI::App* cmd = app.add_subcommand(
      "vacuum", "Delete files a Delta table no longer references and that are past the retention");
  cmd->add_option("path", args->path, "the table folder")->required();
  cmd->add_option("--retain-hours", args->retain_hours,
                  "keep files removed less than H hours ago (default: the table's "
                  "delta.deletedFileRetentionDuration, one week)");
  cmd->add_flag("--dry-run", args->dry_run, "list the files without deleting them");
  return [args]() -> int {
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    auto& fs = *io::LocalFileSystem::Instance();
    ProgressLine progress(StderrIsTerminal());
    auto result =
        delta::Vacuum(fs, args->path, args->retain_hours, args->dry_run, now, progress.Fn());
    progress.Clear();
    if (!result.ok()) return Fail(result.status());
    const char* verb = result->dry_run ? "would delete" : "deleted";
    for (const delta::VacuumFile& f : result->files) {
      std::cout << verb << ": " << Relative(args->path, f.path) << " (" << f.size << " bytes)\n";
    }
    std::cout << (result->dry_run ? "dry run: " : "") << verb << " " << result->files.size()
              << " files (" << result->bytes << " bytes) of " << result->files_scanned
              << " scanned; version " << result->version << ", retention "
              << Hours(result->retention_ms) << " hours\n";
    return 0;
  };
}

Action AddCheckCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Check a Delta table's files: present, sizes as logged, stats, Parquet footers, deletion "
      "vectors");
  cmd->add_option("path", *path, "the table folder")->required();
  return [path]() -> int {
    auto report = delta::CheckTable(*io::LocalFileSystem::Instance(), *path);
    if (!report.ok()) return Fail(report.status());
    if (report->ok()) {
      std::cout << "ok: " << report->files_checked << " files checked\n";
      return 0;
    }
    for (const delta::CheckProblem& p : report->problems) {
      std::cout << "problem: " << p.path << ": " << p.message << "\n";
    }
    std::cout << report->problems.size() << " problems in " << report->files_checked
              << " files checked (version " << report->version << ")\n";
    return 1;
  };
}

Action AddRepairCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "repair",
      "Rebuild the key index (_cdclake/) of a table written by `cdclake apply` or `cdclake run`: "
      "from the index log when it is whole, else from the table's rows");
  cmd->add_option("path", *path, "the table folder")->required();
  return [path]() -> int {
    ProgressLine progress(StderrIsTerminal());
    auto recovery = apply::RepairTableIndex(*io::LocalFileSystem::Instance(), *path, progress.Fn());
    progress.Clear();
    if (!recovery.ok()) return Fail(recovery.status());
    std::cout << recovery->Describe(*path) << "\n";
    return 0;
  };
}

}  // namespace cdclake::cli
