// SnapshotDiff and SortedRunBuilder: random snapshots diffed under budgets small enough to spill
// (and to merge in several passes) must give what a plain in-memory diff gives (SEMANTICS §7).
#include "sources/snapshot/snapshot_diff.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "data/value_format.h"
#include "io/memory_file_system.h"
#include "sources/snapshot/record_file_reader.h"
#include "sources/snapshot/record_file_writer.h"
#include "sources/snapshot/sorted_run_builder.h"
#include "sql/schema_ddl.h"

namespace cdclake::sources::snapshot {
namespace {

using data::DataType;
using data::Value;

// Rows keyed by (id, region); values v1 (string, may be NULL) and v2 (bigint, may be NULL).
using Key = std::pair<int64_t, std::string>;
using Row = std::vector<std::string>;  // v1, v2 as CSV fields ("" = NULL)
using Image = std::map<Key, Row>;

constexpr char kSchema[] = "id BIGINT, region STRING, v1 STRING, v2 BIGINT";

std::string Csv(const Image& image, std::mt19937_64& rng) {
  std::vector<std::string> lines;
  for (const auto& [k, r] : image) {
    lines.push_back(std::to_string(k.first) + "," + k.second + "," + r[0] + "," + r[1]);
  }
  std::shuffle(lines.begin(), lines.end(), rng);
  std::string out = "id,region,v1,v2\n";
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

Image RandomImage(std::mt19937_64& rng, const Image& previous, int max_id) {
  Image out;
  std::uniform_int_distribution<int> pct(0, 99);
  const std::vector<std::string> regions = {"eu", "us", "apac"};
  // Keep, change or drop the previous keys; add new ones.
  for (const auto& [k, r] : previous) {
    const int p = pct(rng);
    if (p < 15) continue;
    Row row = r;
    if (p < 40) row[0] = pct(rng) < 20 ? "" : "s" + std::to_string(pct(rng));
    if (p >= 35 && p < 45) row[1] = pct(rng) < 20 ? "" : std::to_string(pct(rng) - 50);
    out[k] = row;
  }
  std::uniform_int_distribution<int> id(0, max_id);
  const int adds = max_id / 4;
  for (int i = 0; i < adds; ++i) {
    Key k{id(rng), regions[pct(rng) % 3]};
    if (out.count(k)) continue;
    out[k] = {pct(rng) < 10 ? "" : "n" + std::to_string(pct(rng)),
              pct(rng) < 10 ? "" : std::to_string(pct(rng))};
  }
  return out;
}

struct Changes {
  Image upserts;
  std::set<Key> deletes;
};

// The plain diff.
Changes ModelDiff(const Image& before, const Image& after) {
  Changes c;
  for (const auto& [k, r] : after) {
    auto it = before.find(k);
    if (it == before.end() || it->second != r) c.upserts[k] = r;
  }
  for (const auto& [k, r] : before) {
    if (!after.count(k)) c.deletes.insert(k);
  }
  return c;
}

std::string Field(const data::Column& col, int64_t r) {
  if (col.IsNull(r)) return "";
  return data::FormatValueText(col.GetValue(r), *col.type());
}

struct DiffRun {
  Changes changes;
  SnapshotDiffCounts counts;
  int64_t batches = 0;
};

Result<DiffRun> RunDiff(io::FileSystem& fs, const std::string& file, int64_t version,
                        const std::string& previous_state, const std::string& new_state,
                        int64_t budget, int64_t batch_rows) {
  ChangeSourceOptions so;
  CDCLAKE_ASSIGN_OR_RETURN(so.schema, sql::ParseSchemaDdl(kSchema));
  so.batch_rows = 37;
  CDCLAKE_ASSIGN_OR_RETURN(auto source, OpenChangeSource(fs, file, SourceFormat::kCsv, so));
  SnapshotDiffOptions o;
  o.keys = {"id", "region"};
  o.version = Value::Int(version);
  o.version_type = DataType::Int64();
  o.version_text = std::to_string(version);
  o.previous_state = previous_state;
  o.new_state = new_state;
  o.spill_dir = "/spill";
  o.memory_budget_bytes = budget;
  o.batch_rows = batch_rows;
  CDCLAKE_ASSIGN_OR_RETURN(auto diff, SnapshotDiff::Open(fs, *source, o));
  DiffRun run;
  const data::Schema& s = diff->schema();
  EXPECT_EQ(s.num_fields(), 6u);
  EXPECT_EQ(s.field(4).name, kVersionColumn);
  EXPECT_EQ(s.field(5).name, kOperationColumn);
  std::string last_key;
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(auto batch, diff->Next());
    if (!batch) break;
    ++run.batches;
    const data::RecordBatch& rows = batch->rows;
    EXPECT_LE(rows.num_rows(), batch_rows);
    EXPECT_EQ(batch->positions.size(), static_cast<size_t>(rows.num_rows()));
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      Key k{rows.column(0).GetValue(r).int_value(), rows.column(1).GetValue(r).bytes()};
      EXPECT_EQ(rows.column(4).GetValue(r).int_value(), version);
      const std::string op = rows.column(5).GetValue(r).bytes();
      if (op == kDeleteOperation) {
        EXPECT_TRUE(rows.column(2).IsNull(r));
        EXPECT_TRUE(run.changes.deletes.insert(k).second) << "key deleted twice";
      } else {
        EXPECT_EQ(op, kUpsertOperation);
        EXPECT_GT(batch->positions[r].line, 1) << "upserts point at their CSV line";
        EXPECT_TRUE(
            run.changes.upserts.emplace(k, Row{Field(rows.column(2), r), Field(rows.column(3), r)})
                .second);
      }
    }
  }
  CDCLAKE_RETURN_IF_ERROR(diff->Finish());
  run.counts = diff->counts();
  return run;
}

// §7 over a chain of random snapshots: each diff against the state the one before wrote.
TEST(SnapshotDiffTest, RandomSnapshotsMatchAPlainDiffUnderSmallBudgets) {
  for (int64_t budget : {int64_t{4096}, int64_t{32} << 10, int64_t{64} << 20}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("budget " + std::to_string(budget) + " seed " + std::to_string(seed));
      io::MemoryFileSystem fs;
      std::mt19937_64 rng(seed);
      Image before;
      std::string previous_state;
      int64_t spilled = 0;
      for (int v = 1; v <= 5; ++v) {
        Image after = RandomImage(rng, before, v == 3 ? 40 : 2000);
        if (v == 4) after.clear();  // an empty snapshot deletes every key
        const std::string file = "/in/snap_" + std::to_string(v) + ".csv";
        ASSERT_TRUE(fs.WriteFile(file, Csv(after, rng)).ok());
        const std::string state = "/state/" + std::to_string(v) + ".bin";
        auto run = RunDiff(fs, file, v, previous_state, state, budget, 100);
        ASSERT_TRUE(run.ok()) << run.status().ToString();
        const Changes want = ModelDiff(before, after);
        EXPECT_EQ(run->changes.upserts, want.upserts) << "snapshot " << v;
        EXPECT_EQ(run->changes.deletes, want.deletes) << "snapshot " << v;
        const SnapshotDiffCounts& c = run->counts;
        EXPECT_EQ(c.rows, static_cast<int64_t>(after.size()));
        EXPECT_EQ(c.inserted + c.updated, static_cast<int64_t>(want.upserts.size()));
        EXPECT_EQ(c.deleted, static_cast<int64_t>(want.deletes.size()));
        EXPECT_EQ(c.inserted + c.updated + c.unchanged, c.rows);
        if (budget < (64 << 20)) {
          EXPECT_LE(c.peak_sort_bytes, budget);
        }
        spilled += c.spilled_runs;
        before = after;
        previous_state = state;
      }
      // No spill files are left behind.
      auto left = fs.List("/spill");
      if (left.ok()) {
        EXPECT_TRUE(left->empty());
      }
      if (budget == 4096) {
        EXPECT_GT(spilled, 20) << "the small budget spills (and merges in passes)";
      }
      if (budget == (int64_t{64} << 20)) {
        EXPECT_EQ(spilled, 0);
      }
    }
  }
}

