// Public API: Delta tables — snapshots, reading, history, checkpoints and maintenance.
#pragma once

#include "cdclake/parquet.h"          // IWYU pragma: export
#include "data/value_compare.h"       // IWYU pragma: export
#include "delta/checkpoint_writer.h"  // IWYU pragma: export
#include "delta/log_segment.h"        // IWYU pragma: export
#include "delta/partition_value.h"    // IWYU pragma: export
#include "delta/snapshot.h"           // IWYU pragma: export
#include "delta/table_check.h"        // IWYU pragma: export
#include "delta/table_scan.h"         // IWYU pragma: export
#include "delta/vacuum.h"             // IWYU pragma: export
