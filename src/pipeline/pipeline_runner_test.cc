// RunPipeline's retries: a failed flow waits retry_min_ms, doubled per failure in a row, while
// the others go on, and succeeds again once its input is mended; without retries it stays
// stopped. Driven by a clock that moves only between passes.
#include "pipeline/pipeline_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/local_file_system.h"
#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {
namespace {

class PipelineRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cdclake_runner_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "in");
    std::filesystem::create_directories(dir_ / "ok");
    Write("in/f1.csv", "id,v\n1,a\n");
    Write("ok/f1.csv", "id,v\n1,a\n");
    auto ast = sql::ParsePipeline(
        "CREATE OR REFRESH STREAMING TABLE s.blocked TBLPROPERTIES ('cdclake.schemaPolicy' = "
        "'block') AS SELECT * FROM STREAM(read_files('" +
        (dir_ / "in/*.csv").string() +
        "', format => 'csv'));\n"
        "CREATE OR REFRESH STREAMING TABLE s.fine AS SELECT * FROM STREAM(read_files('" +
        (dir_ / "ok/*.csv").string() + "', format => 'csv'));\n");
    ASSERT_TRUE(ast.ok()) << ast.status().ToString();
    auto plan = PlanPipeline(*ast, Warehouse((dir_ / "lake").string()));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    plan_ = std::move(*plan);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  // A new column after the table exists: 'block' stops the flow.
  void Break() { Write("in/f2.csv", "id,v,extra\n2,b,x\n"); }
  void Mend() { std::filesystem::remove(dir_ / "in/f2.csv"); }

  // Runs `passes` passes; `between(pass)` runs after each (the input breaks after the first),
  // then the clock moves on by `step_ms`. Returns each pass's state of the blocked flow:
  // failures in a row, or -1 when ok.
  std::vector<int64_t> Run(int64_t passes, int64_t retry_min_ms, int64_t step_ms,
                           const std::function<void(int64_t)>& between = {}) {
    int64_t now = 1'800'000'000'000;
    PipelineRunOptions options;
    options.continuous = true;
    options.interval_ms = 0;
    options.max_passes = passes;
    options.retry_min_ms = retry_min_ms;
    options.retry_max_ms = 4'000;
    options.persistent_index = false;
    options.clock_ms = [&] { return now; };
    std::vector<int64_t> states;
    options.on_pass = [&](const PipelineRunSummary& s) {
      const FlowSummary& blocked = s.flows[0];
      EXPECT_EQ(blocked.flow, "s.blocked");
      states.push_back(blocked.status.ok() ? -1 : blocked.failures_in_row);
      if (!blocked.status.ok()) {
        retry_at_.push_back(blocked.retry_at_ms - now);
      }
      EXPECT_TRUE(s.flows[1].status.ok()) << s.flows[1].status.ToString();
      if (states.size() == 1) Break();
      if (between) between(static_cast<int64_t>(states.size()));
      now += step_ms;
    };
    summary_ = RunPipeline(*io::LocalFileSystem::Instance(), plan_, Warehouse(lake()), options);
    return states;
  }
  std::string lake() const { return (dir_ / "lake").string(); }

  std::filesystem::path dir_;
  PipelinePlan plan_;
  PipelineRunSummary summary_;
  std::vector<int64_t> retry_at_;  // per failed pass: the pause before the next try
};

TEST_F(PipelineRunnerTest, AFailedFlowIsTriedAgainAfterADoublingPause) {
  // Each pass moves the clock 600 ms: the flow fails at 600, waits 1 s (skipped at 1200), fails
  // again at 1800, then waits 2 s (skipped at 2400 and 3000).
  std::vector<int64_t> states = Run(6, 1'000, 600);
  EXPECT_EQ(states, (std::vector<int64_t>{-1, 1, 1, 2, 2, 2}));
  ASSERT_GE(retry_at_.size(), 3u);
  EXPECT_EQ(retry_at_[0], 1'000);  // set in pass 2, at its clock
  EXPECT_EQ(retry_at_[1], 400);
  EXPECT_EQ(retry_at_[2], 2'000);  // doubled by the second failure in a row
  EXPECT_FALSE(summary_.flows[0].status.ok());
  EXPECT_NE(summary_.flows[0].status.message().find("cdclake.schemaPolicy"), std::string::npos)
      << summary_.flows[0].status.ToString();
}

TEST_F(PipelineRunnerTest, ThePauseStopsGrowingAtItsLimit) {
  std::vector<int64_t> states = Run(12, 1'000, 5'000);  // every pass is past the pause
  EXPECT_EQ(states, (std::vector<int64_t>{-1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  ASSERT_EQ(retry_at_.size(), 11u);
  EXPECT_EQ(retry_at_[1], 2'000);
  EXPECT_EQ(retry_at_[2], 4'000);
  EXPECT_EQ(retry_at_.back(), 4'000);  // retry_max_ms
}

TEST_F(PipelineRunnerTest, AMendedInputLetsTheRetrySucceed) {
  std::vector<int64_t> states = Run(5, 1'000, 600, [&](int64_t pass) {
    if (pass == 2) Mend();
  });
  // Pass 3 is within the pause; pass 4 tries again and succeeds.
  EXPECT_EQ(states, (std::vector<int64_t>{-1, 1, 1, -1, -1}));
  EXPECT_TRUE(summary_.flows[0].status.ok()) << summary_.flows[0].status.ToString();
  EXPECT_EQ(summary_.flows[0].failures_in_row, 0);
}

TEST_F(PipelineRunnerTest, WithoutRetriesAFailedFlowStaysStopped) {
  std::vector<int64_t> states = Run(4, 0, 600, [&](int64_t pass) {
    if (pass == 2) Mend();
  });
  EXPECT_EQ(states, (std::vector<int64_t>{-1, 1, 1, 1}));
  EXPECT_FALSE(summary_.flows[0].status.ok());
}

}  // namespace
}  // namespace cdclake::pipeline
