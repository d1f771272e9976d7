// Event log: rows appended to a Delta table read back with the table reader.
#include "pipeline/event_log.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"

namespace cdclake::pipeline {
namespace {

class EventLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cdclake_event_log_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

EventLogEntry Entry(const std::string& flow, int64_t read, std::optional<int64_t> version) {
  EventLogEntry e;
  e.time_ms = 1'700'000'000'123;
  e.run_id = "run-1";
  e.flow = flow;
  e.target = "default." + flow;
  e.input_from = "a.json@0";
  e.input_to = "a.json@" + std::to_string(read * 10);
  e.rows_read = read;
  e.rows_applied = read - 1;
  e.rows_discarded = 1;
  e.rows_inserted = read - 1;
  e.table_version = version;
  e.duration_ms = 42;
  e.status = version ? "ok" : "no change";
  return e;
}

TEST_F(EventLogTest, EntriesAppendAndReadBack) {
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  const std::string root = (dir_ / "_event_log").string();
  auto none = AppendEventLog(fs, root, {});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(std::filesystem::exists(root));

  auto v1 = AppendEventLog(fs, root, {Entry("silver", 10, 3), Entry("bronze", 5, std::nullopt)});
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  auto v2 = AppendEventLog(fs, root, {Entry("silver", 7, 4)});
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(**v2, **v1 + 1);

  auto snapshot = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->schema().num_fields(), EventLogSchema().num_fields());
  auto rows = delta::ReadTable(fs, **snapshot, {{"flow", "rows_read", "table_version", "status"}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->num_rows(), 3);
  int64_t total_read = 0;
  int nulls = 0;
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    total_read += rows->column(1).GetValue(r).int_value();
    if (rows->column(2).IsNull(r)) {
      ++nulls;
      EXPECT_EQ(rows->column(3).StringAt(r), "no change");
      EXPECT_EQ(rows->column(0).StringAt(r), "bronze");
    }
  }
  EXPECT_EQ(total_read, 22);
  EXPECT_EQ(nulls, 1);
}

}  // namespace
}  // namespace cdclake::pipeline
