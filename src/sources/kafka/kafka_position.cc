// KafkaPosition's JSON form and the start checks.
#include "sources/kafka/kafka_position.h"

#include <charconv>

namespace cdclake::sources::kafka {

namespace {

std::string Name(const TopicPartition& tp) {
  return "topic '" + tp.first + "' partition " + std::to_string(tp.second);
}

constexpr const char* kWhatToDo =
    "refresh the table in full (--full-refresh) or reset the flow's position (--reset-position)";

Result<int32_t> PartitionNumber(const std::string& text) {
  int32_t p = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p);
  if (ec != std::errc() || end != text.data() + text.size() || p < 0) {
    return Status::Corrupt("'" + text + "' is not a partition number");
  }
  return p;
}

}  // namespace

std::string PartitionText(const TopicPartition& tp) {
  return tp.first + "[" + std::to_string(tp.second) + "]";
}

json::Json KafkaPosition::ToJson() const {
  json::Json topics = json::Json::object();
  for (const auto& [tp, offset] : next) topics[tp.first][std::to_string(tp.second)] = offset;
  json::Json kafka = json::Json::object();
  kafka["cluster"] = cluster;
  kafka["topics"] = std::move(topics);
  return json::Json{{"kafka", std::move(kafka)}};
}

Result<std::optional<KafkaPosition>> KafkaPosition::FromJson(const json::Json& value) {
  if (!value.is_object() || !value.contains("kafka")) return std::optional<KafkaPosition>();
  const json::Json& kafka = value["kafka"];
  auto bad = [&](const std::string& what) {
    return Status::Corrupt("a Kafka position " + what + ": " + json::Dump(value));
  };
  if (!kafka.is_object() || !kafka.contains("topics") || !kafka["topics"].is_object()) {
    return bad("needs a \"topics\" object");
  }
  KafkaPosition out;
  if (kafka.contains("cluster")) {
    if (!kafka["cluster"].is_string()) return bad("has a \"cluster\" that is not a string");
    out.cluster = kafka["cluster"].get<std::string>();
  }
  for (const auto& [topic, partitions] : kafka["topics"].items()) {
    if (!partitions.is_object()) return bad("has topic '" + topic + "' without partitions");
    for (const auto& [partition, offset] : partitions.items()) {
      auto p = PartitionNumber(partition);
      if (!p.ok()) return bad(p.status().message());
      if (!offset.is_number_integer() || offset.get<int64_t>() < 0) {
        return bad("has an offset that is not a whole number >= 0");
      }
      out.next[{topic, *p}] = offset.get<int64_t>();
    }
  }
  return std::optional<KafkaPosition>(std::move(out));
}

std::string KafkaPosition::ToString() const {
  std::string out;
  const std::string* topic = nullptr;
  for (const auto& [tp, offset] : next) {
    if (!out.empty()) out += ' ';
    if (topic == nullptr || *topic != tp.first) out += tp.first;
    topic = &tp.first;
    out += "[" + std::to_string(tp.second) + "]@" + std::to_string(offset);
  }
  return out.empty() ? "no partition yet" : out;
}

Result<StartingOffsets> StartingOffsets::Parse(const std::string& text) {
  StartingOffsets out;
  if (text == "earliest") return out;
  if (text == "latest") {
    out.latest = true;
    return out;
  }
  auto invalid = [&](const std::string& why) {
    return Status::InvalidArgument(
        "startingOffsets must be 'earliest', 'latest' or JSON such as "
        "'{\"topic\": {\"0\": 23, \"1\": -2}}' (-2 earliest, -1 latest): " +
        why);
  };
  auto parsed = json::Parse(text);
  if (!parsed.ok() || !parsed->is_object()) return invalid("'" + text + "' is neither");
  for (const auto& [topic, partitions] : parsed->items()) {
    if (!partitions.is_object()) return invalid("topic '" + topic + "' needs an object");
    for (const auto& [partition, offset] : partitions.items()) {
      auto p = PartitionNumber(partition);
      if (!p.ok()) return invalid(p.status().message());
      if (!offset.is_number_integer() || offset.get<int64_t>() < -2) {
        return invalid("topic '" + topic + "' partition " + partition + ": an offset, -2 or -1");
      }
      out.explicit_offsets[{topic, *p}] = offset.get<int64_t>();
    }
  }
  return out;
}

