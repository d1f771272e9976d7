// apply_bench: the apply engine's cost per batch as a target grows. Loads a target of N rows,
// then applies batches of changes (70% updates, 20% inserts, 10% deletes over Zipf-skewed
// keys), re-applies the last batch (which must change nothing), and prints one JSON line per
// measurement plus the peak RSS (of the load, and since the load). Changes come from memory,
// or from CSV / JSON Lines files read by the change-file reader (the files are written before
// the clock starts). --write-csv also writes the workload (load.csv, then batch-<n>.csv) for a
// peer, untimed.
//
//   apply_bench --dir DIR --rows N [--batch 100000] [--batches 5] [--scd 1|2]
//               [--source memory|csv|jsonl] [--load-batch 250000] [--seed 1]
//               [--write-csv OUT_DIR] [--full-states 0|1]
//
// --full-states 1 keeps SCD1 key states' row values in the key index (as before digests).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "change/change_batch.h"
#include "data/decimal.h"
#include "data/record_batch.h"
#include "data/value_format.h"
#include "io/local_file_system.h"
#include "sources/files/change_file_reader.h"

namespace {

using cdclake::data::DataType;
using cdclake::data::Value;

struct Args {
  std::string dir;
  int64_t rows = 1'000'000;
  int64_t batch = 100'000;
  int batches = 5;
  int scd = 1;
  std::string source = "memory";
  int64_t load_batch = 250'000;
  uint64_t seed = 1;
  std::string write_csv;
  bool full_states = false;
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir")
      a.dir = v;
    else if (k == "--rows")
      a.rows = std::stoll(v);
    else if (k == "--batch")
      a.batch = std::stoll(v);
    else if (k == "--batches")
      a.batches = std::stoi(v);
    else if (k == "--scd")
      a.scd = std::stoi(v);
    else if (k == "--source")
      a.source = v;
    else if (k == "--load-batch")
      a.load_batch = std::stoll(v);
    else if (k == "--seed")
      a.seed = std::stoull(v);
    else if (k == "--write-csv")
      a.write_csv = v;
    else if (k == "--full-states")
      a.full_states = v == "1";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  if (a.dir.empty()) {
    std::fprintf(stderr, "usage: apply_bench --dir DIR --rows N [...]\n");
    std::exit(2);
  }
  return a;
}

// Zipf(theta) over ranks 0..n-1 (Gray et al.'s method), ranks scattered over keys.
class Zipf {
 public:
  Zipf(int64_t n, double theta) : n_(n), theta_(theta) {
    for (int64_t i = 1; i <= n; ++i) zeta_n_ += 1.0 / std::pow(static_cast<double>(i), theta);
    double zeta2 = 1.0 + 1.0 / std::pow(2.0, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta2 / zeta_n_);
  }
  int64_t Next(std::mt19937_64& rng) const {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    double uz = u * zeta_n_;
    int64_t rank;
    if (uz < 1.0) {
      rank = 0;
    } else if (uz < 1.0 + std::pow(0.5, theta_)) {
      rank = 1;
    } else {
      rank =
          static_cast<int64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    }
    if (rank >= n_) rank = n_ - 1;
    // Scatter: hot keys are not neighbours in the table's files.
    return static_cast<int64_t>((static_cast<unsigned __int128>(rank) * 2654435761u) %
                                static_cast<unsigned __int128>(n_));
  }

 private:
  int64_t n_;
  double theta_;
  double zeta_n_ = 0, alpha_ = 0, eta_ = 0;
};

cdclake::data::Schema SourceSchema() {
  return cdclake::data::Schema({{"id", DataType::Int64(), true},
                                {"amount", DataType::Decimal(12, 2), true},
                                {"qty", DataType::Int32(), true},
                                {"name", DataType::String(), true},
                                {"updated_at", DataType::Timestamp(), true},
                                {"op", DataType::String(), true},
                                {"seq", DataType::Int64(), true}});
}

void AppendChange(cdclake::data::RecordBatch& b, int64_t id, int64_t seq, const char* op,
                  std::mt19937_64& rng) {
  char name[24];
  std::snprintf(name, sizeof name, "customer-%010lld", static_cast<long long>(rng() % 100000000));
  b.AppendRow({Value::Int(id), Value::Decimal(static_cast<cdclake::data::Int128>(rng() % 10000000)),
               Value::Int(static_cast<int64_t>(rng() % 1000)), Value::Bytes(name),
               Value::Int(1'700'000'000'000'000LL + seq * 1000), Value::Bytes(op),
               Value::Int(seq)});
}

// Resets the peak RSS to the current RSS (Linux's clear_refs); false where that is not allowed.
bool ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.close();
  return static_cast<bool>(clear);
}

// A memory line of /proc/self/status in MB ("VmHWM:" the peak RSS, "VmRSS:" the RSS); -1 if none.
double StatusMb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0)
      return static_cast<double>(std::stoll(line.substr(field.size()))) / 1024.0;
  }
  return -1;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Appends `rows` to `out` as CSV (with a header line if `header`) or JSON Lines (the cli's
// formats), in pieces of about 1 MB so that a large batch does not raise the peak RSS.
void AppendChangeRows(std::ofstream& out, const cdclake::data::RecordBatch& rows, bool csv,
                      bool header) {
  std::string text;
  const auto& schema = rows.schema();
  if (csv && header) {
    for (size_t c = 0; c < schema.num_fields(); ++c) text += (c ? "," : "") + schema.field(c).name;
    text += "\n";
  }
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    if (!csv) text += "{";
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      Value v = rows.column(c).GetValue(r);
      if (c) text += ",";
      if (csv) {
        text += cdclake::data::CsvField(v, *schema.field(c).type);
      } else {
        cdclake::data::AppendJsonString(schema.field(c).name, &text);
        text += ":";
        cdclake::data::AppendValueJson(v, *schema.field(c).type, &text);
      }
    }
    text += csv ? "\n" : "}\n";
    if (text.size() > (1 << 20)) {
      out << text;
      text.clear();
    }
  }
  out << text;
}

