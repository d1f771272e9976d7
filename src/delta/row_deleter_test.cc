// Tests for deleting rows: with deletion vectors (inline and in files, merged with earlier
// ones, whole files removed) and by copy-on-write, each version read back afterwards.
#include "delta/row_deleter.h"

#include <gtest/gtest.h>

#include "delta/change_data_writer.h"
#include "delta/change_feed.h"
#include "delta/change_test_util.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/file_statistics.h"
#include "delta/table_scan.h"
#include "io/memory_file_system.h"
#include "json/json.h"

namespace cdclake::delta {
namespace {

using testing::CommitActions;
using testing::OnlyIds;
using testing::PeopleRows;
using testing::PeopleSpec;
using testing::PositionsOf;
using testing::RowSet;
using testing::WithoutIds;

const std::map<std::string, std::string> kDvs = {{"delta.enableDeletionVectors", "true"}};

std::shared_ptr<const Snapshot> Latest(const io::FileSystem& fs, const std::string& root) {
  auto s = Snapshot::Load(fs, root);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

// Deletes the rows with `ids` and commits; returns the version.
int64_t DeleteIds(io::FileSystem& fs, const std::string& root, const std::set<int64_t>& ids,
                  const DeleteRowsOptions& options = {}, RowDeletion* result = nullptr) {
  auto snapshot = Latest(fs, root);
  auto deletion = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, ids), options);
  EXPECT_TRUE(deletion.ok()) << deletion.status().ToString();
  if (!deletion.ok()) return -1;
  auto version = CommitActions(fs, root, deletion->actions);
  EXPECT_TRUE(version.ok()) << version.status().ToString();
  if (result) *result = *deletion;
  return version.ok() ? *version : -1;
}

// Reads every version in `expected` and compares with its rows.
void ExpectVersions(const io::FileSystem& fs, const std::string& root,
                    const std::map<int64_t, data::RecordBatch>& expected) {
  for (const auto& [version, rows] : expected) {
    auto snapshot = Snapshot::Load(fs, root, version);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto read = ReadTable(fs, **snapshot);
    ASSERT_TRUE(read.ok()) << "version " << version << ": " << read.status().ToString();
    EXPECT_EQ(RowSet(*read), RowSet(rows)) << "version " << version;
    EXPECT_EQ((*snapshot)->num_records(), rows.num_rows()) << "version " << version;
  }
}

template <typename T>
std::vector<const T*> ActionsOf(const std::vector<Action>& actions) {
  std::vector<const T*> out;
  for (const Action& a : actions) {
    if (const auto* t = std::get_if<T>(&a)) out.push_back(t);
  }
  return out;
}

TEST(RowDeleterTest, DeletionVectorsMergeAndReadBackAtEveryVersion) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(false, kDvs)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 200)).ok());
  std::map<int64_t, data::RecordBatch> expected = {{1, PeopleRows(0, 200)}};
  std::set<int64_t> gone;

  // A small delete: an inline deletion vector.
  RowDeletion first;
  gone.insert({3, 4});
  int64_t v2 = DeleteIds(fs, "/t", {3, 4}, {}, &first);
  ASSERT_EQ(v2, 2);
  expected[v2] = WithoutIds(PeopleRows(0, 200), gone);
  ASSERT_EQ(first.actions.size(), 2u);
  EXPECT_EQ(first.num_deleted, 2);
  const Remove* rm = std::get_if<Remove>(&first.actions[0]);
  const Add* add = std::get_if<Add>(&first.actions[1]);
  ASSERT_TRUE(rm && add);
  EXPECT_EQ(rm->path, add->path);
  EXPECT_FALSE(rm->deletion_vector.has_value());
  EXPECT_TRUE(rm->data_change);
  EXPECT_TRUE(rm->deletion_timestamp.has_value());
  EXPECT_EQ(rm->extended_file_metadata, std::optional<bool>(true));
  EXPECT_TRUE(rm->partition_values.has_value());
  EXPECT_TRUE(rm->size.has_value());
  EXPECT_TRUE(rm->stats.has_value());
  ASSERT_TRUE(add->deletion_vector.has_value());
  EXPECT_EQ(add->deletion_vector->storage_type, "i");
  EXPECT_EQ(add->deletion_vector->cardinality, 2);
  EXPECT_FALSE(add->deletion_vector->offset.has_value());
  auto stats = ParseStatsJson(*add->stats);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->num_records, 200);
  EXPECT_FALSE(stats->tight_bounds);

  // Rows already deleted are ignored; new ones merge with the old vector, which the remove
  // names.
  RowDeletion second;
  gone.insert({4, 5, 6});
  int64_t v3 = DeleteIds(fs, "/t", {4, 5, 6}, {}, &second);
  expected[v3] = WithoutIds(PeopleRows(0, 200), gone);
  EXPECT_EQ(second.num_deleted, 2);
  rm = std::get_if<Remove>(&second.actions[0]);
  add = std::get_if<Add>(&second.actions[1]);
  ASSERT_TRUE(rm && add);
  ASSERT_TRUE(rm->deletion_vector.has_value());
  EXPECT_EQ(*rm->deletion_vector, *std::get<Add>(first.actions[1]).deletion_vector);
  EXPECT_EQ(add->deletion_vector->cardinality, 4);

  // Scattered rows do not fit inline: a deletion vector file.
  std::set<int64_t> many;
  for (int64_t i = 10; i < 200; i += 3) many.insert(i);
  RowDeletion third;
  gone.insert(many.begin(), many.end());
  int64_t v4 = DeleteIds(fs, "/t", many, {}, &third);
  expected[v4] = WithoutIds(PeopleRows(0, 200), gone);
  add = std::get_if<Add>(&third.actions[1]);
  ASSERT_TRUE(add);
  EXPECT_EQ(add->deletion_vector->storage_type, "u");
  EXPECT_EQ(add->deletion_vector->offset, std::optional<int32_t>(1));
  EXPECT_EQ(add->deletion_vector->cardinality, static_cast<int64_t>(gone.size()));
  auto dv_path = AbsoluteDvPath(*add->deletion_vector, "/t");
  ASSERT_TRUE(dv_path.ok());
  EXPECT_TRUE(*fs.Exists(*dv_path));
  auto loaded = LoadDeletionVector(fs, "/t", *add->deletion_vector);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->Cardinality(), gone.size());

  // Deleting the rest removes the file.
  RowDeletion last;
  std::set<int64_t> all;
  for (int64_t i = 0; i < 200; ++i) all.insert(i);
  int64_t v5 = DeleteIds(fs, "/t", all, {}, &last);
  expected[v5] = PeopleRows(0, 0);
  ASSERT_EQ(last.actions.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<Remove>(last.actions[0]));
  EXPECT_EQ(last.num_deleted, 200 - static_cast<int64_t>(gone.size()));
  EXPECT_TRUE(Latest(fs, "/t")->files().empty());

  ExpectVersions(fs, "/t", expected);
}

