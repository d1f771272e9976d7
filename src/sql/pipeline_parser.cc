// The statement level of pipeline files: SET, CREATE STREAMING TABLE, CREATE TEMPORARY VIEW,
// CREATE FLOW and APPLY CHANGES INTO, each up to its ';'. Flow bodies and queries have their own
// parsers.
#include "sql/pipeline_parser.h"

#include "base/strings.h"
#include "sql/expression_parser_internal.h"
#include "sql/pipeline_flow_parser_internal.h"
#include "sql/pipeline_parse_helpers_internal.h"
#include "sql/pipeline_select_parser_internal.h"
#include "sql/pipeline_variables.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool IsStatementEnd(const Token& t) {
  return t.kind == TokenKind::kEnd || t.IsOperator(";");
}

class StatementParser {
 public:
  explicit StatementParser(TokenStream* tokens) : ts_(*tokens) {}

  Result<std::vector<PipelineStatement>> ParseAll() {
    std::vector<PipelineStatement> statements;
    while (true) {
      while (ts_.AcceptOperator(";")) {
      }
      if (ts_.AtEnd()) break;
      PipelineStatement statement;
      statement.position = PositionOf(ts_, ts_.Peek());
      CDCLAKE_ASSIGN_OR_RETURN(statement.body, ParseStatement());
      if (!IsStatementEnd(ts_.Peek())) {
        return ts_.Expected("';' or the end of the statement");
      }
      statements.push_back(std::move(statement));
    }
    return statements;
  }

 private:
  Result<PipelineStatement::Body> ParseStatement() {
    const Token& t = ts_.Peek();
    if (t.IsKeyword("SET")) return ParseSet();
    if (t.IsKeyword("CREATE")) return ParseCreate();
    if (t.IsKeyword("APPLY") && ts_.PeekKeyword("CHANGES", 1)) {
      ts_.Next();
      ts_.Next();
      if (!ts_.AcceptKeyword("INTO")) return ts_.Expected("INTO after APPLY CHANGES");
      FlowHeader header;
      header.spelling = AutoCdcFlow::Spelling::kApplyChanges;
      return ParseFlowBody(ts_, std::move(header));
    }
    if (t.IsKeyword("AUTO") && ts_.PeekKeyword("CDC", 1)) {
      return ts_.ErrorAt(t, "AUTO CDC INTO needs a flow: CREATE FLOW name AS AUTO CDC INTO ...");
    }
    for (std::string_view w : {"INSERT", "MERGE", "UPDATE", "DELETE", "ALTER", "DROP", "USE",
                               "SELECT", "WITH", "REFRESH", "CACHE", "ANALYZE", "OPTIMIZE"}) {
      if (t.IsKeyword(w)) {
        return NotSupported(ts_, t, "a " + Upper(w) + " statement in a pipeline file",
                            "pipelines hold SET, CREATE and APPLY CHANGES statements");
      }
    }
    return ts_.Expected("SET, CREATE or APPLY CHANGES INTO at the start of a statement");
  }

  // SET key = value: both kept as written.
  Result<PipelineStatement::Body> ParseSet() {
    ts_.Next();  // SET
    if (IsStatementEnd(ts_.Peek())) return ts_.Expected("a key = value after SET");
    const Token& key_first = ts_.Peek();
    if (key_first.IsOperator("=")) return ts_.Expected("a key before '='");
    const Token* key_last = &key_first;
    while (!ts_.PeekOperator("=")) {
      if (IsStatementEnd(ts_.Peek())) return ts_.Expected("'=' after the key of SET");
      key_last = &ts_.Next();
    }
    ts_.Next();  // '='
    SetStatement statement;
    std::string_view source = ts_.source();
    statement.key = std::string(
        source.substr(key_first.offset, key_last->offset + key_last->length - key_first.offset));
    if (!IsStatementEnd(ts_.Peek())) {
      const Token& value_first = ts_.Peek();
      const Token* value_last = &value_first;
      while (!IsStatementEnd(ts_.Peek())) value_last = &ts_.Next();
      statement.value = std::string(source.substr(
          value_first.offset, value_last->offset + value_last->length - value_first.offset));
    }
    return PipelineStatement::Body(std::move(statement));
  }

