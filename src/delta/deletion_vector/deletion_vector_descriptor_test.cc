// Deletion vector descriptors: ids and paths as the spec derives them, write-then-load round
// trips through MemoryFileSystem (file and inline), and damaged files and descriptors.
#include "delta/deletion_vector/deletion_vector_descriptor.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "delta/deletion_vector/z85.h"
#include "io/memory_file_system.h"

namespace cdclake::delta {
namespace {

constexpr uint64_t k32 = uint64_t{1} << 32;
const std::string kRoot = "/tables/t";

DeletionVectorDescriptor Dv(std::string type, std::string path, std::optional<int32_t> offset = {},
                            int32_t size = 0, int64_t cardinality = 0) {
  DeletionVectorDescriptor dv;
  dv.storage_type = std::move(type);
  dv.path_or_inline_dv = std::move(path);
  dv.offset = offset;
  dv.size_in_bytes = size;
  dv.cardinality = cardinality;
  return dv;
}

RowBitmap RandomBitmap(std::mt19937_64& rng) {
  RowBitmap b;
  const int n = static_cast<int>(rng() % 500);
  for (int i = 0; i < n; ++i) b.Add((rng() % 3) * k32 + rng() % 100000);
  if (rng() % 2) {
    const uint64_t begin = rng() % 1000000;
    b.AddRange(begin, begin + rng() % 100000);
  }
  return b;
}

TEST(DeletionVectorDescriptorTest, UniqueId) {
  EXPECT_EQ(Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 4).UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
  EXPECT_EQ(Dv("i", "wi5b=").UniqueId(), "iwi5b=");
  EXPECT_EQ(Dv("p", "/x.bin", 0).UniqueId(), "p/x.bin@0");
}

TEST(DeletionVectorDescriptorTest, UuidPaths) {
  // PROTOCOL.md JSON Example 1.
  Result<std::string> path = AbsoluteDvPath(Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 4), "s3://mytable/");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, "s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
  path = AbsoluteDvPath(Dv("u", "vBn[lx{q8@P<9BNH/isA", 1), kRoot);
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, kRoot + "/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");

  for (const char* bad : {"", "short", "^-aqEH.-t@S}K{vb[*k~", "../^-aqEH.-t@S}K{vb[*k^",
                          "a/../^-aqEH.-t@S}K{vb[*k^", "/ab^-aqEH.-t@S}K{vb[*k^"}) {
    Result<std::string> r = AbsoluteDvPath(Dv("u", bad, 1), kRoot);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << bad;
  }
  // ".." inside a name is fine.
  EXPECT_TRUE(AbsoluteDvPath(Dv("u", "a..b/^-aqEH.-t@S}K{vb[*k^", 1), kRoot).ok());
}

