// SELECT queries and sources of pipeline statements; the expressions inside come from
// ParseExpression.
#include "sql/pipeline_select_parser_internal.h"

#include <charconv>

#include "base/strings.h"
#include "sql/expression_parser_internal.h"
#include "sql/pipeline_parse_helpers_internal.h"

namespace cdclake::sql {

namespace {

bool IsName(const Token& t) {
  return t.kind == TokenKind::kIdentifier || t.kind == TokenKind::kQuotedIdentifier;
}

// Words that end a SELECT item or a source and so cannot be an alias without AS.
bool IsClauseWord(const Token& t) {
  for (std::string_view w :
       {"FROM",      "WHERE",   "GROUP",      "ORDER",     "HAVING",    "LIMIT",   "UNION",
        "INTERSECT", "EXCEPT",  "MINUS",      "JOIN",      "INNER",     "LEFT",    "RIGHT",
        "FULL",      "CROSS",   "NATURAL",    "SEMI",      "ANTI",      "LATERAL", "WINDOW",
        "QUALIFY",   "CLUSTER", "DISTRIBUTE", "SORT",      "ON",        "USING",   "TABLESAMPLE",
        "PIVOT",     "UNPIVOT", "VERSION",    "TIMESTAMP", "WATERMARK", "AS"}) {
    if (t.IsKeyword(w)) return true;
  }
  return false;
}

class SelectParser {
 public:
  explicit SelectParser(TokenStream* tokens) : ts_(*tokens) {}

  Result<SourceRef> ParseSource() {
    SourceRef source;
    source.position = PositionOf(ts_, ts_.Peek());
    if (ts_.PeekKeyword("STREAM") && (ts_.PeekOperator("(", 1) || IsName(ts_.Peek(1)))) {
      ts_.Next();
      source.streaming = true;
      if (ts_.PeekOperator("(")) {
        const Token& open = ts_.Next();
        CDCLAKE_RETURN_IF_ERROR(ParseInner(&source));
        if (!ts_.AcceptOperator(")")) {
          return ts_.Expected("')' to close the STREAM( at " +
                              DescribePosition(ts_.source(), open.offset));
        }
        CDCLAKE_RETURN_IF_ERROR(ParseStreamOptions(&source));
        return source;
      }
    }
    CDCLAKE_RETURN_IF_ERROR(ParseInner(&source));
    if (source.streaming) CDCLAKE_RETURN_IF_ERROR(ParseStreamOptions(&source));
    return source;
  }

  Result<SelectQuery> ParseSelect() {
    SelectQuery query;
    query.position = PositionOf(ts_, ts_.Peek());
    if (!ts_.AcceptKeyword("SELECT")) return ts_.Expected("SELECT");
    if (ts_.PeekKeyword("DISTINCT")) return NotSupported(ts_, ts_.Peek(), "SELECT DISTINCT");
    ts_.AcceptKeyword("ALL");
    while (true) {
      CDCLAKE_ASSIGN_OR_RETURN(SelectItem item, ParseItem());
      query.items.push_back(std::move(item));
      if (!ts_.AcceptOperator(",")) break;
    }
    if (!ts_.AcceptKeyword("FROM")) {
      return ts_.Expected(query.items.back().kind == SelectItem::Kind::kExpression &&
                                  query.items.back().alias.empty()
                              ? "',', AS, an operator or FROM after the select item"
                              : "',' or FROM after the select item");
    }
    if (ts_.PeekOperator("(")) {
      if (ts_.PeekKeyword("SELECT", 1)) return NotSupported(ts_, ts_.Peek(1), "a subquery in FROM");
    }
    CDCLAKE_ASSIGN_OR_RETURN(query.from, ParseSource());
    if (ts_.AcceptKeyword("AS")) {
      CDCLAKE_ASSIGN_OR_RETURN(query.from_alias, ts_.ExpectName("an alias after AS"));
    } else if (IsName(ts_.Peek()) && !IsClauseWord(ts_.Peek())) {
      query.from_alias = ts_.Next().text;
    }
    CDCLAKE_RETURN_IF_ERROR(RejectAfterFrom());
    if (ts_.AcceptKeyword("WHERE")) {
      CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<data::Expr> where, ParseExpression(ts_));
      query.where = std::move(where);
    }
    CDCLAKE_RETURN_IF_ERROR(RejectAfterWhere());
    return query;
  }

