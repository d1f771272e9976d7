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

namespace cdclake::pipeline {

/// commitInfo.operationParameters members: the flow's name, and its position (a JSON object
/// serialized as a string, since Delta readers expect string parameters).
inline constexpr const char* kFlowParameter = "cdclake.flow";
inline constexpr const char* kPositionParameter = "cdclake.position";
/// Set by the applier on quarantine commits: "false" when no target commit followed.
inline constexpr const char* kTargetCommitParameter = "cdclake.targetCommit";

struct FlowPosition {
  /// The run's input patterns; a position applies to a later run with the same ones.
  std::vector<std::string> inputs;
  /// Every record of `file` starting before `offset` was consumed, and every file before it.
  std::string file;
  int64_t offset = 0;
  /// How many files of the run's list sorted before `file`, and the last of them ("" when
  /// none): a later list with more, or with a file between the two, had one arrive late.
  int64_t files_before = 0;
  std::string previous_file;

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

/// A position as a commit recorded it.
struct RecordedPosition {
  FlowPosition position;
  int64_t version = -1;
  int64_t timestamp_ms = 0;  // the commit's
  /// Quarantine commits: whether a target commit was to follow (see kTargetCommitParameter).
  bool target_commit = true;
};

/// The newest commit of the table at `table_root` that records a position of `flow` over
/// `inputs`, found by reading commits backwards from the latest; nullopt when there is no
/// table or no commit left in the log records one.
Result<std::optional<RecordedPosition>> FindFlowPosition(const io::FileSystem& fs,
                                                         const std::string& table_root,
                                                         const std::string& flow,
                                                         const std::vector<std::string>& inputs);

}  // namespace cdclake::pipeline
