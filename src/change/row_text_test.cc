#include "change/row_text.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "change/change_batch.h"
#include "data/record_batch.h"
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
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,BO\n").ok());  // rewritten: the digest differs
  EXPECT_EQ(RowText(TwoRows(fs), 1), "");
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,an").ok());  // too short now
  EXPECT_EQ(RowText(TwoRows(fs), 1), "");
  ASSERT_TRUE(fs.Delete("in/a.csv").ok());
  ChangeBatch batch = TwoRows(fs);
  EXPECT_EQ(RowText(batch, 1), "");
  EXPECT_EQ(RowText(batch, 0), "1,ann");  // a kept text needs no file
  ASSERT_TRUE(fs.WriteFile("in/a.csv", "1,ann\n2,bo\n").ok());
  batch = TwoRows(fs);
  batch.text_source = nullptr;  // a batch that does not say where from
  EXPECT_EQ(RowText(batch, 1), "");
  // With no text, the quarantine's form is the row's values.
  batch.rows = data::RecordBatch(data::Schema(
      {{"id", data::DataType::Int64(), true}, {"name", data::DataType::String(), true}}));
  batch.rows.AppendRow({data::Value::Int(1), data::Value::Bytes("ann")});
  batch.rows.AppendRow({data::Value::Int(2), data::Value::Bytes("bo")});
  EXPECT_EQ(RowTextOrJson(batch, 1), R"({"id":2,"name":"bo"})");
  EXPECT_EQ(RowTextOrJson(batch, 0), "1,ann");
}

// Many rows of a file read back in any order, through the window: each gets its own bytes, and
// a file removed after it was opened still gives the bytes it had (the digest says they are the
// row's).
TEST(RowTextTest, ManyRowsInAnyOrder) {
  io::MemoryFileSystem fs;
  std::string text;
  ChangeBatch batch;
  std::vector<std::string> lines;
  for (int i = 0; i < 5000; ++i) {
    std::string line = std::to_string(i) + "," + std::string(static_cast<size_t>(i % 97), 'x');
    batch.positions.Add("big.csv", i + 1, static_cast<int64_t>(text.size()),
                        static_cast<int64_t>(text.size() + line.size() + 1));
    batch.raw.AddInFile(line.size(), RowTextDigest(line));
    text += line + "\n";
    lines.push_back(std::move(line));
  }
  ASSERT_TRUE(fs.WriteFile("big.csv", text).ok());
  batch.text_source = std::make_shared<RowTextSource>(fs);
  for (size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(RowText(batch, i), lines[i]) << i;
  for (size_t i = lines.size(); i-- > 0;) ASSERT_EQ(RowText(batch, i), lines[i]) << i;
  for (size_t i = 0; i < lines.size(); i += 7) {
    const size_t j = (i * 7919) % lines.size();
    ASSERT_EQ(RowText(batch, j), lines[j]) << j;
  }
  ASSERT_TRUE(fs.Delete("big.csv").ok());
  EXPECT_EQ(RowText(batch, 4999), lines[4999]);
}

}  // namespace
}  // namespace cdclake::change
