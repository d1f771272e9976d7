// Compress and Decompress over snappy, zlib, zstd and lz4. Every size that comes from input is
// checked against the page header's size (itself capped) before it is used or allocated.
#include "parquet/compression/codec.h"

#include <lz4.h>
#include <lz4hc.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <memory>

namespace cdclake::parquet {
namespace {

Status SizeMismatch(size_t actual, size_t expected) {
  return Status::Corrupt("decompressed " + std::to_string(actual) + " bytes, page header says " +
                         std::to_string(expected));
}

Status SizeExceeded(size_t expected) {
  return Status::Corrupt("decompressed more than " + std::to_string(expected) +
                         " bytes, page header says " + std::to_string(expected));
}

uint32_t LoadBE32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

void StoreBE32(char* p, uint32_t v) {
  p[0] = static_cast<char>(v >> 24);
  p[1] = static_cast<char>(v >> 16);
  p[2] = static_cast<char>(v >> 8);
  p[3] = static_cast<char>(v);
}

// ---- Snappy --------------------------------------------------------------------------------

Status SnappyCompress(std::string_view input, std::string* out) {
  if (input.size() > UINT32_MAX) {
    return Status::InvalidArgument("input of " + std::to_string(input.size()) +
                                   " bytes is past the format's 4 GiB");
  }
  out->resize(snappy::MaxCompressedLength(input.size()));
  size_t length = 0;
  snappy::RawCompress(input.data(), input.size(), out->data(), &length);
  out->resize(length);
  return Status::OK();
}

Status SnappyDecompress(std::string_view input, size_t expected, std::string* out) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &length)) {
    return Status::Corrupt("malformed length at the start of the input");
  }
  if (length != expected) return SizeMismatch(length, expected);
  out->resize(expected);
  if (!snappy::RawUncompress(input.data(), input.size(), out->data())) {
    return Status::Corrupt("malformed input");
  }
  return Status::OK();
}

// ---- Gzip (zlib) ---------------------------------------------------------------------------

constexpr size_t kZlibChunk = size_t{1} << 30;  // zlib counts in 32-bit uInt
constexpr int kGzipWindowBits = 15 + 16;        // write the gzip wrapper
constexpr int kAutoWindowBits = 15 + 32;        // read gzip or zlib, whichever is there
constexpr int kRawWindowBits = -15;             // read raw deflate

Bytef* ZlibBytes(const char* p) {
  return reinterpret_cast<Bytef*>(const_cast<char*>(p));
}

// Points z.next_in/avail_in at the next chunk of `input` once the current one is used up.
void RefillInput(z_stream& z, std::string_view input) {
  if (z.avail_in != 0) return;
  const size_t consumed =
      static_cast<size_t>(reinterpret_cast<const char*>(z.next_in) - input.data());
  z.avail_in = static_cast<uInt>(std::min(input.size() - consumed, kZlibChunk));
}

std::string ZlibMessage(const z_stream& z, int rc) {
  if (z.msg != nullptr) return z.msg;
  return "zlib error " + std::to_string(rc);
}

Status GzipCompress(std::string_view input, std::string* out, int level) {
  if (level == 0) level = Z_DEFAULT_COMPRESSION;
  if (level < -1 || level > 9) {
    return Status::InvalidArgument("level " + std::to_string(level) + " is not 1..9");
  }
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  out->resize(std::max<size_t>(deflateBound(&z, input.size()), 64));
  z.next_in = ZlibBytes(input.data());
  int rc;
  do {
    RefillInput(z, input);
    const bool last =
        reinterpret_cast<const char*>(z.next_in) + z.avail_in == input.data() + input.size();
    if (z.total_out == out->size()) out->resize(out->size() * 2);
    z.next_out = ZlibBytes(out->data() + z.total_out);
    z.avail_out = static_cast<uInt>(std::min(out->size() - z.total_out, kZlibChunk));
    rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
  } while (rc == Z_OK || rc == Z_BUF_ERROR);
  Status status = rc == Z_STREAM_END ? Status::OK() : Status::Internal(ZlibMessage(z, rc));
  out->resize(z.total_out);
  deflateEnd(&z);
  return status;
}

