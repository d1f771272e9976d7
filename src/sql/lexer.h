// Lexer: SQL text into tokens (identifiers, `quoted` identifiers, 'strings', numbers,
// operators), and the one format of syntax errors: line, column, the line and a caret.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake::sql {

enum class TokenKind {
  kIdentifier,        // a bare word, keywords included: `text` as written
  kQuotedIdentifier,  // `name`: `text` without the backticks, doubled backticks undone
  kString,            // 'text' or "text": `text` without the quotes, doubled quotes undone
  kNumber,            // 12, 1.5, .5, 1e-3: `text` as written
  kOperator,          // punctuation and operators: = <> != == < <= > >= <=> || ( ) , . ; etc.
  kEnd,               // the end of the input
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  size_t offset = 0;  // byte offset of the token's first character in the source
  size_t length = 0;  // bytes the token spans in the source, quotes included

  /// True for a bare identifier equal to `word` ignoring ASCII case.
  bool IsKeyword(std::string_view word) const;
  bool IsOperator(std::string_view op) const { return kind == TokenKind::kOperator && text == op; }
};

/// Splits `source` into tokens, skipping white space, `-- line` and `/* block */` comments. The
/// last token is always kEnd, placed just after the last real token. Strings and quoted identifiers
/// escape their quote by doubling it ('it''s'); a backslash is an ordinary character.
/// kInvalidArgument (formatted as SyntaxError) for an unterminated string, identifier or comment, a
/// malformed number, or a character SQL has no use for.
Result<std::vector<Token>> Tokenize(std::string_view source);

/// kInvalidArgument with the message "line L, column C: <message>", then the source line
/// indented by two spaces and a caret under the character at `offset`. Lines and columns count
/// from 1; columns count characters (UTF-8 code points), not bytes.
Status SyntaxError(std::string_view source, size_t offset, std::string_view message);

/// How a token reads in "found ..." messages: 'AND', '=', `col`, the string 'x', end of input.
std::string DescribeToken(const Token& token);

}  // namespace cdclake::sql
