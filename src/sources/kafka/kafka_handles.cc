// Owners of librdkafka's handles: configuration and consumer construction.
#include "sources/kafka/kafka_handles.h"

namespace cdclake::sources::kafka {

std::string ErrorText(rd_kafka_resp_err_t err) {
  return rd_kafka_err2str(err);
}

Result<KafkaConf> MakeConf(const std::map<std::string, std::string>& settings) {
  KafkaConf conf(rd_kafka_conf_new());
  char reason[512];
  for (const auto& [name, value] : settings) {
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), reason, sizeof reason) !=
        RD_KAFKA_CONF_OK) {
      return Status::InvalidArgument("Kafka option '" + name + "': " + reason);
    }
  }
  return conf;
}

Result<KafkaHandle> MakeConsumer(KafkaConf conf) {
  char reason[512];
  // rd_kafka_new takes the configuration only when it succeeds.
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), reason, sizeof reason);
  if (rk == nullptr) return Status::InvalidArgument(std::string("Kafka consumer: ") + reason);
  (void)conf.release();  // rd_kafka_new took it
  return KafkaHandle(rk);
}

}  // namespace cdclake::sources::kafka
