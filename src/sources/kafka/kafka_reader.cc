// KafkaReader: a consumer with explicit assignments, read in batches up to the high watermarks
// taken at open, each batch with the position after it.
#include "sources/kafka/kafka_reader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <regex>
#include <set>
#include <utility>

#include "sources/kafka/kafka_handles.h"
#include "sources/kafka/kafka_rows.h"

namespace cdclake::sources::kafka {

namespace {

using Clock = std::chrono::steady_clock;

// librdkafka properties cdclake sets itself: their defaults (or a user's change) would let
// offsets move without the table (KAFKA-SOURCE.md, "Pitfalls").
const std::set<std::string>& ForcedProperties() {
  static const std::set<std::string> forced = {"enable.auto.commit", "enable.auto.offset.store",
                                               "auto.offset.reset", "enable.partition.eof",
                                               "bootstrap.servers"};
  return forced;
}

// What librdkafka's callbacks tell the reader: the last thing it logged, for error messages
// (its logs do not go to stderr), and the group commits not answered yet.
struct LogSink {
  std::mutex mutex;
  std::string last;
  std::atomic<int> commits_pending{0};
};

void OnCommit(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* offsets,
              void* opaque) {
  --static_cast<LogSink*>(opaque)->commits_pending;
}

void OnLog(const rd_kafka_t* rk, int level, const char* facility, const char* text) {
  auto* sink = static_cast<LogSink*>(rd_kafka_opaque(rk));
  if (sink == nullptr || level > 4) return;  // warnings and worse
  std::lock_guard lock(sink->mutex);
  sink->last = text;
}

KafkaRecord Copy(const rd_kafka_message_t& m) {
  KafkaRecord r;
  r.topic = rd_kafka_topic_name(m.rkt);
  r.partition = m.partition;
  r.offset = m.offset;
  if (m.key != nullptr) r.key.emplace(static_cast<const char*>(m.key), m.key_len);
  if (m.payload != nullptr) r.value.emplace(static_cast<const char*>(m.payload), m.len);
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  r.timestamp_ms = rd_kafka_message_timestamp(&m, &type);
  r.timestamp_type = static_cast<int32_t>(type);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      std::optional<std::string> v;
      if (value != nullptr) v.emplace(static_cast<const char*>(value), size);
      r.headers.emplace_back(name, std::move(v));
    }
  }
  return r;
}

class KafkaReaderImpl final : public KafkaReader {
 public:
  KafkaReaderImpl(KafkaSpec spec, std::unique_ptr<LogSink> log)
      : spec_(std::move(spec)), log_(std::move(log)) {}

