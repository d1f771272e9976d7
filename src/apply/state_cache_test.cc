// Tests of the state cache: hits, recency, the byte budget.
#include "apply/state_cache.h"

#include <gtest/gtest.h>

namespace cdclake::apply {
namespace {

TEST(StateCache, HitsMissesAndErase) {
  StateCache cache(1 << 20);
  EXPECT_EQ(cache.Get("a"), nullptr);
  cache.Put("a", "1");
  ASSERT_NE(cache.Get("a"), nullptr);
  EXPECT_EQ(*cache.Get("a"), "1");
  cache.Put("a", "2");
  EXPECT_EQ(*cache.Get("a"), "2");
  cache.Erase("a");
  EXPECT_EQ(cache.Get("a"), nullptr);
  EXPECT_EQ(cache.bytes(), 0);
}

TEST(StateCache, EvictsLeastRecentlyUsedOverBudget) {
  StateCache cache(3 * (1 + 100 + 96));  // room for three entries of 100 bytes
  std::string value(100, 'x');
  cache.Put("a", value);
  cache.Put("b", value);
  cache.Put("c", value);
  ASSERT_NE(cache.Get("a"), nullptr);  // a is now the most recent
  cache.Put("d", value);               // evicts b
  EXPECT_NE(cache.Get("a"), nullptr);
  EXPECT_EQ(cache.Get("b"), nullptr);
  EXPECT_NE(cache.Get("c"), nullptr);
  EXPECT_NE(cache.Get("d"), nullptr);
  EXPECT_LE(cache.bytes(), 3 * (1 + 100 + 96));
  cache.Clear();
  EXPECT_EQ(cache.Get("a"), nullptr);
}

TEST(StateCache, ZeroBudgetCachesNothing) {
  StateCache cache(0);
  cache.Put("a", "1");
  EXPECT_EQ(cache.Get("a"), nullptr);
}

}  // namespace
}  // namespace cdclake::apply
