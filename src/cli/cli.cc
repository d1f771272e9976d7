// Command dispatch.
#include "cli/cli.h"

#include <iostream>
#include <vector>

#include "cli/commands.h"

namespace cdclake::cli {

int Fail(const Status& status) {
  std::cerr << "cdclake: " << status.ToString() << "\n";
  return 1;
}

int Main(int argc, char** argv) {
  CLI::App app{"cdclake: apply change streams to Delta Lake tables"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Action>> actions;
  auto add = [&](Action (*fn)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    Action a = fn(app);
    actions.emplace_back(app.get_subcommands({})[before], std::move(a));
  };
  add(AddShowCommand);
  add(AddSchemaCommand);
  add(AddSampleCommand);
  add(AddHistoryCommand);
  add(AddDescribeCommand);
  add(AddVacuumCommand);
  add(AddCheckCommand);
  add(AddRepairCommand);
  add(AddChangesCommand);
  add(AddApplyCommand);
  add(AddOptimizeCommand);
  add(AddRunCommand);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  for (auto& [sub, action] : actions) {
    if (sub->parsed()) return action();
  }
  return 2;
}

}  // namespace cdclake::cli
