// Tests for table checks: a sound table with a deletion vector passes; a missing file, a wrong
// size, a torn footer, bad stats and corrupt or oversized deletion vectors are each reported.
#include "delta/table_check.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;

TableSpec Spec() {
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64()}, {"day", DataType::String()}});
  spec.partition_columns = {"day"};
  spec.properties = {{"delta.enableDeletionVectors", "true"}};
  return spec;
}

data::RecordBatch Rows(int64_t from, int64_t n) {
  data::RecordBatch b(Spec().schema);
  for (int64_t i = from; i < from + n; ++i) {
    b.AppendRow({Value::Int(i), Value::Bytes(i % 2 ? "odd" : "even")});
  }
  return b;
}

Status Commit(io::FileSystem& fs, const std::vector<Action>& actions) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snap, Snapshot::Load(fs, "/t"));
  Transaction t(fs, "/t", snap);
  for (const Action& a : actions) t.Add(a);
  return t.Commit().status();
}

Remove RemoveOf(const Add& a) {
  Remove r;
  r.path = a.path;
  r.deletion_timestamp = NowMillis();
  r.deletion_vector = a.deletion_vector;
  return r;
}

// Four files of 5 rows (two partitions, two appends); the first gets a deletion vector.
struct Table {
  io::MemoryFileSystem fs;
  std::vector<Add> files;

  void Build() {
    ASSERT_TRUE(CreateTable(fs, "/t", Spec()).ok());
    ASSERT_TRUE(AppendRows(fs, "/t", Rows(0, 10)).ok());
    ASSERT_TRUE(AppendRows(fs, "/t", Rows(10, 10)).ok());
    Reload();
    ASSERT_EQ(files.size(), 4u);
    auto dv = WriteDeletionVectorFile(fs, "/t", RowBitmap::Of({1, 4}));
    ASSERT_TRUE(dv.ok());
    Add with_dv = files[0];
    with_dv.deletion_vector = *dv;
    ASSERT_TRUE(Commit(fs, {RemoveOf(files[0]), with_dv}).ok());
    Reload();
  }

  void Reload() {
    auto snap = Snapshot::Load(fs, "/t");
    ASSERT_TRUE(snap.ok());
    files = (*snap)->files();
  }

  std::string PathOf(const Add& a) const { return io::JoinPath("/t", *PercentDecode(a.path)); }

  const Add& WithDv() const {
    for (const Add& a : files) {
      if (a.deletion_vector) return a;
    }
    return files[0];
  }
};

CheckReport MustCheck(const io::FileSystem& fs) {
  auto report = CheckTable(fs, "/t");
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? *report : CheckReport{};
}

// The single problem of `report`, expected to name `path` and contain `words`.
void ExpectOneProblem(const CheckReport& report, const std::string& path,
                      const std::string& words) {
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].path, path);
  EXPECT_NE(report.problems[0].message.find(words), std::string::npos)
      << report.problems[0].message;
}

TEST(TableCheckTest, ASoundTablePasses) {
  Table t;
  t.Build();
  CheckReport report = MustCheck(t.fs);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.version, 3);
  EXPECT_EQ(report.files_checked, 4);
  EXPECT_EQ(report.deletion_vectors_checked, 1);
}

TEST(TableCheckTest, MissingFile) {
  Table t;
  t.Build();
  const Add& victim = t.files[1];
  ASSERT_TRUE(t.fs.Delete(t.PathOf(victim)).ok());
  CheckReport report = MustCheck(t.fs);
  ExpectOneProblem(report, victim.path, "missing");
  EXPECT_EQ(report.files_checked, 4);
}

TEST(TableCheckTest, WrongSizeAndTornFooter) {
  Table t;
  t.Build();
  const Add& grown = t.files[1];
  auto bytes = t.fs.ReadFile(t.PathOf(grown));
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(t.fs.WriteFile(t.PathOf(grown), *bytes + "extra").ok());
  CheckReport report = MustCheck(t.fs);
  ASSERT_FALSE(report.problems.empty());  // the footer no longer sits at the end either
  EXPECT_EQ(report.problems[0].path, grown.path);
  EXPECT_NE(report.problems[0].message.find("size is " + std::to_string(grown.size + 5) +
                                            " bytes, the log says " + std::to_string(grown.size)),
            std::string::npos)
      << report.problems[0].message;

  // Same size, but the footer is gone.
  std::string torn = *bytes;
  for (size_t i = torn.size() - 8; i < torn.size(); ++i) torn[i] = 'x';
  ASSERT_TRUE(t.fs.WriteFile(t.PathOf(grown), torn).ok());
  ExpectOneProblem(MustCheck(t.fs), grown.path, "Parquet footer does not open");
}

