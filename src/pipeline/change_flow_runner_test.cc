// Tests for the flow runner: resume positions (mid-file, appended lines, new files), reruns that
// write nothing, files arriving out of name order, and crashes at every write of a run.
#include "pipeline/change_flow_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "data/value_format.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/transaction.h"
#include "io/memory_file_system.h"

namespace cdclake::pipeline {
namespace {

constexpr const char* kHeader = "id,name,seq\n";

apply::FlowDefinition Flow() {
  apply::FlowDefinition flow;
  flow.name = "users";
  flow.target = "t";
  flow.keys = {"id"};
  flow.sequence_by = {"seq"};
  flow.columns = apply::ColumnSelection::Except({"seq"});
  return flow;
}

// A memory file system with the flow's input and tables, and runs of the flow over it.
class FlowHarness {
 public:
  void Write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(fs_.WriteFile(path, text).ok()) << path;
  }
  void Append(const std::string& path, const std::string& text) {
    auto old = fs_.ReadFile(path);
    ASSERT_TRUE(old.ok()) << path;
    Write(path, *old + text);
  }

  // Runs the flow over the folder `in` (or `inputs`); expects success.
  FlowRunSummary RunFlow(int64_t batch_size = 0, int64_t max_batches = 0,
                         std::vector<std::string> inputs = {"in"}) {
    FlowRunSummary summary;
    Status s = RunFor(inputs, batch_size, max_batches, &summary);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return summary;
  }

  Status RunFor(const std::vector<std::string>& patterns, int64_t batch_size, int64_t max_batches,
                FlowRunSummary* summary) {
    std::vector<FlowInput> inputs;
    for (const std::string& p : patterns) inputs.push_back({p, std::nullopt});
    FlowRunOptions options;
    options.batch_size = batch_size;
    options.max_batches = max_batches;
    options.persistent_index = false;
    options.reset_position = reset_position_;
    return RunChangeFlow(fs_, Flow(), inputs, options, summary);
  }

  // A table's rows as sorted "a,b" lines (empty when there is no table).
  std::vector<std::string> Rows(const std::string& root) {
    std::vector<std::string> lines;
    auto exists = delta::TableExists(fs_, root);
    if (!exists.ok() || !*exists) return lines;
    auto snapshot = delta::Snapshot::Load(fs_, root);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot.ok()) return lines;
    auto batch = delta::ReadTable(fs_, **snapshot);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return lines;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (size_t c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) line += ",";
        line += data::CsvField(batch->column(c).GetValue(r), *batch->schema().field(c).type);
      }
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  // The quarantined records' raw text (without line ends), sorted.
  std::vector<std::string> Quarantined() {
    std::vector<std::string> raw;
    auto snapshot = delta::Snapshot::Load(fs_, "t_quarantine");
    if (!snapshot.ok()) return raw;
    auto batch = delta::ReadTable(fs_, **snapshot);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return raw;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string text(batch->column(0).StringAt(r));
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      raw.push_back(text);
    }
    std::sort(raw.begin(), raw.end());
    return raw;
  }

  // A metadata-only commit to the target by some other writer.
  void CommitAsAnotherWriter() {
    auto snapshot = delta::Snapshot::Load(fs_, "t");
    ASSERT_TRUE(snapshot.ok());
    delta::Transaction txn(fs_, "t", *snapshot);
    txn.Add(delta::Txn{"someone-else", 1, 0});
    ASSERT_TRUE(txn.Commit(delta::CommitOptions{}).ok());
  }

  int64_t Version(const std::string& root) {
    auto snapshot = delta::Snapshot::Load(fs_, root);
    return snapshot.ok() ? (*snapshot)->version() : -1;
  }

  io::MemoryFileSystem fs_;
  bool reset_position_ = false;
};

class ChangeFlowRunnerTest : public ::testing::Test, public FlowHarness {};

using Lines = std::vector<std::string>;

