// SnapshotFlow on the AUTO CDC FROM SNAPSHOT documentation examples (testdata/autocdc-docs,
// SEMANTICS §7) and on the flow's state: reruns, old versions, snapshots that change nothing,
// lost state, and snapshots applied in several commits.
#include "pipeline/snapshot_flow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "base/strings.h"
#include "data/value_format.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "json/json.h"
#include "sql/schema_ddl.h"

namespace cdclake::pipeline {
namespace {

using Rows = std::vector<std::string>;  // CSV lines, sorted (a multiset)

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
    at = end + 1;
  }
  return out;
}

std::string ReadText(const std::string& path) {
  auto text = io::LocalFileSystem::Instance()->ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : "";
}

// expected*.csv: header, then the rows sorted.
std::pair<std::string, Rows> ExpectedCsv(const std::string& path) {
  std::vector<std::string> lines = Lines(ReadText(path));
  std::string header = lines.front();
  Rows rows(lines.begin() + 1, lines.end());
  std::sort(rows.begin(), rows.end());
  return {header, rows};
}

// The target's rows as CSV lines of `header`'s columns (NULL empty), sorted.
Result<Rows> TargetRows(io::FileSystem& fs, const std::string& target, const std::string& header) {
  std::vector<std::string> columns;
  for (std::string_view c : Split(header, ',')) columns.emplace_back(c);
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(target + "/_delta_log"));
  if (!exists) return Rows{};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, target));
  delta::ScanOptions options;
  options.columns = columns;
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs, *snapshot, options));
  Rows out;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    std::string line;
    for (size_t c = 0; c < rows.num_columns(); ++c) {
      if (c > 0) line += ",";
      if (!rows.column(c).IsNull(r)) {
        line += data::FormatValueText(rows.column(c).GetValue(r), *rows.column(c).type());
      }
    }
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<int64_t> TableVersion(io::FileSystem& fs, const std::string& target) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, target));
  return snapshot->version();
}

std::string Joined(const Rows& rows) {
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}

struct DocsSnapshots {
  json::Json params;
  std::string dir;
  std::vector<std::pair<std::string, std::string>> snapshots;  // (snapshot label, CSV text)
};

// input.csv split by its first column (snapshot / snapshot_version) into CSV texts.
DocsSnapshots LoadDocs(const std::string& name) {
  DocsSnapshots d;
  d.dir = std::string(CDCLAKE_SHARED_DIR) + "/testdata/autocdc-docs/" + name;
  auto params = json::Parse(ReadText(d.dir + "/params.json"));
  EXPECT_TRUE(params.ok());
  if (params.ok()) d.params = *params;
  std::vector<std::string> lines = Lines(ReadText(d.dir + "/input.csv"));
  const std::string header = lines.front().substr(lines.front().find(',') + 1);
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t comma = lines[i].find(',');
    const std::string label = lines[i].substr(0, comma);
    if (d.snapshots.empty() || d.snapshots.back().first != label) {
      d.snapshots.push_back({label, header + "\n"});
    }
    d.snapshots.back().second += lines[i].substr(comma + 1) + "\n";
  }
  return d;
}

apply::FlowDefinition DocsFlow(const DocsSnapshots& d, const std::string& target) {
  apply::FlowDefinition flow;
  flow.name = "docs";
  flow.target = target;
  for (const auto& k : d.params["keys"]) flow.keys.push_back(k.get<std::string>());
  flow.scd_type = d.params["stored_as_scd_type"].get<int>() == 2 ? apply::ScdType::kType2
                                                                 : apply::ScdType::kType1;
  return flow;
}

SnapshotFlowOptions DocsOptions() {
  SnapshotFlowOptions o;
  o.schema = *sql::ParseSchemaDdl("userId INT, city STRING");
  o.apply.clock = [] { return int64_t{1'700'000'000'000}; };
  return o;
}

void ExpectTable(io::FileSystem& fs, const std::string& target, const std::string& expected_csv) {
  auto [header, want] = ExpectedCsv(expected_csv);
  auto got = TargetRows(fs, target, header);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, want) << "target:\n"
                        << Joined(*got) << "expected (" << expected_csv << "):\n"
                        << Joined(want);
}

class DocsSnapshotTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DocsSnapshotTest, TableMatchesTheDocumentation) {
  const std::string name = GetParam();
  DocsSnapshots d = LoadDocs(name);
  ASSERT_EQ(d.snapshots.size(), 2u);
  auto scratch = io::ScratchDir::Create("cdclake-snapflow-");
  ASSERT_TRUE(scratch.ok());
  io::LocalFileSystem fs;
  const std::string target = scratch->path() + "/target";
  const apply::FlowDefinition flow = DocsFlow(d, target);
  const SnapshotFlowOptions options = DocsOptions();
  const bool periodic = name.find("periodic") != std::string::npos;
  const std::string after_1 = d.dir + "/expected_after_snapshot_1.csv";
  const bool has_after_1 = *fs.Exists(after_1);
  for (size_t i = 0; i < d.snapshots.size(); ++i) {
    SCOPED_TRACE("snapshot " + d.snapshots[i].first);
    Result<SnapshotRunResult> run = Status::Internal("not run");
    if (periodic) {
      // One file re-read each run; the docs print the runs' versions as 0 and 1.
      const std::string file = scratch->path() + "/users.csv";
      ASSERT_TRUE(fs.WriteFile(file, d.snapshots[i].second).ok());
      auto version = ParseSnapshotVersion(std::to_string(i));
      ASSERT_TRUE(version.ok());
      run = ApplyPeriodicSnapshot(fs, flow, file, *version, options);
    } else {
      const std::string dir = scratch->path() + "/snapshots";
      ASSERT_TRUE(
          fs.WriteFile(dir + "/snapshot_" + d.snapshots[i].first + ".csv", d.snapshots[i].second)
              .ok());
      run = ApplySnapshotFolder(fs, flow, dir, options);
    }
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    // Versioned: the folder holds every snapshot so far; only the new one applies.
    ASSERT_FALSE(run->snapshots.empty());
    EXPECT_TRUE(run->snapshots.back().applied);
    EXPECT_EQ(run->table_versions.size(), 1u);
    if (i == 0 && has_after_1) ExpectTable(fs, target, after_1);
  }
  ExpectTable(fs, target, d.dir + "/expected.csv");
}

INSTANTIATE_TEST_SUITE_P(AutoCdcDocs, DocsSnapshotTest,
                         ::testing::Values("snapshot-periodic-scd1", "snapshot-periodic-scd2",
                                           "snapshot-versioned-scd2"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// A small versioned SCD2 flow over files in a scratch folder.
class SnapshotStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = io::ScratchDir::Create("cdclake-snapstate-");
    ASSERT_TRUE(s.ok());
    scratch_ = std::make_unique<io::ScratchDir>(std::move(*s));
    dir_ = scratch_->path() + "/in";
    flow_.name = "users";
    flow_.target = scratch_->path() + "/t";
    flow_.keys = {"id"};
    flow_.scd_type = apply::ScdType::kType2;
    options_.schema = *sql::ParseSchemaDdl("id BIGINT, city STRING");
    options_.apply.clock = [] { return int64_t{1'700'000'000'000}; };
  }
  void Write(const std::string& name, const std::string& body) {
    ASSERT_TRUE(fs_.WriteFile(dir_ + "/" + name, "id,city\n" + body).ok());
  }
  Result<SnapshotRunResult> Run() { return ApplySnapshotFolder(fs_, flow_, dir_, options_); }
  Rows Table() {
    auto rows = TargetRows(fs_, flow_.target, "id,city,__START_AT,__END_AT");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : Rows{};
  }

  io::LocalFileSystem fs_;
  std::unique_ptr<io::ScratchDir> scratch_;
  std::string dir_;
  apply::FlowDefinition flow_;
  SnapshotFlowOptions options_;
};

