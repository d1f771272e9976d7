// Delta log benchmark on the local disk: (a) snapshot load time as a table grows to N one-file
// commits with a checkpoint every 10, (b) the time of each of M appends (p50/p99 per window).
// Prints one JSON line per measurement. Sizes: CDCLAKE_BENCH_COMMITS, CDCLAKE_BENCH_APPENDS.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "delta/checkpoint_writer.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  int64_t n = std::atoll(v);
  return n > 0 ? n : fallback;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "delta_bench: %s\n", s.ToString().c_str());
  return 1;
}

delta::TableSpec Spec() {
  delta::TableSpec spec;
  spec.schema = data::Schema({{"id", data::DataType::Int64(), true},
                              {"name", data::DataType::String(), true},
                              {"amount", data::DataType::Double(), true}});
  return spec;
}

// A small append: `n` rows starting at `from`.
data::RecordBatch Rows(int64_t from, int64_t n) {
  data::RecordBatch b(Spec().schema);
  for (int64_t i = from; i < from + n; ++i) {
    b.AppendRow({data::Value::Int(i), data::Value::Bytes("name-" + std::to_string(i)),
                 data::Value::Double(static_cast<double>(i) * 0.25)});
  }
  return b;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Median of `repeat` loads of `version` (default: the latest), in seconds.
Result<double> TimeLoad(const io::FileSystem& fs, const std::string& root, int repeat,
                        std::optional<int64_t> version, size_t* files) {
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto start = Clock::now();
    CDCLAKE_ASSIGN_OR_RETURN(auto snap, delta::Snapshot::Load(fs, root, version));
    times.push_back(Seconds(start));
    *files = snap->files().size();
  }
  return Percentile(times, 0.5);
}

int PrintLoad(const io::FileSystem& fs, const std::string& root, const char* what, int64_t commits,
              std::optional<int64_t> version) {
  size_t files = 0;
  auto load = TimeLoad(fs, root, 5, version, &files);
  if (!load.ok()) return Fail(load.status());
  // How much of it is listing `_delta_log` (every commit and checkpoint so far).
  std::vector<double> list_times;
  Result<delta::LogSegment> seg = Status::NotFound("not listed");
  for (int i = 0; i < 5; ++i) {
    auto start = Clock::now();
    seg = delta::ListLogSegment(fs, root, version);
    list_times.push_back(Seconds(start));
    if (!seg.ok()) return Fail(seg.status());
  }
  std::printf(
      "{\"bench\":\"delta\",\"phase\":\"load\",\"table\":\"%s\",\"commits\":%lld,"
      "\"version\":%lld,\"files\":%zu,\"checkpoint_version\":%lld,\"commits_replayed\":%zu,"
      "\"seconds\":%.4f,\"list_seconds\":%.4f}\n",
      what, static_cast<long long>(commits), static_cast<long long>(seg->version), files,
      static_cast<long long>(seg->checkpoint_version), seg->commits.size(), *load,
      Percentile(list_times, 0.5));
  std::fflush(stdout);
  return 0;
}

