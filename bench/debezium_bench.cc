// debezium_bench: Debezium decoding speed, and decode + apply end to end. Generates a fixed
// stream of PostgreSQL-connector change events (one JSON value per line) for a 12-column table,
// with and without the `schema` part, then times DebeziumReader over the file (events/s, MB/s)
// and the reader feeding an SCD1 Applier into a fresh Delta table, flowed as
// `cdclake apply --format debezium` does (keys id, sequence _seq, delete _op = 'd', truncate
// _op = 't', every column but the change-stream ones). Prints one JSON line per run, then a table.
//
//   debezium_bench [--events 1000000] [--dir /tmp/debezium_bench] [--runs 1]
//                  [--only decode|apply] [--schema with|without|both] [--apply-batch 0]
//                  [--keep 0|1]
//
// --apply-batch 0 applies the whole file as one batch, as the CLI does without --batch-size.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "change/change_batch.h"
#include "data/expression.h"
#include "io/local_file_system.h"
#include "sources/change_source.h"

namespace {

using cdclake::data::DataType;
using cdclake::data::Expr;
using cdclake::data::Value;

struct Args {
  int64_t events = 1'000'000;
  std::string dir = "/tmp/debezium_bench";
  int runs = 1;
  std::string only;             // "", "decode" or "apply"
  std::string schema = "both";  // with, without, both
  int64_t apply_batch = 0;
  bool keep = false;  // keep the event files, and reuse them when present (profiling)
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--events") {
      a.events = std::stoll(v);
    } else if (k == "--dir") {
      a.dir = v;
    } else if (k == "--runs") {
      a.runs = std::stoi(v);
    } else if (k == "--only") {
      a.only = v;
    } else if (k == "--schema") {
      a.schema = v;
    } else if (k == "--apply-batch") {
      a.apply_batch = std::stoll(v);
    } else if (k == "--keep") {
      a.keep = v == "1" || v == "true";
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// CPU seconds this process has used (steadier than wall time on a shared machine).
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// --- the event stream ---

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void AppendBase64(const std::string& bytes, std::string* out) {
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->push_back(kBase64[(n >> 6) & 63]);
    out->push_back(kBase64[n & 63]);
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->append("==");
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->push_back(kBase64[(n >> 6) & 63]);
    out->push_back('=');
  }
}

// Kafka Connect's Decimal: the unscaled value as big-endian two's complement, fewest bytes.
std::string DecimalBytes(int64_t unscaled) {
  std::string be;
  for (int shift = 56; shift >= 0; shift -= 8) {
    be.push_back(static_cast<char>((static_cast<uint64_t>(unscaled) >> shift) & 0xff));
  }
  size_t start = 0;
  while (start + 1 < be.size()) {
    const uint8_t b = static_cast<uint8_t>(be[start]);
    const uint8_t next = static_cast<uint8_t>(be[start + 1]);
    if ((b == 0x00 && next < 0x80) || (b == 0xff && next >= 0x80)) {
      ++start;
    } else {
      break;
    }
  }
  return be.substr(start);
}

// The Connect schema of the value (before, after, source, op, ts_ms, transaction), compact.
std::string ValueSchema() {
  const std::string row =
      R"([{"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"int64","optional":true,"field":"account_id"},)"
      R"({"type":"int32","optional":true,"field":"quantity"},)"
      R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"12"},"field":"amount"},)"
      R"({"type":"string","optional":true,"field":"name"},)"
      R"({"type":"string","optional":true,"field":"email"},)"
      R"({"type":"string","optional":true,"field":"status"},)"
      R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,"field":"created_at"},)"
      R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"birth_date"},)"
      R"({"type":"boolean","optional":true,"field":"active"},)"
      R"({"type":"int64","optional":true,"field":"version"},)"
      R"({"type":"string","optional":true,"field":"note"}])";
  return R"({"type":"struct","fields":[{"type":"struct","fields":)" + row +
         R"(,"optional":true,"name":"pg.public.orders.Value","field":"before"},{"type":"struct","fields":)" +
         row +
         R"(,"optional":true,"name":"pg.public.orders.Value","field":"after"},)"
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},)"
         R"({"type":"string","optional":false,"field":"connector"},)"
         R"({"type":"string","optional":false,"field":"name"},)"
         R"({"type":"int64","optional":false,"field":"ts_ms"},)"
         R"({"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"parameters":{"allowed":"true,last,false,incremental"},"default":"false","field":"snapshot"},)"
         R"({"type":"string","optional":false,"field":"db"},)"
         R"({"type":"string","optional":true,"field":"sequence"},)"
         R"({"type":"string","optional":false,"field":"schema"},)"
         R"({"type":"string","optional":false,"field":"table"},)"
         R"({"type":"int64","optional":true,"field":"txId"},)"
         R"({"type":"int64","optional":true,"field":"lsn"},)"
         R"({"type":"int64","optional":true,"field":"xmin"}],"optional":false,"name":"io.debezium.connector.postgresql.Source","field":"source"},)"
         R"({"type":"string","optional":false,"field":"op"},)"
         R"({"type":"int64","optional":true,"field":"ts_ms"},)"
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},)"
         R"({"type":"int64","optional":false,"field":"total_order"},)"
         R"({"type":"int64","optional":false,"field":"data_collection_order"}],"optional":true,"field":"transaction"}],)"
         R"("optional":false,"name":"pg.public.orders.Envelope"})";
}

