// A corpus of real pipeline SQL: the AUTO CDC examples of the Databricks documentation (retyped;
// their flow settings are those in shared/testdata/autocdc-docs/*/params.json) and the SQL
// snippets in shared/seeds, parsed whole.
#include <gtest/gtest.h>

#include "sql/pipeline_parser.h"

namespace cdclake::sql {
namespace {

using Names = std::vector<std::string>;

PipelineAst Parse(std::string_view text) {
  auto r = ParsePipeline(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : PipelineAst{};
}

// The docs' SCD type 1 example (folder scd1-users).
TEST(PipelineCorpusTest, DocsScd1Example) {
  auto ast = Parse(R"(
-- Create and populate the target table.
CREATE OR REFRESH STREAMING TABLE target;

CREATE FLOW
  flowname
AS AUTO CDC INTO
  target
FROM
  stream(cdc_data.users)
KEYS
  (userId)
APPLY AS DELETE WHEN
  operation = "DELETE"
APPLY AS TRUNCATE WHEN
  operation = "TRUNCATE"
SEQUENCE BY
  sequenceNum
COLUMNS * EXCEPT
  (operation, sequenceNum)
STORED AS
  SCD TYPE 1;
)");
  ASSERT_EQ(ast.statements.size(), 2u);
  ASSERT_NE(ast.statements[0].As<CreateStreamingTable>(), nullptr);
  const auto* f = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ast.statements[1].position.line, 5);
  EXPECT_EQ(f->flow_name, "flowname");
  EXPECT_EQ(f->source.table.parts, Names({"cdc_data", "users"}));
  EXPECT_TRUE(f->source.streaming);
  EXPECT_EQ(f->keys, Names({"userId"}));
  EXPECT_EQ(f->sequence_by, Names({"sequenceNum"}));
  EXPECT_EQ(f->apply_as_delete->ToString(), "operation = 'DELETE'");
  EXPECT_EQ(f->apply_as_truncate->ToString(), "operation = 'TRUNCATE'");
  EXPECT_EQ(f->columns.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(f->columns.columns, Names({"operation", "sequenceNum"}));
  EXPECT_EQ(f->scd_type, 1);
}

// The docs' SCD type 2 examples (folders scd2-users and scd2-users-track-history-except-city).
TEST(PipelineCorpusTest, DocsScd2Examples) {
  auto ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE target;
CREATE FLOW target_flow
AS AUTO CDC INTO target
FROM stream(cdc_data.users)
KEYS (userId)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY sequenceNum
COLUMNS * EXCEPT (operation, sequenceNum)
STORED AS SCD TYPE 2;

CREATE OR REFRESH STREAMING TABLE target_city;
CREATE FLOW target_city_flow
AS AUTO CDC INTO target_city
FROM stream(cdc_data.users)
KEYS (userId)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY sequenceNum
COLUMNS * EXCEPT (operation, sequenceNum)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (city);
)");
  ASSERT_EQ(ast.statements.size(), 4u);
  const auto* plain = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->scd_type, 2);
  EXPECT_EQ(plain->apply_as_truncate, nullptr);
  EXPECT_EQ(plain->track_history.mode, ColumnSelection::Mode::kAll);
  const auto* city = ast.statements[3].As<AutoCdcFlow>();
  ASSERT_NE(city, nullptr);
  EXPECT_EQ(city->track_history.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(city->track_history.columns, Names({"city"}));
  EXPECT_EQ(city->track_history.position.line, 21);
}

// The docs' legacy spelling of the same flow, before AUTO CDC and CREATE FLOW.
TEST(PipelineCorpusTest, DocsLegacyApplyChanges) {
  auto ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE target;

APPLY CHANGES INTO
  live.target
FROM
  stream(cdc_data.users)
KEYS
  (userId)
APPLY AS DELETE WHEN
  operation = "DELETE"
SEQUENCE BY
  sequenceNum
COLUMNS * EXCEPT
  (operation, sequenceNum)
STORED AS
  SCD TYPE 2
TRACK HISTORY ON * EXCEPT
  (city)
)");
  ASSERT_EQ(ast.statements.size(), 2u);
  const auto* f = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->spelling, AutoCdcFlow::Spelling::kApplyChanges);
  EXPECT_TRUE(f->target.HasLivePrefix());
  EXPECT_EQ(f->target.WithoutLive(), Names({"target"}));
}

