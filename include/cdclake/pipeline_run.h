// Public API: declarative pipelines — the pipeline SQL parser, planning a parsed file against a
// warehouse, and running the plan (once or continuously) with its event log.
#pragma once

#include "pipeline/event_log.h"        // IWYU pragma: export
#include "pipeline/pipeline_file.h"    // IWYU pragma: export
#include "pipeline/pipeline_plan.h"    // IWYU pragma: export
#include "pipeline/pipeline_runner.h"  // IWYU pragma: export
#include "pipeline/python_pipeline.h"  // IWYU pragma: export
#include "pipeline/warehouse.h"        // IWYU pragma: export
#include "sql/pipeline_parser.h"       // IWYU pragma: export
