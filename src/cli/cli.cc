// Command dispatch.
#include "cli/cli.h"

#include <atomic>
#include <csignal>
#include <iostream>
#include <vector>

#include "cli/commands.h"

namespace cdclake::cli {

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (std::string& s : cdclake::Split(text, ',')) {
    size_t a = s.find_first_not_of(' ');
    size_t b = s.find_last_not_of(' ');
    if (a != std::string::npos) out.push_back(s.substr(a, b - a + 1));
  }
  return out;
}

int Fail(const Status& status) {
  std::cerr << "cdclake: " << status.ToString() << "\n";
  return 1;
}

int UsageFail(const Status& status) {
  std::cerr << "cdclake: " << status.ToString() << "\n";
  return 2;
}

namespace {
std::atomic<bool> g_stop{false};
void RequestStop(int) {
  g_stop = true;
}
}  // namespace

std::function<bool()> StopOnSignals() {
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  return [] { return g_stop.load(); };
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
  add(AddReconcileCommand);
  add(AddServeCommand);
  add(AddExplainCommand);
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
