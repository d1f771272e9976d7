// Tests of the Applier's write path: commits, the key index's life (restart, deletion,
// catch-up), copy-on-write, change data, quarantine and schema evolution.
#include "apply/applier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <tuple>

#include "apply/index_log.h"
#include "apply/key_index.h"
#include "apply/key_state.h"
#include "apply/optimize.h"
#include "change/ordered_encoding.h"
#include "data/value_format.h"
#include "delta/change_feed.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake::apply {
namespace {

using data::DataType;
using data::Value;

data::Schema SourceSchema() {
  return data::Schema({{"id", DataType::Int32(), true},
                       {"name", DataType::String(), true},
                       {"op", DataType::String(), true},
                       {"seq", DataType::Int64(), true}});
}

// SourceSchema with a column `city` added after `name`.
data::Schema WiderSchema() {
  return data::Schema({{"id", DataType::Int32(), true},
                       {"name", DataType::String(), true},
                       {"city", DataType::String(), true},
                       {"op", DataType::String(), true},
                       {"seq", DataType::Int64(), true}});
}

struct Row {
  std::optional<int> id;
  std::optional<std::string> name;
  std::string op;
  std::optional<int64_t> seq;
};

change::ChangeBatch Batch(const std::vector<Row>& rows) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(SourceSchema());
  int line = 1;
  for (const Row& r : rows) {
    batch.rows.AppendRow({r.id ? Value::Int(*r.id) : Value::Null(),
                          r.name ? Value::Bytes(*r.name) : Value::Null(), Value::Bytes(r.op),
                          r.seq ? Value::Int(*r.seq) : Value::Null()});
    batch.positions.push_back({"input.csv", ++line, 0});
    batch.raw.push_back("");
  }
  return batch;
}

FlowDefinition Flow(const std::string& target, ScdType scd = ScdType::kType1) {
  FlowDefinition flow;
  flow.name = "test_flow";
  flow.target = target;
  flow.keys = {"id"};
  flow.sequence_by = {"seq"};
  flow.delete_when =
      data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"op"}),
                          data::Expr::Literal(Value::Bytes("D"), DataType::String()));
  flow.columns = ColumnSelection::Except({"op", "seq"});
  flow.scd_type = scd;
  return flow;
}

