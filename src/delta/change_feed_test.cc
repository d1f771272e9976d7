// Tests for reading the change data feed of real tables (Spark, Databricks) and of tables written
// here with deletion vectors and change data files: every version's changes, applied to the
// previous version's rows, must give that version's rows.
#include "delta/change_feed.h"

#include <gtest/gtest.h>

#include "delta/change_data_writer.h"
#include "delta/change_test_util.h"
#include "delta/log_segment.h"
#include "delta/partition_value.h"
#include "delta/row_deleter.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"

namespace cdclake::delta {
namespace {

using data::Value;
using testing::CommitActions;
using testing::OnlyIds;
using testing::PeopleRows;
using testing::PeopleSpec;
using testing::PositionsOf;
using testing::RowSet;
using testing::WithoutIds;

const std::string kShared = CDCLAKE_SHARED_DIR "/testdata/delta/";

// One change row: the table's columns as text, the change type, the version.
struct Change {
  std::string row;
  std::string type;
  int64_t version;
  int64_t timestamp_us;
};

std::vector<Change> Changes(const data::RecordBatch& feed) {
  size_t n = feed.num_columns() - 3;
  std::vector<Change> out;
  for (int64_t r = 0; r < feed.num_rows(); ++r) {
    std::string row;
    for (size_t c = 0; c < n; ++c) row += feed.column(c).GetValue(r).DebugString() + "|";
    out.push_back({row, feed.column(n).GetValue(r).bytes(),
                   feed.column(n + 1).GetValue(r).int_value(),
                   feed.column(n + 2).GetValue(r).int_value()});
  }
  return out;
}

// The changes of `version` of one type, as a multiset of rows.
std::multiset<std::string> Of(const std::vector<Change>& changes, int64_t version,
                              const std::string& type) {
  std::multiset<std::string> out;
  for (const Change& c : changes) {
    if (c.version == version && c.type == type) out.insert(c.row);
  }
  return out;
}

size_t CountAt(const std::vector<Change>& changes, int64_t version) {
  size_t n = 0;
  for (const Change& c : changes) n += c.version == version;
  return n;
}

// For every version in [from, to]: the rows of version v-1, with v's inserts and post-images
// added and its deletes and pre-images taken away, are the rows of version v.
void ExpectFeedReplaysTheTable(const io::FileSystem& fs, const std::string& root, int64_t from,
                               int64_t to) {
  auto feed = ReadChanges(fs, root, from, to);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> changes = Changes(*feed);
  std::multiset<std::string> rows;
  if (from > 0) {
    auto before = Snapshot::Load(fs, root, from - 1);
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    rows = RowSet(*ReadTable(fs, **before));
  }
  for (int64_t v = from; v <= to; ++v) {
    for (const Change& c : changes) {
      if (c.version != v) continue;
      if (c.type == "insert" || c.type == "update_postimage") {
        rows.insert(c.row);
      } else {
        auto it = rows.find(c.row);
        ASSERT_NE(it, rows.end()) << "version " << v << ": " << c.type
                                  << " of a row not there: " << c.row;
        rows.erase(it);
      }
    }
    auto snapshot = Snapshot::Load(fs, root, v);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto read = ReadTable(fs, **snapshot);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(rows, RowSet(*read)) << root << " version " << v;
  }
}

std::string Row(std::initializer_list<Value> values) {
  std::string s;
  for (const Value& v : values) s += v.DebugString() + "|";
  return s;
}

int64_t Day(const char* date) {
  auto d = ParseDateText(date);
  EXPECT_TRUE(d.ok());
  return *d;
}

TEST(ChangeFeedTest, SparkCdfTableReadsFromChangeDataFiles) {
  const std::string root = kShared + "rs-cdf-table";
  const auto& fs = *io::LocalFileSystem::Instance();
  auto feed = ReadChanges(fs, root, 0);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  EXPECT_EQ(feed->schema().ToString(),
            "id int\nname string\nbirthday date\n_change_type string not null\n"
            "_commit_version bigint not null\n_commit_timestamp timestamp not null\n");
  std::vector<Change> changes = Changes(*feed);
  ASSERT_EQ(changes.size(), 23u);
  EXPECT_EQ(Of(changes, 0, "insert").size(), 10u);
  EXPECT_EQ(CountAt(changes, 0), 10u);
  // Version 1: UPDATE ... birthday for ids 2, 3, 4 (2023-12-23 -> 2023-12-22).
  auto d = [](const char* date) { return Value::Int(Day(date)); };
  EXPECT_EQ(
      Of(changes, 1, "update_preimage"),
      (std::multiset<std::string>{Row({Value::Int(2), Value::Bytes("Bob"), d("2023-12-23")}),
                                  Row({Value::Int(3), Value::Bytes("Dave"), d("2023-12-23")}),
                                  Row({Value::Int(4), Value::Bytes("Kate"), d("2023-12-23")})}));
  EXPECT_EQ(
      Of(changes, 1, "update_postimage"),
      (std::multiset<std::string>{Row({Value::Int(2), Value::Bytes("Bob"), d("2023-12-22")}),
                                  Row({Value::Int(3), Value::Bytes("Dave"), d("2023-12-22")}),
                                  Row({Value::Int(4), Value::Bytes("Kate"), d("2023-12-22")})}));
  EXPECT_EQ(CountAt(changes, 1), 6u);
  EXPECT_EQ(Of(changes, 2, "update_preimage").size(), 3u);
  EXPECT_EQ(Of(changes, 2, "update_postimage").size(), 3u);
  EXPECT_EQ(
      Of(changes, 3, "delete"),
      (std::multiset<std::string>{Row({Value::Int(7), Value::Bytes("Dennis"), d("2023-12-29")})}));
  EXPECT_EQ(CountAt(changes, 3), 1u);
  // No in-commit timestamps: each version's timestamp is its commit file's modification time.
  auto commits = ListCommits(fs, root);
  ASSERT_TRUE(commits.ok());
  for (const Change& c : changes) {
    EXPECT_EQ(c.timestamp_us, (*commits)[c.version].modification_time_ms * 1000);
  }
  ExpectFeedReplaysTheTable(fs, root, 0, 3);
  // A window of the range.
  auto window = ReadChanges(fs, root, 1, 2);
  ASSERT_TRUE(window.ok());
  EXPECT_EQ(window->num_rows(), 12);
}

TEST(ChangeFeedTest, InCommitTimestampsGiveTheCommitTimestamp) {
  const std::string root = kShared + "rs-cdc_ict_table";
  const auto& fs = *io::LocalFileSystem::Instance();
  auto feed = ReadChanges(fs, root, 0, 3);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> changes = Changes(*feed);
  const std::map<int64_t, int64_t> ict = {
      {1, 1683874206883}, {2, 1783874212175}, {3, 1783874213881}};
  for (const Change& c : changes) EXPECT_EQ(c.timestamp_us, ict.at(c.version) * 1000);
  auto r = [](const char* name, int year, int age) {
    return Row({Value::Bytes(name), Value::Int(year), Value::Int(age)});
  };
  EXPECT_EQ(CountAt(changes, 0), 0u);
  EXPECT_EQ(Of(changes, 1, "insert"),
            (std::multiset<std::string>{r("Steve", 1986, 40), r("Kate", 1995, 36),
                                        r("Dave", 1995, 22), r("Dan", 1995, 14)}));
  EXPECT_EQ(Of(changes, 2, "delete"),
            (std::multiset<std::string>{r("Dave", 1995, 22), r("Dan", 1995, 14)}));
  EXPECT_EQ(CountAt(changes, 2), 2u);
  EXPECT_EQ(Of(changes, 3, "update_preimage"),
            (std::multiset<std::string>{r("Steve", 1986, 40), r("Kate", 1995, 36)}));
  EXPECT_EQ(Of(changes, 3, "update_postimage"),
            (std::multiset<std::string>{r("Steve", 1986, 41), r("Kate", 1995, 37)}));
  EXPECT_EQ(CountAt(changes, 3), 4u);
  ExpectFeedReplaysTheTable(fs, root, 0, 3);
}

TEST(ChangeFeedTest, DatabricksDeletionVectorsAndChangeDataFiles) {
  // DELETEs through deletion vectors with no cdc files, UPDATE/MERGE with cdc files and
  // deletion vectors, OPTIMIZE (dataChange false) in between.
  const std::string root = kShared + "kernel-compacted-log-files-table";
  const auto& fs = *io::LocalFileSystem::Instance();
  auto feed = ReadChanges(fs, root, 0);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> changes = Changes(*feed);
  // Version 2: DELETE WHERE id = 3, the rows newly in the deletion vector.
  ASSERT_EQ(CountAt(changes, 2), 1u);
  EXPECT_EQ(Of(changes, 2, "delete").begin()->rfind("3|", 0), 0u);
  // Version 24: DELETE WHERE id < 10, six rows.
  EXPECT_EQ(Of(changes, 24, "delete").size(), 6u);
  EXPECT_EQ(CountAt(changes, 24), 6u);
  for (int64_t v : {3, 6, 11, 13, 17, 19, 21, 23}) EXPECT_EQ(CountAt(changes, v), 0u) << v;
  ExpectFeedReplaysTheTable(fs, root, 0, 25);
}

TEST(ChangeFeedTest, RemovesOfFilesWithDeletionVectorsAndDeletionVectorUpdates) {
  // Versions 11-13 remove files that had deletion vectors; 14-15 update deletion vectors
  // (the add comes before the remove in the commit).
  const std::string root = kShared + "golden-dv-partitioned-with-checkpoint/delta";
  const auto& fs = *io::LocalFileSystem::Instance();
  auto feed = ReadChanges(fs, root, 11, 15);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> changes = Changes(*feed);
  for (const Change& c : changes) EXPECT_EQ(c.type, "delete");
  // DELETE WHERE col1 = 20 + 2 * (v - 11): each deleted row has that col1 (column 1).
  for (int64_t v = 11; v <= 15; ++v) {
    ASSERT_GT(CountAt(changes, v), 0u) << v;
    for (const std::string& row : Of(changes, v, "delete")) {
      EXPECT_NE(row.find("|" + std::to_string(20 + 2 * (v - 11)) + "|"), std::string::npos)
          << "version " << v << ": " << row;
    }
  }
  ExpectFeedReplaysTheTable(fs, root, 11, 15);
}

// Copies every file under `from_dir` to the same place under `to_dir`.
void CopyTree(const io::FileSystem& from, const std::string& from_dir, io::FileSystem& to,
              const std::string& to_dir) {
  auto entries = from.List(from_dir);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  for (const io::FileInfo& e : *entries) {
    std::string name = e.path.substr(e.path.rfind('/') + 1);
    if (e.is_directory) {
      CopyTree(from, e.path, to, io::JoinPath(to_dir, name));
    } else {
      auto data = from.ReadFile(e.path);
      ASSERT_TRUE(data.ok());
      ASSERT_TRUE(to.WriteFile(io::JoinPath(to_dir, name), *data).ok());
    }
  }
}

TEST(ChangeFeedTest, RangeBeforeTheEarliestCommitFailsClearly) {
  io::MemoryFileSystem fs;
  CopyTree(*io::LocalFileSystem::Instance(),
           kShared + "golden-dv-partitioned-with-checkpoint/delta", fs, "/t");
  // Log cleanup: the commits before the checkpoint at version 10 are gone.
  for (int64_t v = 0; v < 10; ++v) ASSERT_TRUE(fs.Delete(CommitPath("/t", v)).ok());
  auto early = ReadChanges(fs, "/t", 5);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), StatusCode::kNotFound);
  EXPECT_NE(early.status().message().find("the earliest commit still in the log is version 10"),
            std::string::npos)
      << early.status().ToString();
  auto from_ten = ReadChanges(fs, "/t", 10);
  ASSERT_TRUE(from_ten.ok()) << from_ten.status().ToString();
  // The same changes as the whole table's (the timestamps are the copies' times).
  auto original = ReadChanges(*io::LocalFileSystem::Instance(),
                              kShared + "golden-dv-partitioned-with-checkpoint/delta", 10);
  ASSERT_TRUE(original.ok());
  std::vector<Change> a = Changes(*from_ten), b = Changes(*original);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].row, b[i].row);
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].version, b[i].version);
  }
}

