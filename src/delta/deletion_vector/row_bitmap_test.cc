// RowBitmap: set operations across 32-bit buckets, the portable serialization (round trips,
// byte-for-byte agreement with a Databricks-written DV, the legacy native example), and hostile
// bytes: every malformed input is kCorrupt or kNotSupported, never a crash.
#include "delta/deletion_vector/row_bitmap.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "delta/deletion_vector/z85.h"

namespace cdclake::delta {
namespace {

constexpr uint64_t k32 = uint64_t{1} << 32;

RowBitmap RoundTrip(const RowBitmap& bitmap) {
  Result<RowBitmap> back = RowBitmap::DeserializePortable(bitmap.SerializePortable());
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  return back.ok() ? std::move(back).value() : RowBitmap();
}

void PutLE32(std::string* bytes, size_t at, uint32_t v) {
  StoreLE<uint32_t>(bytes->data() + at, v);
}
void PutLE16(std::string* bytes, size_t at, uint16_t v) {
  StoreLE<uint16_t>(bytes->data() + at, v);
}

StatusCode CodeOf(std::string_view bytes) {
  Result<RowBitmap> r = RowBitmap::DeserializePortable(bytes);
  return r.ok() ? StatusCode::kOk : r.status().code();
}

TEST(RowBitmapTest, Empty) {
  RowBitmap empty;
  EXPECT_TRUE(empty.IsEmpty());
  EXPECT_EQ(empty.Cardinality(), 0u);
  EXPECT_FALSE(empty.Contains(0));
  EXPECT_FALSE(empty.Max().has_value());
  EXPECT_TRUE(empty.ToVector().empty());
  const std::string bytes = empty.SerializePortable();
  ASSERT_EQ(bytes.size(), 12u);  // magic + bucket count
  EXPECT_EQ(LoadLE<uint32_t>(bytes.data()), RowBitmap::kPortableMagic);
  EXPECT_EQ(LoadLE<uint64_t>(bytes.data() + 4), 0u);
  EXPECT_EQ(RoundTrip(empty), empty);
}

TEST(RowBitmapTest, AddContainsAcrossBuckets) {
  RowBitmap b;
  const std::vector<uint64_t> rows = {5, 0, k32 + 3, 7 * k32, 5, RowBitmap::kMaxRowIndex, 65536};
  for (uint64_t r : rows) b.Add(r);
  EXPECT_EQ(b.Cardinality(), 6u);
  EXPECT_EQ(b.ToVector(),
            (std::vector<uint64_t>{0, 5, 65536, k32 + 3, 7 * k32, RowBitmap::kMaxRowIndex}));
  EXPECT_TRUE(b.Contains(k32 + 3));
  EXPECT_FALSE(b.Contains(3));
  EXPECT_FALSE(b.Contains(2 * k32 + 3));
  EXPECT_EQ(b.Max(), RowBitmap::kMaxRowIndex);
  EXPECT_EQ(RowBitmap::Of(rows), b);
  EXPECT_EQ(RoundTrip(b), b);
}

TEST(RowBitmapTest, AddRange) {
  RowBitmap b;
  b.AddRange(10, 10);  // empty
  b.AddRange(20, 10);  // empty
  EXPECT_TRUE(b.IsEmpty());
  b.AddRange(k32 - 5, k32 + 5);  // crosses a bucket boundary
  EXPECT_EQ(b.Cardinality(), 10u);
  EXPECT_TRUE(b.Contains(k32 - 5));
  EXPECT_TRUE(b.Contains(k32 - 1));
  EXPECT_TRUE(b.Contains(k32));
  EXPECT_TRUE(b.Contains(k32 + 4));
  EXPECT_FALSE(b.Contains(k32 + 5));
  EXPECT_FALSE(b.Contains(k32 - 6));

  RowBitmap whole;
  whole.AddRange(2 * k32, 3 * k32);  // one full bucket
  EXPECT_EQ(whole.Cardinality(), k32);
  EXPECT_EQ(whole.Max(), 3 * k32 - 1);
  // A million deleted rows in one run serialize to a few bytes per 65536-row container.
  RowBitmap run;
  run.AddRange(0, 1'000'000);
  EXPECT_LT(run.SerializePortable().size(), 300u);
  EXPECT_EQ(RoundTrip(run), run);
  EXPECT_EQ(RoundTrip(whole), whole);
}

TEST(RowBitmapTest, UnionCopyMove) {
  RowBitmap a = RowBitmap::Of({1, 2, k32 + 1});
  RowBitmap b = RowBitmap::Of({2, 3, 5 * k32});
  RowBitmap c = a;  // copy
  c.Union(b);
  EXPECT_EQ(c.ToVector(), (std::vector<uint64_t>{1, 2, 3, k32 + 1, 5 * k32}));
  EXPECT_EQ(a.Cardinality(), 3u) << "the copy is independent";
  c.Union(c);
  EXPECT_EQ(c.Cardinality(), 5u);

  RowBitmap moved = std::move(c);
  EXPECT_EQ(moved.Cardinality(), 5u);
  RowBitmap assigned;
  assigned = moved;
  assigned.Add(99);
  EXPECT_EQ(moved.Cardinality(), 5u);
  EXPECT_EQ(assigned.Cardinality(), 6u);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.Cardinality(), 5u);
  EXPECT_NE(a, b);
}

TEST(RowBitmapTest, ForEachVisitsInOrder) {
  const RowBitmap b = RowBitmap::Of({9, 0, 3 * k32 + 7, k32, 70000});
  std::vector<uint64_t> seen;
  b.ForEach([&seen](uint64_t row) { seen.push_back(row); });
  EXPECT_EQ(seen, b.ToVector());
  uint64_t sum = 0;
  const auto add = [&sum](uint64_t row) { sum += row; };
  b.ForEach(add);
  EXPECT_EQ(sum, 9 + 3 * k32 + 7 + k32 + 70000);
}

// Random sets over several buckets, mixing sparse rows (array containers), dense halves
// (bitset containers) and ranges (run containers).
TEST(RowBitmapTest, RandomRoundTrips) {
  std::mt19937_64 rng(20240611);
  const std::vector<uint64_t> keys = {0, 1, 2, 17, 0x7FFFFFFF};
  for (int trial = 0; trial < 30; ++trial) {
    std::set<uint64_t> expected;
    RowBitmap b;
    const int buckets = 1 + static_cast<int>(rng() % keys.size());
    for (int k = 0; k < buckets; ++k) {
      const uint64_t base = keys[rng() % keys.size()] << 32;
      switch (rng() % 3) {
        case 0:
          for (int i = 0; i < 200; ++i) {
            const uint64_t row = base + rng() % k32;
            b.Add(row);
            expected.insert(row);
          }
          break;
        case 1: {
          const uint64_t chunk = base + (rng() % 100) * 65536;
          for (uint64_t i = 0; i < 65536; i += 2) {
            b.Add(chunk + i);
            expected.insert(chunk + i);
          }
          break;
        }
        default: {
          const uint64_t begin = base + rng() % (k32 - 100000);
          const uint64_t end = begin + rng() % 100000;
          b.AddRange(begin, end);
          for (uint64_t r = begin; r < end; ++r) expected.insert(r);
        }
      }
    }
    ASSERT_EQ(b.Cardinality(), expected.size());
    const RowBitmap back = RoundTrip(b);
    ASSERT_EQ(back, b);
    EXPECT_EQ(back.ToVector(), std::vector<uint64_t>(expected.begin(), expected.end()));
    EXPECT_EQ(back.SerializePortable(), b.SerializePortable());
  }
}

TEST(RowBitmapTest, MatchesDatabricksBytes) {
  // The 36-byte bitmap of rs-table-with-dv-small's DV file (rows 0 and 9), written by
  // Databricks: our serialization is byte for byte the same.
  const std::string expected(
      "\xd1\xd3\x39\x64"                  // magic 1681511377
      "\x01\x00\x00\x00\x00\x00\x00\x00"  // one bucket
      "\x00\x00\x00\x00"                  // key 0
      "\x3a\x30\x00\x00\x01\x00\x00\x00"  // cookie 12346, one container
      "\x00\x00\x01\x00"                  // container key 0, cardinality 2
      "\x10\x00\x00\x00"                  // offset 16
      "\x00\x00\x09\x00",                 // 0, 9
      36);
  EXPECT_EQ(RowBitmap::Of({0, 9}).SerializePortable(), expected);
  Result<RowBitmap> parsed = RowBitmap::DeserializePortable(expected);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->ToVector(), (std::vector<uint64_t>{0, 9}));
}

