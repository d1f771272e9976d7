// PrometheusText: /metrics in Prometheus' text exposition format (version 0.0.4) — per flow its
// row counters, state, last commit, lag and a batch-duration histogram; per table its version,
// files and rows.
#pragma once

#include <string>
#include <vector>

#include "server/flow_board.h"
#include "server/table_facts.h"

namespace cdclake::server {

/// A table as /metrics reports it; `facts` empty when it does not exist yet or cannot be read.
struct TableGauge {
  std::string table;
  std::optional<TableFacts> facts;
  std::string error;  // why it could not be read (empty: it exists, or not yet)
};

std::string PrometheusText(const std::vector<FlowCard>& cards,
                           const std::vector<TableGauge>& tables);

/// `text` as a label value: backslash, double quote and line feed escaped.
std::string EscapeLabel(const std::string& text);

}  // namespace cdclake::server
