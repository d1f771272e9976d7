// KeyStory: a key's rows, index state and horizon, and its bronze events replayed with the
// engine's decisions (SEMANTICS §2-§4, §6) and table versions, over real pipeline runs; the index
// read without writing, also while a writer holds it.
#include "pipeline/key_story.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "apply/index_log.h"
#include "apply/key_index.h"
#include "io/local_file_system.h"
#include "pipeline/pipeline_runner.h"
#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {
namespace {

constexpr int64_t kStartMs = 1'700'000'000'000;

class KeyStoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("cdclake_key_story_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ + "/land");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::string Lake() const { return root_ + "/lake"; }

  // A bronze table of the CSV files in land/ and an AUTO CDC flow from it into shop.t (its
  // clauses after FROM given), with the target's properties.
  void Define(const std::string& flow_clauses, const std::string& properties = "") {
    sql_ = "CREATE OR REFRESH STREAMING TABLE shop.bronze AS SELECT * FROM STREAM(read_files('" +
           root_ +
           "/land/*.csv', format => 'csv', schema => 'id BIGINT, seq BIGINT, op STRING, name "
           "STRING'));\nCREATE OR REFRESH STREAMING TABLE shop.t" +
           (properties.empty() ? "" : " TBLPROPERTIES (" + properties + ")") +
           ";\nCREATE FLOW f AS AUTO CDC INTO shop.t FROM STREAM(shop.bronze) KEYS (id) " +
           flow_clauses + ";\n";
    auto ast = sql::ParsePipeline(sql_);
    ASSERT_TRUE(ast.ok()) << ast.status().ToString();
    auto plan = PlanPipeline(*ast, Warehouse(Lake()));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    plan_ = std::move(*plan);
  }

  // Lands a CSV file (rows after the header) and runs the pipeline once at `now_ms`.
  void Run(const std::string& file, const std::string& rows, int64_t now_ms = kStartMs) {
    ASSERT_TRUE(fs_.WriteFile(root_ + "/land/" + file, "id,seq,op,name\n" + rows).ok());
    PipelineRunOptions options;
    options.clock_ms = [now_ms] { return now_ms; };
    PipelineRunSummary summary = RunPipeline(fs_, plan_, Warehouse(Lake()), options);
    for (const FlowSummary& f : summary.flows) {
      ASSERT_TRUE(f.status.ok()) << f.flow << ": " << f.status.ToString();
    }
  }

  KeyStory Story(const std::string& key, bool with_plan = true) {
    KeyStoryOptions options;
    options.table = "shop.t";
    options.warehouse = Lake();
    auto parsed = ParseKeyText(key);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (parsed.ok()) options.key = *parsed;
    options.plan = with_plan ? &plan_ : nullptr;
    auto story = TellKeyStory(fs_, options);
    EXPECT_TRUE(story.ok()) << story.status().ToString();
    return story.ok() ? std::move(*story) : KeyStory();
  }

  // "sequence op bronze-version decision target-version" per event.
  static std::vector<std::string> Lines(const KeyStory& story) {
    std::vector<std::string> out;
    for (const KeyEvent& e : story.events) {
      out.push_back(e.sequence + " " + e.op + " v" + std::to_string(e.bronze_version) + " " +
                    std::string(DecisionName(e.decision)) + " " +
                    (e.target_version ? "v" + std::to_string(*e.target_version) : "-"));
    }
    return out;
  }

  io::LocalFileSystem& fs_ = *io::LocalFileSystem::Instance();
  std::string root_;
  std::string sql_;
  PipelinePlan plan_;
};

constexpr const char* kScd1 =
    "APPLY AS DELETE WHEN op = 'd' APPLY AS TRUNCATE WHEN op = 't' SEQUENCE BY seq "
    "COLUMNS * EXCEPT (op, seq, _source_file, _source_offset, _ingested_at) STORED AS SCD TYPE 1";

TEST(ParseKeyTextTest, ColumnsAndValues) {
  auto one = ParseKeyText("id=42");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<std::pair<std::string, std::string>>{{"id", "42"}}));
  auto two = ParseKeyText("a=1, b=x=y");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x=y"}}));
  EXPECT_EQ(ParseKeyText("id").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseKeyText("=3").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseKeyText("a=1,a=2").status().code(), StatusCode::kInvalidArgument);
}

