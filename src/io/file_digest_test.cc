// FileDigest: equal bytes give equal digests, one changed byte or a different length another,
// across the reader's chunk boundary too; a file shorter than asked is an error.
#include "io/file_digest.h"

#include <gtest/gtest.h>

#include "io/memory_file_system.h"

namespace cdclake::io {
namespace {

TEST(FileDigestTest, EqualBytesEqualDigestsAndAnyChangeAnother) {
  MemoryFileSystem fs;
  std::string big(9 << 20, 'x');  // over two of the reader's 4 MiB chunks
  for (size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(fs.WriteFile("a", big).ok());
  ASSERT_TRUE(fs.WriteFile("b", big).ok());
  auto a = FileDigest(fs, "a", big.size());
  auto b = FileDigest(fs, "b", big.size());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->size(), 5u + 32u);
  EXPECT_EQ(a->rfind("xxh3:", 0), 0u);

  std::string changed = big;
  changed[(4 << 20) + 1] ^= 1;  // one bit, just past the first chunk
  ASSERT_TRUE(fs.WriteFile("c", changed).ok());
  auto c = FileDigest(fs, "c", changed.size());
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*c, *a);

  // The digest of a prefix is that of a file holding just the prefix, and not the whole's.
  ASSERT_TRUE(fs.WriteFile("p", big.substr(0, 5 << 20)).ok());
  auto prefix = FileDigest(fs, "a", 5 << 20);
  auto p = FileDigest(fs, "p", 5 << 20);
  ASSERT_TRUE(prefix.ok() && p.ok());
  EXPECT_EQ(*prefix, *p);
  EXPECT_NE(*prefix, *a);

  ASSERT_TRUE(fs.WriteFile("e", "").ok());
  auto empty = FileDigest(fs, "e", 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_NE(*empty, *a);
}

TEST(FileDigestTest, AFileShorterThanAskedIsAnError) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("short.bin", "abc").ok());
  auto d = FileDigest(fs, "short.bin", 4);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(d.status().message().find("short.bin"), std::string::npos) << d.status().ToString();
  EXPECT_FALSE(FileDigest(fs, "missing", 1).ok());
}

}  // namespace
}  // namespace cdclake::io
