// WriterOptions: how the Parquet writer encodes, compresses and cuts a file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "parquet/format/parquet_types.h"

namespace cdclake::parquet {

struct WriterOptions {
  format::CompressionCodec compression = format::CompressionCodec::kSnappy;
  int compression_level = 0;  // 0: the codec's default
  /// A row group is closed once its encoded pages reach this many bytes (uncompressed).
  int64_t row_group_bytes = 64LL << 20;
  /// ... or this many rows, whichever comes first.
  int64_t row_group_rows = 1LL << 20;
  /// A data page is closed once its values and levels reach this many bytes.
  int64_t page_bytes = 1LL << 20;
  /// Dictionary encoding is tried first for every type but boolean; past this many bytes of
  /// distinct values a column chunk falls back to PLAIN.
  bool dictionary = true;
  int64_t dictionary_page_bytes = 1LL << 20;
  /// Min and max statistics longer than this are left out (null counts are always written).
  int64_t max_statistics_bytes = 4096;
  /// Column chunks are encoded and compressed by this many threads (each chunk by one thread, so
  /// the bytes do not depend on it); 1 keeps all the work on the calling thread.
  int threads = 2;
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
  std::string created_by = "cdclake version 0.1.0";
};

}  // namespace cdclake::parquet
