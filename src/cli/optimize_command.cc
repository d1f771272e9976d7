// `cdclake optimize TABLE`: compacts a target the apply engine writes, keeping its key index.
#include <iostream>
#include <memory>

#include "cdclake/flow.h"
#include "cli/commands.h"
#include "cli/progress_line.h"

namespace cdclake::cli {
namespace {

struct OptimizeArgs {
  std::string path;
  double max_deleted_fraction = 0.2;
  int64_t small_file_rows = 100000;
  int64_t target_file_rows = 1 << 20;
};

}  // namespace

Action AddOptimizeCommand(CLI::App& app) {
  auto args = std::make_shared<OptimizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "optimize",
      "Compact a table written by `cdclake apply`: rewrite files with many deleted rows or too "
      "few rows, keeping the key index right");
  cmd->add_option("path", args->path, "the table folder")->required();
  cmd->add_option("--max-deleted-fraction", args->max_deleted_fraction,
                  "rewrite files whose deletion vectors mask at least this fraction of rows "
                  "(default 0.2)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--small-file-rows", args->small_file_rows,
                  "merge files with fewer live rows than this (default 100000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--target-file-rows", args->target_file_rows,
                  "rows per rewritten file at most (default 1048576)")
      ->check(CLI::PositiveNumber);
  return [args]() -> int {
    apply::OptimizeOptions options;
    options.max_deleted_fraction = args->max_deleted_fraction;
    options.small_file_rows = args->small_file_rows;
    options.target_file_rows = args->target_file_rows;
    ProgressLine progress(StderrIsTerminal());
    options.progress = progress.Fn();
    auto result = apply::Optimize(*io::LocalFileSystem::Instance(), args->path, options);
    progress.Clear();
    if (!result.ok()) return Fail(result.status());
    if (!result->version) {
      std::cout << "nothing to compact\n";
      return 0;
    }
    std::cout << "version " << *result->version << ": rewrote " << result->files_removed
              << " files into " << result->files_added << " (" << result->rows_written << " rows; "
              << result->deleted_rows_purged << " deleted rows dropped)\n";
    return 0;
  };
}

}  // namespace cdclake::cli
