// Tests for checkpoint writing: random histories read the same through a checkpoint as through
// commits alone, the Parquet layout, `_last_checkpoint`, automatic checkpoints, crashes at every
// file operation, and checkpoints of real tables written by Spark and delta-rs.
#include "delta/checkpoint_writer.h"

#include <gtest/gtest.h>

#include "base/uuid.h"

#include <functional>
#include <random>
#include <set>

#include "delta/deletion_vector/z85.h"
#include "delta/log_segment.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;

std::string Dump(const Action& a) {
  return json::Dump(ActionToJson(a));
}

// Everything a reader sees in a snapshot, as comparable text. Tombstones are compared by key
// and deletion time only: checkpoint tombstones carry no stats or tags (§Checkpoint Schema).
std::string Describe(const Snapshot& s) {
  std::string out = "version " + std::to_string(s.version()) + "\n";
  out += Dump(s.protocol()) + "\n" + Dump(s.metadata()) + "\n";
  for (const Add& a : s.files()) out += Dump(a) + "\n";
  for (const auto& [_, t] : s.txns()) out += Dump(t) + "\n";
  for (const auto& [_, d] : s.domains()) out += Dump(d) + "\n";
  std::set<std::string> tombstones;
  for (const Remove& r : s.tombstones()) {
    tombstones.insert(FileKey(r.path, r.deletion_vector) + "@" +
                      std::to_string(r.deletion_timestamp.value_or(-1)));
  }
  for (const std::string& t : tombstones) out += "tombstone " + t + "\n";
  return out;
}