  ~KafkaReaderImpl() override {
    if (!consumer_) return;
    // The last group commits get two seconds to be answered; then the handle goes without the
    // consumer close, which waits for them as long as a coordinator cannot be reached (46 s with
    // every broker down). They only feed lag tools: the table has the position.
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    while (log_->commits_pending.load() > 0 && Clock::now() < deadline) {
      rd_kafka_poll(consumer_.get(), 50);  // serves OnCommit
    }
    // No group was joined (partitions are assigned), so nothing is left undone; before the
    // log sink it writes to.
    rd_kafka_destroy_flags(consumer_.release(), RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  }

  Status Start(const std::optional<KafkaPosition>& resume);

  Result<std::optional<KafkaBatch>> Next() override;
  void Committed(const KafkaPosition& end) override;
  std::string StartText() const override { return start_text_; }
  std::vector<std::string> Notices() const override { return notices_; }
  std::string Lag() const override;
  std::vector<SourceCount> Counts() const override {
    std::vector<SourceCount> out = {{"Kafka tombstones skipped", 0}};
    for (const auto& [label, value] : counts_) {
      if (label == out[0].label) {
        out[0].value = value;
      } else {
        out.push_back({label, value});
      }
    }
    return out;
  }

  KafkaHandle consumer_;

 private:
  std::string Brokers() const { return "Kafka brokers '" + spec_.bootstrap_servers + "'"; }
  std::string LastLog() const {
    std::lock_guard lock(log_->mutex);
    return log_->last.empty() ? "" : " (librdkafka: " + log_->last + ")";
  }
  bool AllDone() const { return done_.size() == bound_.size(); }
  // Each partition's log start (which = RD_KAFKA_OFFSET_BEGINNING) or high watermark
  // (RD_KAFKA_OFFSET_END), in one request bounded by the request timeout.
  Status ListOffsets(int64_t which, std::vector<PartitionOffsets>* offsets);
  // The rows of `records`, as batches each with the position after it, into ready_.
  Status Queue(std::vector<KafkaRecord> records, const KafkaPosition& before);

  KafkaSpec spec_;
  std::unique_ptr<LogSink> log_;
  std::string start_text_;
  std::vector<std::string> notices_;
  std::map<std::string, int64_t> counts_;
  KafkaPosition position_;                   // after everything read so far
  std::map<TopicPartition, int64_t> bound_;  // the high watermark at open
  std::set<TopicPartition> done_;            // read up to the bound (or its end)
  std::deque<KafkaBatch> ready_;
};

Status KafkaReaderImpl::Start(const std::optional<KafkaPosition>& resume) {
  rd_kafka_t* rk = consumer_.get();
  const int timeout = static_cast<int>(spec_.request_timeout_ms);
  const rd_kafka_metadata_t* raw_metadata = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &raw_metadata, timeout);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::IoError("cannot reach " + Brokers() + " within " +
                           std::to_string(spec_.request_timeout_ms / 1000) +
                           " s: " + ErrorText(err) + LastLog() +
                           "; check bootstrapServers and the kafka.* security options");
  }
  KafkaMetadata metadata(raw_metadata);
  std::map<std::string, const rd_kafka_metadata_topic_t*> topics;
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR) topics[t.topic] = &t;
  }
  std::vector<std::string> chosen;
  if (!spec_.topic_pattern.empty()) {
    std::regex pattern;
    try {
      pattern = std::regex(spec_.topic_pattern);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("subscribePattern '" + spec_.topic_pattern +
                                     "' is not a regular expression: " + e.what());
    }
    for (const auto& [name, t] : topics) {
      if (name.rfind("__", 0) != 0 && std::regex_match(name, pattern)) chosen.push_back(name);
    }
    if (chosen.empty()) {
      notices_.push_back("no topic on " + Brokers() + " matches subscribePattern '" +
                         spec_.topic_pattern + "' yet");
    }
  } else {
    for (const std::string& name : spec_.topics) {
      if (topics.count(name) == 0) {
        return Status::NotFound("topic '" + name + "' does not exist on " + Brokers() + " (" +
                                std::to_string(topics.size()) +
                                " topics there); check subscribe, or create the topic");
      }
      chosen.push_back(name);
    }
  }
  // Cluster id, then every partition's offsets now.
  if (char* id = rd_kafka_clusterid(rk, timeout)) {
    position_.cluster = id;
    rd_kafka_mem_free(rk, id);
  }
  std::vector<PartitionOffsets> offsets;
  for (const std::string& name : chosen) {
    const rd_kafka_metadata_topic_t& t = *topics[name];
    for (int j = 0; j < t.partition_cnt; ++j) {
      PartitionOffsets p;
      p.partition = {name, t.partitions[j].id};
      offsets.push_back(p);
    }
  }
  CDCLAKE_RETURN_IF_ERROR(ListOffsets(RD_KAFKA_OFFSET_BEGINNING, &offsets));
  CDCLAKE_RETURN_IF_ERROR(ListOffsets(RD_KAFKA_OFFSET_END, &offsets));
  CDCLAKE_ASSIGN_OR_RETURN(StartingOffsets starting,
                           StartingOffsets::Parse(spec_.starting_offsets));
  CDCLAKE_ASSIGN_OR_RETURN(StartPlan plan, PlanStart(resume, position_.cluster, offsets, starting,
                                                     spec_.fail_on_data_loss));
  for (std::string& n : plan.notices) notices_.push_back(std::move(n));
  if (plan.lost_offsets > 0) counts_["Kafka offsets lost to retention"] += plan.lost_offsets;
  position_.next = plan.offsets;
  // Partitions the position has that are gone now (a topic deleted) are kept as they were.
  if (resume) {
    for (const auto& [tp, at] : resume->next) position_.next.emplace(tp, at);
  }
  start_text_ = "kafka " + position_.ToString();
  PartitionList assignment(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const PartitionOffsets& p : offsets) {
    const int64_t at = plan.offsets[p.partition];
    bound_[p.partition] = p.high;
    if (at >= p.high) {
      done_.insert(p.partition);
      continue;
    }
    rd_kafka_topic_partition_list_add(assignment.get(), p.partition.first.c_str(),
                                      p.partition.second)
        ->offset = at;
  }
  if (assignment->cnt > 0) {
    err = rd_kafka_assign(rk, assignment.get());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::IoError("cannot assign the partitions on " + Brokers() + ": " +
                             ErrorText(err));
    }
  }
  return Status::OK();
}

