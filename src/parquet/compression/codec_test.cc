// Tests for the page codecs: round trips, levels, the formats other writers produce (zlib, raw
// deflate, gzip members, zstd frames, Hadoop LZ4 frames), wrong sizes, and mangled input.
#include "parquet/compression/codec.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include <random>
#include <vector>

namespace cdclake::parquet {
namespace {

#define ASSERT_OK(expr)                              \
  do {                                               \
    const ::cdclake::Status status_ = (expr);        \
    ASSERT_TRUE(status_.ok()) << status_.ToString(); \
  } while (false)

constexpr Codec kAllCodecs[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip,
                                Codec::kZstd,         Codec::kLz4Raw, Codec::kLz4Hadoop};

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

std::string Compressible(size_t n) {
  std::string out;
  out.reserve(n);
  for (int row = 0; out.size() < n; ++row) {
    out += "row " + std::to_string(row % 1000) + ",customer_" + std::to_string(row % 17) +
           ",status=active;";
  }
  out.resize(n);
  return out;
}

// Text with some noise: compresses, but not to nothing.
std::string Mixed(size_t n, uint64_t seed) {
  std::string out = Compressible(n);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n / 16; ++i) out[rng() % n] = static_cast<char>(rng());
  return out;
}

std::string Name(const testing::TestParamInfo<Codec>& info) {
  std::string name(CodecName(info.param));
  std::erase(name, '_');
  return name;
}

class CodecTest : public testing::TestWithParam<Codec> {
 protected:
  void ExpectRoundTrip(const std::string& input, int level = 0) {
    std::string compressed = "stale";
    ASSERT_OK(Compress(GetParam(), input, &compressed, level));
    std::string decompressed = "stale";
    ASSERT_OK(Decompress(GetParam(), compressed, input.size(), &decompressed));
    ASSERT_EQ(decompressed.size(), input.size());
    EXPECT_TRUE(decompressed == input) << "level " << level;
  }
};

TEST_P(CodecTest, RoundTripsEmptyAndTinyInputs) {
  ExpectRoundTrip("");
  ExpectRoundTrip("a");
  ExpectRoundTrip("hello, parquet");
  ExpectRoundTrip(std::string(1, '\0'));
  ExpectRoundTrip(std::string(100, '\0'));
}

TEST_P(CodecTest, RoundTripsOneMebibyte) {
  ExpectRoundTrip(RandomBytes(1 << 20, 1));
  ExpectRoundTrip(Compressible(1 << 20));
  ExpectRoundTrip(std::string(1 << 20, 'x'));
}

TEST_P(CodecTest, CompressesRepetitiveData) {
  for (const std::string& input : {Compressible(1 << 20), std::string(1 << 20, 'x')}) {
    std::string compressed;
    ASSERT_OK(Compress(GetParam(), input, &compressed));
    if (GetParam() == Codec::kUncompressed) {
      EXPECT_TRUE(compressed == input);
    } else {
      // Even the fast codecs do better than this (snappy copies at most 64 bytes at a time).
      EXPECT_LT(compressed.size(), input.size() / (input[0] == 'x' ? 15 : 3))
          << CodecName(GetParam());
    }
  }
}

TEST_P(CodecTest, RoundTripsAtOtherLevels) {
  const std::string input = Mixed(64 << 10, 2);
  std::vector<int> levels;
  switch (GetParam()) {
    case Codec::kGzip:
      levels = {-1, 1, 6, 9};
      break;
    case Codec::kZstd:
      levels = {-5, 1, 3, 12, ZSTD_maxCLevel()};
      break;
    case Codec::kLz4Raw:
    case Codec::kLz4Hadoop:
      levels = {-20, -1, 1, 9, 12};
      break;
    default:
      levels = {1, 5};
      break;  // ignored
  }
  for (int level : levels) ExpectRoundTrip(input, level);
}

TEST_P(CodecTest, RejectsLevelsTheCodecLacks) {
  std::string out = "stale";
  int bad;
  switch (GetParam()) {
    case Codec::kGzip:
      bad = 10;
      break;
    case Codec::kZstd:
      bad = ZSTD_maxCLevel() + 1;
      break;
    case Codec::kLz4Raw:
    case Codec::kLz4Hadoop:
      bad = 13;
      break;
    default:  // no levels: any level is ignored
      ASSERT_OK(Compress(GetParam(), "data", &out, 1000));
      std::string back;
      ASSERT_OK(Decompress(GetParam(), out, 4, &back));
      EXPECT_EQ(back, "data");
      return;
  }
  Status status = Compress(GetParam(), "data", &out, bad);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_TRUE(out.empty());
}

TEST_P(CodecTest, WrongUncompressedSizesAreCorrupt) {
  for (const std::string& input : {Mixed(10000, 3), std::string("tiny"), std::string()}) {
    std::string compressed;
    ASSERT_OK(Compress(GetParam(), input, &compressed));
    for (size_t wrong :
         {input.size() + 1, input.size() + 1000, input.size() - 1, input.size() / 2}) {
      if (wrong == input.size() || wrong > (size_t{1} << 40)) continue;  // size_t wrapped
      std::string out = "stale";
      Status status = Decompress(GetParam(), compressed, wrong, &out);
      EXPECT_EQ(status.code(), StatusCode::kCorrupt) << wrong << " " << status.ToString();
      EXPECT_TRUE(out.empty());
      if (status.message().find("compressed bytes can hold") == std::string::npos &&
          status.message().find("block") == std::string::npos) {
        EXPECT_NE(status.message().find("page header says " + std::to_string(wrong)),
                  std::string::npos)
            << status.ToString();
      }
    }
  }
}

TEST_P(CodecTest, SizeMismatchNamesBothSizes) {
  std::string input = Mixed(5000, 4);
  std::string compressed, out;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  Status status = Decompress(GetParam(), compressed, 6000, &out);
  EXPECT_NE(status.message().find("decompressed 5000 bytes, page header says 6000"),
            std::string::npos)
      << status.ToString();
  status = Decompress(GetParam(), compressed, 4000, &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt);
  if (GetParam() == Codec::kLz4Raw) {
    // A bare LZ4 block cannot tell a short buffer from corruption.
    EXPECT_NE(status.message().find("more than 4000 bytes"), std::string::npos)
        << status.ToString();
  } else {
    EXPECT_TRUE(status.message().find("decompressed 5000 bytes, page header says 4000") !=
                    std::string::npos ||
                status.message().find("decompressed more than 4000 bytes, page header says "
                                      "4000") != std::string::npos)
        << status.ToString();
  }
}

TEST_P(CodecTest, RefusesPagesPastTheLimit) {
  std::string compressed, out;
  ASSERT_OK(Compress(GetParam(), "x", &compressed));
  Status status = Decompress(GetParam(), compressed, kMaxUncompressedPageSize + 1, &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt);
  EXPECT_NE(status.message().find("limit"), std::string::npos) << status.ToString();
  // Within the limit but absurd for the input: refused without allocating it.
  status = Decompress(GetParam(), compressed, kMaxUncompressedPageSize, &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
}

TEST_P(CodecTest, SurvivesThousandsOfMutations) {
  const std::string input = Mixed(4096, 5);
  std::string compressed;
  ASSERT_OK(Compress(GetParam(), input, &compressed));
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()) * 7919 + 1);
  std::string out;
  int decoded = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string mutated = compressed;
    switch (rng() % 6) {
      case 0:  // flip a few bits
        for (int k = 1 + rng() % 3; k > 0; --k) {
          mutated[rng() % mutated.size()] ^= static_cast<char>(1 << (rng() % 8));
        }
        break;
      case 1:  // overwrite a byte
        mutated[rng() % mutated.size()] = static_cast<char>(rng());
        break;
      case 2:  // truncate
        mutated.resize(rng() % mutated.size());
        break;
      case 3:  // insert junk
        mutated.insert(rng() % (mutated.size() + 1), RandomBytes(1 + rng() % 8, rng()));
        break;
      case 4:  // garble the first bytes, where the headers live
        for (size_t k = 0; k < std::min<size_t>(mutated.size(), 12); ++k) {
          if (rng() % 3 == 0) mutated[k] = static_cast<char>(rng());
        }
        break;
      default:  // append junk
        mutated += RandomBytes(1 + rng() % 16, rng());
        break;
    }
    size_t expected = input.size();
    if (rng() % 4 == 0) expected = rng() % 10000;
    Status status = Decompress(GetParam(), mutated, expected, &out);
    if (status.ok()) {
      ASSERT_EQ(out.size(), expected);
      ++decoded;
    } else {
      ASSERT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
      ASSERT_TRUE(out.empty());
    }
  }
  RecordProperty("decoded_mutations", decoded);
}

