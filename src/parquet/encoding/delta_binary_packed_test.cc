// Tests for DELTA_BINARY_PACKED: the spec's examples at a legal block size, round trips for both
// types and many value shapes, every miniblock width, the lazy handling of absent and unused
// miniblocks, and damaged input.
#include "parquet/encoding/delta_binary_packed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "parquet/encoding/bit_packing.h"
#include "parquet/encoding/encoding_test_util.h"

namespace cdclake::parquet {
namespace {

using testing::ExactBytes;
using testing::FromHex;
using testing::TestCounts;

template <typename T>
std::string Encode(const std::vector<T>& values) {
  DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values.data(), values.size());
  return encoder.Finish();
}

// Decodes everything in batches of `batch`; checks values and that the stream ends where the
// encoding does even with bytes after it.
template <typename T>
void ExpectRoundTrip(const std::vector<T>& values, size_t batch) {
  std::string encoded = Encode(values);
  std::string with_tail = encoded + "TAIL";
  ExactBytes exact(with_tail);
  DeltaBinaryPackedDecoder<T> decoder(exact.view());
  ASSERT_TRUE(decoder.Init().ok());
  ASSERT_EQ(decoder.total_values(), values.size());
  std::vector<T> out(values.size());
  size_t done = 0;
  while (done < values.size()) {
    size_t k = std::min(batch, values.size() - done);
    Status s = decoder.Decode(out.data() + done, k);
    ASSERT_TRUE(s.ok()) << s.ToString();
    done += k;
  }
  ASSERT_EQ(out, values);
  EXPECT_EQ(decoder.values_remaining(), 0u);
  EXPECT_EQ(decoder.bytes_consumed(), encoded.size());
  T extra;
  EXPECT_EQ(decoder.Decode(&extra, 1).code(), StatusCode::kCorrupt);
}

// Encodings.md example 1 (1..5) with block size 128 and 4 miniblocks instead of 8 and 1:
// header 128, 4, 5, zigzag(1); block: zigzag(1), widths 0 0 0 0, no miniblock bytes.
TEST(DeltaBinaryPackedTest, SpecExample1) {
  const std::string expected = FromHex("80 01 04 05 02  02 00 00 00 00");
  EXPECT_EQ(Encode<int32_t>({1, 2, 3, 4, 5}), expected);
  ExpectRoundTrip<int32_t>({1, 2, 3, 4, 5}, 5);
  ExpectRoundTrip<int64_t>({1, 2, 3, 4, 5}, 2);
}

// Example 2 (7,5,3,1,2,3,4,5): min delta -2, relative deltas 0,0,0,3,3,3,3 at width 2, padded
// to a 32-value miniblock: 00 00 00 11 | 11 11 11 00 (LSB first) = c0 3f, then six zero bytes.
TEST(DeltaBinaryPackedTest, SpecExample2) {
  const std::string expected = FromHex("80 01 04 08 0e  03 02 00 00 00  c0 3f 00 00 00 00 00 00");
  EXPECT_EQ(Encode<int32_t>({7, 5, 3, 1, 2, 3, 4, 5}), expected);
  EXPECT_EQ(Encode<int64_t>({7, 5, 3, 1, 2, 3, 4, 5}), expected);
  ExpectRoundTrip<int32_t>({7, 5, 3, 1, 2, 3, 4, 5}, 3);
}

// The examples as printed use block size 8, which the spec itself calls invalid.
TEST(DeltaBinaryPackedTest, SpecBlockSizeEightIsRejected) {
  ExactBytes bytes(FromHex("08 01 05 02  02 00"));
  DeltaBinaryPackedDecoder<int32_t> decoder(bytes.view());
  Status s = decoder.Init();
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("block size 8 at offset 0"), std::string::npos) << s.ToString();
}

TEST(DeltaBinaryPackedTest, EmptyAndSingle) {
  EXPECT_EQ(Encode<int64_t>({}), FromHex("80 01 04 00 00"));
  EXPECT_EQ(Encode<int64_t>({-1}), FromHex("80 01 04 01 01"));
  ExpectRoundTrip<int64_t>({}, 1);
  ExpectRoundTrip<int64_t>({-1}, 1);
}

template <typename T>
std::vector<std::vector<T>> Shapes(size_t n, std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  std::vector<std::vector<T>> shapes(7, std::vector<T>(n));
  T acc = 0;
  for (size_t i = 0; i < n; ++i) {
    shapes[0][i] = static_cast<T>(rng());                   // full range
    shapes[1][i] = static_cast<T>(rng() % 1000) - 500;      // small
    acc = static_cast<T>(acc + static_cast<T>(rng() % 5));  // sorted, small steps
    shapes[2][i] = acc;
    shapes[3][i] = 42;                           // constant
    shapes[4][i] = i % 2 ? L::min() : L::max();  // extreme deltas
    shapes[5][i] = static_cast<T>(i % 3 == 0 ? L::min() : i % 3 == 1 ? 0 : L::max());
    shapes[6][i] = static_cast<T>(L::max() - static_cast<T>(i));  // descending at the top
  }
  return shapes;
}

