// Parquet write and read throughput: N rows of (int64, double, 20-byte string, nullable int)
// with snappy, written to a local file and read back in full. Prints one JSON line per phase.
// Run through scripts/bench-micro, which puts DuckDB (one thread) beside it on the same data shape;
// the writer runs on one thread too (WriterOptions::threads = 1), like DuckDB here.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/local_file_system.h"
#include "parquet/reader/file_reader.h"
#include "parquet/writer/file_writer.h"

namespace cdclake {
namespace {

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

data::RecordBatch MakeBatch(int64_t begin, int64_t end) {
  data::Schema schema({{"id", data::DataType::Int64(), true},
                       {"score", data::DataType::Double(), true},
                       {"name", data::DataType::String(), true},
                       {"qty", data::DataType::Int32(), true}});
  data::RecordBatch batch(schema);
  for (auto& c : {0, 1, 2, 3}) batch.mutable_column(c).Reserve(end - begin);
  char buf[32];
  for (int64_t i = begin; i < end; ++i) {
    uint64_t h = SplitMix(static_cast<uint64_t>(i));
    batch.mutable_column(0).Append<int64_t>(i);
    batch.mutable_column(1).Append<double>(static_cast<double>(h >> 11) * 0x1.0p-53);
    std::snprintf(buf, sizeof(buf), "%016llx%04x", static_cast<unsigned long long>(h),
                  static_cast<unsigned>(i & 0xFFFF));
    batch.mutable_column(2).AppendBytes(std::string_view(buf, 20));
    if (i % 10 == 0) {
      batch.mutable_column(3).AppendNull();
    } else {
      batch.mutable_column(3).Append<int32_t>(static_cast<int32_t>((i * 7) % 1000));
    }
  }
  return batch;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: parquet_bench OUT.parquet ROWS [READ_ALSO.parquet]\n");
    return 2;
  }
  std::string path = argv[1];
  int64_t rows = std::atoll(argv[2]);
  auto& fs = *io::LocalFileSystem::Instance();

  // Generate outside the timed region, in slices as a streaming writer would receive them.
  constexpr int64_t kSlice = 1 << 20;
  std::vector<data::RecordBatch> batches;
  for (int64_t b = 0; b < rows; b += kSlice)
    batches.push_back(MakeBatch(b, std::min(rows, b + kSlice)));

  auto start = std::chrono::steady_clock::now();
  parquet::WriterOptions options;
  options.threads = 1;
  auto writer = parquet::FileWriter::Open(fs, path, batches[0].schema(), options);
  if (!writer.ok()) return std::fprintf(stderr, "%s\n", writer.status().ToString().c_str()), 1;
  for (const auto& b : batches) {
    Status s = (*writer)->Write(b);
    if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
  }
  Status s = (*writer)->Close();
  if (!s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
  double write_s = Seconds(start);
  auto size = fs.Stat(path)->size;
  std::printf(
      "{\"engine\":\"cdclake\",\"phase\":\"write\",\"rows\":%lld,\"seconds\":%.3f,\"bytes\":%llu}"
      "\n",
      static_cast<long long>(rows), write_s, static_cast<unsigned long long>(size));

  for (int i = 1; i < argc; i += (i == 1 ? 2 : 1)) {
    std::string read_path = i == 1 ? path : argv[i];
    start = std::chrono::steady_clock::now();
    auto reader = parquet::FileReader::Open(fs, read_path);
    if (!reader.ok()) return std::fprintf(stderr, "%s\n", reader.status().ToString().c_str()), 1;
    int64_t got = 0;
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      auto batch = (*reader)->ReadRowGroup(g);
      if (!batch.ok()) return std::fprintf(stderr, "%s\n", batch.status().ToString().c_str()), 1;
      got += batch->num_rows();
    }
    double read_s = Seconds(start);
    std::printf(
        "{\"engine\":\"cdclake\",\"phase\":\"read\",\"file\":\"%s\",\"rows\":%lld,\"seconds\":%.3f,"
        "\"bytes\":%llu}\n",
        i == 1 ? "own" : "peer", static_cast<long long>(got), read_s,
        static_cast<unsigned long long>(fs.Stat(read_path)->size));
  }
  return 0;
}

}  // namespace
}  // namespace cdclake

int main(int argc, char** argv) {
  return cdclake::Run(argc, argv);
}
