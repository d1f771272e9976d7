// kafka_mock_cluster: a test-only program for the tests of cdclake's read_kafka source (see
// tests/pipeline/kafka_source_test.sh). It starts a librdkafka mock cluster on loopback, prints
// `bootstrap <servers>` and then obeys one command per line of stdin, answering each with one
// line on stdout, `ok ...` or `error <reason>`:
//   topic NAME PARTITIONS      creates a topic; broker 1 + P mod N leads its partition P
//   leader TOPIC PARTITION ID  makes broker ID the partition's leader
//   produce TOPIC PARTITION FILE [DELAY_MS]
//                              sends each line of FILE as a message to the partition, waiting
//                              DELAY_MS after each; answers `ok COUNT LAST_OFFSET`. A line is
//                              KEY<TAB>VALUE[<TAB>NAME=VALUE]... (the rest are headers); a line
//                              without a tab is a value with a null key; an empty KEY is a null
//                              key and a VALUE \N a null value (a tombstone). Undelivered after
//                              15 s (a leader down), a message fails the command.
//   down ID / up ID            takes broker ID down (no leader change) / brings it back
//   fetch-errors COUNT CODE    fails the next COUNT Fetch requests with rd_kafka_resp_err_t CODE
//                              (-195, _TRANSPORT, disconnects the consumer)
//   watermarks TOPIC PARTITION answers `ok LOW HIGH`
//   sleep MS                   answers `ok` after MS milliseconds
// Usage: kafka_mock_cluster [--brokers N] (default 3). Exits 0 at the end of stdin or on
// SIGTERM/SIGINT. librdkafka logs go to stderr.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
  void operator()(rd_kafka_headers_t* headers) const { rd_kafka_headers_destroy(headers); }
};
using Kafka = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
using Conf = std::unique_ptr<rd_kafka_conf_t, KafkaDeleter>;
using Headers = std::unique_ptr<rd_kafka_headers_t, KafkaDeleter>;

int g_signal_fd = -1;  // SIGTERM and SIGINT, blocked in every thread, arrive here.

bool TermPending() {
  pollfd pfd{g_signal_fd, POLLIN, 0};
  return poll(&pfd, 1, 0) > 0;
}

void Reply(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

void LogToStderr(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  std::fprintf(stderr, "rdkafka %d %s %s: %s\n", level, fac, rd_kafka_name(rk), buf);
}

template <typename T>
bool ParseInt(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

Kafka NewHandle(Conf conf, std::string* error) {
  char errstr[512];
  rd_kafka_conf_set_log_cb(conf.get(), LogToStderr);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), errstr, sizeof errstr);
  if (rk != nullptr) {
    (void)conf.release();  // Owned by rk now.
  } else {
    *error = errstr;
  }
  return Kafka(rk);
}

bool Set(rd_kafka_conf_t* conf, const char* name, const std::string& value, std::string* error) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, name, value.c_str(), errstr, sizeof errstr) == RD_KAFKA_CONF_OK) {
    return true;
  }
  *error = errstr;
  return false;
}

// What a delivery report said about one message; the message's opaque points to it.
struct Delivery {
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__IN_PROGRESS;
  int64_t offset = -1;
};

void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* message, void*) {
  auto* delivery = static_cast<Delivery*>(message->_private);
  delivery->err = message->err;
  delivery->offset = message->offset;
}

// Waits for every outstanding delivery report, giving up on what is still queued after 30 s
// (message.timeout.ms, 15 s, should have failed it already): `Delivery`s must outlive messages.
rd_kafka_resp_err_t Drain(rd_kafka_t* producer) {
  rd_kafka_resp_err_t err = rd_kafka_flush(producer, 30000);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_purge(producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(producer, -1);
  }
  return err;
}

// Waits `ms` milliseconds serving the producer's callbacks; false when a signal came meanwhile.
bool Wait(rd_kafka_t* producer, int64_t ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!TermPending()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return true;
    rd_kafka_poll(producer, static_cast<int>(std::min<int64_t>(left, 50)));
  }
  return false;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

