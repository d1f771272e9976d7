// The reader against corrupted files: truncations, bit flips, extreme values written over lengths
// in the footer and the page headers, edited footer fields and page header fields. Every file
// must give either a read or an error Status that names the file, never a crash, a hang or a
// sanitizer report. CDCLAKE_FUZZ_ITERATIONS sets how many files (default 10000);
// CDCLAKE_FUZZ_SEED varies them; CDCLAKE_FUZZ_ONLY=N reruns iteration N alone,
// CDCLAKE_FUZZ_FIRST=N starts at iteration N, and CDCLAKE_FUZZ_DUMP_DIR=dir writes the files of
// the iterations run there.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/bytes.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "parquet/compression/codec.h"
#include "parquet/encoding/byte_stream_split.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_byte_array.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/encoding/rle_bit_packed_decoder.h"
#include "parquet/encoding/rle_bit_packed_encoder.h"
#include "parquet/format/parquet_types.h"
#include "parquet/page_codec.h"
#include "parquet/reader/file_reader.h"
#include "parquet/schema/file_schema.h"
#include "parquet/testing/random_data.h"
#include "parquet/writer/file_writer.h"

// Present when the sanitizer runtime is linked in (the sanitize-test build).
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace cdclake::parquet {
namespace {

namespace stdfs = std::filesystem;
using format::CompressionCodec;
using format::Encoding;
using format::PageType;
using Rng = std::mt19937_64;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

// --- Crash and hang context ---------------------------------------------------------------
//
// What the current iteration is doing, printed if the process dies in it (a signal, or a
// sanitizer report) or stays in it too long.

char g_context[1024] = "";
std::atomic<int64_t> g_iteration_start_ms{0};  // 0: not inside an iteration

void PrintContext() {
  static const char kHead[] = "\n*** CorruptionTest died while reading: ";
  // write(2) is async-signal-safe; this runs inside signal handlers and sanitizer reports.
  ssize_t ignored = ::write(2, kHead, sizeof(kHead) - 1);
  ignored = ::write(2, g_context, std::strlen(g_context));
  ignored = ::write(2, "\n", 1);
  (void)ignored;
}

void OnFatalSignal(int) {
  PrintContext();
}  // SA_RESETHAND: the signal then kills as usual

void InstallCrashContext() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (__sanitizer_set_death_callback != nullptr) {
      __sanitizer_set_death_callback(PrintContext);
      // GCC links UndefinedBehaviorSanitizer as its own runtime, with its own callback.
      if (void* ubsan = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD)) {
        using SetCallback = void (*)(void (*)(void));
        if (auto set =
                reinterpret_cast<SetCallback>(dlsym(ubsan, "__sanitizer_set_death_callback"))) {
          set(PrintContext);
        }
      }
      return;  // the sanitizers own the fault signals
    }
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = OnFatalSignal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  });
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Aborts with the context when one iteration runs longer than `limit_s` seconds.
class Watchdog {
 public:
  explicit Watchdog(int64_t limit_s) : limit_ms_(limit_s * 1000), thread_([this] { Run(); }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }

 private:
  void Run() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      int64_t start = g_iteration_start_ms.load();
      if (start != 0 && NowMs() - start > limit_ms_) {
        std::fprintf(stderr,
                     "\n*** CorruptionTest: one file has been read for over %" PRId64
                     " s (a hang?): %s\n",
                     limit_ms_ / 1000, g_context);
        std::abort();
      }
    }
  }
  int64_t limit_ms_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// --- Seeds --------------------------------------------------------------------------------

struct Span {
  size_t begin = 0;
  size_t end = 0;
};

struct Seed {
  std::string name;
  std::string bytes;
  format::FileMetaData meta;
  Span footer;                     // the Thrift FileMetaData
  std::vector<Span> page_headers;  // every page header of every column chunk
  data::RecordBatch rows;          // what the file holds (empty for testdata seeds)
  bool has_rows = false;
};

int64_t ChunkStart(const format::ColumnMetaData& m) {
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
      *m.dictionary_page_offset < start) {
    start = *m.dictionary_page_offset;
  }
  return start;
}

/// Finds the footer and the page headers of a well-formed file.
Status Analyze(Seed* seed) {
  const std::string& b = seed->bytes;
  if (b.size() < 12) return Status::Corrupt(seed->name + ": too short");
  uint32_t len = LoadLE<uint32_t>(b.data() + b.size() - 8);
  if (len > b.size() - 12) return Status::Corrupt(seed->name + ": footer length");
  seed->footer = {b.size() - 8 - len, b.size() - 8};
  CDCLAKE_ASSIGN_OR_RETURN(
      seed->meta, format::DecodeFileMetaData(std::string_view(b).substr(seed->footer.begin, len)));
  for (const auto& rg : seed->meta.row_groups) {
    for (const auto& cc : rg.columns) {
      if (!cc.meta_data) continue;
      size_t pos = static_cast<size_t>(ChunkStart(*cc.meta_data));
      size_t end = pos + static_cast<size_t>(cc.meta_data->total_compressed_size);
      while (pos < end) {
        size_t used = 0;
        auto header = format::DecodePageHeader(std::string_view(b).substr(pos, end - pos), &used);
        if (!header.ok()) return header.status().WithContext(seed->name);
        seed->page_headers.push_back({pos, pos + used});
        pos += used + static_cast<size_t>(header->compressed_page_size);
      }
    }
  }
  return Status::OK();
}

data::Schema FlatSchema() {
  using data::DataType;
  return data::Schema({{"b", DataType::Boolean(), true},
                       {"i8", DataType::Int8(), false},
                       {"i16", DataType::Int16(), true},
                       {"i32", DataType::Int32(), true},
                       {"i64", DataType::Int64(), false},
                       {"f32", DataType::Float(), true},
                       {"f64", DataType::Double(), true},
                       {"d9", DataType::Decimal(9, 2), true},
                       {"d18", DataType::Decimal(18, 4), false},
                       {"d38", DataType::Decimal(38, 10), true},
                       {"s", DataType::String(), true},
                       {"bin", DataType::Binary(), true},
                       {"date", DataType::Date(), true},
                       {"ts", DataType::Timestamp(), true},
                       {"ntz", DataType::TimestampNtz(), true}});
}

data::Schema NestedSchema() {
  using data::DataType;
  auto point = DataType::Struct({{"x", DataType::Int64(), false}, {"y", DataType::Double(), true}});
  return data::Schema(
      {{"id", DataType::Int64(), false},
       {"st",
        DataType::Struct({{"a", DataType::Int32(), true},
                          {"b", DataType::List(DataType::String(), true), true}}),
        true},
       {"points", DataType::List(point, true), true},
       {"tags", DataType::Map(DataType::String(), DataType::List(DataType::Int32(), false), true),
        true},
       {"grid", DataType::List(DataType::List(DataType::Int32(), true), false), true},
       {"by_id", DataType::Map(DataType::Int32(), point, true), true},
       {"dec", DataType::List(DataType::Decimal(20, 3), true), true}});
}

const char* CodecLabel(CompressionCodec c) {
  switch (c) {
    case CompressionCodec::kUncompressed:
      return "none";
    case CompressionCodec::kSnappy:
      return "snappy";
    case CompressionCodec::kGzip:
      return "gzip";
    case CompressionCodec::kZstd:
      return "zstd";
    case CompressionCodec::kLz4Raw:
      return "lz4raw";
    default:
      return "other";
  }
}

// --- Transcoding: pages in the encodings our writer does not produce ----------------------
//
// Rewrites a file whose data pages are all PLAIN v1 (our writer with dictionary off) so that
// its pages use DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
// BYTE_STREAM_SPLIT and RLE booleans, alternating data page v1 and v2. Corruptions of it reach
// those decoders with well-formed input around them.