  Result<PipelineStatement::Body> ParseCreate() {
    ts_.Next();  // CREATE
    const Token* or_token = nullptr;
    bool or_refresh = false, or_replace = false;
    if (ts_.PeekKeyword("OR")) {
      or_token = &ts_.Next();
      if (ts_.AcceptKeyword("REFRESH")) {
        or_refresh = true;
      } else if (ts_.AcceptKeyword("REPLACE")) {
        or_replace = true;
      } else {
        return ts_.Expected("REFRESH or REPLACE after CREATE OR");
      }
    }
    const Token& t = ts_.Peek();
    if (t.IsKeyword("PRIVATE")) return NotSupported(ts_, t, "PRIVATE");
    if (t.IsKeyword("MATERIALIZED")) return NotSupported(ts_, t, "MATERIALIZED VIEW");
    if (t.IsKeyword("SINK")) return NotSupported(ts_, t, "CREATE SINK");
    if (t.IsKeyword("FUNCTION")) return NotSupported(ts_, t, "CREATE FUNCTION");
    if (t.IsKeyword("TEMPORARY") || t.IsKeyword("TEMP")) {
      ts_.Next();
      if (ts_.PeekKeyword("STREAMING") && ts_.PeekKeyword("TABLE", 1)) {
        return NotSupported(ts_, t, "a TEMPORARY STREAMING TABLE");
      }
      return ParseView(or_refresh ? or_token : nullptr, or_replace);
    }
    if (t.IsKeyword("STREAMING")) {
      // STREAMING TABLE, STREAMING LIVE TABLE, STREAMING LIVE VIEW (a legacy temporary view).
      if (ts_.PeekKeyword("TABLE", 1) ||
          (ts_.PeekKeyword("LIVE", 1) && ts_.PeekKeyword("TABLE", 2))) {
        if (or_replace) {
          return ts_.ErrorAt(*or_token,
                             "a streaming table is created with CREATE OR REFRESH, not OR REPLACE");
        }
        return ParseStreamingTable(or_refresh);
      }
      if (ts_.PeekKeyword("LIVE", 1) && ts_.PeekKeyword("VIEW", 2)) {
        return ParseView(or_refresh ? or_token : nullptr, or_replace);
      }
      ts_.Next();
      return ts_.Expected("TABLE after STREAMING");
    }
    if (t.IsKeyword("LIVE") && ts_.PeekKeyword("VIEW", 1)) {
      return ParseView(or_refresh ? or_token : nullptr, or_replace);
    }
    if (t.IsKeyword("LIVE") && ts_.PeekKeyword("TABLE", 1)) {
      return NotSupported(ts_, t, "LIVE TABLE (a materialized view)", "declare a STREAMING TABLE");
    }
    if (t.IsKeyword("TABLE")) {
      return NotSupported(ts_, t, "CREATE TABLE in a pipeline", "declare a STREAMING TABLE");
    }
    if (t.IsKeyword("VIEW")) {
      return NotSupported(ts_, t, "a published VIEW", "write CREATE TEMPORARY VIEW");
    }
    if (t.IsKeyword("FLOW")) {
      if (or_token != nullptr) {
        return ts_.ErrorAt(*or_token, "CREATE FLOW takes no OR REFRESH or OR REPLACE");
      }
      return ParseFlow();
    }
    return ts_.Expected("STREAMING TABLE, FLOW or TEMPORARY VIEW after CREATE");
  }

  // After CREATE [OR REFRESH] at STREAMING [LIVE] TABLE.
  Result<PipelineStatement::Body> ParseStreamingTable(bool or_refresh) {
    CreateStreamingTable table;
    table.or_refresh = or_refresh;
    ts_.Next();  // STREAMING
    table.legacy_live = ts_.AcceptKeyword("LIVE");
    ts_.Next();  // TABLE
    if (ts_.PeekKeyword("IF")) return NotSupported(ts_, ts_.Peek(), "IF NOT EXISTS");
    CDCLAKE_ASSIGN_OR_RETURN(table.name, ParseTableName(ts_, "the table name"));
    if (ts_.PeekOperator("(")) {
      CDCLAKE_ASSIGN_OR_RETURN(table.schema, ParseColumnDefinitions(&table.expectations));
    }
    CDCLAKE_RETURN_IF_ERROR(ParseTableClauses(&table));
    if (ts_.AcceptKeyword("AS")) {
      if (!ts_.PeekKeyword("SELECT")) return ts_.Expected("SELECT after AS");
      CDCLAKE_ASSIGN_OR_RETURN(table.query, ParseSelectQuery(ts_));
    } else if (ts_.PeekKeyword("FLOW")) {
      return NotSupported(ts_, ts_.Peek(), "FLOW AUTO CDC inside CREATE STREAMING TABLE",
                          "declare the table, then CREATE FLOW name AS AUTO CDC INTO it");
    }
    return PipelineStatement::Body(std::move(table));
  }

