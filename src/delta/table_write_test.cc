// Tests for writing tables: creation, appends read back through the log, optimistic commit
// races (forced with the in-memory file system), and crashes at every file operation.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "delta/log_segment.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;

TableSpec Spec() {
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64(), false},
                              {"name", DataType::String()},
                              {"amount", DataType::Decimal(10, 2)},
                              {"day", DataType::Date()}});
  spec.partition_columns = {"day"};
  return spec;
}

data::RecordBatch Rows(int64_t from, int64_t n) {
  data::RecordBatch b(Spec().schema);
  for (int64_t i = from; i < from + n; ++i) {
    b.AppendRow({Value::Int(i), i % 3 == 0 ? Value::Null() : Value::Bytes("n/" + std::to_string(i)),
                 Value::Decimal(i * 101), i % 4 == 0 ? Value::Null() : Value::Int(19000 + i % 2)});
  }
  return b;
}

std::multiset<std::string> RowSet(const data::RecordBatch& b) {
  std::multiset<std::string> out;
  for (int64_t r = 0; r < b.num_rows(); ++r) {
    std::string s;
    for (size_t c = 0; c < b.num_columns(); ++c) s += b.column(c).GetValue(r).DebugString() + "|";
    out.insert(s);
  }
  return out;
}

TEST(TableWriteTest, CreateAppendAndReadBack) {
  io::MemoryFileSystem fs;
  auto created = CreateTable(fs, "/t", Spec());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)->version(), 0);
  EXPECT_EQ((*created)->protocol().min_reader_version, 1);
  EXPECT_EQ(CreateTable(fs, "/t", Spec()).status().code(), StatusCode::kAlreadyExists);
  ASSERT_EQ(*AppendRows(fs, "/t", Rows(0, 10)), 1);
  ASSERT_EQ(*AppendRows(fs, "/t", Rows(10, 7)), 2);
  auto snap = Snapshot::Load(fs, "/t");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->num_records(), 17);
  auto read = ReadTable(fs, **snap);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  data::RecordBatch all = Rows(0, 17);
  EXPECT_EQ(RowSet(*read), RowSet(all));
  // Time travel to version 1.
  auto v1 = Snapshot::Load(fs, "/t", 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(RowSet(*ReadTable(fs, **v1)), RowSet(Rows(0, 10)));
  // Partition folders, with the null partition.
  bool saw_null_partition = false;
  for (const Add& a : (*snap)->files()) {
    if (a.path.find("day=__HIVE_DEFAULT_PARTITION__/") == 0) saw_null_partition = true;
    EXPECT_TRUE(a.stats.has_value());
  }
  EXPECT_TRUE(saw_null_partition);
}

TEST(TableWriteTest, ConcurrentAppendsBothSucceed) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  auto base = *Snapshot::Load(fs, "/t");
  // Writer A reads version 0; writer B commits version 1 before A publishes.
  Transaction a(fs, "/t", base);
  auto a_files = WriteDataFiles(fs, *base, Rows(0, 5));
  ASSERT_TRUE(a_files.ok());
  for (const Add& add : *a_files) a.Add(add);
  bool raced = false;
  fs.SetBeforePutIfAbsent([&](const std::string& path) {
    if (raced) return;
    raced = true;
    Transaction b(fs, "/t", base);
    auto b_files = WriteDataFiles(fs, *base, Rows(100, 3));
    ASSERT_TRUE(b_files.ok());
    for (const Add& add : *b_files) b.Add(add);
    ASSERT_TRUE(b.Commit().ok());
  });
  auto version = a.Commit();
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(*version, 2);
  fs.SetBeforePutIfAbsent(nullptr);
  auto snap = *Snapshot::Load(fs, "/t");
  EXPECT_EQ(snap->num_records(), 8);
}

TEST(TableWriteTest, ConflictingWritersEndWithOneCleanConflict) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", Rows(0, 5)).ok());
  auto base = *Snapshot::Load(fs, "/t");
  // Both remove the same file: the second must fail with kConflict.
  auto remove_first = [&](Transaction& t) {
    Remove r;
    r.path = base->files()[0].path;
    r.deletion_timestamp = NowMillis();
    t.Add(r);
  };
  Transaction a(fs, "/t", base), b(fs, "/t", base);
  remove_first(a);
  remove_first(b);
  ASSERT_TRUE(a.Commit().ok());
  auto second = b.Commit();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kConflict);
  auto snap = Snapshot::Load(fs, "/t");
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), 2);
}

