// Tests for BYTE_STREAM_SPLIT: the spec's example, round trips at many widths, and sizes that do
// not fit.
#include "parquet/encoding/byte_stream_split.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "parquet/encoding/encoding_test_util.h"

namespace cdclake::parquet {
namespace {

using testing::ExactBytes;
using testing::FromHex;
using testing::TestCounts;

// Encodings.md: three floats AA BB CC DD, 00 11 22 33, A3 B4 C5 D6.
TEST(ByteStreamSplitTest, SpecExample) {
  const std::string plain = FromHex("AA BB CC DD 00 11 22 33 A3 B4 C5 D6");
  const std::string split = FromHex("AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6");
  std::string out;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(plain.data()), 4, 3, &out);
  EXPECT_EQ(out, split);
  std::string back(12, '\0');
  ExactBytes exact(split);
  ASSERT_TRUE(
      DecodeByteStreamSplit(exact.view(), 4, 3, reinterpret_cast<uint8_t*>(back.data())).ok());
  EXPECT_EQ(back, plain);
}

TEST(ByteStreamSplitTest, RoundTrip) {
  std::mt19937_64 rng(41);
  for (size_t width : {1, 2, 3, 4, 8, 12, 16}) {
    for (size_t n : TestCounts()) {
      std::vector<uint8_t> values(width * n);
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      std::string encoded;
      EncodeByteStreamSplit(values.data(), width, n, &encoded);
      ASSERT_EQ(encoded.size(), width * n);
      ExactBytes exact(encoded);
      std::vector<uint8_t> out(width * n + 1, 0x5a);
      ASSERT_TRUE(DecodeByteStreamSplit(exact.view(), width, n, out.data()).ok());
      ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.end() - 1), values)
          << "width " << width << " n " << n;
      ASSERT_EQ(out.back(), 0x5a);
    }
  }
}

// The streams span the whole buffer; asking for fewer values reads the front of each stream.
TEST(ByteStreamSplitTest, FirstValuesOfLongerStreams) {
  const std::string split = FromHex("AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6");
  uint8_t out[8];
  ASSERT_TRUE(DecodeByteStreamSplit(split, 4, 2, out).ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 8), FromHex("AA BB CC DD 00 11 22 33"));
}

TEST(ByteStreamSplitTest, BadSizes) {
  uint8_t out[64];
  Status s = DecodeByteStreamSplit(FromHex("01 02 03 04 05"), 4, 1, out);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("stray bytes at offset 4"), std::string::npos) << s.ToString();
  s = DecodeByteStreamSplit(FromHex("01 02 03 04 05 06 07 08"), 4, 3, out);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("3 values wanted"), std::string::npos) << s.ToString();
  EXPECT_EQ(DecodeByteStreamSplit("", 0, 0, out).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(DecodeByteStreamSplit("", 8, 0, out).ok());
  for (size_t len = 0; len < 24; ++len) {
    ExactBytes exact(std::string(len, 'x'));
    EXPECT_EQ(DecodeByteStreamSplit(exact.view(), 8, 3, out).code(), StatusCode::kCorrupt);
  }
}

}  // namespace
}  // namespace cdclake::parquet
