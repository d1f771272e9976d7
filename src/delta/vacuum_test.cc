// Tests for vacuum: retention intervals, a dry run against a real run with a fake clock, files
// protected by live adds, deletion vectors and tombstones, and the folders vacuum never touches.
#include "delta/vacuum.h"

#include <gtest/gtest.h>

#include "base/uuid.h"

#include <limits>
#include <set>

#include "base/strings.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/memory_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kT0 = 1'700'000'000'000;

TEST(VacuumTest, ParsesIntervals) {
  EXPECT_EQ(*ParseIntervalMs("interval 1 week"), 7 * kDay);
  EXPECT_EQ(*ParseIntervalMs("interval 168 hours"), 7 * kDay);
  EXPECT_EQ(*ParseIntervalMs("INTERVAL 2 DAYS"), 2 * kDay);
  EXPECT_EQ(*ParseIntervalMs("1 day 12 hours"), 36 * kHour);
  EXPECT_EQ(*ParseIntervalMs("interval 30 minutes"), 30 * 60 * 1000);
  EXPECT_EQ(*ParseIntervalMs("interval 5 mins 10 secs"), 310 * 1000);
  EXPECT_EQ(*ParseIntervalMs("  interval   0   seconds "), 0);
  EXPECT_EQ(*ParseIntervalMs("interval 1500 milliseconds"), 1500);
  EXPECT_EQ(*ParseIntervalMs("interval 2500 microseconds"), 2);
  EXPECT_EQ(*ParseIntervalMs("interval 3000000 ns"), 3);
  for (const char* bad :
       {"", "interval", "interval 1", "interval week", "interval -1 day", "interval 1.5 days",
        "interval 1 month", "interval 2 years", "interval 1 fortnight",
        "interval 99999999999999999999 days", "interval 9999999999999999 weeks"}) {
    EXPECT_EQ(ParseIntervalMs(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TableSpec Spec(std::map<std::string, std::string> properties = {}) {
  TableSpec spec;
  // A partition column whose name starts with '_': its folders are data, not hidden.
  spec.schema = data::Schema({{"id", DataType::Int64()}, {"_p", DataType::String()}});
  spec.partition_columns = {"_p"};
  properties["delta.enableDeletionVectors"] = "true";
  properties["delta.checkpointInterval"] = "1000";
  spec.properties = std::move(properties);
  return spec;
}

data::RecordBatch Rows(int64_t from, int64_t n, const std::string& part) {
  data::RecordBatch b(Spec().schema);
  for (int64_t i = from; i < from + n; ++i) b.AppendRow({Value::Int(i), Value::Bytes(part)});
  return b;
}

// Appends `batch` (one partition) and returns its add.
Add AppendOne(io::MemoryFileSystem& fs, const data::RecordBatch& batch) {
  auto snap = Snapshot::Load(fs, "/t");
  EXPECT_TRUE(snap.ok());
  auto adds = WriteDataFiles(fs, **snap, batch);
  EXPECT_TRUE(adds.ok() && adds->size() == 1);
  Transaction t(fs, "/t", *snap);
  t.Add((*adds)[0]);
  EXPECT_TRUE(t.Commit().ok());
  return (*adds)[0];
}

void Commit(io::MemoryFileSystem& fs, const std::vector<Action>& actions) {
  auto snap = Snapshot::Load(fs, "/t");
  ASSERT_TRUE(snap.ok());
  Transaction t(fs, "/t", *snap);
  for (const Action& a : actions) t.Add(a);
  auto v = t.Commit();
  ASSERT_TRUE(v.ok()) << v.status().ToString();
}

std::set<std::string> AllFiles(const io::FileSystem& fs, const std::string& dir) {
  std::set<std::string> out;
  auto entries = fs.List(dir);
  if (!entries.ok()) return out;
  for (const io::FileInfo& e : *entries) {
    if (e.is_directory) {
      for (const std::string& f : AllFiles(fs, e.path)) out.insert(f);
    } else {
      out.insert(e.path);
    }
  }
  return out;
}

std::set<std::string> Paths(const VacuumResult& r) {
  std::set<std::string> out;
  for (const VacuumFile& f : r.files) out.insert(f.path);
  return out;
}

std::multiset<int64_t> Ids(const io::FileSystem& fs) {
  auto snap = Snapshot::Load(fs, "/t");
  EXPECT_TRUE(snap.ok());
  std::multiset<int64_t> out;
  if (!snap.ok()) return out;
  auto rows = ReadTable(fs, **snap);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok()) return out;
  for (int64_t r = 0; r < rows->num_rows(); ++r)
    out.insert(rows->column(0).GetValue(r).int_value());
  return out;
}

// A table at time kT0 with: live files in _p=a and _p=b (one with a deletion vector), a file
// removed at kT0, and files nothing references, some in places vacuum must not look.
struct Table {
  io::MemoryFileSystem fs;
  Add a, b, c;
  std::string dv_file, orphan_dv;

  void Build() {
    fs.SetNowMs(kT0);
    ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
    a = AppendOne(fs, Rows(0, 3, "a"));
    b = AppendOne(fs, Rows(3, 3, "b"));
    c = AppendOne(fs, Rows(6, 3, "a"));
    Commit(fs, {RemoveOf(a, kT0)});
    // Row 3 (the first of b) deleted through a deletion vector file.
    auto dv = WriteDeletionVectorFile(fs, "/t", RowBitmap::Of({0}));
    ASSERT_TRUE(dv.ok());
    Add b2 = b;
    b2.deletion_vector = *dv;
    Commit(fs, {RemoveOf(b, kT0), b2});
    b = b2;
    dv_file = *AbsoluteDvPath(*dv, "/t");
    auto orphan = WriteDeletionVectorFile(fs, "/t", RowBitmap::Of({1}));
    ASSERT_TRUE(orphan.ok());
    orphan_dv = *AbsoluteDvPath(*orphan, "/t");
    for (const char* f :
         {"/t/orphan.parquet", "/t/_p=a/orphan2.parquet",
          "/t/_change_data/cdc-00000.snappy.parquet", "/t/_hidden/h.parquet", "/t/.hidden.parquet",
          "/t/_p=a/.part.crc", "/t/_SUCCESS", "/t/_delta_log/junk.txt",
          "/t/_delta_log/_sidecars/old.parquet", "/t/nested/deeper/stray.bin"}) {
      ASSERT_TRUE(fs.WriteFile(f, "some bytes").ok());
    }
  }
};

TEST(VacuumTest, DryRunListsWhatARealRunDeletes) {
  Table t;
  t.Build();
  std::set<std::string> before = AllFiles(t.fs, "/t");
  std::multiset<int64_t> ids = Ids(t.fs);
  EXPECT_EQ(ids, (std::multiset<int64_t>{4, 5, 6, 7, 8}));

  // An hour later everything is too young to go.
  auto young = Vacuum(t.fs, "/t", std::nullopt, /*dry_run=*/true, kT0 + kHour);
  ASSERT_TRUE(young.ok()) << young.status().ToString();
  EXPECT_TRUE(young->files.empty());
  EXPECT_EQ(young->retention_ms, 7 * kDay);

  // Eight days later: the removed file, the unreferenced DV file, and the orphans outside the
  // hidden folders (change data included).
  std::set<std::string> expected = {io::JoinPath("/t", *PercentDecode(t.a.path)),
                                    t.orphan_dv,
                                    "/t/orphan.parquet",
                                    "/t/_p=a/orphan2.parquet",
                                    "/t/_change_data/cdc-00000.snappy.parquet",
                                    "/t/nested/deeper/stray.bin"};
  auto dry = Vacuum(t.fs, "/t", std::nullopt, /*dry_run=*/true, kT0 + 8 * kDay);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_TRUE(dry->dry_run);
  EXPECT_EQ(Paths(*dry), expected);
  int64_t bytes = 0;
  for (const VacuumFile& f : dry->files) {
    bytes += f.size;
    EXPECT_EQ(f.modification_time_ms, kT0);
  }
  EXPECT_EQ(dry->bytes, bytes);
  EXPECT_EQ(AllFiles(t.fs, "/t"), before);  // nothing deleted

  auto real = Vacuum(t.fs, "/t", std::nullopt, /*dry_run=*/false, kT0 + 8 * kDay);
  ASSERT_TRUE(real.ok()) << real.status().ToString();
  EXPECT_FALSE(real->dry_run);
  EXPECT_EQ(Paths(*real), expected);
  EXPECT_EQ(real->bytes, dry->bytes);
  std::set<std::string> after = AllFiles(t.fs, "/t");
  for (const std::string& f : before) EXPECT_EQ(after.count(f), expected.count(f) ? 0u : 1u) << f;
  // The live files, the live DV and the log are there; the table reads as before.
  EXPECT_TRUE(after.count(io::JoinPath("/t", *PercentDecode(t.b.path))));
  EXPECT_TRUE(after.count(io::JoinPath("/t", *PercentDecode(t.c.path))));
  EXPECT_TRUE(after.count(t.dv_file));
  EXPECT_TRUE(after.count("/t/_delta_log/00000000000000000000.json"));
  EXPECT_EQ(Ids(t.fs), ids);

  auto again = Vacuum(t.fs, "/t", std::nullopt, /*dry_run=*/false, kT0 + 8 * kDay);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->files.empty());
}

TEST(VacuumTest, ZeroRetentionStillKeepsLiveAndLogFiles) {
  Table t;
  t.Build();
  auto result = Vacuum(t.fs, "/t", 0.0, /*dry_run=*/false, kT0 + 1);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->retention_ms, 0);
  EXPECT_EQ(result->files.size(), 6u);
  std::set<std::string> after = AllFiles(t.fs, "/t");
  auto snap = Snapshot::Load(t.fs, "/t");
  ASSERT_TRUE(snap.ok());
  for (const Add& a : (*snap)->files()) {
    EXPECT_TRUE(after.count(io::JoinPath("/t", *PercentDecode(a.path)))) << a.path;
  }
  for (const std::string& f : AllFiles(t.fs, "/t/_delta_log")) EXPECT_TRUE(after.count(f));
  for (const char* f :
       {"/t/_hidden/h.parquet", "/t/.hidden.parquet", "/t/_p=a/.part.crc", "/t/_SUCCESS",
        "/t/_delta_log/junk.txt", "/t/_delta_log/_sidecars/old.parquet"}) {
    EXPECT_TRUE(after.count(f)) << f;
  }
  EXPECT_TRUE(after.count(t.dv_file));
  EXPECT_EQ(Ids(t.fs), (std::multiset<int64_t>{4, 5, 6, 7, 8}));
}

TEST(VacuumTest, TombstonesWithinRetentionProtectOldFiles) {
  io::MemoryFileSystem fs;
  fs.SetNowMs(kT0 - 30 * kDay);  // the files are a month old
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  Add a = AppendOne(fs, Rows(0, 3, "a"));
  Add b = AppendOne(fs, Rows(3, 3, "a"));
  fs.SetNowMs(kT0);
  Commit(fs, {RemoveOf(a, kT0 - kDay), RemoveOf(b, kT0 - 10 * kDay)});
  std::string path_a = io::JoinPath("/t", *PercentDecode(a.path));
  std::string path_b = io::JoinPath("/t", *PercentDecode(b.path));
  // a was removed a day ago: within the week. b ten days ago: past it.
  auto week = Vacuum(fs, "/t", std::nullopt, true, kT0);
  ASSERT_TRUE(week.ok());
  EXPECT_EQ(Paths(*week), (std::set<std::string>{path_b}));
  // With 12 hours, both tombstones have expired.
  auto short_retention = Vacuum(fs, "/t", 12.0, true, kT0);
  ASSERT_TRUE(short_retention.ok());
  EXPECT_EQ(short_retention->retention_ms, 12 * kHour);
  EXPECT_EQ(Paths(*short_retention), (std::set<std::string>{path_a, path_b}));
  // Twelve days: neither.
  auto long_retention = Vacuum(fs, "/t", 24.0 * 12, true, kT0);
  ASSERT_TRUE(long_retention.ok());
  EXPECT_TRUE(long_retention->files.empty());
}

TEST(VacuumTest, RetentionFromTheTableProperty) {
  io::MemoryFileSystem fs;
  fs.SetNowMs(kT0);
  ASSERT_TRUE(
      CreateTable(fs, "/t", Spec({{"delta.deletedFileRetentionDuration", "interval 2 days"}}))
          .ok());
  ASSERT_TRUE(fs.WriteFile("/t/orphan.parquet", "x").ok());
  auto one_day = Vacuum(fs, "/t", std::nullopt, true, kT0 + kDay);
  ASSERT_TRUE(one_day.ok());
  EXPECT_EQ(one_day->retention_ms, 2 * kDay);
  EXPECT_TRUE(one_day->files.empty());
  auto three_days = Vacuum(fs, "/t", std::nullopt, true, kT0 + 3 * kDay);
  ASSERT_TRUE(three_days.ok());
  EXPECT_EQ(Paths(*three_days), (std::set<std::string>{"/t/orphan.parquet"}));

  io::MemoryFileSystem bad;
  ASSERT_TRUE(
      CreateTable(bad, "/t", Spec({{"delta.deletedFileRetentionDuration", "a while"}})).ok());
  auto refused = Vacuum(bad, "/t", std::nullopt, true, kT0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("delta.deletedFileRetentionDuration"),
            std::string::npos);
  EXPECT_TRUE(Vacuum(bad, "/t", 1.0, true, kT0).ok());  // an explicit retention needs no property
}

TEST(VacuumTest, RefusesBadRetentionsAndUnknownWriterFeatures) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
  for (double hours :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    auto r = Vacuum(fs, "/t", hours, true, kT0);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(Vacuum(fs, "/nowhere", std::nullopt, true, kT0).status().code(), StatusCode::kNotFound);

  io::MemoryFileSystem future;
  Transaction t(future, "/t", nullptr);
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{};
  p.writer_features = std::vector<std::string>{"appendOnly", "someFutureFeature"};
  t.Add(p);
  Metadata m;
  m.id = *NewUuid();
  m.schema_string = SchemaToJson(Spec().schema);
  t.Add(m);
  ASSERT_TRUE(t.Commit().ok());
  auto refused = Vacuum(future, "/t", std::nullopt, true, kT0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(refused.status().message().find("someFutureFeature"), std::string::npos);
}

TEST(VacuumTest, FailedDeleteStopsAndSaysHowFarItGot) {
  Table t;
  t.Build();
  t.fs.FailAfter(2);
  auto result = Vacuum(t.fs, "/t", 0.0, false, kT0 + 1);
  t.fs.ClearFailure();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("after deleting 2 of 6 files"), std::string::npos)
      << result.status().ToString();
  EXPECT_EQ(Ids(t.fs), (std::multiset<int64_t>{4, 5, 6, 7, 8}));
  auto rest = Vacuum(t.fs, "/t", 0.0, false, kT0 + 1);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->files.size(), 4u);
}

}  // namespace
}  // namespace cdclake::delta
