// ProgressLine's text: amounts, percentages, rates and time left.
#include "cli/progress_line.h"

#include <gtest/gtest.h>

namespace cdclake::cli {
namespace {

TEST(ProgressLineTest, SaysHowFarHowFastAndHowLong) {
  EXPECT_EQ(ProgressLine::Text({"reading", "bytes", 17'200'000, 68'300'000}, 0.1),
            "reading: 17.2 MB of 68.3 MB (25%)");
  EXPECT_EQ(ProgressLine::Text({"reading", "bytes", 17'200'000, 68'300'000}, 2.0),
            "reading: 17.2 MB of 68.3 MB (25%), 8.6 MB/s, 6 s left");
  EXPECT_EQ(ProgressLine::Text({"optimize", "files", 3, 10}, 1.5),
            "optimize: 3 of 10 files (30%), 2 files/s, 4 s left");
  EXPECT_EQ(ProgressLine::Text({"vacuum", "files", 1200, 1200}, 2.0),
            "vacuum: 1,200 of 1,200 files (100%), 600 files/s");
  EXPECT_EQ(ProgressLine::Text({"applying", "rows", 0, 2'000'000}, 0),
            "applying: 2,000,000 rows...");
  EXPECT_EQ(ProgressLine::Text({"y", "files", 10, 100}, 5.0),
            "y: 10 of 100 files (10%), 2 files/s, 45 s left");
  EXPECT_EQ(ProgressLine::Text({"y", "files", 10, 100}, 100.0),
            "y: 10 of 100 files (10%), 0 files/s, 15 min 0 s left");
  EXPECT_EQ(ProgressLine::Text({"repair", "rows", 5000, -1}, 1.0),
            "repair: 5,000 rows, 5,000 rows/s");
  EXPECT_EQ(ProgressLine::Text({"x", "files", 1, 100'000}, 1.0),
            "x: 1 of 100,000 files (0%), 1 files/s, 27 h 46 min left");
}

TEST(ProgressLineTest, ADisabledLineGivesNoFunction) {
  ProgressLine off(false);
  EXPECT_FALSE(static_cast<bool>(off.Fn()));
  ProgressLine on(true);
  EXPECT_TRUE(static_cast<bool>(on.Fn()));
}

}  // namespace
}  // namespace cdclake::cli