Status KafkaReaderImpl::ListOffsets(int64_t which, std::vector<PartitionOffsets>* offsets) {
  if (offsets->empty()) return Status::OK();
  // One ListOffsets request per leader for every partition, bounded by the timeout
  // (rd_kafka_query_watermark_offsets in 2.0.2 waits for a leader that is down, whatever its
  // timeout: librdkafka issue 2588).
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets->size())));
  for (const PartitionOffsets& p : *offsets) {
    rd_kafka_topic_partition_list_add(list.get(), p.partition.first.c_str(), p.partition.second)
        ->offset = which;
  }
  rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(consumer_.get(), list.get(),
                                                       static_cast<int>(spec_.request_timeout_ms));
  std::string missing;  // the partitions without an answer
  rd_kafka_resp_err_t first = err;
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& got = list->elems[i];
    if (got.err != RD_KAFKA_RESP_ERR_NO_ERROR || err != RD_KAFKA_RESP_ERR_NO_ERROR ||
        got.offset < 0) {
      if (first == RD_KAFKA_RESP_ERR_NO_ERROR) first = got.err;
      missing += (missing.empty() ? "" : ", ") + PartitionText({got.topic, got.partition});
      continue;
    }
    PartitionOffsets& p = (*offsets)[static_cast<size_t>(i)];
    (which == RD_KAFKA_OFFSET_BEGINNING ? p.low : p.high) = got.offset;
  }
  if (!missing.empty()) {
    return Status::IoError(Brokers() + " gave no offsets for " + missing + " within " +
                           std::to_string(spec_.request_timeout_ms / 1000) + " s: " +
                           ErrorText(first) + LastLog() + " (is a partition's leader down?)");
  }
  return Status::OK();
}

Result<std::optional<KafkaBatch>> KafkaReaderImpl::Next() {
  if (ready_.empty() && !AllDone()) {
    const size_t limit = static_cast<size_t>(
        std::max<int64_t>(1, spec_.max_offsets_per_trigger > 0
                                 ? std::min(spec_.max_offsets_per_trigger, spec_.batch_rows)
                                 : spec_.batch_rows));
    const KafkaPosition before = position_;
    std::vector<KafkaRecord> records;
    auto progress = Clock::now();
    while (records.size() < limit && !AllDone()) {
      KafkaMessage m(rd_kafka_consumer_poll(consumer_.get(), 100));
      if (!m) {
        if (Clock::now() - progress > std::chrono::milliseconds(spec_.stall_timeout_ms)) {
          std::string waiting;
          for (const auto& [tp, high] : bound_) {
            if (done_.count(tp) == 0) {
              waiting += (waiting.empty() ? "" : ", ") + PartitionText(tp);
            }
          }
          return Status::IoError("no message from " + waiting + " on " + Brokers() + " for " +
                                 std::to_string(spec_.stall_timeout_ms / 1000) + " s" + LastLog());
        }
        continue;
      }
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        // The end of the partition now: everything up to m->offset was read (offsets have
        // gaps: transaction markers, compaction).
        TopicPartition tp{m->rkt ? rd_kafka_topic_name(m->rkt) : "", m->partition};
        if (bound_.count(tp) == 0) continue;
        int64_t& next = position_.next[tp];
        next = std::max(next, std::min<int64_t>(m->offset, bound_[tp]));
        done_.insert(tp);
        progress = Clock::now();
        continue;
      }
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::string where;
        if (m->rkt) {
          where = "topic '" + std::string(rd_kafka_topic_name(m->rkt)) + "' partition " +
                  std::to_string(m->partition) + ": ";
        }
        const rd_kafka_resp_err_t e = m->err;
        if (e == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
            e == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
          return Status::InvalidArgument(
              where + "the offset to read is no longer on " + Brokers() +
              " (deleted by retention while the flow read it?): " +
              rd_kafka_message_errstr(m.get()) +
              "; run again: the flow then checks its position against the partition's offsets");
        }
        if (e == RD_KAFKA_RESP_ERR__FATAL || e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
            e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
            e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
          return Status::IoError(where + rd_kafka_message_errstr(m.get()) + " on " + Brokers());
        }
        continue;  // transient (a broker down, a fetch error): librdkafka retries
      }
      TopicPartition tp{rd_kafka_topic_name(m->rkt), m->partition};
      auto bound = bound_.find(tp);
      if (bound == bound_.end() || done_.count(tp) > 0) continue;
      int64_t& next = position_.next[tp];
      if (m->offset < next) continue;  // already read
      if (m->offset >= bound->second) {
        done_.insert(tp);
        continue;
      }
      records.push_back(Copy(*m));
      next = m->offset + 1;
      if (next >= bound->second) done_.insert(tp);
      progress = Clock::now();
    }
    if (!records.empty()) CDCLAKE_RETURN_IF_ERROR(Queue(std::move(records), before));
  }
  if (ready_.empty()) return std::optional<KafkaBatch>();
  KafkaBatch out = std::move(ready_.front());
  ready_.pop_front();
  return std::optional<KafkaBatch>(std::move(out));
}

