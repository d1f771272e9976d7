// Tests for ParsePipeline: every statement form and the fields it fills.
#include "sql/pipeline_parser.h"

#include <gtest/gtest.h>

namespace cdclake::sql {
namespace {

PipelineAst Parse(std::string_view text, const std::map<std::string, std::string>& vars = {}) {
  auto r = ParsePipeline(text, vars);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : PipelineAst{};
}

// The one statement of `ast`, copied out (the AST is usually a temporary).
template <typename T>
T Only(const PipelineAst& ast) {
  EXPECT_EQ(ast.statements.size(), 1u);
  if (ast.statements.size() != 1) return T{};
  const T* s = ast.statements[0].As<T>();
  EXPECT_NE(s, nullptr) << "statement holds another kind";
  return s != nullptr ? *s : T{};
}

using Names = std::vector<std::string>;

TEST(PipelineParserTest, EmptyFileAndEmptyStatements) {
  EXPECT_TRUE(Parse("").statements.empty());
  EXPECT_TRUE(Parse("  -- nothing\n ; ; /* still nothing */").statements.empty());
}

TEST(PipelineParserTest, SetKeepsKeyAndValueAsWritten) {
  auto ast = Parse("SET pipelines.trigger.interval = 1 hour;\nset x='a b'");
  ASSERT_EQ(ast.statements.size(), 2u);
  const auto* first = ast.statements[0].As<SetStatement>();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->key, "pipelines.trigger.interval");
  EXPECT_EQ(first->value, "1 hour");
  const auto* second = ast.statements[1].As<SetStatement>();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->key, "x");
  EXPECT_EQ(second->value, "'a b'");
  EXPECT_EQ(ast.statements[1].position.line, 2);
  EXPECT_EQ(ast.statements[1].position.column, 1);
}

TEST(PipelineParserTest, SetWithEmptyValue) {
  const auto& s = Only<SetStatement>(Parse("SET a.b = ;"));
  EXPECT_EQ(s.key, "a.b");
  EXPECT_EQ(s.value, "");
}

TEST(PipelineParserTest, BareStreamingTable) {
  const auto& t =
      Only<CreateStreamingTable>(Parse("CREATE OR REFRESH STREAMING TABLE users_current"));
  EXPECT_EQ(t.name.parts, Names({"users_current"}));
  EXPECT_TRUE(t.or_refresh);
  EXPECT_FALSE(t.legacy_live);
  EXPECT_FALSE(t.schema.has_value());
  EXPECT_FALSE(t.query.has_value());
  EXPECT_TRUE(t.comment.empty());
}

