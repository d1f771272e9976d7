// `cdclake changes`: the change data feed of a Delta table over a range of versions — each
// changed row with its _change_type, _commit_version and _commit_timestamp.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cdclake/change_feed.h"
#include "cli/commands.h"
#include "cli/table_output.h"

namespace cdclake::cli {

namespace {

struct ChangesArgs {
  std::string path;
  int64_t from = 0;
  std::optional<int64_t> to;
  std::string format = "table";
};

}  // namespace

Action AddChangesCommand(CLI::App& app) {
  auto args = std::make_shared<ChangesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "changes", "Print the row changes of a Delta table between two versions (change data feed)");
  cmd->add_option("table", args->path, "a table folder")->required();
  cmd->add_option("--from", args->from, "the first version to read changes of")->required();
  cmd->add_option("--to", args->to, "the last version (default: the latest)");
  cmd->add_option("--format", args->format, "table, csv or jsonl")->capture_default_str();
  return [args]() -> int {
    auto format = ParseOutputFormat(args->format);
    if (!format.ok()) return Fail(format.status());
    if (!IsDeltaTable(args->path)) {
      return Fail(Status::NotFound(args->path + ": not a Delta table (no _delta_log folder)"));
    }
    auto changes =
        delta::ReadChanges(*io::LocalFileSystem::Instance(), args->path, args->from, args->to);
    if (!changes.ok()) return Fail(changes.status());
    PrintBatch(*changes, *format, -1, std::cout);
    return 0;
  };
}

}  // namespace cdclake::cli