Result<std::string> TranscodePage(const SchemaNode& leaf, Codec codec,
                                  const format::PageHeader& header, std::string_view body,
                                  int page_number, std::string* out_header, int64_t* raw_size) {
  if (header.type != PageType::kDataPage || !header.data_page_header)
    return Status::InvalidArgument("transcoding needs PLAIN v1 data pages only");
  const format::DataPageHeader& h = *header.data_page_header;
  if (h.encoding != Encoding::kPlain) return Status::InvalidArgument("not PLAIN");
  std::string page;
  CDCLAKE_RETURN_IF_ERROR(
      Decompress(codec, body, static_cast<size_t>(header.uncompressed_page_size), &page));
  ByteReader r(page);
  std::string rep, def;
  if (leaf.max_rep > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(uint32_t n, r.ReadLE<uint32_t>());
    CDCLAKE_ASSIGN_OR_RETURN(std::string_view v, r.ReadBytes(n));
    rep = v;
  }
  if (leaf.max_def > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(uint32_t n, r.ReadLE<uint32_t>());
    CDCLAKE_ASSIGN_OR_RETURN(std::string_view v, r.ReadBytes(n));
    def = v;
  }
  const size_t n = static_cast<size_t>(h.num_values);
  size_t present = n;
  if (leaf.max_def > 0) {
    int width = RleBitPackedEncoder::BitWidth(static_cast<uint64_t>(leaf.max_def));
    std::vector<int16_t> levels(n);
    RleBitPackedDecoder d(def, width);
    CDCLAKE_ASSIGN_OR_RETURN(size_t got, d.GetBatch(levels.data(), n));
    if (got != n) return Status::Corrupt("short definition levels");
    present = static_cast<size_t>(std::count(levels.begin(), levels.end(), leaf.max_def));
  }
  int32_t rows = h.num_values;
  if (leaf.max_rep > 0) {
    int width = RleBitPackedEncoder::BitWidth(static_cast<uint64_t>(leaf.max_rep));
    std::vector<int16_t> levels(n);
    RleBitPackedDecoder d(rep, width);
    CDCLAKE_ASSIGN_OR_RETURN(size_t got, d.GetBatch(levels.data(), n));
    if (got != n) return Status::Corrupt("short repetition levels");
    rows = static_cast<int32_t>(std::count(levels.begin(), levels.end(), int16_t{0}));
  }
  std::string_view plain = std::string_view(page).substr(r.position());

  // Re-encode the values.
  const format::Type type = *leaf.element.type;
  const bool alternate = (page_number / 2) % 2 == 1;
  std::string values;
  Encoding encoding = Encoding::kPlain;
  auto fixed_width = [&]() -> int {
    switch (type) {
      case format::Type::kInt32:
      case format::Type::kFloat:
        return 4;
      case format::Type::kInt64:
      case format::Type::kDouble:
        return 8;
      case format::Type::kInt96:
        return 12;
      case format::Type::kFixedLenByteArray:
        return leaf.element.type_length.value_or(0);
      default:
        return 0;
    }
  };
  if (type == format::Type::kBoolean) {
    RleBitPackedEncoder e(1);
    for (size_t i = 0; i < present; ++i) {
      if (i / 8 >= plain.size()) return Status::Corrupt("short booleans");
      e.Put((static_cast<uint8_t>(plain[i / 8]) >> (i % 8)) & 1);
    }
    std::string runs = e.Finish();
    AppendLE<uint32_t>(&values, static_cast<uint32_t>(runs.size()));
    values += runs;
    encoding = Encoding::kRle;
  } else if (type == format::Type::kByteArray) {
    std::vector<std::string_view> items;
    ByteReader v(plain);
    for (size_t i = 0; i < present; ++i) {
      CDCLAKE_ASSIGN_OR_RETURN(uint32_t len, v.ReadLE<uint32_t>());
      CDCLAKE_ASSIGN_OR_RETURN(std::string_view item, v.ReadBytes(len));
      items.push_back(item);
    }
    if (alternate) {
      EncodeDeltaByteArray(items, &values);
      encoding = Encoding::kDeltaByteArray;
    } else {
      EncodeDeltaLengthByteArray(items, &values);
      encoding = Encoding::kDeltaLengthByteArray;
    }
  } else {
    int width = fixed_width();
    if (width <= 0 || plain.size() < present * static_cast<size_t>(width))
      return Status::Corrupt("short fixed-width values");
    if (!alternate && (type == format::Type::kInt32 || type == format::Type::kInt64)) {
      if (type == format::Type::kInt32) {
        std::vector<int32_t> v(present);
        if (present > 0) std::memcpy(v.data(), plain.data(), present * 4);
        DeltaBinaryPackedEncoder<int32_t> e;
        e.Put(v.data(), v.size());
        values = e.Finish();
      } else {
        std::vector<int64_t> v(present);
        if (present > 0) std::memcpy(v.data(), plain.data(), present * 8);
        DeltaBinaryPackedEncoder<int64_t> e;
        e.Put(v.data(), v.size());
        values = e.Finish();
      }
      encoding = Encoding::kDeltaBinaryPacked;
    } else if (!alternate && type == format::Type::kFixedLenByteArray) {
      std::vector<std::string_view> items;
      for (size_t i = 0; i < present; ++i) items.push_back(plain.substr(i * width, width));
      EncodeDeltaByteArray(items, &values);
      encoding = Encoding::kDeltaByteArray;
    } else {
      EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(plain.data()),
                            static_cast<size_t>(width), present, &values);
      encoding = Encoding::kByteStreamSplit;
    }
  }

  format::PageHeader out;
  std::string out_body;
  if (page_number % 2 == 0) {  // data page v1
    std::string raw;
    if (leaf.max_rep > 0) {
      AppendLE<uint32_t>(&raw, static_cast<uint32_t>(rep.size()));
      raw += rep;
    }
    if (leaf.max_def > 0) {
      AppendLE<uint32_t>(&raw, static_cast<uint32_t>(def.size()));
      raw += def;
    }
    raw += values;
    CDCLAKE_RETURN_IF_ERROR(Compress(codec, raw, &out_body));
    out.type = PageType::kDataPage;
    out.uncompressed_page_size = static_cast<int32_t>(raw.size());
    out.compressed_page_size = static_cast<int32_t>(out_body.size());
    format::DataPageHeader d;
    d.num_values = h.num_values;
    d.encoding = encoding;
    out.data_page_header = d;
    *raw_size = static_cast<int64_t>(raw.size());
  } else {  // data page v2: levels stay uncompressed and lose their length prefix
    bool compressed = codec != Codec::kUncompressed && page_number % 3 != 0;
    std::string packed;
    if (compressed) {
      CDCLAKE_RETURN_IF_ERROR(Compress(codec, values, &packed));
    } else {
      packed = values;
    }
    out_body = rep + def + packed;
    out.type = PageType::kDataPageV2;
    out.uncompressed_page_size = static_cast<int32_t>(rep.size() + def.size() + values.size());
    out.compressed_page_size = static_cast<int32_t>(out_body.size());
    format::DataPageHeaderV2 d;
    d.num_values = h.num_values;
    d.num_nulls = static_cast<int32_t>(n - present);
    d.num_rows = rows;
    d.encoding = encoding;
    d.definition_levels_byte_length = static_cast<int32_t>(def.size());
    d.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
    d.is_compressed = compressed;
    out.data_page_header_v2 = d;
    *raw_size = out.uncompressed_page_size;
  }
  out_header->clear();
  format::EncodePageHeader(out, out_header);
  return out_body;
}

Result<std::string> Transcode(const Seed& seed) {
  CDCLAKE_ASSIGN_OR_RETURN(FileSchema schema, FileSchema::FromParquet(seed.meta.schema));
  format::FileMetaData meta = seed.meta;
  std::string out = "PAR1";
  int page_number = 0;
  for (auto& rg : meta.row_groups) {
    int64_t rg_size = 0;
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      format::ColumnMetaData& m = *rg.columns[c].meta_data;
      const SchemaNode& leaf = *schema.leaves()[c];
      CDCLAKE_ASSIGN_OR_RETURN(Codec codec, CodecFor(m.codec));
      std::string_view chunk = std::string_view(seed.bytes)
                                   .substr(static_cast<size_t>(ChunkStart(m)),
                                           static_cast<size_t>(m.total_compressed_size));
      const size_t start = out.size();
      int64_t uncompressed = 0;
      std::set<Encoding> encodings{Encoding::kRle};
      size_t pos = 0;
      while (pos < chunk.size()) {
        size_t used = 0;
        CDCLAKE_ASSIGN_OR_RETURN(format::PageHeader header,
                                 format::DecodePageHeader(chunk.substr(pos), &used));
        std::string_view body =
            chunk.substr(pos + used, static_cast<size_t>(header.compressed_page_size));
        pos += used + body.size();
        std::string new_header;
        int64_t raw = 0;
        CDCLAKE_ASSIGN_OR_RETURN(
            std::string new_body,
            TranscodePage(leaf, codec, header, body, page_number++, &new_header, &raw));
        CDCLAKE_ASSIGN_OR_RETURN(format::PageHeader check,
                                 format::DecodePageHeader(new_header, &used));
        encodings.insert(check.data_page_header ? check.data_page_header->encoding
                                                : check.data_page_header_v2->encoding);
        out += new_header;
        out += new_body;
        uncompressed += static_cast<int64_t>(new_header.size()) + raw;
      }
      m.data_page_offset = static_cast<int64_t>(start);
      m.dictionary_page_offset.reset();
      m.index_page_offset.reset();
      m.total_compressed_size = static_cast<int64_t>(out.size() - start);
      m.total_uncompressed_size = uncompressed;
      m.encodings.assign(encodings.begin(), encodings.end());
      m.encoding_stats.clear();
      rg.columns[c].file_offset = static_cast<int64_t>(start);
      if (c == 0) rg.file_offset = static_cast<int64_t>(start);
      rg_size += m.total_compressed_size;
    }
    rg.total_compressed_size = rg_size;
  }
  std::string footer;
  format::EncodeFileMetaData(meta, &footer);
  out += footer;
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(footer.size()));
  out += "PAR1";
  return out;
}

