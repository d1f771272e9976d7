// KafkaReader against librdkafka's mock cluster (real sockets on loopback, in this process):
// Debezium over three partitions with duplicates, tombstones, a key change and a truncate;
// resuming from a position; bounded reads; read_kafka's own columns; bad values; faults the
// mock can make (fetch errors, a broker down, retention); errors that must come quickly.
#include "sources/kafka/kafka_reader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "sources/kafka/testing/mock_cluster.h"

namespace cdclake::sources::kafka {
namespace {

using testing::MockCluster;

const std::string kTopic = "shop.public.customers";

std::string Event(const std::string& op, int id, const std::string& name, int64_t lsn) {
  const std::string row = "{\"id\":" + std::to_string(id) + ",\"name\":\"" + name + "\"}";
  const bool del = op == "d";
  return "{\"before\":" + (del ? row : "null") + ",\"after\":" + (del ? "null" : row) +
         ",\"source\":{\"connector\":\"postgresql\",\"db\":\"shop\",\"schema\":\"public\","
         "\"table\":\"customers\",\"ts_ms\":5,\"lsn\":" +
         std::to_string(lsn) + "},\"op\":\"" + op + "\",\"ts_ms\":9}";
}
std::string Key(int id) {
  return "{\"id\":" + std::to_string(id) + "}";
}

KafkaSpec Spec(const MockCluster& cluster, int64_t batch_rows = 1000) {
  KafkaSpec spec;
  spec.bootstrap_servers = cluster.bootstrap();
  spec.topics = {kTopic};
  spec.debezium = true;
  spec.batch_rows = batch_rows;
  spec.request_timeout_ms = 5000;
  spec.stall_timeout_ms = 20000;
  spec.group_id = "cdclake-test";
  return spec;
}

// Every batch until the end; the last batch's position in `end`.
std::vector<KafkaBatch> ReadAll(KafkaReader& reader) {
  std::vector<KafkaBatch> out;
  for (;;) {
    auto batch = reader.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) return out;
    out.push_back(std::move(**batch));
  }
}

struct Row {
  std::string op;
  std::optional<int64_t> id;
  int32_t partition;
  int64_t offset;
};

std::vector<Row> Rows(const std::vector<KafkaBatch>& batches) {
  std::vector<Row> rows;
  for (const KafkaBatch& b : batches) {
    const data::RecordBatch& r = b.rows.rows;
    if (r.num_rows() == 0) continue;
    const auto& s = r.schema();
    auto column = [&](const std::string& name) -> const data::Column* {
      const int at = s.FieldIndex(name);
      return at < 0 ? nullptr : &r.column(static_cast<size_t>(at));
    };
    // A batch of truncates only has no table column: its rows have no id.
    const data::Column* id = column("id");
    const data::Column* op = column("_op");
    const data::Column* part = column("_kafka_partition");
    const data::Column* off = column("_kafka_offset");
    if (op == nullptr || part == nullptr || off == nullptr) {
      ADD_FAILURE() << "columns missing: " << s.ToString();
      continue;
    }
    EXPECT_EQ(s.FieldIndex("_kafka_topic"), static_cast<int>(s.num_fields()) - 4);
    for (int64_t i = 0; i < r.num_rows(); ++i) {
      Row row{std::string(op->StringAt(i)), std::nullopt, part->ValueAt<int32_t>(i),
              off->ValueAt<int64_t>(i)};
      if (id != nullptr && id->IsValid(i)) row.id = id->IntegerAt(i);
      rows.push_back(row);
      EXPECT_EQ(b.rows.positions[static_cast<size_t>(i)].file,
                kTopic + "/" + std::to_string(row.partition));
      EXPECT_EQ(b.rows.positions[static_cast<size_t>(i)].byte_offset, row.offset);
    }
  }
  return rows;
}

int64_t Count(const KafkaReader& reader, const std::string& label) {
  for (const SourceCount& c : reader.Counts()) {
    if (c.label == label) return c.value;
  }
  return -1;
}

// The stream of the acceptance test: keys over three partitions (key id % 3), a duplicate, a
// delete with its tombstone, a primary-key change (delete, tombstone, create with Debezium's
// headers) and a truncate.
int ProduceStream(MockCluster& cluster) {
  cluster.CreateTopic(kTopic, 3);
  int messages = 0;
  auto put = [&](int partition, std::optional<std::string> key, std::optional<std::string> value,
                 std::vector<std::pair<std::string, std::string>> headers = {}) {
    cluster.Produce(kTopic, partition, key, value, headers);
    ++messages;
  };
  int64_t lsn = 100;
  for (int id = 1; id <= 9; ++id)
    put(id % 3, Key(id), Event("c", id, "n" + std::to_string(id), lsn++));
  put(1, Key(4), Event("u", 4, "four", lsn));
  put(1, Key(4), Event("u", 4, "four", lsn++));  // the same event twice (Debezium's retry)
  put(2, Key(5), Event("d", 5, "n5", lsn++));
  put(2, Key(5), std::nullopt);  // its tombstone
  // Key 7 becomes 10: delete, tombstone, create.
  put(1, Key(7), Event("d", 7, "n7", lsn), {{"__debezium.newkey", Key(10)}});
  put(1, Key(7), std::nullopt);
  put(1, Key(10), Event("c", 10, "n7", lsn++), {{"__debezium.oldkey", Key(7)}});
  put(0, std::nullopt,
      "{\"before\":null,\"after\":null,\"source\":{\"connector\":\"postgresql\",\"db\":\"shop\","
      "\"schema\":\"public\",\"table\":\"customers\",\"ts_ms\":5,\"lsn\":" +
          std::to_string(lsn++) + "},\"op\":\"t\",\"ts_ms\":9}");
  return messages;
}

TEST(KafkaReader, DebeziumOverThreePartitionsEachMessageOnce) {
  MockCluster cluster;
  const int messages = ProduceStream(cluster);
  auto reader = KafkaReader::Open(Spec(cluster, 4), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  std::vector<Row> rows = Rows(batches);
  EXPECT_EQ(rows.size(), static_cast<size_t>(messages - 2));  // two tombstones skipped
  EXPECT_EQ(Count(**reader, "Kafka tombstones skipped"), 2);
  std::set<std::pair<int32_t, int64_t>> seen;
  std::map<std::string, int> ops;
  for (const Row& r : rows) {
    EXPECT_TRUE(seen.insert({r.partition, r.offset}).second) << r.partition << "@" << r.offset;
    ++ops[r.op];
    if (r.op != "t") {
      ASSERT_TRUE(r.id.has_value());
      EXPECT_EQ(r.partition, *r.id == 10 ? 1 : *r.id % 3);
    }
  }
  EXPECT_EQ(ops["c"], 10);
  EXPECT_EQ(ops["u"], 2);
  EXPECT_EQ(ops["d"], 2);
  EXPECT_EQ(ops["t"], 1);
  // Batches of at most 4 messages; the last position is every partition's end.
  EXPECT_GE(batches.size(), 5u);
  const KafkaPosition& end = batches.back().end;
  EXPECT_EQ((end.next.at({kTopic, 0})), 4);  // ids 3, 6, 9 and the truncate
  EXPECT_EQ((end.next.at({kTopic, 1})), 8);
  EXPECT_EQ((end.next.at({kTopic, 2})), 5);
  EXPECT_FALSE(end.cluster.empty());
  EXPECT_EQ((*reader)->Lag(), "0 messages behind the high watermarks");
  // Positions only grow, batch by batch.
  for (size_t i = 1; i < batches.size(); ++i) {
    for (const auto& [tp, at] : batches[i].end.next) {
      EXPECT_GE(at, batches[i - 1].end.next.at(tp));
    }
  }
}

TEST(KafkaReader, ResumesAfterARecordedPositionWithoutRepeatingOrSkipping) {
  MockCluster cluster;
  const int messages = ProduceStream(cluster);
  std::set<std::pair<int32_t, int64_t>> seen;
  std::optional<KafkaPosition> position;
  int opens = 0;
  for (;; ++opens) {
    ASSERT_LT(opens, 40);
    auto reader = KafkaReader::Open(Spec(cluster, 3), position);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto batch = (*reader)->Next();  // one batch per run, as a killed run would leave it
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    for (const Row& r : Rows({**batch})) {
      EXPECT_TRUE(seen.insert({r.partition, r.offset}).second) << r.partition << "@" << r.offset;
    }
    // The position goes through its JSON form, as the table keeps it.
    auto json_back = KafkaPosition::FromJson((*batch)->end.ToJson());
    ASSERT_TRUE(json_back.ok());
    position = **json_back;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(messages - 2));
}

TEST(KafkaReader, ReadsUpToTheHighWatermarksTakenAtOpen) {
  MockCluster cluster;
  cluster.CreateTopic(kTopic, 1);
  cluster.Produce(kTopic, 0, Key(1), Event("c", 1, "a", 1));
  auto reader = KafkaReader::Open(Spec(cluster), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  cluster.Produce(kTopic, 0, Key(2), Event("c", 2, "b", 2));  // after the open
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  ASSERT_EQ(Rows(batches).size(), 1u);
  EXPECT_EQ((batches.back().end.next.at({kTopic, 0})), 1);
  auto again = KafkaReader::Open(Spec(cluster), batches.back().end);
  ASSERT_TRUE(again.ok());
  std::vector<Row> next = Rows(ReadAll(**again));
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].id, 2);
}

TEST(KafkaReader, RawColumnsWithoutAFormat) {
  MockCluster cluster;
  cluster.CreateTopic("raw", 2);
  cluster.Produce("raw", 1, std::string("k\0y", 3), std::string("v"), {{"h1", "x"}, {"h2", ""}});
  cluster.Produce("raw", 0, std::nullopt, std::nullopt);
  KafkaSpec spec = Spec(cluster);
  spec.topics = {"raw"};
  spec.debezium = false;
  auto reader = KafkaReader::Open(spec, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  ASSERT_EQ(batches.size(), 1u);
  const data::RecordBatch& rows = batches[0].rows.rows;
  ASSERT_EQ(rows.num_rows(), 2);
  EXPECT_EQ(rows.schema().ToString(),
            "key binary\nvalue binary\ntopic string\npartition int\noffset bigint\ntimestamp "
            "timestamp\ntimestampType int\nheaders array<struct<key:string,value:binary>>\n");
  for (int64_t i = 0; i < 2; ++i) {
    const bool keyed = rows.column(3).ValueAt<int32_t>(i) == 1;
    EXPECT_EQ(rows.column(2).StringAt(i), "raw");
    EXPECT_EQ(rows.column(4).ValueAt<int64_t>(i), 0);
    EXPECT_TRUE(rows.column(5).IsValid(i));  // the producer's create time
    EXPECT_EQ(rows.column(6).ValueAt<int32_t>(i), 1);
    if (keyed) {
      EXPECT_EQ(rows.column(0).StringAt(i), std::string("k\0y", 3));
      EXPECT_EQ(rows.column(1).StringAt(i), "v");
      // The only row with headers: its two entries are the list's whole child.
      const data::Column& entries = rows.column(7).child(0);
      ASSERT_EQ(entries.length(), 2);
      EXPECT_EQ(entries.child(0).StringAt(0), "h1");
      EXPECT_EQ(entries.child(1).StringAt(0), "x");
      EXPECT_EQ(entries.child(0).StringAt(1), "h2");
      EXPECT_EQ(entries.child(1).StringAt(1), "");
    } else {
      EXPECT_TRUE(rows.column(0).IsNull(i));
      EXPECT_TRUE(rows.column(1).IsNull(i));
    }
  }
}

TEST(KafkaReader, APatternFindsTopicsCreatedLaterAndReadsThemFromTheirStart) {
  MockCluster cluster;
  cluster.CreateTopic("shop.public.a", 1);
  cluster.CreateTopic("other.public.b", 1);
  cluster.Produce("shop.public.a", 0, Key(1), Event("c", 1, "a", 1));
  cluster.Produce("other.public.b", 0, Key(2), Event("c", 2, "b", 2));
  KafkaSpec spec = Spec(cluster);
  spec.topics.clear();
  spec.topic_pattern = "shop\\.public\\..*";
  auto first = KafkaReader::Open(spec, std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::vector<KafkaBatch> batches = ReadAll(**first);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].rows.rows.num_rows(), 1);  // not other.public.b
  KafkaPosition position = batches.back().end;
  EXPECT_EQ(position.ToString(), "shop.public.a[0]@1");
  // A table added upstream: its topic appears and the next run reads it whole.
  cluster.CreateTopic("shop.public.c", 2);
  cluster.Produce("shop.public.c", 1, Key(3), Event("c", 3, "c", 3));
  auto second = KafkaReader::Open(spec, position);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  std::vector<std::string> notices = (*second)->Notices();
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_NE(notices[0].find("topic 'shop.public.c' partition 0 is new to the flow"),
            std::string::npos);
  batches = ReadAll(**second);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].rows.positions[0].file, "shop.public.c/1");
  EXPECT_EQ(batches.back().end.ToString(), "shop.public.a[0]@1 shop.public.c[0]@0 [1]@1");
}