TEST(TableCheckTest, CorruptDeletionVector) {
  Table t;
  t.Build();
  const Add& a = t.WithDv();
  ASSERT_TRUE(a.deletion_vector.has_value());
  auto dv_path = AbsoluteDvPath(*a.deletion_vector, "/t");
  ASSERT_TRUE(dv_path.ok());
  auto bytes = t.fs.ReadFile(*dv_path);
  ASSERT_TRUE(bytes.ok());
  std::string flipped = *bytes;
  flipped[flipped.size() / 2] ^= 0x5A;
  ASSERT_TRUE(t.fs.WriteFile(*dv_path, flipped).ok());
  ExpectOneProblem(MustCheck(t.fs), a.path, "deletion vector");

  ASSERT_TRUE(t.fs.Delete(*dv_path).ok());
  ExpectOneProblem(MustCheck(t.fs), a.path, "deletion vector");
}

TEST(TableCheckTest, DeletionVectorPastTheEndOfItsFile) {
  Table t;
  t.Build();
  const Add& target = t.files[2];  // 5 rows: 0..4
  auto dv = WriteDeletionVectorFile(t.fs, "/t", RowBitmap::Of({2, 5}));
  ASSERT_TRUE(dv.ok());
  Add with_dv = target;
  with_dv.deletion_vector = *dv;
  ASSERT_TRUE(Commit(t.fs, {RemoveOf(target), with_dv}).ok());
  ExpectOneProblem(MustCheck(t.fs), target.path, "deletes row 5 of a file with 5 rows");

  // An inline DV whose descriptor claims the wrong cardinality.
  Add inline_dv = target;
  inline_dv.deletion_vector = InlineDeletionVector(RowBitmap::Of({0}));
  inline_dv.deletion_vector->cardinality = 3;
  ASSERT_TRUE(Commit(t.fs, {RemoveOf(with_dv), inline_dv}).ok());
  ExpectOneProblem(MustCheck(t.fs), target.path, "deletion vector");
}

TEST(TableCheckTest, BadStatsAndMissingPartitionValues) {
  Table t;
  t.Build();
  Add bad = t.files[2];
  bad.stats = "{\"numRecords\": oops";
  bad.data_change = false;
  ASSERT_TRUE(Commit(t.fs, {bad}).ok());  // re-adding the same key refreshes its metadata
  ExpectOneProblem(MustCheck(t.fs), bad.path, "stats do not parse");

  Add wrong_count = t.files[2];
  wrong_count.stats = "{\"numRecords\":7}";
  wrong_count.data_change = false;
  ASSERT_TRUE(Commit(t.fs, {wrong_count}).ok());
  ExpectOneProblem(MustCheck(t.fs), bad.path, "stats say 7 records, the file has 5");

  Add no_partition = t.files[2];
  no_partition.partition_values.clear();
  no_partition.data_change = false;
  ASSERT_TRUE(Commit(t.fs, {no_partition}).ok());
  ExpectOneProblem(MustCheck(t.fs), bad.path, "no partition value for column 'day'");
}

TEST(TableCheckTest, RealTablesPass) {
  // Every table of the conformance set checks clean, except the two that ship only their log.
  const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  const std::map<std::string, std::string> log_only = {
      {"golden-checkpoint", "15"},
      {"rs-with_checkpoint_no_last_checkpoint",
       "part-00000-70b1dcdf-0236-4f63-a072-124cdbafd8a0-c000.snappy.parquet"}};
  auto& fs = *io::LocalFileSystem::Instance();
  auto tables = fs.List(root);
  ASSERT_TRUE(tables.ok());
  int checked = 0;
  for (const io::FileInfo& t : *tables) {
    if (!t.is_directory) continue;
    std::string name = t.path.substr(t.path.rfind('/') + 1);
    std::string table = *fs.Exists(t.path + "/delta/_delta_log") ? t.path + "/delta" : t.path;
    if (!*fs.Exists(table + "/_delta_log")) continue;
    SCOPED_TRACE(name);
    auto report = CheckTable(fs, table);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ++checked;
    auto missing = log_only.find(name);
    if (missing == log_only.end()) {
      EXPECT_TRUE(report->ok()) << report->problems[0].path << ": " << report->problems[0].message;
    } else {
      ExpectOneProblem(*report, missing->second, "missing");
    }
  }
  EXPECT_GE(checked, 35);
}

TEST(TableCheckTest, NotATable) {
  io::MemoryFileSystem fs;
  EXPECT_EQ(CheckTable(fs, "/t").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace cdclake::delta
