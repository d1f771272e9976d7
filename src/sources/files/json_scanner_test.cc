// Tests for JsonScanner: the grammar it accepts and rejects, number literals kept as text,
// string unescaping, nested values handed back as their own text, and the scratch arena the
// strings are decoded into.
#include "sources/files/json_scanner_internal.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace cdclake::sources::internal {
namespace {

// The error of reading `text` as one whole JSON value, or "" when it is valid.
std::string ErrorOf(std::string_view text) {
  ScratchArena arena;
  JsonScanner scanner(text, &arena);
  JsonValue value;
  if (scanner.ReadValue(&value) && scanner.AtEnd()) return "";
  return std::string(scanner.error()) + " @" + std::to_string(scanner.error_offset());
}

JsonValue ReadOne(std::string_view text, ScratchArena* arena) {
  JsonScanner scanner(text, arena);
  JsonValue value;
  EXPECT_TRUE(scanner.ReadValue(&value) && scanner.AtEnd()) << text << ": " << scanner.error();
  return value;
}

TEST(JsonScanner, ValidTexts) {
  for (const char* text : {"0", "-0", "1.5e-3", "-12.0E+2", "true", "false", "null", "\"\"",
                           " [ ] ", "{}", "[1,[2,[3]],{\"a\":{}}]", "{\"a\" : [ true , null ]}",
                           "\"\\ud83d\\ude00\"", "\"tab\\tand \\/ slash\""}) {
    EXPECT_EQ(ErrorOf(text), "") << text;
  }
}

TEST(JsonScanner, InvalidTexts) {
  EXPECT_EQ(ErrorOf(""), "unexpected end of input @0");
  EXPECT_EQ(ErrorOf("01"), "unexpected text after the value @1");
  EXPECT_EQ(ErrorOf("1."), "bad number @2");
  EXPECT_EQ(ErrorOf(".5"), "unexpected character @0");
  EXPECT_EQ(ErrorOf("-"), "bad number @1");
  EXPECT_EQ(ErrorOf("1e"), "bad number @2");
  EXPECT_EQ(ErrorOf("+1"), "unexpected character @0");
  // A literal cut by the end of the text ended early (more bytes could complete it).
  EXPECT_EQ(ErrorOf("tru"), "unexpected end of input @3");
  EXPECT_EQ(ErrorOf("trux"), "unexpected character @0");
  EXPECT_EQ(ErrorOf("\"abc"), "unterminated string @4");
  EXPECT_EQ(ErrorOf("\"a\tb\""), "control character in a string @2");
  EXPECT_EQ(ErrorOf("\"\\x\""), "bad escape in a string @1");
  EXPECT_EQ(ErrorOf("\"\\u12G4\""), "bad \\u escape @1");
  EXPECT_EQ(ErrorOf("\"\\ud83d\""), "unpaired surrogate in a \\u escape @1");
  EXPECT_EQ(ErrorOf("\"\\ude00\""), "unpaired surrogate in a \\u escape @1");
  EXPECT_EQ(ErrorOf("[1,]"), "unexpected character @3");
  EXPECT_EQ(ErrorOf("[1 2]"), "expected ',' or ']' @3");
  EXPECT_EQ(ErrorOf("{\"a\" 1}"), "expected ':' @5");
  EXPECT_EQ(ErrorOf("{\"a\":1,}"), "expected a member name @7");
  EXPECT_EQ(ErrorOf("{1:2}"), "expected a member name @1");
  EXPECT_EQ(ErrorOf("[\"\\ud83d\"]"), "unpaired surrogate in a \\u escape @2");
  EXPECT_EQ(ErrorOf(std::string(600, '[') + std::string(600, ']')).substr(0, 19),
            "nested too deeply @");
}

TEST(JsonScanner, NumbersStayText) {
  ScratchArena arena;
  JsonValue v = ReadOne("-123456789012345678901234567890.000000000000000001", &arena);
  EXPECT_EQ(v.kind, JsonKind::kNumber);
  EXPECT_EQ(v.text, "-123456789012345678901234567890.000000000000000001");
  EXPECT_TRUE(v.has_point);
  EXPECT_FALSE(v.has_exponent);
  v = ReadOne("1E400", &arena);
  EXPECT_EQ(v.text, "1E400");
  EXPECT_TRUE(v.has_exponent);
  EXPECT_FALSE(v.has_point);
}

TEST(JsonScanner, StringsAreUnescaped) {
  ScratchArena arena;
  JsonValue plain = ReadOne("\"no escapes\"", &arena);
  EXPECT_EQ(plain.text, "no escapes");
  JsonValue v = ReadOne(R"("q\"b\\s\/n\nt\tu\u0041\u00e9\u20ac\ud83d\ude00")", &arena);
  EXPECT_EQ(v.kind, JsonKind::kString);
  EXPECT_EQ(v.text, "q\"b\\s/n\nt\tuA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  // Earlier views stay valid while later strings are decoded.
  EXPECT_EQ(plain.text, "no escapes");
}

TEST(JsonScanner, MembersAndNestedValues) {
  ScratchArena arena;
  std::string text = R"( {"a\u0062":1, "obj" : {"x":[1,2]}, "arr":[{"y":"}"}], "n":null} )";
  JsonScanner scanner(text, &arena);
  ASSERT_TRUE(scanner.EnterObject());
  std::vector<std::string> names, texts;
  std::vector<JsonKind> kinds;
  std::string_view name;
  JsonValue value;
  while (scanner.NextMember(&name) == JsonScanner::Step::kItem) {
    ASSERT_TRUE(scanner.ReadValue(&value));
    names.emplace_back(name);
    texts.emplace_back(value.text);
    kinds.push_back(value.kind);
  }
  EXPECT_FALSE(scanner.failed()) << scanner.error();
  EXPECT_TRUE(scanner.AtEnd());
  EXPECT_EQ(names, (std::vector<std::string>{"ab", "obj", "arr", "n"}));
  EXPECT_EQ(texts, (std::vector<std::string>{"1", R"({"x":[1,2]})", R"([{"y":"}"}])", "null"}));
  EXPECT_EQ(kinds, (std::vector<JsonKind>{JsonKind::kNumber, JsonKind::kObject, JsonKind::kArray,
                                          JsonKind::kNull}));

  JsonScanner array(" [1, \"two\"] ", &arena);
  ASSERT_TRUE(array.EnterArray());
  std::vector<std::string> elements;
  while (array.NextElement() == JsonScanner::Step::kItem) {
    ASSERT_TRUE(array.ReadValue(&value));
    elements.emplace_back(value.text);
  }
  EXPECT_EQ(elements, (std::vector<std::string>{"1", "two"}));
  EXPECT_TRUE(array.AtEnd());
}

TEST(JsonScanner, ScratchArenaNeverMovesWhatItGaveOut) {
  ScratchArena arena;
  char* first = arena.Allocate(10);
  std::memcpy(first, "0123456789", 10);
  char* big = arena.Allocate(1 << 20);  // a new block
  big[0] = 'x';
  EXPECT_EQ(std::string(first, 10), "0123456789");
  arena.Reset();
  char* again = arena.Allocate(10);
  EXPECT_EQ(again, first);  // blocks are reused after Reset
  char* big_again = arena.Allocate(1 << 20);
  EXPECT_EQ(big_again, big);
}

}  // namespace
}  // namespace cdclake::sources::internal
