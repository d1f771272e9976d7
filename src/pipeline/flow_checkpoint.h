// FlowCommit lookup: a flow's latest input position as a table records it — the flow's
// domainMetadata (apply/flow_domain.h), or for tables written before that, the newest commit
// whose commitInfo names it — as raw JSON, whatever kind of input it describes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::delta {
class Snapshot;
}

namespace cdclake::pipeline {

struct FlowCommit {
  int64_t version = -1;       // the commit's table version
  int64_t timestamp_ms = 0;   // the commit's timestamp
  json::Json position;        // the recorded position (null when the commit named none)
  bool target_commit = true;  // quarantine commits: "cdclake.targetCommit" was not "false"
};

/// `flow`'s position in the table at `table_root`: its domain "cdclake.flow.<flow>" in the
/// latest snapshot (checkpoint plus the commits after it; `version` is then the snapshot's),
/// else — a table last written by this flow before positions were domains — the newest commit
/// left in the log whose commitInfo names `flow`. nullopt when there is no table or neither
/// names the flow. kCorrupt for a position that is not JSON. `latest`: the table's latest
/// snapshot when the caller has it loaded already (it is not loaded again).
Result<std::optional<FlowCommit>> FindFlowCommit(const io::FileSystem& fs,
                                                 const std::string& table_root,
                                                 const std::string& flow,
                                                 const delta::Snapshot* latest = nullptr);

/// Where a flow's reading stopped after a batch that changed nothing (every event discarded as
/// applied already, nothing quarantined). SEMANTICS §8 allows no table version for it, so the
/// position (as the commit would have recorded it) is kept beside the table, in
/// "<table>/_cdclake/ledger/<flow>/unchanged.json", with the target's table id and version and
/// the quarantine table's version it was read against. Without it such input would be read
/// again by every run until a batch changed something.
Status RecordUnchangedPosition(io::FileSystem& fs, const std::string& table_root,
                               const std::string& quarantine_root, const std::string& flow,
                               const json::Json& position);

/// The position RecordUnchangedPosition kept, while the target (the same table id) and the
/// quarantine table are still at the versions it names: it is then later than any the tables
/// record. nullopt when there is none, when either table has moved on, or when it cannot be
/// read (the input after the tables' positions is then read again, which changes nothing).
/// `latest`: the target's latest snapshot when the caller has it loaded.
Result<std::optional<json::Json>> FindUnchangedPosition(const io::FileSystem& fs,
                                                        const std::string& table_root,
                                                        const std::string& quarantine_root,
                                                        const std::string& flow,
                                                        const delta::Snapshot* latest = nullptr);

/// The number of the flow's last batch committed to the table: its `txn` version (0: none).
Result<int64_t> LastFlowBatch(const io::FileSystem& fs, const std::string& table_root,
                              const std::string& flow);

}  // namespace cdclake::pipeline
