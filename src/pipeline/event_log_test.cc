// Event log: rows appended to a Delta table read back with the table reader.
#include "pipeline/event_log.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>

#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
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

// Lineage: each row names the Delta table ids its versions are of; a log written before the
// lineage columns gains them on its next append, its older rows NULL there.
TEST_F(EventLogTest, RowsNameTableIdsAndOlderLogsGainTheColumns) {
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  const std::string root = (dir_ / "_event_log").string();
  std::vector<data::Field> old_fields = EventLogSchema().fields();
  old_fields.resize(old_fields.size() - 6);  // a log from before table_id, ..., details
  ASSERT_EQ(old_fields.back().name, "message");
  delta::TableSpec spec;
  spec.schema = data::Schema(old_fields);
  ASSERT_TRUE(delta::CreateTable(fs, root, spec).ok());
  data::RecordBatch old_row{data::Schema(old_fields)};
  std::vector<data::Value> values(old_fields.size(), data::Value::Null());
  values[0] = data::Value::Int(1);
  for (size_t i : {1, 2, 3, 15}) values[i] = data::Value::Bytes("x");
  for (size_t i = 6; i <= 12; ++i) values[i] = data::Value::Int(0);
  values[14] = data::Value::Int(0);
  old_row.AppendRow(values);
  ASSERT_TRUE(delta::AppendRows(fs, root, old_row).ok());

  EventLogEntry e = Entry("silver", 3, 7);
  e.table_id = "2f1c0d9e-0000-4000-8000-000000000001";
  e.input_table_id = "2f1c0d9e-0000-4000-8000-000000000002";
  e.source_lag = "slot s: 0 B of WAL after its confirmed position 0/16B3748, 24.1 kB retained";
  e.data_quality = R"({"dropped_records":1,"expectations":[]})";
  auto appended = AppendEventLog(fs, root, {e, Entry("bronze", 2, 1)});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  auto snapshot = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->schema().num_fields(), EventLogSchema().num_fields());
  auto rows = delta::ReadTable(
      fs, **snapshot, {{"flow", "table_id", "input_table_id", "source_lag", "data_quality"}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->num_rows(), 3);
  std::map<std::string, std::pair<std::string, std::string>> by_flow;
  std::map<std::string, std::string> lag_by_flow;
  std::map<std::string, std::string> quality_by_flow;
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    auto text = [&](int c) {
      return rows->column(c).IsNull(r) ? std::string("NULL")
                                       : std::string(rows->column(c).StringAt(r));
    };
    by_flow[text(0)] = {text(1), text(2)};
    lag_by_flow[text(0)] = text(3);
    quality_by_flow[text(0)] = text(4);
  }
  EXPECT_EQ(quality_by_flow["x"], "NULL");
  EXPECT_EQ(quality_by_flow["silver"], e.data_quality);
  EXPECT_EQ(quality_by_flow["bronze"], "NULL");
  EXPECT_EQ(lag_by_flow["x"], "NULL");
  EXPECT_EQ(lag_by_flow["silver"], e.source_lag);
  EXPECT_EQ(lag_by_flow["bronze"], "NULL");
  EXPECT_EQ(by_flow["x"], std::make_pair(std::string("NULL"), std::string("NULL")));
  EXPECT_EQ(by_flow["silver"], std::make_pair(e.table_id, e.input_table_id));
  EXPECT_EQ(by_flow["bronze"], std::make_pair(std::string("NULL"), std::string("NULL")));
}

}  // namespace
}  // namespace cdclake::pipeline