TEST_F(ChangeFlowRunnerTest, StopsMidFileAndTheNextRunContinuesThere) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,1\n2,bob,1\n3,cy,1\n4,di,1\n5,ed,1\n");
  FlowRunSummary first = RunFlow(/*batch_size=*/2, /*max_batches=*/1);
  EXPECT_EQ(first.batches, 1);
  EXPECT_TRUE(first.stopped_early);
  EXPECT_FALSE(first.resumed_from);
  EXPECT_EQ(first.counts.read, 2);
  ASSERT_TRUE(first.position);
  EXPECT_EQ(first.position->file, "in/a.csv");
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob"}));

  // The commit holds the position and the flow's txn.
  auto snapshot = delta::Snapshot::Load(fs_, "t");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->TxnVersion(FlowAppId("users")), 1);
  auto recorded = FindFlowPosition(fs_, "t", "users");
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  ASSERT_TRUE(*recorded);
  EXPECT_EQ((*recorded)->position.file, "in/a.csv");
  EXPECT_EQ((*recorded)->position.offset, first.position->offset);
  EXPECT_EQ((*recorded)->version, (*snapshot)->version());
  // Past the start of row 2 ("2,bob,1"), before row 3's.
  const int64_t row3 = static_cast<int64_t>(std::string(kHeader).size() + 16);
  EXPECT_GT((*recorded)->position.offset, row3 - 8);
  EXPECT_LE((*recorded)->position.offset, row3);

  FlowRunSummary second = RunFlow(/*batch_size=*/2);
  ASSERT_TRUE(second.resumed_from);
  EXPECT_EQ(second.resumed_from->ToString(), first.position->ToString());
  EXPECT_EQ(second.counts.read, 3);
  EXPECT_EQ(second.counts.discarded, 0);
  EXPECT_EQ(second.batches, 2);
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob", "3,cy", "4,di", "5,ed"}));
  auto after = delta::Snapshot::Load(fs_, "t");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->TxnVersion(FlowAppId("users")), 3);
}

TEST_F(ChangeFlowRunnerTest, ARerunReadsNothingAndWritesNoVersion) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,1\n2,bob,1\n");
  RunFlow();
  const int64_t version = Version("t");
  FlowRunSummary again = RunFlow();
  EXPECT_TRUE(again.resumed_from);
  EXPECT_EQ(again.counts.read, 0);
  EXPECT_EQ(again.batches, 0);
  EXPECT_TRUE(again.versions.empty());
  EXPECT_EQ(Version("t"), version);
}

// A batch that changes nothing (every event older than the key's state) writes no version
// (SEMANTICS §8), yet its input is not read again: its position is kept beside the table while
// the table stays as it was, and the next batch that commits carries its files in the ledger.
TEST_F(ChangeFlowRunnerTest, InputThatChangedNothingIsNotReadAgain) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,5\n2,bob,5\n");
  RunFlow();
  const int64_t version = Version("t");
  Write("in/b.csv", std::string(kHeader) + "1,old,3\n2,bob,5\n");
  FlowRunSummary first = RunFlow();
  EXPECT_EQ(first.counts.read, 2);
  EXPECT_EQ(first.counts.discarded, 2);
  EXPECT_TRUE(first.versions.empty());
  EXPECT_EQ(Version("t"), version);

  FlowRunSummary again = RunFlow();
  EXPECT_EQ(again.counts.read, 0);
  ASSERT_TRUE(again.resumed_from);
  EXPECT_EQ(again.resumed_from->file, "in/b.csv");
  EXPECT_TRUE(again.versions.empty());

  // A new file is read alone; after its commit, b.csv is in the committed ledger.
  Write("in/c.csv", std::string(kHeader) + "3,cy,1\n");
  FlowRunSummary next = RunFlow();
  EXPECT_EQ(next.counts.read, 1);
  EXPECT_EQ(next.versions.size(), 1u);
  EXPECT_EQ(RunFlow().counts.read, 0);
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob", "3,cy"}));
}