 private:
  // A streaming read's options after STREAM(t): WITH ('skipChangeCommits' = 'true'), keys as
  // strings or names, values as strings, TRUE/FALSE or numbers (Spark's options clause).
  Status ParseStreamOptions(SourceRef* source) {
    if (!ts_.PeekKeyword("WITH") || !ts_.PeekOperator("(", 1)) return Status::OK();
    const Token& with = ts_.Next();
    ts_.Next();  // (
    if (source->kind != SourceRef::Kind::kTable) {
      return NotSupported(ts_, with, "WITH options on this source",
                          "they are for a table read as a stream: STREAM(t) WITH ("
                          "'skipChangeCommits' = 'true')");
    }
    while (true) {
      const Token& key = ts_.Next();
      if (key.kind != TokenKind::kString && !IsName(key)) {
        return ts_.Expected("an option name in WITH (...)");
      }
      if (!ts_.AcceptOperator("=")) return ts_.Expected("'=' after the option name");
      const Token& value = ts_.Next();
      const std::string text = ToLower(value.text);
      if (ToLower(key.text) != "skipchangecommits") {
        return NotSupported(ts_, key, "the stream option '" + key.text + "'",
                            "the option cdclake knows is 'skipChangeCommits'");
      }
      if (text != "true" && text != "false") {
        return ts_.ErrorAt(value,
                           "skipChangeCommits is 'true' or 'false', not '" + value.text + "'");
      }
      source->skip_change_commits = text == "true";
      if (ts_.AcceptOperator(")")) return Status::OK();
      if (!ts_.AcceptOperator(",")) return ts_.Expected("',' or ')' in WITH (...)");
    }
  }

  // A name or read_files(...), without STREAM.
  Status ParseInner(SourceRef* source) {
    const Token& t = ts_.Peek();
    if (t.IsOperator("(")) {
      if (ts_.PeekKeyword("SELECT", 1)) return NotSupported(ts_, ts_.Peek(1), "a subquery source");
      return ts_.Expected("a table name, STREAM(...) or read_files(...)");
    }
    if (t.kind == TokenKind::kIdentifier && ts_.PeekOperator("(", 1)) {
      if (t.IsKeyword("read_files")) return ParseFunction(source, SourceRef::Kind::kReadFiles);
      if (t.IsKeyword("read_postgres")) {
        return ParseFunction(source, SourceRef::Kind::kReadPostgres);
      }
      if (t.IsKeyword("read_kafka")) return ParseFunction(source, SourceRef::Kind::kReadKafka);
      if (t.IsKeyword("table_changes")) return ParseTableChanges(source);
      if (t.IsKeyword("cloud_files")) {
        return NotSupported(ts_, t, "cloud_files(...)", "use read_files(...)");
      }
      return NotSupported(ts_, t, "the table-valued function '" + t.text + "'",
                          "sources are tables, views, read_files(...), read_postgres(...), "
                          "read_kafka(...) and table_changes(...)");
    }
    source->kind = SourceRef::Kind::kTable;
    CDCLAKE_ASSIGN_OR_RETURN(source->table,
                             ParseTableName(ts_, "a table name, STREAM(...) or read_files(...)"));
    if (ts_.PeekOperator("(")) {
      return NotSupported(ts_, ts_.Peek(),
                          "the table-valued function '" + source->table.ToString() + "'",
                          "sources are tables, views, read_files(...), read_postgres(...), "
                          "read_kafka(...) and table_changes(...)");
    }
    return Status::OK();
  }