TEST(RowDeleterTest, PartitionedFilesShareOneDeletionVectorFile) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(true, kDvs)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 60)).ok());
  ASSERT_EQ(Latest(fs, "/t")->files().size(), 3u);  // two days and NULL
  DeleteRowsOptions to_files;
  to_files.max_inline_dv_bytes = 0;
  to_files.collect_deleted_rows = true;
  RowDeletion deletion;
  std::set<int64_t> ids = {0, 1, 3, 10, 17, 59};
  int64_t v = DeleteIds(fs, "/t", ids, to_files, &deletion);
  ASSERT_EQ(v, 2);
  auto adds = ActionsOf<Add>(deletion.actions);
  auto removes = ActionsOf<Remove>(deletion.actions);
  ASSERT_EQ(adds.size(), 3u);
  ASSERT_EQ(removes.size(), 3u);
  std::set<int32_t> offsets;
  for (size_t i = 0; i < adds.size(); ++i) {
    ASSERT_TRUE(adds[i]->deletion_vector.has_value());
    EXPECT_EQ(adds[i]->deletion_vector->storage_type, "u");
    EXPECT_EQ(adds[i]->deletion_vector->path_or_inline_dv,
              adds[0]->deletion_vector->path_or_inline_dv);
    offsets.insert(*adds[i]->deletion_vector->offset);
    EXPECT_EQ(adds[i]->partition_values, *removes[i]->partition_values);
  }
  EXPECT_EQ(offsets.size(), 3u);
  // The deleted rows come back with their partition values.
  EXPECT_EQ(RowSet(deletion.deleted_rows), RowSet(OnlyIds(PeopleRows(0, 60), ids)));
  ExpectVersions(fs, "/t", {{1, PeopleRows(0, 60)}, {2, WithoutIds(PeopleRows(0, 60), ids)}});
}