// A bronze table over files and an AUTO CDC ONCE backfill, as the docs' ingestion pages write them.
TEST(PipelineCorpusTest, DocsReadFilesAndOnce) {
  auto ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE customers_bronze
COMMENT 'Raw change records'
AS SELECT * FROM STREAM read_files(
  '/Volumes/main/landing/customers/',
  format => 'json',
  inferColumnTypes => true
);

CREATE OR REFRESH STREAMING TABLE customers;

CREATE FLOW customers_backfill
AS AUTO CDC ONCE INTO customers
FROM customers_history
KEYS (customer_id)
SEQUENCE BY updated_at;

CREATE FLOW customers_live
AS AUTO CDC INTO customers
FROM STREAM(customers_bronze)
KEYS (customer_id)
IGNORE NULL UPDATES
SEQUENCE BY updated_at;
)");
  ASSERT_EQ(ast.statements.size(), 4u);
  const auto* bronze = ast.statements[0].As<CreateStreamingTable>();
  ASSERT_NE(bronze, nullptr);
  ASSERT_TRUE(bronze->query.has_value());
  EXPECT_TRUE(bronze->query->from.streaming);
  EXPECT_EQ(bronze->query->from.kind, SourceRef::Kind::kReadFiles);
  EXPECT_EQ(bronze->query->from.options.size(), 2u);
  const auto* backfill = ast.statements[2].As<AutoCdcFlow>();
  ASSERT_NE(backfill, nullptr);
  EXPECT_TRUE(backfill->once);
  EXPECT_FALSE(backfill->source.streaming);
  const auto* live = ast.statements[3].As<AutoCdcFlow>();
  ASSERT_NE(live, nullptr);
  EXPECT_TRUE(live->ignore_null_updates);
}

// seeds/002: the tutorial's SQL pair, stream() in lower case, double-quoted strings.
TEST(PipelineCorpusTest, Seed002TutorialFlow) {
  auto ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE users_current;

CREATE FLOW apply_cdc AS AUTO CDC INTO
  users_current
FROM
  stream(main.cdc_tutorial.users_cdf)
KEYS
  (userId)
APPLY AS DELETE WHEN
  operation = "DELETE"
APPLY AS TRUNCATE WHEN
  operation = "TRUNCATE"
SEQUENCE BY
  sequenceNum
COLUMNS * EXCEPT
  (operation, sequenceNum)
STORED AS
  SCD TYPE 1;
)");
  ASSERT_EQ(ast.statements.size(), 2u);
  const auto* f = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->source.table.parts, Names({"main", "cdc_tutorial", "users_cdf"}));
  EXPECT_EQ(f->columns.columns, Names({"operation", "sequenceNum"}));
}

// seeds/002 also prints the grammar synopsis; its brackets and braces are notation, not SQL.
TEST(PipelineCorpusTest, Seed002GrammarSynopsisIsNotSql) {
  auto r = ParsePipeline(
      "CREATE FLOW flow_name AS AUTO CDC [ONCE] INTO table_name\nFROM source\nKEYS (keys)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().substr(0, r.status().message().find('\n')),
            "line 1, column 35: expected INTO after AUTO CDC, found '['");
}

// seeds/004: the legacy APPLY CHANGES reference with LIVE. names.
TEST(PipelineCorpusTest, Seed004LegacyReference) {
  auto ast = Parse(R"(
-- Step 1: Declare the target Streaming Table
CREATE OR REFRESH STREAMING TABLE silver_dim_customers
COMMENT "Conformed customer dimension managed via Auto CDC";

-- Step 2: Ingest CDC changes into target
APPLY CHANGES INTO LIVE.silver_dim_customers
FROM STREAM(LIVE.bronze_customers_cdc_view)
KEYS (customer_id)
APPLY AS DELETE WHEN cdc_operation = 'DELETE'
APPLY AS TRUNCATE WHEN cdc_operation = 'TRUNCATE'
SEQUENCE BY change_sequence_number
COLUMNS * EXCEPT (cdc_operation, change_sequence_number, _metadata)
STORED AS SCD TYPE 1;
)");
  ASSERT_EQ(ast.statements.size(), 2u);
  const auto* table = ast.statements[0].As<CreateStreamingTable>();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->comment, "Conformed customer dimension managed via Auto CDC");
  const auto* f = ast.statements[1].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->source.table.ToString(), "LIVE.bronze_customers_cdc_view");
  EXPECT_EQ(f->columns.columns, Names({"cdc_operation", "change_sequence_number", "_metadata"}));
}