bool StartsWithGzipMagic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates `input` (members of the format `window_bits` selects, one after another) into
// exactly `expected` bytes of *out.
Status Inflate(std::string_view input, size_t expected, int window_bits, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return Status::Internal("inflateInit2 failed");
  out->resize(expected);
  z.next_in = ZlibBytes(input.data());
  size_t produced = 0;
  char overflow[1];  // receives output past `expected`, to notice it
  Status status;
  while (true) {
    RefillInput(z, input);
    const bool full = produced == expected;
    z.next_out = ZlibBytes(full ? overflow : out->data() + produced);
    z.avail_out = full ? 1 : static_cast<uInt>(std::min(expected - produced, kZlibChunk));
    const uInt room = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const size_t written = room - z.avail_out;
    if (full && written > 0) {
      status = SizeExceeded(expected);
      break;
    }
    produced += written;
    if (rc == Z_STREAM_END) {
      const size_t consumed =
          static_cast<size_t>(reinterpret_cast<const char*>(z.next_in) - input.data());
      std::string_view rest = input.substr(consumed);
      if (rest.empty()) break;
      if (window_bits != kRawWindowBits && StartsWithGzipMagic(rest)) {  // another member
        inflateReset(&z);
        continue;
      }
      status = Status::Corrupt(std::to_string(rest.size()) + " bytes after the end of the stream");
      break;
    }
    if (rc == Z_BUF_ERROR) {  // no progress possible: all input used, stream unfinished
      status = Status::Corrupt("truncated stream");
      break;
    }
    if (rc != Z_OK) {
      status = Status::Corrupt(ZlibMessage(z, rc));
      break;
    }
  }
  inflateEnd(&z);
  if (status.ok() && produced != expected) status = SizeMismatch(produced, expected);
  return status;
}

Status GzipDecompress(std::string_view input, size_t expected, std::string* out) {
  Status status = Inflate(input, expected, kAutoWindowBits, out);
  if (status.ok() || StartsWithGzipMagic(input)) return status;
  // Neither gzip nor zlib: some writers put bare deflate under GZIP.
  if (Inflate(input, expected, kRawWindowBits, out).ok()) return Status::OK();
  return status;
}

// ---- Zstandard -----------------------------------------------------------------------------

struct ZstdContextFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// Contexts are costly to set up and hold no state between calls, so each thread keeps one.
ZSTD_CCtx* ThreadCompressionContext() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdContextFree> context(ZSTD_createCCtx());
  return context.get();
}

ZSTD_DCtx* ThreadDecompressionContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdContextFree> context(ZSTD_createDCtx());
  return context.get();
}

Status ZstdCompress(std::string_view input, std::string* out, int level) {
  if (level != 0 && (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())) {
    return Status::InvalidArgument("level " + std::to_string(level) + " is not " +
                                   std::to_string(ZSTD_minCLevel()) + ".." +
                                   std::to_string(ZSTD_maxCLevel()));
  }
  ZSTD_CCtx* context = ThreadCompressionContext();
  if (context == nullptr) return Status::Internal("cannot create a compression context");
  out->resize(ZSTD_compressBound(input.size()));
  // Level 0 is zstd's own default level.
  size_t n =
      ZSTD_compressCCtx(context, out->data(), out->size(), input.data(), input.size(), level);
  if (ZSTD_isError(n)) return Status::Internal(ZSTD_getErrorName(n));
  out->resize(n);
  return Status::OK();
}

Status ZstdDecompress(std::string_view input, size_t expected, std::string* out) {
  // A lone frame that states its size can be checked before any work.
  const unsigned long long stated = ZSTD_getFrameContentSize(input.data(), input.size());
  if (stated != ZSTD_CONTENTSIZE_UNKNOWN && stated != ZSTD_CONTENTSIZE_ERROR &&
      stated != expected &&
      ZSTD_findFrameCompressedSize(input.data(), input.size()) == input.size()) {
    return SizeMismatch(static_cast<size_t>(stated), expected);
  }
  ZSTD_DCtx* context = ThreadDecompressionContext();
  if (context == nullptr) return Status::Internal("cannot create a decompression context");
  out->resize(expected);
  size_t n = ZSTD_decompressDCtx(context, out->data(), expected, input.data(), input.size());
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) return SizeExceeded(expected);
    return Status::Corrupt(ZSTD_getErrorName(n));
  }
  if (n != expected) return SizeMismatch(n, expected);
  return Status::OK();
}

// ---- LZ4 -----------------------------------------------------------------------------------

constexpr int kLz4MaxAcceleration = 65537;

Status CheckLz4Level(int level) {
  if (level > LZ4HC_CLEVEL_MAX || level < -kLz4MaxAcceleration) {
    return Status::InvalidArgument("level " + std::to_string(level) + " is not -" +
                                   std::to_string(kLz4MaxAcceleration) + ".." +
                                   std::to_string(LZ4HC_CLEVEL_MAX));
  }
  return Status::OK();
}

