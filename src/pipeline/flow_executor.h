// FlowExecutor: one planned flow run once over what its source holds now — read after the
// flow's recorded position, transform, then append (streaming tables) or apply (AUTO CDC,
// snapshots), each batch committed with the position it reached.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "base/status.h"
#include "io/file_system.h"
#include "pipeline/expectations.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/postgres_slots.h"
#include "pipeline/schema_changes.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

/// One committed (or no-op) batch of a flow, as the event log and progress lines report it.
struct FlowBatchReport {
  std::string flow;
  std::string target;
  std::string input_from;
  std::string input_to;
  apply::ApplyCounts counts;  // ingest flows: read = applied (+ quarantined), inserted = rows
  std::optional<int64_t> table_version;
  int64_t files = 0;  // files finished in this batch
  int64_t duration_ms = 0;
  int64_t input_written_ms = 0;       // when its newest input was written (0: unknown)
  std::vector<std::string> warnings;  // said once per run (undeclared source columns, ...)
  std::string table_id;               // the target's Delta table id, once it exists
  std::string input_table_id;         // a table source's Delta table id
  /// The target's expectations over this batch's rows, and the rows they dropped.
  std::vector<ExpectationCount> expectations;
  int64_t dropped_by_expectations = 0;
  /// The target's columns this batch's commit added or retyped, and those its source no longer
  /// sends (SchemaWatch).
  std::vector<SchemaChange> schema_changes;
};

struct FlowExecution {
  int64_t batch_rows = 100'000;
  /// Processing time in ms since the epoch (ingest times, tombstone expiry, quarantine).
  std::function<int64_t()> clock_ms;
  bool persistent_index = true;
  /// Called after each batch.
  std::function<void(const FlowBatchReport&)> on_batch;
  /// Refreshing in full: the flow starts from the beginning of its source (the caller has
  /// emptied the target).
  bool full_refresh = false;
  /// --reset-position: the flow reads its source from the start, whatever position its target
  /// records; the next commit records the new one.
  bool reset_position = false;
  /// The replication slots this pass reads for several flows (read_postgres); nullptr: each
  /// flow reads its slot alone.
  PostgresSlots* postgres_slots = nullptr;
};

struct FlowOutcome {
  int64_t batches = 0;
  apply::ApplyCounts counts;
  std::vector<int64_t> versions;
  int64_t files = 0;
  std::vector<sources::SourceCount> source_counts;
  std::vector<sources::PendingFile> pending;  // records not whole yet (BatchSource::Pending)
  std::string input_from;
  std::string input_to;
  bool skipped = false;  // AUTO CDC ONCE after its first run
  /// Lines for the run's output about where reading started (BatchSource::Notices).
  std::vector<std::string> notices;
  /// How far the source's upstream was ahead when the flow finished (BatchSource::Lag); empty
  /// for files and tables.
  std::string source_lag;
  /// Every batch's expectation counts, summed.
  std::vector<ExpectationCount> expectations;
  /// What cdclake.schemaPolicy = 'block' stopped the flow for (action "blocked"), one per column.
  std::vector<SchemaChange> blocked;
};

/// What the first batch of an AUTO CDC flow whose target does not exist yet would refuse
/// (apply::CheckFirstBatchColumns: a misspelled column in COLUMNS, `* EXCEPT`, TRACK HISTORY,
/// IGNORE NULL UPDATES, keys, sequence, conditions), checked on the first rows its source holds
/// now (files read from the start, or an existing upstream table), nothing written.
/// kInvalidArgument "flow NAME: ..." as the run would fail; OK when the target exists, the
/// source has no rows yet, its upstream table does not exist yet, or it cannot be read (a
/// missing file is that flow's failure at run time, not a reason to stop the others).
Status CheckNewFlowColumns(io::FileSystem& fs, const FlowPlan& flow);

/// Runs `flow` once. `outcome` holds what was done, also when an error stops it.
Status ExecuteFlow(io::FileSystem& fs, const FlowPlan& flow, const FlowExecution& execution,
                   FlowOutcome* outcome);

}  // namespace cdclake::pipeline
