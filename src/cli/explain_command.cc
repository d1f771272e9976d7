// `cdclake explain TABLE --key col=value`: one key's story — its rows, its key-index state, the
// horizon and truncate that reach it, and (with --pipeline) its bronze events and what the engine
// did with each. Exit code 0, 1 when the story cannot be told, 2 for bad usage.
#include <iostream>
#include <memory>

#include "cdclake/explain.h"
#include "cli/commands.h"
#include "cli/pipeline_file.h"

namespace cdclake::cli {

namespace {

struct ExplainArgs {
  std::string table;
  std::vector<std::string> keys;
  std::string warehouse = "lake";
  std::string pipeline;
  std::vector<std::string> vars;
  std::string format = "text";
};

int RunExplain(const ExplainArgs& args) {
  if (args.format != "text" && args.format != "json") {
    return UsageFail(Status::InvalidArgument("--format must be text or json"));
  }
  pipeline::KeyStoryOptions options;
  options.table = args.table;
  options.warehouse = args.warehouse;
  for (const std::string& text : args.keys) {
    auto parsed = pipeline::ParseKeyText(text);
    if (!parsed.ok()) return UsageFail(parsed.status());
    for (auto& part : *parsed) {
      for (const auto& [name, value] : options.key) {
        if (name == part.first) {
          return UsageFail(Status::InvalidArgument("--key names '" + name + "' twice"));
        }
      }
      options.key.push_back(std::move(part));
    }
  }
  std::optional<pipeline::PipelinePlan> plan;
  if (!args.pipeline.empty()) {
    auto vars = ParseVars(args.vars);
    if (!vars.ok()) return UsageFail(vars.status());
    auto loaded = LoadPipelineFile(args.pipeline, *vars, pipeline::Warehouse(args.warehouse));
    if (!loaded.ok()) return UsageFail(loaded.status());
    plan = std::move(*loaded);
    options.plan = &*plan;
  }
  auto story = pipeline::TellKeyStory(*io::LocalFileSystem::Instance(), options);
  if (!story.ok()) {
    if (story.status().code() == StatusCode::kInvalidArgument) return UsageFail(story.status());
    return Fail(story.status());
  }
  std::cout << (args.format == "json" ? pipeline::KeyStoryJson(*story)
                                      : pipeline::KeyStoryText(*story));
  return 0;
}

}  // namespace

Action AddExplainCommand(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Tell one key's story: its rows, its state in the key index, the purge horizon and "
      "truncate that reach it, and (with --pipeline) every bronze event of it with what the "
      "engine did and in which table version");
  cmd->add_option("table", args->table,
                  "the table's folder, or its name (c.s.t) in the --warehouse folder")
      ->required();
  cmd->add_option("--key", args->keys, "col=value[,col=value]: the key (every key column)")
      ->required();
  cmd->add_option("--warehouse", args->warehouse, "where table names live (as for cdclake run)")
      ->capture_default_str();
  cmd->add_option("--pipeline", args->pipeline,
                  "the pipeline file that feeds the table: its AUTO CDC flow's bronze events of "
                  "the key are replayed");
  cmd->add_option("--var", args->vars, "k=v: a variable of the pipeline file (as for cdclake run)");
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  return [args]() -> int { return RunExplain(*args); };
}

}  // namespace cdclake::cli
