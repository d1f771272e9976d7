// AppendWriter and FlowCheckpoint: streaming-table appends with the flow's txn and position in
// one commit (table creation, new columns, widening, refused types, checkpoint-only commits), and
// finding a flow's last commit and batch again.
#include "pipeline/append_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/type_widening.h"
#include "io/local_file_system.h"
#include "pipeline/flow_checkpoint.h"
#include "pipeline/flow_position.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;

class AppendWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("cdclake_append_writer_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // Rows of (id, name) with `id_type` for id.
  static data::RecordBatch Rows(std::vector<int64_t> ids,
                                data::TypePtr id_type = DataType::Int64()) {
    data::RecordBatch rows(
        data::Schema({{"id", std::move(id_type), true}, {"name", DataType::String(), true}}));
    for (int64_t id : ids) rows.AppendRow({Value::Int(id), Value::Bytes("n" + std::to_string(id))});
    return rows;
  }

  static AppendCheckpoint Checkpoint(const std::string& flow, int64_t batch, int64_t offset) {
    return {flow, batch, json::Json{{"file", "in.json"}, {"offset", offset}}};
  }

  Result<int64_t> Append(const data::RecordBatch& rows, const AppendCheckpoint& checkpoint,
                         const AppendTableSpec& spec = {}) {
    return AppendWithCheckpoint(fs_, root_, rows, spec, checkpoint);
  }

  std::shared_ptr<const delta::Snapshot> Load() {
    auto snapshot = delta::Snapshot::Load(fs_, root_);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    return snapshot.ok() ? *snapshot : nullptr;
  }

  // Every row of the table as "id:name" ("null" for NULL), sorted.
  std::vector<std::string> Contents() {
    std::vector<std::string> out;
    auto snapshot = Load();
    if (!snapshot) return out;
    auto rows = delta::ReadTable(fs_, *snapshot);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) return out;
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      std::string line;
      for (const Value& v : rows->GetRow(r)) {
        if (!line.empty()) line += ":";
        line += v.is_null() ? "null" : v.is_int() ? std::to_string(v.int_value()) : v.bytes();
      }
      out.push_back(line);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  io::LocalFileSystem& fs_ = *io::LocalFileSystem::Instance();
  std::string root_;
};

TEST_F(AppendWriterTest, FirstAppendCreatesTheTableAndRecordsTheCheckpoint) {
  AppendTableSpec spec;
  spec.properties["cdclake.test.owner"] = "pipeline";
  auto v = Append(Rows({1, 2}), Checkpoint("bronze", 1, 40), spec);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 1);  // version 0 created the table
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->Property("cdclake.test.owner"), "pipeline");
  ASSERT_EQ(snapshot->schema().num_fields(), 2u);
  EXPECT_EQ(snapshot->schema().field(0).name, "id");
  EXPECT_EQ(snapshot->TxnVersion(FlowAppId("bronze")), 1);
  EXPECT_EQ(snapshot->TxnVersion("bronze"), std::nullopt);
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1", "2:n2"}));

  auto commit = FindFlowCommit(fs_, root_, "bronze");
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
  ASSERT_TRUE(commit->has_value());
  EXPECT_EQ((*commit)->version, 1);
  EXPECT_EQ((*commit)->position, (json::Json{{"file", "in.json"}, {"offset", 40}}));
  EXPECT_GT((*commit)->timestamp_ms, 0);
  EXPECT_TRUE((*commit)->target_commit);
  auto batch = LastFlowBatch(fs_, root_, "bronze");
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(*batch, 1);

  // The commit says what it is, for other Delta readers.
  auto log = fs_.ReadFile(root_ + "/_delta_log/00000000000000000001.json");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("\"STREAMING UPDATE\""), std::string::npos) << *log;
  EXPECT_NE(log->find("\"cdclake-flow-bronze\""), std::string::npos) << *log;
}

TEST_F(AppendWriterTest, PartitionColumnsComeFromTheSpec) {
  AppendTableSpec spec;
  spec.partition_columns = {"name"};
  ASSERT_TRUE(Append(Rows({1, 2}), Checkpoint("f", 1, 0), spec).ok());
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->metadata().partition_columns, (std::vector<std::string>{"name"}));
  EXPECT_EQ(snapshot->files().size(), 2u);
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1", "2:n2"}));
}

