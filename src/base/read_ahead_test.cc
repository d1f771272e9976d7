// ReadAhead: items in order, the end and errors handed out once, early destruction.
#include "base/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace cdclake {
namespace {

TEST(ReadAheadTest, HandsOutEveryItemInOrderThenTheEnd) {
  int next = 0;
  ReadAhead<int> ahead([&]() -> Result<std::optional<int>> {
    if (next == 1000) return std::optional<int>();
    return std::optional<int>(next++);
  });
  for (int i = 0; i < 1000; ++i) {
    auto item = ahead.Next();
    ASSERT_TRUE(item.ok());
    ASSERT_TRUE(item->has_value());
    EXPECT_EQ(**item, i);
  }
  for (int i = 0; i < 3; ++i) {
    auto end = ahead.Next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }
  EXPECT_EQ(next, 1000);
}

TEST(ReadAheadTest, AnErrorEndsTheItemsAndTheProducerStops) {
  std::atomic<int> calls{0};
  ReadAhead<int> ahead([&]() -> Result<std::optional<int>> {
    int n = calls++;
    if (n == 2) return Status::Corrupt("bad record at offset 42");
    return std::optional<int>(n);
  });
  EXPECT_EQ(**ahead.Next(), 0);
  EXPECT_EQ(**ahead.Next(), 1);
  auto failed = ahead.Next();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().ToString().find("offset 42"), std::string::npos);
  auto after = ahead.Next();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(calls.load(), 3);
}

TEST(ReadAheadTest, ReadsAtMostOneItemAheadAndStopsWhenDestroyed) {
  std::atomic<int> calls{0};
  {
    ReadAhead<int> ahead([&]() -> Result<std::optional<int>> {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return std::optional<int>(calls++);
    });
    EXPECT_EQ(**ahead.Next(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // One item waits, and at most one more call may be in progress; no more.
    EXPECT_LE(calls.load(), 3);
    EXPECT_EQ(ahead.Paused([&] { return calls.load(); }),
              ahead.Paused([&] { return calls.load(); }));
  }
  const int at_destruction = calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(calls.load(), at_destruction);
}

}  // namespace
}  // namespace cdclake
