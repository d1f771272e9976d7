// Tests for bit packing: every width against a bit-at-a-time reference, the spec's example, and
// inputs that end inside a group.
#include "parquet/encoding/bit_packing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "parquet/encoding/encoding_test_util.h"

namespace cdclake::parquet {
namespace {

using testing::ExactBytes;
using testing::FromHex;

// One bit at a time, LSB first: the definition the fast paths must match.
template <typename U>
std::string ReferencePack(const std::vector<U>& values, int width) {
  std::string out((values.size() * width + 7) / 8, '\0');
  size_t bit = 0;
  for (U v : values) {
    for (int b = 0; b < width; ++b, ++bit) {
      if ((static_cast<uint64_t>(v) >> b) & 1) out[bit / 8] |= static_cast<char>(1 << (bit % 8));
    }
  }
  return out;
}

template <typename U>
std::vector<U> RandomValues(size_t n, int width, std::mt19937_64& rng) {
  std::vector<U> values(n);
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  for (U& v : values) v = static_cast<U>(rng() & mask);
  return values;
}

template <typename U>
void CheckAllWidths() {
  std::mt19937_64 rng(42);
  const int max_width = 8 * sizeof(U);
  for (int width = 0; width <= max_width; ++width) {
    for (size_t n : {0, 1, 5, 8, 9, 16, 31, 32, 33, 64, 100, 1000}) {
      std::vector<U> values = RandomValues<U>(n, width, rng);
      std::string packed = ReferencePack(values, width);
      if constexpr (sizeof(U) >= 4) {
        std::string ours;
        PackBits(values.data(), n, width, &ours);
        ASSERT_EQ(ours, packed) << "width " << width << " n " << n;
      }
      ExactBytes exact(packed);
      std::vector<U> out(n + 1, U{0x5a});
      UnpackBits<U>(reinterpret_cast<const uint8_t*>(exact.view().data()), packed.size(), width, n,
                    out.data());
      ASSERT_EQ(std::vector<U>(out.begin(), out.begin() + n), values)
          << "width " << width << " n " << n;
      ASSERT_EQ(out[n], U{0x5a}) << "wrote past n";
    }
  }
}

TEST(BitPackingTest, UnpackMatchesReference16) {
  CheckAllWidths<uint16_t>();
}
TEST(BitPackingTest, UnpackMatchesReference32) {
  CheckAllWidths<uint32_t>();
}
TEST(BitPackingTest, UnpackMatchesReference64) {
  CheckAllWidths<uint64_t>();
}

// Encodings.md, RLE section: 0..7 at width 3 pack to 10001000 11000110 11111010.
TEST(BitPackingTest, SpecExampleWidth3) {
  std::vector<uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string packed;
  PackBits(values.data(), values.size(), 3, &packed);
  EXPECT_EQ(packed, FromHex("88 c6 fa"));
  uint32_t out[8];
  UnpackBits<uint32_t>(reinterpret_cast<const uint8_t*>(packed.data()), packed.size(), 3, 8, out);
  EXPECT_EQ(std::vector<uint32_t>(out, out + 8), values);
}

// Missing bytes read as zero bits and are never touched.
TEST(BitPackingTest, ShortInputReadsZeros) {
  ExactBytes one_byte(FromHex("ff"));
  uint32_t out[8];
  UnpackBits<uint32_t>(reinterpret_cast<const uint8_t*>(one_byte.view().data()), 1, 5, 8, out);
  EXPECT_EQ(out[0], 31u);
  EXPECT_EQ(out[1], 7u);  // three bits present, two missing
  for (int i = 2; i < 8; ++i) EXPECT_EQ(out[i], 0u);
  UnpackBits<uint32_t>(nullptr, 0, 17, 8, out);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], 0u);
}

TEST(BitPackingTest, FullWidthExtremes) {
  std::vector<uint64_t> values = {0, ~uint64_t{0}, uint64_t{1} << 63, 1, ~uint64_t{0} >> 1, 0, 0,
                                  7};
  std::string packed;
  PackBits(values.data(), values.size(), 64, &packed);
  ASSERT_EQ(packed.size(), 64u);
  std::vector<uint64_t> out(8);
  ExactBytes exact(packed);
  UnpackBits<uint64_t>(reinterpret_cast<const uint8_t*>(exact.view().data()), 64, 64, 8,
                       out.data());
  EXPECT_EQ(out, values);
}

}  // namespace
}  // namespace cdclake::parquet