TEST(TableWriteTest, DomainMetadataUpgradesTheProtocolOnceAndSurvivesCheckpoints) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  auto created = *Snapshot::Load(fs, "/t");
  ASSERT_EQ(created->protocol().min_writer_version, 2);
  Transaction txn(fs, "/t", created);
  txn.Add(DomainMetadata{"cdclake.flow.f", "{\"position\":1}", false});
  ASSERT_TRUE(txn.Commit().ok());
  auto snap = *Snapshot::Load(fs, "/t");
  // Readers stay where they were; writers learn of the feature (and of what version 2 implied).
  EXPECT_EQ(snap->protocol().min_reader_version, 1);
  EXPECT_EQ(snap->protocol().min_writer_version, 7);
  EXPECT_EQ(snap->protocol().writer_features,
            (std::vector<std::string>{"appendOnly", "invariants", "domainMetadata"}));
  ASSERT_EQ(snap->domains().count("cdclake.flow.f"), 1u);
  // A second domain write carries no protocol; latest wins.
  Transaction again(fs, "/t", snap);
  again.Add(DomainMetadata{"cdclake.flow.f", "{\"position\":2}", false});
  ASSERT_TRUE(again.Commit().ok());
  std::string commit = *fs.ReadFile(CommitPath("/t", 2));
  EXPECT_EQ(commit.find("\"protocol\""), std::string::npos) << commit;
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(AppendRows(fs, "/t", Rows(i, 1)).ok());
  // Version 10 is checkpointed; the commits before it go, as log cleanup removes them.
  ASSERT_TRUE(fs.Exists("/t/_delta_log/00000000000000000010.checkpoint.parquet").ValueOr(false));
  for (int v = 0; v < 10; ++v) ASSERT_TRUE(fs.Delete(CommitPath("/t", v)).ok());
  auto cleaned = *Snapshot::Load(fs, "/t");
  ASSERT_EQ(cleaned->domains().count("cdclake.flow.f"), 1u);
  EXPECT_EQ(cleaned->domains().at("cdclake.flow.f").configuration, "{\"position\":2}");
}

// What a snapshot's state is, for comparing two ways of reaching one version.
std::string StateText(const Snapshot& s) {
  std::string out = std::to_string(s.version()) + " " + s.metadata().id + " " +
                    s.metadata().schema_string + " w" +
                    std::to_string(s.protocol().min_writer_version) + "\n";
  for (const Add& a : s.files()) {
    out += "add " + a.path + " " + (a.deletion_vector ? a.deletion_vector->path_or_inline_dv : "") +
           " " + std::to_string(a.size) + "\n";
  }
  for (const auto& [app, t] : s.txns())
    out += "txn " + app + " " + std::to_string(t.version) + "\n";
  for (const auto& [d, m] : s.domains()) out += "domain " + d + " " + m.configuration + "\n";
  for (const auto& [k, v] : s.metadata().configuration) out += "conf " + k + "=" + v + "\n";
  return out;
}

std::set<std::string> Tombstones(const Snapshot& s) {
  std::set<std::string> out;
  for (const Remove& r : s.tombstones()) out.insert(r.path);
  return out;
}

std::string CheckpointPathFor(int64_t version) {
  std::string v = std::to_string(version);
  return "/t/_delta_log/" + std::string(20 - v.size(), '0') + v + ".checkpoint.parquet";
}