std::shared_ptr<const Snapshot> MustLoad(const io::FileSystem& fs, const std::string& root,
                                         std::optional<int64_t> version = std::nullopt) {
  auto s = Snapshot::Load(fs, root, version);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

std::string CheckpointFile(const std::string& root, int64_t version) {
  char name[48];
  std::snprintf(name, sizeof(name), "%020lld.checkpoint.parquet", static_cast<long long>(version));
  return io::JoinPath(LogDir(root), name);
}

// A random history of synthetic actions (no data files are needed to replay a log): appends
// with stats, tags, row ids and partition values (null included); removes; deletion-vector
// updates (inline and file DVs); txns; domain metadata set and removed; property changes.
class RandomHistory {
 public:
  RandomHistory(io::FileSystem& fs, std::string root, uint32_t seed)
      : fs_(fs), root_(std::move(root)), rng_(seed) {}

  Status Create() {
    Transaction t(fs_, root_, nullptr);
    Protocol p;
    p.min_reader_version = 3;
    p.min_writer_version = 7;
    p.reader_features = std::vector<std::string>{"deletionVectors"};
    p.writer_features = std::vector<std::string>{"deletionVectors", "domainMetadata"};
    t.Add(p);
    Metadata m;
    m.id = *NewUuid();
    m.name = "random";
    m.schema_string =
        SchemaToJson(data::Schema({{"id", DataType::Int64()}, {"part", DataType::String()}}));
    m.partition_columns = {"part"};
    // No automatic checkpoints: the test places them.
    m.configuration = {{"delta.checkpointInterval", "1000000"},
                       {"delta.enableDeletionVectors", "true"}};
    m.created_time = 1700000000000;
    t.Add(m);
    return t.Commit().status();
  }

  Status Step() {
    CDCLAKE_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(fs_, root_));
    Transaction t(fs_, root_, snap);
    int kind = Pick(10);
    if (kind <= 3 || snap->files().empty()) {
      for (int i = 0, n = 1 + Pick(3); i < n; ++i) t.Add(NewAdd());
    } else if (kind <= 5) {
      const Add& victim = snap->files()[Pick(snap->files().size())];
      t.Add(RemoveOf(victim));
      if (Pick(2)) t.Add(NewAdd());
    } else if (kind <= 7) {
      const Add& target = snap->files()[Pick(snap->files().size())];
      t.Add(RemoveOf(target));
      Add updated = target;
      updated.deletion_vector = NewDv();
      updated.data_change = true;
      t.Add(updated);
    } else if (kind == 8) {
      Txn txn;
      txn.app_id = "app-" + std::to_string(Pick(3));
      txn.version = snap->TxnVersion(txn.app_id).value_or(0) + 1 + Pick(5);
      if (Pick(2)) txn.last_updated = 1700000000000 + Pick(1000);
      t.Add(txn);
      t.Add(NewAdd());
    } else {
      DomainMetadata d;
      d.domain = "domain-" + std::to_string(Pick(3));
      d.configuration = "{\"n\":" + std::to_string(Pick(100)) + "}";
      d.removed = Pick(3) == 0;
      t.Add(d);
      if (Pick(3) == 0) {
        Metadata m = snap->metadata();
        m.configuration["custom.step"] = std::to_string(snap->version());
        t.Add(m);
      }
    }
    return t.Commit().status();
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  Add NewAdd() {
    Add a;
    std::string part = Pick(4) == 0 ? "" : "p" + std::to_string(Pick(3));
    a.path = (part.empty() ? "part=__HIVE_DEFAULT_PARTITION__" : "part=" + part) + "/f-" +
             std::to_string(next_file_++) + (Pick(5) == 0 ? "%20with%20space" : "") + ".parquet";
    a.partition_values["part"] = part.empty() ? std::nullopt : std::optional<std::string>(part);
    a.size = 100 + static_cast<int64_t>(Pick(10000));
    a.modification_time = 1700000000000 + static_cast<int64_t>(Pick(100000));
    a.data_change = Pick(5) != 0;
    if (Pick(4) != 0) {
      a.stats = "{\"numRecords\":" + std::to_string(1 + Pick(1000)) +
                ",\"minValues\":{\"id\":1},\"maxValues\":{\"id\":99},\"nullCount\":{\"id\":0}}";
    }
    if (Pick(3) == 0)
      a.tags = Tags{{"INSERTION_TIME", "1700000000000000"}, {"empty", std::nullopt}};
    if (Pick(3) == 0) {
      a.base_row_id = static_cast<int64_t>(Pick(1 << 20));
      a.default_row_commit_version = static_cast<int64_t>(Pick(50));
    }
    if (Pick(6) == 0) a.deletion_vector = NewDv();
    if (Pick(10) == 0) a.clustering_provider = "liquid";
    return a;
  }

  DeletionVectorDescriptor NewDv() {
    if (Pick(2)) {
      std::vector<uint64_t> rows;
      for (int i = 0, n = 1 + Pick(5); i < n; ++i) rows.push_back(Pick(100));
      return InlineDeletionVector(RowBitmap::Of(rows));
    }
    DeletionVectorDescriptor dv;
    dv.storage_type = "u";
    std::string uuid(16, '\0');
    for (char& c : uuid) c = static_cast<char>(Pick(256));
    dv.path_or_inline_dv = (Pick(2) ? "ab" : "") + Z85Encode(uuid);
    dv.offset = 1 + static_cast<int32_t>(Pick(100));
    dv.size_in_bytes = 20 + static_cast<int32_t>(Pick(100));
    dv.cardinality = 1 + static_cast<int64_t>(Pick(10));
    return dv;
  }

  Remove RemoveOf(const Add& a) {
    Remove r;
    r.path = a.path;
    r.deletion_timestamp = NowMillis() - static_cast<int64_t>(Pick(1000));
    r.data_change = true;
    r.extended_file_metadata = true;
    r.partition_values = a.partition_values;
    r.size = a.size;
    r.stats = a.stats;  // dropped by checkpoints
    r.deletion_vector = a.deletion_vector;
    r.base_row_id = a.base_row_id;
    r.default_row_commit_version = a.default_row_commit_version;
    return r;
  }

  io::FileSystem& fs_;
  std::string root_;
  std::mt19937 rng_;
  int next_file_ = 0;
};

TEST(CheckpointWriterTest, RandomHistoriesReadTheSameThroughCheckpoints) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    io::MemoryFileSystem fs;
    RandomHistory history(fs, "/t", seed);
    ASSERT_TRUE(history.Create().ok());
    constexpr int kCommits = 40;
    for (int i = 0; i < kCommits; ++i) {
      Status s = history.Step();
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    // What commits alone give, at every version.
    std::vector<std::string> expected;
    for (int64_t v = 0; v <= kCommits; ++v) expected.push_back(Describe(*MustLoad(fs, "/t", v)));
    // Checkpoints at a few versions (one at the latest), then every version again.
    std::mt19937 rng(seed);
    std::set<int64_t> at = {kCommits, 0};
    for (int i = 0; i < 4; ++i) at.insert(std::uniform_int_distribution<int64_t>(1, kCommits)(rng));
    for (int64_t v : at) {
      auto snap = MustLoad(fs, "/t", v);
      auto info = WriteCheckpoint(fs, *snap, NowMillis());
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      EXPECT_EQ(info->version, v);
    }
    for (int64_t v = 0; v <= kCommits; ++v) {
      auto seg = ListLogSegment(fs, "/t", v);
      ASSERT_TRUE(seg.ok());
      EXPECT_EQ(seg->checkpoint_version, *std::prev(at.upper_bound(v)));
      EXPECT_EQ(Describe(*MustLoad(fs, "/t", v)), expected[v]) << "version " << v;
    }
  }
}

