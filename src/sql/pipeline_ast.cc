// PipelineAst helpers: table names with and without the legacy LIVE schema, read_files options.
#include "sql/pipeline_ast.h"

#include "base/strings.h"

namespace cdclake::sql {

const char* ExpectationActionName(Expectation::Action action) {
  switch (action) {
    case Expectation::Action::kWarn:
      return "warn";
    case Expectation::Action::kDropRow:
      return "drop row";
    case Expectation::Action::kFailUpdate:
      return "fail update";
  }
  return "warn";
}

bool TableName::HasLivePrefix() const {
  return parts.size() >= 2 && ToLower(parts.front()) == "live";
}

std::vector<std::string> TableName::WithoutLive() const {
  if (!HasLivePrefix()) return parts;
  return std::vector<std::string>(parts.begin() + 1, parts.end());
}

std::string TableName::ToString() const {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out.push_back('.');
    out.append(part);
  }
  return out;
}

const NamedArgument* SourceRef::FindOption(std::string_view name) const {
  std::string wanted = ToLower(name);
  for (const NamedArgument& option : options) {
    if (ToLower(option.name) == wanted) return &option;
  }
  return nullptr;
}

}  // namespace cdclake::sql