// seeds/004: SCD type 2 with a parenthesized TRACK HISTORY ON list.
TEST(PipelineCorpusTest, Seed004TrackHistory) {
  auto ast = Parse(R"(
-- SQL: SCD Type 2 with Selective History Tracking
APPLY CHANGES INTO LIVE.silver_dim_customer_scd2
FROM STREAM(LIVE.bronze_customer_cdc)
KEYS (customer_id)
SEQUENCE BY updated_at
STORED AS SCD TYPE 2
TRACK HISTORY ON (address, city, state, zip_code, credit_limit);
)");
  ASSERT_EQ(ast.statements.size(), 1u);
  const auto* f = ast.statements[0].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->scd_type, 2);
  EXPECT_EQ(f->track_history.mode, ColumnSelection::Mode::kOnly);
  EXPECT_EQ(f->track_history.columns.size(), 5u);
}

// seeds/004 puts IGNORE NULL UPDATES after SEQUENCE BY, against the documented clause order.
TEST(PipelineCorpusTest, Seed004IgnoreNullUpdatesOutOfOrder) {
  auto r = ParsePipeline(R"(APPLY CHANGES INTO LIVE.silver_customers
FROM STREAM(LIVE.bronze_cdc_stream)
KEYS (customer_id)
SEQUENCE BY event_timestamp
IGNORE NULL UPDATES
STORED AS SCD TYPE 1;)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().substr(0, r.status().message().find('\n')),
            "line 5, column 1: IGNORE NULL UPDATES must come before SEQUENCE BY (AUTO CDC "
            "clauses follow a fixed order)");
}

// A third-party walkthrough: a cleaning table with CAST and STREAM without parentheses, then
// an SCD type 2 flow.
TEST(PipelineCorpusTest, CleaningTableThenScd2Flow) {
  auto ast = Parse(R"(
CREATE OR REFRESH STREAMING TABLE customers_cdc_clean AS
SELECT customer_id, customer_name, email, CAST(updated_at AS TIMESTAMP) AS event_timestamp,
       operation
FROM STREAM bronze_customers_cdc
WHERE customer_id IS NOT NULL AND email IS NOT NULL;

CREATE OR REFRESH STREAMING TABLE dim_customers;

CREATE FLOW customers_scd2_flow AS
AUTO CDC INTO dim_customers
FROM stream(customers_cdc_clean)
KEYS (customer_id)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY event_timestamp
COLUMNS * EXCEPT (operation)
STORED AS SCD TYPE 2;
)");
  ASSERT_EQ(ast.statements.size(), 3u);
  const auto* clean = ast.statements[0].As<CreateStreamingTable>();
  ASSERT_NE(clean, nullptr);
  ASSERT_TRUE(clean->query.has_value());
  EXPECT_EQ(clean->query->items.size(), 5u);
  EXPECT_EQ(clean->query->items[3].alias, "event_timestamp");
  EXPECT_TRUE(clean->query->from.streaming);
}

// The example pipeline of docs/pipeline-language.md, kept in step with it.
TEST(PipelineCorpusTest, LanguageDocExample) {
  auto r = ParsePipeline(R"(
SET pipelines.trigger.interval = 1 minute;

-- Debezium change events landed as JSON files.
CREATE OR REFRESH STREAMING TABLE customers;

CREATE FLOW customers_cdc
COMMENT 'Debezium feed of the customers table'
AS AUTO CDC INTO customers
FROM STREAM(read_files('${landing}/customers/*.json', format => 'debezium'))
KEYS (customer_id)
APPLY AS DELETE WHEN op = 'd'
SEQUENCE BY STRUCT(ts_ms, lsn)
COLUMNS * EXCEPT (op, ts_ms, lsn)
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (last_login);

CREATE TEMPORARY VIEW active_orders AS
SELECT o.*, amount AS total FROM STREAM(raw.orders) o WHERE status <> 'cancelled';
)",
                         {{"landing", "/mnt/landing"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->statements.size(), 4u);
  const auto* f = r->statements[2].As<AutoCdcFlow>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->source.path, "/mnt/landing/customers/*.json");
  EXPECT_EQ(f->sequence_by, Names({"ts_ms", "lsn"}));
  const auto* v = r->statements[3].As<CreateView>();
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->query.from_alias, "o");
}

}  // namespace
}  // namespace cdclake::sql
