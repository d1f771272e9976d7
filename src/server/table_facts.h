// TableFacts: what the monitoring page and /metrics show of a Delta table — its version, files,
// rows, columns and recent commits — and a flow's recent rows of the warehouse's event log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "io/file_system.h"

namespace cdclake::server {

struct TableFacts {
  int64_t version = -1;
  int64_t files = 0;
  int64_t rows = -1;  // -1: a file without statistics
  int64_t bytes = 0;
  int64_t timestamp_ms = 0;  // the latest commit's
  data::Schema schema;
  std::vector<std::string> partition_columns;
};

/// The table at `folder` now; kNotFound when it does not exist yet.
Result<TableFacts> LoadTableFacts(const io::FileSystem& fs, const std::string& folder);

struct CommitFacts {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;
  std::string metrics;  // operationMetrics as JSON text
};

/// The newest `limit` commits of the table at `folder`, newest first.
Result<std::vector<CommitFacts>> RecentCommits(const io::FileSystem& fs, const std::string& folder,
                                               size_t limit);

/// One event-log row, as the flow page lists it.
struct LoggedBatch {
  int64_t time_ms = 0;
  std::string event_type;
  std::string input_to;
  int64_t rows_read = 0;
  int64_t rows_applied = 0;
  int64_t rows_discarded = 0;
  int64_t rows_quarantined = 0;
  std::optional<int64_t> table_version;
  int64_t duration_ms = 0;
  std::string status;
  std::string message;
};

/// The newest `limit` event-log rows of `flow` in the event log at `folder` (newest first),
/// reading its newest files first; empty when there is no event log yet.
Result<std::vector<LoggedBatch>> RecentLoggedBatches(const io::FileSystem& fs,
                                                     const std::string& folder,
                                                     const std::string& flow, size_t limit);

}  // namespace cdclake::server