// Writes `rows` to `path` as CSV or JSON Lines; false if the file could not be written.
bool WriteChangeFile(const std::string& path, const cdclake::data::RecordBatch& rows, bool csv) {
  std::ofstream out(path, std::ios::binary);
  AppendChangeRows(out, rows, csv, true);
  out.close();
  if (!out) std::fprintf(stderr, "cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  Args args = Parse(argc, argv);
  cdclake::io::LocalFileSystem fs;
  std::string target = args.dir + "/target";
  cdclake::apply::FlowDefinition flow;
  flow.name = "bench";
  flow.target = target;
  flow.keys = {"id"};
  flow.sequence_by = {"seq"};
  flow.delete_when = cdclake::data::Expr::Compare(
      cdclake::data::CompareOp::kEq, cdclake::data::Expr::Column({"op"}),
      cdclake::data::Expr::Literal(Value::Bytes("d"), DataType::String()));
  flow.columns = cdclake::apply::ColumnSelection::Except({"op", "seq"});
  flow.scd_type = args.scd == 2 ? cdclake::apply::ScdType::kType2 : cdclake::apply::ScdType::kType1;
  cdclake::apply::ApplyOptions options;
  options.full_states = args.full_states;
  auto opened = cdclake::apply::Applier::Open(fs, flow, options);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  auto& applier = **opened;
  std::mt19937_64 rng(args.seed);
  int64_t seq = 1;

  // Load. The peer's copy of the workload is written outside the timed spans.
  std::ofstream load_csv;
  if (!args.write_csv.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(args.write_csv, ignored);
    load_csv.open(args.write_csv + "/load.csv", std::ios::binary);
    if (!load_csv.is_open()) {
      std::fprintf(stderr, "cannot write %s/load.csv\n", args.write_csv.c_str());
      return 1;
    }
  }
  double write_s = 0;
  auto start = std::chrono::steady_clock::now();
  for (int64_t done = 0; done < args.rows;) {
    int64_t n = std::min(args.load_batch, args.rows - done);
    cdclake::change::ChangeBatch batch;
    batch.rows = cdclake::data::RecordBatch(SourceSchema());
    for (int64_t i = 0; i < n; ++i) AppendChange(batch.rows, done + i, seq, "c", rng);
    if (load_csv.is_open()) {
      auto w0 = std::chrono::steady_clock::now();
      AppendChangeRows(load_csv, batch.rows, true, done == 0);
      write_s += Seconds(w0);
    }
    auto r = applier.Apply(batch);
    if (!r.ok()) {
      std::fprintf(stderr, "load: %s\n", r.status().ToString().c_str());
      return 1;
    }
    done += n;
  }
  ++seq;
  double load_s = Seconds(start) - write_s;
  if (load_csv.is_open()) {
    load_csv.close();
    if (!load_csv) {
      std::fprintf(stderr, "cannot write %s/load.csv\n", args.write_csv.c_str());
      return 1;
    }
  }
  // The load's peak (its batches of --load-batch rows) apart from the change batches' peak.
  // The allocator may keep what the load freed, so the batches' peak starts at the RSS here.
  double load_peak_mb = StatusMb("VmHWM:");
  double rss_after_load_mb = StatusMb("VmRSS:");
  bool peak_reset = ResetPeakRss();
  std::printf(
      "{\"engine\":\"cdclake\",\"phase\":\"load\",\"scd\":%d,\"rows\":%lld,\"source\":\"%s\","
      "\"seconds\":%.3f,\"rows_per_s\":%.0f,\"peak_rss_mb\":%.1f,\"rss_after_mb\":%.1f}\n",
      args.scd, static_cast<long long>(args.rows), args.source.c_str(), load_s,
      static_cast<double>(args.rows) / load_s, load_peak_mb, rss_after_load_mb);
  std::fflush(stdout);

  // Change batches.
  Zipf zipf(args.rows, 0.99);
  int64_t next_key = args.rows;
  cdclake::change::ChangeBatch last;
  for (int b = 0; b < args.batches; ++b) {
    cdclake::change::ChangeBatch batch;
    batch.rows = cdclake::data::RecordBatch(SourceSchema());
    for (int64_t i = 0; i < args.batch; ++i) {
      int dice = static_cast<int>(rng() % 10);
      if (dice < 7) {
        AppendChange(batch.rows, zipf.Next(rng), seq++, "u", rng);
      } else if (dice < 9) {
        AppendChange(batch.rows, next_key++, seq++, "c", rng);
      } else {
        AppendChange(batch.rows, zipf.Next(rng), seq++, "d", rng);
      }
    }
    if (!args.write_csv.empty() &&
        !WriteChangeFile(args.write_csv + "/batch-" + std::to_string(b) + ".csv", batch.rows, true))
      return 1;
    std::string file;
    if (args.source != "memory") {
      bool csv = args.source == "csv";
      file = args.dir + "/changes-" + std::to_string(b) + (csv ? ".csv" : ".jsonl");
      if (!WriteChangeFile(file, batch.rows, csv)) return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    cdclake::change::ChangeBatch input;
    if (file.empty()) {
      input = batch;
    } else {
      cdclake::sources::ChangeFileOptions options;
      options.format = args.source == "csv" ? cdclake::sources::FileFormat::kCsv
                                            : cdclake::sources::FileFormat::kJsonLines;
      options.schema = SourceSchema();
      options.batch_rows = args.batch;
      auto reader = cdclake::sources::ChangeFileReader::Open(fs, file, options);
      if (!reader.ok()) {
        std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
        return 1;
      }
      auto next = (*reader)->Next();
      if (!next.ok() || !*next) {
        std::fprintf(stderr, "reading %s failed\n", file.c_str());
        return 1;
      }
      input = std::move(**next);
    }
    double read_s = Seconds(t0);
    auto r = applier.Apply(input);
    if (!r.ok()) {
      std::fprintf(stderr, "batch %d: %s\n", b, r.status().ToString().c_str());
      return 1;
    }
    double total_s = Seconds(t0);
    const auto& c = r->counts;
    std::printf(
        "{\"engine\":\"cdclake\",\"phase\":\"batch\",\"scd\":%d,\"rows\":%lld,\"source\":\"%s\","
        "\"batch\":%d,"
        "\"events\":%lld,\"ms\":%.1f,\"read_ms\":%.1f,\"events_per_s\":%.0f,\"applied\":%lld,"
        "\"discarded\":%lld,\"inserted\":%lld,\"updated\":%lld,\"deleted\":%lld}\n",
        args.scd, static_cast<long long>(args.rows), args.source.c_str(), b,
        static_cast<long long>(c.read), total_s * 1000, read_s * 1000,
        static_cast<double>(c.read) / total_s, static_cast<long long>(c.applied),
        static_cast<long long>(c.discarded), static_cast<long long>(c.inserted),
        static_cast<long long>(c.updated), static_cast<long long>(c.deleted));
    std::fflush(stdout);
    last = std::move(batch);
  }

  // The last batch again: nothing changes, no version is written.
  auto t0 = std::chrono::steady_clock::now();
  auto r = applier.Apply(last);
  if (!r.ok()) {
    std::fprintf(stderr, "replay: %s\n", r.status().ToString().c_str());
    return 1;
  }
  double noop_ms = Seconds(t0) * 1000;
  std::printf(
      "{\"engine\":\"cdclake\",\"phase\":\"noop\",\"scd\":%d,\"rows\":%lld,\"source\":\"%s\","
      "\"ms\":%.1f,\"applied\":%lld,\"version_written\":%s}\n",
      args.scd, static_cast<long long>(args.rows), args.source.c_str(), noop_ms,
      static_cast<long long>(r->counts.applied), r->version ? "true" : "false");
  std::printf(
      "{\"engine\":\"cdclake\",\"phase\":\"memory\",\"scd\":%d,\"rows\":%lld,\"source\":\"%s\","
      "\"peak_rss_mb\":%.1f,\"load_peak_rss_mb\":%.1f,\"since_load\":%s}\n",
      args.scd, static_cast<long long>(args.rows), args.source.c_str(), StatusMb("VmHWM:"),
      load_peak_mb, peak_reset ? "true" : "false");
  return 0;
}
