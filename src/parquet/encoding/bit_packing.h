// Bit packing as Parquet lays it out in the RLE/bit-packed hybrid and in DELTA_BINARY_PACKED
// miniblocks: fixed-width values packed LSB first, unpacked in groups of 8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cdclake::parquet {

/// Unpacks `n` values of `bit_width` bits, packed LSB first, from the `size` bytes at `in`.
/// Never reads at or past `in + size`: bits that would lie there read as zero. Every width has
/// its own unrolled path; one indirect call per batch, none per value.
/// REQUIRES: 0 <= bit_width <= 8 * sizeof(U); U is uint16_t, uint32_t or uint64_t.
template <typename U>
void UnpackBits(const uint8_t* in, size_t size, int bit_width, size_t n, U* out);

/// Appends `n` values packed LSB first at `bit_width` bits each: ceil(n * bit_width / 8) bytes,
/// the last byte padded with zero bits. Bits of a value above `bit_width` are dropped.
/// REQUIRES: 0 <= bit_width <= 8 * sizeof(U); U is uint32_t or uint64_t.
template <typename U>
void PackBits(const U* values, size_t n, int bit_width, std::string* out);

}  // namespace cdclake::parquet
