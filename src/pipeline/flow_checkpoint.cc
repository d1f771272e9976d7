// Flow positions from a snapshot's domains (or, for older tables, its commits read backwards);
// batch numbers from its txns.
#include "pipeline/flow_checkpoint.h"

#include <variant>
#include <vector>

#include "apply/flow_domain.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "pipeline/flow_position.h"

namespace cdclake::pipeline {

namespace {

// The flow's domain in `snapshot`, when it has one.
Result<std::optional<FlowCommit>> FromDomain(const delta::Snapshot& snapshot,
                                             const std::string& flow) {
  auto found = snapshot.domains().find(apply::FlowDomainName(flow));
  if (found == snapshot.domains().end()) return std::optional<FlowCommit>();
  auto parsed = json::Parse(found->second.configuration);
  if (!parsed.ok() || !parsed->is_object()) {
    return Status::Corrupt(snapshot.table_root() + ": version " +
                           std::to_string(snapshot.version()) + " has a domain '" + found->first +
                           "' that is not a JSON object");
  }
  FlowCommit commit;
  commit.version = snapshot.version();
  commit.timestamp_ms = snapshot.timestamp_ms();
  if (parsed->contains("position")) commit.position = (*parsed)["position"];
  auto target = parsed->find("targetCommit");
  commit.target_commit = target == parsed->end() || *target != "false";
  return std::optional<FlowCommit>(std::move(commit));
}

// The newest commit left in the log whose commitInfo names `flow`.
Result<std::optional<FlowCommit>> FromCommitInfo(const io::FileSystem& fs,
                                                 const std::string& table_root,
                                                 const std::string& flow) {
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
      auto target = params.find(kTargetCommitParameter);
      commit.target_commit = target == params.end() || *target != "false";
      return std::optional<FlowCommit>(std::move(commit));
    }
  }
  return std::optional<FlowCommit>();
}

// "<table>/_cdclake/ledger/<flow>/unchanged.json".
std::string UnchangedPath(const std::string& table_root, const std::string& flow) {
  return io::JoinPath(LedgerFolder(table_root, flow), "unchanged.json");
}

// A table's id and latest version; "" and -1 when there is no table.
Result<std::pair<std::string, int64_t>> TableNow(const io::FileSystem& fs, const std::string& root,
                                                 const delta::Snapshot* latest = nullptr) {
  if (latest != nullptr) return std::make_pair(latest->metadata().id, latest->version());
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, root));
  if (!exists) return std::make_pair(std::string(), int64_t{-1});
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, root));
  return std::make_pair(snapshot->metadata().id, snapshot->version());
}

// The quarantine table's latest version (a listing of its log); -1 when there is none.
Result<int64_t> QuarantineVersionNow(const io::FileSystem& fs, const std::string& root) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, root));
  if (!exists) return int64_t{-1};
  CDCLAKE_ASSIGN_OR_RETURN(delta::LogSegment segment, delta::ListLogSegment(fs, root));
  return segment.latest_version;
}

}  // namespace

Status RecordUnchangedPosition(io::FileSystem& fs, const std::string& table_root,
                               const std::string& quarantine_root, const std::string& flow,
                               const json::Json& position) {
  CDCLAKE_ASSIGN_OR_RETURN(auto target, TableNow(fs, table_root));
  CDCLAKE_ASSIGN_OR_RETURN(int64_t quarantine, QuarantineVersionNow(fs, quarantine_root));
  json::Json record{{"tableId", target.first},
                    {"tableVersion", target.second},
                    {"quarantineVersion", quarantine},
                    {"position", position}};
  return fs.WriteFile(UnchangedPath(table_root, flow), json::Dump(record));
}

Result<std::optional<json::Json>> FindUnchangedPosition(const io::FileSystem& fs,
                                                        const std::string& table_root,
                                                        const std::string& quarantine_root,
                                                        const std::string& flow,
                                                        const delta::Snapshot* latest) {
  using Found = std::optional<json::Json>;
  const std::string path = UnchangedPath(table_root, flow);
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(path));
  if (!exists) return Found();
  auto text = fs.ReadFile(path);
  if (!text.ok()) return Found();
  auto record = json::Parse(*text);
  if (!record.ok() || !record->is_object() || !(*record)["tableId"].is_string() ||
      !(*record)["tableVersion"].is_number_integer() ||
      !(*record)["quarantineVersion"].is_number_integer() || !(*record)["position"].is_object()) {
    return Found();
  }
  CDCLAKE_ASSIGN_OR_RETURN(auto target, TableNow(fs, table_root, latest));
  CDCLAKE_ASSIGN_OR_RETURN(int64_t quarantine, QuarantineVersionNow(fs, quarantine_root));
  if (target.first != (*record)["tableId"].get<std::string>() ||
      target.second != (*record)["tableVersion"].get<int64_t>() ||
      quarantine != (*record)["quarantineVersion"].get<int64_t>()) {
    return Found();
  }
  return Found((*record)["position"]);
}

Result<std::optional<FlowCommit>> FindFlowCommit(const io::FileSystem& fs,
                                                 const std::string& table_root,
                                                 const std::string& flow,
                                                 const delta::Snapshot* latest) {
  std::shared_ptr<const delta::Snapshot> loaded;
  if (latest == nullptr) {
    CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
    if (!exists) return std::optional<FlowCommit>();
    CDCLAKE_ASSIGN_OR_RETURN(loaded, delta::Snapshot::Load(fs, table_root));
    latest = loaded.get();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> domain, FromDomain(*latest, flow));
  if (domain) return domain;
  return FromCommitInfo(fs, table_root, flow);
}

Result<int64_t> LastFlowBatch(const io::FileSystem& fs, const std::string& table_root,
                              const std::string& flow) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) return int64_t{0};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  return snapshot->TxnVersion(FlowAppId(flow)).value_or(0);
}

}  // namespace cdclake::pipeline
