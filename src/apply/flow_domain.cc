// FlowDomain: operation parameters to a domainMetadata action.
#include "apply/flow_domain.h"

namespace cdclake::apply {

std::string FlowDomainName(const std::string& flow) {
  return "cdclake.flow." + flow;
}

std::optional<delta::DomainMetadata> FlowDomain(const json::Json& operation_parameters) {
  if (!operation_parameters.is_object()) return std::nullopt;
  auto flow = operation_parameters.find("cdclake.flow");
  auto position = operation_parameters.find("cdclake.position");
  if (flow == operation_parameters.end() || !flow->is_string() ||
      position == operation_parameters.end() || !position->is_string()) {
    return std::nullopt;
  }
  auto parsed = json::Parse(position->get<std::string>());
  if (!parsed.ok()) return std::nullopt;
  json::Json configuration = json::Json::object();
  configuration["flow"] = *flow;
  configuration["position"] = std::move(*parsed);
  auto target = operation_parameters.find("cdclake.targetCommit");
  if (target != operation_parameters.end()) configuration["targetCommit"] = *target;
  delta::DomainMetadata domain;
  domain.domain = FlowDomainName(flow->get<std::string>());
  domain.configuration = json::Dump(configuration);
  return domain;
}

}  // namespace cdclake::apply
