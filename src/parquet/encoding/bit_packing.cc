// Bit packing: per-width unrolled unpacking of groups of 8 values, and a word-at-a-time packer.
#include "parquet/encoding/bit_packing.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <utility>

#include "base/bytes.h"

namespace cdclake::parquet {
namespace {

// Value I of a group of 8 at width W. Reads the 8 bytes from the value's first byte, plus one
// more when a value straddles them (W > 57), so a group reads at most W + 8 bytes from `in`.
template <typename U, int W, int I>
inline U ExtractValue(const uint8_t* in) {
  constexpr int kBit = I * W;
  constexpr int kByte = kBit / 8;
  constexpr int kShift = kBit % 8;
  uint64_t v = LoadLE<uint64_t>(in + kByte) >> kShift;
  if constexpr (kShift + W > 64) v |= static_cast<uint64_t>(in[kByte + 8]) << (64 - kShift);
  if constexpr (W < 64) v &= (uint64_t{1} << W) - 1;
  return static_cast<U>(v);
}

template <typename U, int W, size_t... I>
inline void UnpackGroup(const uint8_t* in, U* out, std::index_sequence<I...>) {
  ((out[I] = ExtractValue<U, W, static_cast<int>(I)>(in)), ...);
}

// REQUIRES: `in` has W + 8 readable bytes.
template <typename U, int W>
inline void UnpackGroup(const uint8_t* in, U* out) {
  UnpackGroup<U, W>(in, out, std::make_index_sequence<8>{});
}

template <typename U, int W>
void UnpackWidth(const uint8_t* in, size_t size, size_t n, U* out) {
  if constexpr (W == 0) {
    std::fill_n(out, n, U{0});
  } else {
    constexpr size_t kWidth = W;
    // Groups whose W + 8 byte window lies inside the input go straight from `in`.
    size_t groups = n / 8;
    size_t direct = size >= kWidth + 8 ? (size - 8) / kWidth : 0;
    direct = std::min(direct, groups);
    for (size_t g = 0; g < direct; ++g) UnpackGroup<U, W>(in + g * kWidth, out + g * 8);
    // The rest (near the end of the input, or a partial last group) goes through a zeroed copy.
    size_t i = direct * 8;
    size_t pos = direct * kWidth;
    while (i < n) {
      uint8_t buf[kWidth + 8] = {};
      size_t avail = pos < size ? std::min(size - pos, kWidth) : 0;
      if (avail > 0) std::memcpy(buf, in + pos, avail);
      U group[8];
      UnpackGroup<U, W>(buf, group);
      size_t k = std::min<size_t>(8, n - i);
      std::copy_n(group, k, out + i);
      i += k;
      pos += kWidth;
    }
  }
}

template <typename U>
using UnpackFn = void (*)(const uint8_t*, size_t, size_t, U*);

template <typename U, size_t... W>
constexpr std::array<UnpackFn<U>, sizeof...(W)> MakeUnpackTable(std::index_sequence<W...>) {
  return {&UnpackWidth<U, static_cast<int>(W)>...};
}

template <typename U>
constexpr auto kUnpackTable = MakeUnpackTable<U>(std::make_index_sequence<8 * sizeof(U) + 1>{});

}  // namespace

template <typename U>
void UnpackBits(const uint8_t* in, size_t size, int bit_width, size_t n, U* out) {
  assert(bit_width >= 0 && bit_width <= static_cast<int>(8 * sizeof(U)));
  kUnpackTable<U>[bit_width](in, size, n, out);
}

template <typename U>
void PackBits(const U* values, size_t n, int bit_width, std::string* out) {
  assert(bit_width >= 0 && bit_width <= static_cast<int>(8 * sizeof(U)));
  if (bit_width == 0 || n == 0) return;
  const size_t width = static_cast<size_t>(bit_width);
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const size_t start = out->size();
  const size_t bytes = (n * width + 7) / 8;
  out->resize(start + bytes + 8);  // room to store whole words past the last byte
  char* dst = out->data() + start;
  uint64_t acc = 0;
  size_t bits = 0;  // bits pending in acc, always < 64
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = static_cast<uint64_t>(values[i]) & mask;
    acc |= v << bits;
    bits += width;
    if (bits >= 64) {
      StoreLE(dst, acc);
      dst += 8;
      bits -= 64;
      size_t used = width - bits;  // bits of v already stored
      acc = used < 64 ? v >> used : 0;
    }
  }
  StoreLE(dst, acc);
  out->resize(start + bytes);
}

template void UnpackBits<uint16_t>(const uint8_t*, size_t, int, size_t, uint16_t*);
template void UnpackBits<uint32_t>(const uint8_t*, size_t, int, size_t, uint32_t*);
template void UnpackBits<uint64_t>(const uint8_t*, size_t, int, size_t, uint64_t*);
template void PackBits<uint32_t>(const uint32_t*, size_t, int, std::string*);
template void PackBits<uint64_t>(const uint64_t*, size_t, int, std::string*);

}  // namespace cdclake::parquet