constexpr const char* kStatuses[] = {"new", "paid", "shipped", "delivered", "returned"};

// One row image: every column, or (a delete's before image under REPLICA IDENTITY DEFAULT) the
// key with NULLs.
void AppendRow(int64_t id, int64_t version, bool key_only, std::mt19937_64& rng, std::string* out) {
  char buf[512];
  if (key_only) {
    std::snprintf(buf, sizeof buf,
                  R"({"id":%lld,"account_id":null,"quantity":null,"amount":null,"name":null,)"
                  R"("email":null,"status":null,"created_at":null,"birth_date":null,)"
                  R"("active":null,"version":null,"note":null})",
                  static_cast<long long>(id));
    out->append(buf);
    return;
  }
  std::string amount;
  AppendBase64(DecimalBytes(static_cast<int64_t>(rng() % 20'000'000) - 1'000'000), &amount);
  const uint64_t r = rng();
  const bool has_note = r % 4 == 0;
  std::snprintf(
      buf, sizeof buf,
      R"({"id":%lld,"account_id":%lld,"quantity":%d,"amount":"%s","name":"customer %06lld",)"
      R"("email":"user%lld@example.com","status":"%s","created_at":%lld,"birth_date":%d,)"
      R"("active":%s,"version":%lld,"note":%s})",
      static_cast<long long>(id), static_cast<long long>(9'000'000'000LL + id % 50'000),
      static_cast<int>(r % 500), amount.c_str(), static_cast<long long>(id % 1'000'000),
      static_cast<long long>(id), kStatuses[(r >> 8) % 5],
      static_cast<long long>(1'700'000'000'000'000LL + id * 1'000'003LL),
      static_cast<int>(3650 + id % 15000), (r >> 16) % 3 ? "true" : "false",
      static_cast<long long>(version), has_note ? "\"gift wrap, leave at the door\"" : "null");
  out->append(buf);
}

struct StreamStats {
  int64_t creates = 0, updates = 0, deletes = 0;
  uint64_t bytes = 0;
};

// Writes `events` events to `path`: the first 1000 and then 10% creates of new ids, 80% updates
// and 10% deletes of ids created so far (a deleted id may be deleted or updated again: the
// applier discards or re-inserts it as SCD1 says).
StreamStats WriteStream(const std::string& path, int64_t events, bool with_schema) {
  std::mt19937_64 rng(42);
  std::ofstream out(path, std::ios::binary);
  const std::string schema = with_schema ? ValueSchema() : "";
  StreamStats stats;
  std::string line;
  int64_t next_id = 1;
  int64_t lsn = 24'023'128;
  for (int64_t e = 0; e < events; ++e) {
    const uint64_t pick = rng() % 100;
    char op = next_id <= 1000 || pick < 10 ? 'c' : pick < 90 ? 'u' : 'd';
    const int64_t id = op == 'c' ? next_id++ : 1 + static_cast<int64_t>(rng() % (next_id - 1));
    lsn += 56 + static_cast<int64_t>(rng() % 200);
    line.clear();
    if (with_schema) line += "{\"schema\":" + schema + ",\"payload\":";
    line += "{\"before\":";
    if (op == 'd') {
      AppendRow(id, e, true, rng, &line);
      line += ",\"after\":null";
    } else {
      line += "null,\"after\":";
      AppendRow(id, e, false, rng, &line);
    }
    char source[512];
    const long long ts = 1'700'000'000'000LL + e;
    std::snprintf(source, sizeof source,
                  R"(,"source":{"version":"2.5.0.Final","connector":"postgresql","name":"pg",)"
                  R"("ts_ms":%lld,"snapshot":"false","db":"shop","sequence":"[\"%lld\",\"%lld\"]",)"
                  R"("schema":"public","table":"orders","txId":%lld,"lsn":%lld,"xmin":null},)"
                  R"("op":"%c","ts_ms":%lld,"transaction":null})",
                  ts, static_cast<long long>(lsn - 40), static_cast<long long>(lsn),
                  static_cast<long long>(700 + e / 3), static_cast<long long>(lsn), op, ts + 7);
    line += source;
    if (with_schema) line += "}";
    line += "\n";
    out << line;
    stats.bytes += line.size();
    (op == 'c' ? stats.creates : op == 'u' ? stats.updates : stats.deletes) += 1;
  }
  out.close();
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  return stats;
}

// --- the runs ---

struct Measurement {
  std::string what;
  std::string schema;
  int64_t events = 0;
  int64_t rows = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  double apply_seconds = 0;  // end to end: the part spent in Apply
};

void Fail(const cdclake::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  std::exit(1);
}

// Reads the file through the change source (decode only); returns the rows read.
int64_t DecodeAll(const std::string& path, bool keep_row_text) {
  cdclake::io::LocalFileSystem& fs = *cdclake::io::LocalFileSystem::Instance();
  cdclake::sources::ChangeSourceOptions options;
  options.keep_row_text = keep_row_text;
  auto source = cdclake::sources::OpenChangeSource(
      fs, path, cdclake::sources::SourceFormat::kDebezium, options);
  if (!source.ok()) Fail(source.status());
  int64_t rows = 0;
  for (;;) {
    auto batch = (*source)->Next();
    if (!batch.ok()) Fail(batch.status());
    if (!batch->has_value()) break;
    rows += (*batch)->rows.num_rows();
    if (!(*batch)->rejected.empty()) {
      std::fprintf(stderr, "rejected: %s\n", (*batch)->rejected[0].reason.c_str());
      std::exit(1);
    }
  }
  return rows;
}

cdclake::apply::FlowDefinition DebeziumFlow(const std::string& target) {
  cdclake::apply::FlowDefinition flow;
  flow.name = "debezium_bench";
  flow.target = target;
  flow.keys = {"id"};
  flow.sequence_by = {"_seq"};
  flow.scd_type = cdclake::apply::ScdType::kType1;
  flow.delete_when = Expr::Compare(cdclake::data::CompareOp::kEq, Expr::Column({"_op"}),
                                   Expr::Literal(Value::Bytes("d"), DataType::String()));
  flow.truncate_when = Expr::Compare(cdclake::data::CompareOp::kEq, Expr::Column({"_op"}),
                                     Expr::Literal(Value::Bytes("t"), DataType::String()));
  flow.columns = cdclake::apply::ColumnSelection::Except(cdclake::sources::ChangeStreamColumns());
  return flow;
}

// Appends every row of `from` to `into` (same schema).
void AppendBatch(cdclake::change::ChangeBatch&& from, cdclake::change::ChangeBatch* into) {
  if (into->rows.num_columns() == 0) {
    *into = std::move(from);
    return;
  }
  if (!(into->rows.schema() == from.rows.schema())) {
    std::fprintf(stderr, "a batch changed schema mid-stream\n");
    std::exit(1);
  }
  for (size_t c = 0; c < from.rows.num_columns(); ++c) {
    into->rows.mutable_column(c).AppendColumn(from.rows.column(c));
  }
  into->positions.Append(from.positions);
  into->raw.Append(from.raw);
}

// Reads and applies the file into a fresh table under `dir`; returns the rows read.
int64_t ApplyAll(const std::string& path, const std::string& dir, int64_t apply_batch,
                 double* apply_seconds) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  cdclake::io::LocalFileSystem& fs = *cdclake::io::LocalFileSystem::Instance();
  auto source =
      cdclake::sources::OpenChangeSource(fs, path, cdclake::sources::SourceFormat::kDebezium, {});
  if (!source.ok()) Fail(source.status());
  cdclake::apply::ApplyOptions options;
  options.quarantine_table = dir + "/target_quarantine";
  auto applier = cdclake::apply::Applier::Open(fs, DebeziumFlow(dir + "/target"), options);
  if (!applier.ok()) Fail(applier.status());
  int64_t rows = 0;
  *apply_seconds = 0;
  cdclake::change::ChangeBatch pending;
  auto apply = [&] {
    if (pending.rows.num_rows() == 0) return;
    auto start = std::chrono::steady_clock::now();
    auto result = (*applier)->Apply(pending);
    if (!result.ok()) Fail(result.status());
    if (result->counts.quarantined != 0) {
      std::fprintf(stderr, "%lld rows quarantined\n",
                   static_cast<long long>(result->counts.quarantined));
      std::exit(1);
    }
    *apply_seconds += Seconds(start);
    pending = cdclake::change::ChangeBatch();
  };
  for (;;) {
    auto batch = (*source)->Next();
    if (!batch.ok()) Fail(batch.status());
    if (!batch->has_value()) break;
    rows += (*batch)->rows.num_rows();
    AppendBatch(std::move(**batch), &pending);
    if (apply_batch > 0 && pending.rows.num_rows() >= apply_batch) apply();
  }
  apply();
  return rows;
}