TEST(SnapshotDiffTest, UnchangedSnapshotGivesNoChanges) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/a.csv", "id,region,v1,v2\n1,eu,x,1\n2,us,,\n").ok());
  ASSERT_TRUE(fs.WriteFile("/b.csv", "id,region,v1,v2\n2,us,,\n1,eu,x,1\n").ok());
  auto first = RunDiff(fs, "/a.csv", 1, "", "/s1", 4096, 10);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->changes.upserts.size(), 2u);
  auto second = RunDiff(fs, "/b.csv", 2, "/s1", "/s2", 4096, 10);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->changes.upserts.empty());
  EXPECT_TRUE(second->changes.deletes.empty());
  EXPECT_EQ(second->batches, 0);
  EXPECT_EQ(second->counts.unchanged, 2);
  auto info = ReadSnapshotStateInfo(fs, "/s2");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->version_text, "2");
  EXPECT_EQ(info->keys, (std::vector<std::string>{"id", "region"}));
  EXPECT_EQ(info->columns.num_fields(), 4u);
}

TEST(SnapshotDiffTest, DuplicateKeyIsAnErrorNamingKeyFileAndLines) {
  io::MemoryFileSystem fs;
  std::string csv = "id,region,v1,v2\n";
  for (int i = 0; i < 300; ++i) csv += std::to_string(i) + ",eu,a,1\n";
  csv += "17,eu,b,2\n";  // line 302
  ASSERT_TRUE(fs.WriteFile("/dup.csv", csv).ok());
  auto run = RunDiff(fs, "/dup.csv", 1, "", "/s", 4096, 10);
  ASSERT_FALSE(run.ok());
  const std::string m = run.status().message();
  EXPECT_NE(m.find("/dup.csv"), std::string::npos) << m;
  EXPECT_NE(m.find("id=17, region=eu"), std::string::npos) << m;
  EXPECT_NE(m.find("19 and 302"), std::string::npos) << m;
  auto exists = fs.Exists("/s");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists) << "no state is published for a failed snapshot";
}

