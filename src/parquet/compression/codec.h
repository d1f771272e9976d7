// Page compression codecs for Parquet: one Compress and one Decompress over snappy, gzip (zlib),
// zstd and both LZ4 variants, with every size coming from input checked before it is trusted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::parquet {

/// The codecs we read and write. Our own small enum (not the Thrift CompressionCodec), so
/// this file needs nothing else; the metadata code maps between the two.
enum class Codec {
  kUncompressed,
  kSnappy,
  kGzip,
  kZstd,
  kLz4Raw,     // LZ4_RAW: one bare LZ4 block
  kLz4Hadoop,  // LZ4 (deprecated): LZ4 blocks in Hadoop framing
};

/// The largest page we decompress (1 GiB): a bound on what input can make us allocate.
inline constexpr size_t kMaxUncompressedPageSize = size_t{1} << 30;

/// Compresses `input` into `*out`, replacing its contents (`input` may be a view of `*out`).
///
/// `level` 0 means the library's default. Otherwise: gzip 1..9 (zlib levels; -1 is zlib's
/// default too), zstd ZSTD_minCLevel()..ZSTD_maxCLevel(), LZ4 1..12 selects LZ4HC at that level
/// and negative values the fast compressor with acceleration -level; snappy and uncompressed
/// ignore it. Gzip writes the gzip format (RFC 1952), as Parquet's GZIP asks. kLz4Hadoop writes
/// one Hadoop frame (as parquet-mr and Arrow do).
///
/// kInvalidArgument for a level the codec does not have, or input past what the format can hold
/// (4 GiB for snappy, about 2 GiB for LZ4).
Status Compress(Codec codec, std::string_view input, std::string* out, int level = 0);

/// Decompresses `input` into `*out`, replacing its contents (`input` may be a view of `*out`).
/// The output must come out exactly `uncompressed_size` bytes long (the page header's
/// uncompressed_page_size); otherwise kCorrupt "decompressed N bytes, page header says M" (or
/// "more than M"). Any malformed input gives kCorrupt, never a crash or a read outside `input`.
///
/// Gzip also accepts zlib and raw deflate streams and concatenated gzip members. kLz4Hadoop
/// reads Hadoop framing (big-endian uncompressed size, big-endian compressed size, LZ4 block,
/// repeated) and falls back to one raw LZ4 block when the framing does not fit, since older
/// writers put raw blocks under this codec. Empty input with `uncompressed_size` 0 is an empty
/// page for every codec.
///
/// kCorrupt, before allocating anything, when `uncompressed_size` exceeds
/// kMaxUncompressedPageSize or is more than `input` could expand to (deflate and LZ4 have a
/// largest ratio; snappy and zstd state their size, which must match).
Status Decompress(Codec codec, std::string_view input, size_t uncompressed_size, std::string* out);

/// The codec's name in the Parquet spec: "UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW",
/// "LZ4" (for kLz4Hadoop).
std::string_view CodecName(Codec codec);

/// The codec with that name, ignoring case: the spec names above, plus "none" and "lz4_hadoop".
/// kInvalidArgument for anything else (also for codecs we do not have, LZO and BROTLI).
Result<Codec> ParseCodec(std::string_view name);

}  // namespace cdclake::parquet
