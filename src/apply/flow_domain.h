// FlowDomain: the Delta domainMetadata action that keeps a flow's input position in the table's
// state (so checkpoints keep it and log cleanup cannot lose it), built from the same operation
// parameters the flow's commitInfo carries.
#pragma once

#include <optional>
#include <string>

#include "delta/actions.h"
#include "json/json.h"

namespace cdclake::apply {

/// The domain of `flow`'s position: "cdclake.flow.<flow>".
std::string FlowDomainName(const std::string& flow);

/// The domainMetadata action recording what `operation_parameters` say of a flow: their
/// "cdclake.flow" (the flow), "cdclake.position" (its position, a JSON object serialized as a
/// string) and "cdclake.targetCommit" (quarantine commits), as the configuration
/// {"flow": name, "position": {...}, "targetCommit": "true"|"false"}. nullopt when the
/// parameters name no flow and position, or the position is not JSON.
std::optional<delta::DomainMetadata> FlowDomain(const json::Json& operation_parameters);

}  // namespace cdclake::apply
