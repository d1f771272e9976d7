// KafkaPosition: how far a flow has read its Kafka topics (the next offset of every partition),
// recorded with each Delta commit; and PlanStart, which checks a recorded position against the
// partitions' offsets now and says where each partition is read from (KAFKA-SOURCE.md,
// "Offsets / exactly-once protocol").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "json/json.h"

namespace cdclake::sources::kafka {

/// A topic's partition.
using TopicPartition = std::pair<std::string, int32_t>;

struct KafkaPosition {
  /// The cluster id the offsets belong to (empty when the brokers gave none).
  std::string cluster;
  /// Every partition read so far: the next offset to read (the last one consumed plus one; not
  /// the count of messages: offsets have gaps). Always the whole map, so any one commit is
  /// enough to resume from.
  std::map<TopicPartition, int64_t> next;

  /// {"kafka": {"cluster": "...", "topics": {"t": {"0": 12, "1": 7}}}}.
  json::Json ToJson() const;
  /// kCorrupt naming what is wrong; nullopt for a position of another kind of source.
  static Result<std::optional<KafkaPosition>> FromJson(const json::Json& value);
  /// "t[0]@12 t[1]@7" (one topic: "t[0]@12 [1]@7").
  std::string ToString() const;
  bool operator==(const KafkaPosition&) const = default;
};

/// "topic[3]": a partition in messages and lists.
std::string PartitionText(const TopicPartition& tp);

/// What the brokers say of a partition now.
struct PartitionOffsets {
  TopicPartition partition;
  int64_t low = 0;   // the log start offset (older ones were deleted by retention)
  int64_t high = 0;  // the high watermark: the offset the next message gets
};

/// Where a flow without a recorded position starts: `startingOffsets` as Databricks spells it.
struct StartingOffsets {
  bool latest = false;  // "latest": at the high watermark; "earliest": at the log start
  /// The JSON form {"topic": {"0": 23, "1": -2}}: an offset, or -2 earliest, -1 latest, per
  /// partition; partitions it does not name start as `latest` says.
  std::map<TopicPartition, int64_t> explicit_offsets;

  /// "earliest", "latest" or the JSON form; kInvalidArgument otherwise.
  static Result<StartingOffsets> Parse(const std::string& text);
};

struct StartPlan {
  std::map<TopicPartition, int64_t> offsets;  // every partition of `partitions`
  /// Offsets that retention deleted before the flow read them (only with failOnDataLoss off).
  int64_t lost_offsets = 0;
  std::vector<std::string> notices;  // for the user: lost offsets, partitions added
};

/// Where each of `partitions` is read from.
/// - No recorded position: `starting` says.
/// - A recorded offset below the partition's log start: data lost to retention; an error naming
///   topic, partition and both offsets, or with `fail_on_data_loss` off, the log start and a
///   notice of how many offsets were lost.
/// - A recorded offset above the high watermark (the topic was recreated, or these are other
///   brokers): an error, whatever `fail_on_data_loss` says.
/// - A partition the recorded position lacks (added to the topic, or a new topic of a pattern):
///   from its start, which must be offset 0 unless `fail_on_data_loss` is off.
/// - A recorded cluster id other than `cluster`: an error.
Result<StartPlan> PlanStart(const std::optional<KafkaPosition>& recorded,
                            const std::string& cluster,
                            const std::vector<PartitionOffsets>& partitions,
                            const StartingOffsets& starting, bool fail_on_data_loss);

}  // namespace cdclake::sources::kafka
