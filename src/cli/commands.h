// The subcommands, each registered on the CLI11 app and run after parsing.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "cdclake/delta.h"
#include "cdclake/flow.h"

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
Action AddRepairCommand(CLI::App& app);
Action AddChangesCommand(CLI::App& app);
Action AddApplyCommand(CLI::App& app);
Action AddOptimizeCommand(CLI::App& app);
Action AddRunCommand(CLI::App& app);
Action AddReconcileCommand(CLI::App& app);
Action AddServeCommand(CLI::App& app);
Action AddExplainCommand(CLI::App& app);

/// What `cdclake apply` was given for snapshot input (SEMANTICS §7); see apply_snapshots.cc.
struct SnapshotApplyArgs {
  std::string from_snapshots;    // --from-snapshots DIR: versioned snapshots, one file each
  std::string snapshot;          // --snapshot FILE: a source re-read on each run
  std::string snapshot_version;  // --snapshot-version V: FILE's version (default: the run time)
  std::string format;            // --format: csv, jsonl, parquet (default: each file's extension)
  std::string schema;            // --schema: types to read columns as
};

/// Applies the snapshots `args` names to `flow`'s target (keys, SCD type, columns and tracked
/// history from `flow`; the snapshot version is the sequence), prints the run's summary and
/// returns the exit code (0 ok, 1 failed, 2 bad usage).
int RunSnapshotApply(const apply::FlowDefinition& flow, const SnapshotApplyArgs& args);

/// True when `path` holds a `_delta_log` folder.
bool IsDeltaTable(const std::string& path);
/// The snapshot at `version`, or as of `timestamp` (text), or the latest.
Result<std::shared_ptr<const delta::Snapshot>> OpenSnapshot(const std::string& path,
                                                            std::optional<int64_t> version,
                                                            const std::string& timestamp);

/// Prints "cdclake: <message>" to stderr and returns 1.
int Fail(const Status& status);
/// The same for bad usage (an invalid option, pipeline or flow): returns 2.
int UsageFail(const Status& status);

/// Makes SIGINT and SIGTERM request a stop; returns the test of whether one was requested
/// (`run --continuous` and `serve` finish the batch in progress, then stop).
std::function<bool()> StopOnSignals();

/// "a, b,c" as {"a", "b", "c"} (names of a --columns-like option); empty for "".
std::vector<std::string> SplitList(const std::string& text);

}  // namespace cdclake::cli
