// KafkaReader: the partitions of one or more Kafka topics read as change rows from the offsets a
// flow recorded (read_kafka). Partitions are assigned explicitly, never through a consumer
// group's rebalances; a bounded read ends at the high watermarks taken when it opened. The
// consumer group only hears of offsets after they are durable in the table, for lag tools.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sources/change_source.h"
#include "sources/kafka/kafka_position.h"

namespace cdclake::sources::kafka {

/// read_kafka(bootstrapServers => ..., subscribe | subscribePattern => ..., ...).
struct KafkaSpec {
  std::string bootstrap_servers;
  std::vector<std::string> topics;  // subscribe: a comma-separated list
  std::string topic_pattern;        // subscribePattern: a regular expression (whole name)
  std::string starting_offsets = "earliest";
  bool debezium = false;  // format => 'debezium'
  bool fail_on_data_loss = true;
  int64_t max_offsets_per_trigger = 0;  // messages per batch at most; 0: batch_rows
  /// kafka.<name> => value: passed to librdkafka (security, SASL, TLS, timeouts).
  std::map<std::string, std::string> kafka_options;
  /// format => 'debezium': the types of columns of values without a schema part.
  std::optional<data::Schema> schema;
  /// The consumer group offsets are committed to after each Delta commit (for lag tools only).
  std::string group_id = "cdclake";
  int64_t batch_rows = 100000;
  /// How long the brokers may take to answer metadata and offset requests.
  int64_t request_timeout_ms = 10000;
  /// How long a read may go without a message or an end of partition before it fails.
  int64_t stall_timeout_ms = 60000;
};

struct KafkaBatch {
  change::ChangeBatch rows;
  KafkaPosition end;       // every partition's next offset after this batch
  int64_t written_ms = 0;  // the newest message's timestamp
};

class KafkaReader {
 public:
  /// Connects, finds the partitions, checks `resume` against their offsets (PlanStart) and
  /// assigns them. Errors name the brokers and say what to do: no answer within
  /// request_timeout_ms, a topic that does not exist, offsets lost or from elsewhere.
  static Result<std::unique_ptr<KafkaReader>> Open(const KafkaSpec& spec,
                                                   const std::optional<KafkaPosition>& resume);
  virtual ~KafkaReader() = default;

  /// The next batch (at most max_offsets_per_trigger or batch_rows messages; a Debezium column
  /// appearing mid-way ends a batch), or nullopt once every partition is read up to where its
  /// high watermark was at Open.
  virtual Result<std::optional<KafkaBatch>> Next() = 0;
  /// `end` is durable in the table: commits it to the consumer group (asynchronously; for lag
  /// tools; the table's position is what a run resumes from). May run beside Next.
  virtual void Committed(const KafkaPosition& end) = 0;
  /// "kafka t[0]@12 [1]@7" or "kafka t from earliest".
  virtual std::string StartText() const = 0;
  virtual std::vector<std::string> Notices() const = 0;
  /// Once Next has returned nullopt: how many messages the partitions hold after the position
  /// reached, by the high watermarks the consumer last heard of: "0 messages behind the high
  /// watermarks" or "12 messages behind the high watermarks (t[0] 5, t[1] 7)".
  virtual std::string Lag() const = 0;
  /// Tombstones skipped and the Debezium reader's counts so far.
  virtual std::vector<SourceCount> Counts() const = 0;
};

}  // namespace cdclake::sources::kafka
