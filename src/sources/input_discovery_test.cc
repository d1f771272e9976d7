// Tests for input discovery: glob matching, folders, hidden names, order, and missing inputs.
#include "sources/input_discovery.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/memory_file_system.h"

namespace cdclake::sources {
namespace {

using Files = std::vector<std::string>;

TEST(GlobMatchTest, StarAndQuestionStayWithinAPart) {
  EXPECT_TRUE(GlobMatch("in/*.json", "in/a.json"));
  EXPECT_TRUE(GlobMatch("in/*.json", "in/.json"));
  EXPECT_FALSE(GlobMatch("in/*.json", "in/sub/a.json"));
  EXPECT_FALSE(GlobMatch("in/*.json", "in/a.jsonl"));
  EXPECT_TRUE(GlobMatch("in/a?c", "in/abc"));
  EXPECT_FALSE(GlobMatch("in/a?c", "in/ac"));
  EXPECT_FALSE(GlobMatch("a?b", "a/b"));
  EXPECT_TRUE(GlobMatch("*a*b*", "xxaYYbZ"));
  EXPECT_FALSE(GlobMatch("*a*b*", "xxbYYaZ"));
}

TEST(GlobMatchTest, Brackets) {
  EXPECT_TRUE(GlobMatch("part-[0-9].csv", "part-7.csv"));
  EXPECT_FALSE(GlobMatch("part-[0-9].csv", "part-x.csv"));
  EXPECT_TRUE(GlobMatch("part-[!0-9].csv", "part-x.csv"));
  EXPECT_FALSE(GlobMatch("part-[^0-9].csv", "part-3.csv"));
  EXPECT_TRUE(GlobMatch("[ab]c", "bc"));
  EXPECT_TRUE(GlobMatch("[]]x", "]x"));
  // An unclosed bracket is a plain character.
  EXPECT_TRUE(GlobMatch("a[b", "a[b"));
  EXPECT_FALSE(GlobMatch("a[b", "ab"));
}

TEST(GlobMatchTest, DoubleStarSpansFolders) {
  EXPECT_TRUE(GlobMatch("in/**/*.json", "in/a.json"));
  EXPECT_TRUE(GlobMatch("in/**/*.json", "in/p=1/x/a.json"));
  EXPECT_FALSE(GlobMatch("in/**/*.json", "out/a.json"));
  EXPECT_TRUE(GlobMatch("**", "a/b/c"));
  EXPECT_TRUE(GlobMatch("/data/**/x", "/data/x"));
  EXPECT_FALSE(GlobMatch("/data/**/x", "data/x"));
}

class DiscoverInputsTest : public ::testing::Test {
 protected:
  void Put(const std::string& path) { ASSERT_TRUE(fs_.WriteFile(path, "x\n").ok()) << path; }

  Files Discover(const std::string& pattern) {
    auto listing = DiscoverInputs(fs_, pattern);
    EXPECT_TRUE(listing.ok()) << pattern << ": " << listing.status().ToString();
    return listing.ok() ? listing->files : Files{"<error>"};
  }

  io::MemoryFileSystem fs_;
};

TEST_F(DiscoverInputsTest, AFolderIsItsVisibleFilesSortedBytewise) {
  Put("s/b.json");
  Put("s/a.json");
  Put("s/B.json");
  Put("s/_SUCCESS");
  Put("s/.a.json.crc");
  Put("s/sub/c.json");
  Put("s/\xc3\xa9.json");  // sorts after every ASCII name
  EXPECT_EQ(Discover("s"), (Files{"s/B.json", "s/a.json", "s/b.json", "s/\xc3\xa9.json"}));
  EXPECT_EQ(Discover("s/"), Discover("s"));
  auto listing = DiscoverInputs(fs_, "s");
  ASSERT_TRUE(listing.ok());
  EXPECT_FALSE(listing->named_file);
}

TEST_F(DiscoverInputsTest, APlainFileIsItself) {
  Put("s/_odd.csv");
  auto listing = DiscoverInputs(fs_, "s/_odd.csv");
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_EQ(listing->files, Files{"s/_odd.csv"});
  EXPECT_TRUE(listing->named_file);
}

TEST_F(DiscoverInputsTest, GlobsWalkOnlyTheFoldersTheyReach) {
  Put("t/topic/p=0/0001.json");
  Put("t/topic/p=1/0000.json");
  Put("t/topic/p=1/_tmp/0002.json");
  Put("t/topic/p=1/0003.csv");
  Put("t/topic/0009.json");
  Put("t/other/0000.json");
  EXPECT_EQ(Discover("t/topic/*/*.json"),
            (Files{"t/topic/p=0/0001.json", "t/topic/p=1/0000.json"}));
  EXPECT_EQ(Discover("t/topic/**/*.json"),
            (Files{"t/topic/0009.json", "t/topic/p=0/0001.json", "t/topic/p=1/0000.json"}));
  EXPECT_EQ(Discover("t/*/p=1/00?[0-9].*"),
            (Files{"t/topic/p=1/0000.json", "t/topic/p=1/0003.csv"}));
  EXPECT_EQ(Discover("t/topic/**"), (Files{"t/topic/0009.json", "t/topic/p=0/0001.json",
                                           "t/topic/p=1/0000.json", "t/topic/p=1/0003.csv"}));
  // A part naming a hidden folder itself reaches into it.
  EXPECT_EQ(Discover("t/topic/p=1/_tmp/*"), Files{"t/topic/p=1/_tmp/0002.json"});
  // Relative globs from the current folder.
  EXPECT_EQ(Discover("*/other/*.json"), Files{"t/other/0000.json"});
}

TEST_F(DiscoverInputsTest, NothingMatchingIsEmptyUnlessAMatchIsRequired) {
  Put("s/a.csv");
  EXPECT_EQ(Discover("s/*.json"), Files{});
  EXPECT_EQ(Discover("nosuch/*.json"), Files{});
  auto required = DiscoverInputs(fs_, "s/*.json", /*require_match=*/true);
  ASSERT_FALSE(required.ok());
  EXPECT_EQ(required.status().code(), StatusCode::kNotFound);
  EXPECT_NE(required.status().message().find("s/*.json"), std::string::npos);

  ASSERT_TRUE(fs_.CreateDirs("empty").ok());
  EXPECT_EQ(Discover("empty"), Files{});
  EXPECT_FALSE(DiscoverInputs(fs_, "empty", /*require_match=*/true).ok());
}

TEST_F(DiscoverInputsTest, AMissingPlainPathIsAnError) {
  auto missing = DiscoverInputs(fs_, "no/such.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no/such.csv"), std::string::npos);
}

}  // namespace
}  // namespace cdclake::sources