template <typename T>
void RoundTripShapes() {
  std::mt19937_64 rng(sizeof(T));
  for (size_t n : TestCounts()) {
    for (const std::vector<T>& values : Shapes<T>(n, rng)) {
      SCOPED_TRACE("n " + std::to_string(n));
      ExpectRoundTrip(values, std::max<size_t>(n, 1));
      if (n <= 1000) {
        for (size_t batch : {1, 7, 8, 9, 33, 129}) ExpectRoundTrip(values, batch);
      }
    }
  }
}

TEST(DeltaBinaryPackedTest, RoundTripInt32) {
  RoundTripShapes<int32_t>();
}
TEST(DeltaBinaryPackedTest, RoundTripInt64) {
  RoundTripShapes<int64_t>();
}

// Deltas drawn to need exactly `width` bits after the min delta, for every width.
template <typename T>
void EveryMiniblockWidth() {
  using U = std::make_unsigned_t<T>;
  std::mt19937_64 rng(5);
  for (int width = 0; width <= static_cast<int>(8 * sizeof(T)); ++width) {
    const U mask = width == 0 ? 0 : static_cast<U>(~U{0} >> (8 * sizeof(T) - width));
    std::vector<T> values(300);
    U v = static_cast<U>(rng());
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<T>(v);
      U delta = static_cast<U>(rng()) & mask;
      if (i % 32 == 0) delta = 0;
      if (i % 32 == 1) delta = mask;
      v += delta;
    }
    SCOPED_TRACE("width " + std::to_string(width));
    ExpectRoundTrip(values, 300);
    ExpectRoundTrip(values, 5);
  }
}

TEST(DeltaBinaryPackedTest, EveryMiniblockWidthInt32) {
  EveryMiniblockWidth<int32_t>();
}
TEST(DeltaBinaryPackedTest, EveryMiniblockWidthInt64) {
  EveryMiniblockWidth<int64_t>();
}

// A hand-built stream: block size 128, 4 miniblocks, 3 values; the one used miniblock has width
// 1; the widths of the three unused ones are garbage and their bodies are absent.
std::string ThreeValueStream(uint8_t unused_width) {
  std::string s = FromHex("80 01 04 03 14");  // 3 values, first 10
  s += FromHex("01");                         // min delta -1
  s.push_back(1);
  s.append(3, static_cast<char>(unused_width));
  s += FromHex("02 00 00 00");  // relative deltas 0, 1 -> deltas -1, 0
  return s;
}

TEST(DeltaBinaryPackedTest, UnusedMiniblockWidthsAreIgnored) {
  for (int w : {0, 33, 65, 255}) {
    ExactBytes bytes(ThreeValueStream(static_cast<uint8_t>(w)));
    DeltaBinaryPackedDecoder<int32_t> decoder(bytes.view());
    ASSERT_TRUE(decoder.Init().ok());
    int32_t out[3];
    ASSERT_TRUE(decoder.Decode(out, 3).ok());
    EXPECT_EQ(out[0], 10);
    EXPECT_EQ(out[1], 9);
    EXPECT_EQ(out[2], 9);
    EXPECT_EQ(decoder.bytes_consumed(), bytes.view().size());
  }
}

// When the deltas end exactly at a block's end, no further block header is read.
TEST(DeltaBinaryPackedTest, EndsAtBlockBoundary) {
  std::vector<int64_t> values(129);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * i);
  ExpectRoundTrip(values, 129);
  ExpectRoundTrip(values, 1);
}

Status DecodeAll32(std::string_view raw) {
  ExactBytes bytes(raw);
  DeltaBinaryPackedDecoder<int32_t> decoder(bytes.view());
  CDCLAKE_RETURN_IF_ERROR(decoder.Init());
  std::vector<int32_t> out(std::min<size_t>(decoder.total_values(), 1 << 20));
  return decoder.Decode(out.data(), out.size());
}

void ExpectCorrupt(const std::string& raw, std::string_view message_part) {
  Status s = DecodeAll32(raw);
  ASSERT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_NE(s.message().find(message_part), std::string::npos) << s.ToString();
}