/// Rewrites every page of a file without compression, keeping its encodings, page kinds and
/// dictionary pages: corruption of another writer's file then lands in values and levels rather
/// than in a compressed stream.
Result<std::string> Decompressed(const Seed& seed) {
  format::FileMetaData meta = seed.meta;
  std::string out = "PAR1";
  for (auto& rg : meta.row_groups) {
    for (auto& cc : rg.columns) {
      format::ColumnMetaData& m = *cc.meta_data;
      CDCLAKE_ASSIGN_OR_RETURN(Codec codec, CodecFor(m.codec));
      std::string_view chunk = std::string_view(seed.bytes)
                                   .substr(static_cast<size_t>(ChunkStart(m)),
                                           static_cast<size_t>(m.total_compressed_size));
      const size_t start = out.size();
      std::optional<int64_t> first_data_page;
      size_t pos = 0;
      while (pos < chunk.size()) {
        size_t used = 0;
        CDCLAKE_ASSIGN_OR_RETURN(format::PageHeader h,
                                 format::DecodePageHeader(chunk.substr(pos), &used));
        std::string_view body =
            chunk.substr(pos + used, static_cast<size_t>(h.compressed_page_size));
        pos += used + body.size();
        std::string plain;
        if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
          auto& v2 = *h.data_page_header_v2;
          size_t levels = static_cast<size_t>(v2.definition_levels_byte_length) +
                          static_cast<size_t>(v2.repetition_levels_byte_length);
          plain = body.substr(0, levels);
          if (v2.is_compressed) {
            std::string values;
            CDCLAKE_RETURN_IF_ERROR(
                Decompress(codec, body.substr(levels),
                           static_cast<size_t>(h.uncompressed_page_size) - levels, &values));
            plain += values;
            v2.is_compressed = false;
          } else {
            plain += body.substr(levels);
          }
        } else if (h.type == PageType::kDataPage || h.type == PageType::kDictionaryPage) {
          CDCLAKE_RETURN_IF_ERROR(
              Decompress(codec, body, static_cast<size_t>(h.uncompressed_page_size), &plain));
        } else {
          plain = body;
        }
        if (h.type != PageType::kDictionaryPage && !first_data_page)
          first_data_page = static_cast<int64_t>(out.size());
        h.compressed_page_size = static_cast<int32_t>(plain.size());
        h.uncompressed_page_size = static_cast<int32_t>(plain.size());
        h.crc.reset();
        format::EncodePageHeader(h, &out);
        out += plain;
      }
      m.codec = CompressionCodec::kUncompressed;
      m.data_page_offset = first_data_page.value_or(static_cast<int64_t>(start));
      if (m.data_page_offset != static_cast<int64_t>(start)) {
        m.dictionary_page_offset = static_cast<int64_t>(start);
      } else {
        m.dictionary_page_offset.reset();
      }
      m.index_page_offset.reset();
      m.total_compressed_size = static_cast<int64_t>(out.size() - start);
      m.total_uncompressed_size = m.total_compressed_size;
      cc.file_offset = static_cast<int64_t>(start);
    }
    rg.file_offset.reset();
    rg.total_compressed_size.reset();
  }
  std::string footer;
  format::EncodeFileMetaData(meta, &footer);
  out += footer;
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(footer.size()));
  out += "PAR1";
  return out;
}

// --- Building the seeds ---------------------------------------------------------------------

std::string Rel(const std::string& path, const std::string& root) {
  return path.rfind(root + "/", 0) == 0 ? path.substr(root.size() + 1) : path;
}