Status KafkaReaderImpl::Queue(std::vector<KafkaRecord> records, const KafkaPosition& before) {
  int64_t written_ms = 0;
  for (const KafkaRecord& r : records) written_ms = std::max(written_ms, r.timestamp_ms);
  if (!spec_.debezium) {
    KafkaBatch batch;
    batch.rows = RawRows(records);
    batch.end = position_;
    batch.written_ms = written_ms;
    ready_.push_back(std::move(batch));
    return Status::OK();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<DebeziumPiece> pieces,
                           DebeziumRows(records, spec_.schema, &counts_));
  KafkaPosition at = before;
  size_t applied = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    KafkaBatch batch;
    batch.rows = std::move(pieces[i].rows);
    batch.written_ms = written_ms;
    if (i + 1 == pieces.size()) {
      batch.end = position_;  // ends of partitions included
    } else {
      for (; applied < pieces[i].end; ++applied) {
        const KafkaRecord& r = records[applied];
        at.next[{r.topic, r.partition}] = r.offset + 1;
      }
      batch.end = at;
    }
    ready_.push_back(std::move(batch));
  }
  return Status::OK();
}

std::string KafkaReaderImpl::Lag() const {
  int64_t total = 0;
  std::string parts;
  for (const auto& [tp, bound] : bound_) {
    // The high watermark of the last fetch (no request: a broker that is down cannot stall
    // the end of a run); the one at open when no fetch said.
    int64_t low = 0;
    int64_t high = bound;
    if (rd_kafka_get_watermark_offsets(consumer_.get(), tp.first.c_str(), tp.second, &low, &high) !=
            RD_KAFKA_RESP_ERR_NO_ERROR ||
        high < 0) {
      high = bound;
    }
    auto at = position_.next.find(tp);
    const int64_t behind =
        std::max<int64_t>(0, high - (at == position_.next.end() ? 0 : at->second));
    if (behind == 0) continue;
    total += behind;
    parts += (parts.empty() ? "" : ", ") + PartitionText(tp) + " " + std::to_string(behind);
  }
  return std::to_string(total) + (total == 1 ? " message" : " messages") +
         " behind the high watermarks" + (parts.empty() ? "" : " (" + parts + ")");
}

void KafkaReaderImpl::Committed(const KafkaPosition& end) {
  PartitionList offsets(rd_kafka_topic_partition_list_new(static_cast<int>(end.next.size())));
  for (const auto& [tp, at] : end.next) {
    rd_kafka_topic_partition_list_add(offsets.get(), tp.first.c_str(), tp.second)->offset = at;
  }
  // Only lag tools read these; a failure changes nothing the flow relies on.
  ++log_->commits_pending;
  if (rd_kafka_commit(consumer_.get(), offsets.get(), 1) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    --log_->commits_pending;  // refused at once: no answer will come
  }
}

}  // namespace

Result<std::unique_ptr<KafkaReader>> KafkaReader::Open(const KafkaSpec& spec,
                                                       const std::optional<KafkaPosition>& resume) {
  if (spec.topics.empty() == spec.topic_pattern.empty()) {
    return Status::InvalidArgument(
        "read_kafka needs one of subscribe => 'topic[,topic...]' or "
        "subscribePattern => 'regex'");
  }
  std::map<std::string, std::string> settings = {
      {"bootstrap.servers", spec.bootstrap_servers},
      {"group.id", spec.group_id},
      {"client.id", "cdclake"},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"auto.offset.reset", "error"},
      {"enable.partition.eof", "true"},
      {"isolation.level", "read_committed"},
      {"fetch.wait.max.ms", "100"},
      // No group is joined; librdkafka still waits this long at close for a group commit no
      // coordinator answers (45 s by default).
      {"session.timeout.ms", "3000"},
  };
  for (const auto& [name, value] : spec.kafka_options) {
    if (ForcedProperties().count(name) > 0) {
      return Status::InvalidArgument(
          "kafka." + name +
          " cannot be set: cdclake sets it (offsets live in the table, "
          "committed with the data; librdkafka's own offset handling would skip or repeat data)");
    }
    settings[name] = value;
  }
  CDCLAKE_ASSIGN_OR_RETURN(KafkaConf conf, MakeConf(settings));
  auto log = std::make_unique<LogSink>();
  rd_kafka_conf_set_opaque(conf.get(), log.get());
  rd_kafka_conf_set_log_cb(conf.get(), OnLog);
  rd_kafka_conf_set_offset_commit_cb(conf.get(), OnCommit);
  auto reader = std::make_unique<KafkaReaderImpl>(spec, std::move(log));
  CDCLAKE_ASSIGN_OR_RETURN(reader->consumer_, MakeConsumer(std::move(conf)));
  CDCLAKE_RETURN_IF_ERROR(reader->Start(resume));
  return std::unique_ptr<KafkaReader>(std::move(reader));
}

}  // namespace cdclake::sources::kafka
