// AUTO CDC / APPLY CHANGES flow bodies: the target, the source and the clauses in Databricks'
// documented order, for change feeds (FROM source) and for snapshots (FROM SNAPSHOT (source)).
#pragma once

#include <string>

#include "base/result.h"
#include "sql/pipeline_ast.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

/// What the statement parser read before the body: CREATE FLOW's name and comment (both empty
/// for a bare APPLY CHANGES INTO), the spelling and ONCE.
struct FlowHeader {
  std::string flow_name;
  std::string comment;
  AutoCdcFlow::Spelling spelling = AutoCdcFlow::Spelling::kAutoCdc;
  bool once = false;
  const Token* once_token = nullptr;  // for the error when ONCE meets FROM SNAPSHOT
};

/// Parses `target FROM source KEYS (...) ...` with the cursor just past INTO and returns an
/// AutoCdcFlow, or a SnapshotFlow for `FROM SNAPSHOT`. Clauses must come in the documented order:
/// KEYS, IGNORE NULL UPDATES, APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, SEQUENCE BY,
/// COLUMNS, STORED AS, TRACK HISTORY ON. Leaves the cursor on the first token after the flow.
Result<PipelineStatement::Body> ParseFlowBody(TokenStream& tokens, FlowHeader header);

}  // namespace cdclake::sql
