// `cdclake show FILE.parquet` and `cdclake schema FILE.parquet`.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/table_output.h"

namespace cdclake::cli {

namespace {

struct ShowArgs {
  std::string path;
  std::string format = "table";
  int64_t limit = -1;
};

}  // namespace

Action AddShowCommand(CLI::App& app) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand("show", "Print the rows of a Parquet file");
  cmd->add_option("path", args->path, "the file")->required();
  cmd->add_option("--format", args->format, "table, csv or jsonl")->capture_default_str();
  cmd->add_option("--limit", args->limit, "print at most N rows");
  return [args]() -> int {
    auto format = ParseOutputFormat(args->format);
    if (!format.ok()) return Fail(format.status());
    auto reader = parquet::FileReader::Open(*io::LocalFileSystem::Instance(), args->path);
    if (!reader.ok()) return Fail(reader.status());
    auto batch = (*reader)->ReadAll();
    if (!batch.ok()) return Fail(batch.status());
    PrintBatch(*batch, *format, args->limit, std::cout);
    return 0;
  };
}

Action AddSchemaCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("schema", "Print the schema of a Parquet file");
  cmd->add_option("path", *path, "the file")->required();
  return [path]() -> int {
    auto reader = parquet::FileReader::Open(*io::LocalFileSystem::Instance(), *path);
    if (!reader.ok()) return Fail(reader.status());
    std::cout << (*reader)->schema().ToString();
    return 0;
  };
}

}  // namespace cdclake::cli
