// TokenStream: the cursor the sql parsers share over a tokenized source, with helpers that
// accept keywords and operators and build "expected X, found Y" errors.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/lexer.h"

namespace cdclake::sql {

class TokenStream {
 public:
  /// Tokenizes `source`, which must outlive the stream.
  static Result<TokenStream> Open(std::string_view source);

  /// The token `ahead` places on (the kEnd token past the end).
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  /// Returns the current token and moves past it (never past kEnd).
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }

  bool PeekKeyword(std::string_view word, size_t ahead = 0) const {
    return Peek(ahead).IsKeyword(word);
  }
  bool PeekOperator(std::string_view op, size_t ahead = 0) const {
    return Peek(ahead).IsOperator(op);
  }
  /// Moves past the current token if it is the keyword `word`.
  bool AcceptKeyword(std::string_view word);
  /// Moves past the current token if it is the operator `op`.
  bool AcceptOperator(std::string_view op);

  /// A syntax error at `token`.
  Status ErrorAt(const Token& token, std::string_view message) const {
    return SyntaxError(source_, token.offset, message);
  }
  /// "expected <what>, found <current token>" at the current token.
  Status Expected(std::string_view what) const;

  /// Reads a name: a bare identifier or a `quoted` one; otherwise "expected <what>".
  Result<std::string> ExpectName(std::string_view what);

  std::string_view source() const { return source_; }

 private:
  TokenStream(std::string_view source, std::vector<Token> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  std::string_view source_;
  std::vector<Token> tokens_;  // ends with kEnd
  size_t pos_ = 0;
};

/// "line L, column C" of `offset` in `source`, for messages that point back at another token.
std::string DescribePosition(std::string_view source, size_t offset);

}  // namespace cdclake::sql