TEST(RowDeleterTest, CopyOnWriteRewritesTheFile) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(true)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 30)).ok());
  std::map<int64_t, data::RecordBatch> expected = {{1, PeopleRows(0, 30)}};
  RowDeletion deletion;
  DeleteRowsOptions collect;
  collect.collect_deleted_rows = true;
  int64_t v2 = DeleteIds(fs, "/t", {0, 2}, collect, &deletion);
  expected[v2] = WithoutIds(PeopleRows(0, 30), {0, 2});
  auto adds = ActionsOf<Add>(deletion.actions);
  auto removes = ActionsOf<Remove>(deletion.actions);
  ASSERT_EQ(removes.size(), 1u);  // rows 0 and 2 share a day
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_NE(adds[0]->path, removes[0]->path);
  EXPECT_FALSE(adds[0]->deletion_vector.has_value());
  EXPECT_EQ(adds[0]->partition_values, *removes[0]->partition_values);
  EXPECT_TRUE(ActionsOf<AddCdc>(deletion.actions).empty());  // change data feed is off
  EXPECT_EQ(deletion.num_deleted, 2);
  EXPECT_EQ(RowSet(deletion.deleted_rows), RowSet(OnlyIds(PeopleRows(0, 30), {0, 2})));
  auto stats = ParseStatsJson(*adds[0]->stats);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->num_records, deletion.num_copied);

  // Every row of a file: only a remove.
  std::set<int64_t> day_null;
  for (int64_t i = 0; i < 30; ++i)
    if (i % 7 == 3) day_null.insert(i);
  int64_t v3 = DeleteIds(fs, "/t", day_null, {}, &deletion);
  std::set<int64_t> gone = day_null;
  gone.insert({0, 2});
  expected[v3] = WithoutIds(PeopleRows(0, 30), gone);
  EXPECT_EQ(deletion.actions.size(), 1u);
  ExpectVersions(fs, "/t", expected);
}

TEST(RowDeleterTest, CopyOnWriteDropsRowsAnOldDeletionVectorHid) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(false, kDvs)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 10)).ok());
  ASSERT_EQ(DeleteIds(fs, "/t", {1, 2}), 2);
  // Turn deletion vectors off (the feature stays listed): deletes now rewrite files.
  Metadata m = Latest(fs, "/t")->metadata();
  m.configuration["delta.enableDeletionVectors"] = "false";
  ASSERT_TRUE(CommitActions(fs, "/t", {m}, "SET TBLPROPERTIES").ok());
  EXPECT_FALSE(UsesDeletionVectors(*Latest(fs, "/t")));
  RowDeletion deletion;
  int64_t v4 = DeleteIds(fs, "/t", {2, 7}, {}, &deletion);
  EXPECT_EQ(deletion.num_deleted, 1);  // row 2 was already gone
  EXPECT_EQ(deletion.num_copied, 7);
  auto adds = ActionsOf<Add>(deletion.actions);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_FALSE(adds[0]->deletion_vector.has_value());
  auto removes = ActionsOf<Remove>(deletion.actions);
  ASSERT_EQ(removes.size(), 1u);
  EXPECT_TRUE(removes[0]->deletion_vector.has_value());
  ExpectVersions(
      fs, "/t",
      {{2, WithoutIds(PeopleRows(0, 10), {1, 2})}, {v4, WithoutIds(PeopleRows(0, 10), {1, 2, 7})}});
}

