// TokenStream: keyword and operator matching and "expected ..." errors for the sql parsers.
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

Result<TokenStream> TokenStream::Open(std::string_view source) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(source));
  return TokenStream(source, std::move(tokens));
}

bool TokenStream::AcceptKeyword(std::string_view word) {
  if (!PeekKeyword(word)) return false;
  Next();
  return true;
}

bool TokenStream::AcceptOperator(std::string_view op) {
  if (!PeekOperator(op)) return false;
  Next();
  return true;
}

Status TokenStream::Expected(std::string_view what) const {
  return ErrorAt(Peek(), "expected " + std::string(what) + ", found " + DescribeToken(Peek()));
}

Result<std::string> TokenStream::ExpectName(std::string_view what) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdentifier && t.kind != TokenKind::kQuotedIdentifier) {
    return Expected(what);
  }
  return Next().text;
}

std::string DescribePosition(std::string_view source, size_t offset) {
  // The first line of a syntax error names the position; reuse it so both always agree.
  std::string message = SyntaxError(source, offset, "").message();
  size_t colon = message.find(':');
  return message.substr(0, colon);
}

}  // namespace cdclake::sql