TEST_F(SnapshotStateTest, RerunOldVersionsUnchangedSnapshotAndLostState) {
  Write("s_1.csv", "1,a\n2,b\n");
  Write("s_2.csv", "1,a\n2,c\n3,d\n");
  auto first = Run();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->table_versions.size(), 2u);
  const int64_t version_2 = first->table_versions.back();
  const Rows after_2 = {"1,a,1,", "2,b,1,2", "2,c,2,", "3,d,2,"};
  EXPECT_EQ(Table(), after_2);

  // A rerun writes nothing and says why each snapshot was skipped.
  auto rerun = Run();
  ASSERT_TRUE(rerun.ok()) << rerun.status().ToString();
  EXPECT_TRUE(rerun->table_versions.empty());
  ASSERT_EQ(rerun->snapshots.size(), 2u);
  for (const SnapshotOutcome& s : rerun->snapshots) {
    EXPECT_FALSE(s.applied);
    EXPECT_NE(s.reason.find("not above the last applied version (2)"), std::string::npos)
        << s.reason;
  }
  EXPECT_EQ(*TableVersion(fs_, flow_.target), version_2);

  // A late snapshot with an older version is skipped and reported.
  Write("s_0.csv", "9,z\n");
  auto late = Run();
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->snapshots.front().applied);
  EXPECT_EQ(late->snapshots.front().version.text, "0");
  EXPECT_EQ(Table(), after_2);

  // A snapshot equal to the last: no commit, yet it counts as applied on the next run.
  Write("s_3.csv", "3,d\n1,a\n2,c\n");
  auto same = Run();
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(same->table_versions.empty());
  EXPECT_TRUE(same->snapshots.back().applied);
  EXPECT_EQ(same->snapshots.back().diff.unchanged, 3);
  auto again = Run();
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->snapshots.back().applied) << "snapshot 3 was recorded as applied";
  EXPECT_EQ(again->last_applied->value, 3);

  // Snapshot 4 compares with 3's state: 1 gone, 3 changed, 4 new.
  Write("s_4.csv", "2,c\n3,e\n4,f\n");
  auto fourth = Run();
  ASSERT_TRUE(fourth.ok()) << fourth.status().ToString();
  ASSERT_EQ(fourth->table_versions.size(), 1u);
  const SnapshotOutcome& o = fourth->snapshots.back();
  EXPECT_EQ(o.diff.inserted, 1);
  EXPECT_EQ(o.diff.updated, 1);
  EXPECT_EQ(o.diff.deleted, 1);
  EXPECT_EQ(o.diff.unchanged, 1);
  const Rows after_4 = {"1,a,1,4", "2,b,1,2", "2,c,2,", "3,d,2,4", "3,e,4,", "4,f,4,"};
  EXPECT_EQ(Table(), after_4);

  // The snapshot state lost: a rerun with nothing new changes nothing; a new snapshot is
  // compared with the target's current rows.
  ASSERT_TRUE(fs_.Exists(flow_.target + "/_cdclake/snapshot/state-4.bin").ok());
  EXPECT_TRUE(*fs_.Exists(flow_.target + "/_cdclake/snapshot/state-4.bin"));
  EXPECT_FALSE(*fs_.Exists(flow_.target + "/_cdclake/snapshot/state-2.bin"))
      << "old states are removed";
  std::string dropped = scratch_->path() + "/dropped";
  ASSERT_TRUE(fs_.Rename(flow_.target + "/_cdclake/snapshot", dropped).ok());
  auto lost = Run();
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_TRUE(lost->table_versions.empty());
  Write("s_5.csv", "2,c\n4,g\n");
  auto fifth = Run();
  ASSERT_TRUE(fifth.ok()) << fifth.status().ToString();
  EXPECT_TRUE(fifth->state_rebuilt);
  EXPECT_EQ(fifth->snapshots.back().diff.deleted, 1);    // 3
  EXPECT_EQ(fifth->snapshots.back().diff.updated, 1);    // 4
  EXPECT_EQ(fifth->snapshots.back().diff.unchanged, 1);  // 2
  EXPECT_EQ(Table(),
            (Rows{"1,a,1,4", "2,b,1,2", "2,c,2,", "3,d,2,4", "3,e,4,5", "4,f,4,5", "4,g,5,"}));
}

