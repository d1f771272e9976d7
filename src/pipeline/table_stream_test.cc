// TableStream: appended rows come back commit by commit; non-append commits are refused.
#include "pipeline/table_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "delta/metadata_change.h"
#include "delta/row_deleter.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;

class TableStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("cdclake_table_stream_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
    delta::TableSpec spec;
    spec.schema = data::Schema({{"id", DataType::Int64(), true}});
    ASSERT_TRUE(delta::CreateTable(fs_, root_, spec).ok());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  int64_t Append(std::vector<int64_t> ids, bool with_name = false) {
    std::vector<data::Field> fields = {{"id", DataType::Int64(), true}};
    if (with_name) fields.push_back({"name", DataType::String(), true});
    data::RecordBatch batch{data::Schema(fields)};
    for (int64_t id : ids) {
      std::vector<Value> row = {Value::Int(id)};
      if (with_name) row.push_back(Value::Bytes("n" + std::to_string(id)));
      batch.AppendRow(row);
    }
    auto v = delta::AppendRows(fs_, root_, batch);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : -1;
  }
  // Deletes the first row of the table's first file (a deletion vector); the version, or -1.
  int64_t DeleteFirstRow() {
    auto snapshot = delta::Snapshot::Load(fs_, root_);
    EXPECT_TRUE(snapshot.ok());
    if (!snapshot.ok()) return -1;
    const std::string file = (*snapshot)->files()[0].path;
    auto actions = delta::DeleteRows(fs_, **snapshot, {{file, {0}}});
    EXPECT_TRUE(actions.ok()) << actions.status().ToString();
    if (!actions.ok()) return -1;
    delta::Transaction txn(fs_, root_, *snapshot);
    for (auto& a : *actions) txn.Add(a);
    auto version = txn.Commit({"DELETE"});
    EXPECT_TRUE(version.ok()) << version.status().ToString();
    return version.ok() ? *version : -1;
  }

  // Every (version, ids) the stream yields after `after`.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> Drain(int64_t after) {
    std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
    auto stream = TableStream::Open(fs_, root_, after);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    if (!stream.ok()) return out;
    while (true) {
      auto next = (*stream)->Next();
      EXPECT_TRUE(next.ok()) << next.status().ToString();
      if (!next.ok() || !next->has_value()) break;
      std::vector<int64_t> ids;
      for (int64_t r = 0; r < (*next)->rows.num_rows(); ++r) {
        ids.push_back((*next)->rows.column(0).GetValue(r).int_value());
      }
      out.emplace_back((*next)->version, ids);
    }
    return out;
  }

  io::LocalFileSystem& fs_ = *io::LocalFileSystem::Instance();
  std::string root_;
};

TEST_F(TableStreamTest, YieldsEachAppendAfterTheStartingVersion) {
  int64_t v1 = Append({1, 2});
  int64_t v2 = Append({3});
  auto all = Drain(-1);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], std::make_pair(v1, std::vector<int64_t>{1, 2}));
  EXPECT_EQ(all[1], std::make_pair(v2, std::vector<int64_t>{3}));
  auto later = Drain(v1);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].first, v2);
  EXPECT_TRUE(Drain(v2).empty());
}

TEST_F(TableStreamTest, ColumnsAddedLaterAreNullInEarlierRowsAndMetadataCommitsAreSkipped) {
  Append({1});
  data::Schema wider({{"id", DataType::Int64(), true}, {"name", DataType::String(), true}});
  auto evolved = delta::EvolveSchema(fs_, root_, wider);
  ASSERT_TRUE(evolved.ok()) << evolved.status().ToString();
  int64_t v = Append({2}, /*with_name=*/true);
  auto stream = TableStream::Open(fs_, root_, -1);
  ASSERT_TRUE(stream.ok());
  auto first = (*stream)->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  ASSERT_EQ((*first)->rows.num_columns(), 2u);
  EXPECT_TRUE((*first)->rows.column(1).IsNull(0));
  auto second = (*stream)->Next();
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->version, v);
  EXPECT_EQ((*second)->rows.column(1).StringAt(0), "n2");
  auto end = (*stream)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST_F(TableStreamTest, ACommitThatRemovesRowsIsRefused) {
  Append({1, 2});
  const int64_t deleted = DeleteFirstRow();
  ASSERT_GE(deleted, 0);
  auto stream = TableStream::Open(fs_, root_, -1);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE((*stream)->Next().ok());
  auto refused = (*stream)->Next();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(refused.status().message().find("version " + std::to_string(deleted)),
            std::string::npos)
      << refused.status().ToString();
}

// skipChangeCommits: the commit that removed a row is passed over whole (the DV rewrite adds the
// file again with its deletion vector, and that add is not read as appended rows); the appends
// before and after it are read.
TEST_F(TableStreamTest, ChangeCommitsArePassedOverWhenAsked) {
  Append({1, 2});
  ASSERT_GE(DeleteFirstRow(), 0);
  const int64_t after = Append({3});
  auto stream = TableStream::Open(fs_, root_, -1, /*skip_change_commits=*/true);
  ASSERT_TRUE(stream.ok());
  auto first = (*stream)->Next();
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  EXPECT_EQ((*first)->rows.num_rows(), 2);
  auto next = (*stream)->Next();
  ASSERT_TRUE(next.ok() && next->has_value()) << next.status().ToString();
  EXPECT_EQ((*next)->version, after);
  ASSERT_EQ((*next)->rows.num_rows(), 1);
  EXPECT_EQ((*next)->rows.column(0).IntegerAt(0), 3);
  auto end = (*stream)->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST_F(TableStreamTest, ACommitRemovedByLogCleanupIsNamed) {
  // Ten appends make version 10 a checkpoint, so the table loads without the early commits.
  for (int64_t i = 0; i < 10; ++i) Append({i});
  ASSERT_TRUE(
      std::filesystem::exists(root_ + "/_delta_log/00000000000000000010.checkpoint.parquet"));
  std::filesystem::remove(root_ + "/_delta_log/00000000000000000002.json");
  EXPECT_EQ(Drain(2).size(), 8u);
  auto stream = TableStream::Open(fs_, root_, 0);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_TRUE((*stream)->Next().ok());  // version 1
  auto gone = (*stream)->Next();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
  EXPECT_NE(gone.status().message().find("version 2"), std::string::npos)
      << gone.status().ToString();
}

}  // namespace
}  // namespace cdclake::pipeline
