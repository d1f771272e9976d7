// Shared pieces of the pipeline parsers: positions, names, column selections, slice re-parsing.
#include "sql/pipeline_parse_helpers_internal.h"

#include <charconv>

#include "base/strings.h"
#include "sql/schema_ddl.h"

namespace cdclake::sql {

namespace {

// Line and column of `offset`, counted as SyntaxError counts them.
SourcePosition PositionAt(std::string_view source, size_t offset) {
  SourcePosition p;
  p.offset = offset;
  for (size_t i = 0; i < offset && i < source.size(); ++i) {
    auto c = static_cast<unsigned char>(source[i]);
    if (c == '\n') {
      ++p.line;
      p.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++p.column;
    }
  }
  return p;
}

// The byte offset of (line, column) in `source`; the end when past it.
size_t OffsetAt(std::string_view source, int line, int column) {
  size_t i = 0;
  for (int l = 1; l < line && i < source.size(); ++i) {
    if (source[i] == '\n') ++l;
  }
  for (int c = 1; i < source.size() && source[i] != '\n'; ++i) {
    auto byte = static_cast<unsigned char>(source[i]);
    if ((byte & 0xC0) == 0x80) continue;
    if (c == column) break;
    ++c;
  }
  return i;
}

// Reads "line L, column C: message..." back into its parts.
bool SplitSyntaxError(std::string_view text, int* line, int* column, std::string_view* message) {
  constexpr std::string_view kLine = "line ";
  constexpr std::string_view kColumn = ", column ";
  if (!StartsWith(text, kLine)) return false;
  const char* p = text.data() + kLine.size();
  const char* end = text.data() + text.size();
  auto [after_line, e1] = std::from_chars(p, end, *line);
  if (e1 != std::errc() || !StartsWith(std::string_view(after_line, end - after_line), kColumn)) {
    return false;
  }
  auto [after_column, e2] = std::from_chars(after_line + kColumn.size(), end, *column);
  if (e2 != std::errc() || end - after_column < 2 || after_column[0] != ':') return false;
  std::string_view rest(after_column + 2, end - after_column - 2);
  *message = rest.substr(0, rest.find('\n'));
  return true;
}

}  // namespace

SourcePosition PositionOf(const TokenStream& tokens, const Token& token) {
  return PositionAt(tokens.source(), token.offset);
}

Status NotSupported(const TokenStream& tokens, const Token& token, std::string_view what,
                    std::string_view hint) {
  std::string message = std::string(what) + " is not supported by cdclake";
  if (!hint.empty()) message.append("; ").append(hint);
  return tokens.ErrorAt(token, message);
}

Result<TableName> ParseTableName(TokenStream& tokens, std::string_view what) {
  TableName name;
  CDCLAKE_ASSIGN_OR_RETURN(std::string first, tokens.ExpectName(what));
  name.parts.push_back(std::move(first));
  while (tokens.AcceptOperator(".")) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string part, tokens.ExpectName("a name after '.'"));
    name.parts.push_back(std::move(part));
  }
  return name;
}

Result<std::string> ExpectString(TokenStream& tokens, std::string_view what) {
  if (tokens.Peek().kind != TokenKind::kString) return tokens.Expected(what);
  return tokens.Next().text;
}

Result<std::vector<std::string>> ParseParenthesizedNames(TokenStream& tokens,
                                                         std::string_view clause) {
  if (!tokens.PeekOperator("(")) {
    return tokens.Expected("'(' and a column list after " + std::string(clause));
  }
  const Token& open = tokens.Next();
  std::vector<std::string> names;
  std::vector<std::pair<std::string, size_t>> seen;
  while (true) {
    const Token& t = tokens.Peek();
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, tokens.ExpectName("a column name"));
    if (tokens.PeekOperator(".")) {
      return tokens.ErrorAt(
          tokens.Peek(), std::string(clause) + " takes top-level column names, not nested fields");
    }
    std::string lower = ToLower(name);
    for (const auto& [other, offset] : seen) {
      if (other == lower) {
        return tokens.ErrorAt(t, "column '" + name + "' appears twice in " + std::string(clause) +
                                     " (first at " + DescribePosition(tokens.source(), offset) +
                                     ")");
      }
    }
    seen.emplace_back(lower, t.offset);
    names.push_back(std::move(name));
    if (tokens.AcceptOperator(",")) continue;
    if (tokens.AcceptOperator(")")) break;
    return tokens.Expected("',' or ')' to close the list opened at " +
                           DescribePosition(tokens.source(), open.offset));
  }
  return names;
}

Result<ColumnSelection> ParseColumnSelection(TokenStream& tokens, std::string_view clause) {
  ColumnSelection selection;
  selection.position = PositionOf(tokens, tokens.Peek());
  if (tokens.AcceptOperator("*")) {
    if (!tokens.AcceptKeyword("EXCEPT")) {
      return tokens.Expected("EXCEPT after '" + std::string(clause) + " *'");
    }
    selection.mode = ColumnSelection::Mode::kExcept;
    CDCLAKE_ASSIGN_OR_RETURN(selection.columns,
                             ParseParenthesizedNames(tokens, std::string(clause) + " * EXCEPT"));
    return selection;
  }
  selection.mode = ColumnSelection::Mode::kOnly;
  if (tokens.PeekOperator("(")) {
    CDCLAKE_ASSIGN_OR_RETURN(selection.columns, ParseParenthesizedNames(tokens, clause));
    return selection;
  }
  // A bare list: a, b, c.
  do {
    CDCLAKE_ASSIGN_OR_RETURN(
        std::string name,
        tokens.ExpectName("a column list, '(' or '* EXCEPT' after " + std::string(clause)));
    selection.columns.push_back(std::move(name));
  } while (tokens.AcceptOperator(","));
  return selection;
}

Result<std::pair<size_t, size_t>> SkipParenthesized(TokenStream& tokens, std::string_view what) {
  if (!tokens.PeekOperator("(")) return tokens.Expected("'(' to open " + std::string(what));
  const Token& open = tokens.Next();
  size_t begin = open.offset + open.length;
  int depth = 1;
  while (true) {
    const Token& t = tokens.Peek();
    if (t.kind == TokenKind::kEnd) {
      return tokens.ErrorAt(open, "'(' of " + std::string(what) + " is never closed");
    }
    if (t.IsOperator("(")) ++depth;
    if (t.IsOperator(")") && --depth == 0) {
      size_t end = t.offset;
      tokens.Next();
      return std::make_pair(begin, end);
    }
    tokens.Next();
  }
}

Result<data::Schema> ParseSchemaSlice(std::string_view source, size_t begin, size_t end) {
  // The slice alone, placed at its own line and column by padding, so that an error's line and
  // column are right; the error is then rebuilt over the whole source for its caret line.
  SourcePosition start = PositionAt(source, begin);
  std::string padded(static_cast<size_t>(start.line - 1), '\n');
  padded.append(static_cast<size_t>(start.column - 1), ' ');
  padded.append(source.substr(begin, end - begin));
  auto schema = ParseSchemaDdl(padded);
  if (schema.ok()) return schema;
  int line = 0, column = 0;
  std::string_view message;
  if (!SplitSyntaxError(schema.status().message(), &line, &column, &message)) {
    return schema.status();
  }
  return SyntaxError(source, OffsetAt(source, line, column), message);
}

}  // namespace cdclake::sql