  // table_changes('table', start_version | 'start_timestamp'), at table_changes.
  Status ParseTableChanges(SourceRef* source) {
    source->kind = SourceRef::Kind::kTableChanges;
    ts_.Next();  // table_changes
    const Token& open = ts_.Next();
    const Token& name = ts_.Peek();
    CDCLAKE_ASSIGN_OR_RETURN(std::string table,
                             ExpectString(ts_, "the table's name as a string in table_changes"));
    CDCLAKE_ASSIGN_OR_RETURN(TokenStream names, TokenStream::Open(table));
    auto parsed = ParseTableName(names, "a table name");
    if (!parsed.ok() || !names.AtEnd()) {
      return ts_.ErrorAt(name, "table_changes: '" + table + "' is not a table name");
    }
    source->table = std::move(*parsed);
    if (!ts_.AcceptOperator(",")) {
      return ts_.Expected("',' and the first version (or a timestamp) after the table's name");
    }
    const Token& start = ts_.Peek();
    if (start.kind == TokenKind::kNumber) {
      int64_t version = 0;
      const std::string text = ts_.Next().text;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
      if (error != std::errc() || end != text.data() + text.size() || version < 0) {
        return ts_.ErrorAt(start, "table_changes: the first version is a whole number >= 0");
      }
      source->starting_version = version;
    } else if (start.kind == TokenKind::kString) {
      source->starting_timestamp = ts_.Next().text;
    } else {
      return ts_.Expected("the first version (a number) or a timestamp (a string)");
    }
    if (ts_.PeekOperator(",")) {
      return NotSupported(ts_, ts_.Peek(), "an end version in a streaming table_changes",
                          "a stream reads on as the table changes");
    }
    if (!ts_.AcceptOperator(")")) {
      return ts_.Expected("')' to close the table_changes( at " +
                          DescribePosition(ts_.source(), open.offset));
    }
    return Status::OK();
  }

  // read_files('path', name => value, ...), read_postgres(name => value, ...) or
  // read_kafka(name => value, ...).
  Status ParseFunction(SourceRef* source, SourceRef::Kind kind) {
    source->kind = kind;
    const bool files = kind == SourceRef::Kind::kReadFiles;
    const std::string function = files                                 ? "read_files"
                                 : kind == SourceRef::Kind::kReadKafka ? "read_kafka"
                                                                       : "read_postgres";
    ts_.Next();  // the function's name
    const Token& open = ts_.Next();
    bool first = true;
    if (files) {
      CDCLAKE_ASSIGN_OR_RETURN(source->path,
                               ExpectString(ts_, "the path of read_files as a string"));
      first = false;
    }
    while (first ? !ts_.PeekOperator(")") : ts_.AcceptOperator(",")) {
      first = false;
      NamedArgument arg;
      const Token& name_token = ts_.Peek();
      arg.position = PositionOf(ts_, name_token);
      if (name_token.kind != TokenKind::kIdentifier &&
          name_token.kind != TokenKind::kQuotedIdentifier) {
        if (name_token.kind == TokenKind::kString || name_token.kind == TokenKind::kNumber) {
          return ts_.ErrorAt(name_token, files ? "read_files takes one path; write further "
                                                 "arguments as name => value"
                                               : function + " takes arguments as name => value");
        }
        return ts_.Expected("an option name of " + function);
      }
      arg.name = ts_.Next().text;
      const Token& eq = ts_.Peek();
      const Token& gt = ts_.Peek(1);
      if (!eq.IsOperator("=") || !gt.IsOperator(">") || gt.offset != eq.offset + 1) {
        return ts_.Expected("'=>' after the option name '" + arg.name + "'");
      }
      ts_.Next();
      ts_.Next();
      const Token& value = ts_.Peek();
      if (value.kind == TokenKind::kString) {
        arg.kind = NamedArgument::Kind::kString;
        arg.value = ts_.Next().text;
      } else if (value.kind == TokenKind::kNumber) {
        arg.kind = NamedArgument::Kind::kNumber;
        arg.value = ts_.Next().text;
      } else if (value.IsOperator("-") && ts_.Peek(1).kind == TokenKind::kNumber) {
        ts_.Next();
        arg.kind = NamedArgument::Kind::kNumber;
        arg.value = "-" + ts_.Next().text;
      } else if (value.IsKeyword("TRUE") || value.IsKeyword("FALSE")) {
        arg.kind = NamedArgument::Kind::kBoolean;
        arg.value = ts_.Next().IsKeyword("TRUE") ? "true" : "false";
      } else {
        return ts_.Expected("a string, number, TRUE or FALSE for the option '" + arg.name + "'");
      }
      for (const NamedArgument& other : source->options) {
        if (ToLowerAscii(other.name) == ToLowerAscii(arg.name)) {
          return ts_.ErrorAt(name_token, function + " option '" + arg.name + "' appears twice");
        }
      }
      source->options.push_back(std::move(arg));
    }
    if (!ts_.AcceptOperator(")")) {
      return ts_.Expected("',' or ')' to close the " + function + "( at " +
                          DescribePosition(ts_.source(), open.offset));
    }
    return Status::OK();
  }

