// Public API: the change data feed of a Delta table (row-level changes between versions).
#pragma once

#include "cdclake/delta.h"      // IWYU pragma: export
#include "delta/change_feed.h"  // IWYU pragma: export
