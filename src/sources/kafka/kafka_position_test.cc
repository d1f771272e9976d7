// KafkaPosition and PlanStart: the position's JSON round trip and every start rule, including
// those the mock cluster cannot show (added partitions, offsets with gaps, other clusters).
#include "sources/kafka/kafka_position.h"

#include <gtest/gtest.h>

namespace cdclake::sources::kafka {
namespace {

PartitionOffsets At(const std::string& topic, int32_t p, int64_t low, int64_t high) {
  return PartitionOffsets{{topic, p}, low, high};
}

KafkaPosition Recorded(std::map<TopicPartition, int64_t> next, std::string cluster = "c1") {
  KafkaPosition p;
  p.cluster = std::move(cluster);
  p.next = std::move(next);
  return p;
}

TEST(KafkaPosition, JsonRoundTrip) {
  KafkaPosition p = Recorded({{{"a", 0}, 12}, {{"a", 1}, 0}, {{"b.c", 10}, 7}});
  json::Json j = p.ToJson();
  EXPECT_EQ(json::Dump(j),
            R"({"kafka":{"cluster":"c1","topics":{"a":{"0":12,"1":0},"b.c":{"10":7}}}})");
  auto back = KafkaPosition::FromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ(**back, p);
  EXPECT_EQ(p.ToString(), "a[0]@12 [1]@0 b.c[10]@7");
}

TEST(KafkaPosition, OtherSourcesAndDamage) {
  auto other = KafkaPosition::FromJson(json::Json{{"postgres", "x"}});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
  for (const char* bad :
       {R"({"kafka":{}})", R"({"kafka":{"topics":{"a":{"x":1}}}})",
        R"({"kafka":{"topics":{"a":{"0":-1}}}})", R"({"kafka":{"topics":{"a":{"0":"1"}}}})"}) {
    auto parsed = KafkaPosition::FromJson(*json::Parse(bad));
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kCorrupt) << bad;
    }
  }
}

TEST(StartingOffsets, Forms) {
  EXPECT_FALSE(StartingOffsets::Parse("earliest")->latest);
  EXPECT_TRUE(StartingOffsets::Parse("latest")->latest);
  auto j = StartingOffsets::Parse(R"({"t": {"0": 23, "1": -2}})");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((j->explicit_offsets.at({"t", 0})), 23);
  EXPECT_EQ((j->explicit_offsets.at({"t", 1})), -2);
  EXPECT_FALSE(StartingOffsets::Parse("newest").ok());
  EXPECT_FALSE(StartingOffsets::Parse(R"({"t": {"0": -3}})").ok());
}

TEST(PlanStart, FirstRunFollowsStartingOffsets) {
  std::vector<PartitionOffsets> parts = {At("t", 0, 5, 10), At("t", 1, 0, 3)};
  auto earliest = PlanStart(std::nullopt, "c1", parts, StartingOffsets{}, true);
  ASSERT_TRUE(earliest.ok());
  EXPECT_EQ((earliest->offsets.at({"t", 0})), 5);
  EXPECT_EQ((earliest->offsets.at({"t", 1})), 0);
  auto latest = PlanStart(std::nullopt, "c1", parts, *StartingOffsets::Parse("latest"), true);
  EXPECT_EQ((latest->offsets.at({"t", 0})), 10);
  auto named = PlanStart(std::nullopt, "c1", parts,
                         *StartingOffsets::Parse(R"({"t": {"0": 7, "1": -1}})"), true);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ((named->offsets.at({"t", 0})), 7);
  EXPECT_EQ((named->offsets.at({"t", 1})), 3);
  auto outside =
      PlanStart(std::nullopt, "c1", parts, *StartingOffsets::Parse(R"({"t": {"0": 2}})"), true);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("outside the partition's offsets 5 to 10"),
            std::string::npos);
}