// The kept position holds only while the target is at the version it was read against: once
// another writer commits, the input after the committed position is read again (and changes
// nothing again), and a quarantine commit in between does the same.
TEST_F(ChangeFlowRunnerTest, AKeptPositionLapsesWhenTheTablesMoveOn) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,5\n");
  RunFlow();
  Write("in/b.csv", std::string(kHeader) + "1,old,3\n");
  EXPECT_EQ(RunFlow().counts.discarded, 1);
  EXPECT_EQ(RunFlow().counts.read, 0);
  CommitAsAnotherWriter();
  FlowRunSummary lapsed = RunFlow();
  EXPECT_EQ(lapsed.counts.read, 1);
  EXPECT_EQ(lapsed.counts.discarded, 1);
  EXPECT_EQ(RunFlow().counts.read, 0);  // kept again, against the new version
  // reset_position reads everything whatever is kept.
  reset_position_ = true;
  EXPECT_EQ(RunFlow().counts.read, 2);
}

// Runs that change nothing write ledger files of newer generations; while they resume from a
// kept position, the generations the committed position names are not deleted, so that when
// the kept position lapses the committed one still finds its ledger.
TEST_F(ChangeFlowRunnerTest, ALapsedKeptPositionStillFindsTheCommittedLedger) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,5\n");
  RunFlow();
  const int kRuns = 60;  // a new ledger generation every 17 deltas: three and more
  for (int i = 0; i < kRuns; ++i) {
    Write("in/b" + std::to_string(100 + i) + ".csv", std::string(kHeader) + "1,old,3\n");
    FlowRunSummary s = RunFlow();
    ASSERT_EQ(s.counts.read, 1) << i;
    ASSERT_EQ(s.counts.discarded, 1) << i;
  }
  CommitAsAnotherWriter();
  FlowRunSummary lapsed = RunFlow();
  EXPECT_TRUE(lapsed.warnings.empty()) << lapsed.warnings[0];
  EXPECT_EQ(lapsed.counts.read, kRuns);
  EXPECT_EQ(lapsed.counts.discarded, kRuns);
  EXPECT_EQ(Rows("t"), Lines{"1,ann"});
}