TEST(KafkaReader, ValueThatIsNotJsonIsRejectedWithItsOffsetAndReadingGoesOn) {
  MockCluster cluster;
  cluster.CreateTopic(kTopic, 1);
  cluster.Produce(kTopic, 0, Key(1), Event("c", 1, "a", 1));
  cluster.Produce(kTopic, 0, Key(2), std::string("not json\nat all"));
  cluster.Produce(kTopic, 0, Key(3), Event("c", 3, "c", 3));
  auto reader = KafkaReader::Open(Spec(cluster), std::nullopt);
  ASSERT_TRUE(reader.ok());
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].rows.rows.num_rows(), 2);
  ASSERT_EQ(batches[0].rows.rejected.size(), 1u);
  const change::RejectedRecord& bad = batches[0].rows.rejected[0];
  EXPECT_EQ(bad.position.file, kTopic + "/0");
  EXPECT_EQ(bad.position.byte_offset, 1);
  EXPECT_EQ(bad.reason.rfind("topic '" + kTopic + "' partition 0 offset 1: ", 0), 0u) << bad.reason;
  EXPECT_NE(bad.raw.find("not json"), std::string::npos);
}

TEST(KafkaReader, WrongBrokerAddressFailsWithinSeconds) {
  KafkaSpec spec;
  spec.bootstrap_servers = "127.0.0.1:1";
  spec.topics = {"t"};
  spec.request_timeout_ms = 2000;
  const auto start = std::chrono::steady_clock::now();
  auto reader = KafkaReader::Open(spec, std::nullopt);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("cannot reach Kafka brokers '127.0.0.1:1' within 2 s"),
            std::string::npos)
      << reader.status().message();
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(KafkaReader, TopicThatDoesNotExist) {
  MockCluster cluster;
  cluster.CreateTopic("other", 1);
  auto reader = KafkaReader::Open(Spec(cluster), std::nullopt);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kNotFound);
  EXPECT_NE(reader.status().message().find("topic '" + kTopic + "' does not exist"),
            std::string::npos)
      << reader.status().message();
}