TEST(CheckpointWriterTest, ParquetLayoutAndLastCheckpoint) {
  io::MemoryFileSystem fs;
  RandomHistory history(fs, "/t", 42);
  ASSERT_TRUE(history.Create().ok());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(history.Step().ok());
  auto snap = MustLoad(fs, "/t");
  auto info = WriteCheckpoint(fs, *snap, NowMillis());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->path, CheckpointFile("/t", 30));

  auto reader = parquet::FileReader::Open(fs, info->path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const data::Schema& schema = (*reader)->schema();
  std::vector<std::string> names;
  for (const data::Field& f : schema.fields()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol",
                                             "domainMetadata"}));
  EXPECT_EQ(schema.field(1).type->ToString(),
            "struct<path:string,partitionValues:map<string,string>,size:bigint,"
            "modificationTime:bigint,dataChange:boolean,tags:map<string,string>,"
            "deletionVector:struct<storageType:string,pathOrInlineDv:string,offset:int,"
            "sizeInBytes:int,cardinality:bigint>,baseRowId:bigint,defaultRowCommitVersion:bigint,"
            "stats:string,clusteringProvider:string>");
  EXPECT_EQ(schema.field(2).type->ToString(),
            "struct<path:string,deletionTimestamp:bigint,dataChange:boolean,"
            "extendedFileMetadata:boolean,partitionValues:map<string,string>,size:bigint,"
            "deletionVector:struct<storageType:string,pathOrInlineDv:string,offset:int,"
            "sizeInBytes:int,cardinality:bigint>,baseRowId:bigint,defaultRowCommitVersion:bigint>");
  for (const data::Field& f : schema.fields()) EXPECT_TRUE(f.nullable) << f.name;
  // Map keys are REQUIRED, as Spark and the spec want.
  for (const parquet::format::SchemaElement& e : (*reader)->metadata().schema) {
    if (e.name == "key") {
      EXPECT_EQ(e.repetition_type, parquet::format::FieldRepetitionType::kRequired);
    }
  }

  // One action per row.
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok());
  int64_t adds = 0;
  for (int64_t r = 0; r < all->num_rows(); ++r) {
    int non_null = 0;
    for (size_t c = 0; c < all->num_columns(); ++c) non_null += all->column(c).IsValid(r) ? 1 : 0;
    EXPECT_EQ(non_null, 1) << "row " << r;
    adds += all->column(1).IsValid(r) ? 1 : 0;
  }
  EXPECT_EQ(adds, static_cast<int64_t>(snap->files().size()));
  EXPECT_EQ(info->num_of_add_files, adds);
  int64_t expected_rows =
      2 + static_cast<int64_t>(snap->files().size() + snap->txns().size() + snap->domains().size() +
                               snap->tombstones().size());
  EXPECT_EQ(all->num_rows(), expected_rows);

  auto hint = fs.ReadFile("/t/_delta_log/_last_checkpoint");
  ASSERT_TRUE(hint.ok());
  auto json = json::Parse(*hint);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ((*json)["version"], 30);
  EXPECT_EQ((*json)["size"], expected_rows);
  EXPECT_EQ((*json)["numOfAddFiles"], adds);
  EXPECT_EQ((*json)["sizeInBytes"], static_cast<int64_t>(fs.Stat(info->path)->size));

  // An older checkpoint does not move the hint back.
  ASSERT_TRUE(WriteCheckpoint(fs, *MustLoad(fs, "/t", 20), NowMillis()).ok());
  EXPECT_EQ((*json::Parse(*fs.ReadFile("/t/_delta_log/_last_checkpoint")))["version"], 30);
}

