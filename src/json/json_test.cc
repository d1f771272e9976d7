// Tests for JSON parsing with errors as values and typed field access.
#include "json/json.h"

#include <gtest/gtest.h>

namespace cdclake::json {
namespace {

TEST(JsonTest, ParsesAndReportsBadInputWithAnOffset) {
  auto ok =
      Parse(R"({"a": 1, "b": "x", "c": null, "d": true, "m": {"k": "v", "n": null, "i": 3}})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*GetInt(*ok, "a"), 1);
  EXPECT_EQ(*GetString(*ok, "b"), "x");
  EXPECT_FALSE(OptString(*ok, "c")->has_value());
  EXPECT_TRUE(*GetBool(*ok, "d"));
  auto m = OptStringMap(*ok, "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((**m)["k"], "v");
  EXPECT_FALSE((**m)["n"].has_value());
  EXPECT_EQ((**m)["i"], "3");

  auto bad = Parse(R"({"a": 1,)");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(bad.status().message().find("at byte"), std::string::npos);
}

TEST(JsonTest, WrongTypesAndMissingFieldsNameTheField) {
  auto j = Parse(R"({"a": "1"})");
  ASSERT_TRUE(j.ok());
  auto wrong = GetInt(*j, "a");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("'a'"), std::string::npos);
  auto missing = GetString(*j, "zz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing field 'zz'"), std::string::npos);
}

TEST(JsonTest, DumpIsCompact) {
  EXPECT_EQ(Dump(Json{{"a", 1}, {"b", "x"}}), R"({"a":1,"b":"x"})");
}

}  // namespace
}  // namespace cdclake::json