TEST(KafkaReader, RefusesLibrdkafkaSettingsThatMoveOffsetsBehindTheTable) {
  MockCluster cluster;
  KafkaSpec spec = Spec(cluster);
  spec.kafka_options["enable.auto.commit"] = "true";
  auto reader = KafkaReader::Open(spec, std::nullopt);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("kafka.enable.auto.commit cannot be set"),
            std::string::npos);
  spec.kafka_options = {{"no.such.property", "1"}};
  reader = KafkaReader::Open(spec, std::nullopt);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("Kafka option 'no.such.property'"), std::string::npos);
}

TEST(KafkaReader, FetchErrorsAndABrokerDownAreRetried) {
  MockCluster cluster;
  const int messages = ProduceStream(cluster);
  // Fetch (API key 1) fails three times, then a broker is down for a second.
  rd_kafka_mock_push_request_errors(
      cluster.cluster(), 1, 3, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
      RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT);
  auto reader = KafkaReader::Open(Spec(cluster, 2), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  rd_kafka_mock_broker_set_down(cluster.cluster(), 1);
  std::thread up([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    rd_kafka_mock_broker_set_up(cluster.cluster(), 1);
  });
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  up.join();
  std::set<std::pair<int32_t, int64_t>> seen;
  for (const Row& r : Rows(batches)) seen.insert({r.partition, r.offset});
  EXPECT_EQ(seen.size(), static_cast<size_t>(messages - 2));
}

TEST(KafkaReader, ALeaderDownAtOpenIsAnErrorWithinTheTimeoutNotAHang) {
  // librdkafka 2.0.2's rd_kafka_query_watermark_offsets waits for a leader that is down however
  // short its timeout (fixed in 2.3.0): the reader must not use it.
  MockCluster cluster;
  cluster.CreateTopic(kTopic, 3);
  for (int p = 0; p < 3; ++p) {
    ASSERT_EQ(rd_kafka_mock_partition_set_leader(cluster.cluster(), kTopic.c_str(), p, p + 1),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  cluster.Produce(kTopic, 1, Key(1), Event("c", 1, "a", 1));
  rd_kafka_mock_broker_set_down(cluster.cluster(), 2);  // partition 1's leader
  KafkaSpec spec = Spec(cluster);
  spec.request_timeout_ms = 2000;
  const auto start = std::chrono::steady_clock::now();
  auto reader = KafkaReader::Open(spec, std::nullopt);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(15));
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("gave no offsets for "), std::string::npos)
      << reader.status().ToString();
  EXPECT_NE(reader.status().message().find(" within 2 s"), std::string::npos);
  rd_kafka_mock_broker_set_up(cluster.cluster(), 2);
}

TEST(KafkaReader, ClosingWithTheBrokersDownDoesNotHang) {
  // A group commit no coordinator answers held librdkafka's close for its session timeout
  // (45 s by default): now 2 s for the answer, then the 3 s cdclake sets.
  MockCluster cluster;
  ProduceStream(cluster);
  auto reader = KafkaReader::Open(Spec(cluster), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  ASSERT_FALSE(batches.empty());
  for (int b = 1; b <= 3; ++b) rd_kafka_mock_broker_set_down(cluster.cluster(), b);
  const auto start = std::chrono::steady_clock::now();
  (*reader)->Committed(batches.back().end);  // the group's commit cannot reach a coordinator
  EXPECT_NE((*reader)->Lag(), "");
  reader->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  for (int b = 1; b <= 3; ++b) rd_kafka_mock_broker_set_up(cluster.cluster(), b);
}

TEST(KafkaReader, OffsetsDeletedByRetention) {
  // The mock keeps at most 5 MiB per partition: 120 values of 64 KiB move the log start.
  MockCluster cluster;
  cluster.CreateTopic(kTopic, 1);
  cluster.Produce(kTopic, 0, Key(1), Event("c", 1, "a", 1));
  const std::string big = Event("c", 2, std::string(64 << 10, 'x'), 2);
  for (int i = 0; i < 120; ++i) cluster.Produce(kTopic, 0, Key(2), big);
  KafkaPosition recorded;
  recorded.next[{kTopic, 0}] = 1;
  auto fail = KafkaReader::Open(Spec(cluster), recorded);
  ASSERT_FALSE(fail.ok());
  EXPECT_NE(fail.status().message().find("the flow's next offset 1 is below the partition's "
                                         "log start offset"),
            std::string::npos)
      << fail.status().message();
  KafkaSpec lenient = Spec(cluster);
  lenient.fail_on_data_loss = false;
  auto go_on = KafkaReader::Open(lenient, recorded);
  ASSERT_TRUE(go_on.ok()) << go_on.status().ToString();
  ASSERT_EQ((*go_on)->Notices().size(), 1u);
  EXPECT_NE((*go_on)->Notices()[0].find("were deleted (retention)"), std::string::npos);
  const int64_t lost = Count(**go_on, "Kafka offsets lost to retention");
  EXPECT_GT(lost, 0);
  std::vector<Row> rows = Rows(ReadAll(**go_on));
  EXPECT_EQ(static_cast<int64_t>(rows.size()), 121 - 1 - lost);
}

TEST(KafkaReader, CommittedOffsetsReachTheConsumerGroup) {
  MockCluster cluster;
  ProduceStream(cluster);
  auto reader = KafkaReader::Open(Spec(cluster), std::nullopt);
  ASSERT_TRUE(reader.ok());
  std::vector<KafkaBatch> batches = ReadAll(**reader);
  ASSERT_FALSE(batches.empty());
  (*reader)->Committed(batches.back().end);
  reader->reset();  // closing waits for the commit
  auto conf = MakeConf({{"bootstrap.servers", cluster.bootstrap()}, {"group.id", "cdclake-test"}});
  ASSERT_TRUE(conf.ok());
  auto lag = MakeConsumer(std::move(*conf));
  ASSERT_TRUE(lag.ok());
  PartitionList parts(rd_kafka_topic_partition_list_new(3));
  for (int p = 0; p < 3; ++p) rd_kafka_topic_partition_list_add(parts.get(), kTopic.c_str(), p);
  ASSERT_EQ(rd_kafka_committed(lag->get(), parts.get(), 5000), RD_KAFKA_RESP_ERR_NO_ERROR);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(parts->elems[p].offset, (batches.back().end.next.at({kTopic, p})));
  }
  rd_kafka_consumer_close(lag->get());
}

}  // namespace
}  // namespace cdclake::sources::kafka
