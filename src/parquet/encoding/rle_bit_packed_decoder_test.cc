// Tests for RleBitPackedDecoder: round trips at every width and count, batch splits, the level
// variant, hand-written streams, and damaged input (every truncation, random bit flips).
#include "parquet/encoding/rle_bit_packed_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "parquet/encoding/encoding_test_util.h"
#include "parquet/encoding/rle_bit_packed_encoder.h"

namespace cdclake::parquet {
namespace {

using testing::ExactBytes;
using testing::FromHex;
using testing::TestCounts;

enum class Pattern { kRandom, kRuns, kConstant };

std::vector<uint32_t> MakeValues(Pattern pattern, size_t n, int width, std::mt19937_64& rng) {
  const uint64_t mask = width == 0 ? 0 : (uint64_t{1} << width) - 1;
  std::vector<uint32_t> values;
  values.reserve(n);
  const auto fixed = static_cast<uint32_t>(rng() & mask);
  while (values.size() < n) {
    const auto v = static_cast<uint32_t>(rng() & mask);
    size_t run = 1;
    if (pattern == Pattern::kRuns) run = 1 + rng() % 20;  // lengths around 8 on both sides
    if (pattern == Pattern::kConstant) run = n;
    values.insert(values.end(), std::min(run, n - values.size()),
                  pattern == Pattern::kConstant ? fixed : v);
  }
  return values;
}

std::string Encode(int width, const std::vector<uint32_t>& values) {
  RleBitPackedEncoder encoder(width);
  for (uint32_t v : values) encoder.Put(v);
  return encoder.Finish();
}

// Decodes `n` values in batches of `batch`, then checks that at most 7 padding zeros follow.
void ExpectDecodes(std::string_view encoded, int width, const std::vector<uint32_t>& values,
                   size_t batch) {
  ExactBytes exact(encoded);
  RleBitPackedDecoder decoder(exact.view(), width);
  std::vector<uint32_t> out(values.size());
  size_t done = 0;
  while (done < values.size()) {
    size_t k = std::min(batch, values.size() - done);
    Result<size_t> got = decoder.GetBatch(out.data() + done, k);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(*got, k);
    done += k;
  }
  ASSERT_EQ(out, values);
  uint32_t tail[16];
  Result<size_t> rest = decoder.GetBatch(tail, 16);
  ASSERT_TRUE(rest.ok());
  ASSERT_LT(*rest, 8u);
  for (size_t i = 0; i < *rest; ++i) EXPECT_EQ(tail[i], 0u);
}

TEST(RleBitPackedDecoderTest, RoundTripEveryWidthAndCount) {
  std::mt19937_64 rng(7);
  for (int width = 0; width <= 32; ++width) {
    for (size_t n : TestCounts()) {
      for (Pattern p : {Pattern::kRandom, Pattern::kRuns, Pattern::kConstant}) {
        std::vector<uint32_t> values = MakeValues(p, n, width, rng);
        std::string encoded = Encode(width, values);
        SCOPED_TRACE("width " + std::to_string(width) + " n " + std::to_string(n) + " pattern " +
                     std::to_string(static_cast<int>(p)));
        ExpectDecodes(encoded, width, values, n == 0 ? 1 : n);
        if (n <= 1000) {
          for (size_t batch : {1, 3, 7, 8, 9, 64}) ExpectDecodes(encoded, width, values, batch);
        }
      }
    }
  }
}

TEST(RleBitPackedDecoderTest, RunLengthsAroundEight) {
  std::mt19937_64 rng(8);
  for (size_t before = 0; before <= 9; ++before) {
    for (size_t run = 1; run <= 24; ++run) {
      std::vector<uint32_t> values;
      for (size_t i = 0; i < before; ++i) values.push_back(static_cast<uint32_t>(rng() % 5));
      values.insert(values.end(), run, 6);
      for (size_t i = 0; i < 3; ++i) values.push_back(static_cast<uint32_t>(rng() % 5));
      std::string encoded = Encode(3, values);
      SCOPED_TRACE("before " + std::to_string(before) + " run " + std::to_string(run));
      ExpectDecodes(encoded, 3, values, values.size());
      ExpectDecodes(encoded, 3, values, 5);
    }
  }
}

TEST(RleBitPackedDecoderTest, LevelsAsInt16) {
  std::mt19937_64 rng(9);
  for (int width = 0; width <= 15; ++width) {
    for (size_t n : TestCounts()) {
      std::vector<uint32_t> values = MakeValues(Pattern::kRuns, n, width, rng);
      ExactBytes exact(Encode(width, values));
      RleBitPackedDecoder decoder(exact.view(), width);
      std::vector<int16_t> out(n + 1, -1);
      size_t done = 0;
      for (size_t batch = 1; done < n; batch = batch * 2 + 1) {
        size_t k = std::min(batch, n - done);
        Result<size_t> got = decoder.GetBatch(out.data() + done, k);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ASSERT_EQ(*got, k);
        done += k;
      }
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<int16_t>(values[i])) << i;
      ASSERT_EQ(out[n], -1);
    }
  }
  RleBitPackedDecoder wide(FromHex("10 01 00"), 16);
  int16_t level;
  EXPECT_EQ(wide.GetBatch(&level, 1).status().code(), StatusCode::kInvalidArgument);
}

TEST(RleBitPackedDecoderTest, HandWrittenStreams) {
  // RLE run of 3 fives, a bit-packed group of 0..7 (width 3), RLE run of 2 ones.
  ExactBytes bytes(FromHex("06 05 03 88 c6 fa 04 01"));
  RleBitPackedDecoder decoder(bytes.view(), 3);
  uint32_t out[20];
  Result<size_t> got = decoder.GetBatch(out, 20);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(*got, 13u);
  EXPECT_EQ(std::vector<uint32_t>(out, out + 13),
            (std::vector<uint32_t>{5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7, 1, 1}));
}

TEST(RleBitPackedDecoderTest, ZeroLengthRunsAreSkipped) {
  // An empty RLE run (with its value byte), an empty bit-packed run, then 2 twos.
  ExactBytes bytes(FromHex("00 00 01 04 02"));
  RleBitPackedDecoder decoder(bytes.view(), 2);
  uint32_t out[4];
  Result<size_t> got = decoder.GetBatch(out, 4);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(*got, 2u);
  EXPECT_EQ(out[0], 2u);
  EXPECT_EQ(out[1], 2u);
}

TEST(RleBitPackedDecoderTest, WidthZero) {
  // A bit-packed run of 2 groups at width 0 has no bytes; then an RLE run of 3.
  ExactBytes bytes(FromHex("05 06"));
  RleBitPackedDecoder decoder(bytes.view(), 0);
  uint32_t out[32];
  std::fill_n(out, 32, 9u);
  Result<size_t> got = decoder.GetBatch(out, 32);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(*got, 19u);
  for (size_t i = 0; i < 19; ++i) EXPECT_EQ(out[i], 0u);
}

TEST(RleBitPackedDecoderTest, LongRunIsCheap) {
  // An RLE run of 2^31 - 1 values: ask for a few.
  ExactBytes bytes(FromHex("fe ff ff ff 0f 01"));
  RleBitPackedDecoder decoder(bytes.view(), 1);
  uint32_t out[10];
  Result<size_t> got = decoder.GetBatch(out, 10);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 10u);
}