// The table's rows as sorted text lines.
std::vector<std::string> TableRows(io::FileSystem& fs, const std::string& root) {
  auto snapshot = delta::Snapshot::Load(fs, root);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  if (!snapshot.ok()) return {};
  auto batch = delta::ReadTable(fs, **snapshot);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  std::vector<std::string> lines;
  for (int64_t r = 0; r < batch->num_rows(); ++r) {
    std::string line;
    for (size_t c = 0; c < batch->num_columns(); ++c) {
      if (c) line += ",";
      line += data::CsvField(batch->column(c).GetValue(r), *batch->schema().field(c).type);
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

class ApplierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = io::ScratchDir::Create("applier-");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<io::ScratchDir>(std::move(*dir));
    target_ = io::JoinPath(dir_->path(), "target");
  }
  std::unique_ptr<Applier> Open(FlowDefinition flow, ApplyOptions options = {}) {
    auto applier = Applier::Open(fs_, std::move(flow), std::move(options));
    EXPECT_TRUE(applier.ok()) << applier.status().ToString();
    return applier.ok() ? std::move(*applier) : nullptr;
  }
  ApplyResult Apply(Applier& applier, const std::vector<Row>& rows) {
    auto result = applier.Apply(Batch(rows));
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    const ApplyCounts& c = result->counts;
    EXPECT_EQ(c.read, c.applied + c.discarded + c.quarantined);  // SEMANTICS §8
    return result.ok() ? *result : ApplyResult{};
  }

  io::LocalFileSystem fs_;
  std::unique_ptr<io::ScratchDir> dir_;
  std::string target_;
};

TEST_F(ApplierTest, Scd1UpsertsDeletesAndOlderEvents) {  // SEMANTICS §3
  auto applier = Open(Flow(target_));
  ApplyResult r1 = Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}, {1, "a2", "U", 3}});
  EXPECT_EQ(r1.counts.inserted, 2);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2", "2,b"}));
  ApplyResult r2 = Apply(*applier, {{1, "old", "U", 2}, {2, std::nullopt, "D", 5}});
  EXPECT_EQ(r2.counts.discarded, 1);
  EXPECT_EQ(r2.counts.deleted, 1);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2"}));
  // An upsert older than the delete never resurrects the row; a newer one does.
  Apply(*applier, {{2, "late", "U", 4}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2"}));
  Apply(*applier, {{2, "back", "U", 6}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2", "2,back"}));
}

// One applier over several batches: each batch judges its events by the states the batch
// before it wrote to the index, so no older row comes back.
TEST_F(ApplierTest, LaterBatchesReadTheStatesEarlierOnesWrote) {  // SEMANTICS §2
  auto applier = Open(Flow(target_));
  auto apply = [&](const std::vector<Row>& rows) {
    auto result = applier->Apply(Batch(rows), CommitExtras{});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? result->counts : ApplyCounts{};
  };
  apply({{1, "a", "U", 1}, {2, "b", "U", 1}});
  apply({{1, "a2", "U", 3}, {2, std::nullopt, "D", 3}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2"}));
  // Older than the last batch's events: discarded only if their states are the new ones.
  ApplyCounts late = apply({{1, "old", "U", 2}, {2, "late", "U", 2}});
  EXPECT_EQ(late.discarded, 2);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2"}));
  apply({{2, "back", "U", 4}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2", "2,back"}));
}

// A batch large enough to be encoded on two threads, whose rows take the shortcut from the
// batch (DiffFromSource): as one batch, and applied 1,000 at a time (encoded on one thread),
// the same rows make the table SCD1 says, and quarantine the same rows.
TEST_F(ApplierTest, LargeBatchEqualsSmallBatches) {  // SEMANTICS §2, §3, §8
  std::vector<Row> rows;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  for (int i = 0; i < 40000; ++i) {
    Row r;
    r.id = static_cast<int>(next(6000));
    r.seq = static_cast<int64_t>(next(30000));
    r.name = "n" + std::to_string(next(4));  // repeats: some updates change nothing
    r.op = next(10) == 0 ? "D" : "U";
    if (next(500) == 0) r.id.reset();   // quarantined: NULL key
    if (next(500) == 0) r.seq.reset();  // quarantined: NULL sequence
    rows.push_back(r);
  }
  const std::string small_target = io::JoinPath(dir_->path(), "small");
  ApplyCounts one, many;
  {
    auto applier = Open(Flow(target_));
    // A first batch so that the large one also updates and deletes existing rows.
    std::vector<Row> head(rows.begin(), rows.begin() + 5000);
    one += Apply(*applier, head).counts;
    one += Apply(*applier, std::vector<Row>(rows.begin() + 5000, rows.end())).counts;
  }
  {
    auto applier = Open(Flow(small_target));
    for (size_t from = 0; from < rows.size(); from += 1000) {
      std::vector<Row> part(rows.begin() + static_cast<std::ptrdiff_t>(from),
                            rows.begin() + static_cast<std::ptrdiff_t>(from + 1000));
      many += Apply(*applier, part).counts;
    }
  }
  // SCD1's table is each key's last event in the engine's order (sequence, then a delete
  // after an upsert, then content), whatever the batches: the rows it leaves.
  std::map<int, std::tuple<int64_t, int, std::string>> last;
  for (const Row& r : rows) {
    if (!r.id || !r.seq) continue;
    auto candidate = std::make_tuple(*r.seq, r.op == "D" ? 1 : 0, *r.name);
    auto [it, fresh] = last.emplace(*r.id, candidate);
    if (!fresh && it->second < candidate) it->second = candidate;
  }
  std::vector<std::string> expected;
  for (const auto& [id, event] : last) {
    if (std::get<1>(event) == 0) expected.push_back(std::to_string(id) + "," + std::get<2>(event));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_GT(expected.size(), 3000u);
  EXPECT_EQ(TableRows(fs_, target_), expected);
  EXPECT_EQ(TableRows(fs_, small_target), expected);
  EXPECT_EQ(one.quarantined, many.quarantined);
  EXPECT_GT(one.quarantined, 100);
  EXPECT_EQ(one.read, many.read);
}

TEST_F(ApplierTest, ReplayWritesNoVersion) {  // SEMANTICS §8
  auto applier = Open(Flow(target_));
  std::vector<Row> rows = {{1, "a", "U", 1}, {2, "b", "U", 2}, {2, std::nullopt, "D", 3}};
  ApplyResult first = Apply(*applier, rows);
  ASSERT_TRUE(first.version);
  ApplyResult again = Apply(*applier, rows);
  EXPECT_FALSE(again.version);
  EXPECT_EQ(again.counts.discarded, 3);
  // Also after a restart and after the index is deleted.
  applier.reset();
  applier = Open(Flow(target_));
  EXPECT_FALSE(Apply(*applier, rows).version);
  applier.reset();
  std::filesystem::remove_all(IndexDir(target_));
  applier = Open(Flow(target_));
  EXPECT_FALSE(Apply(*applier, rows).version);
  EXPECT_EQ(applier->version(), *first.version);
}

// A lost `_cdclake/` (index and index log, or the log alone, or a damaged log file) is rebuilt
// on open from the table's rows; the table then goes on as if nothing had happened, and a late
// event older than a delete does not bring the deleted row back.
TEST_F(ApplierTest, LostIndexLogIsRebuiltFromTheRows) {
  for (ScdType scd : {ScdType::kType1, ScdType::kType2}) {
    for (const char* damage : {"all", "log", "corrupt"}) {
      std::string clean = target_ + "_clean" + std::to_string(static_cast<int>(scd)) + damage;
      std::string target = target_ + std::to_string(static_cast<int>(scd)) + damage;
      FlowDefinition flow = Flow(clean, scd);
      flow.table_properties["cdclake.lateEventPolicy"] = "quarantine";
      std::vector<Row> first = {{1, "a", "U", 1}, {2, "b", "U", 2}, {1, std::nullopt, "D", 4}};
      std::vector<Row> second = {{2, "b2", "U", 5}, {3, "c", "U", 6}};
      std::vector<Row> late = {{1, "old", "U", 3}};
      auto applier = Open(flow);
      for (const auto& rows : {first, second, late}) Apply(*applier, rows);
      applier.reset();
      flow.target = target;
      applier = Open(flow);
      Apply(*applier, first);
      applier.reset();
      std::string log = IndexLogDir(target);
      if (std::string(damage) == "all") {
        std::filesystem::remove_all(io::JoinPath(target, "_cdclake"));
      } else if (std::string(damage) == "log") {
        std::filesystem::remove_all(log);
      } else {
        std::filesystem::remove_all(IndexDir(target));
        for (const auto& entry : std::filesystem::directory_iterator(log)) {
          ASSERT_TRUE(fs_.WriteFile(entry.path().string(), "not parquet").ok());
        }
      }
      std::vector<std::string> notices;
      ApplyOptions options;
      options.notice = [&](const std::string& line) { notices.push_back(line); };
      applier = Open(flow, options);
      ASSERT_NE(applier, nullptr);
      ASSERT_EQ(notices.size(), 1u) << damage;
      // Only the log gone: the whole index writes it anew, losing nothing (for SCD1 the late
      // event then meets key 1's tombstone). Otherwise the rows are all that is left.
      const bool from_rows = std::string(damage) != "log";
      const char* expected =
          from_rows ? "from the table's rows" : "written anew from the key index";
      EXPECT_NE(notices[0].find(expected), std::string::npos) << notices[0];
      Apply(*applier, second);
      ApplyResult r = Apply(*applier, late);
      if (!from_rows && scd == ScdType::kType1) {
        EXPECT_EQ(r.counts.discarded, 1) << damage;
      }
      if (scd == ScdType::kType1 && from_rows) {
        // Key 1's tombstone went with the index log: the horizon (4, the delete's sequence,
        // recorded in the commit) quarantines the event.
        EXPECT_NE(notices[0].find("purge horizon is raised to"), std::string::npos) << notices[0];
        EXPECT_EQ(r.counts.quarantined, 1);
      }
      EXPECT_EQ(TableRows(fs_, target), TableRows(fs_, clean)) << damage;
      applier.reset();
      notices.clear();
      applier = Open(flow, options);
      EXPECT_TRUE(notices.empty()) << "a whole index rebuilt again: " << notices[0];
    }
  }
}

// SEMANTICS §4/§8: an update identical to the open version changes no row, but the key's newer
// sequence is kept (its version carries no data file): a later late event between the two still
// lands in the right place, and a replay of it writes nothing.
TEST_F(ApplierTest, IdenticalUpdateKeepsItsSequenceWithoutData) {
  auto applier = Open(Flow(target_, ScdType::kType2));
  ApplyResult first = Apply(*applier, {{1, "a", "U", 1}});
  ASSERT_TRUE(first.version);
  ApplyResult same = Apply(*applier, {{1, "a", "U", 5}});
  EXPECT_EQ(same.counts.applied, 1);
  ASSERT_TRUE(same.version);
  auto snapshot = delta::Snapshot::Load(fs_, target_);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->files().size(), 1u);  // the first batch's file, nothing added
  EXPECT_FALSE(Apply(*applier, {{1, "a", "U", 5}}).version);
  // A late change at 3 splits the version; the identical update at 5 closes it again.
  ApplyResult late = Apply(*applier, {{1, "b", "U", 3}});
  ASSERT_TRUE(late.version);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a,1,3", "1,a,5,", "1,b,3,5"}));
}

// The key state a batch without rows changed is in that batch's index-log file, so an index
// rebuilt from the log still holds it.
TEST_F(ApplierTest, ChangeWithoutRowsSurvivesARebuildFromTheLog) {
  auto applier = Open(Flow(target_, ScdType::kType2));
  ASSERT_TRUE(Apply(*applier, {{1, "a", "U", 1}}).version);
  ASSERT_TRUE(Apply(*applier, {{1, "a", "U", 5}}).version);
  ASSERT_TRUE(Apply(*applier, {{2, "x", "U", 6}}).version);  // another key's commit
  applier.reset();
  std::filesystem::remove_all(IndexDir(target_));
  applier = Open(Flow(target_, ScdType::kType2));
  ASSERT_TRUE(Apply(*applier, {{1, "b", "U", 3}}).version);
  EXPECT_EQ(TableRows(fs_, target_),
            (std::vector<std::string>{"1,a,1,3", "1,a,5,", "1,b,3,5", "2,x,6,"}));
}

TEST_F(ApplierTest, IndexCatchesUpWithCommitsItMissed) {
  auto applier = Open(Flow(target_));
  Apply(*applier, {{1, "a", "U", 1}});
  applier.reset();
  // A second applier with an in-memory index writes a commit the on-disk index never saw.
  ApplyOptions memory;
  memory.persistent_index = false;
  auto other = Open(Flow(target_), memory);
  Apply(*other, {{1, "b", "U", 2}, {3, "c", "U", 2}});
  other.reset();
  applier = Open(Flow(target_));
  ApplyResult r = Apply(*applier, {{1, "z", "U", 1}, {3, "d", "U", 3}});
  EXPECT_EQ(r.counts.discarded, 1);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,b", "3,d"}));
}

TEST_F(ApplierTest, CopyOnWriteKeepsLocationsRight) {
  FlowDefinition flow = Flow(target_);
  flow.table_properties["delta.enableDeletionVectors"] = "false";
  auto applier = Open(flow);
  Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}, {3, "c", "U", 1}, {4, "d", "U", 1}});
  Apply(*applier, {{2, "b2", "U", 2}});  // rewrites the first file: 1, 3, 4 move
  Apply(*applier, {{4, "d2", "U", 3}, {1, std::nullopt, "D", 3}});
  Apply(*applier, {{3, "c2", "U", 4}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"2,b2", "3,c2", "4,d2"}));
  auto snapshot = delta::Snapshot::Load(fs_, target_);
  ASSERT_TRUE(snapshot.ok());
  for (const auto& add : (*snapshot)->files()) EXPECT_FALSE(add.deletion_vector);
}

TEST_F(ApplierTest, CopyOnWriteMovesKeysWhoseEventsWereDiscarded) {
  FlowDefinition flow = Flow(target_);
  flow.table_properties["delta.enableDeletionVectors"] = "false";
  auto applier = Open(flow);
  Apply(*applier, {{1, "a", "U", 5}, {2, "b", "U", 5}});
  // Key 1's event is older (discarded) but its row moves when key 2's file is rewritten.
  Apply(*applier, {{2, "b2", "U", 6}, {1, "old", "U", 1}});
  Apply(*applier, {{1, "a2", "U", 7}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a2", "2,b2"}));
  applier.reset();
  std::filesystem::remove_all(IndexDir(target_));
  applier = Open(flow);
  Apply(*applier, {{1, "a3", "U", 8}, {2, std::nullopt, "D", 8}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a3"}));
}

TEST_F(ApplierTest, SequenceTypeMayNotChange) {
  auto applier = Open(Flow(target_));
  Apply(*applier, {{1, "a", "U", 5}});
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int32(), true},
                                               {"name", DataType::String(), true},
                                               {"op", DataType::String(), true},
                                               {"seq", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Bytes("b"), Value::Bytes("U"), Value::Bytes("9")});
  auto result = applier->Apply(batch);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("sequence was bigint"), std::string::npos)
      << result.status().ToString();
}

TEST_F(ApplierTest, Scd2HistoryAndLateEvents) {  // SEMANTICS §4
  auto applier = Open(Flow(target_, ScdType::kType2));
  Apply(*applier, {{1, "a", "U", 1}, {1, "c", "U", 3}});
  Apply(*applier, {{1, "b", "U", 2}});  // lands between 1 and 3
  Apply(*applier, {{1, std::nullopt, "D", 4}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a,1,2", "1,b,2,3", "1,c,3,4"}));
}

TEST_F(ApplierTest, InvalidRowsGoToQuarantine) {
  auto applier = Open(Flow(target_));
  ApplyResult r = Apply(
      *applier, {{std::nullopt, "x", "U", 1}, {1, "y", "U", std::nullopt}, {2, "ok", "U", 1}});
  EXPECT_EQ(r.counts.quarantined, 2);
  EXPECT_EQ(r.counts.applied, 1);
  ASSERT_TRUE(r.quarantine_version);
  auto snapshot = delta::Snapshot::Load(fs_, target_ + "_quarantine");
  ASSERT_TRUE(snapshot.ok());
  auto rows = delta::ReadTable(fs_, **snapshot);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->num_rows(), 2);
  EXPECT_NE(rows->column(1).StringAt(0).find("NULL in key column 'id'"), std::string::npos);
  EXPECT_NE(rows->column(1).StringAt(1).find("NULL sequence"), std::string::npos);
  EXPECT_EQ(rows->column(3).GetValue(0), Value::Int(2));  // source_line
}

TEST_F(ApplierTest, TombstonesExpireByProcessingTime) {  // SEMANTICS §6
  int64_t now = 1'000'000'000;
  for (bool quarantine : {false, true}) {
    std::string target = target_ + (quarantine ? "_q" : "_a");
    FlowDefinition flow = Flow(target);
    flow.table_properties["pipelines.cdc.tombstoneGCThresholdInSeconds"] = "60";
    if (quarantine) flow.table_properties["cdclake.lateEventPolicy"] = "quarantine";
    ApplyOptions options;
    options.clock = [&now] { return now; };
    auto applier = Open(flow, options);
    Apply(*applier, {{1, "a", "U", 1}, {1, std::nullopt, "D", 5}, {2, "b", "U", 1}});
    Apply(*applier, {{1, "late", "U", 3}});  // tombstone still there: discarded
    EXPECT_EQ(TableRows(fs_, target), (std::vector<std::string>{"2,b"}));
    now += 61'000;
    ApplyResult purge = Apply(*applier, {{2, "b2", "U", 2}});
    EXPECT_EQ(purge.counts.tombstones_purged, 1);
    ApplyResult late = Apply(*applier, {{1, "late", "U", 3}});
    if (quarantine) {
      EXPECT_EQ(late.counts.quarantined, 1);
      EXPECT_EQ(TableRows(fs_, target), (std::vector<std::string>{"2,b2"}));
    } else {
      EXPECT_EQ(late.counts.applied, 1);
      EXPECT_EQ(TableRows(fs_, target), (std::vector<std::string>{"1,late", "2,b2"}));
    }
  }
}

TEST_F(ApplierTest, NewColumnsAppearAndTypeChangesStop) {  // SEMANTICS §5
  auto applier = Open(Flow(target_));
  Apply(*applier, {{1, "a", "U", 1}});
  change::ChangeBatch wider;
  wider.rows = data::RecordBatch(WiderSchema());
  wider.rows.AppendRow(
      {Value::Int(2), Value::Bytes("b"), Value::Bytes("Oslo"), Value::Bytes("U"), Value::Int(2)});
  ASSERT_TRUE(applier->Apply(wider).ok());
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a,", "2,b,Oslo"}));
  change::ChangeBatch changed;
  changed.rows = data::RecordBatch(data::Schema({{"id", DataType::Int32(), true},
                                                 {"name", DataType::Int64(), true},
                                                 {"op", DataType::String(), true},
                                                 {"seq", DataType::Int64(), true}}));
  changed.rows.AppendRow({Value::Int(3), Value::Int(5), Value::Bytes("U"), Value::Int(3)});
  auto result = applier->Apply(changed);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'name'"), std::string::npos);
  EXPECT_NE(result.status().message().find("string"), std::string::npos);
}

TEST_F(ApplierTest, WideningSourceTypesWidenTheTarget) {  // SEMANTICS §5
  for (ScdType scd : {ScdType::kType1, ScdType::kType2}) {
    std::string target = target_ + (scd == ScdType::kType1 ? "_1" : "_2");
    auto applier = Open(Flow(target, scd));
    change::ChangeBatch narrow;
    narrow.rows = data::RecordBatch(data::Schema({{"id", DataType::Int32(), true},
                                                  {"name", DataType::String(), true},
                                                  {"op", DataType::String(), true},
                                                  {"seq", DataType::Int32(), true}}));
    narrow.rows.AppendRow({Value::Int(1), Value::Bytes("a"), Value::Bytes("U"), Value::Int(1)});
    narrow.rows.AppendRow({Value::Int(2), Value::Bytes("b"), Value::Bytes("U"), Value::Int(1)});
    ASSERT_TRUE(applier->Apply(narrow).ok());
    change::ChangeBatch wide;
    wide.rows = data::RecordBatch(data::Schema({{"id", DataType::Int64(), true},
                                                {"name", DataType::String(), true},
                                                {"op", DataType::String(), true},
                                                {"seq", DataType::Int64(), true}}));
    wide.rows.AppendRow(
        {Value::Int(1), Value::Bytes("a2"), Value::Bytes("U"), Value::Int(int64_t{1} << 40)});
    wide.rows.AppendRow(
        {Value::Int(int64_t{1} << 40), Value::Bytes("big"), Value::Bytes("U"), Value::Int(2)});
    auto result = applier->Apply(wide);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    auto snapshot = delta::Snapshot::Load(fs_, target);
    ASSERT_TRUE(snapshot.ok());
    const data::Schema& schema = (*snapshot)->schema();
    EXPECT_EQ(schema.field(schema.FieldIndex("id")).type->id(), data::TypeId::kInt64);
    if (scd == ScdType::kType2) {
      EXPECT_EQ(schema.field(schema.FieldIndex("__START_AT")).type->id(), data::TypeId::kInt64);
      EXPECT_EQ(TableRows(fs_, target),
                (std::vector<std::string>{"1,a,1,1099511627776", "1,a2,1099511627776,",
                                          "1099511627776,big,2,", "2,b,1,"}));
    } else {
      EXPECT_EQ(TableRows(fs_, target),
                (std::vector<std::string>{"1,a2", "1099511627776,big", "2,b"}));
      // Old narrow files and new wide ones compact together.
      applier.reset();
      auto optimized = Optimize(fs_, target, OptimizeOptions{});
      ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
      EXPECT_EQ(TableRows(fs_, target),
                (std::vector<std::string>{"1,a2", "1099511627776,big", "2,b"}));
    }
  }
}

TEST_F(ApplierTest, ChangeDataFeedDescribesEachBatch) {
  for (bool dvs : {true, false}) {
    std::string target = target_ + (dvs ? "_dv" : "_cow");
    FlowDefinition flow = Flow(target);
    flow.table_properties["delta.enableChangeDataFeed"] = "true";
    if (!dvs) flow.table_properties["delta.enableDeletionVectors"] = "false";
    auto applier = Open(flow);
    Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}, {4, "d", "U", 1}});
    ApplyResult r =
        Apply(*applier,
              {{1, "a2", "U", 2}, {2, std::nullopt, "D", 2}, {3, "c", "U", 2}, {4, "old", "U", 0}});
    ASSERT_TRUE(r.version);
    auto changes = delta::ReadChanges(fs_, target, *r.version);
    ASSERT_TRUE(changes.ok()) << changes.status().ToString();
    std::vector<std::string> lines;
    int type_column = changes->schema().FieldIndex("_change_type");
    ASSERT_GE(type_column, 0);
    for (int64_t i = 0; i < changes->num_rows(); ++i) {
      lines.push_back(std::string(changes->column(type_column).StringAt(i)) + ":" +
                      data::CsvField(changes->column(0).GetValue(i), *DataType::Int32()) + "," +
                      std::string(changes->column(1).StringAt(i)));
    }
    std::sort(lines.begin(), lines.end());
    // Key 4's older event changes nothing, so it is not in the feed (nor is its file's copy).
    EXPECT_EQ(lines, (std::vector<std::string>{"delete:2,b", "insert:3,c", "update_postimage:1,a2",
                                               "update_preimage:1,a"}))
        << (dvs ? "deletion vectors" : "copy-on-write");
  }
}

// A batch whose `name` cells are marked unchanged where `keep` is set (PostgreSQL TOAST).
change::ChangeBatch WithUnchangedNames(const std::vector<Row>& rows, const std::vector<int>& keep) {
  change::ChangeBatch batch = Batch(rows);
  batch.unchanged.assign(batch.rows.num_columns(), {});
  batch.unchanged[1].assign(rows.size(), 0);
  for (int r : keep) batch.unchanged[1][r] = 1;
  return batch;
}

TEST_F(ApplierTest, UnchangedCellsKeepTheTargetsValue) {
  for (ScdType scd : {ScdType::kType1, ScdType::kType2}) {
    std::string target = target_ + (scd == ScdType::kType1 ? "_1" : "_2");
    auto applier = Open(Flow(target, scd));
    Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}});
    // Key 1: an update that leaves name unchanged, then a late one between (also unchanged).
    // Key 3: no row yet, so an unchanged cell is NULL.
    auto r = applier->Apply(
        WithUnchangedNames({{1, std::nullopt, "U", 5}, {3, std::nullopt, "U", 5}}, {0, 1}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto late =
        applier->Apply(WithUnchangedNames({{1, "z", "U", 3}, {1, std::nullopt, "U", 4}}, {1}));
    ASSERT_TRUE(late.ok()) << late.status().ToString();
    std::vector<std::string> rows = TableRows(fs_, target);
    if (scd == ScdType::kType1) {
      // In sequence order: a@1, z@3, (unchanged)@4, (unchanged)@5 -> z.
      EXPECT_EQ(rows, (std::vector<std::string>{"1,z", "2,b", "3,"}));
    } else {
      // Versions: a [1,3), z [3,∞): the unchanged updates at 4 and 5 change nothing tracked.
      EXPECT_EQ(rows, (std::vector<std::string>{"1,a,1,3", "1,z,3,", "2,b,1,", "3,,5,"}));
    }
    // Restart and a lost index give the same answer for the next change.
    applier.reset();
    std::filesystem::remove_all(IndexDir(target));
    applier = Open(Flow(target, scd));
    ASSERT_TRUE(applier->Apply(WithUnchangedNames({{1, std::nullopt, "U", 6}}, {0})).ok());
    EXPECT_EQ(TableRows(fs_, target), rows);
  }
}

// `rows` with a column `extra` (a column the target does not have yet) after `name`.
change::ChangeBatch WithExtraColumn(const std::vector<Row>& rows, int64_t extra) {
  change::ChangeBatch batch = Batch(rows);
  data::RecordBatch wide(data::Schema({{"id", DataType::Int32(), true},
                                       {"name", DataType::String(), true},
                                       {"extra", DataType::Int64(), true},
                                       {"op", DataType::String(), true},
                                       {"seq", DataType::Int64(), true}}));
  for (int64_t r = 0; r < batch.rows.num_rows(); ++r) {
    wide.AppendRow({batch.rows.column(0).GetValue(r), batch.rows.column(1).GetValue(r),
                    Value::Int(extra + r), batch.rows.column(2).GetValue(r),
                    batch.rows.column(3).GetValue(r)});
  }
  batch.rows = std::move(wide);
  return batch;
}

// The change data feed of `version` as sorted "type:row" lines.
std::vector<std::string> ChangeLines(io::FileSystem& fs, const std::string& target,
                                     int64_t version) {
  auto changes = delta::ReadChanges(fs, target, version);
  EXPECT_TRUE(changes.ok()) << changes.status().ToString();
  if (!changes.ok()) return {};
  std::vector<std::string> lines;
  for (int64_t i = 0; i < changes->num_rows(); ++i) {
    std::string line;
    for (size_t c = 0; c < changes->num_columns(); ++c) {
      const std::string& name = changes->schema().field(c).name;
      if (name == "_commit_version" || name == "_commit_timestamp") continue;
      line += name + "=" +
              data::CsvField(changes->column(c).GetValue(i), *changes->schema().field(c).type) +
              ";";
    }
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// SCD2's change data feed: closing a version is an update of its row (pre-image open,
// post-image with its __END_AT), the version it opens an insert; a late event that splits a
// closed version updates it and inserts the middle one, and the versions after it stay out of
// the feed.
TEST_F(ApplierTest, Scd2ChangeDataFeedUpdatesClosedVersionsAndInsertsNewOnes) {
  auto line = [](const std::string& type, int id, const std::string& name, int start,
                 std::optional<int> end) {
    return "id=" + std::to_string(id) + ";name=" + name + ";__START_AT=" + std::to_string(start) +
           ";__END_AT=" + (end ? std::to_string(*end) : "") + ";_change_type=" + type + ";";
  };
  for (bool dvs : {true, false}) {
    std::string target = target_ + (dvs ? "_dv" : "_cow");
    FlowDefinition flow = Flow(target, ScdType::kType2);
    flow.table_properties["delta.enableChangeDataFeed"] = "true";
    if (!dvs) flow.table_properties["delta.enableDeletionVectors"] = "false";
    auto applier = Open(flow);
    Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}});
    ApplyResult second =
        Apply(*applier, {{1, "a2", "U", 3}, {2, std::nullopt, "D", 3}, {3, "c", "U", 3}});
    ASSERT_TRUE(second.version);
    std::vector<std::string> want = {line("insert", 1, "a2", 3, std::nullopt),
                                     line("insert", 3, "c", 3, std::nullopt),
                                     line("update_postimage", 1, "a", 1, 3),
                                     line("update_postimage", 2, "b", 1, 3),
                                     line("update_preimage", 1, "a", 1, std::nullopt),
                                     line("update_preimage", 2, "b", 1, std::nullopt)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(ChangeLines(fs_, target, *second.version), want) << (dvs ? "dv" : "cow");
    ApplyResult late = Apply(*applier, {{1, "mid", "U", 2}});
    ASSERT_TRUE(late.version);
    want = {line("insert", 1, "mid", 2, 3), line("update_postimage", 1, "a", 1, 2),
            line("update_preimage", 1, "a", 1, 3)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(ChangeLines(fs_, target, *late.version), want) << (dvs ? "dv" : "cow");
    EXPECT_EQ(late.counts.updated, 1);
    EXPECT_EQ(late.counts.inserted, 1);
  }
}

// SCD2 histories archived after a few events (key_history.h) give the table of histories kept
// whole, through batches whose late events land in the archive, a copy-on-write batch moving
// archived versions' rows, and an OPTIMIZE that moves them again (in the archive's chunks); with
// a change data feed, unchanged cells and a column added after archiving, the same feed.
TEST_F(ApplierTest, Scd2ArchivedHistoriesGiveTheWholeHistorysTable) {  // SEMANTICS §4
  auto chunk_entries = [](const std::string& target) {
    auto index = OpenRocksKeyIndex(IndexDir(target));
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    int count = 0;
    if (index.ok()) {
      EXPECT_TRUE((*index)
                      ->Scan("h",
                             [&](std::string_view, std::string_view) {
                               ++count;
                               return true;
                             })
                      .ok());
    }
    return count;
  };
  for (const std::string variant : {"dv", "cow", "cdf"}) {
    const std::string archived = target_ + "_" + variant;
    const std::string whole = archived + "_whole";
    std::vector<std::unique_ptr<Applier>> appliers;
    auto open = [&] {
      appliers.clear();
      for (const std::string* target : {&archived, &whole}) {
        FlowDefinition flow = Flow(*target, ScdType::kType2);
        if (variant == "cow") flow.table_properties["delta.enableDeletionVectors"] = "false";
        if (variant == "cdf") flow.table_properties["delta.enableChangeDataFeed"] = "true";
        ApplyOptions options;
        options.history_tail_events = target == &archived ? 1 : 1000;
        appliers.push_back(Open(flow, options));
      }
    };
    auto apply_batch = [&](const change::ChangeBatch& batch) {
      std::vector<std::optional<int64_t>> versions;
      for (auto& a : appliers) {
        auto r = a->Apply(batch);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        versions.push_back(r->version);
      }
      EXPECT_EQ(TableRows(fs_, archived), TableRows(fs_, whole)) << variant;
      ASSERT_EQ(versions[0], versions[1]);
      if (variant == "cdf" && versions[0]) {
        EXPECT_EQ(ChangeLines(fs_, archived, *versions[0]), ChangeLines(fs_, whole, *versions[1]));
      }
    };
    auto apply = [&](const std::vector<Row>& rows) { apply_batch(Batch(rows)); };
    open();
    std::vector<Row> first;
    for (int64_t seq = 10; seq <= 100; seq += 10) {
      first.push_back({1, "v" + std::to_string(seq % 30), "U", seq});
    }
    first.push_back({2, "b", "U", 10});
    apply(first);
    apply({{1, "w", "U", 110}});  // key 1's first ten events are archived
    apply({{2, "b2", "U", 20}});  // copy-on-write moves key 1's archived versions' rows
    apply({{1, "x", "U", 120}, {1, std::nullopt, "D", 125}});
    apply({{1, "late", "U", 35}, {1, "y", "U", 130}});  // lands in the archive
    apply({{1, "z", "U", 140}, {2, "b3", "U", 30}});
    appliers.clear();
    const int chunks = chunk_entries(archived);
    EXPECT_GT(chunks, 0);
    for (const std::string* target : {&archived, &whole}) {
      auto optimized = Optimize(fs_, *target, OptimizeOptions{});
      ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
    }
    EXPECT_EQ(TableRows(fs_, archived), TableRows(fs_, whole));
    EXPECT_EQ(chunk_entries(archived), chunks);  // their rows moved in place
    open();
    apply({{1, "early", "U", 5}, {1, "a", "U", 150}, {2, "b4", "U", 40}});  // from the moved rows
    apply({{1, "b", "U", 160}, {1, "c", "U", 170}});
    apply({{1, "d", "U", 180}, {1, "c2", "U", 175}});
    // A column added once key 1's history is archived, then a late event without it.
    apply_batch(WithExtraColumn({{1, "e", "U", 200}, {2, "b5", "U", 50}}, 7));
    apply({{1, "f", "U", 210}, {1, "late2", "U", 65}});
    // Unchanged names with new `extra` values: one after the archive, one late into it (it
    // takes the name of the archived version it falls into, and splits it).
    change::ChangeBatch unchanged =
        WithExtraColumn({{1, std::nullopt, "U", 220}, {1, std::nullopt, "U", 45}}, 100);
    unchanged.unchanged.assign(unchanged.rows.num_columns(), {});
    unchanged.unchanged[1] = {1, 1};
    apply_batch(unchanged);
    // Key 1: versions at 5, 10-120 (every 10), 35, 45 and 65 until the delete at 125, then
    // 130-180 (every 10), 175, 200, 210 and 220; key 2: 10, 20, 30, 40 and 50.
    EXPECT_EQ(TableRows(fs_, archived).size(), 31u);
  }
}

TEST_F(ApplierTest, UnchangedCellsUseTheirValueWithoutARowAndNeverMarkKeys) {
  auto applier = Open(Flow(target_));
  Apply(*applier, {{1, "a", "U", 1}});
  // Every cell marked unchanged (as SQL Server's update mask can say of the key column too).
  change::ChangeBatch batch = Batch({{1, "ignored", "U", 2}, {4, "given", "U", 2}});
  batch.unchanged.assign(batch.rows.num_columns(), std::vector<uint8_t>(2, 1));
  auto r = applier->Apply(batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a", "4,given"}));
}

TEST_F(ApplierTest, AStructColumnCanBeTheSequence) {  // a source position such as Debezium's _seq
  FlowDefinition flow = Flow(target_);
  flow.sequence_by = {"pos"};
  flow.columns = ColumnSelection::Except({"op", "pos"});
  auto applier = Open(flow);
  data::TypePtr pos =
      DataType::Struct({{"commit", DataType::Int64(), true}, {"lsn", DataType::Int64(), true}});
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::Int32(), true},
                                               {"name", DataType::String(), true},
                                               {"op", DataType::String(), true},
                                               {"pos", pos, true}}));
  auto add = [&](int id, const char* name, int64_t commit, std::optional<int64_t> lsn) {
    batch.rows.AppendRow(
        {Value::Int(id), Value::Bytes(name), Value::Bytes("U"),
         Value::Nested({Value::Int(commit), lsn ? Value::Int(*lsn) : Value::Null()})});
  };
  add(1, "second", 10, 2);
  add(1, "first", 10, 1);
  add(1, "older", 9, 50);
  add(2, "no lsn", 11, std::nullopt);
  auto r = applier->Apply(batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.quarantined, 1);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,second"}));
}

