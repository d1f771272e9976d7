// FlowPosition: its JSON form and the backwards search of a table's commits for it.
#include "pipeline/flow_position.h"

#include "delta/actions.h"
#include "delta/log_segment.h"
#include "pipeline/flow_checkpoint.h"

namespace cdclake::pipeline {

json::Json FlowPosition::ToJson() const {
  return json::Json{{"file", file},
                    {"offset", offset},
                    {"filesBefore", files_before},
                    {"previousFile", previous_file},
                    {"inputs", inputs}};
}

Result<FlowPosition> FlowPosition::FromJson(const json::Json& value) {
  if (!value.is_object()) return Status::Corrupt("a flow position is not a JSON object");
  FlowPosition p;
  CDCLAKE_ASSIGN_OR_RETURN(p.file, json::GetString(value, "file"));
  CDCLAKE_ASSIGN_OR_RETURN(p.offset, json::GetInt(value, "offset"));
  CDCLAKE_ASSIGN_OR_RETURN(auto before, json::OptInt(value, "filesBefore"));
  p.files_before = before.value_or(0);
  CDCLAKE_ASSIGN_OR_RETURN(auto previous, json::OptString(value, "previousFile"));
  p.previous_file = previous.value_or("");
  if (value.contains("inputs")) {
    const json::Json& inputs = value["inputs"];
    if (!inputs.is_array()) return Status::Corrupt("a flow position's inputs are not a list");
    for (const json::Json& i : inputs) {
      if (!i.is_string()) return Status::Corrupt("a flow position's input is not a string");
      p.inputs.push_back(i.get<std::string>());
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
                                                         const std::vector<std::string>& inputs) {
  // A run of the flow over other inputs recorded a position that does not apply here.
  auto same_inputs = [&inputs](const json::Json& position) -> Result<bool> {
    CDCLAKE_ASSIGN_OR_RETURN(FlowPosition p, FlowPosition::FromJson(position));
    return p.inputs == inputs;
  };
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> commit,
                           FindFlowCommit(fs, table_root, flow, same_inputs));
  if (!commit) return std::optional<RecordedPosition>();
  RecordedPosition recorded;
  CDCLAKE_ASSIGN_OR_RETURN(recorded.position, FlowPosition::FromJson(commit->position));
  recorded.version = commit->version;
  recorded.timestamp_ms = commit->timestamp_ms;
  recorded.target_commit = commit->target_commit;
  return std::optional<RecordedPosition>(std::move(recorded));
}

}  // namespace cdclake::pipeline
