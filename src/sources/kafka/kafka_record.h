// KafkaRecord: one Kafka message copied out of librdkafka, so rows are built after the
// message is freed (and tested without brokers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cdclake::sources::kafka {

struct KafkaRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;    // nullopt: a null key
  std::optional<std::string> value;  // nullopt: a null value (a tombstone)
  int64_t timestamp_ms = -1;         // -1: none
  int32_t timestamp_type = 0;        // 0 none, 1 create time, 2 log append time
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

}  // namespace cdclake::sources::kafka
