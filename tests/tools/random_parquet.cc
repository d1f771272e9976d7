// random_parquet: a test-only program that writes Parquet files with random schemas and values
// (parquet::testing::RandomData), one per seed, for the DuckDB cross-check in tests/duckdb/.
// Usage: random_parquet OUTDIR [--count N] [--seed S] [--codecs a,b,...]. File i (from 0) has seed
// S+i and codec i mod (number of codecs) of the list (default: every codec cdclake writes). Prints
// one line per file it wrote.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "io/local_file_system.h"
#include "parquet/testing/random_data.h"
#include "parquet/writer/file_writer.h"

namespace {

using cdclake::Status;
using cdclake::parquet::WriterOptions;
using cdclake::parquet::format::CompressionCodec;

constexpr CompressionCodec kAllCodecs[] = {
    CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kGzip,
    CompressionCodec::kZstd,         CompressionCodec::kLz4,    CompressionCodec::kLz4Raw,
};

// Our names for the codecs: "lz4" is the deprecated Hadoop-framed LZ4, "lz4_raw" LZ4_RAW.
const char* CodecText(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "uncompressed";
    case CompressionCodec::kSnappy:
      return "snappy";
    case CompressionCodec::kGzip:
      return "gzip";
    case CompressionCodec::kZstd:
      return "zstd";
    case CompressionCodec::kLz4:
      return "lz4";
    case CompressionCodec::kLz4Raw:
      return "lz4_raw";
    default:
      return "other";
  }
}

// "snappy,zstd" to codecs; false when a name is unknown.
bool ParseCodecs(std::string_view list, std::vector<CompressionCodec>* out) {
  out->clear();
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    bool found = false;
    for (CompressionCodec codec : kAllCodecs) {
      if (name == CodecText(codec)) {
        out->push_back(codec);
        found = true;
      }
    }
    if (!found) return false;
  }
  return !out->empty();
}

template <typename T, size_t N>
T Pick(std::mt19937_64& rng, const T (&choices)[N]) {
  return choices[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

// Writes the file of one seed with `codec`. Small page, row-group and dictionary limits make pages,
// row groups and dictionary fallback happen even in files of a few hundred rows.
Status WriteOne(const std::string& dir, uint64_t seed, CompressionCodec codec) {
  cdclake::parquet::testing::RandomData rd(seed);
  std::mt19937_64& rng = rd.rng();
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };

  WriterOptions options;
  options.compression = codec;
  static constexpr int64_t kPageBytes[] = {64, 512, 4096, 1 << 20};
  static constexpr int64_t kRowGroupRows[] = {7, 100, 1000, 1 << 20};
  static constexpr int64_t kRowGroupBytes[] = {16 << 10, 64LL << 20};
  static constexpr int64_t kDictionaryBytes[] = {128, 2048, 1 << 20};
  options.page_bytes = Pick(rng, kPageBytes);
  options.row_group_rows = Pick(rng, kRowGroupRows);
  options.row_group_bytes = Pick(rng, kRowGroupBytes);
  options.dictionary = uniform(0, 4) != 0;
  options.dictionary_page_bytes = Pick(rng, kDictionaryBytes);

  int num_fields = static_cast<int>(uniform(1, 8));
  int depth = static_cast<int>(uniform(0, 2));
  cdclake::data::Schema schema = rd.Schema(num_fields, depth);
  // Mostly a few hundred to a few thousand rows; now and then a handful, rarely none.
  int64_t size_class = uniform(0, 19);
  int64_t rows = size_class == 0  ? 0
                 : size_class < 4 ? uniform(1, 5)
                 : size_class < 9 ? uniform(6, 300)
                                  : uniform(301, 2500);

  std::string path = dir + "/random_" + std::to_string(seed) + ".parquet";
  auto fs = cdclake::io::LocalFileSystem::Instance();
  auto writer = cdclake::parquet::FileWriter::Open(*fs, path, schema, options);
  if (!writer.ok()) return writer.status();
  // Several Write calls of uneven sizes, as a stream of batches would arrive.
  int64_t written = 0;
  while (written < rows) {
    int64_t n = std::min(rows - written, uniform(1, 700));
    Status s = (*writer)->Write(rd.Batch(schema, n));
    if (!s.ok()) return s;
    written += n;
  }
  if (Status s = (*writer)->Close(); !s.ok()) return s;

  std::printf(
      "%s seed=%llu rows=%lld row_groups=%zu codec=%s page_bytes=%lld row_group_rows=%lld "
      "row_group_bytes=%lld dictionary=%d dictionary_page_bytes=%lld\n",
      path.c_str(), static_cast<unsigned long long>(seed), static_cast<long long>(rows),
      (*writer)->metadata().row_groups.size(), CodecText(options.compression),
      static_cast<long long>(options.page_bytes), static_cast<long long>(options.row_group_rows),
      static_cast<long long>(options.row_group_bytes), options.dictionary ? 1 : 0,
      static_cast<long long>(options.dictionary_page_bytes));
  return Status::OK();
}

int Usage() {
  std::fprintf(stderr,
               "usage: random_parquet OUTDIR [--count N] [--seed S] [--codecs a,b,...]\n"
               "codecs: uncompressed, snappy, gzip, zstd, lz4 (Hadoop framing), lz4_raw\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  uint64_t count = 10;
  uint64_t seed = 1;
  std::vector<CompressionCodec> codecs(std::begin(kAllCodecs), std::end(kAllCodecs));
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if ((arg == "--count" || arg == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      uint64_t v = std::strtoull(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0') return Usage();
      (arg == "--count" ? count : seed) = v;
    } else if (arg == "--codecs" && i + 1 < argc) {
      if (!ParseCodecs(argv[++i], &codecs)) return Usage();
    } else if (!arg.empty() && arg[0] != '-' && dir.empty()) {
      dir = arg;
    } else {
      return Usage();
    }
  }
  if (dir.empty()) return Usage();
  for (uint64_t i = 0; i < count; ++i) {
    Status s = WriteOne(dir, seed + i, codecs[i % codecs.size()]);
    if (!s.ok()) {
      std::fprintf(stderr, "random_parquet: seed %llu: %s\n",
                   static_cast<unsigned long long>(seed + i), s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
