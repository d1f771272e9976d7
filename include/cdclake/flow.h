// Public API: AUTO CDC flows — a flow's definition and its checks, the applier that applies
// change batches to a Delta target, compaction, SQL conditions and column lists, and change
// sources (CSV/JSONL files, Debezium events, SQL Server CDC exports).
#pragma once

#include "apply/applier.h"                     // IWYU pragma: export
#include "apply/flow_definition.h"             // IWYU pragma: export
#include "apply/index_recovery.h"              // IWYU pragma: export
#include "apply/optimize.h"                    // IWYU pragma: export
#include "sources/change_source.h"             // IWYU pragma: export
#include "sources/files/change_file_reader.h"  // IWYU pragma: export
#include "sql/condition_parser.h"              // IWYU pragma: export
#include "sql/schema_ddl.h"                    // IWYU pragma: export
