// Key index benchmark: the memory map against RocksDB on the local disk, each in its own child
// process so that peak RSS is its own. Bulk load, MultiGet (uniform, Zipf, misses), updates.
// Prints a markdown table. Settings: CDCLAKE_BENCH_KEYS, _BATCH, _ROUNDS, _CACHE_MB, _ENGINES
// (memory,rocksdb), _SETTLE (0: look-ups right after the load, during its compaction).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apply/key_index.h"
#include "io/scratch_dir.h"

namespace cdclake {
namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  int64_t keys = 2'000'000;
  int64_t batch = 100'000;
  int64_t rounds = 10;  // batches per MultiGet and update phase
  int64_t cache_mb = 256;
  bool settle = true;  // wait for compaction after the bulk load
};

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  int64_t n = std::atoll(v);
  return n > 0 ? n : fallback;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "key_index_bench: %s\n", s.ToString().c_str());
  return 1;
}

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void PutBigEndian(char* out, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
}

// Key number i: 16 bytes, a hash of i then i, so that keys in load order are in random key order
// (as hashed primary keys would be). Numbers at or past the key count are never stored.
std::string Key(uint64_t i) {
  std::string k(16, '\0');
  PutBigEndian(k.data(), Mix(i));
  PutBigEndian(k.data() + 8, i);
  return k;
}

// ~60 bytes shaped like an encoded key state: some high-entropy fields, some repetitive ones.
std::string Value(uint64_t i, uint64_t version) {
  std::string v(60, '\0');
  PutBigEndian(v.data(), Mix(i ^ (version << 40)));
  PutBigEndian(v.data() + 8, version);
  PutBigEndian(v.data() + 16, Mix(i + 1) & 0xffffff);
  std::snprintf(v.data() + 24, 36, "part-%05llu.parquet#%010llu",
                static_cast<unsigned long long>(i % 1000), static_cast<unsigned long long>(i));
  return v;
}

// Zipf-distributed ranks in [0, n) with exponent theta < 1 (Gray et al.'s method, as YCSB uses).
class Zipf {
 public:
  Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
    double zeta_n = 0;
    for (uint64_t i = 1; i <= n; ++i) zeta_n += 1.0 / std::pow(static_cast<double>(i), theta);
    double zeta_2 = 1.0 + 1.0 / std::pow(2.0, theta);
    zeta_n_ = zeta_n;
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta_2 / zeta_n);
  }

  uint64_t Next(std::mt19937_64& rng) {
    double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    double uz = u * zeta_n_;
    if (uz < 1.0) return 0;
    if (uz < 1.0 + std::pow(0.5, theta_)) return 1;
    auto r =
        static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    return std::min(r, n_ - 1);
  }

 private:
  uint64_t n_;
  double theta_;
  double zeta_n_ = 0;
  double alpha_ = 0;
  double eta_ = 0;
};

// VmRSS and VmHWM of this process, in MB.
void ReadRss(double* rss_mb, double* peak_mb) {
  std::ifstream in("/proc/self/status");
  std::string line;
  *rss_mb = *peak_mb = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) *rss_mb = std::atof(line.c_str() + 6) / 1024.0;
    if (line.rfind("VmHWM:", 0) == 0) *peak_mb = std::atof(line.c_str() + 6) / 1024.0;
  }
}

double DiskMb(const std::string& dir) {
  if (dir.empty()) return -1;
  std::error_code ec;
  uint64_t bytes = 0;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  }
  return static_cast<double>(bytes) / (1 << 20);
}