TEST(CheckpointWriterTest, ExpiredTombstonesAreLeftOut) {
  io::MemoryFileSystem fs;
  RandomHistory history(fs, "/t", 7);
  ASSERT_TRUE(history.Create().ok());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(history.Step().ok());
  auto snap = MustLoad(fs, "/t");
  ASSERT_FALSE(snap->tombstones().empty());
  // Eight days on, every tombstone (all removed about now) is past the one-week retention.
  int64_t later = NowMillis() + 8LL * 24 * 3600 * 1000;
  auto info = WriteCheckpoint(fs, *snap, later);
  ASSERT_TRUE(info.ok());
  auto reread = MustLoad(fs, "/t");
  EXPECT_TRUE(reread->tombstones().empty());
  EXPECT_EQ(reread->files().size(), snap->files().size());
  EXPECT_EQ(info->size, 2 + static_cast<int64_t>(snap->files().size() + snap->txns().size() +
                                                 snap->domains().size()));
}

TEST(CheckpointWriterTest, CheckpointIntervalProperty) {
  Metadata m;
  EXPECT_EQ(CheckpointInterval(m), 10);
  m.configuration["delta.checkpointInterval"] = "3";
  EXPECT_EQ(CheckpointInterval(m), 3);
  for (const char* bad : {"0", "-4", "ten", "5x", ""}) {
    m.configuration["delta.checkpointInterval"] = bad;
    EXPECT_EQ(CheckpointInterval(m), 10) << bad;
  }
}

TableSpec Spec(std::map<std::string, std::string> properties = {}) {
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64()}, {"name", DataType::String()}});
  spec.properties = std::move(properties);
  return spec;
}

data::RecordBatch Rows(int64_t from, int64_t n) {
  data::RecordBatch b(Spec().schema);
  for (int64_t i = from; i < from + n; ++i) {
    b.AppendRow({Value::Int(i), Value::Bytes("n" + std::to_string(i))});
  }
  return b;
}

std::multiset<int64_t> Ids(const io::FileSystem& fs, const Snapshot& s) {
  auto read = ReadTable(fs, s);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  std::multiset<int64_t> out;
  if (!read.ok()) return out;
  for (int64_t r = 0; r < read->num_rows(); ++r)
    out.insert(read->column(0).GetValue(r).int_value());
  return out;
}

TEST(CheckpointWriterTest, CommitsCheckpointEveryIntervalVersions) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(AppendRows(fs, "/t", Rows(i * 2, 2)).ok());
  EXPECT_TRUE(*fs.Exists(CheckpointFile("/t", 10)));
  EXPECT_TRUE(*fs.Exists(CheckpointFile("/t", 20)));
  EXPECT_FALSE(*fs.Exists(CheckpointFile("/t", 25)));
  EXPECT_EQ((*json::Parse(*fs.ReadFile("/t/_delta_log/_last_checkpoint")))["version"], 20);
  auto seg = ListLogSegment(fs, "/t");
  ASSERT_TRUE(seg.ok());
  EXPECT_EQ(seg->checkpoint_version, 20);
  auto snap = MustLoad(fs, "/t");
  std::multiset<int64_t> want;
  for (int64_t i = 0; i < 50; ++i) want.insert(i);
  EXPECT_EQ(Ids(fs, *snap), want);

  io::MemoryFileSystem fs3;
  ASSERT_TRUE(CreateTable(fs3, "/t", Spec({{"delta.checkpointInterval", "3"}})).ok());
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(AppendRows(fs3, "/t", Rows(i, 1)).ok());
  for (int64_t v = 1; v <= 7; ++v) EXPECT_EQ(*fs3.Exists(CheckpointFile("/t", v)), v % 3 == 0);
}

