// MockCluster: librdkafka's mock Kafka cluster in the test's own process (real TCP listeners on
// 127.0.0.1), with a producer that writes messages to explicit partitions. Tests only.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sources/kafka/kafka_handles.h"

namespace cdclake::sources::kafka::testing {

class MockCluster {
 public:
  explicit MockCluster(int brokers = 3) {
    auto conf = MakeConf({{"test.mock.num.brokers", std::to_string(brokers)},
                          {"enable.idempotence", "true"},
                          {"linger.ms", "1"},
                          {"log_level", "2"}});
    if (!conf.ok()) throw std::runtime_error(conf.status().ToString());
    char reason[512];
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf->get(), reason, sizeof reason);
    if (rk == nullptr) throw std::runtime_error(reason);
    (void)conf->release();  // rd_kafka_new took it
    producer_.reset(rk);
    cluster_ = rd_kafka_handle_mock_cluster(rk);
    if (cluster_ == nullptr) throw std::runtime_error("no mock cluster");
  }

  std::string bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }
  rd_kafka_mock_cluster_t* cluster() const { return cluster_; }

  void CreateTopic(const std::string& topic, int partitions) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) throw std::runtime_error(ErrorText(err));
  }

  /// Writes one message (nullopt key or value: null) and waits until it is stored.
  void Produce(const std::string& topic, int partition, const std::optional<std::string>& key,
               const std::optional<std::string>& value,
               const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    rd_kafka_headers_t* h = rd_kafka_headers_new(headers.size());
    for (const auto& [name, v] : headers) {
      rd_kafka_header_add(h, name.data(), static_cast<ssize_t>(name.size()), v.data(),
                          static_cast<ssize_t>(v.size()));
    }
    // The macros cast their arguments without parentheses: plain variables only.
    const void* key_data = key ? key->data() : nullptr;
    const size_t key_size = key ? key->size() : 0;
    void* value_data = value ? const_cast<char*>(value->data()) : nullptr;
    const size_t value_size = value ? value->size() : 0;
    rd_kafka_resp_err_t err = rd_kafka_producev(
        producer_.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_KEY(key_data, key_size), RD_KAFKA_V_VALUE(value_data, value_size),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_headers_destroy(h);
      throw std::runtime_error(ErrorText(err));
    }
    if (rd_kafka_flush(producer_.get(), 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("flush timed out");
    }
  }

 private:
  KafkaHandle producer_;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;  // owned by producer_
};

}  // namespace cdclake::sources::kafka::testing