void Print(const Measurement& m) {
  std::printf(
      "{\"bench\":\"debezium\",\"what\":\"%s\",\"schema\":\"%s\",\"events\":%lld,\"rows\":%lld,"
      "\"bytes\":%llu,\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"apply_seconds\":%.3f,"
      "\"events_per_s\":%.0f,\"events_per_cpu_s\":%.0f,\"mb_per_s\":%.1f}\n",
      m.what.c_str(), m.schema.c_str(), static_cast<long long>(m.events),
      static_cast<long long>(m.rows), static_cast<unsigned long long>(m.bytes), m.seconds,
      m.cpu_seconds, m.apply_seconds, static_cast<double>(m.events) / m.seconds,
      static_cast<double>(m.events) / m.cpu_seconds,
      static_cast<double>(m.bytes) / 1e6 / m.seconds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);
  std::filesystem::create_directories(args.dir);
  std::vector<bool> variants;
  if (args.schema != "without") variants.push_back(true);
  if (args.schema != "with") variants.push_back(false);
  std::vector<Measurement> all;
  for (bool with_schema : variants) {
    const std::string label = with_schema ? "with" : "without";
    const std::string path =
        args.dir + "/events-" + std::to_string(args.events) + "-" + label + "-schema.json";
    StreamStats stats;
    if (args.keep && std::filesystem::exists(path)) {
      stats.creates = stats.updates = stats.deletes = -1;  // not counted again
      stats.bytes = std::filesystem::file_size(path);
    } else {
      stats = WriteStream(path, args.events, with_schema);
    }
    std::fprintf(stderr,
                 "%s schema: %lld events (%lld c, %lld u, %lld d), %.1f MB, %.0f bytes/event\n",
                 label.c_str(), static_cast<long long>(args.events),
                 static_cast<long long>(stats.creates), static_cast<long long>(stats.updates),
                 static_cast<long long>(stats.deletes), static_cast<double>(stats.bytes) / 1e6,
                 static_cast<double>(stats.bytes) / static_cast<double>(args.events));
    for (int run = 0; run < args.runs; ++run) {
      if (args.only != "apply") {
        for (bool keep_text : {true, false}) {
          Measurement m{keep_text ? "decode" : "decode_no_raw", label, args.events, 0, stats.bytes};
          auto start = std::chrono::steady_clock::now();
          const double cpu = CpuSeconds();
          m.rows = DecodeAll(path, keep_text);
          m.seconds = Seconds(start);
          m.cpu_seconds = CpuSeconds() - cpu;
          Print(m);
          all.push_back(m);
        }
      }
      if (args.only != "decode") {
        Measurement m{"decode+apply", label, args.events, 0, stats.bytes};
        auto start = std::chrono::steady_clock::now();
        const double cpu = CpuSeconds();
        m.rows = ApplyAll(path, args.dir + "/table-" + label, args.apply_batch, &m.apply_seconds);
        m.seconds = Seconds(start);
        m.cpu_seconds = CpuSeconds() - cpu;
        Print(m);
        all.push_back(m);
        std::filesystem::remove_all(args.dir + "/table-" + label);
      }
    }
    if (!args.keep) std::filesystem::remove(path);
  }
  std::printf("\n%-14s %-8s %10s %8s %8s %12s %12s %8s %8s\n", "run", "schema", "events", "wall s",
              "cpu s", "events/s", "events/cpu-s", "MB/s", "apply s");
  for (const Measurement& m : all) {
    std::printf("%-14s %-8s %10lld %8.2f %8.2f %12.0f %12.0f %8.1f %8.2f\n", m.what.c_str(),
                m.schema.c_str(), static_cast<long long>(m.events), m.seconds, m.cpu_seconds,
                static_cast<double>(m.events) / m.seconds,
                static_cast<double>(m.events) / m.cpu_seconds,
                static_cast<double>(m.bytes) / 1e6 / m.seconds, m.apply_seconds);
  }
  return 0;
}