TEST(CheckpointWriterTest, RefusesTablesThatWantTypedStats) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t",
                          Spec({{"delta.checkpoint.writeStatsAsStruct", "true"},
                                {"delta.checkpointInterval", "2"}}))
                  .ok());
  ASSERT_TRUE(AppendRows(fs, "/t", Rows(0, 1)).ok());
  ASSERT_TRUE(AppendRows(fs, "/t", Rows(1, 1)).ok());  // due, skipped; the commit stands
  EXPECT_FALSE(*fs.Exists(CheckpointFile("/t", 2)));
  EXPECT_EQ(WriteCheckpoint(fs, *MustLoad(fs, "/t")).code(), StatusCode::kNotSupported);
  EXPECT_EQ(MustLoad(fs, "/t")->version(), 2);
}

TEST(CheckpointWriterTest, MaybeCheckpointOnlyWhenDue) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec({{"delta.checkpointInterval", "1000"}})).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(AppendRows(fs, "/t", Rows(i, 1)).ok());
  EXPECT_TRUE(MaybeCheckpoint(fs, "/t", 0).ok());
  EXPECT_TRUE(MaybeCheckpoint(fs, "/t", 4).ok());
  EXPECT_FALSE(*fs.Exists(CheckpointFile("/t", 4)));
  EXPECT_FALSE(*fs.Exists(CheckpointFile("/t", 0)));
  EXPECT_FALSE(MaybeCheckpoint(fs, "/t", 99).ok());  // no such version
}

TEST(CheckpointWriterTest, ACrashAtAnyPointLeavesAReadableTable) {
  auto build = [](io::MemoryFileSystem& fs) {
    ASSERT_TRUE(CreateTable(fs, "/t", Spec({{"delta.checkpointInterval", "1000"}})).ok());
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(AppendRows(fs, "/t", Rows(i * 3, 3)).ok());
  };
  int64_t operations = 0;
  {
    io::MemoryFileSystem fs;
    build(fs);
    int64_t before = fs.mutation_count();
    ASSERT_TRUE(WriteCheckpoint(fs, *MustLoad(fs, "/t")).ok());
    operations = fs.mutation_count() - before;
  }
  EXPECT_EQ(operations, 2);  // the checkpoint, then _last_checkpoint
  for (int64_t cut = 0; cut <= operations; ++cut) {
    SCOPED_TRACE("cut " + std::to_string(cut));
    io::MemoryFileSystem fs;
    build(fs);
    auto before = MustLoad(fs, "/t");
    std::string expected = Describe(*before);
    fs.FailAfter(cut);
    Status written = WriteCheckpoint(fs, *before);
    fs.ClearFailure();
    EXPECT_EQ(written.ok(), cut == operations);
    EXPECT_EQ(*fs.Exists(CheckpointFile("/t", 6)), cut >= 1);
    auto after = MustLoad(fs, "/t");
    EXPECT_EQ(Describe(*after), expected);
    EXPECT_EQ(Ids(fs, *after), Ids(fs, *before));
    // The restarted writer checkpoints again without trouble.
    EXPECT_TRUE(WriteCheckpoint(fs, *after).ok());
    EXPECT_EQ(Describe(*MustLoad(fs, "/t")), expected);
    EXPECT_EQ((*json::Parse(*fs.ReadFile("/t/_delta_log/_last_checkpoint")))["version"], 6);
  }
}