// Compresses `input` as one LZ4 block at `out` + `offset`; *out is resized to end after it.
Status Lz4CompressBlock(std::string_view input, int level, size_t offset, std::string* out) {
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::InvalidArgument("input of " + std::to_string(input.size()) +
                                   " bytes is past the format's limit");
  }
  const int size = static_cast<int>(input.size());
  const int bound = LZ4_compressBound(size);
  out->resize(offset + static_cast<size_t>(bound));
  char* dst = out->data() + offset;
  int n;
  if (level > 0) {
    n = LZ4_compress_HC(input.data(), dst, size, bound, level);
  } else if (level < 0) {
    n = LZ4_compress_fast(input.data(), dst, size, bound, -level);
  } else {
    n = LZ4_compress_default(input.data(), dst, size, bound);
  }
  if (n <= 0) return Status::Internal("compression failed");
  out->resize(offset + static_cast<size_t>(n));
  return Status::OK();
}

// Decompresses one raw block into exactly `capacity` bytes at `dst`; the size it made, or -1
// when the block is malformed or would not fit.
int Lz4DecompressBlock(std::string_view block, char* dst, size_t capacity) {
  if (block.size() > INT_MAX || capacity > INT_MAX) return -1;
  return LZ4_decompress_safe(block.data(), dst, static_cast<int>(block.size()),
                             static_cast<int>(capacity));
}

Status Lz4RawDecompress(std::string_view input, size_t expected, std::string* out) {
  out->resize(expected);
  int n = Lz4DecompressBlock(input, out->data(), expected);
  if (n < 0) {
    return Status::Corrupt("malformed block, or one that decompresses to more than " +
                           std::to_string(expected) + " bytes");
  }
  if (static_cast<size_t>(n) != expected) return SizeMismatch(static_cast<size_t>(n), expected);
  return Status::OK();
}

Status Lz4HadoopCompress(std::string_view input, std::string* out, int level) {
  constexpr size_t kHeader = 8;
  CDCLAKE_RETURN_IF_ERROR(Lz4CompressBlock(input, level, kHeader, out));
  StoreBE32(out->data(), static_cast<uint32_t>(input.size()));
  StoreBE32(out->data() + 4, static_cast<uint32_t>(out->size() - kHeader));
  return Status::OK();
}

// Reads Hadoop framing headers only. Ok with the total uncompressed size when `input` is a
// whole number of frames whose blocks lie inside it.
bool ScanHadoopFrames(std::string_view input, uint64_t* total) {
  *total = 0;
  while (!input.empty()) {
    if (input.size() < 8) return false;
    const uint32_t uncompressed = LoadBE32(input.data());
    const uint32_t compressed = LoadBE32(input.data() + 4);
    input.remove_prefix(8);
    if (compressed > input.size()) return false;
    input.remove_prefix(compressed);
    *total += uncompressed;
  }
  return true;
}

// Decompresses well-formed frames (see ScanHadoopFrames) totalling `expected` bytes.
bool DecompressHadoopFrames(std::string_view input, size_t expected, std::string* out) {
  out->resize(expected);
  size_t produced = 0;
  while (!input.empty()) {
    const uint32_t uncompressed = LoadBE32(input.data());
    const uint32_t compressed = LoadBE32(input.data() + 4);
    input.remove_prefix(8);
    if (uncompressed > expected - produced) return false;
    int n = Lz4DecompressBlock(input.substr(0, compressed), out->data() + produced, uncompressed);
    if (n < 0 || static_cast<uint32_t>(n) != uncompressed) return false;
    produced += uncompressed;
    input.remove_prefix(compressed);
  }
  return produced == expected;
}

Status Lz4HadoopDecompress(std::string_view input, size_t expected, std::string* out) {
  uint64_t framed_total = 0;
  const bool framed = ScanHadoopFrames(input, &framed_total);
  if (framed && framed_total == expected && DecompressHadoopFrames(input, expected, out)) {
    return Status::OK();
  }
  // Older writers put one raw block under this codec.
  Status raw = Lz4RawDecompress(input, expected, out);
  if (raw.ok()) return raw;
  if (framed && framed_total != expected) return SizeMismatch(framed_total, expected);
  return Status::Corrupt("neither Hadoop-framed LZ4 blocks nor a raw LZ4 block of " +
                         std::to_string(expected) + " bytes");
}

// --------------------------------------------------------------------------------------------

// Whether `input` can possibly decompress to `expected` bytes, judged by the codec's largest
// expansion (deflate: 1032 to 1, LZ4: 255 to 1, with slack). Lets us refuse an absurd page size
// before allocating it. Snappy and zstd state their sizes, which are checked instead.
bool CanHold(Codec codec, size_t input_size, size_t expected) {
  uint64_t ratio;
  switch (codec) {
    case Codec::kGzip:
      ratio = 1040;
      break;
    case Codec::kLz4Raw:
    case Codec::kLz4Hadoop:
      ratio = 256;
      break;
    default:
      return true;
  }
  return expected <= static_cast<uint64_t>(input_size) * ratio + 1024;
}

