// Expectations: a table's CONSTRAINT ... EXPECT checks applied to the rows a flow writes into it,
// before the append or the merge: counted, dropped into the flow's quarantine (ON VIOLATION DROP
// ROW) or stopping the flow before anything of the batch is committed (ON VIOLATION FAIL UPDATE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "json/json.h"
#include "pipeline/pipeline_plan.h"

namespace cdclake::pipeline {

/// One expectation's outcome over the rows it saw.
struct ExpectationCount {
  std::string name;
  std::string dataset;  // the table or view that declares it
  sql::Expectation::Action action = sql::Expectation::Action::kWarn;
  int64_t passed = 0;
  int64_t failed = 0;
};

/// Adds `more` to `totals`, expectation by expectation (by name).
void AddExpectationCounts(const std::vector<ExpectationCount>& more,
                          std::vector<ExpectationCount>* totals);

/// Checks `flow.expectations` on every row of `batch`, except an AUTO CDC flow's deletes and
/// truncates (its APPLY AS DELETE / TRUNCATE conditions TRUE: applied unchecked, not counted)
/// and, on such a flow's other rows, an expectation whose condition reads a cell the row leaves
/// as it is (marked unchanged, or NULL under IGNORE NULL UPDATES). A row passes an expectation
/// when its condition is TRUE (FALSE and NULL fail). Each
/// expectation's passed and failed rows are added to `counts`. Rows failing an ON VIOLATION DROP
/// ROW expectation leave the rows as rejected records whose reason names each expectation they
/// failed (the flow quarantines them: nothing is lost). A row failing an ON VIOLATION FAIL UPDATE
/// expectation is kInvalidArgument naming the expectation, its condition and the row; the caller
/// commits nothing of the batch. A condition over a column the rows do not have is kInvalidArgument
/// naming the expectation.
Result<change::ChangeBatch> ApplyExpectations(const FlowPlan& flow, change::ChangeBatch batch,
                                              std::vector<ExpectationCount>* counts);

/// The same for `expectations` declared by `dataset` (a view the flow reads through), on the
/// rows that view yields.
Result<change::ChangeBatch> ApplyExpectations(const FlowPlan& flow,
                                              const std::vector<sql::Expectation>& expectations,
                                              const std::string& dataset, change::ChangeBatch batch,
                                              std::vector<ExpectationCount>* counts);

/// The event log's data-quality details of a batch, as Databricks' flow_progress event has them:
/// {"dropped_records": N, "expectations": [{"name", "dataset", "passed_records",
/// "failed_records"}]}; null when the flow has no expectations. `dropped`: the rows dropped.
json::Json DataQualityJson(const std::string& dataset, const std::vector<ExpectationCount>& counts,
                           int64_t dropped);

}  // namespace cdclake::pipeline