TEST(SnapshotDiffTest, NullKeyAndRejectedLineFailTheSnapshot) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/null.csv", "id,region,v1,v2\n1,eu,a,1\n,eu,b,2\n").ok());
  auto run = RunDiff(fs, "/null.csv", 1, "", "/s", 4096, 10);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("line 3: NULL in key column id"), std::string::npos)
      << run.status().message();
  ASSERT_TRUE(fs.WriteFile("/bad.csv", "id,region,v1,v2\n1,eu,a,1\n2,eu,b,notanumber\n").ok());
  run = RunDiff(fs, "/bad.csv", 1, "", "/s", 4096, 10);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("line 3"), std::string::npos) << run.status().message();
  EXPECT_NE(run.status().message().find("read whole"), std::string::npos);
}

TEST(SnapshotDiffTest, KeptColumnsOnlyAndOtherColumnsIgnored) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/a.csv", "id,region,v1,v2\n1,eu,x,1\n").ok());
  ASSERT_TRUE(fs.WriteFile("/b.csv", "id,region,v1,v2\n1,eu,x,2\n").ok());
  ChangeSourceOptions so;
  so.schema = *sql::ParseSchemaDdl(kSchema);
  auto diff_of = [&](const std::string& file, const std::string& prev,
                     const std::string& next) -> Result<int64_t> {
    CDCLAKE_ASSIGN_OR_RETURN(auto source, OpenChangeSource(fs, file, SourceFormat::kCsv, so));
    SnapshotDiffOptions o;
    o.keys = {"id", "region"};
    o.keep_column = [](const std::string& c) { return c != "v2"; };
    o.version = Value::Int(1);
    o.version_type = DataType::Int64();
    o.previous_state = prev;
    o.new_state = next;
    o.spill_dir = "/spill";
    CDCLAKE_ASSIGN_OR_RETURN(auto diff, SnapshotDiff::Open(fs, *source, o));
    EXPECT_EQ(diff->schema().FieldIndex("v2"), -1);
    int64_t changes = 0;
    while (true) {
      CDCLAKE_ASSIGN_OR_RETURN(auto batch, diff->Next());
      if (!batch) break;
      changes += batch->rows.num_rows();
    }
    CDCLAKE_RETURN_IF_ERROR(diff->Finish());
    return changes;
  };
  auto first = diff_of("/a.csv", "", "/s1");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, 1);
  auto second = diff_of("/b.csv", "/s1", "/s2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, 0) << "a change in a column left out is no change";
}

