// EventLog: the warehouse's `_event_log` Delta table — one row per flow per batch saying when
// it ran, what input it covered, what it counted and which table version it wrote.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "io/file_system.h"

namespace cdclake::pipeline {

/// One flow's batch (or a flow's failure) as the event log records it.
struct EventLogEntry {
  int64_t time_ms = 0;     // when the batch finished (ms since the epoch)
  std::string run_id;      // one id per `cdclake run`
  std::string flow;        // the flow's name
  std::string target;      // the table it writes (canonical name)
  std::string input_from;  // the input position before the batch, e.g. "a.json@0"
  std::string input_to;    // the input position after it
  int64_t rows_read = 0;
  int64_t rows_applied = 0;
  int64_t rows_discarded = 0;
  int64_t rows_quarantined = 0;
  int64_t rows_inserted = 0;
  int64_t rows_updated = 0;
  int64_t rows_deleted = 0;
  std::optional<int64_t> table_version;  // the target's version the batch wrote, if any
  int64_t duration_ms = 0;
  std::string status;   // "ok", "no change" (nothing written), or "failed"
  std::string message;  // the error for "failed", else empty
  /// Lineage: which table `target` and `table_version` mean — its Delta table id
  /// (metaData.id; a full refresh makes a new one) — and, for a flow reading a table, the
  /// upstream's id that `input_from`/`input_to` versions are of. Empty when unknown (no table
  /// yet; a file source).
  std::string table_id;
  std::string input_table_id;
  /// On a flow's last batch of a pass: how far its source's upstream was ahead then
  /// (BatchSource::Lag: a PostgreSQL slot's WAL, Kafka messages); empty otherwise.
  std::string source_lag;
  /// The batch's data-quality details (DataQualityJson) as JSON text; empty when the flow
  /// has no expectations.
  std::string data_quality;
  /// "flow_progress" for a batch, "schema_change" for a column added, retyped or no longer
  /// sent (then `message` says which, `details` has it as JSON: table, column, old_type,
  /// new_type, action).
  std::string event_type = "flow_progress";
  std::string details;
};

/// The event log's columns: event_time TIMESTAMP, run_id, flow, target, input_from, input_to
/// STRING, rows_read ... rows_deleted BIGINT, table_version BIGINT (NULL when none was
/// written), duration_ms BIGINT, status STRING, message STRING, table_id STRING,
/// input_table_id STRING, source_lag STRING, data_quality STRING, event_type STRING, details
/// STRING (the last six added later: an older log gains them on its next append, NULL in its
/// rows).
data::Schema EventLogSchema();

/// Appends `entries` to the event log table at `table_root` (created when missing) in one
/// commit; returns its version, or nullopt when `entries` is empty.
Result<std::optional<int64_t>> AppendEventLog(io::FileSystem& fs, const std::string& table_root,
                                              const std::vector<EventLogEntry>& entries);

}  // namespace cdclake::pipeline
