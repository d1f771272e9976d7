// The subcommands, each registered on the CLI11 app and run after parsing.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "cdclake/delta.h"

namespace cdclake::cli {

/// A registered subcommand's action; returns the exit code.
using Action = std::function<int()>;

Action AddShowCommand(CLI::App& app);
Action AddSchemaCommand(CLI::App& app);
Action AddSampleCommand(CLI::App& app);
Action AddHistoryCommand(CLI::App& app);
Action AddDescribeCommand(CLI::App& app);
Action AddVacuumCommand(CLI::App& app);
Action AddCheckCommand(CLI::App& app);
Action AddChangesCommand(CLI::App& app);
Action AddApplyCommand(CLI::App& app);
Action AddOptimizeCommand(CLI::App& app);

/// True when `path` holds a `_delta_log` folder.
bool IsDeltaTable(const std::string& path);
/// The snapshot at `version`, or as of `timestamp` (text), or the latest.
Result<std::shared_ptr<const delta::Snapshot>> OpenSnapshot(const std::string& path,
                                                            std::optional<int64_t> version,
                                                            const std::string& timestamp);

/// Prints "cdclake: <message>" to stderr and returns 1.
int Fail(const Status& status);

}  // namespace cdclake::cli
