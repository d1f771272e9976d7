// Flow commits found by reading a table's commits backwards; batch numbers from its txns.
#include "pipeline/flow_checkpoint.h"

#include <variant>
#include <vector>

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "pipeline/flow_position.h"

namespace cdclake::pipeline {

Result<std::optional<FlowCommit>> FindFlowCommit(const io::FileSystem& fs,
                                                 const std::string& table_root,
                                                 const std::string& flow,
                                                 const PositionFilter& accept) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) return std::optional<FlowCommit>();
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::LogFile> commits, delta::ListCommits(fs, table_root));
  for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
    auto content = fs.ReadFile(delta::CommitPath(table_root, it->version));
    if (!content.ok()) {
      if (content.status().code() == StatusCode::kNotFound) continue;
      return content.status();
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions, delta::ParseActions(*content));
    for (const delta::Action& action : actions) {
      const auto* info = std::get_if<delta::CommitInfo>(&action);
      if (info == nullptr) continue;
      auto found = info->value.find("operationParameters");
      if (found == info->value.end() || !found->is_object()) continue;
      const json::Json& params = *found;
      auto name = params.find(kFlowParameter);
      if (name == params.end() || *name != flow) continue;
      FlowCommit commit;
      commit.version = it->version;
      commit.timestamp_ms =
          info->in_commit_timestamp.value_or(info->timestamp.value_or(it->modification_time_ms));
      auto position = params.find(kPositionParameter);
      if (position != params.end() && position->is_string()) {
        auto parsed = json::Parse(position->get<std::string>());
        if (!parsed.ok()) {
          return Status::Corrupt(table_root + ": version " + std::to_string(it->version) +
                                 " records a position for flow '" + flow +
                                 "' that is not JSON: " + parsed.status().message());
        }
        commit.position = std::move(*parsed);
      }
      if (accept) {
        auto taken = accept(commit.position);
        if (!taken.ok()) {
          return taken.status().WithContext(table_root + " version " + std::to_string(it->version) +
                                            ": " + kPositionParameter);
        }
        if (!*taken) continue;
      }
      auto target = params.find(kTargetCommitParameter);
      commit.target_commit = target == params.end() || *target != "false";
      return std::optional<FlowCommit>(std::move(commit));
    }
  }
  return std::optional<FlowCommit>();
}

Result<int64_t> LastFlowBatch(const io::FileSystem& fs, const std::string& table_root,
                              const std::string& flow) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) return int64_t{0};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  return snapshot->TxnVersion(FlowAppId(flow)).value_or(0);
}

}  // namespace cdclake::pipeline