TEST(DeletionVectorDescriptorTest, AbsolutePaths) {
  struct Case {
    const char* text;
    const char* path;
  };
  for (const Case& c : {Case{"/data/t/deletion_vector_x.bin", "/data/t/deletion_vector_x.bin"},
                        Case{"file:///data/a%20b/dv.bin", "/data/a b/dv.bin"},
                        Case{"file:/data/dv.bin", "/data/dv.bin"},
                        Case{"FILE://localhost/data/dv.bin", "/data/dv.bin"},
                        Case{"/data/100%25.bin", "/data/100%.bin"}}) {
    Result<std::string> r = AbsoluteDvPath(Dv("p", c.text, 4), kRoot);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.path);
  }
  Result<std::string> s3 = AbsoluteDvPath(Dv("p", "s3://mytable/deletion_vector_x.bin", 4), kRoot);
  ASSERT_FALSE(s3.ok());
  EXPECT_EQ(s3.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(s3.status().message().find("deletion vector storage scheme 's3'"), std::string::npos);
  EXPECT_EQ(AbsoluteDvPath(Dv("p", "file://host/x.bin"), kRoot).status().code(),
            StatusCode::kNotSupported);
  EXPECT_EQ(AbsoluteDvPath(Dv("p", "relative/x.bin"), kRoot).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(AbsoluteDvPath(Dv("p", "/x%2"), kRoot).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(AbsoluteDvPath(Dv("p", "/x%zz"), kRoot).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(AbsoluteDvPath(Dv("i", "0000"), kRoot).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AbsoluteDvPath(Dv("x", "0000"), kRoot).status().code(), StatusCode::kNotSupported);
}

TEST(DeletionVectorDescriptorTest, FileRoundTrip) {
  io::MemoryFileSystem fs;
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 10; ++trial) {
    const RowBitmap bitmap = RandomBitmap(rng);
    Result<DeletionVectorDescriptor> dv = WriteDeletionVectorFile(fs, kRoot, bitmap);
    ASSERT_TRUE(dv.ok()) << dv.status().ToString();
    EXPECT_EQ(dv->storage_type, "u");
    ASSERT_EQ(dv->path_or_inline_dv.size(), 20u);
    EXPECT_EQ(dv->offset, 1);
    EXPECT_EQ(dv->size_in_bytes, static_cast<int32_t>(bitmap.SerializePortable().size()));
    EXPECT_EQ(dv->cardinality, static_cast<int64_t>(bitmap.Cardinality()));

    Result<std::string> path = AbsoluteDvPath(*dv, kRoot);
    ASSERT_TRUE(path.ok());
    Result<std::string> file = fs.ReadFile(*path);
    ASSERT_TRUE(file.ok()) << *path;
    EXPECT_EQ(file->size(), 1 + 4 + static_cast<size_t>(dv->size_in_bytes) + 4);
    EXPECT_EQ((*file)[0], '\x01');
    // A version-4 RFC 4122 UUID.
    const std::string uuid = *Z85Decode(dv->path_or_inline_dv);
    EXPECT_EQ(static_cast<uint8_t>(uuid[6]) >> 4, 4);
    EXPECT_EQ(static_cast<uint8_t>(uuid[8]) >> 6, 2);

    Result<RowBitmap> loaded = LoadDeletionVector(fs, kRoot, *dv);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(*loaded, bitmap);
  }
  Result<std::vector<io::FileInfo>> files = fs.List(kRoot);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 10u) << "every write makes a new file";
}

TEST(DeletionVectorDescriptorTest, SeveralBitmapsInOneFile) {
  io::MemoryFileSystem fs;
  const RowBitmap a = RowBitmap::Of({0, 9});
  const RowBitmap empty;
  RowBitmap c;
  c.AddRange(k32 - 100, k32 + 100);
  Result<std::vector<DeletionVectorDescriptor>> dvs =
      WriteDeletionVectorFile(fs, kRoot, {&a, &empty, &c});
  ASSERT_TRUE(dvs.ok()) << dvs.status().ToString();
  ASSERT_EQ(dvs->size(), 3u);
  EXPECT_EQ((*dvs)[0].offset, 1);
  EXPECT_EQ((*dvs)[1].offset, 1 + 4 + 36 + 4);
  EXPECT_EQ((*dvs)[2].offset, *(*dvs)[1].offset + 4 + 12 + 4);
  EXPECT_EQ((*dvs)[0].path_or_inline_dv, (*dvs)[2].path_or_inline_dv);
  EXPECT_NE((*dvs)[0].UniqueId(), (*dvs)[2].UniqueId());
  const RowBitmap* expected[] = {&a, &empty, &c};
  for (size_t i = 0; i < 3; ++i) {
    Result<RowBitmap> loaded = LoadDeletionVector(fs, kRoot, (*dvs)[i]);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(*loaded, *expected[i]);
  }
  EXPECT_EQ(WriteDeletionVectorFile(fs, kRoot, std::vector<const RowBitmap*>{}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteDeletionVectorFile(fs, kRoot, {&a, nullptr}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DeletionVectorDescriptorTest, WriteFailurePropagates) {
  io::MemoryFileSystem fs;
  fs.FailAfter(0);
  Result<DeletionVectorDescriptor> dv = WriteDeletionVectorFile(fs, kRoot, RowBitmap::Of({1}));
  ASSERT_FALSE(dv.ok());
  EXPECT_EQ(dv.status().code(), StatusCode::kIoError);
}

TEST(DeletionVectorDescriptorTest, InlineRoundTrip) {
  io::MemoryFileSystem fs;
  std::mt19937_64 rng(2);
  std::vector<RowBitmap> bitmaps = {RowBitmap(), RowBitmap::Of({0, 9}), RowBitmap::Of({5}),
                                    RowBitmap::Of({1, 2, 3, k32})};
  for (int i = 0; i < 10; ++i) bitmaps.push_back(RandomBitmap(rng));
  for (const RowBitmap& bitmap : bitmaps) {
    const DeletionVectorDescriptor dv = InlineDeletionVector(bitmap);
    EXPECT_EQ(dv.storage_type, "i");
    EXPECT_FALSE(dv.offset.has_value());
    EXPECT_EQ(dv.size_in_bytes, static_cast<int32_t>(bitmap.SerializePortable().size()));
    EXPECT_EQ(dv.path_or_inline_dv.size(), (static_cast<size_t>(dv.size_in_bytes) + 3) / 4 * 5);
    EXPECT_EQ(dv.cardinality, static_cast<int64_t>(bitmap.Cardinality()));
    Result<RowBitmap> loaded = LoadDeletionVector(fs, kRoot, dv);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(*loaded, bitmap);
  }
  // {5}: 34 bytes, padded to 36 for Z85.
  EXPECT_EQ(InlineDeletionVector(RowBitmap::Of({5})).size_in_bytes, 34);
}

TEST(DeletionVectorDescriptorTest, InlineLegacyExampleFromTheSpec) {
  io::MemoryFileSystem fs;
  Result<RowBitmap> loaded = LoadDeletionVector(
      fs, kRoot, Dv("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", {}, 40, 6));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->ToVector(), (std::vector<uint64_t>{3, 4, 7, 11, 18, 29}));
}

TEST(DeletionVectorDescriptorTest, DamagedInline) {
  io::MemoryFileSystem fs;
  const DeletionVectorDescriptor good = InlineDeletionVector(RowBitmap::Of({5}));  // 34 bytes
  ASSERT_TRUE(LoadDeletionVector(fs, kRoot, good).ok());
  auto code = [&fs](const DeletionVectorDescriptor& dv) {
    return LoadDeletionVector(fs, kRoot, dv).status().code();
  };
  DeletionVectorDescriptor bad = good;
  bad.path_or_inline_dv[3] = '~';
  EXPECT_EQ(code(bad), StatusCode::kCorrupt) << "Z85 character";
  bad = good;
  bad.path_or_inline_dv.pop_back();
  EXPECT_EQ(code(bad), StatusCode::kCorrupt) << "Z85 length";
  for (int32_t size : {-1, 0, 32, 33, 35, 36, 37}) {
    bad = good;
    bad.size_in_bytes = size;
    EXPECT_EQ(code(bad), StatusCode::kCorrupt) << "size " << size;
  }
  bad = good;
  bad.cardinality = 2;
  EXPECT_EQ(code(bad), StatusCode::kCorrupt) << "cardinality";
  bad = good;
  bad.path_or_inline_dv = "00000" + good.path_or_inline_dv.substr(5);  // magic zeroed
  EXPECT_EQ(code(bad), StatusCode::kCorrupt) << "magic";
}

class DamagedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RowBitmap bitmap = RowBitmap::Of({1, 4, 9, k32 + 2});
    Result<DeletionVectorDescriptor> dv = WriteDeletionVectorFile(fs_, kRoot, bitmap);
    ASSERT_TRUE(dv.ok());
    dv_ = *dv;
    path_ = *AbsoluteDvPath(dv_, kRoot);
    file_ = *fs_.ReadFile(path_);
  }
  StatusCode LoadWith(const std::string& file, const DeletionVectorDescriptor& dv) {
    EXPECT_TRUE(fs_.WriteFile(path_, file).ok());
    Result<RowBitmap> r = LoadDeletionVector(fs_, kRoot, dv);
    if (!r.ok() && r.status().code() == StatusCode::kCorrupt) {
      EXPECT_NE(r.status().message().find(path_), std::string::npos) << r.status().ToString();
    }
    return r.ok() ? StatusCode::kOk : r.status().code();
  }
  StatusCode LoadWith(const std::string& file) { return LoadWith(file, dv_); }

  io::MemoryFileSystem fs_;
  DeletionVectorDescriptor dv_;
  std::string path_;
  std::string file_;
};

TEST_F(DamagedFileTest, GoodFileLoads) {
  EXPECT_EQ(LoadWith(file_), StatusCode::kOk);
}

TEST_F(DamagedFileTest, EveryTruncationIsCorrupt) {
  for (size_t n = 0; n < file_.size(); ++n) {
    EXPECT_EQ(LoadWith(file_.substr(0, n)), StatusCode::kCorrupt) << n;
  }
}

TEST_F(DamagedFileTest, EveryBitFlipIsCaught) {
  // The version byte, the size, the CRC and the bitmap (by its CRC) are all checked.
  for (size_t at = 0; at < file_.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = file_;
      bad[at] ^= static_cast<char>(1 << bit);
      EXPECT_EQ(LoadWith(bad), StatusCode::kCorrupt) << at << ":" << bit;
    }
  }
}