void ExpectCorrupt(std::string_view hex, int width, std::string_view message_part) {
  std::string raw = FromHex(hex);
  ExactBytes bytes(raw);
  RleBitPackedDecoder decoder(bytes.view(), width);
  uint32_t out[64];
  Result<size_t> got = decoder.GetBatch(out, 64);
  ASSERT_FALSE(got.ok()) << hex;
  EXPECT_EQ(got.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(got.status().message().find(message_part), std::string::npos)
      << got.status().ToString();
}

TEST(RleBitPackedDecoderTest, CorruptStreams) {
  ExpectCorrupt("10 05", 2, "RLE run value 5 at offset 0 does not fit in bit width 2");
  ExpectCorrupt("02 01 00 10 00 02", 9, "value 512 at offset 3 does not fit in bit width 9");
  ExpectCorrupt("10", 3, "RLE run value");                         // value byte missing
  ExpectCorrupt("10 01", 9, "offset 1");                           // second value byte missing
  ExpectCorrupt("80 80", 3, "RLE/bit-packed run header");          // varint cut short
  ExpectCorrupt("ff ff ff ff ff ff ff ff ff ff ff", 3, "varint");  // varint too long
  ExpectCorrupt("80 80 80 80 10 00", 1, "exceeds 2^31 - 1");       // RLE run of 2^31
  ExpectCorrupt("81 80 80 80 02", 1, "exceeds 2^31 - 1 values");   // 2^28 groups
  ExpectCorrupt("10 00", 33, "bit width 33 is outside 0..32");
  ExpectCorrupt("10 00", -1, "outside 0..32");
}

TEST(RleBitPackedDecoderTest, TruncatedBitPackedRunYieldsWholeValues) {
  // Header says 2 groups of width 5 (10 bytes); 3 bytes are present: 24 bits = 4 whole values.
  ExactBytes bytes(FromHex("05 21 84 10"));
  RleBitPackedDecoder decoder(bytes.view(), 5);
  uint32_t out[16];
  Result<size_t> got = decoder.GetBatch(out, 16);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(*got, 4u);
  EXPECT_EQ(std::vector<uint32_t>(out, out + 4), (std::vector<uint32_t>{1, 1, 1, 1}));
}

// Every prefix of a valid stream either fails or yields a prefix of the values (bit-packed
// values cut short are dropped, never made up).
TEST(RleBitPackedDecoderTest, EveryTruncation) {
  std::mt19937_64 rng(10);
  for (int width : {0, 1, 3, 8, 10, 17, 32}) {
    for (Pattern p : {Pattern::kRandom, Pattern::kRuns}) {
      std::vector<uint32_t> values = MakeValues(p, 300, width, rng);
      std::string encoded = Encode(width, values);
      for (size_t len = 0; len < encoded.size(); ++len) {
        ExactBytes bytes(std::string_view(encoded).substr(0, len));
        RleBitPackedDecoder decoder(bytes.view(), width);
        std::vector<uint32_t> out(values.size());
        size_t done = 0;
        bool failed = false;
        while (done < values.size()) {
          Result<size_t> got =
              decoder.GetBatch(out.data() + done, std::min<size_t>(7, out.size() - done));
          if (!got.ok()) {
            EXPECT_EQ(got.status().code(), StatusCode::kCorrupt);
            failed = true;
            break;
          }
          if (*got == 0) break;
          done += *got;
        }
        // A cut inside the last group's padding may still leave every value whole.
        (void)failed;
        for (size_t i = 0; i < done; ++i) ASSERT_EQ(out[i], values[i]) << "len " << len;
      }
    }
  }
}

TEST(RleBitPackedDecoderTest, RandomBitFlips) {
  std::mt19937_64 rng(11);
  for (int width : {1, 2, 7, 10, 20, 32}) {
    std::vector<uint32_t> values = MakeValues(Pattern::kRuns, 2000, width, rng);
    std::string encoded = Encode(width, values);
    for (int trial = 0; trial < 300; ++trial) {
      std::string damaged = encoded;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] ^= 1 << (rng() % 8);
      ExactBytes bytes(damaged);
      RleBitPackedDecoder decoder(bytes.view(), width);
      std::vector<uint32_t> out(values.size());
      Result<size_t> got = decoder.GetBatch(out.data(), out.size());
      if (got.ok()) {
        ASSERT_LE(*got, out.size());
        for (size_t i = 0; i < *got; ++i) ASSERT_LT(uint64_t{out[i]}, uint64_t{1} << width);
      } else {
        EXPECT_EQ(got.status().code(), StatusCode::kCorrupt);
      }
    }
  }
}

TEST(RleBitPackedDecoderTest, ReadLengthPrefixedLevels) {
  ExactBytes bytes(FromHex("02 00 00 00 10 01 aa"));
  ByteReader r(bytes.view());
  Result<std::string_view> levels = ReadLengthPrefixedLevels(r);
  ASSERT_TRUE(levels.ok());
  EXPECT_EQ(*levels, FromHex("10 01"));
  EXPECT_EQ(r.position(), 6u);

  ExactBytes too_long(FromHex("05 00 00 00 10 01"));
  ByteReader r2(too_long.view());
  Result<std::string_view> bad = ReadLengthPrefixedLevels(r2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("claims 5 bytes, 2 remain"), std::string::npos);

  ExactBytes short_length(FromHex("05 00"));
  ByteReader r3(short_length.view());
  EXPECT_EQ(ReadLengthPrefixedLevels(r3).status().code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace cdclake::parquet
