// Pieces the pipeline statement parsers share: positions, qualified names, column lists and
// selections, string literals, "X is not supported by cdclake" errors, and re-parsing a slice
// of the source with a text-based parser (ParseSchemaDdl) while keeping its errors' positions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "sql/pipeline_ast.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

/// The line, column and offset of `token` in the stream's source.
SourcePosition PositionOf(const TokenStream& tokens, const Token& token);

/// "<what> is not supported by cdclake" at `token`, with an optional hint after a ';'.
Status NotSupported(const TokenStream& tokens, const Token& token, std::string_view what,
                    std::string_view hint = "");

/// A name with optional qualifiers: `a`, `LIVE.a`, `c.s.t`, backticks allowed in each part.
Result<TableName> ParseTableName(TokenStream& tokens, std::string_view what);

/// A string literal ('x' or "x"); otherwise "expected <what>".
Result<std::string> ExpectString(TokenStream& tokens, std::string_view what);

/// `(a, b, ...)`: column names in parentheses, at least one, no name twice (case-insensitive).
Result<std::vector<std::string>> ParseParenthesizedNames(TokenStream& tokens,
                                                         std::string_view clause);

/// The column choice after COLUMNS, TRACK HISTORY ON and IGNORE NULL UPDATES ON:
/// `* EXCEPT (a, b)` (kExcept), `(a, b)` or `a, b` (kOnly).
Result<ColumnSelection> ParseColumnSelection(TokenStream& tokens, std::string_view clause);

/// Moves the cursor past the ')' that closes the '(' it stands on, and returns the offsets just
/// inside the parentheses: [after '(', at ')'). Nested parentheses are skipped.
Result<std::pair<size_t, size_t>> SkipParenthesized(TokenStream& tokens, std::string_view what);

/// Parses the column definitions in source[begin, end) with ParseSchemaDdl; errors point into
/// the whole source (line, column and caret as if the slice had been parsed in place).
Result<data::Schema> ParseSchemaSlice(std::string_view source, size_t begin, size_t end);

}  // namespace cdclake::sql
