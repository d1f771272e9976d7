// Public API: Delta tables — snapshots, reading, history.
#pragma once

#include "cdclake/parquet.h"        // IWYU pragma: export
#include "data/value_compare.h"     // IWYU pragma: export
#include "delta/log_segment.h"      // IWYU pragma: export
#include "delta/partition_value.h"  // IWYU pragma: export
#include "delta/snapshot.h"         // IWYU pragma: export
#include "delta/table_scan.h"       // IWYU pragma: export
