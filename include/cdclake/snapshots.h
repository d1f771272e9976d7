// Public API: AUTO CDC FROM SNAPSHOT — versioned snapshot files (or one file re-read each run)
// diffed against the previous snapshot and applied to a Delta target as SCD type 1 or 2.
#pragma once

#include "cdclake/flow.h"                    // IWYU pragma: export
#include "pipeline/snapshot_flow.h"          // IWYU pragma: export
#include "sources/snapshot/snapshot_diff.h"  // IWYU pragma: export