TEST_F(SnapshotStateTest, DatesAsVersionsAndVersionKindsDoNotMix) {
  Write("2024-01-02.csv", "1,a\n");
  Write("2024-01-03.csv", "1,b\n");
  auto run = Run();
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(Table(), (Rows{"1,a,2024-01-02,2024-01-03", "1,b,2024-01-03,"}));
  Write("s_7.csv", "1,c\n");
  auto mixed = Run();
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("different kinds"), std::string::npos)
      << mixed.status().message();
}

TEST(SnapshotVersionTest, Parses) {
  auto n = ParseSnapshotVersion("42");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->kind, SnapshotVersion::Kind::kNumber);
  EXPECT_EQ(n->value, 42);
  auto d = ParseSnapshotVersion("1970-01-02");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, SnapshotVersion::Kind::kDate);
  EXPECT_EQ(d->value, 1);
  auto t = ParseSnapshotVersion("1970-01-01T00-00-01.5Z");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->kind, SnapshotVersion::Kind::kTimestamp);
  EXPECT_EQ(t->value, 1'500'000);
  EXPECT_FALSE(ParseSnapshotVersion("v1").ok());
  EXPECT_FALSE(ParseSnapshotVersion("2024-13-01").ok());
}

// Random snapshots, a small sort budget and small commits: the SCD1 target always equals the
// last snapshot, and the SCD2 target's open versions do too.
TEST(SnapshotFlowRandomTest, TargetEqualsLastSnapshot) {
  for (int scd : {1, 2}) {
    SCOPED_TRACE("SCD" + std::to_string(scd));
    auto scratch = io::ScratchDir::Create("cdclake-snaprand-");
    ASSERT_TRUE(scratch.ok());
    io::LocalFileSystem fs;
    apply::FlowDefinition flow;
    flow.target = scratch->path() + "/t";
    flow.keys = {"id"};
    flow.scd_type = scd == 2 ? apply::ScdType::kType2 : apply::ScdType::kType1;
    SnapshotFlowOptions options;
    options.schema = *sql::ParseSchemaDdl("id BIGINT, v STRING");
    options.memory_budget_bytes = 8 << 10;
    options.commit_rows = 50;
    options.apply.persistent_index = false;
    std::mt19937_64 rng(scd);
    std::map<int64_t, std::string> image;
    for (int v = 1; v <= 4; ++v) {
      for (int i = 0; i < 300; ++i) {
        const int64_t id = static_cast<int64_t>(rng() % 600);
        if (rng() % 3 == 0) {
          image.erase(id);
        } else {
          image[id] = "x" + std::to_string(rng() % 5);
        }
      }
      std::string csv = "id,v\n";
      for (const auto& [id, val] : image) csv += std::to_string(id) + "," + val + "\n";
      ASSERT_TRUE(
          fs.WriteFile(scratch->path() + "/in/snap_" + std::to_string(v) + ".csv", csv).ok());
      auto run = ApplySnapshotFolder(fs, flow, scratch->path() + "/in", options);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      EXPECT_GT(run->table_versions.size(), 1u) << "more changes than commit_rows: several commits";
      EXPECT_GT(run->snapshots.back().diff.spilled_runs, 0);
      Rows want;
      for (const auto& [id, val] : image) want.push_back(std::to_string(id) + "," + val);
      std::sort(want.begin(), want.end());
      auto got = TargetRows(fs, flow.target, scd == 2 ? "id,v,__END_AT" : "id,v");
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      Rows current;
      for (const std::string& r : *got) {
        if (scd == 1) {
          current.push_back(r);
        } else if (r.back() == ',') {
          current.push_back(r.substr(0, r.size() - 1));
        }
      }
      std::sort(current.begin(), current.end());
      EXPECT_EQ(current, want) << "after snapshot " << v;
    }
  }
}

}  // namespace
}  // namespace cdclake::pipeline
