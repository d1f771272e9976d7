// FlowPosition: its JSON form and the backwards search of a table's commits for it.
#include "pipeline/flow_position.h"

#include <algorithm>
#include <utility>

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "io/canonical_path.h"
#include "pipeline/flow_checkpoint.h"

namespace cdclake::pipeline {

json::Json FlowPosition::ToJson() const {
  json::Json out{{"file", file}, {"offset", offset}, {"source", source}, {"inputs", inputs}};
  if (ledger) out["ledger"] = ledger->ToJson();
  if (batch > 0) out["batch"] = batch;
  return out;
}

Result<FlowPosition> FlowPosition::FromJson(const json::Json& value) {
  if (!value.is_object()) return Status::Corrupt("a flow position is not a JSON object");
  FlowPosition p;
  CDCLAKE_ASSIGN_OR_RETURN(p.file, json::GetString(value, "file"));
  CDCLAKE_ASSIGN_OR_RETURN(p.offset, json::GetInt(value, "offset"));
  CDCLAKE_ASSIGN_OR_RETURN(auto batch, json::OptInt(value, "batch"));
  p.batch = batch.value_or(0);
  if (value.contains("ledger")) {
    CDCLAKE_ASSIGN_OR_RETURN(LedgerRef ref, LedgerRef::FromJson(value["ledger"]));
    p.ledger = std::move(ref);
  }
  for (auto [name, into] : {std::pair{"inputs", &p.inputs}, std::pair{"source", &p.source}}) {
    if (!value.contains(name)) continue;
    const json::Json& list = value[name];
    if (!list.is_array())
      return Status::Corrupt(std::string("a flow position's ") + name + " is not a list");
    for (const json::Json& i : list) {
      if (!i.is_string())
        return Status::Corrupt(std::string("a flow position's ") + name + " holds a non-string");
      into->push_back(i.get<std::string>());
    }
  }
  return p;
}

std::string FlowPosition::ToString() const {
  return file + "@" + std::to_string(offset);
}

std::string FlowAppId(const std::string& flow) {
  return "cdclake-flow-" + flow;
}

json::Json PositionParameters(const std::string& flow, const FlowPosition& position) {
  return json::Json{{kFlowParameter, flow}, {kPositionParameter, json::Dump(position.ToJson())}};
}

Result<std::optional<RecordedPosition>> FindFlowPosition(const io::FileSystem& fs,
                                                         const std::string& table_root,
                                                         const std::string& flow,
                                                         const delta::Snapshot* latest) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> commit,
                           FindFlowCommit(fs, table_root, flow, latest));
  if (!commit || commit->position.is_null()) return std::optional<RecordedPosition>();
  RecordedPosition recorded;
  auto position = FlowPosition::FromJson(commit->position);
  if (!position.ok()) {
    return position.status().WithContext(table_root + ": the position of flow '" + flow + "'");
  }
  recorded.position = std::move(*position);
  recorded.version = commit->version;
  recorded.timestamp_ms = commit->timestamp_ms;
  recorded.target_commit = commit->target_commit;
  return std::optional<RecordedPosition>(std::move(recorded));
}

namespace {

std::string Listed(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

Status CheckSameSource(const io::FileSystem& fs, const FlowPosition& recorded,
                       const std::vector<std::string>& source, const std::string& flow,
                       const std::string& table) {
  std::vector<std::string> before = recorded.source;
  if (before.empty()) {
    for (const std::string& input : recorded.inputs) {
      CDCLAKE_ASSIGN_OR_RETURN(std::string canonical, io::Canonical(fs, input));
      before.push_back(std::move(canonical));
    }
  }
  std::vector<std::string> a = before, b = source;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a == b) return Status::OK();
  return Status::InvalidArgument(
      "flow '" + flow + "' has read " + Listed(before) + " into " + table + " (up to " +
      recorded.ToString() + "), but its source is now " + Listed(source) +
      "; a position in one source means nothing in another. To read the new source from its "
      "start, refresh " +
      table + " in full (--full-refresh " + table +
      "), or keep the table and run once with --reset-position " + flow);
}

}  // namespace cdclake::pipeline
