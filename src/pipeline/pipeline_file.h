// A pipeline file read, parsed and planned against a warehouse: the one way `cdclake run`,
// `serve`, `explain` and the `cdclake` Python module turn a file into a plan.
#pragma once

#include <map>
#include <string>

#include "base/result.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/warehouse.h"

namespace cdclake::pipeline {

/// The plan of the pipeline file at `path`: SQL with `${name}` replaced from `vars`, or a .py
/// file run through its translator first (python_pipeline.h). Errors carry the file's name
/// and, for Python, the line of the declaring call; the plan's warnings are in its `warnings`
/// for the caller to show. With CDCLAKE_SHOW_PYTHON_SQL set, a Python file's SQL goes to stderr.
Result<PipelinePlan> PlanPipelineFile(const std::string& path,
                                      const std::map<std::string, std::string>& vars,
                                      const Warehouse& warehouse);

}  // namespace cdclake::pipeline