TEST_F(DamagedFileTest, BadCrcNamed) {
  std::string bad = file_;
  bad.back() ^= 1;
  ASSERT_TRUE(fs_.WriteFile(path_, bad).ok());
  Result<RowBitmap> r = LoadDeletionVector(fs_, kRoot, dv_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CRC-32"), std::string::npos) << r.status().ToString();
}

TEST_F(DamagedFileTest, BadBitmapWithGoodCrc) {
  // A bitmap whose magic is wrong, under a CRC that matches it.
  std::string bad = file_;
  bad[5] ^= 0x40;
  const size_t size = static_cast<size_t>(dv_.size_in_bytes);
  const uint32_t crc = Crc32(std::string_view(bad).substr(5, size));
  for (int i = 0; i < 4; ++i) bad[5 + size + i] = static_cast<char>(crc >> (24 - 8 * i));
  ASSERT_TRUE(fs_.WriteFile(path_, bad).ok());
  Result<RowBitmap> r = LoadDeletionVector(fs_, kRoot, dv_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(r.status().message().find("magic"), std::string::npos) << r.status().ToString();
}

TEST_F(DamagedFileTest, DescriptorDisagreesWithFile) {
  DeletionVectorDescriptor dv = dv_;
  dv.size_in_bytes += 2;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "size past the end";
  dv = dv_;
  dv.size_in_bytes -= 2;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "smaller size";
  dv = dv_;
  dv.cardinality = 3;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "cardinality";
  dv = dv_;
  dv.offset = 0;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "offset 0";
  dv.offset.reset();
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "absent offset reads as 0";
  dv.offset = 2;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "offset 2";
  dv.offset = 1 << 30;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "offset past the end";
  dv.offset = -1;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "negative offset";
  dv = dv_;
  dv.size_in_bytes = -8;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "negative size";
  dv = dv_;
  dv.size_in_bytes = INT32_MAX;
  EXPECT_EQ(LoadWith(file_, dv), StatusCode::kCorrupt) << "huge size";
}

TEST_F(DamagedFileTest, MissingFile) {
  ASSERT_TRUE(fs_.Delete(path_).ok());
  EXPECT_EQ(LoadDeletionVector(fs_, kRoot, dv_).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace cdclake::delta
