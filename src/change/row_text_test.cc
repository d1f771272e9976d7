#include "change/row_text.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "change/change_batch.h"
#include "io/memory_file_system.h"

namespace cdclake::change {
namespace {

// A batch of two rows of "in/a.csv" ("1,ann\n2,bo\n"): the first keeps its text, the second
// leaves it in the file.
ChangeBatch TwoRows(const io::FileSystem& fs) {
  ChangeBatch batch;
  batch.positions.Add("in/a.csv", 2, 0, 6);
  batch.positions.Add("in/a.csv", 3, 6, 11);
  batch.raw.push_back("1,ann");
  batch.raw.AddInFile(4, RowTextDigest("2,bo"));
  batch.text_source = std::make_shared<RowTextSource>(fs);
  return batch;
}

TEST(RowTextTest, KeptTextsAsTheyAreTextsInFilesReadBack) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,bo\n").ok());
  ChangeBatch batch = TwoRows(fs);
  EXPECT_EQ(RowText(batch, 0), "1,ann");
  EXPECT_EQ(RowText(batch, 1), "2,bo");
  EXPECT_EQ(RowText(batch, 2), "");  // no such row
  // Copies and selections carry the entry; the source goes with the batch.
  ChangeBatch copy = batch;
  KeepRows({1}, &copy);
  EXPECT_EQ(RowText(copy, 0), "2,bo");
}

TEST(RowTextTest, NoTextWhenTheFileIsGoneOrHoldsOtherBytes) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,bo\n").ok());
  ChangeBatch batch = TwoRows(fs);
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,BO\n").ok());  // rewritten: the digest differs
  EXPECT_EQ(RowText(batch, 1), "");
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,an").ok());  // too short now
  EXPECT_EQ(RowText(batch, 1), "");
  ASSERT_TRUE(fs.Delete("in/a.csv").ok());
  EXPECT_EQ(RowText(batch, 1), "");
  EXPECT_EQ(RowText(batch, 0), "1,ann");  // a kept text needs no file
  batch.text_source = nullptr;            // a batch that does not say where from
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,bo\n").ok());
  EXPECT_EQ(RowText(batch, 1), "");
}

}  // namespace
}  // namespace cdclake::change
