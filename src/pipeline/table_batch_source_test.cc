// OpenTableSource: a table's appends as batches of whole commits, their end positions, resuming
// after a recorded position, and the positions and tables it refuses or finds missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "delta/metadata_change.h"
#include "delta/table_writer.h"
#include "io/local_file_system.h"
#include "pipeline/batch_source.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;
using Ids = std::vector<int64_t>;

constexpr const char* kTable = "shop.bronze";

// What one batch held: its ids, end version (from `end`), end text and row positions.
struct Seen {
  Ids ids;
  int64_t end_version = -1;
  std::string end_text;
  std::vector<int64_t> offsets;
};

class TableBatchSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("cdclake_table_batch_source_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Create() {
    delta::TableSpec spec;
    spec.schema = Schema();
    ASSERT_TRUE(delta::CreateTable(fs_, root_, spec).ok());
  }

  static data::Schema Schema() {
    return data::Schema(
        {{"id", DataType::Int64(), true}, {"_source_offset", DataType::Int64(), true}});
  }

  // Appends rows with these ids (their _source_offset is id * 100); returns the version.
  int64_t Append(const Ids& ids) {
    data::RecordBatch rows(Schema());
    for (int64_t id : ids) rows.AppendRow({Value::Int(id), Value::Int(id * 100)});
    auto v = delta::AppendRows(fs_, root_, rows);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : -1;
  }

  // Versions 1..4 append {1,2,3}, {4,5}, {6,7,8,9}, {10}.
  void FourAppends() {
    Create();
    EXPECT_EQ(Append({1, 2, 3}), 1);
    EXPECT_EQ(Append({4, 5}), 2);
    EXPECT_EQ(Append({6, 7, 8, 9}), 3);
    EXPECT_EQ(Append({10}), 4);
  }

  std::unique_ptr<BatchSource> Open(const json::Json& position, int64_t batch_rows) {
    auto source = OpenTableSource(fs_, kTable, root_, position, batch_rows);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return source.ok() ? std::move(*source) : nullptr;
  }

  static std::vector<Seen> Drain(BatchSource& source) {
    std::vector<Seen> out;
    for (int guard = 0; guard < 100; ++guard) {
      auto next = source.Next();
      EXPECT_TRUE(next.ok()) << next.status().ToString();
      if (!next.ok() || !next->has_value()) break;
      const InputBatch& batch = **next;
      Seen seen;
      for (int64_t r = 0; r < batch.rows.rows.num_rows(); ++r) {
        seen.ids.push_back(batch.rows.rows.column(0).GetValue(r).int_value());
      }
      EXPECT_EQ(batch.end["table"], kTable);
      if (batch.end.contains("version") && batch.end["version"].is_number_integer()) {
        seen.end_version = batch.end["version"].get<int64_t>();
      }
      seen.end_text = batch.end_text;
      for (const change::SourcePosition& p : batch.rows.positions) {
        seen.offsets.push_back(p.byte_offset);
      }
      out.push_back(std::move(seen));
    }
    return out;
  }

  static std::vector<Ids> IdsOf(const std::vector<Seen>& batches) {
    std::vector<Ids> out;
    for (const Seen& s : batches) out.push_back(s.ids);
    return out;
  }

  static std::vector<int64_t> EndsOf(const std::vector<Seen>& batches) {
    std::vector<int64_t> out;
    for (const Seen& s : batches) out.push_back(s.end_version);
    return out;
  }

  io::LocalFileSystem& fs_ = *io::LocalFileSystem::Instance();
  std::string root_;
};

