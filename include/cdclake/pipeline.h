// Public API: running AUTO CDC flows over change files — input discovery (files, folders,
// globs), the flow runner with its exactly-once resume positions, and the positions themselves.
#pragma once

#include "cdclake/flow.h"                 // IWYU pragma: export
#include "pipeline/change_flow_runner.h"  // IWYU pragma: export
#include "pipeline/flow_position.h"       // IWYU pragma: export
#include "sources/input_discovery.h"      // IWYU pragma: export
