// DELTA_BINARY_PACKED (Parquet encoding 5) for INT32 and INT64: a header, then blocks of deltas
// from a per-block minimum, bit-packed per miniblock with its own width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/bytes.h"
#include "base/status.h"

namespace cdclake::parquet {

/// Writes blocks of 128 values in 4 miniblocks of 32. All arithmetic wraps (two's complement),
/// as the format requires.
template <typename T>
class DeltaBinaryPackedEncoder {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

 public:
  static constexpr size_t kBlockSize = 128;
  static constexpr size_t kMiniBlocks = 4;
  static constexpr size_t kMiniBlockSize = kBlockSize / kMiniBlocks;

  void Put(T value);
  void Put(const T* values, size_t n);

  /// The header and all blocks. Resets the encoder.
  std::string Finish();

 private:
  using U = std::make_unsigned_t<T>;

  void FlushBlock();

  uint64_t total_ = 0;
  U first_ = 0;
  U last_ = 0;
  U deltas_[kBlockSize] = {};
  size_t num_deltas_ = 0;
  std::string blocks_;  // the header goes in front at Finish, once the count is known
};

/// Reads a DELTA_BINARY_PACKED stream. Init() reads the header; Decode() then hands out values in
/// batches of any size. Blocks and miniblocks are read only when values are needed from them, so
/// absent trailing miniblocks and the widths of unused ones are never looked at.
/// For INT32 the spec forbids deltas wider than 32 bits, but some older writers (earlier libcudf
/// and arrow-go releases) computed them in 64 bits; such min deltas and miniblocks of up to 64
/// bits are read modulo 2^32, which restores the values exactly (parquet-java reads them too).
/// Wider than 64 is corrupt. After an error the decoder is spent.
template <typename T>
class DeltaBinaryPackedDecoder {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

 public:
  /// `data` must outlive the decoder; it may continue past the stream (bytes_consumed() says
  /// where the stream ended).
  explicit DeltaBinaryPackedDecoder(std::string_view data);

  /// Reads and checks the header. Errors are kCorrupt with the byte offset.
  Status Init();

  /// The value count the header declares. Only a count: it is not checked against the data
  /// length, so do not allocate by it.
  size_t total_values() const { return static_cast<size_t>(total_); }
  /// Values not yet decoded.
  size_t values_remaining() const { return static_cast<size_t>(remaining_); }

  /// Decodes exactly `n` values; kCorrupt when fewer remain or the data is damaged.
  Status Decode(T* out, size_t n);
  /// Decodes and drops `n` values. Miniblocks of width 0 are stepped over whole, so the time
  /// taken is bounded by the bytes read, however many values the header claims.
  Status Skip(size_t n);

  /// The offset just past what has been read; after the last value, the end of the stream.
  size_t bytes_consumed() const { return reader_.position(); }

 private:
  using U = std::make_unsigned_t<T>;

  Status Shortfall(size_t wanted) const;
  Status NextMiniBlock();
  Status ReadBlockHeader();
  // Unpacks `n` deltas (a multiple of 8) from the front of the current miniblock.
  void UnpackDeltas(size_t n, U* out);
  void Accumulate(U* values, size_t n);

  ByteReader reader_;
  bool initialized_ = false;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;      // per block
  uint64_t miniblock_size_ = 0;  // values per miniblock
  uint64_t total_ = 0;
  uint64_t remaining_ = 0;      // values not yet returned
  uint64_t deltas_unread_ = 0;  // deltas not yet assigned to a miniblock
  bool first_pending_ = false;  // the header's first value is not yet returned
  U last_ = 0;

  // The current block.
  size_t block_offset_ = 0;
  U min_delta_ = 0;
  std::string_view widths_;
  uint64_t miniblock_index_ = 0;  // of the next miniblock to read in this block

  // The current miniblock: its unread groups and the deltas they hold.
  const uint8_t* mb_data_ = nullptr;
  size_t mb_size_ = 0;
  int mb_width_ = 0;
  uint64_t mb_left_ = 0;

  // One unpacked group, when a batch ended inside it.
  U group_[8] = {};
  size_t group_pos_ = 0;
  size_t group_end_ = 0;
};

extern template class DeltaBinaryPackedEncoder<int32_t>;
extern template class DeltaBinaryPackedEncoder<int64_t>;
extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;

}  // namespace cdclake::parquet
