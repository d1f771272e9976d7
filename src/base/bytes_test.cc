// Tests for byte coding: varints, zigzag, bounds checks.
#include "base/bytes.h"

#include <gtest/gtest.h>

namespace cdclake {
namespace {

TEST(BytesTest, VarintRoundTripsEdgeValues) {
  for (uint64_t v : std::initializer_list<uint64_t>{0, 1, 127, 128, 300, (1ull << 35) + 7, ~0ull}) {
    std::string buf;
    AppendVarint(&buf, v);
    ByteReader r(buf);
    auto got = r.ReadVarint();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, v);
    EXPECT_TRUE(r.AtEnd());
  }
}

TEST(BytesTest, ZigZagRoundTrips) {
  for (int64_t v : std::initializer_list<int64_t>{0, -1, 1, -64, 63, INT64_MIN, INT64_MAX}) {
    EXPECT_EQ(ZigZagDecode(ZigZagEncode(v)), v);
  }
  EXPECT_EQ(ZigZagEncode(-1), 1u);
  EXPECT_EQ(ZigZagEncode(1), 2u);
}

TEST(BytesTest, TruncatedVarintIsCorrupt) {
  std::string buf = "\x80\x80";
  ByteReader r(buf);
  auto got = r.ReadVarint();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(got.status().message().find("offset"), std::string::npos);
}

TEST(BytesTest, OverlongVarintIsCorrupt) {
  std::string buf(11, '\xff');
  ByteReader r(buf);
  EXPECT_FALSE(r.ReadVarint().ok());
}

TEST(BytesTest, ReadPastEndFails) {
  std::string buf = "abc";
  ByteReader r(buf);
  EXPECT_FALSE(r.ReadLE<uint32_t>().ok());
  EXPECT_TRUE(r.ReadBytes(3).ok());
  EXPECT_FALSE(r.ReadByte().ok());
}

TEST(BytesTest, HexAndCrc) {
  EXPECT_EQ(HexEncode(std::string("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ(HexDecode("00fF10"), std::string("\x00\xff\x10", 3));
  EXPECT_EQ(HexDecode(""), std::string());
  EXPECT_FALSE(HexDecode("0").has_value());
  EXPECT_FALSE(HexDecode("0g").has_value());
  char be[8];
  StoreBigEndian64(0x0102030405060708ull, be);
  EXPECT_EQ(LoadBigEndian(be, 8), 0x0102030405060708ull);
  EXPECT_EQ(LoadBigEndian(be, 2), 0x0102u);
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);  // the standard check value
}

TEST(StatusTest, ContextIsPrepended) {
  Status s = Status::Corrupt("bad page").WithContext("f.parquet");
  EXPECT_EQ(s.ToString(), "corrupt: f.parquet: bad page");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

}  // namespace
}  // namespace cdclake