// (a) N commits of one small file each, written the way a writer that knows its version does
// (data file, commit with put-if-absent, then the checkpoint when due), so that building the
// table does not itself replay the log N times. The same commits also go to a second log with
// no checkpoints, for comparison. Loads are timed at a few sizes on the way: the latest
// version (a checkpoint and nothing after it), the version before it (the previous checkpoint
// and nine commits: the worst case), and the latest of the log without checkpoints.
int GrowingTable(io::LocalFileSystem& fs, const std::string& root, const std::string& bare,
                 int64_t commits) {
  auto created = delta::CreateTable(fs, root, Spec());
  if (!created.ok()) return Fail(created.status());
  std::shared_ptr<const delta::Snapshot> base = *created;
  auto version0 = fs.ReadFile(delta::CommitPath(root, 0));
  if (!version0.ok()) return Fail(version0.status());
  if (Status s = fs.PutIfAbsent(delta::CommitPath(bare, 0), *version0); !s.ok()) return Fail(s);
  std::set<int64_t> milestones = {1000, 2000, 5000, commits};
  auto build_start = Clock::now();
  double checkpoint_seconds = 0;
  int64_t checkpoints = 0;
  for (int64_t v = 1; v <= commits; ++v) {
    auto adds = delta::WriteDataFiles(fs, *base, Rows(v * 10, 10));
    if (!adds.ok()) return Fail(adds.status());
    delta::CommitInfo info;
    info.value = json::Json{{"timestamp", delta::NowMillis()},
                            {"operation", "WRITE"},
                            {"operationParameters", {{"mode", "Append"}}},
                            {"readVersion", v - 1},
                            {"isBlindAppend", true},
                            {"engineInfo", "cdclake/0.1.0 delta_bench"}};
    std::vector<delta::Action> actions = {info};
    for (delta::Add& a : *adds) actions.push_back(std::move(a));
    std::string commit = delta::ActionsToJsonLines(actions);
    if (Status s = fs.PutIfAbsent(delta::CommitPath(root, v), commit); !s.ok()) return Fail(s);
    if (Status s = fs.PutIfAbsent(delta::CommitPath(bare, v), commit); !s.ok()) return Fail(s);
    if (v % delta::kDefaultCheckpointInterval == 0) {
      auto start = Clock::now();
      Status cp = delta::MaybeCheckpoint(fs, root, v);
      if (!cp.ok()) return Fail(cp);
      double s = Seconds(start);
      checkpoint_seconds += s;
      ++checkpoints;
      if (milestones.count(v)) {
        std::printf(
            "{\"bench\":\"delta\",\"phase\":\"checkpoint\",\"commits\":%lld,\"files\":%lld,"
            "\"seconds\":%.4f}\n",
            static_cast<long long>(v), static_cast<long long>(v), s);
      }
    }
    if (milestones.count(v)) {
      if (int rc = PrintLoad(fs, root, "checkpointed", v, std::nullopt); rc != 0) return rc;
      if (int rc = PrintLoad(fs, root, "checkpointed", v, v - 1); rc != 0) return rc;
      if (int rc = PrintLoad(fs, bare, "commits_only", v, std::nullopt); rc != 0) return rc;
    }
  }
  std::printf(
      "{\"bench\":\"delta\",\"phase\":\"build\",\"commits\":%lld,\"checkpoints\":%lld,"
      "\"checkpoint_seconds\":%.3f,\"seconds\":%.3f}\n",
      static_cast<long long>(commits), static_cast<long long>(checkpoints), checkpoint_seconds,
      Seconds(build_start));
  return 0;
}

// (b) M appends through the public path (AppendRows: load, write, commit, checkpoint when due).
int Appends(io::LocalFileSystem& fs, const std::string& root, int64_t appends) {
  auto created = delta::CreateTable(fs, root, Spec());
  if (!created.ok()) return Fail(created.status());
  std::vector<double> all;
  std::vector<double> window;
  const int64_t kWindow = std::max<int64_t>(1, appends / 10);
  for (int64_t i = 1; i <= appends; ++i) {
    auto start = Clock::now();
    auto v = delta::AppendRows(fs, root, Rows(i * 10, 10));
    double s = Seconds(start);
    if (!v.ok()) return Fail(v.status());
    all.push_back(s);
    window.push_back(s);
    if (i % kWindow == 0 || i == appends) {
      std::printf(
          "{\"bench\":\"delta\",\"phase\":\"append_window\",\"first\":%lld,\"last\":%lld,"
          "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n",
          static_cast<long long>(i - static_cast<int64_t>(window.size()) + 1),
          static_cast<long long>(i), Percentile(window, 0.5) * 1e3, Percentile(window, 0.99) * 1e3,
          *std::max_element(window.begin(), window.end()) * 1e3);
      std::fflush(stdout);
      window.clear();
    }
  }
  std::vector<double> checkpointed, plain;
  for (size_t i = 0; i < all.size(); ++i)
    ((i + 1) % 10 == 0 ? checkpointed : plain).push_back(all[i]);
  double total = 0;
  for (double s : all) total += s;
  std::printf(
      "{\"bench\":\"delta\",\"phase\":\"appends\",\"appends\":%lld,\"p50_ms\":%.3f,"
      "\"p99_ms\":%.3f,\"max_ms\":%.3f,\"plain_p50_ms\":%.3f,\"checkpointing_p50_ms\":%.3f,"
      "\"seconds\":%.3f}\n",
      static_cast<long long>(appends), Percentile(all, 0.5) * 1e3, Percentile(all, 0.99) * 1e3,
      *std::max_element(all.begin(), all.end()) * 1e3, Percentile(plain, 0.5) * 1e3,
      Percentile(checkpointed, 0.5) * 1e3, total);
  return 0;
}

int Run() {
  int64_t commits = EnvInt("CDCLAKE_BENCH_COMMITS", 10000);
  int64_t appends = EnvInt("CDCLAKE_BENCH_APPENDS", 1000);
  auto dir = io::ScratchDir::Create("cdclake-delta-bench-");
  if (!dir.ok()) return Fail(dir.status());
  auto& fs = *io::LocalFileSystem::Instance();
  if (int rc = GrowingTable(fs, dir->path() + "/grown", dir->path() + "/bare", commits); rc != 0) {
    return rc;
  }
  return Appends(fs, dir->path() + "/appends", appends);
}

}  // namespace
}  // namespace cdclake

int main() {
  return cdclake::Run();
}