TEST_F(ApplierTest, TruncateRemovesOlderRowsOnly) {  // SEMANTICS §3
  FlowDefinition flow = Flow(target_);
  flow.truncate_when =
      data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"op"}),
                          data::Expr::Literal(Value::Bytes("T"), DataType::String()));
  auto applier = Open(flow);
  Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 5}, {3, "c", "U", 2}});
  Apply(*applier, {{std::nullopt, std::nullopt, "T", 3}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"2,b"}));
  Apply(*applier, {{1, "old", "U", 2}, {4, "d", "U", 4}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"2,b", "4,d"}));
}

TEST_F(ApplierTest, OptimizeCompactsAndKeepsTheIndexRight) {
  for (bool dvs : {true, false}) {
    std::string target = target_ + (dvs ? "_dv" : "_cow");
    FlowDefinition flow = Flow(target, dvs ? ScdType::kType2 : ScdType::kType1);
    if (!dvs) flow.table_properties["delta.enableDeletionVectors"] = "false";
    auto applier = Open(flow);
    for (int b = 0; b < 6; ++b) {
      std::vector<Row> rows;
      for (int k = 0; k < 5; ++k) {
        // With copy-on-write, later batches touch one key each (so files stay small).
        if (dvs || b == 0 || k == b % 5) rows.push_back({k, "v" + std::to_string(b), "U", b + 1});
      }
      Apply(*applier, rows);
    }
    std::vector<std::string> before = TableRows(fs_, target);
    applier.reset();
    auto optimized = Optimize(fs_, target, OptimizeOptions{});
    ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
    ASSERT_TRUE(optimized->version);
    EXPECT_EQ(optimized->files_added, 1);
    EXPECT_EQ(TableRows(fs_, target), before);
    auto snapshot = delta::Snapshot::Load(fs_, target);
    ASSERT_TRUE(snapshot.ok());
    EXPECT_EQ((*snapshot)->files().size(), 1u);
    // The index followed the rows: later changes land on the right rows.
    applier = Open(flow);
    Apply(*applier, {{0, "after", "U", 10}, {4, std::nullopt, "D", 10}});
    std::vector<std::string> rows = TableRows(fs_, target);
    if (dvs) {
      EXPECT_EQ(rows.size(), before.size() + 1);
      EXPECT_NE(std::find(rows.begin(), rows.end(), "0,after,10,"), rows.end());
      EXPECT_NE(std::find(rows.begin(), rows.end(), "4,v5,6,10"), rows.end());
    } else {
      EXPECT_EQ(rows, (std::vector<std::string>{"0,after", "1,v1", "2,v2", "3,v3"}));
    }
  }
}

