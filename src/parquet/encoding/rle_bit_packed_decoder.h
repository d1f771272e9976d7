// RleBitPackedDecoder: reads the RLE/bit-packed hybrid (Parquet encoding RLE = 3) into dictionary
// indices or levels, and the 4-byte length prefix that v1 data pages put before level blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "base/result.h"

namespace cdclake::parquet {

/// Decodes a stream of runs (no length prefix) of `bit_width`-bit values. Every value returned is
/// below 2^bit_width; an RLE run whose value does not fit is corrupt. A bit-packed run cut short
/// by the end of the data yields the whole values that are present, then the stream ends. After
/// an error the decoder is spent.
class RleBitPackedDecoder {
 public:
  /// `data` must outlive the decoder. A bit width outside 0..32 makes every GetBatch fail.
  RleBitPackedDecoder(std::string_view data, int bit_width);

  /// Decodes up to `n` values into `out`; returns how many, fewer than `n` only at the end of the
  /// data. Errors are kCorrupt and name the byte offset.
  Result<size_t> GetBatch(uint32_t* out, size_t n);

  /// The same for levels. REQUIRES: bit_width <= 15 (levels are at most 32767); else an error.
  Result<size_t> GetBatch(int16_t* out, size_t n);

  int bit_width() const { return bit_width_; }

 private:
  template <typename U>
  Result<size_t> GetBatchImpl(U* out, size_t n);
  // Starts the next non-empty run; false at the end of the data.
  Result<bool> NextRun();

  ByteReader reader_;
  int bit_width_;
  size_t value_bytes_;  // bytes of the value in an RLE run

  // The current RLE run.
  uint64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;

  // The current bit-packed run: the bytes of its unread groups and how many values they hold.
  const uint8_t* packed_ = nullptr;
  size_t packed_size_ = 0;
  size_t packed_left_ = 0;

  // One unpacked group, when a batch ended inside it.
  uint32_t group_[8] = {};
  size_t group_pos_ = 0;
  size_t group_end_ = 0;
};

/// Reads a v1 data page level block: a 4-byte little-endian length, then that many bytes.
Result<std::string_view> ReadLengthPrefixedLevels(ByteReader& r);

}  // namespace cdclake::parquet
