// Tests for DELTA_LENGTH_BYTE_ARRAY: the spec's example, round trips, extra lengths, and damaged
// input leaving the output untouched.
#include "parquet/encoding/delta_length_byte_array.h"

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

std::vector<std::string_view> Views(const std::vector<std::string>& values) {
  return std::vector<std::string_view>(values.begin(), values.end());
}

// Decodes into buffers that already hold one value, as a reader appending a second page would.
Status Decode(std::string_view data, size_t n, std::vector<std::string>* values) {
  std::string bytes = "pre";
  std::vector<int64_t> offsets = {0, 3};
  CDCLAKE_RETURN_IF_ERROR(DecodeDeltaLengthByteArray(data, n, &bytes, &offsets));
  EXPECT_EQ(offsets.size(), n + 2);
  EXPECT_EQ(offsets.back(), static_cast<int64_t>(bytes.size()));
  values->clear();
  for (size_t i = 0; i < n; ++i) {
    values->push_back(bytes.substr(offsets[i + 1], offsets[i + 2] - offsets[i + 1]));
  }
  return Status::OK();
}

// Encodings.md: "Hello", "World", "Foobar", "ABCDEF" -> DeltaEncoding(5, 5, 6, 6) then the bytes.
// Lengths: header 128, 4, 4 values, zigzag(5) = 0a; block: min delta 0, widths 1 0 0 0, deltas
// 0, 1, 0 at width 1 = 00000010 and three zero bytes.
TEST(DeltaLengthByteArrayTest, SpecExample) {
  std::vector<std::string> values = {"Hello", "World", "Foobar", "ABCDEF"};
  std::string out;
  EncodeDeltaLengthByteArray(Views(values), &out);
  EXPECT_EQ(out, FromHex("80 01 04 04 0a  00 01 00 00 00  02 00 00 00") + "HelloWorldFoobarABCDEF");
  std::vector<std::string> back;
  ExactBytes exact(out);
  ASSERT_TRUE(Decode(exact.view(), 4, &back).ok());
  EXPECT_EQ(back, values);
}

TEST(DeltaLengthByteArrayTest, RoundTrip) {
  std::mt19937_64 rng(21);
  for (size_t n : TestCounts()) {
    std::vector<std::string> values(n);
    for (auto& v : values) {
      size_t len = rng() % 4 == 0 ? 0 : rng() % 40;
      for (size_t i = 0; i < len; ++i) v.push_back(static_cast<char>(rng()));
    }
    std::string encoded;
    EncodeDeltaLengthByteArray(Views(values), &encoded);
    ExactBytes exact(encoded);
    std::vector<std::string> back;
    Status s = Decode(exact.view(), n, &back);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(back, values) << n;
  }
}

TEST(DeltaLengthByteArrayTest, FewerValuesThanEncoded) {
  std::vector<std::string> values = {"a", "bb", "ccc", "dddd"};
  std::string encoded;
  EncodeDeltaLengthByteArray(Views(values), &encoded);
  std::vector<std::string> back;
  ASSERT_TRUE(Decode(encoded, 2, &back).ok());
  EXPECT_EQ(back, (std::vector<std::string>{"a", "bb"}));
  Status s = Decode(encoded, 5, &back);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("holds 4 lengths, 5 expected"), std::string::npos) << s.ToString();
}

// Lengths beyond the n wanted are skipped to find the bytes, by bytes read rather than by count.
TEST(DeltaLengthByteArrayTest, HugeClaimedLengthCount) {
  std::string s = FromHex("80 80 80 80 08 01 80 80 80 80 80 20 06");  // 2^40 lengths, first 3
  for (int b = 0; b < 512; ++b) s += FromHex("00 00");                // all deltas 0
  s += "abc";
  std::vector<std::string> back;
  Status st = Decode(s, 1, &back);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(back, std::vector<std::string>{"abc"});
}

TEST(DeltaLengthByteArrayTest, OffsetsMustEndAtBytes) {
  std::string bytes = "abc";
  std::vector<int64_t> offsets = {0};
  EXPECT_EQ(DecodeDeltaLengthByteArray("", 0, &bytes, &offsets).code(),
            StatusCode::kInvalidArgument);
  std::vector<int64_t> none;
  EXPECT_EQ(DecodeDeltaLengthByteArray("", 0, &bytes, &none).code(), StatusCode::kInvalidArgument);
}

TEST(DeltaLengthByteArrayTest, CorruptLengths) {
  // A negative length: first value zigzag(-1) = 01.
  std::string negative = FromHex("80 01 04 01 01");
  std::string bytes;
  std::vector<int64_t> offsets = {0};
  Status s = DecodeDeltaLengthByteArray(negative, 1, &bytes, &offsets);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("negative length -1 for value 0"), std::string::npos);
  // Lengths that need more bytes than follow.
  std::string too_long = FromHex("80 01 04 01 0a") + "abcd";
  s = DecodeDeltaLengthByteArray(too_long, 1, &bytes, &offsets);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("need 5 bytes at offset 5, only 4 remain"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(bytes.empty());
  EXPECT_EQ(offsets.size(), 1u);
}

TEST(DeltaLengthByteArrayTest, TruncationsAndBitFlips) {
  std::mt19937_64 rng(22);
  std::vector<std::string> values(150);
  for (auto& v : values) v = std::string(1 + rng() % 9, static_cast<char>('a' + rng() % 26));
  std::string encoded;
  EncodeDeltaLengthByteArray(Views(values), &encoded);
  for (size_t len = 0; len < encoded.size(); ++len) {
    ExactBytes exact(std::string_view(encoded).substr(0, len));
    std::string bytes = "keep";
    std::vector<int64_t> offsets = {4};
    Status s = DecodeDeltaLengthByteArray(exact.view(), values.size(), &bytes, &offsets);
    ASSERT_EQ(s.code(), StatusCode::kCorrupt) << len;
    ASSERT_EQ(bytes, "keep");
    ASSERT_EQ(offsets.size(), 1u);
  }
  for (int trial = 0; trial < 2000; ++trial) {
    std::string damaged = encoded;
    damaged[rng() % damaged.size()] ^= 1 << (rng() % 8);
    ExactBytes exact(damaged);
    std::string bytes;
    std::vector<int64_t> offsets = {0};
    Status s = DecodeDeltaLengthByteArray(exact.view(), values.size(), &bytes, &offsets);
    if (s.ok()) {
      ASSERT_EQ(offsets.back(), static_cast<int64_t>(bytes.size()));
    } else {
      ASSERT_EQ(s.code(), StatusCode::kCorrupt);
    }
  }
}

}  // namespace
}  // namespace cdclake::parquet
