// Tests for RleBitPackedEncoder: the exact bytes it writes for runs and groups, written out by
// hand from Encodings.md's grammar.
#include "parquet/encoding/rle_bit_packed_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parquet/encoding/encoding_test_util.h"

namespace cdclake::parquet {
namespace {

using testing::FromHex;

std::string Encode(int width, const std::vector<uint32_t>& values) {
  RleBitPackedEncoder encoder(width);
  for (uint32_t v : values) encoder.Put(v);
  return encoder.Finish();
}

TEST(RleBitPackedEncoderTest, BitWidth) {
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(0), 0);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(1), 1);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(2), 2);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(3), 2);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(4), 3);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(1023), 10);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(1024), 11);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(0xFFFFFFFFu), 32);
  EXPECT_EQ(RleBitPackedEncoder::BitWidth(~uint64_t{0}), 64);
}

// The spec's packing example: one bit-packed group (header 1 << 1 | 1) then 0..7 at width 3.
TEST(RleBitPackedEncoderTest, SpecBitPackedExample) {
  EXPECT_EQ(Encode(3, {0, 1, 2, 3, 4, 5, 6, 7}), FromHex("03 88 c6 fa"));
}

// RLE run: header count << 1, then the value in ceil(width / 8) little-endian bytes.
TEST(RleBitPackedEncoderTest, RleRuns) {
  EXPECT_EQ(Encode(3, std::vector<uint32_t>(8, 5)), FromHex("10 05"));
  EXPECT_EQ(Encode(9, std::vector<uint32_t>(8, 300)), FromHex("10 2c 01"));
  EXPECT_EQ(Encode(32, std::vector<uint32_t>(8, 0xDEADBEEF)), FromHex("10 ef be ad de"));
  EXPECT_EQ(Encode(0, std::vector<uint32_t>(10, 0)), FromHex("14"));  // width 0: no value bytes
  EXPECT_EQ(Encode(1, std::vector<uint32_t>(200, 1)), FromHex("90 03 01"));  // 400 as a varint
}

TEST(RleBitPackedEncoderTest, ShortRepeatsStayPacked) {
  // 1, 2, then seven 3s: 9 values, two groups padded with zeros.
  // Group 1 (width 2): 1,2,3,3 -> 11111001, 3,3,3,3 -> 11111111; group 2: 3,0.. -> 00000011.
  EXPECT_EQ(Encode(2, {1, 2, 3, 3, 3, 3, 3, 3, 3}), FromHex("05 f9 ff 03 00"));
  // Eight 3s after 1, 2: topping up the group takes six, two are too few for a run.
  EXPECT_EQ(Encode(2, {1, 2, 3, 3, 3, 3, 3, 3, 3, 3}), FromHex("05 f9 ff 0f 00"));
  // Fourteen 3s after 1, 2: six top up the group, eight make a run.
  std::vector<uint32_t> values = {1, 2};
  values.insert(values.end(), 14, 3);
  EXPECT_EQ(Encode(2, values), FromHex("03 f9 ff 10 03"));
}

TEST(RleBitPackedEncoderTest, PutRepeatedMatchesPut) {
  RleBitPackedEncoder a(4), b(4);
  for (int i = 0; i < 5; ++i) a.Put(7);
  for (int i = 0; i < 20; ++i) a.Put(2);
  a.Put(9);
  b.PutRepeated(7, 2);
  b.PutRepeated(7, 3);
  b.PutRepeated(2, 0);
  b.PutRepeated(2, 20);
  b.PutRepeated(9, 1);
  EXPECT_EQ(a.Finish(), b.Finish());
}

TEST(RleBitPackedEncoderTest, LongLiteralRunsSplitAt63Groups) {
  std::vector<uint32_t> values;
  for (int i = 0; i < 1000; ++i) values.push_back(i % 2);
  std::string out = Encode(1, values);
  // 504 values: header 0x7f (63 groups) + 63 bytes; 496 values: header 62 << 1 | 1 + 62 bytes.
  ASSERT_EQ(out.size(), 1u + 63 + 1 + 62);
  EXPECT_EQ(static_cast<uint8_t>(out[0]), 0x7f);
  EXPECT_EQ(static_cast<uint8_t>(out[64]), 62 * 2 + 1);
}

TEST(RleBitPackedEncoderTest, HugeRunSplitsAtMaxRunLength) {
  RleBitPackedEncoder encoder(1);
  encoder.PutRepeated(1, (size_t{1} << 31) + 5);
  // (2^31 - 1) << 1 = 0xfffffffe as a varint, value 1; then 6 << 1, value 1.
  EXPECT_EQ(encoder.Finish(), FromHex("fe ff ff ff 0f 01 0c 01"));
}

TEST(RleBitPackedEncoderTest, FinishResets) {
  RleBitPackedEncoder encoder(3);
  for (uint32_t v = 0; v < 8; ++v) encoder.Put(v);
  EXPECT_EQ(encoder.Finish(), FromHex("03 88 c6 fa"));
  EXPECT_EQ(encoder.Finish(), "");
  for (uint32_t v = 0; v < 8; ++v) encoder.Put(v);
  EXPECT_EQ(encoder.Finish(), FromHex("03 88 c6 fa"));
}

}  // namespace
}  // namespace cdclake::parquet