TEST(PipelineParserTest, StreamingTableWithEverything) {
  const auto& t = Only<CreateStreamingTable>(Parse(R"(
    create streaming table main.silver.`users`
      (id BIGINT NOT NULL COMMENT 'key', name STRING, amount DECIMAL(10, 2), tags ARRAY<STRING>)
      TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', pipelines.reset.allowed = false, 'n' 3)
      COMMENT "The users"
      PARTITIONED BY (name)
    AS SELECT * FROM STREAM(raw_users);)"));
  EXPECT_FALSE(t.or_refresh);
  EXPECT_EQ(t.name.parts, Names({"main", "silver", "users"}));
  ASSERT_TRUE(t.schema.has_value());
  ASSERT_EQ(t.schema->num_fields(), 4u);
  EXPECT_EQ(t.schema->field(0).name, "id");
  EXPECT_FALSE(t.schema->field(0).nullable);
  EXPECT_EQ(t.schema->field(2).name, "amount");
  EXPECT_EQ(t.comment, "The users");
  EXPECT_EQ(t.partition_columns, Names({"name"}));
  ASSERT_EQ(t.properties.size(), 3u);
  EXPECT_EQ(t.properties[0].key, "delta.enableChangeDataFeed");
  EXPECT_EQ(t.properties[0].value, "true");
  EXPECT_EQ(t.properties[1].key, "pipelines.reset.allowed");
  EXPECT_EQ(t.properties[1].value, "false");
  EXPECT_EQ(t.properties[2].value, "3");
  ASSERT_TRUE(t.query.has_value());
  EXPECT_TRUE(t.query->from.streaming);
  EXPECT_EQ(t.query->from.table.parts, Names({"raw_users"}));
}

TEST(PipelineParserTest, LegacyStreamingLiveTable) {
  const auto& t = Only<CreateStreamingTable>(
      Parse("CREATE STREAMING LIVE TABLE bronze AS SELECT * FROM STREAM(LIVE.raw)"));
  EXPECT_TRUE(t.legacy_live);
  EXPECT_EQ(t.name.parts, Names({"bronze"}));
  ASSERT_TRUE(t.query.has_value());
  EXPECT_TRUE(t.query->from.table.HasLivePrefix());
  EXPECT_EQ(t.query->from.table.WithoutLive(), Names({"raw"}));
  EXPECT_EQ(t.query->from.table.ToString(), "LIVE.raw");
}

TEST(PipelineParserTest, TemporaryViews) {
  auto ast = Parse(R"(
CREATE TEMPORARY VIEW v1 AS SELECT id, name AS full_name FROM src;
CREATE OR REPLACE TEMPORARY LIVE VIEW v2 COMMENT 'c' AS SELECT * EXCEPT (_rescued) FROM LIVE.src;
CREATE TEMPORARY STREAMING LIVE VIEW v3 AS SELECT * FROM STREAM(LIVE.src);
CREATE LIVE VIEW v4 AS SELECT * FROM src
)");
  ASSERT_EQ(ast.statements.size(), 4u);
  const auto* v1 = ast.statements[0].As<CreateView>();
  ASSERT_NE(v1, nullptr);
  EXPECT_FALSE(v1->or_replace);
  ASSERT_EQ(v1->query.items.size(), 2u);
  EXPECT_EQ(v1->query.items[1].alias, "full_name");
  const auto* v2 = ast.statements[1].As<CreateView>();
  ASSERT_NE(v2, nullptr);
  EXPECT_TRUE(v2->or_replace);
  EXPECT_EQ(v2->comment, "c");
  EXPECT_EQ(v2->query.items[0].except, Names({"_rescued"}));
  const auto* v3 = ast.statements[2].As<CreateView>();
  ASSERT_NE(v3, nullptr);
  EXPECT_TRUE(v3->query.from.streaming);
  EXPECT_EQ(ast.statements[3].As<CreateView>()->name.parts, Names({"v4"}));
  EXPECT_EQ(ast.statements[3].position.line, 5);
}

TEST(PipelineParserTest, AutoCdcFlowWithEveryClause) {
  const auto& f = Only<AutoCdcFlow>(Parse(R"(
CREATE FLOW users_flow COMMENT 'apply users' AS AUTO CDC INTO users
FROM STREAM(cdc.users_feed)
KEYS (userId, tenant)
IGNORE NULL UPDATES ON * EXCEPT (name)
APPLY AS DELETE WHEN operation = 'DELETE'
APPLY AS TRUNCATE WHEN operation = "TRUNCATE"
SEQUENCE BY STRUCT(ts, lsn)
COLUMNS * EXCEPT (operation, ts)
STORED AS SCD TYPE 2
TRACK HISTORY ON (name, city);
)"));
  EXPECT_EQ(f.flow_name, "users_flow");
  EXPECT_EQ(f.comment, "apply users");
  EXPECT_EQ(f.spelling, AutoCdcFlow::Spelling::kAutoCdc);
  EXPECT_FALSE(f.once);
  EXPECT_EQ(f.target.parts, Names({"users"}));
  EXPECT_TRUE(f.source.streaming);
  EXPECT_EQ(f.source.table.parts, Names({"cdc", "users_feed"}));
  EXPECT_EQ(f.keys, Names({"userId", "tenant"}));
  EXPECT_TRUE(f.ignore_null_updates);
  EXPECT_EQ(f.ignore_null_updates_columns.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(f.ignore_null_updates_columns.columns, Names({"name"}));
  ASSERT_NE(f.apply_as_delete, nullptr);
  EXPECT_EQ(f.apply_as_delete->ToString(), "operation = 'DELETE'");
  ASSERT_NE(f.apply_as_truncate, nullptr);
  EXPECT_EQ(f.apply_as_truncate->ToString(), "operation = 'TRUNCATE'");
  EXPECT_EQ(f.sequence_by, Names({"ts", "lsn"}));
  EXPECT_TRUE(f.sequence_by_struct);
  EXPECT_EQ(f.sequence_by_position.line, 8);
  EXPECT_EQ(f.sequence_by_position.column, 13);
  EXPECT_EQ(f.columns.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(f.columns.columns, Names({"operation", "ts"}));
  EXPECT_EQ(f.scd_type, 2);
  EXPECT_EQ(f.track_history.mode, ColumnSelection::Mode::kOnly);
  EXPECT_EQ(f.track_history.columns, Names({"name", "city"}));
}

TEST(PipelineParserTest, AutoCdcDefaultsWhenClausesAreLeftOut) {
  const auto& f = Only<AutoCdcFlow>(
      Parse("create flow f as auto cdc once into t from s keys (k) sequence by seq"));
  EXPECT_TRUE(f.once);
  EXPECT_FALSE(f.source.streaming);
  EXPECT_FALSE(f.ignore_null_updates);
  EXPECT_EQ(f.ignore_null_updates_columns.mode, ColumnSelection::Mode::kAll);
  EXPECT_EQ(f.apply_as_delete, nullptr);
  EXPECT_EQ(f.apply_as_truncate, nullptr);
  EXPECT_EQ(f.sequence_by, Names({"seq"}));
  EXPECT_FALSE(f.sequence_by_struct);
  EXPECT_EQ(f.columns.mode, ColumnSelection::Mode::kAll);
  EXPECT_EQ(f.scd_type, 1);
  EXPECT_EQ(f.track_history.mode, ColumnSelection::Mode::kAll);
}

TEST(PipelineParserTest, ColumnListsWithAndWithoutParentheses) {
  const auto& f = Only<AutoCdcFlow>(Parse(
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM s KEYS (k) IGNORE NULL UPDATES ON a, b "
      "SEQUENCE BY seq COLUMNS (k, a, b) STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (b)"));
  EXPECT_TRUE(f.source.streaming);
  EXPECT_EQ(f.source.table.parts, Names({"s"}));
  EXPECT_EQ(f.ignore_null_updates_columns.mode, ColumnSelection::Mode::kOnly);
  EXPECT_EQ(f.ignore_null_updates_columns.columns, Names({"a", "b"}));
  EXPECT_EQ(f.columns.mode, ColumnSelection::Mode::kOnly);
  EXPECT_EQ(f.columns.columns, Names({"k", "a", "b"}));
  EXPECT_EQ(f.track_history.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(f.track_history.columns, Names({"b"}));
}

TEST(PipelineParserTest, BareIgnoreNullUpdates) {
  const auto& f = Only<AutoCdcFlow>(
      Parse("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (k) IGNORE NULL UPDATES "
            "SEQUENCE BY seq"));
  EXPECT_TRUE(f.ignore_null_updates);
  EXPECT_EQ(f.ignore_null_updates_columns.mode, ColumnSelection::Mode::kAll);
}

TEST(PipelineParserTest, LegacyApplyChanges) {
  auto ast = Parse(R"(
APPLY CHANGES INTO LIVE.target FROM STREAM(LIVE.source) KEYS (id) SEQUENCE BY seq;
CREATE FLOW f AS APPLY CHANGES INTO target FROM STREAM(source) KEYS (id) SEQUENCE BY seq;
)");
  ASSERT_EQ(ast.statements.size(), 2u);
  const auto* bare = ast.statements[0].As<AutoCdcFlow>();
  ASSERT_NE(bare, nullptr);
  EXPECT_EQ(bare->spelling, AutoCdcFlow::Spelling::kApplyChanges);
  EXPECT_EQ(bare->flow_name, "");
  EXPECT_EQ(bare->target.WithoutLive(), Names({"target"}));
  EXPECT_EQ(bare->source.table.ToString(), "LIVE.source");
  EXPECT_EQ(ast.statements[0].position.line, 2);
  const auto* named = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->spelling, AutoCdcFlow::Spelling::kApplyChanges);
  EXPECT_EQ(named->flow_name, "f");
}

TEST(PipelineParserTest, SnapshotFlow) {
  const auto& f = Only<SnapshotFlow>(Parse(
      "CREATE FLOW snap AS AUTO CDC INTO dim FROM SNAPSHOT (main.raw.customers) "
      "WITH VERSION (snapshot_version) KEYS (id) STORED AS SCD TYPE 2 TRACK HISTORY ON (name)"));
  EXPECT_EQ(f.flow_name, "snap");
  EXPECT_EQ(f.target.parts, Names({"dim"}));
  EXPECT_FALSE(f.source.streaming);
  EXPECT_EQ(f.source.table.parts, Names({"main", "raw", "customers"}));
  ASSERT_NE(f.version, nullptr);
  EXPECT_EQ(f.version->ToString(), "snapshot_version");
  EXPECT_EQ(f.keys, Names({"id"}));
  EXPECT_EQ(f.scd_type, 2);
  EXPECT_EQ(f.track_history.columns, Names({"name"}));
}

TEST(PipelineParserTest, SnapshotFlowMinimal) {
  const auto& f =
      Only<SnapshotFlow>(Parse("CREATE FLOW s AS AUTO CDC INTO t FROM SNAPSHOT src KEYS (a, b)"));
  EXPECT_EQ(f.source.table.parts, Names({"src"}));
  EXPECT_EQ(f.version, nullptr);
  EXPECT_EQ(f.scd_type, 1);
  EXPECT_EQ(f.keys, Names({"a", "b"}));
}

TEST(PipelineParserTest, ReadFilesSources) {
  const auto& f = Only<AutoCdcFlow>(Parse(R"(
CREATE FLOW f AS AUTO CDC INTO t
FROM STREAM(read_files('/data/cdc/*.json', format => 'debezium', maxFiles => 10,
                       inferSchema => true, offset => -1))
KEYS (id) SEQUENCE BY ts)"));
  EXPECT_TRUE(f.source.streaming);
  EXPECT_EQ(f.source.kind, SourceRef::Kind::kReadFiles);
  EXPECT_EQ(f.source.path, "/data/cdc/*.json");
  ASSERT_EQ(f.source.options.size(), 4u);
  EXPECT_EQ(f.source.options[0].name, "format");
  EXPECT_EQ(f.source.options[0].kind, NamedArgument::Kind::kString);
  EXPECT_EQ(f.source.options[0].value, "debezium");
  EXPECT_EQ(f.source.options[1].kind, NamedArgument::Kind::kNumber);
  EXPECT_EQ(f.source.options[1].value, "10");
  EXPECT_EQ(f.source.options[2].kind, NamedArgument::Kind::kBoolean);
  EXPECT_EQ(f.source.options[2].value, "true");
  EXPECT_EQ(f.source.options[3].value, "-1");
  ASSERT_NE(f.source.FindOption("FORMAT"), nullptr);
  EXPECT_EQ(f.source.FindOption("FORMAT")->value, "debezium");
  EXPECT_EQ(f.source.FindOption("schema"), nullptr);
  EXPECT_EQ(f.source.position.line, 3);
  EXPECT_EQ(f.source.position.column, 6);
}

TEST(PipelineParserTest, ReadFilesWithoutStream) {
  const auto& t = Only<CreateStreamingTable>(
      Parse("CREATE STREAMING TABLE raw AS SELECT * FROM read_files('s3://b/p/')"));
  ASSERT_TRUE(t.query.has_value());
  EXPECT_FALSE(t.query->from.streaming);
  EXPECT_EQ(t.query->from.kind, SourceRef::Kind::kReadFiles);
  EXPECT_EQ(t.query->from.path, "s3://b/p/");
  EXPECT_TRUE(t.query->from.options.empty());
}

TEST(PipelineParserTest, SelectItemsAliasesAndWhere) {
  const auto& v = Only<CreateView>(
      Parse("CREATE TEMPORARY VIEW v AS SELECT c.*, c.a.* EXCEPT (x), id AS `key`, name n, 'lit' "
            "FROM STREAM(src) AS c WHERE op <> 'D' AND id IS NOT NULL"));
  const auto& q = v.query;
  ASSERT_EQ(q.items.size(), 5u);
  EXPECT_EQ(q.items[0].kind, SelectItem::Kind::kStar);
  EXPECT_EQ(q.items[0].qualifier, Names({"c"}));
  EXPECT_EQ(q.items[1].qualifier, Names({"c", "a"}));
  EXPECT_EQ(q.items[1].except, Names({"x"}));
  EXPECT_EQ(q.items[2].kind, SelectItem::Kind::kExpression);
  EXPECT_EQ(q.items[2].expression->ToString(), "id");
  EXPECT_EQ(q.items[2].alias, "key");
  EXPECT_EQ(q.items[3].alias, "n");
  EXPECT_EQ(q.items[4].alias, "");
  EXPECT_EQ(q.items[4].position.column, 79);
  EXPECT_EQ(q.from_alias, "c");
  ASSERT_NE(q.where, nullptr);
  EXPECT_EQ(q.where->kind, data::ExprKind::kAnd);
}

TEST(PipelineParserTest, SourceWithImplicitAlias) {
  const auto& v = Only<CreateView>(
      Parse("CREATE TEMPORARY VIEW v AS SELECT s.* FROM LIVE.src s WHERE s.a = 1"));
  EXPECT_EQ(v.query.from_alias, "s");
  EXPECT_EQ(v.query.from.table.ToString(), "LIVE.src");
  ASSERT_NE(v.query.where, nullptr);
}

TEST(PipelineParserTest, KeywordsAreCaseInsensitiveAndCommentsSkipped) {
  const auto& f = Only<AutoCdcFlow>(Parse(R"(
-- a flow
cReAtE /* inline */ FlOw f aS aUtO cDc InTo t
FROM stream(s)   -- the feed
keys (k) /* multi
line */ sequence BY seq stored AS scd type 2)"));
  EXPECT_EQ(f.flow_name, "f");
  EXPECT_EQ(f.scd_type, 2);
}

TEST(PipelineParserTest, StatementPositionsAndSource) {
  auto ast = Parse("SET a = 1;\n  CREATE STREAMING TABLE t;\n\tSET b = 2");
  ASSERT_EQ(ast.statements.size(), 3u);
  EXPECT_EQ(ast.statements[1].position.line, 2);
  EXPECT_EQ(ast.statements[1].position.column, 3);
  EXPECT_EQ(ast.statements[1].position.offset, 13u);
  EXPECT_EQ(ast.statements[2].position.line, 3);
  EXPECT_EQ(ast.statements[2].position.column, 2);
  EXPECT_EQ(ast.source.substr(ast.statements[1].position.offset, 6), "CREATE");
}

TEST(PipelineParserTest, VariablesAreSubstitutedBeforeParsing) {
  auto ast = Parse(
      "CREATE FLOW f AS AUTO CDC INTO ${schema}.users FROM STREAM(read_files('${path}/*.json')) "
      "KEYS (id) SEQUENCE BY ts",
      {{"schema", "silver"}, {"path", "/landing"}});
  const auto& f = Only<AutoCdcFlow>(ast);
  EXPECT_EQ(f.target.parts, Names({"silver", "users"}));
  EXPECT_EQ(f.source.path, "/landing/*.json");
  EXPECT_NE(ast.source.find("silver.users"), std::string::npos);
}

TEST(PipelineParserTest, ExpectationsOnAStreamingTable) {
  PipelineAst ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE shop.orders (
  id BIGINT NOT NULL,
  CONSTRAINT valid_id EXPECT (id > 0),
  amount DECIMAL(10, 2),
  CONSTRAINT known_customer EXPECT (customer IS NOT NULL AND customer <> '') ON VIOLATION DROP ROW,
  CONSTRAINT sane EXPECT (amount < 1000000) ON VIOLATION FAIL UPDATE
) AS SELECT * FROM STREAM(read_files('/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE shop.only_checks (CONSTRAINT c EXPECT (x = 1));
)");
  const auto* t = ast.statements[0].As<CreateStreamingTable>();
  ASSERT_NE(t, nullptr);
  ASSERT_TRUE(t->schema.has_value());
  ASSERT_EQ(t->schema->num_fields(), 2u);
  EXPECT_EQ(t->schema->field(1).name, "amount");
  ASSERT_EQ(t->expectations.size(), 3u);
  EXPECT_EQ(t->expectations[0].name, "valid_id");
  EXPECT_EQ(t->expectations[0].text, "id > 0");
  EXPECT_EQ(t->expectations[0].action, Expectation::Action::kWarn);
  EXPECT_EQ(t->expectations[1].text, "customer IS NOT NULL AND customer <> ''");
  EXPECT_EQ(t->expectations[1].action, Expectation::Action::kDropRow);
  EXPECT_EQ(t->expectations[2].action, Expectation::Action::kFailUpdate);
  EXPECT_EQ(t->expectations[2].position.line, 7);
  EXPECT_NE(t->expectations[1].condition, nullptr);
  const auto* only = ast.statements[1].As<CreateStreamingTable>();
  ASSERT_NE(only, nullptr);
  EXPECT_FALSE(only->schema.has_value()) << "expectations alone declare no columns";
  ASSERT_EQ(only->expectations.size(), 1u);
}

TEST(PipelineParserTest, TableChangesFromAVersionOrATimestamp) {
  PipelineAst ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE g AS SELECT * FROM STREAM(table_changes('shop.customers', 3));
CREATE OR REFRESH STREAMING TABLE h AS SELECT * FROM STREAM(table_changes('c', '2026-01-02'));
)");
  const auto* g = ast.statements[0].As<CreateStreamingTable>();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->query->from.kind, SourceRef::Kind::kTableChanges);
  EXPECT_EQ(g->query->from.table.ToString(), "shop.customers");
  EXPECT_EQ(g->query->from.starting_version, 3);
  EXPECT_TRUE(g->query->from.streaming);
  const auto* h = ast.statements[1].As<CreateStreamingTable>();
  ASSERT_NE(h, nullptr);
  EXPECT_FALSE(h->query->from.starting_version.has_value());
  EXPECT_EQ(h->query->from.starting_timestamp, "2026-01-02");
  for (const auto& [text, error] : std::vector<std::pair<std::string, std::string>>{
           {"table_changes('t')", "expected ',' and the first version"},
           {"table_changes('t', -1)", "expected the first version (a number) or a timestamp"},
           {"table_changes('not a name!', 0)", "table_changes: 'not a name!' is not a table name"},
           {"table_changes('t', 0, 5)", "an end version in a streaming table_changes"}}) {
    auto r =
        ParsePipeline("CREATE OR REFRESH STREAMING TABLE x AS SELECT * FROM STREAM(" + text + ")");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find(error), std::string::npos) << r.status().ToString();
  }
}

TEST(PipelineParserTest, AppendFlows) {
  AppendFlow f = Only<AppendFlow>(
      Parse("CREATE FLOW from_eu COMMENT 'EU shop' AS INSERT INTO ONCE sales.orders BY NAME\n"
            "SELECT id, amount FROM STREAM(eu.orders) WHERE amount > 0"));
  EXPECT_EQ(f.flow_name, "from_eu");
  EXPECT_EQ(f.comment, "EU shop");
  EXPECT_TRUE(f.once);
  EXPECT_EQ(f.target.ToString(), "sales.orders");
  EXPECT_EQ(f.query.items.size(), 2u);
  EXPECT_TRUE(f.query.where != nullptr);
  AppendFlow plain = Only<AppendFlow>(
      Parse("CREATE FLOW f AS INSERT INTO t BY NAME SELECT * FROM STREAM(read_files('x'))"));
  EXPECT_FALSE(plain.once);
  EXPECT_EQ(plain.target.ToString(), "t");
}

}  // namespace
}  // namespace cdclake::sql
