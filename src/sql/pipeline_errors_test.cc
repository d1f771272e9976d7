// Tests for pipeline syntax errors: malformed statements and Databricks syntax cdclake does not
// run, each with its exact line and column.
#include <gtest/gtest.h>

#include "sql/pipeline_parser.h"

namespace cdclake::sql {
namespace {

// The first line of the error ParsePipeline reports for `text`.
std::string FirstLine(std::string_view text) {
  auto r = ParsePipeline(text, {{"known", "x"}});
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = r.status().message();
  return m.substr(0, m.find('\n'));
}

constexpr std::string_view kFlowHead = "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s)\n";

std::string Flow(std::string_view clauses) {
  return std::string(kFlowHead) + std::string(clauses);
}

TEST(PipelineErrorsTest, ErrorShowsLineAndCaret) {
  auto r = ParsePipeline("SET a = 1;\nCREATE STREAMING TABEL t;");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "line 2, column 18: expected TABLE after STREAMING, found 'TABEL'\n"
            "  CREATE STREAMING TABEL t;\n                   ^");
}

TEST(PipelineErrorsTest, UnknownStatements) {
  EXPECT_EQ(FirstLine("  FOO bar;"),
            "line 1, column 3: expected SET, CREATE or APPLY CHANGES INTO at the start of a "
            "statement, found 'FOO'");
  EXPECT_EQ(FirstLine("SET a = 1;\nINSERT INTO t SELECT 1"),
            "line 2, column 1: a INSERT statement in a pipeline file is not supported by cdclake; "
            "pipelines hold SET, CREATE and APPLY CHANGES statements");
  EXPECT_EQ(FirstLine("AUTO CDC INTO t FROM s KEYS (k) SEQUENCE BY s"),
            "line 1, column 1: AUTO CDC INTO needs a flow: CREATE FLOW name AS AUTO CDC INTO ...");
}

TEST(PipelineErrorsTest, MissingSemicolonBetweenStatements) {
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE a\nCREATE STREAMING TABLE b"),
            "line 2, column 1: expected ';' or the end of the statement, found 'CREATE'");
}

TEST(PipelineErrorsTest, SetErrors) {
  EXPECT_EQ(FirstLine("SET;"), "line 1, column 4: expected a key = value after SET, found ';'");
  EXPECT_EQ(FirstLine("SET a.b c;"),
            "line 1, column 10: expected '=' after the key of SET, found ';'");
  EXPECT_EQ(FirstLine("SET = 1"), "line 1, column 5: expected a key before '=', found '='");
}

TEST(PipelineErrorsTest, UndefinedVariable) {
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE ${known};\nSET a = ${unknown}"),
            "line 2, column 9: undefined variable 'unknown'");
}

TEST(PipelineErrorsTest, LexerErrorsComeThrough) {
  EXPECT_EQ(FirstLine("SET a = 1;\nCREATE STREAMING TABLE t COMMENT 'open"),
            "line 2, column 34: unterminated string: no closing '");
}

TEST(PipelineErrorsTest, NotSupportedCreateForms) {
  EXPECT_EQ(FirstLine("CREATE OR REFRESH MATERIALIZED VIEW mv AS SELECT * FROM t"),
            "line 1, column 19: MATERIALIZED VIEW is not supported by cdclake");
  EXPECT_EQ(FirstLine("CREATE LIVE TABLE t AS SELECT * FROM s"),
            "line 1, column 8: LIVE TABLE (a materialized view) is not supported by cdclake; "
            "declare a STREAMING TABLE");
  EXPECT_EQ(FirstLine("CREATE OR REFRESH PRIVATE STREAMING TABLE t"),
            "line 1, column 19: PRIVATE is not supported by cdclake");
  EXPECT_EQ(FirstLine("CREATE VIEW v AS SELECT * FROM t"),
            "line 1, column 8: a published VIEW is not supported by cdclake; write CREATE "
            "TEMPORARY VIEW");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS INSERT INTO t SELECT * FROM s"),
            "line 1, column 32: expected BY NAME after the target (an append flow matches "
            "columns by name), found 'SELECT'");
  EXPECT_EQ(FirstLine("CREATE OR REPLACE STREAMING TABLE t"),
            "line 1, column 8: a streaming table is created with CREATE OR REFRESH, not OR "
            "REPLACE");
  EXPECT_EQ(FirstLine("CREATE OR REFRESH FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE BY s"),
            "line 1, column 8: CREATE FLOW takes no OR REFRESH or OR REPLACE");
}

