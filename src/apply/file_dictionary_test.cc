// Tests of the file dictionary: ids are stable, persisted through the index, and unknown ids
// are errors.
#include "apply/file_dictionary.h"

#include <gtest/gtest.h>

namespace cdclake::apply {
namespace {

TEST(FileDictionary, AssignsDenseIdsAndPersistsThem) {
  auto index = NewMemoryKeyIndex();
  FileDictionary files;
  ASSERT_TRUE(files.Load(*index).ok());
  IndexWriteBatch batch;
  uint32_t a = files.IdOf("part-a.parquet", &batch);
  uint32_t b = files.IdOf("part-b.parquet", &batch);
  EXPECT_EQ(files.IdOf("part-a.parquet", &batch), a);
  EXPECT_NE(a, b);
  EXPECT_EQ(batch.puts.size(), 2u);
  ASSERT_TRUE(index->Write(batch).ok());

  FileDictionary reloaded;
  ASSERT_TRUE(reloaded.Load(*index).ok());
  ASSERT_TRUE(reloaded.PathOf(b).ok());
  EXPECT_EQ(*reloaded.PathOf(b), "part-b.parquet");
  IndexWriteBatch more;
  EXPECT_EQ(reloaded.IdOf("part-a.parquet", &more), a);
  EXPECT_TRUE(more.puts.empty());
  uint32_t c = reloaded.IdOf("part-c.parquet", &more);
  EXPECT_GT(c, b);
  EXPECT_FALSE(reloaded.PathOf(c + 5).ok());
}

}  // namespace
}  // namespace cdclake::apply
