// RleBitPackedDecoder: walks run headers, fills RLE runs and unpacks bit-packed runs in bulk.
#include "parquet/encoding/rle_bit_packed_decoder.h"

#include <algorithm>
#include <string>

#include "parquet/encoding/bit_packing.h"

namespace cdclake::parquet {
namespace {

// Runs longer than this are invalid (Encodings.md: run lengths are at most 2^31 - 1).
constexpr uint64_t kMaxRunLength = (uint64_t{1} << 31) - 1;

}  // namespace

RleBitPackedDecoder::RleBitPackedDecoder(std::string_view data, int bit_width)
    : reader_(data), bit_width_(bit_width), value_bytes_((std::clamp(bit_width, 0, 32) + 7) / 8) {}

Result<size_t> RleBitPackedDecoder::GetBatch(uint32_t* out, size_t n) {
  return GetBatchImpl<uint32_t>(out, n);
}

Result<size_t> RleBitPackedDecoder::GetBatch(int16_t* out, size_t n) {
  if (bit_width_ > 15) {
    return Status::InvalidArgument("RLE level bit width " + std::to_string(bit_width_) +
                                   " exceeds 15");
  }
  // int16_t and uint16_t may alias each other; levels below 2^15 read the same either way.
  return GetBatchImpl<uint16_t>(reinterpret_cast<uint16_t*>(out), n);
}

template <typename U>
Result<size_t> RleBitPackedDecoder::GetBatchImpl(U* out, size_t n) {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corrupt("RLE bit width " + std::to_string(bit_width_) + " is outside 0..32");
  }
  const auto width = static_cast<size_t>(bit_width_);
  size_t done = 0;
  while (done < n) {
    if (rle_left_ > 0) {
      size_t k = static_cast<size_t>(std::min<uint64_t>(rle_left_, n - done));
      std::fill_n(out + done, k, static_cast<U>(rle_value_));
      rle_left_ -= k;
      done += k;
    } else if (group_pos_ < group_end_) {
      size_t k = std::min(group_end_ - group_pos_, n - done);
      for (size_t i = 0; i < k; ++i) out[done + i] = static_cast<U>(group_[group_pos_ + i]);
      group_pos_ += k;
      done += k;
    } else if (packed_left_ > 0) {
      size_t whole = std::min(packed_left_, n - done) / 8 * 8;
      if (whole > 0) {
        UnpackBits<U>(packed_, packed_size_, bit_width_, whole, out + done);
        size_t bytes = whole / 8 * width;
        packed_ += bytes;
        packed_size_ -= bytes;
        packed_left_ -= whole;
        done += whole;
      } else {
        // Fewer than 8 wanted: unpack one group and keep the rest for the next batch.
        UnpackBits<uint32_t>(packed_, packed_size_, bit_width_, 8, group_);
        group_pos_ = 0;
        group_end_ = std::min<size_t>(8, packed_left_);
        size_t bytes = std::min(width, packed_size_);
        packed_ += bytes;
        packed_size_ -= bytes;
        packed_left_ -= group_end_;
      }
    } else {
      CDCLAKE_ASSIGN_OR_RETURN(bool more, NextRun());
      if (!more) break;
    }
  }
  return done;
}

Result<bool> RleBitPackedDecoder::NextRun() {
  const auto width = static_cast<size_t>(bit_width_);
  // Each pass reads at least one header byte, so zero-length runs cannot loop forever.
  while (!reader_.AtEnd()) {
    const size_t at = reader_.position();
    Result<uint64_t> header = reader_.ReadVarint();
    if (!header.ok()) return header.status().WithContext("RLE/bit-packed run header");
    const uint64_t count = *header >> 1;
    if (*header & 1) {
      if (count > kMaxRunLength / 8) {
        return Status::Corrupt("bit-packed run of " + std::to_string(count) + " groups at offset " +
                               std::to_string(at) + " exceeds 2^31 - 1 values");
      }
      const size_t bytes = static_cast<size_t>(count) * width;
      const size_t avail = std::min(bytes, reader_.remaining());
      packed_ = reinterpret_cast<const uint8_t*>(reader_.data().data()) + reader_.position();
      packed_size_ = avail;
      // A run cut short by the end of the data keeps the whole values that are present.
      packed_left_ = width == 0 ? count * 8 : std::min<size_t>(count * 8, avail * 8 / width);
      CDCLAKE_RETURN_IF_ERROR(reader_.Skip(avail));
      if (packed_left_ > 0) return true;
    } else {
      if (count > kMaxRunLength) {
        return Status::Corrupt("RLE run of " + std::to_string(count) + " values at offset " +
                               std::to_string(at) + " exceeds 2^31 - 1");
      }
      Result<std::string_view> bytes = reader_.ReadBytes(value_bytes_);
      if (!bytes.ok()) return bytes.status().WithContext("RLE run value");
      uint32_t value = 0;
      for (size_t b = 0; b < value_bytes_; ++b) {
        value |= static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[b])) << (8 * b);
      }
      if (width < 32 && (value >> width) != 0) {
        return Status::Corrupt("RLE run value " + std::to_string(value) + " at offset " +
                               std::to_string(at) + " does not fit in bit width " +
                               std::to_string(width));
      }
      rle_value_ = value;
      rle_left_ = count;
      if (count > 0) return true;
    }
  }
  return false;
}

Result<std::string_view> ReadLengthPrefixedLevels(ByteReader& r) {
  const size_t at = r.position();
  Result<uint32_t> length = r.ReadLE<uint32_t>();
  if (!length.ok()) return length.status().WithContext("level block length");
  if (*length > r.remaining()) {
    return Status::Corrupt("level block at offset " + std::to_string(at) + " claims " +
                           std::to_string(*length) + " bytes, " + std::to_string(r.remaining()) +
                           " remain");
  }
  return r.ReadBytes(*length);
}

}  // namespace cdclake::parquet
