#include "change/row_origins.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace cdclake::change {
namespace {

bool Same(const SourcePosition& a, const SourcePosition& b) {
  return a.file == b.file && a.line == b.line && a.byte_offset == b.byte_offset &&
         a.byte_end == b.byte_end;
}

// The packed lists against plain vectors, through random adds, keeps and splits.
TEST(RowOriginsTest, MatchPlainVectorsThroughRandomEdits) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    PositionList positions;
    RawTexts raw;
    std::vector<SourcePosition> plain_positions;
    std::vector<std::string> plain_raw;
    // Up to 40 files so that both the searched and the mapped look-ups are used; names short
    // enough to live inside their std::string, which a reallocation moves.
    const int files = 1 + static_cast<int>(rng() % 40);
    const int rows = static_cast<int>(rng() % 3000);
    for (int r = 0; r < rows; ++r) {
      SourcePosition p;
      if (rng() % 10 != 0) p.file = "f" + std::to_string(rng() % files);
      p.line = r + 1;
      p.byte_offset = static_cast<int64_t>(rng() % 100000);
      p.byte_end = p.byte_offset + 5;
      std::string text(rng() % 7 == 0 ? 0 : rng() % 300, static_cast<char>('a' + r % 26));
      if (rng() % 500 == 0) text.assign((1 << 20) + 17, 'x');  // larger than a block
      positions.push_back(p);
      raw.push_back(text);
      plain_positions.push_back(p);
      plain_raw.push_back(text);
    }
    std::vector<int64_t> keep;
    for (int r = 0; r < rows + 5; ++r) {
      if (rng() % 3 != 0) keep.push_back(r);  // past the end too: skipped
    }
    positions.Keep(keep);
    raw.Keep(keep);
    std::vector<SourcePosition> kept_positions;
    std::vector<std::string> kept_raw;
    for (int64_t k : keep) {
      if (k < rows) {
        kept_positions.push_back(plain_positions[static_cast<size_t>(k)]);
        kept_raw.push_back(plain_raw[static_cast<size_t>(k)]);
      }
    }
    const size_t front = kept_positions.empty() ? 0 : rng() % (kept_positions.size() + 1);
    PositionList head = positions.TakeFront(front);
    RawTexts head_raw = raw.TakeFront(front);
    ASSERT_EQ(head.size(), front);
    ASSERT_EQ(positions.size() + front, kept_positions.size());
    ASSERT_EQ(raw.size() + front, kept_raw.size());
    PositionList joined = head;
    joined.Append(positions);
    RawTexts joined_raw = head_raw;
    joined_raw.Append(raw);
    ASSERT_EQ(joined.size(), kept_positions.size());
    for (size_t i = 0; i < kept_positions.size(); ++i) {
      ASSERT_TRUE(Same(joined[i], kept_positions[i])) << "round " << round << " row " << i;
      ASSERT_EQ(joined.file(i), kept_positions[i].file);
      ASSERT_EQ(joined.byte_offset(i), kept_positions[i].byte_offset);
    }
    EXPECT_EQ(joined_raw, kept_raw);
  }
}

TEST(RowOriginsTest, SetResizeAndIteration) {
  PositionList p{{"a.json", 1, 0, 10}, {"b.json", 2, 10, 20}};
  p.resize(3);
  EXPECT_TRUE(Same(p[2], SourcePosition{}));
  p.Set(0, SourcePosition{"c.json", 9, 8, 7});
  std::vector<std::string> files;
  for (const SourcePosition& q : p) files.push_back(q.file);
  EXPECT_EQ(files, (std::vector<std::string>{"c.json", "b.json", ""}));
  EXPECT_EQ(p.back().file, "");

  RawTexts raw{"x", "", "yz"};
  RawTexts copy = raw;
  raw.clear();
  raw.AddEmpty(2);
  EXPECT_EQ(copy, (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_EQ(raw, (std::vector<std::string>{"", ""}));
}

TEST(RowOriginsTest, AppendToItselfDoublesTheList) {
  PositionList p{{"a", 1, 2, 3}, {"b", 4, 5, 6}};
  p.Append(p);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_TRUE(Same(p[3], SourcePosition{"b", 4, 5, 6}));
  RawTexts raw{"one", "two"};
  raw.Append(raw);
  EXPECT_EQ(raw, (std::vector<std::string>{"one", "two", "one", "two"}));
}

TEST(RowOriginsTest, AppendingAMovedListTakesItsTextsOver) {
  RawTexts a{"one", "", "two"};
  RawTexts b{"three", ""};
  std::string big(5000, 'x');  // past the first block: `b` holds two blocks
  b.push_back(big);
  a.Append(std::move(b));
  EXPECT_TRUE(b.empty());
  a.push_back("four");  // goes on in the last block taken over
  RawTexts empty;
  a.Append(std::move(empty));
  RawTexts none;
  none.Append(std::move(a));
  EXPECT_EQ(none, (std::vector<std::string>{"one", "", "two", "three", "", big, "four"}));
}

// Texts left in their files keep their length and digest through every way a list is copied,
// appended, kept and split, and read as no text through operator[].
TEST(RowOriginsTest, InFileEntriesSurviveEveryEdit) {
  RawTexts a{"one"};
  a.AddInFile(5, 0x1234);
  a.push_back("three");
  EXPECT_FALSE(a.in_file(0));
  ASSERT_TRUE(a.in_file(1));
  EXPECT_EQ(a[1], "");
  RawTexts b;
  b.AddInFile(9, 0x99);
  b.Append(std::move(a));  // blocks renumbered, the in-file entry untouched
  ASSERT_EQ(b.size(), 4u);
  EXPECT_TRUE(b.in_file(0));
  EXPECT_TRUE(b.in_file(2));
  EXPECT_EQ(b.in_file_length(2), 5u);
  EXPECT_EQ(b.in_file_digest(2), 0x1234u);
  EXPECT_EQ(b[1], "one");
  EXPECT_EQ(b[3], "three");
  RawTexts copy = b;
  copy.Append(copy);
  ASSERT_EQ(copy.size(), 8u);
  EXPECT_TRUE(copy.in_file(6));
  EXPECT_EQ(copy.in_file_digest(6), 0x1234u);
  EXPECT_EQ(copy[7], "three");
  copy.Keep({2, 3, 4});
  ASSERT_EQ(copy.size(), 3u);
  EXPECT_TRUE(copy.in_file(0));
  EXPECT_EQ(copy.in_file_length(0), 5u);
  EXPECT_EQ(copy[1], "three");
  EXPECT_EQ(copy.in_file_length(2), 9u);
  RawTexts front = copy.TakeFront(1);
  EXPECT_TRUE(front.in_file(0));
  EXPECT_EQ(front.in_file_digest(0), 0x1234u);
  EXPECT_FALSE(copy.in_file(0));
  EXPECT_TRUE(copy.in_file(1));
  RawTexts one;
  one.AddFrom(copy, 1);
  one.AddFrom(copy, 0);
  EXPECT_TRUE(one.in_file(0));
  EXPECT_EQ(one.in_file_digest(0), 0x99u);
  EXPECT_EQ(one[1], "three");
  // Lists compare by the entries in files too.
  RawTexts x, y;
  x.AddInFile(5, 1);
  y.AddInFile(5, 2);
  EXPECT_FALSE(x == y);
  y = x;
  EXPECT_TRUE(x == y);
  EXPECT_EQ(x.ToStrings(), (std::vector<std::string>{"(in file: 5 bytes, digest 1)"}));
}

}  // namespace
}  // namespace cdclake::change
