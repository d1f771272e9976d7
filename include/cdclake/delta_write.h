// Public API: writing Delta tables — creation, appends, row deletes, metadata changes.
#pragma once

#include "cdclake/delta.h"          // IWYU pragma: export
#include "delta/metadata_change.h"  // IWYU pragma: export
#include "delta/row_deleter.h"      // IWYU pragma: export
#include "delta/table_writer.h"     // IWYU pragma: export
#include "delta/transaction.h"      // IWYU pragma: export