TEST_P(CodecTest, SurvivesGarbage) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()) + 99);
  std::string out;
  for (int i = 0; i < 3000; ++i) {
    std::string garbage = RandomBytes(rng() % 64, rng());
    size_t expected = rng() % 3 == 0 ? garbage.size() : rng() % 5000;
    Status status = Decompress(GetParam(), garbage, expected, &out);
    if (status.ok()) {
      ASSERT_EQ(out.size(), expected);
    } else {
      ASSERT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
    }
  }
}

TEST_P(CodecTest, InputMayBeAViewOfTheOutput) {
  const std::string input = Mixed(3000, 10);
  std::string buffer = input;
  ASSERT_OK(Compress(GetParam(), buffer, &buffer));
  ASSERT_OK(Decompress(GetParam(), buffer, input.size(), &buffer));
  EXPECT_TRUE(buffer == input);
  buffer = "xx" + input;
  std::string_view tail = std::string_view(buffer).substr(2);
  ASSERT_OK(Compress(GetParam(), tail, &buffer));
  ASSERT_OK(Decompress(GetParam(), buffer, input.size(), &buffer));
  EXPECT_TRUE(buffer == input);
}

TEST_P(CodecTest, DecompressReplacesOutput) {
  std::string compressed, out = "previous contents";
  ASSERT_OK(Compress(GetParam(), "abc", &compressed));
  ASSERT_OK(Decompress(GetParam(), compressed, 3, &out));
  EXPECT_EQ(out, "abc");
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest, testing::ValuesIn(kAllCodecs), Name);

