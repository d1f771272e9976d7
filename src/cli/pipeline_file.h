// What `cdclake run` and `cdclake serve` share: --var and --interval values, and a pipeline
// file (SQL, or Python translated to SQL) read, parsed and planned against a warehouse.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cdclake/delta.h"
#include "cdclake/pipeline_run.h"

namespace cdclake::cli {

/// "name=value" strings as a map; kInvalidArgument naming the first malformed one.
Result<std::map<std::string, std::string>> ParseVars(const std::vector<std::string>& vars);

/// "250ms", "1s", "2.5s", "1m" as milliseconds.
Result<int64_t> ParseInterval(const std::string& text);

/// The plan of the pipeline file at `path` (a .py file runs through its translator first).
/// Errors carry the file's name (and, for Python, the line of the declaring call); the plan's
/// warnings are printed to stderr.
Result<pipeline::PipelinePlan> LoadPipelineFile(const std::string& path,
                                                const std::map<std::string, std::string>& vars,
                                                const pipeline::Warehouse& warehouse);

}  // namespace cdclake::cli
