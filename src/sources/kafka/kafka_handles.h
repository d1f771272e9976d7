// Owners of librdkafka's handles, messages and partition lists. librdkafka's rd_kafka_destroy
// waits for every message and partition list taken from a handle to be freed first (a leaked
// one makes it hang for ever), so none of them is ever held by a raw pointer here.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <string>

#include "base/result.h"

namespace cdclake::sources::kafka {

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct ConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const {
    rd_kafka_topic_partition_list_destroy(l);
  }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* m) const { rd_kafka_metadata_destroy(m); }
};

using KafkaHandle = std::unique_ptr<rd_kafka_t, HandleDeleter>;
using KafkaConf = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using KafkaMessage = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;
using KafkaMetadata = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;

/// A configuration holding `settings` (librdkafka property names), or kInvalidArgument naming
/// the property librdkafka refused and why.
Result<KafkaConf> MakeConf(const std::map<std::string, std::string>& settings);

/// A consumer made from `conf` (taken); the error is librdkafka's reason.
Result<KafkaHandle> MakeConsumer(KafkaConf conf);

/// librdkafka's text for `err`.
std::string ErrorText(rd_kafka_resp_err_t err);

}  // namespace cdclake::sources::kafka