// Produces the line `line` as one message; the delivery report will fill `delivery`.
rd_kafka_resp_err_t ProduceLine(rd_kafka_t* producer, const std::string& topic, int32_t partition,
                                const std::string& line, Delivery* delivery) {
  std::vector<std::string> fields = Split(line, '\t');
  if (fields.empty()) fields.emplace_back();  // An empty line: an empty value.
  const std::string* key = fields.size() > 1 && !fields[0].empty() ? &fields[0] : nullptr;
  const std::string* value = fields.size() > 1 ? &fields[1] : &fields[0];
  if (*value == "\\N") value = nullptr;
  Headers headers(rd_kafka_headers_new(fields.size() > 2 ? fields.size() - 2 : 0));
  for (size_t i = 2; i < fields.size(); ++i) {
    size_t equals = fields[i].find('=');
    std::string name = fields[i].substr(0, equals);
    if (equals == std::string::npos) {
      rd_kafka_header_add(headers.get(), name.data(), name.size(), nullptr, 0);
    } else {
      std::string header_value = fields[i].substr(equals + 1);
      rd_kafka_header_add(headers.get(), name.data(), name.size(), header_value.data(),
                          header_value.size());
    }
  }
  for (;;) {
    rd_kafka_resp_err_t err = rd_kafka_producev(
        producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(key ? key->data() : nullptr, key ? key->size() : 0),
        RD_KAFKA_V_VALUE(value ? const_cast<char*>(value->data()) : nullptr,
                         value ? value->size() : 0),
        RD_KAFKA_V_HEADERS(headers.get()), RD_KAFKA_V_OPAQUE(delivery), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) (void)headers.release();  // Owned by the message now.
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) return err;
    rd_kafka_poll(producer, 100);
  }
}

std::string Produce(rd_kafka_t* producer, const std::vector<std::string>& args) {
  int32_t partition;
  int64_t delay_ms = 0;
  if (args.size() < 4 || args.size() > 5 || !ParseInt(args[2], &partition) ||
      (args.size() == 5 && (!ParseInt(args[4], &delay_ms) || delay_ms < 0))) {
    return "error usage: produce TOPIC PARTITION FILE [DELAY_MS]";
  }
  std::ifstream file(args[3], std::ios::binary);
  if (!file) return "error cannot open " + args[3];
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  std::vector<Delivery> deliveries(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    rd_kafka_resp_err_t err = ProduceLine(producer, args[1], partition, lines[i], &deliveries[i]);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      Drain(producer);  // The earlier messages point into `deliveries`.
      return "error line " + std::to_string(i + 1) + ": " + rd_kafka_err2str(err);
    }
    if (delay_ms > 0 && !Wait(producer, delay_ms)) break;
  }
  if (rd_kafka_resp_err_t err = Drain(producer)) {
    return std::string("error flush: ") + rd_kafka_err2str(err);
  }
  int64_t last_offset = -1;
  size_t count = 0;
  for (const Delivery& delivery : deliveries) {
    if (delivery.err == RD_KAFKA_RESP_ERR__IN_PROGRESS) break;  // Not sent: a signal came.
    if (delivery.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return "error message " + std::to_string(count + 1) + ": " + rd_kafka_err2str(delivery.err);
    }
    last_offset = delivery.offset;
    ++count;
  }
  if (count < deliveries.size()) return "error interrupted after " + std::to_string(count);
  return "ok " + std::to_string(count) + " " + std::to_string(last_offset);
}

// rd_kafka_query_watermark_offsets() of librdkafka < 2.3 ignores its timeout and waits for as
// long as the partition's leader is down (librdkafka issue 2588), which would hang this program
// for good, so ask for the offsets of the timestamps "beginning" and "end" instead.
std::string Watermarks(rd_kafka_t* producer, const std::string& topic, int32_t partition) {
  int64_t offsets[2] = {RD_KAFKA_OFFSET_BEGINNING, RD_KAFKA_OFFSET_END};
  for (int64_t& offset : offsets) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset = offset;
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(producer, list, 2500);
    if (!err) err = list->elems[0].err;
    offset = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    if (err) return std::string("error ") + rd_kafka_err2str(err);
  }
  return "ok " + std::to_string(offsets[0]) + " " + std::to_string(offsets[1]);
}

