// ledger_bench: how long planning a flow run takes over a folder of N files (default 100,000)
// whose every file is in the flow's ledger already (the steady state of a long-lived stream):
// listing, loading the position and the ledger, and checking each file against it. Also the
// ledger's size on disk. Usage: ledger_bench [N] [folder]; prints one line per figure.
#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "apply/flow_domain.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "pipeline/file_input_internal.h"
#include "pipeline/file_ledger.h"
#include "pipeline/flow_position.h"

namespace cdclake {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Fail(const Status& s) {
  std::fprintf(stderr, "ledger_bench: %s\n", s.ToString().c_str());
  return 1;
}

int Run(int64_t n, const std::string& root) {
  io::LocalFileSystem fs;
  const std::string land = root + "/land";
  const std::string table = root + "/table";
  auto started = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "/topic+%lld+%010lld.csv", static_cast<long long>(i % 7),
                  static_cast<long long>(i));
    Status s = fs.WriteFile(land + name, "id,v,seq\n1,a,1\n");
    if (!s.ok()) return Fail(s);
  }
  std::printf("files written: %lld in %.2f s\n", static_cast<long long>(n), Seconds(started));

  // The ledger as a long stream leaves it: every file read whole.
  auto run = pipeline::ListRunFiles(fs, {{land, sources::SourceFormat::kCsv}}, "");
  if (!run.ok()) return Fail(run.status());
  std::unordered_map<std::string, pipeline::LedgerEntry> entries;
  for (const pipeline::RunFile& f : run->files) {
    auto info = fs.Stat(f.path);
    if (!info.ok()) return Fail(info.status());
    entries[f.path] = pipeline::LedgerEntry{static_cast<int64_t>(info->size),
                                            info->modification_time_ms,
                                            static_cast<int64_t>(info->size),
                                            true,
                                            std::nullopt,
                                            ""};
  }
  pipeline::FileLedger ledger(pipeline::LedgerFolder(table, "f"));
  auto ref = ledger.Record(fs, entries);
  if (!ref.ok()) return Fail(ref.status());
  int64_t bytes = 0;
  auto listed = fs.List(pipeline::LedgerFolder(table, "f"));
  if (!listed.ok()) return Fail(listed.status());
  for (const io::FileInfo& f : *listed) bytes += static_cast<int64_t>(f.size);
  std::printf("ledger: %zu entries, %lld bytes\n", entries.size(), static_cast<long long>(bytes));

  delta::TableSpec spec;
  spec.schema = data::Schema({{"id", data::DataType::Int64()}});
  auto created = delta::CreateTable(fs, table, spec);
  if (!created.ok()) return Fail(created.status());
  pipeline::FlowPosition position =
      pipeline::PositionAfter(*run, pipeline::ReadPoint{n - 1, 0}, *ref);
  delta::Transaction txn(fs, table, *created);
  txn.Add(*apply::FlowDomain(pipeline::PositionParameters("f", position)));
  auto committed = txn.Commit();
  if (!committed.ok()) return Fail(committed.status());

  // The figure: planning a run that finds nothing new.
  for (int round = 0; round < 3; ++round) {
    started = std::chrono::steady_clock::now();
    auto plan = pipeline::ListRunFiles(fs, {{land, sources::SourceFormat::kCsv}}, "");
    if (!plan.ok()) return Fail(plan.status());
    const double listing = Seconds(started);
    auto resume = pipeline::FindResumePoint(
        fs, &*plan, pipeline::ResumeRequest{table, table + "_q", "f", "t", false, false, nullptr});
    if (!resume.ok()) return Fail(resume.status());
    std::printf("plan %d: %.3f s (listing %.3f s), %zu files left to read of %lld\n", round,
                Seconds(started), listing, plan->files.size(), static_cast<long long>(n));
  }
  return 0;
}

}  // namespace
}  // namespace cdclake

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::stoll(argv[1]) : 100'000;
  if (argc > 2) return cdclake::Run(n, argv[2]);
  auto dir = cdclake::io::ScratchDir::Create("cdclake-ledger-bench-");
  if (!dir.ok()) return cdclake::Fail(dir.status());
  return cdclake::Run(n, dir->path());
}
