// The subcommands, each registered on the CLI11 app and run after parsing.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "cdclake/parquet.h"

namespace cdclake::cli {

/// A registered subcommand's action; returns the exit code.
using Action = std::function<int()>;

Action AddShowCommand(CLI::App& app);
Action AddSchemaCommand(CLI::App& app);
Action AddSampleCommand(CLI::App& app);

/// Prints "cdclake: <message>" to stderr and returns 1.
int Fail(const Status& status);

}  // namespace cdclake::cli
