// Codec lookup.
#include "parquet/page_codec.h"

#include <string>

namespace cdclake::parquet {

Result<Codec> CodecFor(format::CompressionCodec codec) {
  switch (codec) {
    case format::CompressionCodec::kUncompressed:
      return Codec::kUncompressed;
    case format::CompressionCodec::kSnappy:
      return Codec::kSnappy;
    case format::CompressionCodec::kGzip:
      return Codec::kGzip;
    case format::CompressionCodec::kZstd:
      return Codec::kZstd;
    case format::CompressionCodec::kLz4Raw:
      return Codec::kLz4Raw;
    case format::CompressionCodec::kLz4:
      return Codec::kLz4Hadoop;
    case format::CompressionCodec::kLzo:
      return Status::NotSupported("compression codec LZO");
    case format::CompressionCodec::kBrotli:
      return Status::NotSupported("compression codec BROTLI");
  }
  return Status::NotSupported("compression codec " + std::to_string(static_cast<int>(codec)));
}

}  // namespace cdclake::parquet
