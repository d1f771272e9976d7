// `cdclake apply --from-snapshots DIR | --snapshot FILE`: full snapshots diffed against the
// previous one and applied as changes (SEMANTICS §7).
#include <iostream>

#include "cli/commands.h"

namespace cdclake::cli {

int RunSnapshotApply(const apply::FlowDefinition& flow, const SnapshotApplyArgs& args) {
  (void)flow;
  (void)args;
  return Fail(Status::NotSupported("snapshot input is not built yet"));
}

}  // namespace cdclake::cli