  Result<SelectItem> ParseItem() {
    SelectItem item;
    const Token& start = ts_.Peek();
    item.position = PositionOf(ts_, start);
    // `*` or `a.b.*`.
    size_t ahead = 0;
    while (IsName(ts_.Peek(ahead)) && ts_.PeekOperator(".", ahead + 1)) {
      if (ts_.PeekOperator("*", ahead + 2)) {
        for (size_t i = 0; i <= ahead; i += 2) item.qualifier.push_back(ts_.Peek(i).text);
        for (size_t i = 0; i < ahead + 2; ++i) ts_.Next();
        break;
      }
      ahead += 2;
    }
    if (ts_.AcceptOperator("*")) {
      item.kind = SelectItem::Kind::kStar;
      if (ts_.AcceptKeyword("EXCEPT")) {
        CDCLAKE_ASSIGN_OR_RETURN(item.except, ParseParenthesizedNames(ts_, "* EXCEPT"));
      }
      return item;
    }
    if (start.kind == TokenKind::kEnd || start.IsKeyword("FROM")) {
      return ts_.Expected("a select item");
    }
    item.kind = SelectItem::Kind::kExpression;
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<data::Expr> expression, ParseExpression(ts_));
    item.expression = std::move(expression);
    if (ts_.AcceptKeyword("AS")) {
      CDCLAKE_ASSIGN_OR_RETURN(item.alias, ts_.ExpectName("an alias after AS"));
    } else if (IsName(ts_.Peek()) && !IsClauseWord(ts_.Peek())) {
      item.alias = ts_.Next().text;
    }
    return item;
  }

  // Clauses that may follow the source but cdclake does not run.
  Status RejectAfterFrom() {
    const Token& t = ts_.Peek();
    if (t.IsOperator(",")) return NotSupported(ts_, t, "a join (',' between sources)");
    for (std::string_view w :
         {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "SEMI", "ANTI"}) {
      if (t.IsKeyword(w)) return NotSupported(ts_, t, "JOIN");
    }
    if (t.IsKeyword("LATERAL")) return NotSupported(ts_, t, "LATERAL VIEW");
    if (t.IsKeyword("TABLESAMPLE")) return NotSupported(ts_, t, "TABLESAMPLE");
    if (t.IsKeyword("PIVOT") || t.IsKeyword("UNPIVOT")) return NotSupported(ts_, t, Upper(t.text));
    return Status::OK();
  }

  Status RejectAfterWhere() {
    const Token& t = ts_.Peek();
    if (t.IsKeyword("GROUP") && ts_.PeekKeyword("BY", 1)) return NotSupported(ts_, t, "GROUP BY");
    if (t.IsKeyword("ORDER") && ts_.PeekKeyword("BY", 1)) return NotSupported(ts_, t, "ORDER BY");
    if (t.IsKeyword("SORT") && ts_.PeekKeyword("BY", 1)) return NotSupported(ts_, t, "SORT BY");
    if (t.IsKeyword("CLUSTER") && ts_.PeekKeyword("BY", 1)) {
      return NotSupported(ts_, t, "CLUSTER BY in a query");
    }
    if (t.IsKeyword("DISTRIBUTE") && ts_.PeekKeyword("BY", 1)) {
      return NotSupported(ts_, t, "DISTRIBUTE BY");
    }
    for (std::string_view w : {"HAVING", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT", "MINUS",
                               "WINDOW", "QUALIFY"}) {
      if (t.IsKeyword(w)) return NotSupported(ts_, t, std::string(w));
    }
    return RejectAfterFrom();
  }

  static std::string Upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
  }

  static std::string ToLowerAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }

  TokenStream& ts_;
};

}  // namespace

Result<SourceRef> ParseSourceRef(TokenStream& tokens) {
  return SelectParser(&tokens).ParseSource();
}

Result<SelectQuery> ParseSelectQuery(TokenStream& tokens) {
  return SelectParser(&tokens).ParseSelect();
}

}  // namespace cdclake::sql