Result<StartPlan> PlanStart(const std::optional<KafkaPosition>& recorded,
                            const std::string& cluster,
                            const std::vector<PartitionOffsets>& partitions,
                            const StartingOffsets& starting, bool fail_on_data_loss) {
  StartPlan plan;
  if (recorded && !recorded->cluster.empty() && !cluster.empty() && recorded->cluster != cluster) {
    return Status::InvalidArgument("the flow's position was recorded on Kafka cluster '" +
                                   recorded->cluster + "', but the brokers are cluster '" +
                                   cluster + "': its offsets mean nothing there; " + kWhatToDo);
  }
  for (const PartitionOffsets& p : partitions) {
    const TopicPartition& tp = p.partition;
    int64_t at = 0;
    auto found = recorded ? recorded->next.find(tp) : decltype(recorded->next.end())();
    if (recorded && found != recorded->next.end()) {
      at = found->second;
      if (at > p.high) {
        return Status::InvalidArgument(
            Name(tp) + ": the flow's next offset " + std::to_string(at) +
            " is above the partition's high watermark " + std::to_string(p.high) +
            ": the topic was deleted and created again, or these brokers are another cluster; " +
            kWhatToDo);
      }
      if (at < p.low) {
        if (fail_on_data_loss) {
          return Status::InvalidArgument(
              Name(tp) + ": the flow's next offset " + std::to_string(at) +
              " is below the partition's log start offset " + std::to_string(p.low) + ": offsets " +
              std::to_string(at) + " to " + std::to_string(p.low - 1) +
              " were deleted (retention) before the flow read them. To go on without them, set "
              "failOnDataLoss => 'false'; to read the topic again, " +
              kWhatToDo);
        }
        plan.lost_offsets += p.low - at;
        plan.notices.push_back(Name(tp) + ": offsets " + std::to_string(at) + " to " +
                               std::to_string(p.low - 1) +
                               " were deleted (retention) before the flow read them; reading "
                               "goes on from " +
                               std::to_string(p.low) + " (failOnDataLoss => 'false')");
        at = p.low;
      }
    } else if (recorded) {
      // A partition added since the position was recorded (or a new topic of a pattern): all
      // of it is new to the flow.
      at = p.low;
      if (p.low > 0) {
        if (fail_on_data_loss) {
          return Status::InvalidArgument(
              Name(tp) +
              " is new to the flow (added since it last read) but its log start "
              "offset is " +
              std::to_string(p.low) +
              ", not 0: offsets below it were deleted "
              "before the flow read them. To go on without them, set failOnDataLoss => 'false'");
        }
        plan.lost_offsets += p.low;
        plan.notices.push_back(Name(tp) + " is new to the flow; its offsets below " +
                               std::to_string(p.low) + " were deleted before it read them");
      } else {
        plan.notices.push_back(Name(tp) + " is new to the flow: read from its start");
      }
    } else {
      auto named = starting.explicit_offsets.find(tp);
      const int64_t wanted = named != starting.explicit_offsets.end() ? named->second
                             : starting.latest                        ? -1
                                                                      : -2;
      at = wanted == -2 ? p.low : wanted == -1 ? p.high : wanted;
      if (at < p.low || at > p.high) {
        return Status::InvalidArgument(Name(tp) + ": startingOffsets gives offset " +
                                       std::to_string(at) + ", outside the partition's offsets " +
                                       std::to_string(p.low) + " to " + std::to_string(p.high));
      }
    }
    plan.offsets[tp] = at;
  }
  return plan;
}

}  // namespace cdclake::sources::kafka