std::string Run(rd_kafka_mock_cluster_t* mock, int brokers, rd_kafka_t* producer,
                const std::vector<std::string>& args) {
  const std::string& name = args[0];
  int64_t a, b;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (name == "topic" && args.size() == 3 && ParseInt(args[2], &a) && a > 0 && a <= 100000) {
    err = rd_kafka_mock_topic_create(mock, args[1].c_str(), static_cast<int>(a), 1);
    // librdkafka 2.0.2's mock ignores the replication factor (it takes min(3, N) brokers) and
    // picks each leader at random: make the layout the same from run to run.
    for (int32_t p = 0; p < a && !err; ++p) {
      err = rd_kafka_mock_partition_set_leader(mock, args[1].c_str(), p, 1 + p % brokers);
    }
  } else if (name == "leader" && args.size() == 4 && ParseInt(args[2], &a) &&
             ParseInt(args[3], &b)) {
    err = rd_kafka_mock_partition_set_leader(mock, args[1].c_str(), static_cast<int32_t>(a),
                                             static_cast<int32_t>(b));
  } else if ((name == "down" || name == "up") && args.size() == 2 && ParseInt(args[1], &a)) {
    auto id = static_cast<int32_t>(a);
    err = name == "down" ? rd_kafka_mock_broker_set_down(mock, id)
                         : rd_kafka_mock_broker_set_up(mock, id);
  } else if (name == "fetch-errors" && args.size() == 3 && ParseInt(args[1], &a) && a >= 0 &&
             a <= 100000 && ParseInt(args[2], &b)) {
    std::vector<rd_kafka_resp_err_t> errors(a, static_cast<rd_kafka_resp_err_t>(b));
    rd_kafka_mock_push_request_errors_array(mock, 1 /* Fetch */, errors.size(), errors.data());
  } else if (name == "watermarks" && args.size() == 3 && ParseInt(args[2], &a)) {
    return Watermarks(producer, args[1], static_cast<int32_t>(a));
  } else if (name == "sleep" && args.size() == 2 && ParseInt(args[1], &a) && a >= 0) {
    Wait(producer, a);
  } else if (name == "produce") {
    return Produce(producer, args);
  } else {
    bool known = name == "topic" || name == "leader" || name == "down" || name == "up" ||
                 name == "fetch-errors" || name == "watermarks" || name == "sleep";
    std::string line;
    for (const std::string& arg : args) line += " " + arg;
    return (known ? "error bad arguments:" : "error unknown command:") + line;
  }
  return err ? std::string("error ") + rd_kafka_err2str(err) : "ok";
}

// Reads stdin up to the next newline; false at end of input or when a signal came.
bool ReadLine(std::string* buffer, std::string* line) {
  for (;;) {
    if (size_t newline = buffer->find('\n'); newline != std::string::npos) {
      *line = buffer->substr(0, newline);
      buffer->erase(0, newline + 1);
      return true;
    }
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_signal_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return false;
    char chunk[4096];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0) continue;
    if (n == 0) {  // End of input: a last line without a newline still counts.
      *line = *buffer;
      buffer->clear();
      return !line->empty();
    }
    buffer->append(chunk, n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int brokers = 3;
  if (argc == 3 && std::string_view(argv[1]) == "--brokers" && ParseInt(argv[2], &brokers) &&
      brokers > 0) {
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: kafka_mock_cluster [--brokers N]\n");
    return 2;
  }
  // Block the signals before librdkafka starts threads, which inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  g_signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);

  // A handle of its own carries the mock cluster; it connects nowhere, so it need not say so.
  std::string error;
  Conf host_conf(rd_kafka_conf_new());
  Kafka host;
  if (Set(host_conf.get(), "log_level", "4", &error))
    host = NewHandle(std::move(host_conf), &error);
  rd_kafka_mock_cluster_t* mock = host ? rd_kafka_mock_cluster_new(host.get(), brokers) : nullptr;
  if (mock == nullptr) {
    std::fprintf(stderr, "kafka_mock_cluster: cannot start the mock cluster: %s\n", error.c_str());
    return 1;
  }
  std::string bootstrap = rd_kafka_mock_cluster_bootstraps(mock);
  Conf conf(rd_kafka_conf_new());
  rd_kafka_conf_set_dr_msg_cb(conf.get(), OnDelivery);
  Kafka producer;
  if (Set(conf.get(), "bootstrap.servers", bootstrap, &error) &&
      Set(conf.get(), "enable.idempotence", "true", &error) &&
      Set(conf.get(), "acks", "all", &error) && Set(conf.get(), "linger.ms", "5", &error) &&
      Set(conf.get(), "message.timeout.ms", "15000", &error) &&
      Set(conf.get(), "reconnect.backoff.max.ms", "1000", &error)) {  // Quick back after `up`.
    producer = NewHandle(std::move(conf), &error);
  }
  int status = 0;
  if (producer) {
    Reply("bootstrap " + bootstrap);
    std::string buffer, line;
    while (ReadLine(&buffer, &line)) {
      std::vector<std::string> args;
      std::istringstream words(line);
      for (std::string word; words >> word;) args.push_back(word);
      if (!args.empty()) Reply(Run(mock, brokers, producer.get(), args));
    }
    if (TermPending()) rd_kafka_purge(producer.get(), RD_KAFKA_PURGE_F_QUEUE);
    rd_kafka_flush(producer.get(), 10000);
  } else {
    std::fprintf(stderr, "kafka_mock_cluster: cannot create the producer: %s\n", error.c_str());
    status = 1;
  }
  producer.reset();
  rd_kafka_mock_cluster_destroy(mock);
  host.reset();
  return status;
}
