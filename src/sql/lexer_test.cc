// Tests for the lexer and the syntax error format (line, column, source line, caret).
#include "sql/lexer.h"

#include <gtest/gtest.h>

namespace cdclake::sql {
namespace {

std::vector<Token> Lex(std::string_view text) {
  auto r = Tokenize(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Token>{};
}

std::string LexError(std::string_view text) {
  auto r = Tokenize(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(LexerTest, SplitsTokensWithOffsets) {
  auto t = Lex("op = 'it''s' AND `a``b`.c <> 12.5");
  ASSERT_EQ(t.size(), 10u);
  EXPECT_EQ(t[0].kind, TokenKind::kIdentifier);
  EXPECT_EQ(t[0].text, "op");
  EXPECT_TRUE(t[1].IsOperator("="));
  EXPECT_EQ(t[1].offset, 3u);
  EXPECT_EQ(t[2].kind, TokenKind::kString);
  EXPECT_EQ(t[2].text, "it's");
  EXPECT_EQ(t[2].offset, 5u);
  EXPECT_EQ(t[2].length, 7u);
  EXPECT_TRUE(t[3].IsKeyword("and"));
  EXPECT_FALSE(t[3].IsKeyword("an"));
  EXPECT_EQ(t[4].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ(t[4].text, "a`b");
  EXPECT_FALSE(t[4].IsKeyword("a`b"));
  EXPECT_TRUE(t[5].IsOperator("."));
  EXPECT_EQ(t[6].text, "c");
  EXPECT_TRUE(t[7].IsOperator("<>"));
  EXPECT_EQ(t[8].kind, TokenKind::kNumber);
  EXPECT_EQ(t[8].text, "12.5");
  EXPECT_EQ(t[9].kind, TokenKind::kEnd);
  EXPECT_EQ(t[9].offset, 33u);  // the length of the text
}

TEST(LexerTest, DoubleQuotesAreStringsAndBackslashIsPlain) {
  auto t = Lex(R"("say ""hi""" 'C:\dir')");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].text, "say \"hi\"");
  EXPECT_EQ(t[1].text, "C:\\dir");
}

TEST(LexerTest, OperatorsTakeTheLongestMatch) {
  auto t = Lex("<=> <= >= <> != == || < > = ( ) , ; * -");
  std::vector<std::string> ops;
  for (const Token& tok : t) {
    if (tok.kind == TokenKind::kOperator) ops.push_back(tok.text);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"<=>", "<=", ">=", "<>", "!=", "==", "||", "<", ">", "=",
                                           "(", ")", ",", ";", "*", "-"}));
  // Nested type brackets stay single characters.
  auto nested = Lex("array<array<int>>");
  ASSERT_EQ(nested.size(), 8u);
  EXPECT_TRUE(nested[5].IsOperator(">"));
  EXPECT_TRUE(nested[6].IsOperator(">"));
}

TEST(LexerTest, NumbersAndDots) {
  auto t = Lex("1 1.5 .5 5. 1e3 2.5E-2 a.b t.`x` x.5");
  std::vector<std::pair<TokenKind, std::string>> got;
  for (const Token& tok : t) got.emplace_back(tok.kind, tok.text);
  using K = TokenKind;
  std::vector<std::pair<TokenKind, std::string>> want = {
      {K::kNumber, "1"},     {K::kNumber, "1.5"}, {K::kNumber, ".5"},
      {K::kNumber, "5."},    {K::kNumber, "1e3"}, {K::kNumber, "2.5E-2"},
      {K::kIdentifier, "a"}, {K::kOperator, "."}, {K::kIdentifier, "b"},
      {K::kIdentifier, "t"}, {K::kOperator, "."}, {K::kQuotedIdentifier, "x"},
      {K::kIdentifier, "x"}, {K::kOperator, "."}, {K::kNumber, "5"},
      {K::kEnd, ""}};
  EXPECT_EQ(got, want);
}

TEST(LexerTest, SkipsComments) {
  auto t = Lex("a -- the rest\n/* block\n comment */ = 1 -- end");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].text, "a");
  EXPECT_TRUE(t[1].IsOperator("="));
  EXPECT_EQ(t[2].text, "1");
  // The end sits right after the last token, not after the trailing comment.
  EXPECT_EQ(t[3].offset, t[2].offset + 1);
}

TEST(LexerTest, IdentifiersMayHoldUtf8) {
  auto t = Lex("prénom = 'é'");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].text, "prénom");
  EXPECT_EQ(t[2].text, "é");
}

TEST(LexerTest, ErrorsPointAtTheProblem) {
  EXPECT_EQ(LexError("a = 'abc"),
            "line 1, column 5: unterminated string: no closing '\n  a = 'abc\n      ^");
  EXPECT_EQ(LexError("a = $x"), "line 1, column 5: unexpected character '$'\n  a = $x\n      ^");
  EXPECT_EQ(
      LexError("x = 12abc"),
      "line 1, column 7: malformed number: unexpected 'a' after '12'\n  x = 12abc\n        ^");
  EXPECT_EQ(LexError("1e+"),
            "line 1, column 1: malformed number: an exponent needs digits\n  1e+\n  ^");
  EXPECT_EQ(LexError("1.2.3"),
            "line 1, column 4: malformed number: unexpected '.' after '1.2'\n  1.2.3\n     ^");
  EXPECT_EQ(LexError("a /* open"),
            "line 1, column 3: unterminated comment: '/*' without '*/'\n  a /* open\n    ^");
  EXPECT_EQ(LexError("``"), "line 1, column 1: empty quoted identifier\n  ``\n  ^");
  EXPECT_EQ(LexError("`abc"),
            "line 1, column 1: unterminated quoted identifier: no closing '`'\n  `abc\n  ^");
  EXPECT_EQ(LexError("a\x01"), "line 1, column 2: unexpected character 0x01\n  a\x01\n   ^");
}

TEST(SyntaxErrorTest, CountsLinesAndCharacters) {
  std::string text = "first line\r\nsecond é line\n\tthird";
  Status s = SyntaxError(text, text.find("line", 12), "here");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // Columns count characters: 'é' is two bytes and one column.
  EXPECT_EQ(s.message(), "line 2, column 10: here\n  second é line\n           ^");
  s = SyntaxError(text, text.find("third"), "tab");
  EXPECT_EQ(s.message(), "line 3, column 2: tab\n  \tthird\n  \t^");
  s = SyntaxError(text, 0, "start");
  EXPECT_EQ(s.message(), "line 1, column 1: start\n  first line\n  ^");
  s = SyntaxError("abc", 3, "end");
  EXPECT_EQ(s.message(), "line 1, column 4: end\n  abc\n     ^");
  s = SyntaxError("abc", 99, "clamped");
  EXPECT_EQ(s.message(), "line 1, column 4: clamped\n  abc\n     ^");
}

TEST(SyntaxErrorTest, DescribesTokens) {
  auto t = Lex("AND 'x' `y` 5 =");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(DescribeToken(t[0]), "'AND'");
  EXPECT_EQ(DescribeToken(t[1]), "the string 'x'");
  EXPECT_EQ(DescribeToken(t[2]), "`y`");
  EXPECT_EQ(DescribeToken(t[3]), "'5'");
  EXPECT_EQ(DescribeToken(t[4]), "'='");
  EXPECT_EQ(DescribeToken(t[5]), "end of input");
}

}  // namespace
}  // namespace cdclake::sql
