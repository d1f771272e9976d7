#include "io/resident_memory.h"

#include <gtest/gtest.h>

#include <vector>

namespace cdclake::io {
namespace {

TEST(ResidentMemory, CountsMemoryTheProcessTouched) {
  std::vector<char> touched(32 << 20, 1);  // every page written
  EXPECT_GE(ResidentBytes(), int64_t{32} << 20);
  EXPECT_EQ(touched[touched.size() / 2], 1);
}

}  // namespace
}  // namespace cdclake::io
