// Tests for DELTA_BYTE_ARRAY: the spec's example, round trips of sorted and random strings,
// prefix checks, and damaged input leaving the output untouched.
#include "parquet/encoding/delta_byte_array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/encoding/encoding_test_util.h"

namespace cdclake::parquet {
namespace {

using testing::ExactBytes;
using testing::FromHex;
using testing::TestCounts;

std::vector<std::string_view> Views(const std::vector<std::string>& values) {
  return std::vector<std::string_view>(values.begin(), values.end());
}

Status Decode(std::string_view data, size_t n, std::vector<std::string>* values) {
  std::string bytes = "pre";
  std::vector<int64_t> offsets = {0, 3};
  CDCLAKE_RETURN_IF_ERROR(DecodeDeltaByteArray(data, n, &bytes, &offsets));
  EXPECT_EQ(offsets.size(), n + 2);
  EXPECT_EQ(offsets.back(), static_cast<int64_t>(bytes.size()));
  values->clear();
  for (size_t i = 0; i < n; ++i) {
    values->push_back(bytes.substr(offsets[i + 1], offsets[i + 2] - offsets[i + 1]));
  }
  return Status::OK();
}

// Encodings.md: "axis", "axle", "babble", "babyhood" -> prefixes (0, 2, 0, 3), suffix lengths
// (4, 2, 6, 5), then "axislebabbleyhood".
// Prefixes: first 0; deltas 2, -2, 3; min -2 (zigzag 03); relative 4, 0, 5 at width 3:
// 100 000 101 LSB first = 01000100 00000001 -> 44 01, then ten zero bytes of padding.
// Suffix lengths: first 4 (zigzag 08); deltas -2, 4, -1; min -2; relative 0, 6, 1 at width 3:
// 000 110 001 -> 01110000 00000000 -> 70 00, then ten zero bytes.
TEST(DeltaByteArrayTest, SpecExample) {
  std::vector<std::string> values = {"axis", "axle", "babble", "babyhood"};
  const std::string zeros(10, '\0');
  const std::string expected = FromHex("80 01 04 04 00  03 03 00 00 00  44 01") + zeros +
                               FromHex("80 01 04 04 08  03 03 00 00 00  70 00") + zeros +
                               "axislebabbleyhood";
  std::string out;
  EncodeDeltaByteArray(Views(values), &out);
  EXPECT_EQ(out, expected);
  std::vector<std::string> back;
  ExactBytes exact(out);
  ASSERT_TRUE(Decode(exact.view(), 4, &back).ok());
  EXPECT_EQ(back, values);
}

TEST(DeltaByteArrayTest, RoundTrip) {
  std::mt19937_64 rng(31);
  for (size_t n : TestCounts()) {
    for (bool sorted : {true, false}) {
      std::vector<std::string> values(n);
      for (auto& v : values) {
        size_t len = rng() % 24;
        for (size_t i = 0; i < len; ++i) v.push_back(static_cast<char>('a' + rng() % 3));
      }
      if (sorted) std::sort(values.begin(), values.end());
      std::string encoded;
      EncodeDeltaByteArray(Views(values), &encoded);
      ExactBytes exact(encoded);
      std::vector<std::string> back;
      Status s = Decode(exact.view(), n, &back);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(back, values) << n;
    }
  }
}

std::string Lengths(const std::vector<int32_t>& lengths) {
  DeltaBinaryPackedEncoder<int32_t> encoder;
  encoder.Put(lengths.data(), lengths.size());
  return encoder.Finish();
}

std::string Stream(const std::vector<int32_t>& prefixes,
                   const std::vector<std::string_view>& suffixes) {
  std::string out = Lengths(prefixes);
  EncodeDeltaLengthByteArray(suffixes, &out);
  return out;
}

void ExpectCorrupt(const std::string& raw, size_t n, std::string_view message_part) {
  ExactBytes exact(raw);
  std::string bytes = "keep";
  std::vector<int64_t> offsets = {0, 4};
  Status s = DecodeDeltaByteArray(exact.view(), n, &bytes, &offsets);
  ASSERT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_NE(s.message().find(message_part), std::string::npos) << s.ToString();
  EXPECT_EQ(bytes, "keep");
  EXPECT_EQ(offsets.size(), 2u);
}

TEST(DeltaByteArrayTest, PrefixChecks) {
  ExpectCorrupt(Stream({1}, {"a"}), 1, "value 0 has prefix length 1 but the previous value has 0");
  ExpectCorrupt(Stream({0, 3}, {"ab", "c"}), 2,
                "value 1 has prefix length 3 but the previous value has 2");
  ExpectCorrupt(Stream({0, -1}, {"ab", "c"}), 2, "negative length -1 for value 1");
  ExpectCorrupt(Stream({0, 0}, {"ab"}), 2, "holds 1 lengths, 2 expected");
  std::string short_suffix = Stream({0, 1}, {"ab", "cd"});
  short_suffix.pop_back();
  ExpectCorrupt(short_suffix, 2, "need 4 bytes at offset");
  // A prefix equal to the previous value's whole length is fine.
  std::vector<std::string> back;
  ASSERT_TRUE(Decode(Stream({0, 2, 3}, {"ab", "c", ""}), 3, &back).ok());
  EXPECT_EQ(back, (std::vector<std::string>{"ab", "abc", "abc"}));
}

TEST(DeltaByteArrayTest, ExpansionIsCapped) {
  // 2^16 values each repeating the previous 2^16 bytes: 2^32 bytes from a tiny page.
  std::vector<int32_t> prefixes(1 << 16, 1 << 16);
  prefixes[0] = 0;
  std::vector<std::string_view> suffixes(1 << 16, "");
  std::string first(1 << 16, 'x');
  suffixes[0] = first;
  ExpectCorrupt(Stream(prefixes, suffixes), 1 << 16, "decode to more than 2^31 - 1 bytes");
}

TEST(DeltaByteArrayTest, TruncationsAndBitFlips) {
  std::mt19937_64 rng(32);
  std::vector<std::string> values(120);
  for (auto& v : values) v = "key-" + std::to_string(rng() % 1000);
  std::sort(values.begin(), values.end());
  std::string encoded;
  EncodeDeltaByteArray(Views(values), &encoded);
  for (size_t len = 0; len < encoded.size(); ++len) {
    ExactBytes exact(std::string_view(encoded).substr(0, len));
    std::string bytes;
    std::vector<int64_t> offsets = {0};
    Status s = DecodeDeltaByteArray(exact.view(), values.size(), &bytes, &offsets);
    ASSERT_EQ(s.code(), StatusCode::kCorrupt) << len;
    ASSERT_TRUE(bytes.empty());
  }
  for (int trial = 0; trial < 2000; ++trial) {
    std::string damaged = encoded;
    damaged[rng() % damaged.size()] ^= 1 << (rng() % 8);
    ExactBytes exact(damaged);
    std::string bytes;
    std::vector<int64_t> offsets = {0};
    Status s = DecodeDeltaByteArray(exact.view(), values.size(), &bytes, &offsets);
    if (s.ok()) {
      ASSERT_EQ(offsets.back(), static_cast<int64_t>(bytes.size()));
    } else {
      ASSERT_EQ(s.code(), StatusCode::kCorrupt);
    }
  }
}

}  // namespace
}  // namespace cdclake::parquet