TEST_F(ApplierTest, AutoOptimizeRunsEveryNCommits) {
  FlowDefinition flow = Flow(target_);
  flow.table_properties["cdclake.autoOptimize"] = "true";
  flow.table_properties["cdclake.autoOptimize.commitInterval"] = "3";
  auto applier = Open(flow);
  int optimized = 0;
  for (int b = 0; b < 7; ++b) {
    ApplyResult r = Apply(*applier, {{b % 3, "v" + std::to_string(b), "U", b + 1}});
    if (r.optimize_version) ++optimized;
  }
  EXPECT_GE(optimized, 1);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"0,v6", "1,v4", "2,v5"}));
}

}  // namespace
}  // namespace cdclake::apply

namespace cdclake::apply {
namespace {

TEST_F(ApplierTest, DeclaredColumnsAreTheTargetSchema) {
  FlowDefinition flow = Flow(target_);
  flow.declared_schema = data::Schema({{"id", DataType::Int64(), false},
                                       {"name", DataType::String(), false},
                                       {"city", DataType::String(), true}});
  auto applier = Open(flow);
  // A NULL in a NOT NULL column is quarantined for an upsert, not for a delete.
  ApplyResult r = Apply(
      *applier,
      {{1, "a", "U", 1}, {2, std::nullopt, "U", 2}, {3, "c", "U", 3}, {3, std::nullopt, "D", 4}});
  EXPECT_EQ(r.counts.quarantined, 1);
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a,"}));
  auto snapshot = delta::Snapshot::Load(fs_, target_);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->schema().ToString(), data::Schema({{"id", DataType::Int64(), false},
                                                            {"name", DataType::String(), false},
                                                            {"city", DataType::String(), true}})
                                                  .ToString());
  std::vector<std::string> quarantined = TableRows(fs_, target_ + "_quarantine");
  ASSERT_EQ(quarantined.size(), 1u);
  EXPECT_NE(quarantined[0].find("column 'name' is declared string NOT NULL but the value is NULL"),
            std::string::npos)
      << quarantined[0];
}

TEST_F(ApplierTest, UndeclaredSourceColumnsAreNotWrittenAndNamedOnce) {
  FlowDefinition flow = Flow(target_);
  flow.columns = ColumnSelection::Except({"op"});
  flow.declared_schema = data::Schema({{"id", DataType::Int32(), true}});
  auto applier = Open(flow);
  ApplyResult first = Apply(*applier, {{1, "a", "U", 1}});
  ASSERT_EQ(first.warnings.size(), 1u);
  EXPECT_NE(first.warnings[0].find("source columns 'name', 'seq' are not in"), std::string::npos)
      << first.warnings[0];
  EXPECT_TRUE(Apply(*applier, {{2, "b", "U", 2}}).warnings.empty());
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1", "2"}));
}

TEST_F(ApplierTest, ChangedPropertiesAreCommittedOnOpen) {
  FlowDefinition flow = Flow(target_);
  flow.table_properties["pipelines.cdc.tombstoneGCThresholdInSeconds"] = "60";
  auto applier = Open(flow);
  Apply(*applier, {{1, "a", "U", 1}});
  const int64_t created = applier->version();
  applier.reset();
  // The same properties: no commit.
  applier = Open(flow);
  EXPECT_EQ(applier->version(), created);
  applier.reset();
  flow.table_properties["pipelines.cdc.tombstoneGCThresholdInSeconds"] = "86400";
  applier = Open(flow);
  EXPECT_EQ(applier->version(), created + 1);
  auto snapshot = delta::Snapshot::Load(fs_, target_);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->Property("pipelines.cdc.tombstoneGCThresholdInSeconds"), "86400");
  // Still applies after the metadata commit (the key index caught up with it).
  Apply(*applier, {{1, "b", "U", 2}});
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,b"}));
  applier.reset();
  flow.table_properties["delta.columnMapping.mode"] = "name";
  auto refused = Applier::Open(fs_, flow);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("delta.columnMapping.mode"), std::string::npos)
      << refused.status().ToString();
}