TEST(PlanStart, ResumesFromTheRecordedOffsetsWhateverTheGaps) {
  // Offsets with gaps (transaction markers, compaction): the recorded next offset is used as
  // it is, never recomputed from a count of messages.
  auto plan =
      PlanStart(Recorded({{{"t", 0}, 17}, {{"t", 1}, 3}}), "c1",
                {At("t", 0, 0, 40), At("t", 1, 3, 3)}, *StartingOffsets::Parse("latest"), true);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ((plan->offsets.at({"t", 0})), 17);
  EXPECT_EQ((plan->offsets.at({"t", 1})), 3);
  EXPECT_TRUE(plan->notices.empty());
}

TEST(PlanStart, OffsetsLostToRetention) {
  auto recorded = Recorded({{{"t", 0}, 4}});
  auto fail = PlanStart(recorded, "c1", {At("t", 0, 41, 120)}, StartingOffsets{}, true);
  ASSERT_FALSE(fail.ok());
  EXPECT_NE(fail.status().message().find("topic 't' partition 0: the flow's next offset 4 is "
                                         "below the partition's log start offset 41"),
            std::string::npos)
      << fail.status().message();
  EXPECT_NE(fail.status().message().find("failOnDataLoss => 'false'"), std::string::npos);
  auto go_on = PlanStart(recorded, "c1", {At("t", 0, 41, 120)}, StartingOffsets{}, false);
  ASSERT_TRUE(go_on.ok());
  EXPECT_EQ((go_on->offsets.at({"t", 0})), 41);
  EXPECT_EQ(go_on->lost_offsets, 37);
  ASSERT_EQ(go_on->notices.size(), 1u);
  EXPECT_NE(go_on->notices[0].find("offsets 4 to 40 were deleted"), std::string::npos);
}

TEST(PlanStart, OffsetAboveTheHighWatermarkFailsEvenWithoutFailOnDataLoss) {
  for (bool fail_on_loss : {true, false}) {
    auto plan = PlanStart(Recorded({{{"t", 2}, 90}}), "c1", {At("t", 2, 0, 12)}, StartingOffsets{},
                          fail_on_loss);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.status().message().find("next offset 90 is above the partition's high "
                                           "watermark 12"),
              std::string::npos);
    EXPECT_NE(plan.status().message().find("--full-refresh"), std::string::npos);
  }
}

TEST(PlanStart, AnotherClusterFails) {
  auto plan = PlanStart(Recorded({{{"t", 0}, 1}}, "cluster-a"), "cluster-b", {At("t", 0, 0, 5)},
                        StartingOffsets{}, true);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("recorded on Kafka cluster 'cluster-a'"),
            std::string::npos);
}

TEST(PlanStart, AddedPartitionsStartAtTheirBeginning) {
  // The mock cannot add partitions: the rule is tested here. Partition 1 is new; a first run
  // with startingOffsets latest would have skipped it, a resumed flow must not.
  auto plan = PlanStart(Recorded({{{"t", 0}, 9}}), "c1", {At("t", 0, 0, 9), At("t", 1, 0, 4)},
                        *StartingOffsets::Parse("latest"), true);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ((plan->offsets.at({"t", 1})), 0);
  ASSERT_EQ(plan->notices.size(), 1u);
  EXPECT_NE(plan->notices[0].find("partition 1 is new to the flow"), std::string::npos);
  // Added, but its first offsets are gone already.
  auto lost = PlanStart(Recorded({{{"t", 0}, 9}}), "c1", {At("t", 0, 0, 9), At("t", 1, 6, 8)},
                        StartingOffsets{}, true);
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.status().message().find("log start offset is 6, not 0"), std::string::npos);
  auto tolerated = PlanStart(Recorded({{{"t", 0}, 9}}), "c1", {At("t", 0, 0, 9), At("t", 1, 6, 8)},
                             StartingOffsets{}, false);
  ASSERT_TRUE(tolerated.ok());
  EXPECT_EQ((tolerated->offsets.at({"t", 1})), 6);
  EXPECT_EQ(tolerated->lost_offsets, 6);
}

}  // namespace
}  // namespace cdclake::sources::kafka