TEST(DeltaBinaryPackedTest, CorruptHeaders) {
  ExpectCorrupt(FromHex("00 04 03 00"), "block size 0 at offset 0");
  ExpectCorrupt(FromHex("81 01 04 03 00"), "block size 129");
  ExpectCorrupt(FromHex("80 80 80 80 10 01 01 00"), "is not a multiple of 128 in 128..2^31");
  ExpectCorrupt(FromHex("80 01 00 03 00"), "miniblock count 0 at offset 2");
  ExpectCorrupt(FromHex("80 01 03 03 00"), "miniblock count 3");
  ExpectCorrupt(FromHex("80 01 08 03 00"), "miniblock count 8");  // 16 values per miniblock
  ExpectCorrupt(FromHex("80 01 04 03"), "first value");
  ExpectCorrupt(FromHex("80 01"), "miniblock count");
  // 2^33 does not fit 32 bits even as an unsigned value.
  ExpectCorrupt(FromHex("80 01 04 03 80 80 80 80 40"), "first value 8589934592 at offset 4");
  ExpectCorrupt(FromHex("80 01 04 ff ff ff ff ff 01 00 00 00 00 00 00"),
                "declares 68719476735 values but only 5 bytes follow at offset 10");
}

TEST(DeltaBinaryPackedTest, Int32FirstValueZeroExtendedReadsModulo32Bits) {
  // DuckDB writes an unsigned 32-bit column's first value 4294967295 zero-extended to 64 bits.
  std::string s = FromHex("80 01 04 01");  // block 128, 4 miniblocks, 1 value
  AppendVarint(&s, ZigZagEncode(4294967295LL));
  ExactBytes bytes(s);
  DeltaBinaryPackedDecoder<int32_t> decoder(bytes.view());
  ASSERT_TRUE(decoder.Init().ok());
  int32_t v = 0;
  ASSERT_TRUE(decoder.Decode(&v, 1).ok());
  EXPECT_EQ(static_cast<uint32_t>(v), 4294967295u);
}

TEST(DeltaBinaryPackedTest, CorruptBlocks) {
  // Used miniblock wider than 64 bits.
  std::string wide = ThreeValueStream(0);
  wide[6] = 65;
  ExpectCorrupt(wide, "miniblock 0 of the block at offset 5 has bit width 65, more than 64");
  // Miniblock body cut short: width 1 needs 4 bytes.
  ExpectCorrupt(ThreeValueStream(0).substr(0, 12), "DELTA_BINARY_PACKED miniblock");
  // Widths cut short (after a five-byte min delta), and a block too short for its header.
  ExpectCorrupt(FromHex("80 01 04 03 00 80 80 80 80 01"), "miniblock bit widths");
  ExpectCorrupt(FromHex("80 01 04 03 00 00 00"), "declares 3 values but only 2 bytes follow");
  // Asking for more than the header declares.
  ExactBytes bytes(ThreeValueStream(0));
  DeltaBinaryPackedDecoder<int64_t> decoder(bytes.view());
  ASSERT_TRUE(decoder.Init().ok());
  int64_t out[4];
  Status s = decoder.Decode(out, 4);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("4 values wanted, 3 of 3 remain"), std::string::npos);
}

// INT32_MIN, INT32_MAX, INT32_MIN, 0 as a writer computing deltas in 64 bits wrote them: deltas
// 2^32 - 1, -(2^32 - 1), 2^31; min delta -(2^32 - 1); relative deltas need 34 bits.
TEST(DeltaBinaryPackedTest, LegacyWideInt32Deltas) {
  const int64_t lo = INT32_MIN, hi = INT32_MAX;
  std::string s = FromHex("80 01 04 04");
  AppendVarint(&s, ZigZagEncode(lo));
  const int64_t min_delta = -(hi - lo);
  AppendVarint(&s, ZigZagEncode(min_delta));
  s += FromHex("22 ff ff ff");  // width 34, then garbage widths for unused miniblocks
  std::vector<uint64_t> relative(32, 0);
  relative[0] = static_cast<uint64_t>((hi - lo) - min_delta);
  relative[1] = 0;
  relative[2] = static_cast<uint64_t>(-lo - min_delta);
  PackBits(relative.data(), relative.size(), 34, &s);
  for (size_t batch : {1, 4}) {
    ExactBytes bytes(s);
    DeltaBinaryPackedDecoder<int32_t> decoder(bytes.view());
    ASSERT_TRUE(decoder.Init().ok());
    std::vector<int32_t> out(4);
    for (size_t i = 0; i < 4; i += batch) ASSERT_TRUE(decoder.Decode(out.data() + i, batch).ok());
    EXPECT_EQ(out, (std::vector<int32_t>{INT32_MIN, INT32_MAX, INT32_MIN, 0}));
    EXPECT_EQ(decoder.bytes_consumed(), s.size());
  }
}