TEST(PipelineErrorsTest, NotSupportedTableClauses) {
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t\n  CLUSTER BY (a)"),
            "line 2, column 3: CLUSTER BY is not supported by cdclake; use PARTITIONED BY");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (\n  id INT,\n  CONSTRAINT ok CHECK (id > 0)\n)"),
            "line 3, column 17: a CHECK constraint is not supported by cdclake; a pipeline checks "
            "rows with CONSTRAINT name EXPECT (condition)");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (CONSTRAINT a EXPECT (x > 0), CONSTRAINT a EXPECT "
                      "(y > 0))"),
            "line 1, column 56: expectation 'a' is defined twice for the table");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (CONSTRAINT a EXPECT (x > 0) ON VIOLATION "
                      "DELETE)"),
            "line 1, column 68: expected DROP ROW or FAIL UPDATE after ON VIOLATION, found "
            "'DELETE'");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (id INT GENERATED ALWAYS AS (1))"),
            "line 1, column 34: column option GENERATED is not supported by cdclake");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t LOCATION '/x'"),
            "line 1, column 26: LOCATION is not supported by cdclake");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t COMMENT 'a' COMMENT 'b'"),
            "line 1, column 38: COMMENT appears twice");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v (CONSTRAINT c EXPECT (a > 0), a INT) AS SELECT "
                      "* FROM s"),
            "line 1, column 55: a column list on a view is not supported by cdclake; a view's "
            "list holds expectations only");
}

TEST(PipelineErrorsTest, ColumnDefinitionErrorsPointIntoTheFile) {
  EXPECT_EQ(FirstLine("SET a = 1;\nCREATE STREAMING TABLE t (\n  id INT,\n  name STRNG\n)"),
            "line 4, column 8: unknown type 'STRNG'");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (id INT, ID BIGINT)"),
            "line 1, column 35: column 'ID' appears twice (first at line 1, column 27)");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t ( )"),
            "line 1, column 26: empty column list: give columns or leave out the '()'");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t (id INT"),
            "line 1, column 26: '(' of the column definitions is never closed");
}

TEST(PipelineErrorsTest, ClausesOutOfOrder) {
  EXPECT_EQ(FirstLine(Flow("KEYS (k)\nSEQUENCE BY seq\nIGNORE NULL UPDATES")),
            "line 4, column 1: IGNORE NULL UPDATES must come before SEQUENCE BY (AUTO CDC "
            "clauses follow a fixed order)");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY seq STORED AS SCD TYPE 2 COLUMNS * EXCEPT (a)")),
            "line 2, column 47: COLUMNS must come before STORED AS (AUTO CDC clauses follow a "
            "fixed order)");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY a SEQUENCE BY b")),
            "line 2, column 24: SEQUENCE BY appears twice");
  EXPECT_EQ(FirstLine(Flow("SEQUENCE BY seq KEYS (k)")),
            "line 2, column 1: expected KEYS (...) right after the source; it is the first "
            "clause, found 'SEQUENCE'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) STORED AS SCD TYPE 1")),
            "line 2, column 10: expected SEQUENCE BY before STORED AS, found 'STORED'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k);")),
            "line 2, column 9: expected SEQUENCE BY (AUTO CDC needs the column that orders the "
            "changes), found ';'");
}

