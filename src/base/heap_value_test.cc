// HeapValue: unset reads the default without allocating, copies are deep, equality is by value.
#include "base/heap_value.h"

#include <gtest/gtest.h>

#include <string>

namespace cdclake {
namespace {

struct Pair {
  int n = 0;
  std::string s;
  bool operator==(const Pair&) const = default;
};

TEST(HeapValue, UnsetReadsTheDefaultAndSetOnesCopyDeeply) {
  HeapValue<Pair> a;
  EXPECT_EQ(a->n, 0);
  EXPECT_EQ(a->s, "");
  EXPECT_EQ(&*a, &*HeapValue<Pair>());  // both read the one shared default
  a.mut().n = 7;
  a.mut().s = "seven";
  HeapValue<Pair> b = a;
  EXPECT_NE(&*b, &*a);
  EXPECT_EQ(b, a);
  b.mut().s = "eight";
  EXPECT_EQ(a->s, "seven");
  EXPECT_FALSE(b == a);
  HeapValue<Pair> c;
  c = b;
  EXPECT_EQ(c->s, "eight");
  HeapValue<Pair> moved = std::move(c);
  EXPECT_EQ(moved->s, "eight");
  // A value set back to the default equals one never set.
  HeapValue<Pair> d;
  d.mut() = Pair{};
  EXPECT_EQ(d, HeapValue<Pair>());
  moved.reset();
  EXPECT_EQ(moved, HeapValue<Pair>());
  EXPECT_EQ(moved->n, 0);
}

}  // namespace
}  // namespace cdclake