// SCD1 key states hold their row's values as a digest (key_state.h). Whenever a batch needs the
// values (a tie at the stored sequence, unchanged cells, a column added since, change data
// turned on later) they are read back from the row the state points at, so the table, the counts
// and the change feed are those that full states give; only the index is smaller.
TEST_F(ApplierTest, DigestStatesGiveWhatFullStatesGive) {
  struct Outcome {
    std::vector<std::vector<std::string>> rows;  // after each step
    std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>> counts;
    std::vector<std::string> changes;  // of the last step
    // After steps 3 and 4: upsert states held as digests, and with their values.
    std::vector<std::pair<int, int>> forms;
  };
  // `bulk`: the first batch takes the path of a load (ApplyOptions::bulk_from), whose events
  // keep only their values' digests.
  auto run = [&](bool full, bool bulk, Outcome& out) {
    const std::string target = target_ + (full ? "_full" : bulk ? "_bulk" : "_digest");
    ApplyOptions options;
    options.full_states = full;
    if (bulk) options.bulk_from = 1;
    FlowDefinition flow = Flow(target);
    auto applier = Open(flow, options);
    auto step = [&](const change::ChangeBatch& batch) {
      auto r = applier->Apply(batch);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const ApplyCounts& c = r->counts;
      out.counts.emplace_back(c.applied, c.discarded, c.sequence_conflicts, c.updated, c.deleted);
      out.rows.push_back(TableRows(fs_, target));
    };
    step(Batch({{1, "a", "U", 1},
                {2, "b", "U", 1},
                {3, "c", "U", 1},
                {4, "d", "U", 1},
                {5, "e", "U", 1},
                {6, "f", "U", 1}}));
    // Key 1 ties at its sequence and wins, key 2 repeats itself, key 3 changes only its
    // sequence, 4 is deleted, 5's event is older, 6 changes, 7 is new.
    step(Batch({{1, "zz", "U", 1},
                {2, "b", "U", 1},
                {3, "c", "U", 2},
                {4, std::nullopt, "D", 2},
                {5, "old", "U", 0},
                {6, "f2", "U", 2},
                {7, "g", "U", 2}}));
    // The stored forms, read with the applier closed (and opened again).
    auto stored_forms = [&] {
      applier.reset();
      auto index = OpenRocksKeyIndex(IndexDir(target));
      ASSERT_TRUE(index.ok()) << index.status().ToString();
      std::pair<int, int> forms;
      auto scanned = (*index)->Scan("k", [&](std::string_view, std::string_view value) {
        auto state = ParseKeyState(value);
        EXPECT_TRUE(state.ok());
        if (!state.ok() || state->events[0].kind != EventKind::kUpsert) return true;
        (state->events[0].digest ? forms.first : forms.second) += 1;
        return true;
      });
      ASSERT_TRUE(scanned.ok());
      out.forms.push_back(forms);
      index->reset();
      applier = Open(flow, options);
    };
    // A tie the stored event wins.
    step(Batch({{1, "aa", "U", 1}}));
    stored_forms();
    // Unchanged cells: key 2 keeps its name, key 6 sets NULL.
    step(WithUnchangedNames({{2, std::nullopt, "U", 3}, {6, std::nullopt, "U", 3}}, {0}));
    stored_forms();
    // A column added since the states were stored: key 3 sends the same values (its row stays),
    // key 5 a new city.
    change::ChangeBatch wider;
    wider.rows = data::RecordBatch(WiderSchema());
    wider.rows.AppendRow(
        {Value::Int(3), Value::Bytes("c"), Value::Null(), Value::Bytes("U"), Value::Int(4)});
    wider.rows.AppendRow(
        {Value::Int(5), Value::Bytes("e"), Value::Bytes("Oslo"), Value::Bytes("U"), Value::Int(4)});
    step(wider);
    // Change data turned on: the pre-image of key 1 is its stored row.
    applier.reset();
    flow.table_properties["delta.enableChangeDataFeed"] = "true";
    applier = Open(flow, options);
    step(Batch({{1, "a3", "U", 5}, {7, std::nullopt, "D", 5}}));
    auto changes = delta::ReadChanges(fs_, target, applier->version());
    EXPECT_TRUE(changes.ok()) << changes.status().ToString();
    if (changes.ok()) {
      int type_column = changes->schema().FieldIndex("_change_type");
      for (int64_t i = 0; i < changes->num_rows(); ++i) {
        out.changes.push_back(std::string(changes->column(type_column).StringAt(i)) + ":" +
                              data::CsvField(changes->column(1).GetValue(i), *DataType::String()));
      }
      std::sort(out.changes.begin(), out.changes.end());
    }
  };
  Outcome digest, full, bulk;
  run(false, false, digest);
  run(true, false, full);
  run(false, true, bulk);
  EXPECT_EQ(digest.rows, full.rows);
  EXPECT_EQ(digest.counts, full.counts);
  EXPECT_EQ(digest.changes, full.changes);
  EXPECT_EQ(bulk.rows, full.rows);
  EXPECT_EQ(bulk.counts, full.counts);
  EXPECT_EQ(bulk.changes, full.changes);
  EXPECT_EQ(bulk.forms, digest.forms);
  ASSERT_EQ(digest.rows.size(), 6u);
  EXPECT_EQ(digest.rows[1], (std::vector<std::string>{"1,zz", "2,b", "3,c", "5,e", "6,f2", "7,g"}));
  EXPECT_EQ(std::get<2>(digest.counts[1]), 1);  // key 1's tie
  EXPECT_EQ(digest.counts[2],
            std::make_tuple(int64_t{0}, int64_t{1}, int64_t{1}, int64_t{0}, int64_t{0}));
  EXPECT_EQ(digest.rows[3], (std::vector<std::string>{"1,zz", "2,b", "3,c", "5,e", "6,", "7,g"}));
  EXPECT_EQ(std::get<3>(digest.counts[4]), 1);  // key 5 only: key 3's row stays
  EXPECT_EQ(digest.rows[5], (std::vector<std::string>{"1,a3,", "2,b,", "3,c,", "5,e,Oslo", "6,,"}));
  EXPECT_EQ(digest.changes,
            (std::vector<std::string>{"delete:g", "update_postimage:a3", "update_preimage:zz"}));
  // Six keys with rows, each a digest; once the source has sent unchanged cells, the states
  // written keep their values (keys 2 and 6), the others stay digests. With full states, none.
  EXPECT_EQ(digest.forms, (std::vector<std::pair<int, int>>{{6, 0}, {4, 2}}));
  EXPECT_EQ(full.forms, (std::vector<std::pair<int, int>>{{0, 6}, {0, 6}}));
}