// A writer's next snapshot, replayed from its own onto the commits after it, is the one a
// full load gives, through appends, removes, txns, domains, a property change and a
// checkpoint; with a commit after the base gone (log cleanup) it is a full load.
TEST(TableWriteTest, LoadAfterEqualsAFullLoad) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  auto base = *Snapshot::Load(fs, "/t");
  for (int step = 0; step < 14; ++step) {
    Transaction txn(fs, "/t", base);
    if (step % 4 == 3 && !base->files().empty()) {
      Remove r;
      r.path = base->files().front().path;
      r.deletion_timestamp = 1000 + step;
      r.data_change = true;
      txn.Add(std::move(r));
    } else {
      auto adds = WriteDataFiles(fs, *base, Rows(step * 5, 5));
      ASSERT_TRUE(adds.ok()) << adds.status().ToString();
      for (Add& a : *adds) txn.Add(std::move(a));
    }
    txn.Add(Txn{"flow", step + 1, 0});
    txn.Add(DomainMetadata{"cdclake.flow.f", "{\"step\":" + std::to_string(step) + "}", false});
    if (step == 6) {
      Metadata m = base->metadata();
      m.configuration["delta.appendOnly"] = "false";
      txn.Add(std::move(m));
    }
    auto version = txn.Commit();
    ASSERT_TRUE(version.ok()) << version.status().ToString();
    auto after = Snapshot::LoadAfter(fs, *base, *version);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    auto full = Snapshot::Load(fs, "/t", *version);
    ASSERT_TRUE(full.ok());
    ASSERT_EQ(StateText(**after), StateText(**full)) << "step " << step;
    // Tombstones: a checkpoint drops the expired ones, LoadAfter keeps them (only vacuum reads
    // them, and it loads the table itself); the commit's time, unless a checkpoint was written
    // at this version (Load then dates it by the checkpoint file).
    for (const std::string& t : Tombstones(**full)) EXPECT_EQ(Tombstones(**after).count(t), 1u);
    if (!fs.Exists(CheckpointPathFor(*version)).ValueOr(false)) {
      EXPECT_EQ((*after)->timestamp_ms(), (*full)->timestamp_ms()) << "step " << step;
    }
    // Also without a version: the latest.
    ASSERT_EQ(StateText(**Snapshot::LoadAfter(fs, *base)), StateText(**full));
    base = *after;
  }
  ASSERT_TRUE(fs.Exists("/t/_delta_log/00000000000000000010.checkpoint.parquet").ValueOr(false));
  // Commits on to the next checkpoint (version 20), then log cleanup removes every commit
  // before it, those right after the base included: LoadAfter falls back to a full load.
  auto old = base;
  while ((*Snapshot::Load(fs, "/t"))->version() < 20) {
    ASSERT_TRUE(AppendRows(fs, "/t", Rows(100, 1)).ok());
  }
  ASSERT_TRUE(fs.Exists(CheckpointPathFor(20)).ValueOr(false));
  for (int64_t v = 0; v < 20; ++v) ASSERT_TRUE(fs.Delete(CommitPath("/t", v)).ok());
  auto fallback = Snapshot::LoadAfter(fs, *old);
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  EXPECT_EQ((*fallback)->version(), 20);
  EXPECT_EQ(StateText(**fallback), StateText(**Snapshot::Load(fs, "/t")));
  EXPECT_EQ(Tombstones(**fallback), Tombstones(**Snapshot::Load(fs, "/t")));
}

TEST(TableWriteTest, ConcurrentWritersOfOneDomainConflict) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  Transaction first(fs, "/t", *Snapshot::Load(fs, "/t"));
  first.Add(DomainMetadata{"cdclake.flow.f", "{}", false});
  ASSERT_TRUE(first.Commit().ok());
  auto base = *Snapshot::Load(fs, "/t");
  Transaction a(fs, "/t", base), b(fs, "/t", base);
  a.Add(DomainMetadata{"cdclake.flow.f", "{\"a\":1}", false});
  b.Add(DomainMetadata{"cdclake.flow.f", "{\"b\":1}", false});
  ASSERT_TRUE(a.Commit().ok());
  auto second = b.Commit();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kConflict);
  EXPECT_NE(second.status().message().find("domain 'cdclake.flow.f'"), std::string::npos)
      << second.status().ToString();
}

TEST(TableWriteTest, CrashAfterAnyFileOperationLeavesTheLastCommittedVersion) {
  for (int64_t cut = 0; cut < 40; ++cut) {
    io::MemoryFileSystem fs;
    ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
    ASSERT_TRUE(AppendRows(fs, "/t", Rows(0, 6)).ok());
    fs.FailAfter(cut);
    auto appended = AppendRows(fs, "/t", Rows(6, 6));
    fs.ClearFailure();
    auto snap = Snapshot::Load(fs, "/t");
    ASSERT_TRUE(snap.ok()) << "cut " << cut << ": " << snap.status().ToString();
    auto read = ReadTable(fs, **snap);
    ASSERT_TRUE(read.ok()) << "cut " << cut << ": " << read.status().ToString();
    if (appended.ok()) {
      EXPECT_EQ((*snap)->version(), 2);
      EXPECT_EQ(RowSet(*read), RowSet(Rows(0, 12)));
    } else {
      EXPECT_EQ((*snap)->version(), 1) << "cut " << cut;
      EXPECT_EQ(RowSet(*read), RowSet(Rows(0, 6))) << "cut " << cut;
    }
  }
}

TEST(TableWriteTest, TwoProcessesAppendingAtOnceBothSucceed) {
  auto dir = io::ScratchDir::Create();
  ASSERT_TRUE(dir.ok());
  auto& fs = *io::LocalFileSystem::Instance();
  std::string root = dir->path() + "/t";
  ASSERT_TRUE(CreateTable(fs, root, Spec()).ok());
  constexpr int kWriters = 4, kAppends = 5;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0; i < kAppends; ++i) {
        if (!AppendRows(fs, root, Rows(w * 1000 + i * 10, 3)).ok()) _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto snap = Snapshot::Load(fs, root);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ((*snap)->version(), kWriters * kAppends);
  EXPECT_EQ((*snap)->num_records(), kWriters * kAppends * 3);
}

}  // namespace
}  // namespace cdclake::delta