TEST(CheckpointWriterTest, AFailedAutomaticCheckpointDoesNotFailTheCommit) {
  int committed_without_checkpoint = 0;
  for (int64_t cut = 0; cut < 16; ++cut) {
    SCOPED_TRACE("cut " + std::to_string(cut));
    io::MemoryFileSystem fs;
    ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
    for (int i = 0; i < 9; ++i) ASSERT_TRUE(AppendRows(fs, "/t", Rows(i, 1)).ok());
    fs.FailAfter(cut);
    auto version = AppendRows(fs, "/t", Rows(9, 1));  // version 10: a checkpoint is due
    fs.ClearFailure();
    bool committed = *fs.Exists(CommitPath("/t", 10));
    EXPECT_EQ(version.ok(), committed);
    auto snap = MustLoad(fs, "/t");
    EXPECT_EQ(snap->version(), committed ? 10 : 9);
    EXPECT_EQ(Ids(fs, *snap).size(), committed ? 10u : 9u);
    if (committed && !*fs.Exists(CheckpointFile("/t", 10))) ++committed_without_checkpoint;
  }
  EXPECT_GE(committed_without_checkpoint, 1);  // some cuts fell in the checkpoint
}

// --- Real tables --------------------------------------------------------------------------

std::string TestdataDir() {
  return std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
}

// Copies the folder `from` (local disk) to `to` in `fs`, modification times included.
void CopyTree(const std::string& from, io::MemoryFileSystem& fs, const std::string& to) {
  auto& local = *io::LocalFileSystem::Instance();
  auto entries = local.List(from);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  for (const io::FileInfo& e : *entries) {
    std::string name = e.path.substr(e.path.rfind('/') + 1);
    if (e.is_directory) {
      CopyTree(e.path, fs, io::JoinPath(to, name));
      continue;
    }
    auto data = local.ReadFile(e.path);
    ASSERT_TRUE(data.ok());
    std::string target = io::JoinPath(to, name);
    ASSERT_TRUE(fs.WriteFile(target, *data).ok());
    ASSERT_TRUE(fs.SetModificationTime(target, e.modification_time_ms).ok());
  }
}

TEST(CheckpointWriterTest, RealTablesReadTheSameThroughOurCheckpoint) {
  // Deletion vectors (file and inline), partitions, column mapping, txns, a v2-checkpoint table
  // and a delta-rs table.
  for (const char* name :
       {"golden-dv-partitioned-with-checkpoint/delta", "golden-dv-with-columnmapping/delta",
        "rs-table-with-dv-small", "synthetic-inline-dv", "dat-multi_partitioned/delta",
        "kernel-app-txn-checkpoint", "golden-v2-checkpoint-parquet/delta",
        "rs-python-0.25.5-checkpoint", "golden-basic-with-inserts-deletes-checkpoint/delta"}) {
    SCOPED_TRACE(name);
    io::MemoryFileSystem fs;
    CopyTree(TestdataDir() + "/" + name, fs, "/t");
    auto theirs = MustLoad(fs, "/t");
    ASSERT_TRUE(theirs);
    std::string expected = Describe(*theirs);
    // Drop their checkpoints at this version so ours is the one read.
    auto log = fs.List("/t/_delta_log");
    ASSERT_TRUE(log.ok());
    for (const io::FileInfo& f : *log) {
      std::string file = f.path.substr(f.path.rfind('/') + 1);
      char prefix[32];
      std::snprintf(prefix, sizeof(prefix), "%020lld.checkpoint",
                    static_cast<long long>(theirs->version()));
      if (file.rfind(prefix, 0) == 0 || file == "_last_checkpoint") {
        ASSERT_TRUE(fs.Delete(f.path).ok());
      }
    }
    // "Now" at the epoch: none of the table's tombstones has expired yet.
    auto info = WriteCheckpoint(fs, *theirs, 0);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    auto seg = ListLogSegment(fs, "/t");
    ASSERT_TRUE(seg.ok());
    EXPECT_EQ(seg->checkpoint_files, std::vector<std::string>{info->path});
    EXPECT_TRUE(seg->commits.empty());
    auto ours = MustLoad(fs, "/t");
    ASSERT_TRUE(ours);
    EXPECT_EQ(Describe(*ours), expected);
    auto a = ReadTable(fs, *theirs);
    auto b = ReadTable(fs, *ours);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->num_rows(), b->num_rows());
    bool v2 = UsesV2Checkpoints(theirs->protocol());
    auto reader = parquet::FileReader::Open(fs, info->path);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->schema().FieldIndex("checkpointMetadata") >= 0, v2);
  }
}

}  // namespace
}  // namespace cdclake::delta