TEST_F(TableBatchSourceTest, BatchesAreWholeCommitsUpToAboutBatchRows) {
  FourAppends();
  auto source = Open(nullptr, 4);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->StartText(), "shop.bronze@start");
  std::vector<Seen> batches = Drain(*source);
  // 3 rows are fewer than 4, so version 2 joins; version 3 alone reaches 4; version 4 is left.
  EXPECT_EQ(IdsOf(batches), (std::vector<Ids>{{1, 2, 3, 4, 5}, {6, 7, 8, 9}, {10}}));
  EXPECT_EQ(EndsOf(batches), (std::vector<int64_t>{2, 3, 4}));
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[1].end_text, "shop.bronze@v3");
  EXPECT_EQ(batches[0].offsets, (std::vector<int64_t>{100, 200, 300, 400, 500}));
  // Once drained, it stays drained.
  auto after = source->Next();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST_F(TableBatchSourceTest, OneRowBatchesStillNeverSplitACommit) {
  FourAppends();
  auto source = Open(nullptr, 1);
  ASSERT_NE(source, nullptr);
  std::vector<Seen> batches = Drain(*source);
  EXPECT_EQ(IdsOf(batches), (std::vector<Ids>{{1, 2, 3}, {4, 5}, {6, 7, 8, 9}, {10}}));
  EXPECT_EQ(EndsOf(batches), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST_F(TableBatchSourceTest, ZeroBatchRowsActsAsOne) {
  FourAppends();
  auto source = Open(nullptr, 0);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(Drain(*source).size(), 4u);
}

TEST_F(TableBatchSourceTest, LargeBatchRowsTakeEverythingInOneBatch) {
  FourAppends();
  auto source = Open(nullptr, 1 << 20);
  ASSERT_NE(source, nullptr);
  std::vector<Seen> batches = Drain(*source);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].ids, (Ids{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(batches[0].end_version, 4);
  EXPECT_EQ(batches[0].end_text, "shop.bronze@v4");
}

TEST_F(TableBatchSourceTest, ResumesAfterARecordedPosition) {
  FourAppends();
  // The end of a batch is a position to resume from.
  auto first = Open(nullptr, 4);
  ASSERT_NE(first, nullptr);
  auto batch = first->Next();
  ASSERT_TRUE(batch.ok() && batch->has_value());
  json::Json recorded = (*batch)->end;
  EXPECT_EQ(recorded["table"], kTable);
  EXPECT_EQ(recorded["version"], 2);
  EXPECT_TRUE(recorded["tableId"].is_string());  // lineage: which table, not only its name

  auto source = Open(recorded, 100);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->StartText(), "shop.bronze@v2");
  std::vector<Seen> batches = Drain(*source);
  EXPECT_EQ(IdsOf(batches), (std::vector<Ids>{{6, 7, 8, 9, 10}}));
  EXPECT_EQ(EndsOf(batches), (std::vector<int64_t>{4}));

  auto at_end = Open(json::Json{{"table", kTable}, {"version", 4}}, 100);
  ASSERT_NE(at_end, nullptr);
  EXPECT_TRUE(Drain(*at_end).empty());

  // New commits after a drained stream are seen by a source opened later.
  Append({11});
  auto later = Open(json::Json{{"table", kTable}, {"version", 4}}, 100);
  ASSERT_NE(later, nullptr);
  EXPECT_EQ(IdsOf(Drain(*later)), (std::vector<Ids>{{11}}));
}

TEST_F(TableBatchSourceTest, CommitsWithoutRowsArePassedOver) {
  Create();
  Append({1});
  data::Schema wider({{"id", DataType::Int64(), true},
                      {"_source_offset", DataType::Int64(), true},
                      {"name", DataType::String(), true}});
  ASSERT_TRUE(delta::EvolveSchema(fs_, root_, wider).ok());  // v2
  data::RecordBatch rows(wider);
  rows.AppendRow({Value::Int(2), Value::Int(200), Value::Bytes("b")});
  ASSERT_TRUE(delta::AppendRows(fs_, root_, rows).ok());  // v3
  auto source = Open(nullptr, 100);
  ASSERT_NE(source, nullptr);
  auto batch = source->Next();
  ASSERT_TRUE(batch.ok() && batch->has_value()) << batch.status().ToString();
  const data::RecordBatch& got = (*batch)->rows.rows;
  ASSERT_EQ(got.num_rows(), 2);
  ASSERT_EQ(got.num_columns(), 3u);
  EXPECT_TRUE(got.column(2).IsNull(0));  // added after the first row was written
  EXPECT_EQ(got.column(2).GetValue(1), Value::Bytes("b"));
  EXPECT_EQ((*batch)->end["version"], 3);
}

TEST_F(TableBatchSourceTest, APositionInAnotherTableIsRefused) {
  FourAppends();
  for (const json::Json& bad :
       {json::Json{{"table", "shop.other"}, {"version", 1}}, json::Json{{"table", kTable}},
        json::Json{{"table", kTable}, {"version", "1"}},
        json::Json{{"file", "a.json"}, {"offset", 3}}}) {
    auto source = OpenTableSource(fs_, kTable, root_, bad, 10);
    ASSERT_FALSE(source.ok()) << json::Dump(bad);
    EXPECT_EQ(source.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(source.status().message().find("shop.bronze"), std::string::npos)
        << source.status().ToString();
  }
}

TEST_F(TableBatchSourceTest, AMissingTableHasNothingToRead) {
  auto source = Open(nullptr, 10);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->StartText(), "shop.bronze@start");
  auto next = source->Next();
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_FALSE(next->has_value());
  EXPECT_TRUE(source->Counts().empty());

  // A position recorded before the table went away reads nothing either.
  auto resumed = Open(json::Json{{"table", kTable}, {"version", 7}}, 10);
  ASSERT_NE(resumed, nullptr);
  EXPECT_TRUE(Drain(*resumed).empty());
}

TEST_F(TableBatchSourceTest, ATableWithOnlyItsCreationHasNothingToRead) {
  Create();
  auto source = Open(nullptr, 10);
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(Drain(*source).empty());
}

}  // namespace
}  // namespace cdclake::pipeline