TEST(RowDeleterTest, CopyOnWriteWithChangeDataFeedRecordsTheDeletes) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(
      CreateTable(fs, "/t", PeopleSpec(true, {{"delta.enableChangeDataFeed", "true"}})).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 20)).ok());
  RowDeletion deletion;
  int64_t v2 = DeleteIds(fs, "/t", {1, 2, 3}, {}, &deletion);
  ASSERT_EQ(v2, 2);
  auto cdc = ActionsOf<AddCdc>(deletion.actions);
  ASSERT_FALSE(cdc.empty());
  for (const AddCdc* c : cdc) {
    EXPECT_FALSE(c->data_change);
    EXPECT_EQ(c->path.rfind("_change_data/day=", 0), 0u) << c->path;
  }
  EXPECT_EQ(deletion.deleted_rows.num_rows(), 0);  // not asked for
  // The change feed shows the three deletes, not the copied rows.
  auto changes = ReadChanges(fs, "/t", 2, 2);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  ASSERT_EQ(changes->num_rows(), 3);
  std::set<int64_t> ids;
  for (int64_t r = 0; r < 3; ++r) {
    ids.insert(changes->column(0).GetValue(r).int_value());
    EXPECT_EQ(changes->column(4).GetValue(r).bytes(), "delete");
  }
  EXPECT_EQ(ids, (std::set<int64_t>{1, 2, 3}));
  ExpectVersions(fs, "/t", {{v2, WithoutIds(PeopleRows(0, 20), {1, 2, 3})}});
}

TEST(RowDeleterTest, StatsKeepTheirExactNumbersAndBecomeWide) {
  // The stats the re-added file gets when its stats were `stats`.
  auto after_delete = [](const std::optional<std::string>& stats) -> std::string {
    io::MemoryFileSystem fs;
    EXPECT_TRUE(CreateTable(fs, "/t", PeopleSpec(false, kDvs)).ok());
    EXPECT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 4)).ok());
    Add add = Latest(fs, "/t")->files()[0];
    add.data_change = false;
    add.stats = stats;
    EXPECT_TRUE(CommitActions(fs, "/t", {add}, "COMPUTE STATS").ok());
    auto deletion = DeleteRows(fs, *Latest(fs, "/t"), {{add.path, {0}}});
    EXPECT_TRUE(deletion.ok()) << deletion.status().ToString();
    if (!deletion.ok() || !std::holds_alternative<Add>(deletion->back())) return "";
    return std::get<Add>(deletion->back()).stats.value_or("(none)");
  };
  // As Spark writes them in tables with deletion vectors; decimals beyond double precision.
  EXPECT_EQ(after_delete(R"({"numRecords":4,"minValues":{"amount":12345678901234567.89},)"
                         R"("maxValues":{"amount":99999999999999999.99},"nullCount":{"amount":0},)"
                         R"("tightBounds":true})"),
            R"({"numRecords":4,"minValues":{"amount":12345678901234567.89},)"
            R"("maxValues":{"amount":99999999999999999.99},"nullCount":{"amount":0},)"
            R"("tightBounds":false})");
  EXPECT_EQ(
      after_delete(R"({ "numRecords" : 4, "tightBounds" : true, "nullCount":{"x":{"y":1}} })"),
      R"({ "numRecords" : 4, "tightBounds" : false, "nullCount":{"x":{"y":1}} })");
  // numRecords is added when missing (from the Parquet footer).
  EXPECT_EQ(after_delete(R"({"minValues":{"id":0}})"),
            R"({"numRecords":4,"minValues":{"id":0},"tightBounds":false})");
  EXPECT_EQ(after_delete(std::nullopt), R"({"numRecords":4})");
}

TEST(RowDeleterTest, BadRequests) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(false, kDvs)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 5)).ok());
  auto snapshot = Latest(fs, "/t");
  const std::string path = snapshot->files()[0].path;
  EXPECT_EQ(DeleteRows(fs, *snapshot, {{"nope.parquet", {0}}}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(DeleteRows(fs, *snapshot, {{path, {5}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DeleteRows(fs, *snapshot, {{path, {-1}}}).status().code(),
            StatusCode::kInvalidArgument);
  auto nothing = DeleteRows(fs, *snapshot, {{path, {}}});
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->empty());
  ASSERT_EQ(DeleteIds(fs, "/t", {0}), 2);
  auto again = DeleteRows(fs, *Latest(fs, "/t"), {{path, {0, 0}}});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());  // row 0 is already deleted
}

}  // namespace
}  // namespace cdclake::delta