// §2 (a tie of two upserts: the larger values win), §3 (order), and a truncate reaching events
// at or below it in its own batch.
TEST_F(KeyStoryTest, EachEventsDecisionAndVersion) {
  Define(kScd1);
  Run("1.csv", "1,10,c,a\n1,20,u,b\n2,10,c,x\n");  // bronze v1, target v1 (v0 created it)
  Run("2.csv", "1,20,u,c\n");                      // "c" > "b": wins the tie, target v2
  Run("3.csv", ",25,t,\n1,22,u,d\n1,30,u,e\n");    // truncate at 25, target v3
  KeyStory story = Story("id=1");
  EXPECT_EQ(story.version, 3);
  EXPECT_EQ(story.flow, "f");
  EXPECT_EQ(story.bronze, "shop.bronze");
  EXPECT_EQ(Lines(story), (std::vector<std::string>{
                              "10 upsert v1 applied v1",
                              "20 upsert v1 applied v1",
                              "20 upsert v2 applied v2",
                              "22 upsert v3 discarded by truncate v3",
                              "30 upsert v3 applied v3",
                          }));
  ASSERT_EQ(story.events.size(), 5u);
  EXPECT_NE(story.events[2].detail.find("won a tie"), std::string::npos);
  EXPECT_NE(story.events[3].detail.find("truncate at 25"), std::string::npos);
  EXPECT_TRUE(story.notes.empty()) << story.notes[0];
  // The row, and the index's state of it.
  ASSERT_EQ(story.rows.num_rows(), 1);
  EXPECT_EQ(story.rows.column(1).GetValue(0), data::Value::Bytes("e"));
  ASSERT_TRUE(story.index.available) << story.index.problem;
  ASSERT_EQ(story.index.events.size(), 1u);
  EXPECT_EQ(story.index.events[0].sequence, "30");
  EXPECT_EQ(story.index.events[0].kind, "upsert");
  EXPECT_FALSE(story.index.tombstone);
  ASSERT_EQ(story.index.locations.size(), 1u);
  EXPECT_TRUE(fs_.Exists(story.table + "/" + story.index.locations[0].file).ValueOr(false));
  ASSERT_TRUE(story.horizon.truncate.has_value());
  EXPECT_EQ(*story.horizon.truncate, "25");
  // Key 2's row went with the truncate; its insert is applied, the key has no state left.
  KeyStory two = Story("id=2");
  EXPECT_EQ(two.rows.num_rows(), 0);
  EXPECT_TRUE(two.index.events.empty());
  EXPECT_EQ(Lines(two), (std::vector<std::string>{"10 upsert v1 applied v1"}));
}

