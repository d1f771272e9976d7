// FlowPosition: where a flow stopped reading its input (file and byte offset, plus what the
// check for files arriving out of order needs), how commits record it, and finding it again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"
#include "json/json.h"
#include "pipeline/file_ledger.h"

namespace cdclake::delta {
class Snapshot;
}

namespace cdclake::pipeline {

/// commitInfo.operationParameters members: the flow's name, and its position (a JSON object
/// serialized as a string, since Delta readers expect string parameters).
inline constexpr const char* kFlowParameter = "cdclake.flow";
inline constexpr const char* kPositionParameter = "cdclake.position";
/// Set by the applier on quarantine commits: "false" when no target commit followed.
inline constexpr const char* kTargetCommitParameter = "cdclake.targetCommit";

struct FlowPosition {
  /// What the run read: its inputs as io::FileSystem::Canonical spells them (absolute, normal,
  /// symbolic links resolved). A position applies to a later run over the same source however
  /// that run spells it; another source is an error (see CheckSameSource).
  std::vector<std::string> source;
  /// The inputs as the run that recorded it wrote them (for messages). Positions recorded before
  /// `source` existed have only these.
  std::vector<std::string> inputs;
  /// Every record of `file` starting before `offset` was consumed, and every file before it.
  std::string file;
  int64_t offset = 0;
  /// The file ledger after the batch (every file read so far, see file_ledger.h); nullopt in
  /// positions recorded before the ledger, which mean: every file sorting before `file` is done.
  std::optional<LedgerRef> ledger;
  /// The flow's batch number (txn version) the position was recorded for; 0 when unknown. A
  /// quarantine commit's position with a higher number than the target's batches is later.
  int64_t batch = 0;

  json::Json ToJson() const;
  /// kCorrupt naming the missing or mistyped member.
  static Result<FlowPosition> FromJson(const json::Json& value);
  /// "<file>@<offset>".
  std::string ToString() const;
};

/// The `txn` application id of a flow's commits: "cdclake-flow-<name>".
std::string FlowAppId(const std::string& flow);

/// The operation parameters recording `position` for `flow`.
json::Json PositionParameters(const std::string& flow, const FlowPosition& position);

/// A position as the table records it.
struct RecordedPosition {
  FlowPosition position;
  /// The table version it was read at (from the flow's domain), or the commit that recorded it
  /// (commitInfo, tables written before positions were kept as domains).
  int64_t version = -1;
  int64_t timestamp_ms = 0;  // that version's
  /// Quarantine commits: whether a target commit was to follow (see kTargetCommitParameter).
  bool target_commit = true;
};

/// The latest position of `flow` the table at `table_root` records (FindFlowCommit); nullopt
/// when there is no table or it records none.
Result<std::optional<RecordedPosition>> FindFlowPosition(const io::FileSystem& fs,
                                                         const std::string& table_root,
                                                         const std::string& flow,
                                                         const delta::Snapshot* latest = nullptr);

/// kInvalidArgument when `recorded` is a position over another source than `source` (both
/// canonical): names both, and says to refresh `table` in full or reset the flow's position.
/// A position recorded before sources were canonical is compared after canonicalizing its
/// inputs as spelled (relative ones against the working folder now).
Status CheckSameSource(const io::FileSystem& fs, const FlowPosition& recorded,
                       const std::vector<std::string>& source, const std::string& flow,
                       const std::string& table);

}  // namespace cdclake::pipeline