// A batch into an index without states (a load) keeps only its events' digests; upserts of a
// key at one sequence are still settled by their values (§2: the encoding that sorts last wins),
// and a duplicate is still one event. The table, the counts and the stored states are those of
// the ordinary path, and a replay of the batch writes nothing.
TEST_F(ApplierTest, BulkBatchSettlesTiesByValues) {
  struct Outcome {
    std::vector<std::string> rows;
    std::tuple<int64_t, int64_t, int64_t, int64_t> counts;
    std::vector<std::string> states;  // the key index's entries
    int64_t version_after_replay = 0;
    int64_t version = 0;
  };
  // `unchanged`: the batch marks key 2's newer name unchanged (the bulk path is then not taken:
  // that event needs the stored values).
  auto run = [&](bool bulk, bool unchanged) {
    Outcome out;
    const std::string target =
        target_ + (bulk ? "_bulk" : "_plain") + (unchanged ? "_unchanged" : "");
    ApplyOptions options;
    options.clock = [] { return int64_t{1'700'000'000'000}; };  // the tombstone's time
    if (bulk) options.bulk_from = 1;
    FlowDefinition flow = Flow(target);
    auto applier = Open(flow, options);
    // Key 1: three upserts at sequence 5, "b" sorting last; key 2: a duplicate, then a newer
    // event; key 3: a delete and an upsert at one sequence (the delete wins); key 4: alone;
    // keys 10-17: two upserts at sequence 3, "n<key>" the winner (eight ties, so that digests
    // happening to sort as their values cannot pass for the rule).
    std::vector<Row> events = {{1, "b", "U", 5},          {2, "x", "U", 1}, {1, "a", "U", 5},
                               {3, "c", "U", 7},          {2, "x", "U", 1}, {1, "ab", "U", 5},
                               {3, std::nullopt, "D", 7}, {2, "y", "U", 2}, {4, "d", "U", 1}};
    for (int64_t k = 10; k < 18; ++k) {
      const bool winner_first = k % 2 == 0;
      events.push_back({k, (winner_first ? "n" : "m") + std::to_string(k), "U", 3});
      events.push_back({k, (winner_first ? "m" : "n") + std::to_string(k), "U", 3});
    }
    // Enough rows that their values are encoded on two threads.
    for (int64_t k = 100; k < 20100; ++k) events.push_back({k, "v" + std::to_string(k), "U", 1});
    const auto batch = unchanged ? WithUnchangedNames(events, {7}) : Batch(events);
    auto r = applier->Apply(batch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return out;
    out.counts = {r->counts.applied, r->counts.discarded, r->counts.sequence_conflicts,
                  r->counts.inserted};
    out.rows = TableRows(fs_, target);
    out.version = applier->version();
    auto replay = applier->Apply(batch);
    EXPECT_TRUE(replay.ok()) << replay.status().ToString();
    out.version_after_replay = applier->version();
    applier.reset();
    auto index = OpenRocksKeyIndex(IndexDir(target));
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    if (!index.ok()) return out;
    auto scanned = (*index)->Scan("k", [&](std::string_view key, std::string_view value) {
      out.states.push_back(std::string(key) + "=" + std::string(value));
      return true;
    });
    EXPECT_TRUE(scanned.ok());
    return out;
  };
  for (bool unchanged : {false, true}) {
    SCOPED_TRACE(unchanged ? "key 2's newer name unchanged" : "whole rows");
    const Outcome plain = run(false, unchanged);
    const Outcome bulk = run(true, unchanged);
    std::vector<std::string> expected = {"1,b", unchanged ? "2,x" : "2,y", "4,d"};
    for (int k = 10; k < 18; ++k) expected.push_back(std::to_string(k) + ",n" + std::to_string(k));
    for (int k = 100; k < 20100; ++k)
      expected.push_back(std::to_string(k) + ",v" + std::to_string(k));
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(bulk.rows, expected);
    EXPECT_EQ(bulk.rows, plain.rows);
    EXPECT_EQ(bulk.counts, plain.counts);
    EXPECT_EQ(std::get<2>(bulk.counts), 10);  // key 1's two losers, one for each of 10-17
    EXPECT_EQ(bulk.states, plain.states);
    EXPECT_EQ(bulk.states.size(), 20012u);
    EXPECT_EQ(bulk.version_after_replay, bulk.version);
    EXPECT_EQ(plain.version_after_replay, plain.version);
  }
}

// Keys longer than the 16 bytes the batch sorts by first, sharing them, and keys that are
// prefixes of others, each with events out of order in one batch: every key ends at its last
// event (the sort falls back to the whole key, then the event, on equal heads).
TEST_F(ApplierTest, KeysSharingTheirFirstBytesSortApart) {
  FlowDefinition flow = Flow(target_);
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema({{"id", DataType::String(), true},
                                               {"name", DataType::String(), true},
                                               {"op", DataType::String(), true},
                                               {"seq", DataType::Int64(), true}}));
  const std::vector<std::string> keys = {"customer-0000000001-a", "customer-0000000001",
                                         "customer-0000000001-b", "customer-000000000",
                                         std::string("customer-0000000001\0x", 21)};
  // Sequences 3, 1, 2, the keys interleaved: the last applied is the one at 3, and in the
  // engine's order (sequence order within a key) each event is applied in turn.
  for (int64_t seq : {3, 1, 2}) {
    for (const std::string& key : keys) {
      batch.rows.AppendRow({Value::Bytes(key), Value::Bytes("v" + std::to_string(seq)),
                            Value::Bytes("U"), Value::Int(seq)});
    }
  }
  auto applier = Open(flow);
  auto r = applier->Apply(batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.inserted, static_cast<int64_t>(keys.size()));
  EXPECT_EQ(r->counts.applied, static_cast<int64_t>(3 * keys.size()));
  auto snapshot = delta::Snapshot::Load(fs_, target_);
  ASSERT_TRUE(snapshot.ok());
  auto rows = delta::ReadTable(fs_, **snapshot);
  ASSERT_TRUE(rows.ok());
  std::map<std::string, std::string> got;
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    got[std::string(rows->column(0).StringAt(i))] = std::string(rows->column(1).StringAt(i));
  }
  ASSERT_EQ(got.size(), keys.size());
  for (const std::string& key : keys) EXPECT_EQ(got[key], "v3") << key;
  // Older events of the same keys in a later batch change nothing.
  change::ChangeBatch older;
  older.rows = data::RecordBatch(batch.rows.schema());
  for (const std::string& key : keys) {
    older.rows.AppendRow(
        {Value::Bytes(key), Value::Bytes("old"), Value::Bytes("U"), Value::Int(2)});
  }
  auto again = applier->Apply(older);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->counts.discarded, static_cast<int64_t>(keys.size()));
  EXPECT_FALSE(again->version);
}