// §6: a tombstone purged after its threshold raises the horizon; a later event at or below it
// for the key is quarantined under cdclake.lateEventPolicy = 'quarantine'.
TEST_F(KeyStoryTest, PurgedTombstoneAndALateEvent) {
  Define(kScd1,
         "'pipelines.cdc.tombstoneGCThresholdInSeconds' = '10', "
         "'cdclake.lateEventPolicy' = 'quarantine'");
  Run("1.csv", "5,10,c,a\n5,20,d,\n", kStartMs);              // bronze v1, target v1
  Run("2.csv", "6,1,c,b\n", kStartMs + 60'000);               // purges 5's tombstone: v2
  Run("3.csv", "5,15,u,late\n6,2,u,c\n", kStartMs + 61'000);  // v3 (key 6)
  KeyStory story = Story("id=5");
  EXPECT_EQ(Lines(story), (std::vector<std::string>{
                              "10 upsert v1 applied v1",
                              "15 upsert v3 quarantined -",
                              "20 delete v1 applied v1",
                          }));
  ASSERT_EQ(story.events.size(), 3u);
  EXPECT_NE(story.events[1].detail.find("late event"), std::string::npos) << story.events[1].detail;
  EXPECT_TRUE(story.events[1].quarantine_version.has_value());
  ASSERT_EQ(story.notes.size(), 1u);
  EXPECT_NE(story.notes[0].find("version 2: the key's tombstone (the delete at 20) expired"),
            std::string::npos)
      << story.notes[0];
  ASSERT_TRUE(story.horizon.purge_horizon.has_value());
  EXPECT_EQ(*story.horizon.purge_horizon, "20");
  EXPECT_TRUE(story.horizon.late_events_quarantined);
  EXPECT_EQ(story.horizon.tombstone_seconds, 10);
  EXPECT_TRUE(story.index.available);
  EXPECT_TRUE(story.index.events.empty());
}

// A tombstone not yet purged: its expiry is its delete's processing time plus the threshold.
TEST_F(KeyStoryTest, TombstoneExpiry) {
  Define(kScd1, "'pipelines.cdc.tombstoneGCThresholdInSeconds' = '3600'");
  Run("1.csv", "5,10,c,a\n5,20,d,\n", kStartMs);
  KeyStory story = Story("id=5");
  ASSERT_EQ(story.index.events.size(), 1u);
  EXPECT_TRUE(story.index.tombstone);
  EXPECT_EQ(story.index.events[0].processed_ms, kStartMs);
  EXPECT_EQ(story.index.events[0].expires_ms, kStartMs + 3'600'000);
  EXPECT_TRUE(story.index.locations.empty());
  EXPECT_EQ(story.rows.num_rows(), 0);
}

// §4: every version of the key, by __START_AT; a late event in a later batch is applied inside
// the history.
TEST_F(KeyStoryTest, Scd2RowsAndALateEvent) {
  Define(
      "APPLY AS DELETE WHEN op = 'd' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq, _source_file, "
      "_source_offset, _ingested_at) STORED AS SCD TYPE 2");
  Run("1.csv", "1,10,c,a\n1,20,u,b\n");
  Run("2.csv", "1,15,u,x\n");
  KeyStory story = Story("id=1");
  EXPECT_EQ(story.scd_type, 2);
  ASSERT_EQ(story.rows.num_rows(), 3);
  const int start = story.rows.schema().FieldIndex("__START_AT");
  ASSERT_GE(start, 0);
  EXPECT_EQ(story.rows.column(start).GetValue(0), data::Value::Int(10));
  EXPECT_EQ(story.rows.column(start).GetValue(1), data::Value::Int(15));
  EXPECT_EQ(story.rows.column(start).GetValue(2), data::Value::Int(20));
  EXPECT_EQ(Lines(story), (std::vector<std::string>{
                              "10 upsert v1 applied v1",
                              "15 upsert v2 applied v2",
                              "20 upsert v1 applied v1",
                          }));
  EXPECT_NE(story.events[1].detail.find("late"), std::string::npos);
  EXPECT_EQ(story.index.events.size(), 3u);
  EXPECT_EQ(story.index.locations.size(), 3u);
  EXPECT_TRUE(story.notes.empty()) << story.notes[0];
}

// A long SCD2 history whose first events are archived in chunks of the index (default tail: the
// last 4 events and those of the latest batch stay in the key's entry): the story holds every
// event, from the RocksDB index and from the index log, and the replay agrees with the engine.
TEST_F(KeyStoryTest, Scd2ArchivedHistoryIsReadWhole) {
  Define(
      "APPLY AS DELETE WHEN op = 'd' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq, _source_file, "
      "_source_offset, _ingested_at) STORED AS SCD TYPE 2");
  std::string first;
  for (int seq = 10; seq <= 120; seq += 10) {
    first += "1," + std::to_string(seq) + ",u,n" + std::to_string(seq) + "\n";
  }
  Run("1.csv", first);
  Run("2.csv", "1,130,u,n130\n");  // events 10-90 go to a chunk
  Run("3.csv", "1,95,u,n95\n");    // late, after the archived ones
  const std::string index_dir = apply::IndexDir(Lake() + "/shop/t");
  {
    auto index = apply::OpenRocksKeyIndex(index_dir);
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    int chunks = 0;
    ASSERT_TRUE((*index)
                    ->Scan("h",
                           [&](std::string_view, std::string_view) {
                             ++chunks;
                             return true;
                           })
                    .ok());
    EXPECT_EQ(chunks, 1);
  }
  for (bool from_log : {false, true}) {
    if (from_log) std::filesystem::remove_all(index_dir);
    KeyStory story = Story("id=1");
    ASSERT_TRUE(story.index.available) << story.index.problem;
    EXPECT_EQ(story.rows.num_rows(), 14);
    ASSERT_EQ(story.index.events.size(), 14u);
    EXPECT_EQ(story.index.events.front().sequence, "10");
    EXPECT_EQ(story.index.events[9].sequence, "95");
    EXPECT_EQ(story.index.locations.size(), 14u);
    ASSERT_EQ(story.events.size(), 14u);
    for (const KeyEvent& e : story.events)
      EXPECT_EQ(e.decision, EventDecision::kApplied) << e.sequence;
    EXPECT_TRUE(story.notes.empty()) << story.notes[0];
  }
}

// The index is read without its lock (a running flow keeps it) and without writing; when its
// folder is gone, from the index log, saying so.
TEST_F(KeyStoryTest, ReadsTheIndexWithoutDisturbingIt) {
  Define(kScd1);
  Run("1.csv", "1,10,c,a\n");
  const std::string index_dir = apply::IndexDir(Lake() + "/shop/t");
  {
    auto writer = apply::OpenRocksKeyIndex(index_dir);  // holds the LOCK, as a run does
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    KeyStory story = Story("id=1", /*with_plan=*/false);
    ASSERT_TRUE(story.index.available) << story.index.problem;
    EXPECT_NE(story.index.source.find("read only"), std::string::npos) << story.index.source;
    ASSERT_EQ(story.index.events.size(), 1u);
    EXPECT_NE(story.events_note.find("no pipeline"), std::string::npos);
  }
  std::filesystem::remove_all(index_dir);
  KeyStory story = Story("id=1");
  ASSERT_TRUE(story.index.available);
  EXPECT_NE(story.index.problem.find("missing"), std::string::npos) << story.index.problem;
  ASSERT_EQ(story.index.events.size(), 1u);
  EXPECT_EQ(story.index.events[0].sequence, "10");
  EXPECT_FALSE(std::filesystem::exists(index_dir));
}

TEST_F(KeyStoryTest, RefusesWhatIsNotAKeyOfACdclakeTable) {
  Define(kScd1);
  Run("1.csv", "1,10,c,a\n");
  KeyStoryOptions options;
  options.warehouse = Lake();
  options.table = "shop.t";
  options.key = {{"name", "a"}};
  EXPECT_EQ(TellKeyStory(fs_, options).status().code(), StatusCode::kInvalidArgument);
  options.key = {{"id", "one"}};
  EXPECT_EQ(TellKeyStory(fs_, options).status().code(), StatusCode::kInvalidArgument);
  options.key = {{"id", "1"}};
  options.table = "shop.bronze";  // appended by an ingest flow: no cdclake.keys
  EXPECT_EQ(TellKeyStory(fs_, options).status().code(), StatusCode::kInvalidArgument);
  options.table = "shop.nothing";
  EXPECT_EQ(TellKeyStory(fs_, options).status().code(), StatusCode::kNotFound);
  // The text and JSON forms name each section.
  options.table = Lake() + "/shop/t";
  auto story = TellKeyStory(fs_, options);
  ASSERT_TRUE(story.ok()) << story.status().ToString();
  const std::string text = KeyStoryText(*story);
  for (const char* section : {"\nrow\n", "\nindex\n", "\nhorizon\n", "\nevents"}) {
    EXPECT_NE(text.find(section), std::string::npos) << section << " in " << text;
  }
  auto parsed = json::Parse(KeyStoryJson(*story));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ((*parsed)["key"]["id"], "1");
  EXPECT_EQ((*parsed)["rows"].size(), 1u);
}

}  // namespace
}  // namespace cdclake::pipeline