TEST(PipelineErrorsTest, MalformedClauses) {
  EXPECT_EQ(FirstLine(Flow("KEYS k SEQUENCE BY s")),
            "line 2, column 6: expected '(' and a column list after KEYS, found 'k'");
  EXPECT_EQ(FirstLine(Flow("KEYS (a, b c) SEQUENCE BY s")),
            "line 2, column 12: expected ',' or ')' to close the list opened at line 2, column "
            "6, found 'c'");
  EXPECT_EQ(FirstLine(Flow("KEYS (a, A) SEQUENCE BY s")),
            "line 2, column 10: column 'A' appears twice in KEYS (first at line 2, column 7)");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) APPLY AS DELETE op = 'D' SEQUENCE BY s")),
            "line 2, column 26: expected WHEN and a condition after APPLY AS DELETE, found 'op'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) APPLY AS UPSERT WHEN op = 'U' SEQUENCE BY s")),
            "line 2, column 19: expected DELETE WHEN or TRUNCATE WHEN after APPLY AS, found "
            "'UPSERT'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s STORED AS SCD TYPE 3")),
            "line 2, column 43: expected 1 or 2 after SCD TYPE, found '3'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s COLUMNS * (a)")),
            "line 2, column 34: expected EXCEPT after 'COLUMNS *', found '('");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s TRACK HISTORY ON (a)")),
            "line 2, column 24: TRACK HISTORY ON needs STORED AS SCD TYPE 2 before it");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s.t")),
            "line 2, column 23: SEQUENCE BY takes top-level columns, not nested fields");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s extra")),
            "line 2, column 24: expected ';' or the end of the statement, found 'extra'");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) APPLY AS DELETE WHEN op = = 'D' SEQUENCE BY s")),
            "line 2, column 36: expected a value after '=', found '='");
  // SEQUENCE is not reserved, so a condition missing its value reads it as a column.
  EXPECT_EQ(FirstLine(Flow("KEYS (k) APPLY AS DELETE WHEN op = SEQUENCE BY s")),
            "line 2, column 45: expected SEQUENCE BY (AUTO CDC needs the column that orders the "
            "changes), found 'BY'");
}

TEST(PipelineErrorsTest, NotSupportedFlowClauses) {
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s SYSTEM SEQUENCE BY t")),
            "line 2, column 24: SYSTEM SEQUENCE BY is not supported by cdclake");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s STORED AS BITEMPORAL")),
            "line 2, column 34: STORED AS BITEMPORAL is not supported by cdclake");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY s COLUMNS TO UPDATE c")),
            "line 2, column 24: COLUMNS TO UPDATE is not supported by cdclake");
  EXPECT_EQ(FirstLine(Flow("KEYS (k) SEQUENCE BY to_timestamp(ts)")),
            "line 2, column 22: an expression in SEQUENCE BY is not supported by cdclake; use a "
            "column or STRUCT(columns), computed upstream if needed");
}

TEST(PipelineErrorsTest, FlowHeaderErrors) {
  EXPECT_EQ(FirstLine("CREATE FLOW f AUTO CDC INTO t"),
            "line 1, column 15: expected AS after the flow name, found 'AUTO'");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC t FROM s"),
            "line 1, column 27: expected INTO after AUTO CDC, found 't'");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC INTO t KEYS (k)"),
            "line 1, column 34: expected FROM and the source after the target, found 'KEYS'");
  EXPECT_EQ(FirstLine("APPLY CHANGES target FROM s"),
            "line 1, column 15: expected INTO after APPLY CHANGES, found 'target'");
  EXPECT_EQ(FirstLine("CREATE FLOW a.b AS AUTO CDC INTO t"),
            "line 1, column 14: a flow name is a single name, without a schema");
}