TEST(ChangeFeedTest, BadRanges) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(false)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 3)).ok());
  EXPECT_EQ(ReadChanges(fs, "/t", -1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadChanges(fs, "/t", 1, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadChanges(fs, "/t", 2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadChanges(fs, "/t", 0, 2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadChanges(fs, "/nothing", 0).status().code(), StatusCode::kNotFound);
  auto all = ReadChanges(fs, "/t", 0, 1);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->num_rows(), 3);
  auto last = ReadChanges(fs, "/t", 1);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->num_rows(), 3);
}

// A table with deletion vectors and change data feed: inserts, deletes through deletion
// vectors, an update as a deletion vector plus new rows plus change data files, a whole file
// deleted, and a metadata-only commit.
TEST(ChangeFeedTest, TableWrittenHereWithDeletionVectorsAndChangeData) {
  io::MemoryFileSystem fs;
  fs.SetNowMs(1700000000000);
  auto spec = PeopleSpec(
      true, {{"delta.enableDeletionVectors", "true"}, {"delta.enableChangeDataFeed", "true"}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());                  // v0
  ASSERT_EQ(*AppendRows(fs, "/t", PeopleRows(0, 40)), 1);         // v1: 40 inserts
  ASSERT_EQ(*AppendRows(fs, "/t", PeopleRows(100, 10, "b")), 2);  // v2: 10 inserts
  auto snapshot = *Snapshot::Load(fs, "/t");

  // v3: delete ids across three partitions' files; the feed must name exactly those rows.
  const std::set<int64_t> deleted = {0, 1, 3, 17, 38, 104};
  auto deletion = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, deleted));
  ASSERT_TRUE(deletion.ok()) << deletion.status().ToString();
  ASSERT_EQ(*CommitActions(fs, "/t", *deletion), 3);

  // v4: update ids 5 and 6 (and 1, already deleted: ignored) — delete through a deletion
  // vector, add the new versions, and describe it all in change data files.
  snapshot = *Snapshot::Load(fs, "/t");
  DeleteRowsOptions collect;
  collect.collect_deleted_rows = true;
  auto update = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, {1, 5, 6}), collect);
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->num_deleted, 2);
  data::RecordBatch post = PeopleRows(5, 2, "updated");
  auto adds = WriteDataFiles(fs, *snapshot, post);
  ASSERT_TRUE(adds.ok());
  data::RecordBatch changes = WithChangeType(update->deleted_rows, kChangeUpdatePreimage);
  data::RecordBatch post_changes = WithChangeType(post, kChangeUpdatePostimage);
  for (size_t c = 0; c < changes.num_columns(); ++c)
    changes.mutable_column(c).AppendColumn(post_changes.column(c));
  auto cdc = WriteChangeDataFiles(fs, *snapshot, changes);
  ASSERT_TRUE(cdc.ok()) << cdc.status().ToString();
  std::vector<Action> actions = update->actions;
  for (const Add& a : *adds) actions.push_back(a);
  for (const AddCdc& c : *cdc) actions.push_back(c);
  ASSERT_EQ(*CommitActions(fs, "/t", actions, "UPDATE"), 4);

  // v5: every row of the second append's NULL-day file: a plain remove.
  snapshot = *Snapshot::Load(fs, "/t");
  std::set<int64_t> null_day = {101, 108};  // i % 7 == 3
  auto whole = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, null_day));
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->size(), 1u);
  ASSERT_TRUE(std::holds_alternative<Remove>((*whole)[0]));
  ASSERT_EQ(*CommitActions(fs, "/t", *whole), 5);

  // v6: metadata only.
  Metadata m = snapshot->metadata();
  m.description = "people";
  ASSERT_EQ(*CommitActions(fs, "/t", {m}, "SET TBLPROPERTIES"), 6);

  auto feed = ReadChanges(fs, "/t", 0);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> all = Changes(*feed);
  EXPECT_EQ(CountAt(all, 0), 0u);
  EXPECT_EQ(Of(all, 1, "insert"), RowSet(PeopleRows(0, 40)));
  EXPECT_EQ(Of(all, 2, "insert"), RowSet(PeopleRows(100, 10, "b")));
  data::RecordBatch both = PeopleRows(0, 40);
  data::RecordBatch second = PeopleRows(100, 10, "b");
  for (size_t c = 0; c < both.num_columns(); ++c)
    both.mutable_column(c).AppendColumn(second.column(c));
  EXPECT_EQ(Of(all, 3, "delete"), RowSet(OnlyIds(both, deleted)));
  EXPECT_EQ(CountAt(all, 3), deleted.size());
  EXPECT_EQ(Of(all, 4, "update_preimage"), RowSet(OnlyIds(PeopleRows(0, 40), {5, 6})));
  EXPECT_EQ(Of(all, 4, "update_postimage"), RowSet(post));
  EXPECT_EQ(CountAt(all, 4), 4u);
  EXPECT_EQ(Of(all, 5, "delete"), RowSet(OnlyIds(second, null_day)));
  EXPECT_EQ(CountAt(all, 5), 2u);
  EXPECT_EQ(CountAt(all, 6), 0u);
  ExpectFeedReplaysTheTable(fs, "/t", 0, 6);
  for (int64_t from = 1; from <= 6; ++from) ExpectFeedReplaysTheTable(fs, "/t", from, 6);
}