// A state read back from the table is checked by its key: a row whose values hash to another
// digest but hold the key is used (and counted in a warning); a location at another key's row
// stops the batch before anything is written.
TEST_F(ApplierTest, ReadBackChecksTheRowsKey) {
  auto applier = Open(Flow(target_));
  Apply(*applier, {{1, "a", "U", 1}, {2, "b", "U", 1}});
  applier.reset();
  auto entry = [](int id) {
    return "k" + change::EncodeOrdered({Value::Int(id)}, {DataType::Int32()});
  };
  // Alters key `id`'s stored state with `edit`.
  auto edit_state = [&](int id, const std::function<void(KeyState&)>& edit) {
    auto index = OpenRocksKeyIndex(IndexDir(target_));
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    auto bytes = (*index)->Get(entry(id));
    ASSERT_TRUE(bytes.ok() && bytes->has_value());
    auto state = ParseKeyState(**bytes);
    ASSERT_TRUE(state.ok());
    edit(*state);
    ASSERT_TRUE((*index)->Write({{{entry(id), SerializeKeyState(*state)}}, {}}).ok());
  };
  // Key 1's digest no longer matches its row, which still holds key 1.
  edit_state(1, [](KeyState& s) {
    EXPECT_TRUE(s.events[0].digest);
    s.events[0].values.back() ^= 1;
  });
  applier = Open(Flow(target_));
  auto kept = applier->Apply(WithUnchangedNames({{1, std::nullopt, "U", 2}}, {0}));
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->warnings.size(), 1u);
  EXPECT_NE(kept->warnings[0].find("1 rows"), std::string::npos) << kept->warnings[0];
  EXPECT_EQ(TableRows(fs_, target_), (std::vector<std::string>{"1,a", "2,b"}));
  // Key 2's state placed at key 1's old row: refused, and nothing written.
  applier.reset();
  RowLocation key1_row;
  edit_state(1, [&](KeyState& s) { key1_row = s.locations[0]; });
  const int64_t version = delta::Snapshot::Load(fs_, target_).value()->version();
  edit_state(2, [&](KeyState& s) {
    EXPECT_TRUE(s.events[0].digest);
    s.locations[0] = key1_row;
  });
  applier = Open(Flow(target_));
  auto refused = applier->Apply(WithUnchangedNames({{2, std::nullopt, "U", 3}}, {0}));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("another key's row"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(delta::Snapshot::Load(fs_, target_).value()->version(), version);
}