// ---- Formats written by others -------------------------------------------------------------

std::string Deflate(const std::string& input, int window_bits) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, input.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(GzipTest, WritesTheGzipFormat) {
  std::string compressed;
  ASSERT_OK(Compress(Codec::kGzip, "hello", &compressed));
  ASSERT_GE(compressed.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(compressed[1]), 0x8b);
}

TEST(GzipTest, ReadsZlibRawDeflateAndConcatenatedMembers) {
  const std::string input = Mixed(20000, 6);
  std::string out;
  ASSERT_OK(Decompress(Codec::kGzip, Deflate(input, 15), input.size(), &out));  // zlib
  EXPECT_TRUE(out == input);
  ASSERT_OK(Decompress(Codec::kGzip, Deflate(input, -15), input.size(), &out));  // raw
  EXPECT_TRUE(out == input);

  const std::string second = "second member";
  std::string members = Deflate(input, 31) + Deflate(second, 31);
  ASSERT_OK(Decompress(Codec::kGzip, members, input.size() + second.size(), &out));
  EXPECT_TRUE(out == input + second);

  Status status = Decompress(Codec::kGzip, Deflate(input, 31) + "junk", input.size(), &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt);
  EXPECT_NE(status.message().find("4 bytes after the end"), std::string::npos) << status.ToString();

  std::string truncated = Deflate(input, 31);
  truncated.resize(truncated.size() - 3);
  status = Decompress(Codec::kGzip, truncated, input.size(), &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
}

TEST(ZstdTest, ReadsConcatenatedFramesAndFramesWithoutSizes) {
  const std::string a = Mixed(30000, 7);
  const std::string b = Compressible(5000);
  std::string ca, cb, out;
  ASSERT_OK(Compress(Codec::kZstd, a, &ca));
  ASSERT_OK(Compress(Codec::kZstd, b, &cb));
  ASSERT_OK(Decompress(Codec::kZstd, ca + cb, a.size() + b.size(), &out));
  EXPECT_TRUE(out == a + b);
  EXPECT_EQ(Decompress(Codec::kZstd, ca + cb, a.size() + b.size() + 1, &out).code(),
            StatusCode::kCorrupt);

  // A streamed frame states no size.
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ASSERT_EQ(ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0)), 0u);
  std::string streamed(ZSTD_compressBound(a.size()), '\0');
  size_t n = ZSTD_compress2(context, streamed.data(), streamed.size(), a.data(), a.size());
  ZSTD_freeCCtx(context);
  ASSERT_FALSE(ZSTD_isError(n));
  streamed.resize(n);
  ASSERT_EQ(ZSTD_getFrameContentSize(streamed.data(), streamed.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  ASSERT_OK(Decompress(Codec::kZstd, streamed, a.size(), &out));
  EXPECT_TRUE(out == a);
  Status status = Decompress(Codec::kZstd, streamed, a.size() - 1, &out);
  EXPECT_NE(status.message().find("more than"), std::string::npos) << status.ToString();
  status = Decompress(Codec::kZstd, streamed, a.size() + 1, &out);
  EXPECT_NE(status.message().find("decompressed 30000 bytes"), std::string::npos)
      << status.ToString();
}

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

TEST(Lz4HadoopTest, WritesOneHadoopFrame) {
  const std::string input = Mixed(10000, 8);
  std::string framed, raw, out;
  ASSERT_OK(Compress(Codec::kLz4Hadoop, input, &framed));
  ASSERT_OK(Compress(Codec::kLz4Raw, input, &raw));
  EXPECT_EQ(framed, BigEndian32(10000) + BigEndian32(static_cast<uint32_t>(raw.size())) + raw);
}

TEST(Lz4HadoopTest, ReadsSeveralFramesAndBareBlocks) {
  const std::string a = Mixed(7000, 9);
  const std::string b = Compressible(3000);
  std::string ra, rb, out;
  ASSERT_OK(Compress(Codec::kLz4Raw, a, &ra));
  ASSERT_OK(Compress(Codec::kLz4Raw, b, &rb));
  const std::string frames = BigEndian32(7000) + BigEndian32(static_cast<uint32_t>(ra.size())) +
                             ra + BigEndian32(3000) +
                             BigEndian32(static_cast<uint32_t>(rb.size())) + rb;
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, frames, 10000, &out));
  EXPECT_TRUE(out == a + b);

  Status status = Decompress(Codec::kLz4Hadoop, frames, 10001, &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt);
  EXPECT_NE(status.message().find("decompressed 10000 bytes, page header says 10001"),
            std::string::npos)
      << status.ToString();

  // Older writers: a bare LZ4 block under the LZ4 codec.
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, ra, 7000, &out));
  EXPECT_TRUE(out == a);
  status = Decompress(Codec::kLz4Hadoop, ra.substr(0, ra.size() / 2), 7000, &out);
  EXPECT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
}

TEST(CodecNameTest, UsesTheSpecNamesAndParsesThem) {
  for (Codec codec : kAllCodecs) {
    Result<Codec> parsed = ParseCodec(CodecName(codec));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, codec);
  }
  EXPECT_EQ(CodecName(Codec::kLz4Hadoop), "LZ4");
  EXPECT_EQ(CodecName(Codec::kLz4Raw), "LZ4_RAW");
  EXPECT_EQ(*ParseCodec("zstd"), Codec::kZstd);
  EXPECT_EQ(*ParseCodec("None"), Codec::kUncompressed);
  EXPECT_EQ(ParseCodec("brotli").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cdclake::parquet
