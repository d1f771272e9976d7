// Pages: the monitoring page's HTML — every flow at a glance, one flow's recent batches and
// charts, one table's schema and history.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "server/flow_board.h"
#include "server/prometheus_text.h"
#include "server/table_facts.h"

namespace cdclake::server {

struct PageContext {
  std::string warehouse;
  int64_t now_ms = 0;
  int64_t refresh_ms = 2000;
};

/// `/`: each flow's state, source, target, last commit, rows/s, lag and row counts; each table's
/// version, files and rows.
std::string IndexPage(const PageContext& context, const std::vector<FlowCard>& cards,
                      const std::vector<TableGauge>& tables);

/// `/flow/NAME`: the flow's card, throughput and lag charts of its batches since serve started,
/// and its recent event-log rows.
std::string FlowPage(const PageContext& context, const FlowCard& card,
                     const Result<std::vector<LoggedBatch>>& logged);

/// `/table/NAME`: the table's version, files, rows, schema and recent commits; the flows
/// writing it.
std::string TablePage(const PageContext& context, const std::string& table,
                      const std::string& folder, const Result<TableFacts>& facts,
                      const Result<std::vector<CommitFacts>>& commits,
                      const std::vector<FlowCard>& writers);

/// A page saying `what` was not found.
std::string NotFoundPage(const PageContext& context, const std::string& what);

}  // namespace cdclake::server