TEST_F(AppendWriterTest, NewColumnsAreAddedAndMissingOnesAreNull) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 10)).ok());
  data::RecordBatch wider(data::Schema({{"id", DataType::Int64(), true},
                                        {"name", DataType::String(), true},
                                        {"extra", DataType::String(), true}}));
  wider.AppendRow({Value::Int(2), Value::Bytes("n2"), Value::Bytes("x")});
  auto v = Append(wider, Checkpoint("f", 2, 20));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 3);  // the schema change is a commit of its own
  data::RecordBatch narrower(data::Schema({{"id", DataType::Int64(), true}}));
  narrower.AppendRow({Value::Int(3)});
  ASSERT_TRUE(Append(narrower, Checkpoint("f", 3, 30)).ok());
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  ASSERT_EQ(snapshot->schema().num_fields(), 3u);
  EXPECT_EQ(snapshot->schema().field(2).name, "extra");
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1:null", "2:n2:x", "3:null:null"}));
  EXPECT_EQ(snapshot->TxnVersion(FlowAppId("f")), 3);
}

TEST_F(AppendWriterTest, ANarrowerIncomingIntegerIsUpcast) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 0)).ok());
  auto v = Append(Rows({2}, DataType::Int32()), Checkpoint("f", 2, 0));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 2);  // no schema change
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(*snapshot->schema().field(0).type, *DataType::Int64());
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1", "2:n2"}));
}

TEST_F(AppendWriterTest, ANarrowerTableColumnIsWidened) {
  ASSERT_TRUE(Append(Rows({1}, DataType::Int16()), Checkpoint("f", 1, 0)).ok());
  auto v = Append(Rows({70000}), Checkpoint("f", 2, 0));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(*snapshot->schema().field(0).type, *DataType::Int64());
  EXPECT_TRUE(delta::HasTypeWidening(snapshot->protocol()));
  EXPECT_EQ(snapshot->Property("delta.enableTypeWidening"), "true");
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1", "70000:n70000"}));
}

TEST_F(AppendWriterTest, AnIncompatibleTypeIsRefusedNamingTheColumn) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 0)).ok());
  data::RecordBatch bad(
      data::Schema({{"id", DataType::Int64(), true}, {"name", DataType::Int64(), true}}));
  bad.AppendRow({Value::Int(2), Value::Int(5)});
  auto v = Append(bad, Checkpoint("f", 2, 0));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = v.status().message();
  EXPECT_NE(m.find("'name'"), std::string::npos) << m;
  EXPECT_NE(m.find(DataType::String()->ToString()), std::string::npos) << m;
  EXPECT_NE(m.find(DataType::Int64()->ToString()), std::string::npos) << m;
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 1);  // nothing committed
  EXPECT_EQ(snapshot->TxnVersion(FlowAppId("f")), 1);
}

TEST_F(AppendWriterTest, NoRowsCommitsOnlyTheCheckpoint) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 10)).ok());
  size_t files = Load()->files().size();
  auto v = Append(Rows({}), Checkpoint("f", 2, 99));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 2);
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->files().size(), files);
  EXPECT_EQ(snapshot->TxnVersion(FlowAppId("f")), 2);
  auto commit = FindFlowCommit(fs_, root_, "f");
  ASSERT_TRUE(commit.ok() && commit->has_value());
  EXPECT_EQ((*commit)->version, 2);
  EXPECT_EQ((*commit)->position["offset"], 99);
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1"}));
}

TEST_F(AppendWriterTest, NoRowsOfOtherTypesLeaveTheSchemaAlone) {
  // A batch whose every record was quarantined has columns but no rows; their types (here the
  // name column as BIGINT, as a Debezium batch without events types its sequence) claim nothing.
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 10)).ok());
  const std::string before = Load()->schema().ToString();
  data::RecordBatch empty(data::Schema({{"id", DataType::Int64(), true},
                                        {"name", DataType::Int64(), true},
                                        {"extra", DataType::Int64(), true}}));
  auto v = Append(empty, Checkpoint("f", 2, 20));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Load()->schema().ToString(), before);
  EXPECT_EQ(Load()->TxnVersion(FlowAppId("f")), 2);
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1"}));
}

TEST_F(AppendWriterTest, ABatchFromAStalePositionIsRefusedAndWritesNothing) {
  // Two writers of flow f read the position after batch 1; the first commits batch 2, the
  // second's batch 2 (the same input) must not follow it.
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 10)).ok());
  ASSERT_TRUE(Append(Rows({2}), Checkpoint("f", 2, 20)).ok());
  auto stale = Append(Rows({2}), Checkpoint("f", 2, 20));
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_NE(stale.status().message().find("another writer of flow f committed its batch 2 while "
                                          "this one read from the position after batch 1"),
            std::string::npos)
      << stale.status().message();
  // A writer that skipped ahead (its batch does not follow the table's) is refused too.
  EXPECT_EQ(Append(Rows({4}), Checkpoint("f", 4, 40)).status().code(), StatusCode::kConflict);
  EXPECT_EQ(Load()->version(), 2);
  EXPECT_EQ(Contents(), (std::vector<std::string>{"1:n1", "2:n2"}));
  // Another flow of the same table is not affected; f goes on from batch 2.
  EXPECT_TRUE(Append(Rows({5}), Checkpoint("g", 1, 1)).ok());
  EXPECT_TRUE(Append(Rows({3}), Checkpoint("f", 3, 30)).ok());
}

