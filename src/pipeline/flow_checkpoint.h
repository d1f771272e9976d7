// FlowCommit lookup: the newest commit of a table that records a flow's input position in its
// commitInfo (kFlowParameter, kPositionParameter), with the position as raw JSON, whatever kind
// of input it describes (files, a table's versions).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::pipeline {

struct FlowCommit {
  int64_t version = -1;       // the commit's table version
  int64_t timestamp_ms = 0;   // the commit's timestamp
  json::Json position;        // the recorded position (null when the commit named none)
  bool target_commit = true;  // quarantine commits: "cdclake.targetCommit" was not "false"
};

/// Whether a recorded position is the one looked for (e.g. a position over the same inputs).
using PositionFilter = std::function<Result<bool>(const json::Json& position)>;

/// Reads commits of the table at `table_root` backwards from the latest until one whose
/// commitInfo names `flow` (and whose position `accept` takes, when given); nullopt when there
/// is no table or no commit left in the log names it. kCorrupt for a position that is not JSON.
Result<std::optional<FlowCommit>> FindFlowCommit(const io::FileSystem& fs,
                                                 const std::string& table_root,
                                                 const std::string& flow,
                                                 const PositionFilter& accept = nullptr);

/// The number of the flow's last batch committed to the table: its `txn` version (0: none).
Result<int64_t> LastFlowBatch(const io::FileSystem& fs, const std::string& table_root,
                              const std::string& flow);

}  // namespace cdclake::pipeline