TEST(DeltaBinaryPackedTest, Int64WidthAbove64IsCorrupt) {
  std::string s = ThreeValueStream(0);
  s[6] = 65;
  ExactBytes bytes(s);
  DeltaBinaryPackedDecoder<int64_t> decoder(bytes.view());
  ASSERT_TRUE(decoder.Init().ok());
  int64_t out[3];
  Status st = decoder.Decode(out, 3);
  EXPECT_EQ(st.code(), StatusCode::kCorrupt);
  EXPECT_NE(st.message().find("bit width 65, more than 64"), std::string::npos);
}

TEST(DeltaBinaryPackedTest, DecodeBeforeInit) {
  DeltaBinaryPackedDecoder<int32_t> decoder("");
  int32_t v;
  EXPECT_EQ(decoder.Decode(&v, 1).code(), StatusCode::kInvalidArgument);
}

// Every strict prefix of a stream misses bytes its values need.
TEST(DeltaBinaryPackedTest, EveryTruncationFails) {
  std::mt19937_64 rng(12);
  for (size_t n : {1, 2, 33, 200, 600}) {
    std::vector<int64_t> values(n);
    for (auto& v : values) v = static_cast<int64_t>(rng() >> (rng() % 64));
    std::string encoded = Encode(values);
    for (size_t len = 0; len < encoded.size(); ++len) {
      ExactBytes bytes(std::string_view(encoded).substr(0, len));
      DeltaBinaryPackedDecoder<int64_t> decoder(bytes.view());
      Status s = decoder.Init();
      if (s.ok()) {
        std::vector<int64_t> out(n);
        s = decoder.Decode(out.data(), n);
      }
      ASSERT_EQ(s.code(), StatusCode::kCorrupt) << "n " << n << " len " << len;
    }
  }
}

TEST(DeltaBinaryPackedTest, RandomBitFlips) {
  std::mt19937_64 rng(13);
  std::vector<int32_t> values(1000);
  for (auto& v : values) v = static_cast<int32_t>(rng() % 100000);
  std::string encoded = Encode(values);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = encoded;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] ^= 1 << (rng() % 8);
    Status s = DecodeAll32(damaged);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kCorrupt);
    }
  }
}

TEST(DeltaBinaryPackedTest, SkipThenDecode) {
  std::mt19937_64 rng(14);
  std::vector<int64_t> values(1000);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 1000);
  for (size_t i = 300; i < 700; ++i) values[i] = values[i - 1] + 3;  // width-0 miniblocks
  std::string encoded = Encode(values);
  for (size_t skip : {0, 1, 5, 8, 31, 32, 129, 300, 333, 640, 999, 1000}) {
    DeltaBinaryPackedDecoder<int64_t> decoder(encoded);
    ASSERT_TRUE(decoder.Init().ok());
    ASSERT_TRUE(decoder.Skip(skip).ok());
    std::vector<int64_t> rest(values.size() - skip);
    ASSERT_TRUE(decoder.Decode(rest.data(), rest.size()).ok());
    ASSERT_EQ(rest, std::vector<int64_t>(values.begin() + skip, values.end())) << skip;
    EXPECT_EQ(decoder.bytes_consumed(), encoded.size());
    EXPECT_EQ(decoder.Skip(1).code(), StatusCode::kCorrupt);
  }
}

// A header may claim 2^40 values in 2^31-value blocks of width 0: two bytes each. Skipping them
// must cost time by bytes, not by values.
TEST(DeltaBinaryPackedTest, SkippingHugeWidthZeroBlocksIsFast) {
  std::string s = FromHex("80 80 80 80 08 01");  // block size 2^31, 1 miniblock
  AppendVarint(&s, (uint64_t{1} << 40) + 1);
  s += FromHex("06");                                   // first value 3
  for (int b = 0; b < 512; ++b) s += FromHex("02 00");  // min delta 1, width 0
  ExactBytes bytes(s);
  DeltaBinaryPackedDecoder<int64_t> decoder(bytes.view());
  ASSERT_TRUE(decoder.Init().ok());
  ASSERT_EQ(decoder.total_values(), (size_t{1} << 40) + 1);
  int64_t first[3];
  ASSERT_TRUE(decoder.Decode(first, 3).ok());
  EXPECT_EQ(first[2], 5);
  ASSERT_TRUE(decoder.Skip(decoder.values_remaining() - 1).ok());
  int64_t last;
  ASSERT_TRUE(decoder.Decode(&last, 1).ok());
  EXPECT_EQ(last, 3 + (int64_t{1} << 40));
  EXPECT_EQ(decoder.bytes_consumed(), s.size());
}

TEST(DeltaBinaryPackedTest, EncoderResetsAfterFinish) {
  DeltaBinaryPackedEncoder<int32_t> encoder;
  for (int i = 0; i < 300; ++i) encoder.Put(i);
  std::string first = encoder.Finish();
  for (int i = 0; i < 300; ++i) encoder.Put(i);
  EXPECT_EQ(encoder.Finish(), first);
}

}  // namespace
}  // namespace cdclake::parquet