Status CompressWith(Codec codec, std::string_view input, std::string* out, int level) {
  switch (codec) {
    case Codec::kUncompressed:
      out->assign(input);
      return Status::OK();
    case Codec::kSnappy:
      return SnappyCompress(input, out);
    case Codec::kGzip:
      return GzipCompress(input, out, level);
    case Codec::kZstd:
      return ZstdCompress(input, out, level);
    case Codec::kLz4Raw:
      CDCLAKE_RETURN_IF_ERROR(CheckLz4Level(level));
      return Lz4CompressBlock(input, level, 0, out);
    case Codec::kLz4Hadoop:
      CDCLAKE_RETURN_IF_ERROR(CheckLz4Level(level));
      return Lz4HadoopCompress(input, out, level);
  }
  return Status::InvalidArgument("unknown codec " + std::to_string(static_cast<int>(codec)));
}

Status DecompressWith(Codec codec, std::string_view input, size_t expected, std::string* out) {
  switch (codec) {
    case Codec::kUncompressed:
      if (input.size() != expected) return SizeMismatch(input.size(), expected);
      out->assign(input);
      return Status::OK();
    case Codec::kSnappy:
      return SnappyDecompress(input, expected, out);
    case Codec::kGzip:
      return GzipDecompress(input, expected, out);
    case Codec::kZstd:
      return ZstdDecompress(input, expected, out);
    case Codec::kLz4Raw:
      return Lz4RawDecompress(input, expected, out);
    case Codec::kLz4Hadoop:
      return Lz4HadoopDecompress(input, expected, out);
  }
  return Status::InvalidArgument("unknown codec " + std::to_string(static_cast<int>(codec)));
}

// Whether `input` points into the buffer of `out`, which Compress and Decompress overwrite.
bool Overlaps(std::string_view input, const std::string& out) {
  const auto in_begin = reinterpret_cast<uintptr_t>(input.data());
  const auto out_begin = reinterpret_cast<uintptr_t>(out.data());
  return in_begin < out_begin + out.capacity() && out_begin < in_begin + input.size();
}

}  // namespace

Status Compress(Codec codec, std::string_view input, std::string* out, int level) {
  std::string copy;
  if (Overlaps(input, *out)) input = copy.assign(input);
  out->clear();
  Status status = CompressWith(codec, input, out, level);
  if (!status.ok()) {
    out->clear();
    return status.WithContext(std::string(CodecName(codec)) + " compression");
  }
  return status;
}

Status Decompress(Codec codec, std::string_view input, size_t uncompressed_size, std::string* out) {
  std::string copy;
  if (Overlaps(input, *out)) input = copy.assign(input);
  out->clear();
  if (uncompressed_size > kMaxUncompressedPageSize) {
    return Status::Corrupt(
        std::string(CodecName(codec)) + ": page header says " + std::to_string(uncompressed_size) +
        " uncompressed bytes, past the limit of " + std::to_string(kMaxUncompressedPageSize));
  }
  if (input.empty() && uncompressed_size == 0) return Status::OK();
  if (!CanHold(codec, input.size(), uncompressed_size)) {
    return Status::Corrupt(std::string(CodecName(codec)) + ": page header says " +
                           std::to_string(uncompressed_size) + " bytes, more than " +
                           std::to_string(input.size()) + " compressed bytes can hold");
  }
  Status status = DecompressWith(codec, input, uncompressed_size, out);
  if (!status.ok()) {
    out->clear();
    return status.WithContext(CodecName(codec));
  }
  return status;
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed:
      return "UNCOMPRESSED";
    case Codec::kSnappy:
      return "SNAPPY";
    case Codec::kGzip:
      return "GZIP";
    case Codec::kZstd:
      return "ZSTD";
    case Codec::kLz4Raw:
      return "LZ4_RAW";
    case Codec::kLz4Hadoop:
      return "LZ4";
  }
  return "UNKNOWN";
}

Result<Codec> ParseCodec(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                      Codec::kLz4Raw, Codec::kLz4Hadoop}) {
    if (upper == CodecName(codec)) return codec;
  }
  if (upper == "NONE") return Codec::kUncompressed;
  if (upper == "LZ4_HADOOP") return Codec::kLz4Hadoop;
  return Status::InvalidArgument("unknown compression codec '" + std::string(name) + "'");
}

}  // namespace cdclake::parquet