TEST(PipelineErrorsTest, SnapshotFlowErrors) {
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT (STREAM(s)) KEYS (k)"),
            "line 1, column 49: a snapshot is read whole; STREAM does not apply to it");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT (s) KEYS (k) SEQUENCE BY v"),
            "line 1, column 61: SEQUENCE BY is not allowed here in an AUTO CDC FROM SNAPSHOT "
            "flow (it takes KEYS, STORED AS, TRACK HISTORY ON, in order)");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC ONCE INTO t FROM SNAPSHOT (s) KEYS (k)"),
            "line 1, column 27: AUTO CDC ONCE with FROM SNAPSHOT is not supported by cdclake");
  EXPECT_EQ(FirstLine("APPLY CHANGES INTO t FROM SNAPSHOT (s) KEYS (k)"),
            "line 1, column 27: FROM SNAPSHOT needs AUTO CDC INTO, not APPLY CHANGES INTO");
}

TEST(PipelineErrorsTest, SourceErrors) {
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(cloud_files('/p', 'json')) "
                      "KEYS (k) SEQUENCE BY s"),
            "line 1, column 46: cloud_files(...) is not supported by cdclake; use read_files(...)");
  EXPECT_EQ(FirstLine("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s KEYS (k) SEQUENCE BY s"),
            "line 1, column 48: expected ')' to close the STREAM( at line 1, column 45, found "
            "'KEYS'");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM read_files('/p', format = 'json')"),
            "line 1, column 66: expected '=>' after the option name 'format', found '='");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM read_files('/p', 'json')"),
            "line 1, column 59: read_files takes one path; write further arguments as name => "
            "value");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM read_files(format => 'json')"),
            "line 1, column 53: expected the path of read_files as a string, found 'format'");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM read_files('/p', a => x)"),
            "line 1, column 64: expected a string, number, TRUE or FALSE for the option 'a', "
            "found 'x'");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM read_files('/p', a => 1, A => 2)"),
            "line 1, column 67: read_files option 'A' appears twice");
  EXPECT_EQ(FirstLine("CREATE TEMPORARY VIEW v AS SELECT * FROM (SELECT * FROM s)"),
            "line 1, column 43: a subquery in FROM is not supported by cdclake");
}

TEST(PipelineErrorsTest, SelectErrors) {
  constexpr std::string_view kView = "CREATE TEMPORARY VIEW v AS\n";
  auto view = [&](std::string_view query) { return std::string(kView) + std::string(query); };
  EXPECT_EQ(FirstLine(view("SELECT DISTINCT a FROM s")),
            "line 2, column 8: SELECT DISTINCT is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s JOIN t ON s.a = t.a")),
            "line 2, column 17: JOIN is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s x LEFT JOIN t")),
            "line 2, column 19: JOIN is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s, t")),
            "line 2, column 16: a join (',' between sources) is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s WHERE a > 1 GROUP BY a")),
            "line 2, column 29: GROUP BY is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s ORDER BY a")),
            "line 2, column 17: ORDER BY is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s UNION SELECT a FROM t")),
            "line 2, column 17: UNION is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s LIMIT 10")),
            "line 2, column 17: LIMIT is not supported by cdclake");
  EXPECT_EQ(FirstLine(view("SELECT a b c FROM s")),
            "line 2, column 12: expected ',' or FROM after the select item, found 'c'");
  EXPECT_EQ(FirstLine(view("SELECT FROM s")),
            "line 2, column 8: expected a select item, found 'FROM'");
  EXPECT_EQ(FirstLine(view("SELECT * EXCEPT a FROM s")),
            "line 2, column 17: expected '(' and a column list after * EXCEPT, found 'a'");
  EXPECT_EQ(FirstLine(view("SELECT a FROM s WHERE")),
            "line 2, column 22: expected an expression, found end of input");
  EXPECT_EQ(FirstLine("CREATE STREAMING TABLE t AS FROM s"),
            "line 1, column 29: expected SELECT after AS, found 'FROM'");
}

}  // namespace
}  // namespace cdclake::sql
