// The index log's file: a write batch written (in slices, several row groups) reads back entry
// for entry, in order, values with zero bytes and empty ones included.
#include "apply/index_log.h"

#include <gtest/gtest.h>

#include <random>

#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::apply {
namespace {

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = rng() % 4 == 0 ? '\0' : static_cast<char>(rng() % 256);
  return s;
}

TEST(IndexLog, ABatchReadsBackEntryForEntryAcrossRowGroups) {
  auto dir = io::ScratchDir::Create("index-log-");
  ASSERT_TRUE(dir.ok());
  io::LocalFileSystem fs;
  std::mt19937_64 rng(3);
  IndexWriteBatch batch;
  // About 40 MB of values: more than one slice of entries and more than one row group.
  for (int i = 0; i < 50000; ++i) {
    const size_t size = i % 1000 == 0 ? 0 : static_cast<size_t>(rng() % 1600);
    batch.puts.emplace_back("k" + RandomBytes(rng, 1 + rng() % 12), RandomBytes(rng, size));
  }
  for (int i = 0; i < 7000; ++i) batch.deletes.push_back("t" + RandomBytes(rng, 9));
  auto name = WriteIndexLog(fs, dir->path(), batch);
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  auto file = parquet::FileReader::Open(fs, io::JoinPath(IndexLogDir(dir->path()), *name));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_GT((*file)->num_row_groups(), 1);
  auto back = ReadIndexLog(fs, dir->path(), *name);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->puts.size(), batch.puts.size());
  EXPECT_TRUE(back->puts == batch.puts);
  EXPECT_TRUE(back->deletes == batch.deletes);

  auto empty = WriteIndexLog(fs, dir->path(), IndexWriteBatch{});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  auto none = ReadIndexLog(fs, dir->path(), *empty);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace cdclake::apply