TEST_F(AppendWriterTest, NoRowsOnANewTableCreatesItWithTheCheckpoint) {
  auto v = Append(Rows({}), Checkpoint("f", 1, 0));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  auto snapshot = Load();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->schema().num_fields(), 2u);
  EXPECT_TRUE(snapshot->files().empty());
  EXPECT_EQ(snapshot->TxnVersion(FlowAppId("f")), 1);
}

TEST_F(AppendWriterTest, FindFlowCommitFindsTheNewestCommitOfThatFlow) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("a", 1, 1)).ok());  // v1
  ASSERT_TRUE(Append(Rows({2}), Checkpoint("a", 2, 2)).ok());  // v2
  ASSERT_TRUE(Append(Rows({3}), Checkpoint("b", 1, 3)).ok());  // v3
  ASSERT_TRUE(delta::AppendRows(fs_, root_, Rows({4})).ok());  // v4: not a flow's
  // Positions are the flows' domains: read from the latest snapshot (version 4).
  auto a = FindFlowCommit(fs_, root_, "a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->version, 4);
  EXPECT_EQ((*a)->position["offset"], 2);
  auto b = FindFlowCommit(fs_, root_, "b");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->position["offset"], 3);
  auto c = FindFlowCommit(fs_, root_, "c");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->has_value());
  EXPECT_EQ(*LastFlowBatch(fs_, root_, "a"), 2);
  EXPECT_EQ(*LastFlowBatch(fs_, root_, "b"), 1);
  EXPECT_EQ(*LastFlowBatch(fs_, root_, "c"), 0);
}

TEST_F(AppendWriterTest, AMissingTableHasNoFlowCommitAndBatchZero) {
  auto commit = FindFlowCommit(fs_, root_, "f");
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
  EXPECT_FALSE(commit->has_value());
  auto batch = LastFlowBatch(fs_, root_, "f");
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(*batch, 0);
}

TEST_F(AppendWriterTest, AFlowCommitWithoutPositionOrWithBadJson) {
  // Flow "f" has no domain (as in tables written before positions were domains): commitInfo
  // alone names it.
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("other", 1, 0)).ok());
  {
    delta::Transaction txn(fs_, root_, Load());
    delta::CommitOptions options;
    options.operation_parameters[kFlowParameter] = "f";
    options.operation_parameters[kTargetCommitParameter] = "false";
    auto v = txn.Commit(options);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    auto commit = FindFlowCommit(fs_, root_, "f");
    ASSERT_TRUE(commit.ok() && commit->has_value());
    EXPECT_EQ((*commit)->version, *v);
    EXPECT_TRUE((*commit)->position.is_null());
    EXPECT_FALSE((*commit)->target_commit);
  }
  {
    delta::Transaction txn(fs_, root_, Load());
    delta::CommitOptions options;
    options.operation_parameters[kFlowParameter] = "f";
    options.operation_parameters[kPositionParameter] = "{not json";
    ASSERT_TRUE(txn.Commit(options).ok());
    auto commit = FindFlowCommit(fs_, root_, "f");
    ASSERT_FALSE(commit.ok());
    EXPECT_EQ(commit.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(commit.status().message().find("'f'"), std::string::npos)
        << commit.status().ToString();
  }
}

TEST_F(AppendWriterTest, AColumnDifferingOnlyInCaseIsRefusedAndTheTableStaysReadable) {
  ASSERT_TRUE(Append(Rows({1}), Checkpoint("f", 1, 0)).ok());
  data::RecordBatch upper(
      data::Schema({{"ID", DataType::Int64(), true}, {"name", DataType::String(), true}}));
  upper.AppendRow({Value::Int(2), Value::Bytes("n2")});
  auto v = Append(upper, Checkpoint("f", 2, 0));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument) << v.status().ToString();
  EXPECT_NE(v.status().message().find("'ID'"), std::string::npos) << v.status().ToString();
  auto snapshot = delta::Snapshot::Load(fs_, root_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), 1);
}

}  // namespace
}  // namespace cdclake::pipeline
