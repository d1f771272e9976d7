// DELTA_BINARY_PACKED: the block writer and the lazy, batch-at-a-time reader.
#include "parquet/encoding/delta_binary_packed.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "parquet/encoding/bit_packing.h"

namespace cdclake::parquet {
namespace {

// Larger blocks are valid in principle but no writer uses them; the cap keeps sizes in range.
constexpr uint64_t kMaxBlockSize = uint64_t{1} << 31;

std::string At(size_t offset) {
  return " at offset " + std::to_string(offset);
}

// Whether `v` is a value of T (always for int64_t).
template <typename T>
bool FitsIn(int64_t v) {
  return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
}

}  // namespace

// ---- Encoder ----

template <typename T>
void DeltaBinaryPackedEncoder<T>::Put(T value) {
  const U v = static_cast<U>(value);
  if (total_++ == 0) {
    first_ = v;
    last_ = v;
    return;
  }
  deltas_[num_deltas_++] = v - last_;
  last_ = v;
  if (num_deltas_ == kBlockSize) FlushBlock();
}

template <typename T>
void DeltaBinaryPackedEncoder<T>::Put(const T* values, size_t n) {
  for (size_t i = 0; i < n; ++i) Put(values[i]);
}

template <typename T>
void DeltaBinaryPackedEncoder<T>::FlushBlock() {
  T min_delta = static_cast<T>(deltas_[0]);
  for (size_t j = 1; j < num_deltas_; ++j)
    min_delta = std::min(min_delta, static_cast<T>(deltas_[j]));
  const U base = static_cast<U>(min_delta);
  U relative[kBlockSize] = {};  // the tail of a short last miniblock stays zero
  for (size_t j = 0; j < num_deltas_; ++j) relative[j] = deltas_[j] - base;

  AppendVarint(&blocks_, ZigZagEncode(static_cast<int64_t>(min_delta)));
  const size_t used = (num_deltas_ + kMiniBlockSize - 1) / kMiniBlockSize;
  int widths[kMiniBlocks] = {};  // unused miniblocks get width 0 and no bytes
  for (size_t m = 0; m < used; ++m) {
    U bits = 0;
    for (size_t j = 0; j < kMiniBlockSize; ++j) bits |= relative[m * kMiniBlockSize + j];
    widths[m] = std::bit_width(bits);
  }
  for (int w : widths) blocks_.push_back(static_cast<char>(w));
  for (size_t m = 0; m < used; ++m) {
    PackBits(relative + m * kMiniBlockSize, kMiniBlockSize, widths[m], &blocks_);
  }
  num_deltas_ = 0;
}

template <typename T>
std::string DeltaBinaryPackedEncoder<T>::Finish() {
  if (num_deltas_ > 0) FlushBlock();
  std::string out;
  out.reserve(blocks_.size() + 24);
  AppendVarint(&out, kBlockSize);
  AppendVarint(&out, kMiniBlocks);
  AppendVarint(&out, total_);
  AppendVarint(&out, ZigZagEncode(static_cast<int64_t>(static_cast<T>(first_))));
  out += blocks_;
  blocks_.clear();
  total_ = 0;
  first_ = last_ = 0;
  return out;
}

// ---- Decoder ----

template <typename T>
DeltaBinaryPackedDecoder<T>::DeltaBinaryPackedDecoder(std::string_view data) : reader_(data) {}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Init() {
  if (initialized_) return Status::InvalidArgument("DELTA_BINARY_PACKED: Init called twice");
  auto read = [this](const char* what) -> Result<uint64_t> {
    Result<uint64_t> v = reader_.ReadVarint();
    if (!v.ok()) return v.status().WithContext(std::string("DELTA_BINARY_PACKED ") + what);
    return v;
  };
  size_t at = reader_.position();
  CDCLAKE_ASSIGN_OR_RETURN(block_size_, read("block size"));
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > kMaxBlockSize) {
    return Status::Corrupt("DELTA_BINARY_PACKED block size " + std::to_string(block_size_) +
                           At(at) + " is not a multiple of 128 in 128..2^31");
  }
  at = reader_.position();
  CDCLAKE_ASSIGN_OR_RETURN(miniblocks_, read("miniblock count"));
  if (miniblocks_ == 0 || block_size_ % miniblocks_ != 0 || (block_size_ / miniblocks_) % 32 != 0) {
    return Status::Corrupt("DELTA_BINARY_PACKED miniblock count " + std::to_string(miniblocks_) +
                           At(at) + " does not split block size " + std::to_string(block_size_) +
                           " into multiples of 32");
  }
  miniblock_size_ = block_size_ / miniblocks_;
  at = reader_.position();
  CDCLAKE_ASSIGN_OR_RETURN(total_, read("value count"));
  at = reader_.position();
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t first, read("first value"));
  const int64_t first_value = ZigZagDecode(first);
  // Some writers (DuckDB with unsigned 32-bit columns) zero-extend the first value of an INT32
  // stream to 64 bits; like the deltas, it is read modulo 2^32. Anything wider is corrupt.
  if (!FitsIn<T>(first_value) &&
      !(sizeof(T) == 4 && first_value >= 0 && first_value <= 0xFFFFFFFFLL)) {
    return Status::Corrupt("DELTA_BINARY_PACKED first value " + std::to_string(first_value) +
                           At(at) + " is out of range for INT32");
  }
  // Every block takes at least a min delta byte and its width bytes: a count needing more blocks
  // than the data could hold is corrupt (this also keeps later arithmetic far from overflow).
  const uint64_t deltas = total_ > 0 ? total_ - 1 : 0;
  const uint64_t blocks = deltas / block_size_ + (deltas % block_size_ != 0 ? 1 : 0);
  if (blocks > reader_.remaining() / (1 + miniblocks_)) {
    return Status::Corrupt("DELTA_BINARY_PACKED header declares " + std::to_string(total_) +
                           " values but only " + std::to_string(reader_.remaining()) +
                           " bytes follow" + At(reader_.position()));
  }
  remaining_ = total_;
  deltas_unread_ = deltas;
  first_pending_ = total_ > 0;
  last_ = static_cast<U>(static_cast<T>(first_value));
  miniblock_index_ = miniblocks_;  // the first miniblock needed starts a block
  initialized_ = true;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::ReadBlockHeader() {
  block_offset_ = reader_.position();
  Result<uint64_t> raw = reader_.ReadVarint();
  if (!raw.ok()) return raw.status().WithContext("DELTA_BINARY_PACKED block min delta");
  // Taken modulo 2^bits: some older INT32 writers computed deltas in 64 bits (see the header).
  min_delta_ = static_cast<U>(ZigZagDecode(*raw));
  Result<std::string_view> widths = reader_.ReadBytes(static_cast<size_t>(miniblocks_));
  if (!widths.ok()) return widths.status().WithContext("DELTA_BINARY_PACKED miniblock bit widths");
  widths_ = *widths;
  miniblock_index_ = 0;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::NextMiniBlock() {
  if (miniblock_index_ == miniblocks_) CDCLAKE_RETURN_IF_ERROR(ReadBlockHeader());
  const int width = static_cast<uint8_t>(widths_[static_cast<size_t>(miniblock_index_)]);
  if (width > 64) {
    return Status::Corrupt("DELTA_BINARY_PACKED miniblock " + std::to_string(miniblock_index_) +
                           " of the block" + At(block_offset_) + " has bit width " +
                           std::to_string(width) + ", more than 64");
  }
  // A miniblock with values is always stored whole, padding included.
  const size_t bytes = static_cast<size_t>(miniblock_size_ / 8) * static_cast<size_t>(width);
  Result<std::string_view> data = reader_.ReadBytes(bytes);
  if (!data.ok()) return data.status().WithContext("DELTA_BINARY_PACKED miniblock");
  mb_data_ = reinterpret_cast<const uint8_t*>(data->data());
  mb_size_ = bytes;
  mb_width_ = width;
  mb_left_ = std::min(miniblock_size_, deltas_unread_);
  deltas_unread_ -= mb_left_;
  ++miniblock_index_;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Shortfall(size_t wanted) const {
  return Status::Corrupt("DELTA_BINARY_PACKED: " + std::to_string(wanted) + " values wanted, " +
                         std::to_string(remaining_) + " of " + std::to_string(total_) + " remain");
}

template <typename T>
void DeltaBinaryPackedDecoder<T>::UnpackDeltas(size_t n, U* out) {
  if constexpr (sizeof(U) < 8) {
    if (mb_width_ > static_cast<int>(8 * sizeof(U))) {
      // Deltas wider than the type (older INT32 writers): unpack 64-bit, keep the low bits.
      const auto width = static_cast<size_t>(mb_width_);
      uint64_t wide[64];
      for (size_t done = 0; done < n; done += 64) {
        const size_t k = std::min<size_t>(64, n - done);
        const size_t skip = done / 8 * width;
        UnpackBits<uint64_t>(mb_data_ + skip, mb_size_ - skip, mb_width_, k, wide);
        for (size_t j = 0; j < k; ++j) out[done + j] = static_cast<U>(wide[j]);
      }
      return;
    }
  }
  UnpackBits<U>(mb_data_, mb_size_, mb_width_, n, out);
}

template <typename T>
void DeltaBinaryPackedDecoder<T>::Accumulate(U* values, size_t n) {
  U last = last_;
  const U min_delta = min_delta_;
  for (size_t i = 0; i < n; ++i) {
    last += static_cast<U>(min_delta + values[i]);
    values[i] = last;
  }
  last_ = last;
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Decode(T* out, size_t n) {
  if (!initialized_) return Status::InvalidArgument("DELTA_BINARY_PACKED: Decode before Init");
  if (n > remaining_) return Shortfall(n);
  // T and its unsigned twin may alias; the sums wrap in U and read back as two's complement.
  U* dst = reinterpret_cast<U*>(out);
  size_t i = 0;
  if (n > 0 && first_pending_) {
    dst[i++] = last_;
    first_pending_ = false;
  }
  while (i < n) {
    if (group_pos_ < group_end_) {
      size_t k = std::min(group_end_ - group_pos_, n - i);
      std::copy_n(group_ + group_pos_, k, dst + i);
      Accumulate(dst + i, k);
      group_pos_ += k;
      i += k;
    } else if (mb_left_ > 0) {
      const size_t width = static_cast<size_t>(mb_width_);
      size_t whole = static_cast<size_t>(std::min<uint64_t>(mb_left_, n - i)) / 8 * 8;
      if (whole > 0) {
        UnpackDeltas(whole, dst + i);
        Accumulate(dst + i, whole);
        mb_data_ += whole / 8 * width;
        mb_size_ -= whole / 8 * width;
        mb_left_ -= whole;
        i += whole;
      } else {
        // Fewer than 8 wanted: unpack one group and keep the rest for the next batch.
        UnpackDeltas(8, group_);
        group_pos_ = 0;
        group_end_ = static_cast<size_t>(std::min<uint64_t>(8, mb_left_));
        mb_data_ += width;
        mb_size_ -= width;
        mb_left_ -= group_end_;
      }
    } else {
      CDCLAKE_RETURN_IF_ERROR(NextMiniBlock());
    }
  }
  remaining_ -= n;
  return Status::OK();
}

// Width-0 miniblocks are skipped without unpacking (every delta is the min delta), so skipping
// costs time in proportion to the bytes read, however many values a header claims.
template <typename T>
Status DeltaBinaryPackedDecoder<T>::Skip(size_t n) {
  if (!initialized_) return Status::InvalidArgument("DELTA_BINARY_PACKED: Skip before Init");
  if (n > remaining_) return Shortfall(n);
  T scratch[256];
  while (n > 0) {
    size_t k = std::min<size_t>(n, 256);
    if (first_pending_) {
      k = 1;
    } else if (group_pos_ < group_end_) {
      k = std::min(k, group_end_ - group_pos_);  // empty the group, then look again
    } else {
      if (mb_left_ == 0) {
        CDCLAKE_RETURN_IF_ERROR(NextMiniBlock());
        continue;
      }
      if (mb_width_ == 0) {
        const uint64_t skip = std::min<uint64_t>(mb_left_, n);
        last_ += static_cast<U>(min_delta_ * static_cast<U>(skip));
        mb_left_ -= skip;
        remaining_ -= skip;
        n -= static_cast<size_t>(skip);
        continue;
      }
      k = static_cast<size_t>(std::min<uint64_t>(k, mb_left_));  // stay inside this miniblock
    }
    CDCLAKE_RETURN_IF_ERROR(Decode(scratch, k));
    n -= k;
  }
  return Status::OK();
}

template class DeltaBinaryPackedEncoder<int32_t>;
template class DeltaBinaryPackedEncoder<int64_t>;
template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

}  // namespace cdclake::parquet