/// The first .parquet file under `dir` (sorted), or "".
std::string FirstParquetUnder(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(dir, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 8 &&
        name.compare(name.size() - 8, 8, ".parquet") == 0 && name[0] != '.') {
      found.push_back(it->path().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? "" : found.front();
}

struct Seeds {
  std::vector<Seed> seeds;
  std::string error;  // why building them failed
};

const Seeds& AllSeeds() {
  static const Seeds* built = [] {
    auto* out = new Seeds;
    auto add = [&](Seed seed) {
      if (!out->error.empty()) return;
      Status s = Analyze(&seed);
      if (!s.ok()) {
        out->error = s.ToString();
        return;
      }
      out->seeds.push_back(std::move(seed));
    };
    io::MemoryFileSystem fs;
    const CompressionCodec kCodecs[] = {CompressionCodec::kUncompressed, CompressionCodec::kSnappy,
                                        CompressionCodec::kGzip, CompressionCodec::kZstd,
                                        CompressionCodec::kLz4Raw};
    for (int nested = 0; nested < 2; ++nested) {
      data::Schema schema = nested ? NestedSchema() : FlatSchema();
      testing::RandomData random(nested ? 4242 : 2424);
      data::RecordBatch batch = random.Batch(schema, nested ? 160 : 240);
      for (CompressionCodec codec : kCodecs) {
        for (int dictionary = 0; dictionary < 2; ++dictionary) {
          WriterOptions options;
          options.compression = codec;
          options.dictionary = dictionary == 1;
          options.dictionary_page_bytes = codec == CompressionCodec::kGzip ? 512 : 1 << 20;
          options.page_bytes = 700;
          options.row_group_rows = nested ? 70 : 100;
          Seed seed;
          seed.name = std::string(nested ? "nested" : "flat") + "-" + CodecLabel(codec) +
                      (dictionary ? "-dict" : "-plain");
          std::string path = "/seeds/" + seed.name + ".parquet";
          Status s = WriteParquetFile(fs, path, batch, options);
          auto bytes = fs.ReadFile(path);
          if (!s.ok() || !bytes.ok()) {
            out->error = seed.name + ": " + (s.ok() ? bytes.status() : s).ToString();
            return out;
          }
          seed.bytes = std::move(bytes).value();
          seed.rows = batch;
          seed.has_rows = true;
          bool transcode = !dictionary &&
                           (codec == CompressionCodec::kUncompressed ||
                            codec == CompressionCodec::kSnappy || codec == CompressionCodec::kZstd);
          add(seed);
          if (transcode && out->error.empty()) {
            auto other = Transcode(out->seeds.back());
            if (!other.ok()) {
              out->error = seed.name + " transcoding: " + other.status().ToString();
              return out;
            }
            Seed t;
            t.name =
                std::string(nested ? "nested" : "flat") + "-" + CodecLabel(codec) + "-delta-bss-v2";
            t.bytes = std::move(other).value();
            t.rows = batch;
            t.has_rows = true;
            add(std::move(t));
          }
        }
      }
    }
    // A handful of files from other writers (parquet-mr, Photon, parquet-rs).
    const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
    for (const char* dir :
         {"golden-data-reader-primitives/delta", "golden-data-reader-map/delta",
          "golden-data-reader-array-primitives/delta", "golden-data-reader-nested-struct/delta",
          "golden-decimal-various-scale-precision/delta", "rs-table_with_edge_timestamps",
          "golden-kernel-timestamp-int96/delta", "rs-partition-type-primitives",
          "rs-checkpoint-v2-table/_delta_log/_sidecars",
          "golden-multi-part-checkpoint/delta/_delta_log",
          "kernel-app-txn-checkpoint/_delta_log"}) {
      std::string path = FirstParquetUnder(root + "/" + dir);
      if (path.empty()) {
        out->error = "no .parquet file under " + root + "/" + dir;
        return out;
      }
      auto bytes = io::LocalFileSystem::Instance()->ReadFile(path);
      if (!bytes.ok()) {
        out->error = bytes.status().ToString();
        return out;
      }
      Seed seed;
      seed.name = "testdata/" + Rel(path, root);
      seed.bytes = std::move(bytes).value();
      add(std::move(seed));
      if (!out->error.empty()) return out;
      auto plain = Decompressed(out->seeds.back());
      if (!plain.ok()) {
        out->error = out->seeds.back().name + " decompressing: " + plain.status().ToString();
        return out;
      }
      Seed uncompressed;
      uncompressed.name = out->seeds.back().name + ".uncompressed";
      uncompressed.bytes = std::move(plain).value();
      // It must read as the original does (checked by SeedsReadCleanly).
      Status put = fs.WriteFile("/original", out->seeds.back().bytes);
      auto reader = FileReader::Open(fs, "/original");
      auto rows = reader.ok() ? (*reader)->ReadAll() : Result<data::RecordBatch>(reader.status());
      if (!put.ok() || !rows.ok()) {
        out->error = out->seeds.back().name + ": " + (put.ok() ? rows.status() : put).ToString();
        return out;
      }
      uncompressed.rows = std::move(rows).value();
      uncompressed.has_rows = true;
      add(std::move(uncompressed));
    }
    return out;
  }();
  return *built;
}

// --- Corruptions --------------------------------------------------------------------------

int64_t Pick(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
bool Chance(Rng& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

/// A value for a length, count or offset field: extremes, neighbours of the original, or junk.
int64_t WildInt(Rng& rng, int64_t original, bool is32) {
  static const int64_t kExtremes[] = {0,
                                      1,
                                      -1,
                                      2,
                                      3,
                                      7,
                                      8,
                                      16,
                                      127,
                                      128,
                                      255,
                                      256,
                                      0x7FFF,
                                      0xFFFF,
                                      0x10000,
                                      1 << 24,
                                      (1 << 24) + 1,
                                      0x7FFFFFFF,
                                      -0x7FFFFFFF - 1,
                                      0xFFFFFFFFLL,
                                      1LL << 32,
                                      1LL << 40,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
  int64_t v = 0;
  switch (Pick(rng, 0, 6)) {
    case 0:
      v = static_cast<int64_t>(static_cast<uint64_t>(original) +
                               static_cast<uint64_t>(Pick(rng, 1, 4)));  // wraps
      break;
    case 1:
      v = static_cast<int64_t>(static_cast<uint64_t>(original) -
                               static_cast<uint64_t>(Pick(rng, 1, 4)));
      break;
    case 2:
      v = static_cast<int64_t>(static_cast<uint64_t>(original) * 2);
      break;
    case 3:
      v = original / 2;
      break;
    case 4:
      v = Pick(rng, -1000, 100000);
      break;
    default:
      v = kExtremes[Pick(rng, 0, std::size(kExtremes) - 1)];
      break;
  }
  return is32 ? static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))) : v;
}

template <typename E>
E WildEnum(Rng& rng, int max_valid) {
  static const int kOdd[] = {-1, 99, 0x7FFFFFFF, -0x7FFFFFFF - 1, 1000};
  if (Chance(rng, 0.8)) return static_cast<E>(Pick(rng, 0, max_valid));
  return static_cast<E>(kOdd[Pick(rng, 0, std::size(kOdd) - 1)]);
}

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%x", v);
  return buf;
}

/// A position inside the footer, a page header, or anywhere, as `where` says.
size_t PickPosition(Rng& rng, const Seed& seed, size_t size, const std::string& where,
                    std::string* label) {
  if (size == 0) return 0;
  if (where == "footer" && seed.footer.end > seed.footer.begin && seed.footer.begin < size) {
    *label = "footer";
    return static_cast<size_t>(Pick(rng, static_cast<int64_t>(seed.footer.begin),
                                    static_cast<int64_t>(std::min(seed.footer.end, size) - 1)));
  }
  if (where == "page header" && !seed.page_headers.empty()) {
    const Span& h = seed.page_headers[Pick(rng, 0, seed.page_headers.size() - 1)];
    if (h.begin < size) {
      *label = "page header";
      return static_cast<size_t>(Pick(rng, static_cast<int64_t>(h.begin),
                                      static_cast<int64_t>(std::min(h.end, size) - 1)));
    }
  }
  // The first bytes of a page body: level lengths, the dictionary index bit width, the
  // DELTA_* block headers.
  if (where == "page body" && !seed.page_headers.empty()) {
    const Span& h = seed.page_headers[Pick(rng, 0, seed.page_headers.size() - 1)];
    size_t pos = h.end + static_cast<size_t>(Pick(rng, 0, 15));
    if (pos < size) {
      *label = "page body";
      return pos;
    }
  }
  *label = "anywhere";
  return static_cast<size_t>(Pick(rng, 0, static_cast<int64_t>(size) - 1));
}

std::string PickRegion(Rng& rng, double footer, double header, double body) {
  double x = std::uniform_real_distribution<double>(0, 1)(rng);
  if (x < footer) return "footer";
  if (x < footer + header) return "page header";
  if (x < footer + header + body) return "page body";
  return "anywhere";
}

void Truncate(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  size_t n = f->size();
  if (n == 0) return;
  size_t keep = 0;
  if (Chance(rng, 0.4)) {  // inside the tail: footer, its length, the magic
    size_t tail = std::min(n, seed.footer.end - seed.footer.begin + 8);
    keep = n - static_cast<size_t>(Pick(rng, 1, static_cast<int64_t>(tail)));
  } else {
    keep = static_cast<size_t>(Pick(rng, 0, static_cast<int64_t>(n) - 1));
  }
  f->resize(keep);
  how << "truncate to " << keep << " of " << n << " bytes; ";
}

void FlipBits(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  if (f->empty()) return;
  std::string where = PickRegion(rng, 0.25, 0.25, 0.2);
  int flips = static_cast<int>(Pick(rng, 1, 8));
  how << "flip bits (" << where << ")";
  for (int i = 0; i < flips; ++i) {
    std::string label;
    size_t pos = PickPosition(rng, seed, f->size(), where, &label);
    int bit = static_cast<int>(Pick(rng, 0, 7));
    (*f)[pos] = static_cast<char>((*f)[pos] ^ (1 << bit));
    how << " " << pos << "." << bit;
  }
  how << "; ";
}

void Overwrite(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  if (f->empty()) return;
  static const uint32_t kValues[] = {0,    0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 1,        2,
                                     3,    7,           8,           16,          0x7F,     0x80,
                                     0xFF, 0x100,       0xFFFF,      0x10000,     0x1000000};
  std::string label;
  size_t pos = PickPosition(rng, seed, f->size(), PickRegion(rng, 0.3, 0.3, 0.25), &label);
  if (Chance(rng, 0.25)) {  // one byte: varint continuation bits, Thrift type nibbles
    static const uint8_t kBytes[] = {0x00, 0xFF, 0x80, 0x7F, 0x01, 0x0C, 0x19, 0x1C, 0xF0};
    uint8_t b = kBytes[Pick(rng, 0, std::size(kBytes) - 1)];
    (*f)[pos] = static_cast<char>(b);
    how << "byte at " << pos << " (" << label << ") = " << Hex32(b) << "; ";
    return;
  }
  uint32_t v = Chance(rng, 0.85) ? kValues[Pick(rng, 0, std::size(kValues) - 1)]
                                 : static_cast<uint32_t>(rng());
  for (int i = 0; i < 4 && pos + i < f->size(); ++i)
    (*f)[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  how << "4 bytes at " << pos << " (" << label << ") = " << Hex32(v) << "; ";
}

void EditFooterLength(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  if (f->size() < 8) return;
  uint32_t len = static_cast<uint32_t>(seed.footer.end - seed.footer.begin);
  uint32_t size = static_cast<uint32_t>(f->size());
  uint32_t v = 0;
  switch (Pick(rng, 0, 7)) {
    case 0:
      v = 0;
      break;
    case 1:
      v = len + static_cast<uint32_t>(Pick(rng, 1, 16));
      break;
    case 2:
      v = len - static_cast<uint32_t>(Pick(rng, 1, std::min<int64_t>(16, len)));
      break;
    case 3:
      v = size - 8;
      break;
    case 4:
      v = size - 12;
      break;
    case 5:
      v = 0xFFFFFFFFu;
      break;
    case 6:
      v = 0x7FFFFFFFu;
      break;
    default:
      v = static_cast<uint32_t>(Pick(rng, 0, size));
      break;
  }
  StoreLE<uint32_t>(f->data() + f->size() - 8, v);
  how << "footer length " << len << " -> " << v << "; ";
}

void Splat(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  if (f->size() < 2) return;
  size_t n = f->size();
  switch (Pick(rng, 0, 3)) {
    case 0: {  // copy a span over another
      size_t len = static_cast<size_t>(Pick(rng, 1, 64));
      size_t from = static_cast<size_t>(Pick(rng, 0, n - 1));
      size_t to = static_cast<size_t>(Pick(rng, 0, n - 1));
      len = std::min({len, n - from, n - to});
      std::memmove(f->data() + to, f->data() + from, len);
      how << "copy " << len << " bytes " << from << " -> " << to << "; ";
      break;
    }
    case 1: {  // fill a span
      size_t len = static_cast<size_t>(Pick(rng, 1, 64));
      size_t at = static_cast<size_t>(Pick(rng, 0, n - 1));
      len = std::min(len, n - at);
      char b = Chance(rng, 0.5) ? '\0' : '\xFF';
      std::memset(f->data() + at, b, len);
      how << "fill " << len << " bytes at " << at << " with " << Hex32(static_cast<uint8_t>(b))
          << "; ";
      break;
    }
    case 2: {  // insert bytes (shifts everything after)
      size_t at = static_cast<size_t>(Pick(rng, 0, n - 1));
      std::string junk(static_cast<size_t>(Pick(rng, 1, 16)), '\0');
      for (char& c : junk) c = static_cast<char>(rng());
      f->insert(at, junk);
      how << "insert " << junk.size() << " bytes at " << at << "; ";
      break;
    }
    default: {  // delete bytes
      size_t at = static_cast<size_t>(Pick(rng, 0, n - 1));
      size_t len = std::min<size_t>(static_cast<size_t>(Pick(rng, 1, 16)), n - at);
      f->erase(at, len);
      how << "delete " << len << " bytes at " << at << "; ";
      break;
    }
  }
  (void)seed;
}

void ReplaceFooter(const format::FileMetaData& meta, const Seed& seed, std::string* f) {
  std::string footer;
  format::EncodeFileMetaData(meta, &footer);
  f->resize(seed.footer.begin);
  *f += footer;
  AppendLE<uint32_t>(f, static_cast<uint32_t>(footer.size()));
  *f += "PAR1";
}

/// One change to a decoded footer field.
void MutateMeta(Rng& rng, format::FileMetaData* meta, std::ostream& how) {
  auto any_rg = [&]() -> format::RowGroup* {
    if (meta->row_groups.empty()) return nullptr;
    return &meta->row_groups[Pick(rng, 0, meta->row_groups.size() - 1)];
  };
  auto any_column = [&]() -> format::ColumnMetaData* {
    format::RowGroup* rg = any_rg();
    if (!rg || rg->columns.empty()) return nullptr;
    auto& cc = rg->columns[Pick(rng, 0, rg->columns.size() - 1)];
    return cc.meta_data ? &*cc.meta_data : nullptr;
  };
  auto any_element = [&]() -> format::SchemaElement* {
    if (meta->schema.empty()) return nullptr;
    return &meta->schema[Pick(rng, 0, meta->schema.size() - 1)];
  };
  switch (Pick(rng, 0, 27)) {
    case 0:
      meta->num_rows = WildInt(rng, meta->num_rows, false);
      how << "num_rows=" << meta->num_rows;
      break;
    case 1:
    case 2:
      if (auto* rg = any_rg()) {
        rg->num_rows = WildInt(rng, rg->num_rows, false);
        how << "row group num_rows=" << rg->num_rows;
      }
      break;
    case 3:
      if (!meta->row_groups.empty()) {
        size_t i = static_cast<size_t>(Pick(rng, 0, meta->row_groups.size() - 1));
        if (Chance(rng, 0.5)) {
          meta->row_groups.erase(meta->row_groups.begin() + i);
          how << "drop row group " << i;
        } else {
          meta->row_groups.push_back(meta->row_groups[i]);
          how << "repeat row group " << i;
        }
      }
      break;
    case 4:
      if (auto* rg = any_rg(); rg && !rg->columns.empty()) {
        size_t i = static_cast<size_t>(Pick(rng, 0, rg->columns.size() - 1));
        size_t j = static_cast<size_t>(Pick(rng, 0, rg->columns.size() - 1));
        switch (Pick(rng, 0, 2)) {
          case 0:
            rg->columns.erase(rg->columns.begin() + i);
            how << "drop column chunk " << i;
            break;
          case 1:
            rg->columns.push_back(rg->columns[i]);
            how << "repeat column chunk " << i;
            break;
          default:
            std::swap(rg->columns[i], rg->columns[j]);
            how << "swap column chunks " << i << "," << j;
            break;
        }
      }
      break;
    case 5:
    case 6:
      if (auto* m = any_column()) {
        m->num_values = WildInt(rng, m->num_values, false);
        how << "column num_values=" << m->num_values;
      }
      break;
    case 7:
    case 8:
      if (auto* m = any_column()) {
        m->total_compressed_size = WildInt(rng, m->total_compressed_size, false);
        how << "total_compressed_size=" << m->total_compressed_size;
      }
      break;
    case 9:
      if (auto* m = any_column()) {
        m->total_uncompressed_size = WildInt(rng, m->total_uncompressed_size, false);
        how << "total_uncompressed_size=" << m->total_uncompressed_size;
      }
      break;
    case 10:
    case 11:
      if (auto* m = any_column()) {
        m->data_page_offset = WildInt(rng, m->data_page_offset, false);
        how << "data_page_offset=" << m->data_page_offset;
      }
      break;
    case 12:
      if (auto* m = any_column()) {
        if (Chance(rng, 0.3)) {
          m->dictionary_page_offset.reset();
          how << "no dictionary_page_offset";
        } else {
          m->dictionary_page_offset =
              WildInt(rng, m->dictionary_page_offset.value_or(m->data_page_offset), false);
          how << "dictionary_page_offset=" << *m->dictionary_page_offset;
        }
      }
      break;
    case 13:
      if (auto* m = any_column()) {
        m->codec = WildEnum<CompressionCodec>(rng, 7);
        how << "codec=" << static_cast<int>(m->codec);
      }
      break;
    case 14:
      if (auto* m = any_column()) {
        m->type = WildEnum<format::Type>(rng, 7);
        how << "column type=" << static_cast<int>(m->type);
      }
      break;
    case 15:
      if (auto* rg = any_rg(); rg && !rg->columns.empty()) {
        auto& cc = rg->columns[Pick(rng, 0, rg->columns.size() - 1)];
        if (Chance(rng, 0.5)) {
          cc.meta_data.reset();
          how << "column chunk without metadata";
        } else {
          cc.file_path = "other.parquet";
          how << "column chunk file_path";
        }
      }
      break;
    case 16:
      if (auto* e = any_element()) {
        if (Chance(rng, 0.2)) {
          e->type.reset();
        } else {
          e->type = WildEnum<format::Type>(rng, 7);
        }
        how << "schema " << e->name << " type=" << (e->type ? static_cast<int>(*e->type) : -100);
      }
      break;
    case 17:
      if (auto* e = any_element()) {
        e->type_length = static_cast<int32_t>(WildInt(rng, e->type_length.value_or(16), true));
        how << "schema " << e->name << " type_length=" << *e->type_length;
      }
      break;
    case 18:
      if (auto* e = any_element()) {
        if (Chance(rng, 0.2)) {
          e->repetition_type.reset();
        } else {
          e->repetition_type = WildEnum<format::FieldRepetitionType>(rng, 2);
        }
        how << "schema " << e->name << " repetition="
            << (e->repetition_type ? static_cast<int>(*e->repetition_type) : -100);
      }
      break;
    case 19:
    case 20:
      if (auto* e = any_element()) {
        if (Chance(rng, 0.2)) {
          e->num_children.reset();
        } else {
          e->num_children = static_cast<int32_t>(WildInt(rng, e->num_children.value_or(1), true));
        }
        how << "schema " << e->name << " num_children=" << e->num_children.value_or(-100);
      }
      break;
    case 21:
      if (auto* e = any_element()) {
        if (Chance(rng, 0.2)) {
          e->converted_type.reset();
        } else {
          e->converted_type = WildEnum<format::ConvertedType>(rng, 21);
        }
        how << "schema " << e->name << " converted_type="
            << (e->converted_type ? static_cast<int>(*e->converted_type) : -100);
      }
      break;
    case 22:
      if (auto* e = any_element()) {
        e->precision = static_cast<int32_t>(WildInt(rng, e->precision.value_or(10), true));
        e->scale = static_cast<int32_t>(WildInt(rng, e->scale.value_or(2), true));
        how << "schema " << e->name << " precision=" << *e->precision << " scale=" << *e->scale;
      }
      break;
    case 23:
      if (auto* e = any_element()) {
        format::LogicalType lt;
        static const int kKinds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15};
        lt.kind =
            static_cast<format::LogicalType::Kind>(kKinds[Pick(rng, 0, std::size(kKinds) - 1)]);
        lt.decimal_precision = static_cast<int32_t>(WildInt(rng, 10, true));
        lt.decimal_scale = static_cast<int32_t>(WildInt(rng, 2, true));
        lt.is_adjusted_to_utc = Chance(rng, 0.5);
        lt.unit = static_cast<format::TimeUnit>(Pick(rng, 0, 4));
        static const int8_t kWidths[] = {8, 16, 32, 64, 0, 7, -8, 127};
        lt.bit_width = kWidths[Pick(rng, 0, std::size(kWidths) - 1)];
        lt.is_signed = Chance(rng, 0.5);
        e->logical_type = lt;
        how << "schema " << e->name << " logical kind=" << static_cast<int>(lt.kind);
      }
      break;
    case 24:
      if (meta->schema.size() > 1) {
        size_t i = static_cast<size_t>(Pick(rng, 1, meta->schema.size() - 1));
        size_t j = static_cast<size_t>(Pick(rng, 0, meta->schema.size() - 1));
        switch (Pick(rng, 0, 2)) {
          case 0:
            meta->schema.erase(meta->schema.begin() + i);
            how << "drop schema element " << i;
            break;
          case 1:
            meta->schema.insert(meta->schema.begin() + i, meta->schema[j]);
            how << "copy schema element " << j << " to " << i;
            break;
          default:
            meta->schema[i].name = meta->schema[j].name;
            how << "schema element " << i << " renamed " << meta->schema[j].name;
            break;
        }
      }
      break;
    case 25:
      if (Chance(rng, 0.5)) {
        meta->schema.clear();
        how << "no schema";
      } else {
        meta->has_encryption_algorithm = true;
        how << "encryption_algorithm";
      }
      break;
    case 26:
      if (auto* m = any_column()) {  // statistics are read for row-group skipping
        if (!m->statistics) m->statistics = format::Statistics{};
        std::string junk(static_cast<size_t>(Pick(rng, 0, 20)), '\0');
        for (char& c : junk) c = static_cast<char>(rng());
        if (Chance(rng, 0.5)) {
          m->statistics->min_value = junk;
        } else {
          m->statistics->max_value = junk;
        }
        m->statistics->null_count = WildInt(rng, m->statistics->null_count.value_or(0), false);
        how << "statistics junk (" << junk.size() << " bytes)";
      }
      break;
    default:
      if (auto* m = any_column()) {
        if (!m->path_in_schema.empty()) m->path_in_schema.back() += "x";
        how << "path_in_schema edited";
      }
      break;
  }
  how << "; ";
}

void EditFooter(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  format::FileMetaData meta = seed.meta;
  int n = static_cast<int>(Pick(rng, 1, 3));
  how << "footer edit: ";
  for (int i = 0; i < n; ++i) MutateMeta(rng, &meta, how);
  ReplaceFooter(meta, seed, f);
}

/// Replaces bytes [begin, end) of the seed's data (before the footer) with `replacement` and
/// writes a footer whose chunk offsets and sizes follow the move.
std::string Splice(const Seed& seed, format::FileMetaData meta, size_t begin, size_t end,
                   std::string_view replacement) {
  const int64_t delta =
      static_cast<int64_t>(replacement.size()) - static_cast<int64_t>(end - begin);
  std::string out = seed.bytes.substr(0, begin);
  out += replacement;
  out += std::string_view(seed.bytes).substr(end, seed.footer.begin - end);
  const int64_t at = static_cast<int64_t>(begin);
  for (auto& rg : meta.row_groups) {
    for (auto& cc : rg.columns) {
      if (!cc.meta_data) continue;
      auto& m = *cc.meta_data;
      int64_t start = ChunkStart(m);
      if (start <= at && at < start + m.total_compressed_size) m.total_compressed_size += delta;
      if (m.data_page_offset > at) m.data_page_offset += delta;
      if (m.dictionary_page_offset && *m.dictionary_page_offset > at)
        *m.dictionary_page_offset += delta;
    }
  }
  Seed shifted;
  shifted.footer = {out.size(), out.size()};
  ReplaceFooter(meta, shifted, &out);
  return out;
}

/// Decodes one page header, changes a field, and puts it back; when its encoded length
/// changes, the chunk offsets and sizes in the footer are moved to match, so the change
/// reaches the page decoding.
void EditPageHeader(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  if (seed.page_headers.empty()) {
    Overwrite(rng, seed, f, how);
    return;
  }
  size_t which = static_cast<size_t>(Pick(rng, 0, seed.page_headers.size() - 1));
  const Span span = seed.page_headers[which];
  size_t used = 0;
  auto decoded = format::DecodePageHeader(
      std::string_view(seed.bytes).substr(span.begin, span.end - span.begin), &used);
  if (!decoded.ok()) return;
  format::PageHeader h = std::move(decoded).value();
  how << "page header " << which << " at " << span.begin << ": ";
  int edits = static_cast<int>(Pick(rng, 1, 2));
  for (int e = 0; e < edits; ++e) {
    switch (Pick(rng, 0, 11)) {
      case 0:
        h.type = WildEnum<PageType>(rng, 3);
        how << "type=" << static_cast<int>(h.type);
        break;
      case 1:
      case 2:
        h.uncompressed_page_size =
            static_cast<int32_t>(WildInt(rng, h.uncompressed_page_size, true));
        how << "uncompressed_page_size=" << h.uncompressed_page_size;
        break;
      case 3:
      case 4:
        h.compressed_page_size = static_cast<int32_t>(WildInt(rng, h.compressed_page_size, true));
        how << "compressed_page_size=" << h.compressed_page_size;
        break;
      case 5:
      case 6:
        if (h.data_page_header) {
          h.data_page_header->num_values =
              static_cast<int32_t>(WildInt(rng, h.data_page_header->num_values, true));
          how << "num_values=" << h.data_page_header->num_values;
        } else if (h.dictionary_page_header) {
          h.dictionary_page_header->num_values =
              static_cast<int32_t>(WildInt(rng, h.dictionary_page_header->num_values, true));
          how << "dictionary num_values=" << h.dictionary_page_header->num_values;
        } else if (h.data_page_header_v2) {
          h.data_page_header_v2->num_values =
              static_cast<int32_t>(WildInt(rng, h.data_page_header_v2->num_values, true));
          how << "v2 num_values=" << h.data_page_header_v2->num_values;
        }
        break;
      case 7: {
        Encoding enc = WildEnum<Encoding>(rng, 9);
        if (h.data_page_header) h.data_page_header->encoding = enc;
        if (h.data_page_header_v2) h.data_page_header_v2->encoding = enc;
        if (h.dictionary_page_header) h.dictionary_page_header->encoding = enc;
        how << "encoding=" << static_cast<int>(enc);
        break;
      }
      case 8:
        if (h.data_page_header) {
          h.data_page_header->definition_level_encoding = WildEnum<Encoding>(rng, 9);
          h.data_page_header->repetition_level_encoding = WildEnum<Encoding>(rng, 9);
          how << "level encodings="
              << static_cast<int>(h.data_page_header->definition_level_encoding) << ","
              << static_cast<int>(h.data_page_header->repetition_level_encoding);
        }
        break;
      case 9:  // a data page v1 read as v2, with made-up level lengths
        if (h.data_page_header) {
          format::DataPageHeaderV2 v2;
          v2.num_values = h.data_page_header->num_values;
          v2.num_rows = static_cast<int32_t>(WildInt(rng, v2.num_values, true));
          v2.num_nulls = static_cast<int32_t>(Pick(rng, 0, 3));
          v2.encoding = h.data_page_header->encoding;
          v2.definition_levels_byte_length = static_cast<int32_t>(Pick(rng, 0, 12));
          v2.repetition_levels_byte_length = static_cast<int32_t>(Pick(rng, 0, 6));
          v2.is_compressed = Chance(rng, 0.5);
          h.data_page_header.reset();
          h.data_page_header_v2 = v2;
          h.type = PageType::kDataPageV2;
          how << "as v2 def_len=" << v2.definition_levels_byte_length
              << " rep_len=" << v2.repetition_levels_byte_length
              << " compressed=" << v2.is_compressed;
        } else if (h.data_page_header_v2) {
          auto& v2 = *h.data_page_header_v2;
          v2.definition_levels_byte_length =
              static_cast<int32_t>(WildInt(rng, v2.definition_levels_byte_length, true));
          v2.repetition_levels_byte_length =
              static_cast<int32_t>(WildInt(rng, v2.repetition_levels_byte_length, true));
          v2.is_compressed = Chance(rng, 0.5);
          how << "v2 def_len=" << v2.definition_levels_byte_length
              << " rep_len=" << v2.repetition_levels_byte_length
              << " compressed=" << v2.is_compressed;
        }
        break;
      case 10:  // the page's own header struct goes missing
        h.data_page_header.reset();
        h.dictionary_page_header.reset();
        h.data_page_header_v2.reset();
        how << "no type-specific header";
        break;
      default:
        h.crc = static_cast<int32_t>(rng());
        how << "crc";
        break;
    }
    how << " ";
  }
  std::string encoded;
  format::EncodePageHeader(h, &encoded);
  const int64_t delta =
      static_cast<int64_t>(encoded.size()) - static_cast<int64_t>(span.end - span.begin);
  *f = Splice(seed, seed.meta, span.begin, span.end, encoded);
  how << "(header " << (delta >= 0 ? "+" : "") << delta << " bytes); ";
}

/// Puts the pages of one column chunk where another one's were (same or other row group), with
/// consistent framing: well-formed pages of the wrong physical type, width or nesting.
void Transplant(Rng& rng, const Seed& seed, std::string* f, std::ostream& how) {
  std::vector<std::pair<size_t, size_t>> chunks;  // (row group, column)
  for (size_t g = 0; g < seed.meta.row_groups.size(); ++g)
    for (size_t c = 0; c < seed.meta.row_groups[g].columns.size(); ++c)
      if (seed.meta.row_groups[g].columns[c].meta_data) chunks.push_back({g, c});
  if (chunks.size() < 2) {
    Overwrite(rng, seed, f, how);
    return;
  }
  auto [tg, tc] = chunks[Pick(rng, 0, chunks.size() - 1)];
  auto [sg, sc] = chunks[Pick(rng, 0, chunks.size() - 1)];
  format::FileMetaData meta = seed.meta;
  const auto& from = *seed.meta.row_groups[sg].columns[sc].meta_data;
  auto& to = *meta.row_groups[tg].columns[tc].meta_data;
  size_t begin = static_cast<size_t>(ChunkStart(to));
  size_t end = begin + static_cast<size_t>(to.total_compressed_size);
  std::string_view pages = std::string_view(seed.bytes)
                               .substr(static_cast<size_t>(ChunkStart(from)),
                                       static_cast<size_t>(from.total_compressed_size));
  // The target now starts with the source's first page, whatever kind it is.
  to.dictionary_page_offset.reset();
  to.data_page_offset = static_cast<int64_t>(begin);
  to.codec = from.codec;
  if (Chance(rng, 0.5)) to.num_values = from.num_values;
  *f = Splice(seed, meta, begin, end, pages);
  how << "pages of row group " << sg << " column " << sc << " put in row group " << tg << " column "
      << tc << "; ";
}

/// Applies a random corruption to a copy of `seed`; `how` gets a description to reproduce it.
std::string Corrupt(Rng& rng, const Seed& seed, std::string* kind, std::ostream& how) {
  std::string f = seed.bytes;
  int pick = static_cast<int>(Pick(rng, 0, 99));
  if (pick < 12) {
    *kind = "truncate";
    Truncate(rng, seed, &f, how);
  } else if (pick < 30) {
    *kind = "bit flips";
    FlipBits(rng, seed, &f, how);
  } else if (pick < 48) {
    *kind = "overwrite";
    Overwrite(rng, seed, &f, how);
  } else if (pick < 53) {
    *kind = "footer length";
    EditFooterLength(rng, seed, &f, how);
  } else if (pick < 73) {
    *kind = "footer field";
    EditFooter(rng, seed, &f, how);
  } else if (pick < 85) {
    *kind = "page header field";
    EditPageHeader(rng, seed, &f, how);
  } else if (pick < 90) {
    *kind = "transplant";
    Transplant(rng, seed, &f, how);
  } else if (pick < 95) {
    *kind = "splat";
    Splat(rng, seed, &f, how);
  } else {
    *kind = "several";
    int n = static_cast<int>(Pick(rng, 2, 4));
    for (int i = 0; i < n; ++i) {
      switch (Pick(rng, 0, 3)) {
        case 0:
          FlipBits(rng, seed, &f, how);
          break;
        case 1:
          Overwrite(rng, seed, &f, how);
          break;
        case 2:
          Splat(rng, seed, &f, how);
          break;
        default:
          Truncate(rng, seed, &f, how);
          break;
      }
    }
  }
  return f;
}

// --- Checking what a successful read returned ----------------------------------------------

/// Whether a column's buffers agree with its type and length (what GetValue relies on).
std::string CheckColumn(const data::Column& c, int64_t length, const std::string& name) {
  const data::DataType& t = *c.type();
  auto bad = [&](const std::string& why) { return name + " (" + t.ToString() + "): " + why; };
  if (c.length() != length)
    return bad("length " + std::to_string(c.length()) + ", expected " + std::to_string(length));
  if (!c.validity().empty() && static_cast<int64_t>(c.validity().size()) != length)
    return bad("validity has " + std::to_string(c.validity().size()) + " entries");
  auto check_offsets = [&](int64_t limit) -> std::string {
    const auto& o = c.offsets();
    if (static_cast<int64_t>(o.size()) != length + 1)
      return bad(std::to_string(o.size()) + " offsets");
    for (size_t i = 0; i + 1 < o.size(); ++i)
      if (o[i] < 0 || o[i] > o[i + 1]) return bad("offsets not ascending at " + std::to_string(i));
    if (o.back() > limit)
      return bad("offsets reach " + std::to_string(o.back()) + " of " + std::to_string(limit));
    return "";
  };
  switch (t.id()) {
    case data::TypeId::kString:
    case data::TypeId::kBinary:
      return check_offsets(static_cast<int64_t>(c.bytes().size()));
    case data::TypeId::kStruct:
      if (c.num_children() != t.fields().size()) return bad("wrong number of children");
      for (size_t i = 0; i < c.num_children(); ++i) {
        std::string s = CheckColumn(c.child(i), length, name + "." + t.fields()[i].name);
        if (!s.empty()) return s;
      }
      return "";
    case data::TypeId::kList:
    case data::TypeId::kMap: {
      size_t want = t.id() == data::TypeId::kList ? 1 : 2;
      if (c.num_children() != want) return bad("wrong number of children");
      int64_t elements = c.child(0).length();
      std::string s = check_offsets(elements);
      if (!s.empty()) return s;
      for (size_t i = 0; i < want; ++i) {
        s = CheckColumn(c.child(i), elements, name + "[" + std::to_string(i) + "]");
        if (!s.empty()) return s;
      }
      return "";
    }
    default: {
      int64_t width = t.byte_width();
      if (static_cast<int64_t>(c.values().size()) < length * width)
        return bad(std::to_string(c.values().size()) + " value bytes for " +
                   std::to_string(length) + " values");
      return "";
    }
  }
}

// --- The loop -------------------------------------------------------------------------------

struct Tally {
  int64_t iterations = 0;
  int64_t opened = 0;
  int64_t read_fully = 0;
  int64_t failed = 0;
  std::map<std::string, int64_t> codes;                   // "open: corrupt"
  std::map<std::string, std::array<int64_t, 3>> by_kind;  // total, opened, read
  std::vector<std::string> findings;
  std::map<std::string, int64_t> signatures;  // distinct findings, and how often each came up
  int64_t slowest_ms = 0;
  std::string slowest;
};

/// A finding without its numbers, so that one bug hit many times counts once.
std::string Signature(const std::string& outcome) {
  std::string out;
  for (char c : outcome) {
    if (c >= '0' && c <= '9') {
      if (out.empty() || out.back() != '#') out.push_back('#');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

void Finding(Tally* t, const std::string& what, const std::string& outcome) {
  t->findings.push_back(what + " -> " + outcome);
  auto& n = t->signatures[Signature(outcome)];
  if (n++ == 0) std::cerr << "[ finding ] " << what << " -> " << outcome << "\n";
}

std::string Clip(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

ReadOptions RandomOptions(Rng& rng, const FileReader& reader) {
  ReadOptions o;
  if (Chance(rng, 0.7)) return o;
  const data::Schema& schema = reader.schema();
  for (const auto& f : schema.fields())
    if (Chance(rng, 0.5)) o.columns.push_back(f.name);
  o.with_row_index = Chance(rng, 0.5);
  o.row_index_column = "__row";
  if (schema.num_fields() > 0 && Chance(rng, 0.6)) {
    const data::Field& f = schema.field(Pick(rng, 0, schema.num_fields() - 1));
    StatisticsFilter filter;
    filter.column = f.name;
    filter.op = static_cast<StatisticsFilter::Op>(Pick(rng, 0, 6));
    switch (f.type->id()) {
      case data::TypeId::kBoolean:
        filter.value = data::Value::Bool(Chance(rng, 0.5));
        break;
      case data::TypeId::kInt8:
      case data::TypeId::kInt16:
      case data::TypeId::kInt32:
      case data::TypeId::kInt64:
      case data::TypeId::kDate:
      case data::TypeId::kTimestamp:
      case data::TypeId::kTimestampNtz:
        filter.value = data::Value::Int(Pick(rng, -100, 100));
        break;
      case data::TypeId::kFloat:
      case data::TypeId::kDouble:
        filter.value = data::Value::Double(static_cast<double>(Pick(rng, -100, 100)) / 3);
        break;
      case data::TypeId::kDecimal:
        filter.value = data::Value::Decimal(Pick(rng, -1000, 1000));
        break;
      case data::TypeId::kString:
      case data::TypeId::kBinary:
        filter.value = data::Value::Bytes(Chance(rng, 0.5) ? "m" : "");
        break;
      default:
        filter.op =
            Chance(rng, 0.5) ? StatisticsFilter::Op::kIsNull : StatisticsFilter::Op::kIsNotNull;
        break;
    }
    o.filters.push_back(filter);
  }
  return o;
}

void RunIteration(int64_t iteration, uint64_t base_seed, const std::vector<Seed>& seeds,
                  io::MemoryFileSystem* fs, const std::string& dump_dir, Tally* tally) {
  const Seed& seed = seeds[static_cast<size_t>(iteration) % seeds.size()];
  Rng rng(base_seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(iteration));
  std::snprintf(g_context, sizeof(g_context), "iteration %" PRId64 ", seed %s: corrupting",
                iteration, seed.name.c_str());
  std::ostringstream how;
  std::string kind;
  std::string bytes = Corrupt(rng, seed, &kind, how);
  const std::string path = "/fuzz/" + std::to_string(iteration) + "/" + seed.name;
  const std::string what = "iteration " + std::to_string(iteration) +
                           " (CDCLAKE_FUZZ_SEED=" + std::to_string(base_seed) + "), seed " +
                           seed.name + ": " + how.str();
  std::snprintf(g_context, sizeof(g_context), "%s", what.c_str());
  if (!dump_dir.empty()) {
    std::string out = dump_dir + "/iteration-" + std::to_string(iteration) + ".parquet";
    Status s = io::LocalFileSystem::Instance()->WriteFile(out, bytes);
    std::cerr << "[ dump ] " << out << ": " << (s.ok() ? what : s.ToString()) << "\n";
  }
  Status put = fs->WriteFile(path, bytes);
  ASSERT_TRUE(put.ok()) << put.ToString();

  auto& per_kind = tally->by_kind[kind];
  ++per_kind[0];
  ++tally->iterations;
  const int64_t start = NowMs();
  g_iteration_start_ms = start;
  auto fail = [&](const char* stage, const Status& s) {
    ++tally->failed;
    ++tally->codes[std::string(stage) + ": " + std::string(StatusCodeName(s.code()))];
    if (s.ok()) {
      Finding(tally, what, std::string(stage) + " failed with an OK status");
    } else if (s.message().empty()) {
      Finding(tally, what, std::string(stage) + " failed with an empty message");
    } else if (s.message().find(path) == std::string::npos) {
      Finding(tally, what, std::string(stage) + " error does not name the file: " + s.ToString());
    }
  };
  try {
    auto reader = FileReader::Open(*fs, path);
    if (!reader.ok()) {
      fail("open", reader.status());
    } else {
      ++tally->opened;
      ++per_kind[1];
      ReadOptions options = RandomOptions(rng, **reader);
      auto batch = (*reader)->ReadAll(options);
      if (!batch.ok()) {
        fail("read", batch.status());
      } else {
        ++tally->read_fully;
        ++per_kind[2];
        if (options.filters.empty() && batch->num_rows() != (*reader)->num_rows()) {
          Finding(tally, what,
                  "read " + std::to_string(batch->num_rows()) + " rows, the footer says " +
                      std::to_string((*reader)->num_rows()));
        }
        std::string problem;
        for (size_t c = 0; c < batch->num_columns() && problem.empty(); ++c) {
          problem = CheckColumn(batch->column(c), batch->num_rows(), batch->schema().field(c).name);
        }
        if (!problem.empty()) {
          Finding(tally, what, "read OK but the batch is malformed: " + problem);
        } else {
          // Every value can be looked at.
          for (size_t c = 0; c < batch->num_columns(); ++c)
            for (int64_t r = 0; r < batch->num_rows(); ++r) (void)batch->column(c).GetValue(r);
        }
      }
    }
  } catch (const std::exception& e) {
    Finding(tally, what, std::string("threw ") + e.what());
  }
  g_iteration_start_ms = 0;
  int64_t elapsed = NowMs() - start;
  if (elapsed > tally->slowest_ms) {
    tally->slowest_ms = elapsed;
    tally->slowest = what;
  }
  Status gone = fs->Delete(path);
  ASSERT_TRUE(gone.ok()) << gone.ToString();
}

bool UnderSanitizer() {
  return __sanitizer_set_death_callback != nullptr;
}

// --- Tests ------------------------------------------------------------------------------------

// Every seed reads cleanly, and the transcoded ones (DELTA_*, BYTE_STREAM_SPLIT, RLE booleans,
// data page v2) read back the rows they were made from.
TEST(CorruptionTest, SeedsReadCleanly) {
  const Seeds& all = AllSeeds();
  ASSERT_TRUE(all.error.empty()) << all.error;
  ASSERT_GE(all.seeds.size(), 30u);
  io::MemoryFileSystem fs;
  for (const Seed& seed : all.seeds) {
    std::string path = "/clean/" + seed.name;
    ASSERT_TRUE(fs.WriteFile(path, seed.bytes).ok());
    auto reader = FileReader::Open(fs, path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto batch = (*reader)->ReadAll();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_FALSE(seed.page_headers.empty()) << seed.name;
    if (!seed.has_rows) continue;
    ASSERT_EQ(batch->num_rows(), seed.rows.num_rows()) << seed.name;
    ASSERT_EQ(batch->num_columns(), seed.rows.num_columns()) << seed.name;
    for (size_t c = 0; c < batch->num_columns(); ++c) {
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        data::Value want = seed.rows.column(c).GetValue(r);
        data::Value got = batch->column(c).GetValue(r);
        ASSERT_EQ(want, got) << seed.name << " column " << seed.rows.schema().field(c).name
                             << " row " << r << ": wrote " << want.DebugString() << ", read "
                             << got.DebugString();
      }
    }
  }
  std::cout << "[ corruption ] " << all.seeds.size() << " seed files\n";
}

TEST(CorruptionTest, ReaderSurvivesCorruptedFiles) {
  const Seeds& all = AllSeeds();
  ASSERT_TRUE(all.error.empty()) << all.error;
  const int64_t iterations = EnvInt("CDCLAKE_FUZZ_ITERATIONS", 10000);
  const uint64_t base_seed = static_cast<uint64_t>(EnvInt("CDCLAKE_FUZZ_SEED", 1));
  const int64_t only = EnvInt("CDCLAKE_FUZZ_ONLY", -1);
  const int64_t first = EnvInt("CDCLAKE_FUZZ_FIRST", 0);
  const char* dump = std::getenv("CDCLAKE_FUZZ_DUMP_DIR");
  const std::string dump_dir = dump ? dump : "";
  InstallCrashContext();

  // Outside the sanitizers, cap the address space so that a file which makes the reader
  // allocate without bound shows up as a std::bad_alloc finding instead of swapping the host.
  struct rlimit saved {};
  bool capped = false;
  if (!UnderSanitizer() && getrlimit(RLIMIT_AS, &saved) == 0) {
    struct rlimit cap = saved;
    cap.rlim_cur = std::min<rlim_t>(saved.rlim_cur, rlim_t{8} << 30);
    capped = setrlimit(RLIMIT_AS, &cap) == 0;
  }

  Tally tally;
  io::MemoryFileSystem fs;
  const auto started = std::chrono::steady_clock::now();
  {
    Watchdog watchdog(EnvInt("CDCLAKE_FUZZ_HANG_SECONDS", 60));
    for (int64_t i = only >= 0 ? only : first; i < (only >= 0 ? only + 1 : iterations); ++i) {
      RunIteration(i, base_seed, all.seeds, &fs, dump_dir, &tally);
      if (::testing::Test::HasFatalFailure()) break;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (capped) setrlimit(RLIMIT_AS, &saved);

  std::ostringstream summary;
  summary << "[ corruption ] " << tally.iterations << " corrupted files from " << all.seeds.size()
          << " seeds in " << seconds << " s: " << tally.opened << " opened, " << tally.read_fully
          << " read fully, " << tally.failed << " failed with a Status\n";
  summary << "[ corruption ] status codes:";
  for (const auto& [code, n] : tally.codes) summary << "  " << code << "=" << n;
  summary << "\n[ corruption ] by corruption (files / opened / read):";
  for (const auto& [kind, n] : tally.by_kind)
    summary << "  " << kind << " " << n[0] << "/" << n[1] << "/" << n[2];
  summary << "\n[ corruption ] slowest file: " << tally.slowest_ms << " ms, "
          << Clip(tally.slowest, 300) << "\n";
  if (!tally.signatures.empty()) {
    summary << "[ corruption ] distinct findings:\n";
    for (const auto& [sig, n] : tally.signatures) summary << "    " << n << "x " << sig << "\n";
  }
  std::cout << summary.str();
  EXPECT_TRUE(tally.findings.empty())
      << tally.findings.size() << " findings; the first: " << tally.findings.front();
}

}  // namespace
}  // namespace cdclake::parquet