TEST(ChangeFeedTest, ADeletionVectorThatShrinksReinsertsRows) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(
      CreateTable(fs, "/t", PeopleSpec(false, {{"delta.enableDeletionVectors", "true"}})).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 10)).ok());
  auto snapshot = *Snapshot::Load(fs, "/t");
  auto first = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, {2, 3, 4}));
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(*CommitActions(fs, "/t", *first), 2);
  // A restore-like commit: the file goes back to a deletion vector holding only row 4.
  snapshot = *Snapshot::Load(fs, "/t");
  Add current = snapshot->files()[0];
  Remove rm;
  rm.path = current.path;
  rm.deletion_timestamp = 1;
  rm.deletion_vector = current.deletion_vector;
  rm.partition_values = current.partition_values;
  Add restored = current;
  restored.deletion_vector = InlineDeletionVector(RowBitmap::Of({4}));
  ASSERT_EQ(*CommitActions(fs, "/t", {rm, restored}, "RESTORE"), 3);
  auto feed = ReadChanges(fs, "/t", 3);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  std::vector<Change> changes = Changes(*feed);
  EXPECT_EQ(Of(changes, 3, "insert"), RowSet(OnlyIds(PeopleRows(0, 10), {2, 3})));
  EXPECT_EQ(changes.size(), 2u);
  ExpectFeedReplaysTheTable(fs, "/t", 0, 3);
}

TEST(ChangeFeedTest, CopyOnWriteWithoutChangeDataReadsAsDeleteAndInsert) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", PeopleSpec(false)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", PeopleRows(0, 5)).ok());
  auto snapshot = *Snapshot::Load(fs, "/t");
  auto deletion = DeleteRows(fs, *snapshot, PositionsOf(fs, *snapshot, {2}));
  ASSERT_TRUE(deletion.ok());
  ASSERT_EQ(*CommitActions(fs, "/t", *deletion), 2);
  auto feed = ReadChanges(fs, "/t", 2);
  ASSERT_TRUE(feed.ok());
  std::vector<Change> changes = Changes(*feed);
  EXPECT_EQ(Of(changes, 2, "delete"), RowSet(PeopleRows(0, 5)));
  EXPECT_EQ(Of(changes, 2, "insert"), RowSet(WithoutIds(PeopleRows(0, 5), {2})));
  ExpectFeedReplaysTheTable(fs, "/t", 0, 2);
}

}  // namespace
}  // namespace cdclake::delta