struct Phase {
  std::vector<double> batch_seconds;
  int64_t keys = 0;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void PrintRow(const char* engine, const char* phase, const Phase& p, const std::string& dir) {
  double total = 0;
  for (double s : p.batch_seconds) total += s;
  double rss = 0, peak = 0;
  ReadRss(&rss, &peak);
  double disk = DiskMb(dir);
  char disk_text[32] = "-";
  if (disk >= 0) std::snprintf(disk_text, sizeof disk_text, "%.0f", disk);
  std::printf("| %s | %s | %lld | %zu | %.0f | %.1f | %.1f | %.0f | %.0f | %s |\n", engine, phase,
              static_cast<long long>(p.keys), p.batch_seconds.size(),
              total > 0 ? static_cast<double>(p.keys) / total : 0.0,
              Percentile(p.batch_seconds, 0.5) * 1e3,
              p.batch_seconds.empty()
                  ? 0.0
                  : *std::max_element(p.batch_seconds.begin(), p.batch_seconds.end()) * 1e3,
              rss, peak, disk_text);
  std::fflush(stdout);
}

Status Load(apply::KeyIndex& index, const Config& c, Phase* phase) {
  for (int64_t from = 0; from < c.keys; from += c.batch) {
    apply::IndexWriteBatch b;
    int64_t to = std::min(c.keys, from + c.batch);
    b.puts.reserve(static_cast<size_t>(to - from));
    for (int64_t i = from; i < to; ++i) b.puts.emplace_back(Key(i), Value(i, 0));
    auto start = Clock::now();
    CDCLAKE_RETURN_IF_ERROR(index.Write(b));
    phase->batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    phase->keys += to - from;
  }
  return Status::OK();
}

enum class Pick { kUniform, kZipf, kMissing };

// `rounds` MultiGets of `batch` keys; checks that stored keys are found and missing ones not.
Status Lookups(apply::KeyIndex& index, const Config& c, Pick pick, Zipf* zipf, std::mt19937_64& rng,
               Phase* phase) {
  std::uniform_int_distribution<uint64_t> uniform(0, static_cast<uint64_t>(c.keys) - 1);
  std::vector<std::optional<std::string>> out;
  for (int64_t r = 0; r < c.rounds; ++r) {
    std::vector<std::string> keys;
    keys.reserve(static_cast<size_t>(c.batch));
    for (int64_t i = 0; i < c.batch; ++i) {
      uint64_t n = pick == Pick::kZipf ? zipf->Next(rng) : uniform(rng);
      if (pick == Pick::kMissing) n += static_cast<uint64_t>(c.keys);
      keys.push_back(Key(n));
    }
    auto start = Clock::now();
    CDCLAKE_RETURN_IF_ERROR(index.MultiGet(keys, &out));
    phase->batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    phase->keys += c.batch;
    for (const auto& v : out) {
      if (v.has_value() == (pick == Pick::kMissing)) {
        return Status::Internal("MultiGet returned a wrong hit or miss");
      }
    }
  }
  return Status::OK();
}

Status Updates(apply::KeyIndex& index, const Config& c, std::mt19937_64& rng, Phase* phase) {
  std::uniform_int_distribution<uint64_t> uniform(0, static_cast<uint64_t>(c.keys) - 1);
  for (int64_t r = 0; r < c.rounds; ++r) {
    apply::IndexWriteBatch b;
    b.puts.reserve(static_cast<size_t>(c.batch));
    for (int64_t i = 0; i < c.batch; ++i) {
      uint64_t n = uniform(rng);
      b.puts.emplace_back(Key(n), Value(n, static_cast<uint64_t>(r) + 1));
    }
    auto start = Clock::now();
    CDCLAKE_RETURN_IF_ERROR(index.Write(b));
    phase->batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    phase->keys += c.batch;
  }
  return Status::OK();
}

// Every phase against one engine; `dir` is empty for the memory map.
Status RunPhases(const char* engine, std::unique_ptr<apply::KeyIndex>& index, const Config& c,
                 const std::string& dir) {
  std::mt19937_64 rng(42);
  Zipf zipf(static_cast<uint64_t>(c.keys), 0.99);
  PrintRow(engine, "start", Phase{}, dir);
  Phase load, uniform, skewed, missing, updates;
  CDCLAKE_RETURN_IF_ERROR(Load(*index, c, &load));
  PrintRow(engine, "bulk load (Write)", load, dir);
  if (!dir.empty() && c.settle) {
    // Background compaction after a bulk load competes with the look-ups for the CPU; wait until
    // the folder's size has stayed the same for 3 s (at most 2 min) to measure a settled store.
    Phase settle;
    auto start = Clock::now();
    double last = -1;
    int stable = 0;
    while (stable < 3 && Clock::now() - start < std::chrono::minutes(2)) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      double now = DiskMb(dir);
      stable = now == last ? stable + 1 : 0;
      last = now;
    }
    settle.batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    PrintRow(engine, "wait for compaction (ms)", settle, dir);
  }
  CDCLAKE_RETURN_IF_ERROR(Lookups(*index, c, Pick::kUniform, &zipf, rng, &uniform));
  PrintRow(engine, "MultiGet uniform", uniform, dir);
  CDCLAKE_RETURN_IF_ERROR(Lookups(*index, c, Pick::kZipf, &zipf, rng, &skewed));
  PrintRow(engine, "MultiGet zipf 0.99", skewed, dir);
  CDCLAKE_RETURN_IF_ERROR(Lookups(*index, c, Pick::kMissing, &zipf, rng, &missing));
  PrintRow(engine, "MultiGet absent keys", missing, dir);
  CDCLAKE_RETURN_IF_ERROR(Updates(*index, c, rng, &updates));
  PrintRow(engine, "update (Write)", updates, dir);
  if (dir.empty()) return Status::OK();

