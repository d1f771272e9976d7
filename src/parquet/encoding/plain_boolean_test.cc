// Tests for PLAIN booleans: known bytes, round trips at every count, short input.
#include "parquet/encoding/plain_boolean.h"

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

TEST(PlainBooleanTest, KnownBytes) {
  // LSB first: 1,0,1,1,0,0,0,0 -> 00001101; then 1 -> 00000001.
  std::vector<uint8_t> values = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  std::string out;
  EncodePlainBooleans(values.data(), values.size(), &out);
  EXPECT_EQ(out, FromHex("0d 01"));
  std::vector<uint8_t> back(values.size());
  ASSERT_TRUE(DecodePlainBooleans(out, values.size(), back.data()).ok());
  EXPECT_EQ(back, values);
}

TEST(PlainBooleanTest, AppendsAfterExistingBytes) {
  std::string out = "x";
  uint8_t values[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1};
  EncodePlainBooleans(values, 10, &out);
  EXPECT_EQ(out, "x" + FromHex("ff 02"));
}

TEST(PlainBooleanTest, RoundTrip) {
  std::mt19937_64 rng(3);
  for (size_t n : TestCounts()) {
    for (int density : {0, 1, 50, 99, 100}) {
      std::vector<uint8_t> values(n);
      for (auto& v : values) v = static_cast<int>(rng() % 100) < density ? 1 : 0;
      std::string encoded;
      EncodePlainBooleans(values.data(), n, &encoded);
      ASSERT_EQ(encoded.size(), (n + 7) / 8);
      ExactBytes exact(encoded);
      std::vector<uint8_t> out(n + 1, 7);
      ASSERT_TRUE(DecodePlainBooleans(exact.view(), n, out.data()).ok());
      ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + n), values) << n;
      ASSERT_EQ(out[n], 7) << "wrote past n";
    }
  }
}

TEST(PlainBooleanTest, TooFewBytes) {
  for (size_t n : {1, 8, 9, 100}) {
    std::string encoded((n + 7) / 8, '\xff');
    for (size_t len = 0; len < encoded.size(); ++len) {
      ExactBytes exact(encoded.substr(0, len));
      std::vector<uint8_t> out(n);
      Status s = DecodePlainBooleans(exact.view(), n, out.data());
      ASSERT_EQ(s.code(), StatusCode::kCorrupt);
      EXPECT_NE(s.message().find("offset " + std::to_string(len)), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cdclake::parquet