TEST(RowBitmapTest, LegacyNativeFormatFromTheSpec) {
  // PROTOCOL.md "JSON Example 3 — Inline": magic 1681511376 with big-endian header integers.
  Result<std::string> bytes = Z85Decode("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes->size(), 40u);
  Result<RowBitmap> portable = RowBitmap::DeserializePortable(*bytes);
  ASSERT_FALSE(portable.ok());
  EXPECT_EQ(portable.status().code(), StatusCode::kNotSupported);
  Result<RowBitmap> native = RowBitmap::Deserialize(*bytes);
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  EXPECT_EQ(native->ToVector(), (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
  // Deserialize reads the portable format too.
  const RowBitmap b = RowBitmap::Of({1, k32});
  Result<RowBitmap> either = RowBitmap::Deserialize(b.SerializePortable());
  ASSERT_TRUE(either.ok());
  EXPECT_EQ(*either, b);
  // Every truncation of the native form fails cleanly.
  for (size_t n = 0; n < bytes->size(); ++n) {
    EXPECT_EQ(RowBitmap::Deserialize(bytes->substr(0, n)).status().code(), StatusCode::kCorrupt)
        << n;
  }
}

TEST(RowBitmapTest, HeaderCorruption) {
  const std::string good = RowBitmap::Of({0, 9}).SerializePortable();
  ASSERT_EQ(CodeOf(good), StatusCode::kOk);

  std::string bad = good;
  PutLE32(&bad, 0, 12345);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "magic";
  EXPECT_NE(RowBitmap::DeserializePortable(bad).status().message().find("magic"),
            std::string::npos);

  bad = good;
  StoreLE<uint64_t>(bad.data() + 4, uint64_t{1} << 60);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "bucket count";
  bad = good;
  StoreLE<uint64_t>(bad.data() + 4, 2);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "second bucket missing";

  bad = good;
  PutLE32(&bad, 12, 0x80000000);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "key with the top bit";

  bad = good;
  PutLE32(&bad, 16, 12345);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "cookie";
  bad = good;
  PutLE32(&bad, 20, 70000);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "container count";
  bad = good;
  PutLE32(&bad, 28, 17);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "container offset";
  bad = good;
  PutLE16(&bad, 32, 9);
  PutLE16(&bad, 34, 0);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "array values descending";
  bad = good;
  PutLE16(&bad, 34, 0);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "array value repeated";

  EXPECT_EQ(CodeOf(good + '\0'), StatusCode::kCorrupt) << "trailing byte";
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(CodeOf(good.substr(0, n)), StatusCode::kCorrupt) << "truncated to " << n;
  }
}

TEST(RowBitmapTest, BucketOrder) {
  std::string two = RowBitmap::Of({1, k32 + 1}).SerializePortable();
  // Buckets: key 0 at 12, its bitmap at 16 (8 + 4 + 4 + 2 bytes), then key 1 at 34.
  ASSERT_EQ(LoadLE<uint32_t>(two.data() + 34), 1u);
  std::string bad = two;
  PutLE32(&bad, 34, 0);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "repeated key";
  EXPECT_NE(RowBitmap::DeserializePortable(bad).status().message().find("byte 34"),
            std::string::npos);
}

TEST(RowBitmapTest, ContainerCorruption) {
  // Two containers in one bucket: keys at 24 and 28.
  std::string two = RowBitmap::Of({5, 65536 + 5}).SerializePortable();
  ASSERT_EQ(LoadLE<uint16_t>(two.data() + 28), 1u);
  PutLE16(&two, 28, 0);
  EXPECT_EQ(CodeOf(two), StatusCode::kCorrupt) << "container keys";

  // Run containers: cookie 12347 (count - 1 in the high half), flags, header, runs.
  RowBitmap runs;
  runs.AddRange(0, 10);
  runs.AddRange(20, 30);
  const std::string good = runs.SerializePortable();
  ASSERT_EQ(LoadLE<uint16_t>(good.data() + 16), 12347u);
  ASSERT_EQ(CodeOf(good), StatusCode::kOk);
  // 16 cookie, 20 flags, 21 key, 23 cardinality - 1, 25 run count, 27 runs (start, length - 1).
  ASSERT_EQ(LoadLE<uint16_t>(good.data() + 25), 2u);
  std::string bad = good;
  PutLE16(&bad, 31, 5);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "overlapping runs";
  bad = good;
  PutLE16(&bad, 31, 65530);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "run past 65535";
  bad = good;
  PutLE16(&bad, 23, 5);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "run cardinality";
  bad = good;
  PutLE16(&bad, 25, 60000);
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "run count past the end";

  // A bitset container: every other row of the first 20000.
  RowBitmap dense;
  for (uint64_t r = 0; r < 20000; r += 2) dense.Add(r);
  const std::string bitset = dense.SerializePortable();
  ASSERT_EQ(bitset.size(), 32u + 8192u);
  ASSERT_EQ(CodeOf(bitset), StatusCode::kOk);
  bad = bitset;
  bad[32] = '\x57';
  EXPECT_EQ(CodeOf(bad), StatusCode::kCorrupt) << "bitset popcount";
}

// Random damage to valid serializations: the result is an error or a consistent bitmap.
TEST(RowBitmapTest, MutationsNeverCrash) {
  std::mt19937 rng(7);
  RowBitmap dense;
  for (uint64_t r = 0; r < 9000; r += 2) dense.Add(r);
  RowBitmap runs;
  runs.AddRange(100, 5000);
  runs.AddRange(k32, k32 + 70000);
  std::vector<std::string> seeds = {
      RowBitmap::Of({0, 9}).SerializePortable(),
      RowBitmap::Of({1, 2, 65536 * 3, k32 + 5, 6 * k32}).SerializePortable(),
      runs.SerializePortable(), dense.SerializePortable()};
  int ok = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string bytes = seeds[i % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 3) {
        case 0:
          bytes[at] = static_cast<char>(rng());
          break;
        case 1:
          bytes[at] ^= static_cast<char>(1 << (rng() % 8));
          break;
        default:
          bytes.resize(at);
      }
      if (bytes.empty()) break;
    }
    Result<RowBitmap> r = RowBitmap::Deserialize(bytes);
    if (!r.ok()) {
      EXPECT_TRUE(r.status().code() == StatusCode::kCorrupt ||
                  r.status().code() == StatusCode::kNotSupported)
          << r.status().ToString();
      continue;
    }
    ++ok;
    EXPECT_EQ(r->ToVector().size(), r->Cardinality());
    EXPECT_EQ(RoundTrip(*r), *r);
  }
  EXPECT_LT(ok, 4000);
}

}  // namespace
}  // namespace cdclake::delta