  // Close (which flushes the memtable) and reopen, then lookups with a cold block cache.
  Phase close, reopen;
  auto start = Clock::now();
  index.reset();
  close.batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  PrintRow(engine, "close (ms)", close, dir);
  start = Clock::now();
  CDCLAKE_ASSIGN_OR_RETURN(index, apply::OpenRocksKeyIndex(dir + "/index", c.cache_mb << 20));
  reopen.batch_seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  PrintRow(engine, "open (ms)", reopen, dir);
  Phase cold;
  Config one = c;
  one.rounds = 1;
  CDCLAKE_RETURN_IF_ERROR(Lookups(*index, one, Pick::kUniform, &zipf, rng, &cold));
  PrintRow(engine, "MultiGet uniform after reopen", cold, dir);
  return Status::OK();
}

int RunEngine(const std::string& engine, const Config& c) {
  if (engine == "memory") {
    std::unique_ptr<apply::KeyIndex> index = apply::NewMemoryKeyIndex();
    Status s = RunPhases("memory", index, c, "");
    return s.ok() ? 0 : Fail(s);
  }
  if (engine == "rocksdb") {
    auto dir = io::ScratchDir::Create("cdclake-keyindex-bench-");
    if (!dir.ok()) return Fail(dir.status());
    auto index = apply::OpenRocksKeyIndex(dir->path() + "/index", c.cache_mb << 20);
    if (!index.ok()) return Fail(index.status());
    std::string label = "rocksdb " + std::to_string(c.cache_mb) + " MB cache";
    Status s = RunPhases(label.c_str(), *index, c, dir->path());
    index->reset();  // closed before its folder goes
    return s.ok() ? 0 : Fail(s);
  }
  std::fprintf(stderr, "key_index_bench: unknown engine %s\n", engine.c_str());
  return 1;
}

int Main() {
  Config c;
  c.keys = EnvInt("CDCLAKE_BENCH_KEYS", c.keys);
  c.batch = EnvInt("CDCLAKE_BENCH_BATCH", c.batch);
  c.rounds = EnvInt("CDCLAKE_BENCH_ROUNDS", c.rounds);
  c.cache_mb = EnvInt("CDCLAKE_BENCH_CACHE_MB", c.cache_mb);
  const char* settle = std::getenv("CDCLAKE_BENCH_SETTLE");
  c.settle = settle == nullptr || std::strcmp(settle, "0") != 0;
  const char* engines_env = std::getenv("CDCLAKE_BENCH_ENGINES");
  std::string engines = engines_env != nullptr && *engines_env ? engines_env : "memory,rocksdb";

  std::printf(
      "Key index: %lld keys (16 B keys, 60 B values), batches of %lld, %lld batches per "
      "lookup and update phase. RSS is the child process's own (MB).\n\n",
      static_cast<long long>(c.keys), static_cast<long long>(c.batch),
      static_cast<long long>(c.rounds));
  std::printf(
      "| engine | phase | keys | batches | keys/s | ms/batch p50 | ms/batch max | RSS MB | "
      "peak RSS MB | disk MB |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);

  int rc = 0;
  size_t pos = 0;
  while (pos <= engines.size()) {
    size_t comma = engines.find(',', pos);
    if (comma == std::string::npos) comma = engines.size();
    std::string engine = engines.substr(pos, comma - pos);
    pos = comma + 1;
    if (engine.empty()) continue;
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("key_index_bench: fork");
      return 1;
    }
    if (pid == 0) {
      int child_rc = RunEngine(engine, c);
      std::fflush(stdout);
      _exit(child_rc);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
  }
  return rc;
}

}  // namespace
}  // namespace cdclake

int main() {
  return cdclake::Main();
}
