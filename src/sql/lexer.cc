// Tokenizing SQL text and formatting syntax errors with a caret under the offending character.
#include "sql/lexer.h"

#include <algorithm>

namespace cdclake::sql {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Letters, '_' and any byte of a multi-byte UTF-8 character start an identifier.
bool IsIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool IsIdentifierChar(char c) {
  return IsIdentifierStart(c) || IsDigit(c);
}

char LowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Operators of more than one character, longest first.
constexpr std::string_view kLongOperators[] = {"<=>", "<=", ">=", "<>", "!=", "==", "||"};
constexpr std::string_view kShortOperators = "()[]{},.;:*+-/%<>=!|&^~";

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      CDCLAKE_RETURN_IF_ERROR(SkipSpaceAndComments());
      if (pos_ >= src_.size()) break;
      CDCLAKE_ASSIGN_OR_RETURN(Token t, Next(tokens.empty() ? nullptr : &tokens.back()));
      tokens.push_back(std::move(t));
    }
    // The end sits just after the last token, so that a caret does not land on a later line.
    Token end;
    end.kind = TokenKind::kEnd;
    end.offset = tokens.empty() ? 0 : tokens.back().offset + tokens.back().length;
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  Status SkipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (src_.substr(pos_, 2) == "--") {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else if (src_.substr(pos_, 2) == "/*") {
        size_t end = src_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) {
          return SyntaxError(src_, pos_, "unterminated comment: '/*' without '*/'");
        }
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Status::OK();
  }

  Result<Token> Next(const Token* previous) {
    Token t;
    t.offset = pos_;
    char c = src_[pos_];
    // A '.' begins a number (".5") unless it follows something a field name can follow.
    bool dot_number = c == '.' && pos_ + 1 < src_.size() && IsDigit(src_[pos_ + 1]) &&
                      !(previous != nullptr && (previous->kind == TokenKind::kIdentifier ||
                                                previous->kind == TokenKind::kQuotedIdentifier ||
                                                previous->IsOperator(")")));
    if (IsDigit(c) || dot_number) {
      CDCLAKE_RETURN_IF_ERROR(Number(&t));
    } else if (IsIdentifierStart(c)) {
      while (pos_ < src_.size() && IsIdentifierChar(src_[pos_])) ++pos_;
      t.kind = TokenKind::kIdentifier;
      t.text = std::string(src_.substr(t.offset, pos_ - t.offset));
    } else if (c == '\'' || c == '"' || c == '`') {
      t.kind = c == '`' ? TokenKind::kQuotedIdentifier : TokenKind::kString;
      CDCLAKE_RETURN_IF_ERROR(Quoted(c, &t));
    } else {
      t.kind = TokenKind::kOperator;
      for (std::string_view op : kLongOperators) {
        if (src_.substr(pos_, op.size()) == op) {
          t.text = std::string(op);
          break;
        }
      }
      if (t.text.empty()) {
        if (kShortOperators.find(c) == std::string_view::npos) {
          return SyntaxError(src_, pos_, "unexpected character " + DescribeChar(pos_));
        }
        t.text = std::string(1, c);
      }
      pos_ += t.text.size();
    }
    t.length = pos_ - t.offset;
    return t;
  }

  std::string DescribeChar(size_t at) const {
    auto c = static_cast<unsigned char>(src_[at]);
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
    }
    return "'" + std::string(1, static_cast<char>(c)) + "'";
  }

  Status Number(Token* t) {
    t->kind = TokenKind::kNumber;
    while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    if (pos_ < src_.size() && src_[pos_] == '.') {
      ++pos_;
      while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t exponent = pos_ + 1;
      if (exponent < src_.size() && (src_[exponent] == '+' || src_[exponent] == '-')) ++exponent;
      if (exponent >= src_.size() || !IsDigit(src_[exponent])) {
        return SyntaxError(src_, t->offset, "malformed number: an exponent needs digits");
      }
      pos_ = exponent;
      while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    }
    if (pos_ < src_.size() && (IsIdentifierChar(src_[pos_]) || src_[pos_] == '.')) {
      return SyntaxError(src_, pos_,
                         "malformed number: unexpected " + DescribeChar(pos_) + " after '" +
                             std::string(src_.substr(t->offset, pos_ - t->offset)) + "'");
    }
    t->text = std::string(src_.substr(t->offset, pos_ - t->offset));
    return Status::OK();
  }

  Status Quoted(char quote, Token* t) {
    size_t start = pos_++;
    while (true) {
      if (pos_ >= src_.size()) {
        return SyntaxError(src_, start,
                           quote == '`' ? "unterminated quoted identifier: no closing '`'"
                                        : std::string("unterminated string: no closing ") + quote);
      }
      char c = src_[pos_++];
      if (c != quote) {
        t->text.push_back(c);
      } else if (pos_ < src_.size() && src_[pos_] == quote) {
        t->text.push_back(quote);
        ++pos_;
      } else {
        break;
      }
    }
    if (quote == '`' && t->text.empty()) {
      return SyntaxError(src_, start, "empty quoted identifier");
    }
    return Status::OK();
  }

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace

bool Token::IsKeyword(std::string_view word) const {
  if (kind != TokenKind::kIdentifier || text.size() != word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (LowerAscii(text[i]) != LowerAscii(word[i])) return false;
  }
  return true;
}

Result<std::vector<Token>> Tokenize(std::string_view source) {
  return Lexer(source).Run();
}

Status SyntaxError(std::string_view source, size_t offset, std::string_view message) {
  offset = std::min(offset, source.size());
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (source[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = source.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = source.size();
  std::string_view text = source.substr(line_start, line_end - line_start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  // The caret line copies tabs so that it lines up however tabs are shown.
  std::string caret = "  ";
  int column = 1;
  for (size_t i = line_start; i < offset && i < line_start + text.size(); ++i) {
    auto c = static_cast<unsigned char>(source[i]);
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte
    ++column;
    caret.push_back(c == '\t' ? '\t' : ' ');
  }
  if (offset > line_start + text.size()) ++column;  // just past a '\r'
  caret.push_back('^');
  std::string out = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
  out.append(message);
  out.append("\n  ").append(text).append("\n").append(caret);
  return Status::InvalidArgument(std::move(out));
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kString: {
      std::string shown = token.text.size() > 40 ? token.text.substr(0, 37) + "..." : token.text;
      return "the string '" + shown + "'";
    }
    case TokenKind::kQuotedIdentifier:
      return "`" + token.text + "`";
    default:
      return "'" + token.text + "'";
  }
}

}  // namespace cdclake::sql
