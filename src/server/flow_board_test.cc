// FlowBoard and PrometheusText: counters summed per batch, states from the passes, the
// duration histogram, readiness, and the text format's escaping.
#include "server/flow_board.h"

#include <gtest/gtest.h>

#include "server/http_routes.h"
#include "server/prometheus_text.h"
#include "sql/pipeline_parser.h"

namespace cdclake::server {
namespace {

pipeline::PipelinePlan Plan() {
  auto ast = sql::ParsePipeline(
      "CREATE OR REFRESH STREAMING TABLE s.bronze AS SELECT * FROM STREAM(read_files('in/*.csv', "
      "format => 'csv'));\n"
      "CREATE OR REFRESH STREAMING TABLE s.cur;\n"
      "CREATE FLOW cur AS AUTO CDC INTO s.cur FROM STREAM(s.bronze) KEYS (id) SEQUENCE BY seq;\n");
  EXPECT_TRUE(ast.ok()) << ast.status().ToString();
  auto plan = pipeline::PlanPipeline(*ast, pipeline::Warehouse("lake"));
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return *plan;
}

pipeline::FlowBatchReport Batch(const std::string& flow, int64_t read, int64_t duration_ms,
                                int64_t version) {
  pipeline::FlowBatchReport r;
  r.flow = flow;
  r.counts.read = read;
  r.counts.applied = read - 1;
  r.counts.discarded = 1;
  r.duration_ms = duration_ms;
  r.table_version = version;
  r.input_written_ms = 1'000;
  return r;
}

pipeline::PipelineRunSummary Summary(Status bronze, std::string cur_skipped = "") {
  pipeline::PipelineRunSummary s;
  s.flows.push_back({"s.bronze", "s.bronze", {}, bronze, {}, {}});
  s.flows.back().failures_in_row = bronze.ok() ? 0 : 1;
  s.flows.push_back({"cur", "s.cur", {}, Status::OK(), std::move(cur_skipped), {}});
  s.flows.back().upstream_failed = s.flows.back().skipped.rfind("upstream table", 0) == 0;
  return s;
}

TEST(FlowBoardTest, BatchesAddUpAndPassesSetTheState) {
  FlowBoard board;
  board.AddPipeline("p.sql", Plan());
  EXPECT_FALSE(board.Started());
  board.OnBatch(Batch("cur", 10, 40, 1), 3'000);
  board.OnBatch(Batch("cur", 5, 700, 2), 4'500);
  board.OnBatch(Batch("unknown", 5, 700, 2), 4'500);  // ignored
  board.OnPass(Summary(Status::OK()));
  EXPECT_TRUE(board.Started());
  std::optional<FlowCard> cur = board.Card("cur");
  ASSERT_TRUE(cur);
  EXPECT_EQ(cur->kind, "auto cdc");
  EXPECT_EQ(cur->source, "table s.bronze");
  EXPECT_EQ(cur->batches, 2);
  EXPECT_EQ(cur->rows_read, 15);
  EXPECT_EQ(cur->rows_applied, 13);
  EXPECT_EQ(cur->rows_discarded, 2);
  EXPECT_EQ(cur->last_version, 2);
  EXPECT_EQ(cur->last_commit_ms, 4'500);
  EXPECT_EQ(cur->last_lag_ms, 3'500);
  EXPECT_EQ(cur->state, "ok");
  // 15 rows within the last minute.
  EXPECT_DOUBLE_EQ(cur->RowsPerSecond(10'000), 15.0 / 60.0);
  EXPECT_DOUBLE_EQ(cur->RowsPerSecond(63'500), 5.0 / 60.0);  // the first batch is out
  EXPECT_DOUBLE_EQ(cur->RowsPerSecond(65'000), 0);
  EXPECT_EQ(Readiness(board.Cards()).first, true);

  board.OnPass(Summary(Status::Conflict("bad input"), "upstream table s.bronze failed"));
  EXPECT_EQ(board.Card("s.bronze")->state, "failed");
  EXPECT_EQ(board.Card("s.bronze")->failures, 1);
  EXPECT_EQ(board.Card("cur")->state, "waiting");
  auto [ready, text] = Readiness(board.Cards());
  EXPECT_FALSE(ready);
  EXPECT_NE(text.find("flow s.bronze: failed: conflict: bad input"), std::string::npos) << text;
  EXPECT_NE(text.find("flow cur: waiting"), std::string::npos) << text;
  // The same failure seen again in the next pass is not counted twice.
  board.OnPass(Summary(Status::Conflict("bad input"), "upstream table s.bronze failed"));
  EXPECT_EQ(board.Card("s.bronze")->failures, 1);
  board.OnPass(Summary(Status::OK()));
  EXPECT_EQ(board.Card("s.bronze")->state, "ok");
  EXPECT_TRUE(Readiness(board.Cards()).first);
}

TEST(PrometheusTextTest, HistogramIsCumulativeAndLabelsAreEscaped) {
  FlowBoard board;
  board.AddPipeline("dir/\"odd\"\\name.sql", Plan());
  board.OnBatch(Batch("cur", 10, 40, 1), 3'000);       // <= 0.05 s
  board.OnBatch(Batch("cur", 10, 700, 2), 4'000);      // <= 1 s
  board.OnBatch(Batch("cur", 10, 400'000, 3), 5'000);  // above every bound: +Inf only
  board.OnPass(Summary(Status::OK()));
  TableFacts facts;
  facts.version = 3;
  facts.files = 2;
  facts.rows = 7;
  std::string text =
      PrometheusText(board.Cards(), {{"s.cur", facts, ""}, {"s.bronze", std::nullopt, ""}});
  const std::string labels =
      "flow=\"cur\",target=\"s.cur\",pipeline=\"dir/\\\"odd\\\"\\\\name.sql\"";
  auto has = [&](const std::string& line) {
    EXPECT_NE(text.find("\n" + line + "\n"), std::string::npos) << line << "\nin\n" << text;
  };
  has("cdclake_flow_rows_read_total{" + labels + "} 30");
  has("cdclake_flow_batch_duration_seconds_bucket{" + labels + ",le=\"0.05\"} 1");
  has("cdclake_flow_batch_duration_seconds_bucket{" + labels + ",le=\"0.5\"} 1");
  has("cdclake_flow_batch_duration_seconds_bucket{" + labels + ",le=\"1\"} 2");
  has("cdclake_flow_batch_duration_seconds_bucket{" + labels + ",le=\"300\"} 2");
  has("cdclake_flow_batch_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} 3");
  has("cdclake_flow_batch_duration_seconds_count{" + labels + "} 3");
  has("cdclake_flow_batch_duration_seconds_sum{" + labels + "} 400.74");
  has("cdclake_flow_last_commit_timestamp_seconds{" + labels + "} 5");
  has("cdclake_flow_up{" + labels + "} 1");
  has("cdclake_table_rows{table=\"s.cur\"} 7");
  has("# TYPE cdclake_flow_batch_duration_seconds histogram");
  // A table not created yet has no samples; bronze never committed has no commit time.
  EXPECT_EQ(text.find("table=\"s.bronze\""), std::string::npos);
  EXPECT_EQ(text.find("cdclake_flow_last_commit_timestamp_seconds{flow=\"s.bronze\""),
            std::string::npos);
  EXPECT_EQ(EscapeLabel("a\nb"), "a\\nb");
}

TEST(HttpRoutesTest, ALoopbackServerAnswersLoopbackHostsOnly) {
  RouteContext loopback;
  loopback.host = "127.0.0.1";
  loopback.port = 8080;
  EXPECT_TRUE(HostAllowed(loopback, "127.0.0.1:8080"));
  EXPECT_TRUE(HostAllowed(loopback, "localhost:8080"));
  EXPECT_TRUE(HostAllowed(loopback, "[::1]:8080"));
  EXPECT_FALSE(HostAllowed(loopback, "attacker.example:8080"));
  EXPECT_FALSE(HostAllowed(loopback, "127.0.0.1:9090"));
  EXPECT_FALSE(HostAllowed(loopback, ""));
  RouteContext open;
  open.host = "0.0.0.0";
  open.port = 8080;
  EXPECT_TRUE(HostAllowed(open, "dashboard.internal:8080"));
}

}  // namespace
}  // namespace cdclake::server