TEST(SnapshotDiffTest, CorruptStateFileIsReported) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/a.csv", "id,region,v1,v2\n1,eu,x,1\n2,eu,y,2\n").ok());
  auto first = RunDiff(fs, "/a.csv", 1, "", "/s1", 4096, 10);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto bytes = fs.ReadFile("/s1");
  ASSERT_TRUE(bytes.ok());
  std::string torn = *bytes;
  torn[torn.size() - 20] ^= 0x40;  // inside the last block
  ASSERT_TRUE(fs.WriteFile("/s1", torn).ok());
  auto second = RunDiff(fs, "/a.csv", 2, "/s1", "/s2", 4096, 10);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kCorrupt) << second.status().ToString();
  ASSERT_TRUE(fs.WriteFile("/s1", bytes->substr(0, bytes->size() - 5)).ok());
  second = RunDiff(fs, "/a.csv", 2, "/s1", "/s2", 4096, 10);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kCorrupt) << second.status().ToString();
}

TEST(SnapshotDiffTest, KeyTypeChangeIsAnError) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/a.csv", "id,region,v1,v2\n1,eu,x,1\n").ok());
  auto first = RunDiff(fs, "/a.csv", 1, "", "/s1", 4096, 10);
  ASSERT_TRUE(first.ok());
  ChangeSourceOptions so;
  so.schema = *sql::ParseSchemaDdl("id STRING, region STRING, v1 STRING, v2 BIGINT");
  auto source = OpenChangeSource(fs, "/a.csv", SourceFormat::kCsv, so);
  ASSERT_TRUE(source.ok());
  SnapshotDiffOptions o;
  o.keys = {"id", "region"};
  o.version = Value::Int(2);
  o.version_type = DataType::Int64();
  o.previous_state = "/s1";
  o.new_state = "/s2";
  o.spill_dir = "/spill";
  auto diff = SnapshotDiff::Open(fs, **source, o);
  ASSERT_FALSE(diff.ok());
  EXPECT_NE(diff.status().message().find("key column id is string here but was bigint"),
            std::string::npos)
      << diff.status().message();
}

// The sorter alone: key order, equal keys in the order added, every record once.
TEST(SortedRunBuilderTest, SortsStablyAcrossSpilledRuns) {
  io::MemoryFileSystem fs;
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::string, int64_t>> want;
  {
    SortedRunBuilder builder(fs, "/runs", 4096);
    for (int64_t i = 0; i < 5000; ++i) {
      std::string key(1 + rng() % 6, 'a');
      for (char& c : key) c = static_cast<char>('a' + rng() % 4);
      std::string rest(rng() % 40, 'r');
      ASSERT_TRUE(builder.Add(key, rest, i).ok());
      want.push_back({key, i});
    }
    EXPECT_GT(builder.spilled_runs(), 10);
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    auto stream = builder.Finish();
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    Record r;
    size_t n = 0;
    while (true) {
      auto more = (*stream)->Next(&r);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      ASSERT_LT(n, want.size());
      EXPECT_EQ(r.key, want[n].first);
      EXPECT_EQ(r.line, want[n].second);
      ++n;
    }
    EXPECT_EQ(n, want.size());
  }
  auto left = fs.List("/runs");
  if (left.ok()) {
    EXPECT_TRUE(left->empty()) << left->size() << " run files left";
  }
}

TEST(RecordFileTest, RoundTripAndHeader) {
  io::MemoryFileSystem fs;
  auto w = RecordFileWriter::Open(fs, "/f", "hello", 64);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE((*w)->Add("k" + std::to_string(i), std::string(i, 'x'), i).ok());
  }
  ASSERT_FALSE(*fs.Exists("/f")) << "published only by Finish";
  ASSERT_TRUE((*w)->Finish().ok());
  auto r = RecordFileReader::Open(fs, "/f");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->header(), "hello");
  Record rec;
  for (int i = 0; i < 100; ++i) {
    auto more = (*r)->Next(&rec);
    ASSERT_TRUE(more.ok() && *more) << i;
    EXPECT_EQ(rec.key, "k" + std::to_string(i));
    EXPECT_EQ(rec.rest.size(), static_cast<size_t>(i));
    EXPECT_EQ(rec.line, i);
  }
  auto more = (*r)->Next(&rec);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

}  // namespace
}  // namespace cdclake::sources::snapshot