// A tie settled after a column was added is settled as in one batch: the encodings compare as if
// the older one had NULL in the new column (CompareValues). Applied file by file, key 1's tie at
// sequence 1 ("zz" before the column, "aa" after it) went to "aa", whose encoding held one more
// column; in one batch, to "zz".
TEST_F(ApplierTest, TiesAcrossAnAddedColumnDoNotDependOnBatches) {
  auto narrow = [](const std::vector<Row>& rows) { return Batch(rows); };
  auto wide = [](int id, const std::string& name, std::optional<std::string> city, int64_t seq) {
    change::ChangeBatch b;
    b.rows = data::RecordBatch(WiderSchema());
    b.rows.AppendRow({Value::Int(id), Value::Bytes(name),
                      city ? Value::Bytes(*city) : Value::Null(), Value::Bytes("U"),
                      Value::Int(seq)});
    return b;
  };
  std::vector<change::ChangeBatch> batches = {
      narrow({{1, "zz", "U", 1}, {2, "b", "U", 1}}), wide(1, "aa", std::nullopt, 1),
      wide(2, "b", std::nullopt, 1), wide(3, "c", "Oslo", 1)};
  for (bool full : {false, true}) {
    ApplyOptions options;
    options.full_states = full;
    const std::string apart = target_ + (full ? "_apart_full" : "_apart");
    auto applier = Open(Flow(apart), options);
    std::vector<int64_t> discarded;
    for (const auto& b : batches) {
      auto r = applier->Apply(b);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      discarded.push_back(r->counts.discarded);
    }
    EXPECT_EQ(TableRows(fs_, apart), (std::vector<std::string>{"1,zz,", "2,b,", "3,c,Oslo"}))
        << (full ? "full states" : "digests");
    // Key 1's "aa" loses the tie; key 2's event is the same as the stored one.
    EXPECT_EQ(discarded, (std::vector<int64_t>{0, 1, 1, 0}));
  }
}

}  // namespace
}  // namespace cdclake::apply
