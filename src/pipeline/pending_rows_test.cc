// Tests for PendingRows: columns gathered across batches, and a batch cut at a row taking the
// rejected records read before that row only.
#include "pipeline/pending_rows.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "change/row_text.h"
#include "data/value.h"
#include "io/memory_file_system.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;

// The raw text of the row at byte offset `at`: one letter, the letter at `at` of Letters().
std::string TextAt(int64_t at) {
  return std::string(1, static_cast<char>('a' + at % 26));
}
const std::string& Letters() {
  static const std::string letters = [] {
    std::string s;
    for (int64_t at = 0; at < 4096; ++at) s += TextAt(at);
    return s;
  }();
  return letters;
}

// Rows with ids at the given byte offsets, and rejected records at others. With `texts_in`,
// the rows leave their texts in their files, read back through that file system.
change::ChangeBatch Batch(const std::vector<int64_t>& row_offsets,
                          const std::vector<int64_t>& rejected_offsets, bool with_name = false,
                          const io::FileSystem* texts_in = nullptr) {
  std::vector<data::Field> fields = {{"id", DataType::Int64(), true}};
  if (with_name) fields.push_back({"name", DataType::String(), true});
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(data::Schema(fields));
  for (int64_t at : row_offsets) {
    std::vector<Value> row = {Value::Int(at)};
    if (with_name) row.push_back(Value::Bytes("n" + std::to_string(at)));
    batch.rows.AppendRow(row);
    batch.positions.push_back({"", 0, at});
    if (texts_in != nullptr) {
      batch.raw.AddInFile(1, change::RowTextDigest(TextAt(at)));
    } else {
      batch.raw.push_back(TextAt(at));
    }
  }
  if (texts_in != nullptr) batch.text_source = std::make_shared<change::RowTextSource>(*texts_in);
  for (int64_t at : rejected_offsets) batch.rejected.push_back({"bad", {"", 0, at}, "why"});
  return batch;
}

std::vector<int64_t> Offsets(const change::ChangeBatch& batch) {
  std::vector<int64_t> out;
  for (const auto& p : batch.positions) out.push_back(p.byte_offset);
  return out;
}

std::vector<int64_t> RejectedOffsets(const change::ChangeBatch& batch) {
  std::vector<int64_t> out;
  for (const auto& r : batch.rejected) out.push_back(r.position.byte_offset);
  return out;
}

TEST(PendingRowsTest, ABatchTakesTheRejectedRecordsReadBeforeItsEnd) {
  PendingRows pending;
  ASSERT_TRUE(pending.Add(Batch({10, 30, 50}, {20, 40, 60}), "a.csv", 0).ok());
  ASSERT_TRUE(pending.Add(Batch({5}, {1, 9}), "b.csv", 1).ok());
  EXPECT_EQ(pending.num_rows(), 4);

  change::ChangeBatch first = pending.Take(2);
  EXPECT_EQ(Offsets(first), (std::vector<int64_t>{10, 30}));
  EXPECT_EQ(RejectedOffsets(first), (std::vector<int64_t>{20, 40}));
  EXPECT_EQ(first.rejected[0].position.file, "a.csv");
  EXPECT_EQ(pending.last_taken().file_index, 0);
  EXPECT_EQ(pending.last_taken().byte_offset, 40);

  // b.csv's record at byte 1 was read before its row at byte 5, so it goes now.
  change::ChangeBatch second = pending.Take(1);
  EXPECT_EQ(Offsets(second), (std::vector<int64_t>{50}));
  EXPECT_EQ(RejectedOffsets(second), (std::vector<int64_t>{60, 1}));
  EXPECT_EQ(pending.last_taken().file_index, 1);
  EXPECT_EQ(pending.last_taken().byte_offset, 1);

  // With no row left, every rejected record goes, and the batch ends at the last of them.
  change::ChangeBatch rest = pending.Take(0);
  EXPECT_EQ(Offsets(rest), (std::vector<int64_t>{5}));
  EXPECT_EQ(RejectedOffsets(rest), (std::vector<int64_t>{9}));
  EXPECT_EQ(rest.positions[0].file, "b.csv");
  EXPECT_EQ(pending.last_taken().file_index, 1);
  EXPECT_EQ(pending.last_taken().byte_offset, 9);
  EXPECT_TRUE(pending.empty());
}

TEST(PendingRowsTest, MissingColumnsAreNullAndTypesMustAgree) {
  PendingRows pending;
  ASSERT_TRUE(pending.Add(Batch({1}, {}), "a.csv", 0).ok());
  ASSERT_TRUE(pending.Add(Batch({2}, {}, /*with_name=*/true), "b.csv", 1).ok());
  change::ChangeBatch all = pending.Take(0);
  ASSERT_EQ(all.rows.num_columns(), 2u);
  EXPECT_TRUE(all.rows.column(1).GetValue(0).is_null());
  EXPECT_EQ(all.rows.column(1).GetValue(1), Value::Bytes("n2"));

  data::Schema other({{"id", DataType::String(), true}});
  EXPECT_FALSE(pending.Accepts(other));
  change::ChangeBatch strings;
  strings.rows = data::RecordBatch(other);
  strings.rows.AppendRow({Value::Bytes("x")});
  Status added = pending.Add(std::move(strings), "c.csv", 2);
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.message().find("c.csv"), std::string::npos);
}

