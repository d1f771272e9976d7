// FlowBoard: the flows' live state under one mutex; callbacks write, pages and /metrics copy.
#include "server/flow_board.h"

#include <algorithm>

namespace cdclake::server {

namespace {

constexpr size_t kRecentBatches = 240;
constexpr int64_t kRateWindowMs = 60'000;

std::string KindName(pipeline::FlowPlan::Kind kind) {
  switch (kind) {
    case pipeline::FlowPlan::Kind::kIngest:
      return "append";
    case pipeline::FlowPlan::Kind::kAutoCdc:
      return "auto cdc";
    case pipeline::FlowPlan::Kind::kSnapshot:
      return "snapshot";
  }
  return "";
}

}  // namespace

const std::vector<double>& DurationBounds() {
  static const std::vector<double> bounds = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  return bounds;
}

double FlowCard::RowsPerSecond(int64_t now_ms) const {
  int64_t rows = 0;
  for (const BatchPoint& p : recent) {
    if (p.time_ms > now_ms - kRateWindowMs) rows += p.rows;
  }
  return static_cast<double>(rows) * 1000.0 / kRateWindowMs;
}

void FlowBoard::AddPipeline(const std::string& pipeline, const pipeline::PipelinePlan& plan) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const pipeline::FlowPlan& f : plan.flows) {
    FlowCard card;
    card.pipeline = pipeline;
    card.flow = f.name;
    card.target = f.target;
    card.target_folder = f.target_folder;
    card.source = f.source.Describe();
    card.kind = KindName(f.kind);
    card.duration_counts.assign(DurationBounds().size() + 1, 0);
    by_flow_[f.name] = cards_.size();
    cards_.push_back(std::move(card));
  }
}

void FlowBoard::OnBatch(const pipeline::FlowBatchReport& r, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_flow_.find(r.flow);
  if (it == by_flow_.end()) return;
  FlowCard& card = cards_[it->second];
  ++card.batches;
  card.rows_read += r.counts.read;
  card.rows_applied += r.counts.applied;
  card.rows_discarded += r.counts.discarded;
  card.rows_quarantined += r.counts.quarantined;
  card.rows_inserted += r.counts.inserted;
  card.rows_updated += r.counts.updated;
  card.rows_deleted += r.counts.deleted;
  for (const pipeline::ExpectationCount& e : r.expectations) card.expectation_failed += e.failed;
  card.rows_dropped += r.dropped_by_expectations;
  BatchPoint point;
  point.time_ms = now_ms;
  point.rows = r.counts.read;
  point.duration_ms = r.duration_ms;
  if (r.input_written_ms > 0) point.lag_ms = std::max<int64_t>(0, now_ms - r.input_written_ms);
  point.version = r.table_version;
  if (r.table_version) {
    card.last_commit_ms = now_ms;
    card.last_version = r.table_version;
  }
  if (point.lag_ms >= 0) card.last_lag_ms = point.lag_ms;
  const double seconds = static_cast<double>(r.duration_ms) / 1000.0;
  const std::vector<double>& bounds = DurationBounds();
  size_t bucket = std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin();
  ++card.duration_counts[bucket];
  card.duration_sum_s += seconds;
  card.recent.push_back(point);
  if (card.recent.size() > kRecentBatches) card.recent.pop_front();
}

void FlowBoard::OnPass(const pipeline::PipelineRunSummary& summary) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const pipeline::FlowSummary& f : summary.flows) {
    auto it = by_flow_.find(f.flow);
    if (it == by_flow_.end()) continue;
    FlowCard& card = cards_[it->second];
    if (f.failures_in_row > card.failures_in_row) card.failures += 1;
    card.failures_in_row = f.failures_in_row;
    card.retry_at_ms = f.retry_at_ms;
    if (!f.status.ok()) {
      card.state = "failed";
      card.message = f.status.ToString();
    } else if (!f.skipped.empty()) {
      card.state = f.upstream_failed ? "waiting" : "skipped";
      card.message = f.skipped;
    } else {
      card.state = "ok";
      card.message.clear();
    }
  }
}

std::vector<FlowCard> FlowBoard::Cards() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cards_;
}

std::optional<FlowCard> FlowBoard::Card(const std::string& flow) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_flow_.find(flow);
  if (it == by_flow_.end()) return std::nullopt;
  return cards_[it->second];
}

bool FlowBoard::Started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::none_of(cards_.begin(), cards_.end(),
                      [](const FlowCard& c) { return c.state == "starting"; });
}

}  // namespace cdclake::server