  // CONSTRAINT name EXPECT (condition) [ON VIOLATION {DROP ROW | FAIL UPDATE}], at CONSTRAINT.
  Result<Expectation> ParseExpectation() {
    Expectation out;
    out.position = PositionOf(ts_, ts_.Peek());
    ts_.Next();  // CONSTRAINT
    CDCLAKE_ASSIGN_OR_RETURN(out.name, ts_.ExpectName("the expectation's name after CONSTRAINT"));
    if (!ts_.AcceptKeyword("EXPECT")) {
      if (ts_.PeekKeyword("CHECK")) {
        return NotSupported(ts_, ts_.Peek(), "a CHECK constraint",
                            "a pipeline checks rows with CONSTRAINT name EXPECT (condition)");
      }
      return ts_.Expected("EXPECT after the expectation's name");
    }
    if (!ts_.PeekOperator("(")) return ts_.Expected("'(' and the condition after EXPECT");
    const size_t begin = ts_.Peek().offset + 1;
    ts_.Next();
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<data::Expr> condition, ParseExpression(ts_));
    if (!ts_.PeekOperator(")")) return ts_.Expected("')' after the expectation's condition");
    out.text = std::string(ts_.source().substr(begin, ts_.Peek().offset - begin));
    while (!out.text.empty() && out.text.back() == ' ') out.text.pop_back();
    while (!out.text.empty() && out.text.front() == ' ') out.text.erase(0, 1);
    out.condition = std::move(condition);
    ts_.Next();  // )
    if (ts_.AcceptKeyword("ON")) {
      if (!ts_.AcceptKeyword("VIOLATION")) return ts_.Expected("VIOLATION after ON");
      if (ts_.AcceptKeyword("DROP")) {
        if (!ts_.AcceptKeyword("ROW")) return ts_.Expected("ROW after DROP");
        out.action = Expectation::Action::kDropRow;
      } else if (ts_.AcceptKeyword("FAIL")) {
        if (!ts_.AcceptKeyword("UPDATE")) return ts_.Expected("UPDATE after FAIL");
        out.action = Expectation::Action::kFailUpdate;
      } else {
        return ts_.Expected("DROP ROW or FAIL UPDATE after ON VIOLATION");
      }
    }
    return out;
  }

  // (name TYPE [NOT NULL] [COMMENT '...'], ..., CONSTRAINT ... EXPECT ...), the expectations
  // into `expectations`; other column options rejected by name. nullopt when the list holds
  // expectations only.
  Result<std::optional<data::Schema>> ParseColumnDefinitions(
      std::vector<Expectation>* expectations) {
    const Token& open = ts_.Peek();
    // Look through the list first for what ParseSchemaDdl would only call unexpected.
    int depth = 0;
    bool item_start = true;
    bool has_expectations = false;
    for (size_t ahead = 0;; ++ahead) {
      const Token& t = ts_.Peek(ahead);
      if (t.kind == TokenKind::kEnd) break;
      if (t.IsOperator("(")) {
        ++depth;
        item_start = depth == 1;
        continue;
      }
      if (t.IsOperator(")")) {
        if (--depth == 0) break;
        continue;
      }
      if (depth != 1) continue;
      if (t.IsOperator(",")) {
        item_start = true;
        continue;
      }
      if (item_start) {
        if (t.IsKeyword("CONSTRAINT")) {
          // An expectation: its condition may hold any word.
          has_expectations = true;
          item_start = false;
          int inner = 0;
          for (++ahead;; ++ahead) {
            const Token& u = ts_.Peek(ahead);
            if (u.kind == TokenKind::kEnd) break;
            if (u.IsOperator("(")) ++inner;
            if (u.IsOperator(")") && inner-- == 0) break;
            if (inner == 0 && u.IsOperator(",")) break;
          }
          --ahead;
          continue;
        }
        if ((t.IsKeyword("PRIMARY") || t.IsKeyword("FOREIGN")) &&
            ts_.PeekKeyword("KEY", ahead + 1)) {
          return NotSupported(ts_, t, Upper(t.text) + " KEY constraints");
        }
      } else {
        for (std::string_view w : {"GENERATED", "DEFAULT", "MASK", "CONSTRAINT", "PRIMARY"}) {
          if (t.IsKeyword(w)) return NotSupported(ts_, t, "column option " + Upper(w));
        }
      }
      item_start = false;
    }
    if (!has_expectations) {
      CDCLAKE_ASSIGN_OR_RETURN(auto range, SkipParenthesized(ts_, "the column definitions"));
      bool empty = true;
      for (size_t i = range.first; i < range.second; ++i) {
        char c = ts_.source()[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') empty = false;
      }
      if (empty) return ts_.ErrorAt(open, "empty column list: give columns or leave out the '()'");
      CDCLAKE_ASSIGN_OR_RETURN(data::Schema schema,
                               ParseSchemaSlice(ts_.source(), range.first, range.second));
      return std::optional<data::Schema>(std::move(schema));
    }
    // Item by item: each column definition parsed as a slice of its own, expectations here.
    ts_.Next();  // (
    if (ts_.PeekOperator(")")) {
      return ts_.ErrorAt(open, "empty column list: give columns or leave out the '()'");
    }
    std::vector<data::Field> fields;
    bool any_column = false;
    while (true) {
      if (ts_.PeekKeyword("CONSTRAINT")) {
        CDCLAKE_ASSIGN_OR_RETURN(Expectation e, ParseExpectation());
        for (const Expectation& before : *expectations) {
          if (ToLower(before.name) == ToLower(e.name)) {
            return SyntaxError(ts_.source(), e.position.offset,
                               "expectation '" + e.name + "' is defined twice for the table");
          }
        }
        expectations->push_back(std::move(e));
      } else {
        const size_t begin = ts_.Peek().offset;
        int depth = 0;
        while (true) {
          const Token& t = ts_.Peek();
          if (t.kind == TokenKind::kEnd) return ts_.Expected("')' after the column definitions");
          if (depth == 0 && (t.IsOperator(",") || t.IsOperator(")"))) break;
          if (t.IsOperator("(") || t.IsOperator("<")) ++depth;
          if (t.IsOperator(")") || t.IsOperator(">")) --depth;
          ts_.Next();
        }
        CDCLAKE_ASSIGN_OR_RETURN(data::Schema one,
                                 ParseSchemaSlice(ts_.source(), begin, ts_.Peek().offset));
        for (size_t i = 0; i < one.num_fields(); ++i) {
          for (const data::Field& f : fields) {
            if (ToLower(f.name) == ToLower(one.field(i).name)) {
              return SyntaxError(ts_.source(), begin,
                                 "column '" + one.field(i).name + "' appears twice");
            }
          }
          fields.push_back(one.field(i));
        }
        any_column = true;
      }
      if (ts_.AcceptOperator(",")) continue;
      if (ts_.AcceptOperator(")")) break;
      return ts_.Expected("',' or ')' in the column definitions");
    }
    if (!any_column) return std::optional<data::Schema>();
    return std::optional<data::Schema>(data::Schema(std::move(fields)));
  }

  // COMMENT, PARTITIONED BY and TBLPROPERTIES in any order, each once; others named.
  Status ParseTableClauses(CreateStreamingTable* table) {
    bool comment = false, partitioned = false, properties = false;
    while (true) {
      const Token& t = ts_.Peek();
      auto once = [&](bool* seen, std::string_view name) -> Status {
        if (*seen) return ts_.ErrorAt(t, std::string(name) + " appears twice");
        *seen = true;
        return Status::OK();
      };
      if (t.IsKeyword("COMMENT")) {
        CDCLAKE_RETURN_IF_ERROR(once(&comment, "COMMENT"));
        ts_.Next();
        CDCLAKE_ASSIGN_OR_RETURN(table->comment, ExpectString(ts_, "a string after COMMENT"));
      } else if (t.IsKeyword("PARTITIONED")) {
        CDCLAKE_RETURN_IF_ERROR(once(&partitioned, "PARTITIONED BY"));
        ts_.Next();
        if (!ts_.AcceptKeyword("BY")) return ts_.Expected("BY after PARTITIONED");
        CDCLAKE_ASSIGN_OR_RETURN(table->partition_columns,
                                 ParseParenthesizedNames(ts_, "PARTITIONED BY"));
      } else if (t.IsKeyword("TBLPROPERTIES")) {
        CDCLAKE_RETURN_IF_ERROR(once(&properties, "TBLPROPERTIES"));
        ts_.Next();
        CDCLAKE_ASSIGN_OR_RETURN(table->properties, ParseProperties());
      } else if (t.IsKeyword("CLUSTER") && ts_.PeekKeyword("BY", 1)) {
        return NotSupported(ts_, t, "CLUSTER BY", "use PARTITIONED BY");
      } else if (t.IsKeyword("LOCATION")) {
        return NotSupported(ts_, t, "LOCATION");
      } else if (t.IsKeyword("USING")) {
        return NotSupported(ts_, t, "USING", "pipeline tables are Delta tables");
      } else if (t.IsKeyword("SCHEDULE") || t.IsKeyword("TRIGGER")) {
        return NotSupported(ts_, t, Upper(t.text));
      } else if (t.IsKeyword("WITH") || (t.IsKeyword("ROW") && ts_.PeekKeyword("FILTER", 1))) {
        return NotSupported(ts_, t, "ROW FILTER");
      } else if (t.IsKeyword("DEFAULT") && ts_.PeekKeyword("COLLATION", 1)) {
        return NotSupported(ts_, t, "DEFAULT COLLATION");
      } else {
        return Status::OK();
      }
    }
  }

  // ('key' = 'value', key.part = value, ...): keys as strings or dotted names, '=' optional.
  Result<std::vector<TableProperty>> ParseProperties() {
    if (!ts_.PeekOperator("(")) return ts_.Expected("'(' after TBLPROPERTIES");
    const Token& open = ts_.Next();
    std::vector<TableProperty> properties;
    do {
      TableProperty property;
      if (ts_.Peek().kind == TokenKind::kString) {
        property.key = ts_.Next().text;
      } else {
        CDCLAKE_ASSIGN_OR_RETURN(TableName key, ParseTableName(ts_, "a property key"));
        property.key = key.ToString();
      }
      ts_.AcceptOperator("=");
      const Token& value = ts_.Peek();
      if (value.kind == TokenKind::kString || value.kind == TokenKind::kNumber) {
        property.value = ts_.Next().text;
      } else if (value.IsKeyword("TRUE") || value.IsKeyword("FALSE")) {
        property.value = ToLower(ts_.Next().text);
      } else {
        return ts_.Expected("a value for the property '" + property.key + "'");
      }
      properties.push_back(std::move(property));
    } while (ts_.AcceptOperator(","));
    if (!ts_.AcceptOperator(")")) {
      return ts_.Expected("',' or ')' to close the TBLPROPERTIES( at " +
                          DescribePosition(ts_.source(), open.offset));
    }
    return properties;
  }

  // After CREATE [OR REPLACE] TEMPORARY, or at STREAMING LIVE VIEW / LIVE VIEW.
  Result<PipelineStatement::Body> ParseView(const Token* or_refresh, bool or_replace) {
    if (or_refresh != nullptr) {
      return ts_.ErrorAt(*or_refresh, "a view is created with CREATE OR REPLACE, not OR REFRESH");
    }
    CreateView view;
    view.or_replace = or_replace;
    ts_.AcceptKeyword("STREAMING");
    ts_.AcceptKeyword("LIVE");
    if (ts_.PeekKeyword("MATERIALIZED")) return NotSupported(ts_, ts_.Peek(), "MATERIALIZED VIEW");
    if (!ts_.AcceptKeyword("VIEW")) return ts_.Expected("VIEW");
    CDCLAKE_ASSIGN_OR_RETURN(view.name, ParseTableName(ts_, "the view name"));
    if (ts_.PeekOperator("(")) {
      if (!ts_.PeekKeyword("CONSTRAINT", 1)) {
        return NotSupported(ts_, ts_.Peek(), "a column list on a view");
      }
      ts_.Next();  // (
      while (true) {
        if (!ts_.PeekKeyword("CONSTRAINT")) {
          return NotSupported(ts_, ts_.Peek(), "a column list on a view",
                              "a view's list holds expectations only");
        }
        CDCLAKE_ASSIGN_OR_RETURN(Expectation e, ParseExpectation());
        for (const Expectation& before : view.expectations) {
          if (ToLower(before.name) == ToLower(e.name)) {
            return SyntaxError(ts_.source(), e.position.offset,
                               "expectation '" + e.name + "' is defined twice for the view");
          }
        }
        view.expectations.push_back(std::move(e));
        if (ts_.AcceptOperator(",")) continue;
        if (ts_.AcceptOperator(")")) break;
        return ts_.Expected("',' or ')' after the expectation");
      }
    }
    if (ts_.AcceptKeyword("COMMENT")) {
      CDCLAKE_ASSIGN_OR_RETURN(view.comment, ExpectString(ts_, "a string after COMMENT"));
    }
    if (ts_.PeekKeyword("TBLPROPERTIES"))
      return NotSupported(ts_, ts_.Peek(), "TBLPROPERTIES on a view");
    if (!ts_.AcceptKeyword("AS")) return ts_.Expected("AS SELECT ... after the view name");
    if (!ts_.PeekKeyword("SELECT")) return ts_.Expected("SELECT after AS");
    CDCLAKE_ASSIGN_OR_RETURN(view.query, ParseSelectQuery(ts_));
    return PipelineStatement::Body(std::move(view));
  }

  // After CREATE at FLOW: name [COMMENT '...'] AS AUTO CDC [ONCE] INTO | APPLY CHANGES INTO |
  // INSERT INTO.
  Result<PipelineStatement::Body> ParseFlow() {
    ts_.Next();  // FLOW
    FlowHeader header;
    CDCLAKE_ASSIGN_OR_RETURN(header.flow_name, ts_.ExpectName("the flow name"));
    if (ts_.PeekOperator(".")) {
      return ts_.ErrorAt(ts_.Peek(), "a flow name is a single name, without a schema");
    }
    if (ts_.AcceptKeyword("COMMENT")) {
      CDCLAKE_ASSIGN_OR_RETURN(header.comment, ExpectString(ts_, "a string after COMMENT"));
    }
    if (!ts_.AcceptKeyword("AS")) return ts_.Expected("AS after the flow name");
    const Token& t = ts_.Peek();
    if (t.IsKeyword("AUTO")) {
      ts_.Next();
      if (!ts_.AcceptKeyword("CDC")) return ts_.Expected("CDC after AUTO");
      if (ts_.PeekKeyword("ONCE")) {
        header.once = true;
        header.once_token = &ts_.Next();
      }
      if (!ts_.AcceptKeyword("INTO")) return ts_.Expected("INTO after AUTO CDC");
    } else if (t.IsKeyword("APPLY") && ts_.PeekKeyword("CHANGES", 1)) {
      ts_.Next();
      ts_.Next();
      header.spelling = AutoCdcFlow::Spelling::kApplyChanges;
      if (!ts_.AcceptKeyword("INTO")) return ts_.Expected("INTO after APPLY CHANGES");
    } else if (t.IsKeyword("INSERT")) {
      return ParseAppendFlow(std::move(header));
    } else {
      return ts_.Expected("AUTO CDC INTO, APPLY CHANGES INTO or INSERT INTO after AS");
    }
    return ParseFlowBody(ts_, std::move(header));
  }

  // After AS at INSERT: INTO [ONCE] target BY NAME SELECT ...
  Result<PipelineStatement::Body> ParseAppendFlow(FlowHeader header) {
    ts_.Next();  // INSERT
    if (!ts_.AcceptKeyword("INTO")) return ts_.Expected("INTO after INSERT");
    AppendFlow flow;
    flow.flow_name = std::move(header.flow_name);
    flow.comment = std::move(header.comment);
    flow.once = ts_.AcceptKeyword("ONCE");
    CDCLAKE_ASSIGN_OR_RETURN(flow.target, ParseTableName(ts_, "the flow's target table"));
    if (!ts_.AcceptKeyword("BY") || !ts_.AcceptKeyword("NAME")) {
      return ts_.Expected("BY NAME after the target (an append flow matches columns by name)");
    }
    if (!ts_.PeekKeyword("SELECT")) return ts_.Expected("SELECT after BY NAME");
    CDCLAKE_ASSIGN_OR_RETURN(flow.query, ParseSelectQuery(ts_));
    return PipelineStatement::Body(std::move(flow));
  }

  TokenStream& ts_;
};

}  // namespace

Result<PipelineAst> ParsePipeline(std::string_view text,
                                  const std::map<std::string, std::string>& variables,
                                  bool substitute_variables) {
  PipelineAst ast;
  if (substitute_variables) {
    CDCLAKE_ASSIGN_OR_RETURN(ast.source, SubstituteVariables(text, variables));
  } else {
    ast.source = std::string(text);
  }
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream tokens, TokenStream::Open(ast.source));
  CDCLAKE_ASSIGN_OR_RETURN(ast.statements, StatementParser(&tokens).ParseAll());
  return ast;
}

}  // namespace cdclake::sql