// Many rows from two batches (a file decoded in halves) are joined column by column on two
// threads: every row's id, name (NULL where its batch had no name column), position and text.
TEST(PendingRowsTest, ALargeTakeOfSeveralBatchesKeepsEveryRow) {
  PendingRows pending;
  std::vector<int64_t> first(40000), second(40000);
  for (int64_t i = 0; i < 40000; ++i) {
    first[static_cast<size_t>(i)] = i;
    second[static_cast<size_t>(i)] = 40000 + i;
  }
  ASSERT_TRUE(pending.Add(Batch(first, {}, /*with_name=*/true), "a.json", 0).ok());
  ASSERT_TRUE(pending.Add(Batch(second, {}), "a.json", 0).ok());
  ASSERT_TRUE(pending.Add(Batch({80000, 80001}, {}, /*with_name=*/true), "b.json", 1).ok());
  change::ChangeBatch taken = pending.Take(70000);  // cuts the second batch
  ASSERT_EQ(taken.rows.num_rows(), 70000);
  ASSERT_EQ(taken.rows.num_columns(), 2u);
  ASSERT_EQ(taken.raw.size(), 70000u);
  for (int64_t r = 0; r < 70000; ++r) {
    ASSERT_EQ(taken.rows.column(0).GetValue(r), Value::Int(r));
    const Value name = taken.rows.column(1).GetValue(r);
    if (r < 40000) {
      ASSERT_EQ(name, Value::Bytes("n" + std::to_string(r)));
    } else {
      ASSERT_TRUE(name.is_null()) << r;
    }
    ASSERT_EQ(taken.positions.byte_offset(static_cast<size_t>(r)), r);
    ASSERT_EQ(change::RowText(taken, static_cast<size_t>(r)), TextAt(r));
  }
  change::ChangeBatch rest = pending.Take(0);
  ASSERT_EQ(rest.rows.num_rows(), 10002);
  EXPECT_EQ(rest.rows.column(0).GetValue(10001), Value::Int(80001));
  EXPECT_EQ(rest.rows.column(1).GetValue(10001), Value::Bytes("n80001"));
  EXPECT_TRUE(rest.rows.column(1).GetValue(0).is_null());
}

// Batches of random sizes, some without the name column and some with unchanged marks, taken in
// random amounts: the rows, marks, positions and raw texts come out in read order, whole.
// Small batches are joined up to a chunk's rows (here 0 to 8), larger ones kept whole.
TEST(PendingRowsTest, RandomBatchesAndTakesKeepEveryRowInOrder) {
  std::mt19937 rng(20261204);
  // Every batch's file holds the letters: any batch's rows read their texts back from it.
  io::MemoryFileSystem fs;
  for (int b = 0; b < 12; ++b) ASSERT_TRUE(fs.WriteFile("f" + std::to_string(b), Letters()).ok());
  for (int round = 0; round < 60; ++round) {
    PendingRows pending(round % 9);
    int64_t next = 0;             // offset of the next row added
    int64_t expected = 0;         // offset of the next row taken
    std::vector<int64_t> marked;  // offsets whose name cell is marked unchanged
    for (int b = 0; b < 12; ++b) {
      const auto rows = static_cast<int64_t>(rng() % 7);
      const bool with_name = rng() % 3 != 0;
      std::vector<int64_t> offsets;
      for (int64_t i = 0; i < rows; ++i) offsets.push_back(next++);
      // Some batches keep their texts, others leave them in their files.
      change::ChangeBatch batch = Batch(offsets, {}, with_name, rng() % 2 == 0 ? &fs : nullptr);
      if (with_name && rng() % 2 == 0) {
        batch.unchanged.assign(2, std::vector<uint8_t>(offsets.size(), 0));
        for (size_t i = 0; i < offsets.size(); ++i) {
          if (rng() % 2 == 0) {
            batch.unchanged[1][i] = 1;
            marked.push_back(offsets[i]);
          }
        }
      }
      ASSERT_TRUE(pending.Add(std::move(batch), "f" + std::to_string(b), b).ok());
      while (pending.num_rows() > 0 && rng() % 2 == 0) {
        const int64_t want = static_cast<int64_t>(rng() % 9);
        const int64_t held = pending.num_rows();
        change::ChangeBatch taken = pending.Take(want);
        const int64_t got = want <= 0 || want > held ? held : want;
        ASSERT_EQ(taken.rows.num_rows(), got);
        ASSERT_EQ(taken.positions.size(), static_cast<size_t>(got));
        ASSERT_EQ(taken.raw.size(), static_cast<size_t>(got));
        const int name = taken.rows.schema().FieldIndex("name");
        for (int64_t r = 0; r < got; ++r, ++expected) {
          ASSERT_EQ(taken.rows.column(0).GetValue(r), Value::Int(expected));
          EXPECT_EQ(taken.positions.byte_offset(static_cast<size_t>(r)), expected);
          EXPECT_EQ(change::RowText(taken, static_cast<size_t>(r)), TextAt(expected));
          if (name < 0) continue;
          // A row read without the column is NULL there; with it, its own name.
          const Value v = taken.rows.column(static_cast<size_t>(name)).GetValue(r);
          EXPECT_TRUE(v.is_null() || v == Value::Bytes("n" + std::to_string(expected)));
          const bool is_marked = std::count(marked.begin(), marked.end(), expected) > 0;
          const bool marks =
              !taken.unchanged.empty() && taken.unchanged[static_cast<size_t>(name)][r] != 0;
          EXPECT_EQ(marks, is_marked) << "row " << expected;
        }
      }
    }
    change::ChangeBatch rest = pending.Take(0);
    EXPECT_EQ(expected + rest.rows.num_rows(), next);
    EXPECT_TRUE(pending.empty());
  }
}

}  // namespace
}  // namespace cdclake::pipeline
