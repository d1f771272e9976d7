// UnnamedFile: nothing appears in its folder, appends return where they start, reads past the
// end are refused, and a cut moves where the next append lands.
#include "io/unnamed_file.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "io/testing/file_size_limit.h"

namespace cdclake::io {
namespace {

template <typename T>
T ValueOrDie(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

std::string Read(const UnnamedFile& file, int64_t offset, size_t length) {
  std::string out(length, '\0');
  Status read = file.ReadAt(offset, length, out.data());
  EXPECT_TRUE(read.ok()) << read.ToString();
  return out;
}

TEST(UnnamedFileTest, LeavesNoNameInItsFolderWhichItCreates) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  const std::string folder = dir.path() + "/a/b";
  auto file = ValueOrDie(UnnamedFile::Create(folder));
  ASSERT_TRUE(ValueOrDie(file->Append("hello")) == 0);
  auto listed = ValueOrDie(LocalFileSystem().List(folder));
  EXPECT_TRUE(listed.empty()) << listed.size() << " entries, first " << listed.front().path;
  EXPECT_NE(file->name().find(folder), std::string::npos) << file->name();
}

TEST(UnnamedFileTest, AppendsReadBackAtTheirOffsets) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  auto file = ValueOrDie(UnnamedFile::Create(dir.path()));
  std::mt19937 random(7);
  std::string whole;
  std::vector<std::pair<int64_t, std::string>> pieces;
  for (int i = 0; i < 200; ++i) {
    std::string piece(random() % 3000, static_cast<char>('a' + i % 26));
    const int64_t at = ValueOrDie(file->Append(piece));
    EXPECT_EQ(at, static_cast<int64_t>(whole.size()));
    whole += piece;
    pieces.emplace_back(at, std::move(piece));
  }
  EXPECT_EQ(file->size(), static_cast<int64_t>(whole.size()));
  for (const auto& [at, piece] : pieces) EXPECT_EQ(Read(*file, at, piece.size()), piece);
  EXPECT_EQ(Read(*file, 0, whole.size()), whole);
}

TEST(UnnamedFileTest, RefusesReadsPastItsEnd) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  auto file = ValueOrDie(UnnamedFile::Create(dir.path()));
  ASSERT_TRUE(file->Append("0123456789").ok());
  char out[16];
  EXPECT_TRUE(file->ReadAt(0, 10, out).ok());
  Status past = file->ReadAt(5, 6, out);
  EXPECT_EQ(past.code(), StatusCode::kCorrupt) << past.ToString();
  EXPECT_NE(past.ToString().find("past end of an unnamed file in"), std::string::npos)
      << past.ToString();
  EXPECT_EQ(file->ReadAt(-1, 1, out).code(), StatusCode::kCorrupt);
  EXPECT_EQ(file->ReadAt(11, 0, out).code(), StatusCode::kCorrupt);
}

TEST(UnnamedFileTest, AppendsAfterACutLandAtTheNewEnd) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  auto file = ValueOrDie(UnnamedFile::Create(dir.path()));
  ASSERT_TRUE(file->Append(std::string(4096, 'x')).ok());
  ASSERT_TRUE(file->Truncate(100).ok());
  EXPECT_EQ(file->size(), 100);
  EXPECT_EQ(ValueOrDie(file->Append("tail")), 100);
  EXPECT_EQ(Read(*file, 96, 8), "xxxxtail");
  char out[1];
  EXPECT_EQ(file->ReadAt(104, 1, out).code(), StatusCode::kCorrupt);
  ASSERT_TRUE(file->Truncate(0).ok());
  EXPECT_EQ(ValueOrDie(file->Append("again")), 0);
  EXPECT_EQ(Read(*file, 0, 5), "again");
}

// A write refused half way (here by RLIMIT_FSIZE: EFBIG past 1,000 bytes) leaves the end where
// it was, and the next append writes over what the failed one left.
TEST(UnnamedFileTest, AFailedAppendLeavesTheEndWhereItWas) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  auto file = ValueOrDie(UnnamedFile::Create(dir.path()));
  ASSERT_TRUE(file->Append(std::string(800, 'a')).ok());
  Result<int64_t> failed = int64_t{0};
  {
    testing::FileSizeLimit limit(1000);
    if (!limit.set()) GTEST_SKIP() << "RLIMIT_FSIZE cannot be set to 1,000 bytes here";
    failed = file->Append(std::string(500, 'b'));
  }
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kIoError) << failed.status().ToString();
  EXPECT_NE(failed.status().ToString().find("write an unnamed file in"), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(file->size(), 800);
  EXPECT_EQ(ValueOrDie(file->Append("tail")), 800);
  EXPECT_EQ(Read(*file, 796, 8), "aaaatail");
  EXPECT_EQ(file->size(), 804);
}

TEST(UnnamedFileTest, RefusesAnEmptyFolder) {
  auto file = UnnamedFile::Create("", "a spill file");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(file.status().ToString().find("a spill file"), std::string::npos);
}

TEST(UnnamedFileTest, NamesItsFolderWhenItCannotBeMade) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  ASSERT_TRUE(LocalFileSystem().PutIfAbsent(dir.path() + "/plain", "not a folder").ok());
  auto file = UnnamedFile::Create(dir.path() + "/plain/spill");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().ToString().find("plain"), std::string::npos) << file.status().ToString();
}

}  // namespace
}  // namespace cdclake::io
