// Z85: the RFC's known vector, the spec's UUID example, round trips, and malformed text.
#include "delta/deletion_vector/z85.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "base/bytes.h"

namespace cdclake::delta {
namespace {

TEST(Z85Test, KnownVector) {
  const std::string bytes("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8);
  EXPECT_EQ(Z85Encode(bytes), "HelloWorld");
  Result<std::string> decoded = Z85Decode("HelloWorld");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, bytes);
}

TEST(Z85Test, SpecUuidExample) {
  // PROTOCOL.md §Deletion Vectors, JSON Example 1: "ab" prefix + the UUID below.
  Result<std::string> decoded = Z85Decode("^-aqEH.-t@S}K{vb[*k^");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(HexEncode(*decoded), "d2c639aa8816431aaaf6d3fe2512ff61");
}

TEST(Z85Test, EmptyAndExtremes) {
  EXPECT_EQ(Z85Encode(""), "");
  ASSERT_TRUE(Z85Decode("").ok());
  EXPECT_EQ(Z85Decode("")->size(), 0u);
  EXPECT_EQ(Z85Encode(std::string(4, '\0')), "00000");
  const std::string max(4, '\xFF');
  const std::string encoded = Z85Encode(max);
  EXPECT_EQ(encoded, "%nSc0");
  EXPECT_EQ(*Z85Decode(encoded), max);
}

TEST(Z85Test, RandomRoundTrips) {
  std::mt19937 rng(85);
  for (size_t size = 0; size <= 256; size += 4) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const std::string text = Z85Encode(bytes);
    ASSERT_EQ(text.size(), size / 4 * 5);
    Result<std::string> back = Z85Decode(text);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, bytes);
  }
}

TEST(Z85Test, BadLength) {
  for (std::string_view text : {"H", "Hell", "HelloW", "HelloWorl"}) {
    Result<std::string> r = Z85Decode(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  }
}

TEST(Z85Test, BadCharacterNamesItsOffset) {
  Result<std::string> r = Z85Decode("Hello\"orld");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(r.status().message().find("offset 5"), std::string::npos) << r.status().ToString();
  for (char bad : {'"', '\'', ',', ';', '\\', '_', '`', '|', '~', ' ', '\0', '\x80', '\xFF'}) {
    std::string text = "HelloWorld";
    text[7] = bad;
    Result<std::string> result = Z85Decode(text);
    ASSERT_FALSE(result.ok()) << static_cast<int>(bad);
    EXPECT_EQ(result.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(result.status().message().find("offset 7"), std::string::npos);
  }
}

TEST(Z85Test, GroupOverflowIsCorrupt) {
  // "%nSc0" is 0xFFFFFFFF; "%nSc1" and "#####" (85^5 - 1) do not fit in 32 bits.
  for (std::string_view text : {"%nSc1", "#####", "00000#####"}) {
    Result<std::string> r = Z85Decode(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  }
}

}  // namespace
}  // namespace cdclake::delta