TEST_F(ChangeFlowRunnerTest, AppendedLinesAndNewFilesAreReadAlone) {
  Write("in/0001.csv", std::string(kHeader) + "1,ann,1\n");
  RunFlow();
  Append("in/0001.csv", "1,anna,2\n");
  FlowRunSummary grown = RunFlow();
  EXPECT_EQ(grown.counts.read, 1);
  EXPECT_EQ(grown.counts.applied, 1);
  EXPECT_EQ(Rows("t"), (Lines{"1,anna"}));

  Write("in/0002.csv", std::string(kHeader) + "2,bob,1\n3,cy,1\n");
  FlowRunSummary added = RunFlow();
  EXPECT_EQ(added.files_read, 1);  // the ledger knows 0001.csv was read whole
  EXPECT_EQ(added.counts.read, 2);
  EXPECT_EQ(added.counts.discarded, 0);
  ASSERT_TRUE(added.position);
  EXPECT_EQ(added.position->file, "in/0002.csv");
  ASSERT_TRUE(added.position->ledger);
  EXPECT_EQ(Rows("t"), (Lines{"1,anna", "2,bob", "3,cy"}));

  // The same folder spelled another way is the same source: nothing is read again.
  EXPECT_EQ(RunFlow(0, 0, {"./in/"}).counts.read, 0);
  EXPECT_EQ(RunFlow(0, 0, {"x/../in"}).counts.read, 0);

  // Another source (a glob over other files) is an error naming both, until reset.
  Write("in/0003.jsonl", "{\"id\":4,\"name\":\"di\",\"seq\":1}\n");
  FlowRunSummary refused;
  Status s = RunFor({"in/*.jsonl"}, 0, 0, &refused);
  ASSERT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("has read in into t"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("its source is now in/*.jsonl"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--reset-position users"), std::string::npos) << s.ToString();
  reset_position_ = true;
  FlowRunSummary globbed = RunFlow(0, 0, {"in/*.jsonl"});
  reset_position_ = false;
  EXPECT_FALSE(globbed.resumed_from);
  EXPECT_EQ(globbed.counts.read, 1);
  EXPECT_EQ(RunFlow(0, 0, {"in/*.jsonl"}).counts.read, 0);
}

TEST_F(ChangeFlowRunnerTest, FilesArrivingOutOfNameOrderAreEachReadOnce) {
  // Kafka Connect's names: partition 1's file is read first, partition 0's arrives later and
  // sorts before it.
  Write("in/t+1+0000000100.csv", std::string(kHeader) + "1,ann,1\n");
  RunFlow();
  Write("in/t+0+0000000200.csv", std::string(kHeader) + "2,bob,1\n");
  FlowRunSummary late = RunFlow();
  EXPECT_EQ(late.files_read, 1);
  EXPECT_EQ(late.counts.read, 1);
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob"}));
  Write("in/t+0+0000000050.csv", std::string(kHeader) + "3,cy,1\n");
  Append("in/t+1+0000000100.csv", "4,di,1\n");
  FlowRunSummary more = RunFlow(/*batch_size=*/1);
  EXPECT_EQ(more.counts.read, 2);
  EXPECT_EQ(more.counts.discarded, 0);
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob", "3,cy", "4,di"}));
  FlowRunSummary again = RunFlow();
  EXPECT_EQ(again.files_read, 0);
  EXPECT_EQ(again.counts.read, 0);
}

TEST_F(ChangeFlowRunnerTest, AFileThatShrankIsReportedAndNotReadAgain) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,1\n2,bob,1\n");
  RunFlow();
  const int64_t version = Version("t");
  Write("in/a.csv", std::string(kHeader) + "9,zed,1\n");
  FlowRunSummary shrunk = RunFlow();
  EXPECT_EQ(shrunk.counts.read, 0);
  EXPECT_EQ(Version("t"), version);
  ASSERT_EQ(shrunk.warnings.size(), 1u);
  EXPECT_NE(shrunk.warnings[0].find("in/a.csv shrank from"), std::string::npos)
      << shrunk.warnings[0];
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob"}));
}

// A named file is read whole on each run, unless an earlier run applied it whole and it holds
// the same bytes: then it is left out (reading it would discard every row again). Same size
// and time with other bytes is read; new time with the same bytes is not.
TEST_F(ChangeFlowRunnerTest, NamedFilesAppliedWholeAreLeftOutUntilTheirBytesChange) {
  Write("a.csv", std::string(kHeader) + "1,ann,1\n2,bob,1\n");
  FlowRunSummary summary;
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 2);
  EXPECT_TRUE(summary.applied_before.empty());
  const int64_t version = Version("t");

  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.files_read, 0);
  EXPECT_EQ(summary.counts.read, 0);
  EXPECT_TRUE(summary.versions.empty());
  ASSERT_EQ(summary.applied_before.size(), 1u);
  EXPECT_NE(summary.applied_before[0].find("a.csv: applied whole by an earlier run of flow "
                                           "'users' (version " +
                                           std::to_string(version) +
                                           ", 28 bytes, the same "
                                           "bytes now): not read again"),
            std::string::npos)
      << summary.applied_before[0];

  // The same bytes touched: still left out.
  auto info = fs_.Stat("a.csv");
  ASSERT_TRUE(info.ok());
  ASSERT_TRUE(fs_.SetModificationTime("a.csv", info->modification_time_ms + 5000).ok());
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 0);

  // Other bytes of the same size, under the same time: read whole.
  info = fs_.Stat("a.csv");
  Write("a.csv", std::string(kHeader) + "1,amy,2\n2,bob,1\n");
  ASSERT_TRUE(fs_.SetModificationTime("a.csv", info->modification_time_ms).ok());
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 2);
  EXPECT_EQ(summary.counts.updated, 1);
  EXPECT_EQ(summary.counts.discarded, 1);
  EXPECT_EQ(Rows("t"), (Lines{"1,amy", "2,bob"}));

  // With a new file beside it: only the new one is read; the ledger still knows a.csv after.
  Write("b.csv", std::string(kHeader) + "3,cy,1\n");
  ASSERT_TRUE(RunFor({"a.csv", "b.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.files_read, 1);
  EXPECT_EQ(summary.counts.read, 1);
  EXPECT_EQ(summary.applied_before.size(), 1u);
  ASSERT_TRUE(RunFor({"b.csv", "a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 0);
  EXPECT_EQ(summary.applied_before.size(), 2u);

  // --reset-position reads them whole again, and every row is discarded.
  reset_position_ = true;
  ASSERT_TRUE(RunFor({"a.csv", "b.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 3);
  EXPECT_EQ(summary.counts.discarded, 3);
  EXPECT_TRUE(summary.versions.empty());
  EXPECT_TRUE(summary.applied_before.empty());
  EXPECT_EQ(Rows("t"), (Lines{"1,amy", "2,bob", "3,cy"}));
}

// A named file a run stopped in (its batch limit) was not applied whole: the next run reads it
// whole, and the one after leaves it out.
TEST_F(ChangeFlowRunnerTest, ANamedFileLeftPartReadIsReadWholeAgain) {
  Write("a.csv", std::string(kHeader) + "1,ann,1\n2,bob,1\n3,cy,1\n");
  FlowRunSummary summary;
  ASSERT_TRUE(RunFor({"a.csv"}, /*batch_size=*/1, /*max_batches=*/1, &summary).ok());
  EXPECT_TRUE(summary.stopped_early);
  EXPECT_EQ(Rows("t"), Lines{"1,ann"});
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_TRUE(summary.applied_before.empty());
  EXPECT_EQ(summary.counts.read, 3);
  EXPECT_EQ(summary.counts.discarded, 1);
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob", "3,cy"}));
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &summary).ok());
  EXPECT_EQ(summary.counts.read, 0);
  EXPECT_EQ(summary.applied_before.size(), 1u);
}

// Read whole again, a named file's bad rows count as quarantined but are not written twice; a
// bad row that is new (the file grew) is written once.
TEST_F(ChangeFlowRunnerTest, NamedFilesReadAgainQuarantineNothingTwice) {  // SEMANTICS §8
  Write("a.csv", std::string(kHeader) + "1,ann,1\n,nokey,2\n2,bob,x\n");
  FlowRunSummary first;
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &first).ok());
  EXPECT_EQ(first.counts.quarantined, 2);
  EXPECT_EQ(Quarantined(), (Lines{",nokey,2", "2,bob,x"}));
  const int64_t quarantine_version = Version("t_quarantine");
  // Read whole again (a file applied whole is otherwise left out).
  reset_position_ = true;
  FlowRunSummary again;
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &again).ok());
  reset_position_ = false;
  EXPECT_EQ(again.counts.quarantined, 2);
  EXPECT_EQ(again.counts.already_quarantined, 2);
  EXPECT_TRUE(again.quarantine_versions.empty());
  EXPECT_TRUE(again.versions.empty());
  EXPECT_EQ(Version("t_quarantine"), quarantine_version);
  Append("a.csv", ",another,3\n");
  FlowRunSummary grown;
  ASSERT_TRUE(RunFor({"a.csv"}, 0, 0, &grown).ok());
  EXPECT_EQ(grown.counts.quarantined, 3);
  EXPECT_EQ(grown.counts.already_quarantined, 2);
  EXPECT_EQ(Quarantined(), (Lines{",another,3", ",nokey,2", "2,bob,x"}));
}

TEST_F(ChangeFlowRunnerTest, ABatchThatOnlyQuarantinesMovesTheQuarantinePosition) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,1\n,nokey,2\n");
  FlowRunSummary first = RunFlow(/*batch_size=*/1);
  EXPECT_EQ(first.counts.quarantined, 1);
  EXPECT_EQ(first.quarantine_versions.size(), 2u);  // creation, then the rows
  FlowRunSummary again = RunFlow(/*batch_size=*/1);
  ASSERT_TRUE(again.resumed_from);
  EXPECT_EQ(again.resumed_from->ToString(), first.position->ToString());
  EXPECT_EQ(again.counts.read, 0);
  EXPECT_EQ(Quarantined(), Lines{",nokey,2"});
}

TEST_F(ChangeFlowRunnerTest, LosingTheTargetCommitAfterTheQuarantineOneLosesNothing) {
  Write("in/a.csv", std::string(kHeader) + "1,ann,1\n,nokey,2\n2,bob,1\n");
  RunFlow();
  EXPECT_EQ(Quarantined(), Lines{",nokey,2"});
  // As if the run had stopped between the quarantine commit and the target's.
  const int64_t last = Version("t");
  ASSERT_TRUE(fs_.Delete(delta::CommitPath("t", last)).ok());
  EXPECT_EQ(Rows("t"), Lines{});
  FlowRunSummary again = RunFlow();
  EXPECT_EQ(again.counts.read, 3);
  EXPECT_EQ(again.counts.quarantined, 1);
  EXPECT_EQ(again.counts.already_quarantined, 1);
  EXPECT_TRUE(again.quarantine_versions.empty());
  EXPECT_EQ(Rows("t"), (Lines{"1,ann", "2,bob"}));
  EXPECT_EQ(Quarantined(), Lines{",nokey,2"});
}

// Every write of a run cut off in turn (as by a crash), then a run to the end: the target and
// the quarantine table are as after one clean run, nothing lost and nothing twice.
TEST_F(ChangeFlowRunnerTest, ACrashAtAnyWriteThenARerunIsExactlyOnce) {
  const std::string input =
      std::string(kHeader) + "1,ann,1\n,x,2\n,y,3\n2,bob,4\n3,cy,5\n1,anna,6\n,z,7\n";
  const Lines want_rows = {"1,anna", "2,bob", "3,cy"};
  const Lines want_quarantined = {",x,2", ",y,3", ",z,7"};
  for (int64_t batch_size : {1, 2, 3}) {
    int64_t writes = 0;
    {
      FlowHarness clean;
      clean.Write("in/a.csv", input);
      int64_t before = clean.fs_.mutation_count();
      clean.RunFlow(batch_size);
      writes = clean.fs_.mutation_count() - before;
      ASSERT_EQ(clean.Rows("t"), want_rows);
    }
    ASSERT_GT(writes, 5);
    for (int64_t cut = 0; cut < writes; ++cut) {
      SCOPED_TRACE("batch size " + std::to_string(batch_size) + ", cut at write " +
                   std::to_string(cut));
      FlowHarness crash;
      crash.Write("in/a.csv", input);
      crash.fs_.FailAfter(cut);
      FlowRunSummary summary;
      EXPECT_FALSE(crash.RunFor({"in"}, batch_size, 0, &summary).ok());
      crash.fs_.ClearFailure();
      crash.RunFlow(batch_size);
      EXPECT_EQ(crash.Rows("t"), want_rows);
      EXPECT_EQ(crash.Quarantined(), want_quarantined);
      // And a further run finds nothing left.
      EXPECT_EQ(crash.RunFlow(batch_size).counts.read, 0);
    }
  }
}

}  // namespace
}  // namespace cdclake::pipeline
