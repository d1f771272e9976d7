// PipelinePlan: parsed pipeline files planned into flows — folders, sources through views, AUTO
// CDC clauses as flow definitions, run order — and the planning errors with their positions.
#include "pipeline/pipeline_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "io/local_file_system.h"
#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {
namespace {

using apply::ColumnSelection;
using Names = std::vector<std::string>;

Result<PipelinePlan> PlanText(const std::string& text,
                              const std::map<std::string, std::string>& vars = {}) {
  auto ast = sql::ParsePipeline(text, vars);
  if (!ast.ok()) return ast.status();
  return PlanPipeline(*ast, Warehouse("/lake"));
}

PipelinePlan MustPlan(const std::string& text) {
  auto plan = PlanText(text);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? std::move(*plan) : PipelinePlan{};
}

// "line L, column C: " for the first occurrence of `needle` in `text` (columns count from 1).
std::string At(const std::string& text, const std::string& needle) {
  size_t offset = text.find(needle);
  EXPECT_NE(offset, std::string::npos) << needle;
  size_t line_start = text.rfind('\n', offset);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  int line = static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n')) + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1) +
         ": ";
}

// The planning error for `text`, which must be kInvalidArgument.
std::string PlanError(const std::string& text) {
  auto plan = PlanText(text);
  EXPECT_FALSE(plan.ok()) << text;
  if (plan.ok()) return "";
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument) << plan.status().ToString();
  return plan.status().message();
}

const FlowPlan* FindFlow(const PipelinePlan& plan, const std::string& name) {
  for (const FlowPlan& f : plan.flows) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Names FlowNames(const PipelinePlan& plan) {
  Names out;
  for (const FlowPlan& f : plan.flows) out.push_back(f.name);
  return out;
}

bool SameSelection(const std::optional<ColumnSelection>& s, ColumnSelection::Mode mode,
                   const Names& columns) {
  return s.has_value() && s->mode == mode && s->columns == columns;
}

TEST(PipelinePlanTest, TablesMapToWarehouseFoldersAndIngestFlowsReadFiles) {
  PipelinePlan plan = MustPlan(R"(
SET pipelines.trigger.interval = 1 minute;
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_files('/in/*.json', format => 'debezium',
                                   schema => 'amount DECIMAL(10,2)'));
CREATE OR REFRESH STREAMING TABLE plain;
CREATE OR REFRESH STREAMING TABLE LIVE.c.s.t;
)");
  EXPECT_EQ(plan.tables,
            (std::map<std::string, std::string>{{"shop.bronze", "/lake/shop/bronze"},
                                                {"default.plain", "/lake/default/plain"},
                                                {"c.s.t", "/lake/c/s/t"}}));
  EXPECT_EQ(plan.settings.at("pipelines.trigger.interval"), "1 minute");
  ASSERT_EQ(plan.flows.size(), 1u);  // tables without AS SELECT have no flow of their own
  const FlowPlan& f = plan.flows[0];
  EXPECT_EQ(f.kind, FlowPlan::Kind::kIngest);
  EXPECT_EQ(f.name, "shop.bronze");
  EXPECT_EQ(f.target, "shop.bronze");
  EXPECT_EQ(f.target_folder, "/lake/shop/bronze");
  EXPECT_EQ(f.source.kind, SourcePlan::Kind::kFiles);
  EXPECT_EQ(f.source.pattern, "/in/*.json");
  EXPECT_EQ(f.source.format, sources::SourceFormat::kDebezium);
  EXPECT_TRUE(f.source.streaming);
  ASSERT_TRUE(f.source.options.schema.has_value());
  ASSERT_EQ(f.source.options.schema->num_fields(), 1u);
  EXPECT_EQ(f.source.options.schema->field(0).name, "amount");
  EXPECT_EQ(*f.source.options.schema->field(0).type, *data::DataType::Decimal(10, 2));
  ASSERT_EQ(f.source.transforms.size(), 1u);  // the table's own SELECT *
  EXPECT_EQ(f.source.transforms[0].items[0].kind, sql::SelectItem::Kind::kStar);
  EXPECT_TRUE(f.depends_on.empty());
  EXPECT_EQ(f.position.line, 3);
  EXPECT_EQ(f.source.Describe(), "files '/in/*.json' (debezium)");
}

TEST(PipelinePlanTest, ReadPostgresNamesItsTableSlotAndPublication) {
  const std::string text = R"(
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_postgres(
     connection  => '${pg}',
     publication => 'cdclake',
     slot        => 'cdclake_shop',
     table       => 'public.customers'));
CREATE OR REFRESH STREAMING TABLE shop.direct;
CREATE FLOW direct AS AUTO CDC INTO shop.direct
FROM STREAM(read_postgres(connection => 'host=db', publication => 'p', slot => 's2',
                          table => 'orders'))
KEYS (id) SEQUENCE BY _seq;
)";
  auto plan = PlanText(text, {{"pg", "host=127.0.0.1 port=5432"}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const FlowPlan* bronze = FindFlow(*plan, "shop.bronze");
  ASSERT_NE(bronze, nullptr);
  EXPECT_EQ(bronze->source.kind, SourcePlan::Kind::kPostgres);
  EXPECT_EQ(bronze->source.postgres.connection, "host=127.0.0.1 port=5432");
  EXPECT_EQ(bronze->source.postgres.publication, "cdclake");
  EXPECT_EQ(bronze->source.postgres.slot, "cdclake_shop");
  EXPECT_EQ(bronze->source.postgres.table, "public.customers");
  EXPECT_EQ(bronze->source.Describe(),
            "postgres table public.customers (publication cdclake, slot cdclake_shop)");
  const FlowPlan* direct = FindFlow(*plan, "direct");
  ASSERT_NE(direct, nullptr);
  EXPECT_EQ(direct->kind, FlowPlan::Kind::kAutoCdc);
  EXPECT_EQ(direct->source.postgres.table, "orders");
}

TEST(PipelinePlanTest, ReadPostgresMistakesAreNamed) {
  const std::string head = "CREATE OR REFRESH STREAMING TABLE t AS SELECT * FROM ";
  EXPECT_NE(PlanError(head + "STREAM(read_postgres(connection => 'x', publication => 'p', "
                             "slot => 's'))")
                .find("read_postgres needs table => '...'"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "read_postgres(connection => 'x', publication => 'p', slot => 's', "
                             "table => 't')")
                .find("write STREAM(read_postgres(...))"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_postgres(connection => 'x', publication => 'p', "
                             "slot => 's', table => 't', startingLsn => '0/1'))")
                .find("read_postgres option 'startingLsn' is not supported"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_postgres(connection => 'x', publication => 'p', "
                             "slot => 's', table => 't', spill_mb => -1))")
                .find("read_postgres spill_mb must be a whole number of megabytes"),
            std::string::npos);
  auto spilling = PlanText(head +
                           "STREAM(read_postgres(connection => 'x', publication => 'p', "
                           "slot => 's', table => 't', spill_mb => 3))");
  ASSERT_TRUE(spilling.ok()) << spilling.status().ToString();
  EXPECT_EQ(spilling->flows[0].source.postgres.spill.memory_bytes, 3 << 20);
  EXPECT_EQ(spilling->flows[0].source.postgres.copy_connections, 1) << "one by default";
  for (const char* wrong : {"0", "65", "true", "1.5"}) {
    EXPECT_NE(PlanError(head +
                        "STREAM(read_postgres(connection => 'x', publication => 'p', "
                        "slot => 's', table => 't', copy_connections => " +
                        wrong + "))")
                  .find("read_postgres copy_connections must be a whole number from 1 to 64"),
              std::string::npos)
        << wrong;
  }
  auto copying = PlanText(head +
                          "STREAM(read_postgres(connection => 'x', publication => 'p', "
                          "slot => 's', table => 't', copy_connections => 4))");
  ASSERT_TRUE(copying.ok()) << copying.status().ToString();
  EXPECT_EQ(copying->flows[0].source.postgres.copy_connections, 4);
  EXPECT_EQ(spilling->flows[0].source.postgres.spill.folder,
            spilling->flows[0].target_folder + "/_cdclake/spill");
  // A ONCE flow cannot share a slot: it would hold the slot back once it stops reading.
  const std::string shared = R"(
CREATE OR REFRESH STREAMING TABLE a AS SELECT * FROM STREAM(read_postgres(connection => 'x',
  publication => 'p', slot => 's', table => 'a'));
CREATE OR REFRESH STREAMING TABLE b;
CREATE FLOW b AS AUTO CDC ONCE INTO b FROM STREAM(read_postgres(connection => 'x',
  publication => 'p', slot => SLOT, table => 'b')) KEYS (id) SEQUENCE BY _seq;
)";
  std::string same = shared;
  same.replace(same.find("SLOT"), 4, "'s'");
  EXPECT_NE(
      PlanError(same).find("flow b: AUTO CDC ONCE reads slot 's', which flow default.a reads too"),
      std::string::npos)
      << PlanError(same);
  std::string own = shared;
  own.replace(own.find("SLOT"), 4, "'s_once'");
  EXPECT_TRUE(PlanText(own).ok()) << PlanText(own).status().ToString();
  auto positional = PlanText(head + "STREAM(read_postgres('host=x'))");
  ASSERT_FALSE(positional.ok());
  EXPECT_NE(positional.status().message().find("read_postgres takes arguments as name => value"),
            std::string::npos)
      << positional.status().ToString();
}

TEST(PipelinePlanTest, ReadKafkaTakesDatabricksOptionsAndLibrdkafkaOnes) {
  const std::string text = R"(
CREATE OR REFRESH STREAMING TABLE shop.bronze
AS SELECT * FROM STREAM(read_kafka(
     bootstrapServers => '${kafka}',
     subscribe        => 'shop.public.customers, shop.public.orders',
     startingOffsets  => '{"shop.public.orders": {"0": 5}}',
     failOnDataLoss   => false,
     maxOffsetsPerTrigger => 5000,
     `kafka.security.protocol` => 'SASL_SSL',
     format           => 'Debezium'));
CREATE OR REFRESH STREAMING TABLE shop.raw
AS SELECT * FROM STREAM(read_kafka(bootstrapServers => 'b:9092', subscribePattern => 'shop\..*'));
)";
  auto plan = PlanText(text, {{"kafka", "k1:9092,k2:9092"}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const FlowPlan* bronze = FindFlow(*plan, "shop.bronze");
  ASSERT_NE(bronze, nullptr);
  const sources::kafka::KafkaSpec& k = bronze->source.kafka;
  EXPECT_EQ(bronze->source.kind, SourcePlan::Kind::kKafka);
  EXPECT_EQ(k.bootstrap_servers, "k1:9092,k2:9092");
  EXPECT_EQ(k.topics, (std::vector<std::string>{"shop.public.customers", "shop.public.orders"}));
  EXPECT_EQ(k.starting_offsets, R"({"shop.public.orders": {"0": 5}})");
  EXPECT_FALSE(k.fail_on_data_loss);
  EXPECT_EQ(k.max_offsets_per_trigger, 5000);
  EXPECT_EQ(k.kafka_options.at("security.protocol"), "SASL_SSL");
  EXPECT_TRUE(k.debezium);
  EXPECT_EQ(bronze->source.Describe(),
            "kafka topic shop.public.customers,shop.public.orders (debezium)");
  const FlowPlan* raw = FindFlow(*plan, "shop.raw");
  ASSERT_NE(raw, nullptr);
  EXPECT_FALSE(raw->source.kafka.debezium);
  EXPECT_TRUE(raw->source.kafka.fail_on_data_loss);
  EXPECT_EQ(raw->source.Describe(), "kafka topics matching 'shop\\..*'");
}

TEST(PipelinePlanTest, ReadKafkaMistakesAreNamed) {
  const std::string head = "CREATE OR REFRESH STREAMING TABLE t AS SELECT * FROM ";
  const std::string b = "bootstrapServers => 'b:1'";
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(subscribe => 't'))")
                .find("read_kafka needs bootstrapServers"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b + "))").find("needs one of subscribe"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b +
                      ", subscribe => 't', "
                      "subscribePattern => 'x'))")
                .find("needs one of subscribe"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "read_kafka(" + b + ", subscribe => 't')")
                .find("write STREAM(read_kafka(...))"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b + ", subscribe => 't', format => 'avro'))")
                .find("cannot decode Avro yet"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b +
                      ", subscribe => 't', "
                      "startingOffsets => 'newest'))")
                .find("startingOffsets must be 'earliest', 'latest' or JSON"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b + ", subscribe => 't', assign => 'x'))")
                .find("read_kafka option 'assign' is not supported"),
            std::string::npos);
  EXPECT_NE(PlanError(head + "STREAM(read_kafka(" + b +
                      ", subscribe => 't', "
                      "maxOffsetsPerTrigger => 0))")
                .find("maxOffsetsPerTrigger must be a whole number above 0"),
            std::string::npos);
}

TEST(PipelinePlanTest, ReadFilesFormatsAndBatchReads) {
  PipelinePlan plan = MustPlan(R"(
CREATE STREAMING TABLE a AS SELECT * FROM read_files('/a/*.jsonl', format => 'JSON');
CREATE STREAMING TABLE b AS SELECT * FROM STREAM read_files('/b/*', format => 'sqlserver',
                                                           fileFormat => 'json');
CREATE STREAMING TABLE c AS SELECT * FROM STREAM(read_files('/c/*.csv', format => 'csv',
                                                            schemaHints => 'id BIGINT'));
)");
  ASSERT_EQ(plan.flows.size(), 3u);
  const FlowPlan* a = FindFlow(plan, "default.a");
  const FlowPlan* b = FindFlow(plan, "default.b");
  const FlowPlan* c = FindFlow(plan, "default.c");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->source.format, sources::SourceFormat::kJsonLines);
  EXPECT_EQ(a->source.options.file_format, sources::FileFormat::kJsonLines);
  EXPECT_FALSE(a->source.streaming);  // no STREAM(...): every file is re-read
  EXPECT_EQ(b->source.format, sources::SourceFormat::kSqlServer);
  EXPECT_EQ(b->source.options.file_format, sources::FileFormat::kJsonLines);
  EXPECT_TRUE(b->source.streaming);
  EXPECT_EQ(c->source.format, sources::SourceFormat::kCsv);
  EXPECT_EQ(c->source.options.file_format, sources::FileFormat::kCsv);
  ASSERT_TRUE(c->source.options.schema.has_value());
  EXPECT_EQ(c->source.options.schema->field(0).name, "id");
}

TEST(PipelinePlanTest, AutoCdcClausesBecomeTheFlowDefinition) {
  PipelinePlan plan = MustPlan(R"(
CREATE OR REFRESH STREAMING TABLE sales.current (id BIGINT, region STRING, name STRING)
  TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true');
CREATE OR REFRESH STREAMING TABLE sales.history;
CREATE FLOW cur AS AUTO CDC INTO sales.current
FROM STREAM(read_files('/in/*.csv', format => 'csv'))
KEYS (id, region)
IGNORE NULL UPDATES
APPLY AS DELETE WHEN op = 'D'
APPLY AS TRUNCATE WHEN op = 'T'
SEQUENCE BY seq
COLUMNS * EXCEPT (op, seq);
CREATE FLOW hist AS AUTO CDC ONCE INTO sales.history
FROM STREAM(read_files('/in/*.csv', format => 'csv'))
KEYS (id)
IGNORE NULL UPDATES ON (name, region)
SEQUENCE BY STRUCT(ts, lsn)
COLUMNS id, name, region
STORED AS SCD TYPE 2
TRACK HISTORY ON * EXCEPT (name);
APPLY CHANGES INTO sales.history FROM STREAM(read_files('/x/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY seq;
)");
  ASSERT_EQ(plan.flows.size(), 3u);
  const FlowPlan* cur = FindFlow(plan, "cur");
  ASSERT_NE(cur, nullptr);
  EXPECT_EQ(cur->kind, FlowPlan::Kind::kAutoCdc);
  EXPECT_FALSE(cur->once);
  EXPECT_EQ(cur->target, "sales.current");
  EXPECT_EQ(cur->target_folder, "/lake/sales/current");
  const apply::FlowDefinition& d = cur->flow;
  EXPECT_EQ(d.name, "cur");
  EXPECT_EQ(d.target, "/lake/sales/current");
  EXPECT_EQ(d.keys, (Names{"id", "region"}));
  EXPECT_EQ(d.sequence_by, (Names{"seq"}));
  EXPECT_FALSE(d.sequence_is_struct);
  ASSERT_NE(d.delete_when, nullptr);
  EXPECT_EQ(d.delete_when->ToString(), "op = 'D'");
  ASSERT_NE(d.truncate_when, nullptr);
  EXPECT_EQ(d.truncate_when->ToString(), "op = 'T'");
  EXPECT_EQ(d.columns.mode, ColumnSelection::Mode::kExcept);
  EXPECT_EQ(d.columns.columns, (Names{"op", "seq"}));
  EXPECT_EQ(d.scd_type, apply::ScdType::kType1);
  EXPECT_FALSE(d.track_history.has_value());
  EXPECT_TRUE(SameSelection(d.ignore_null_updates, ColumnSelection::Mode::kAll, {}));
  EXPECT_EQ(d.table_properties.at("delta.enableChangeDataFeed"), "true");
  ASSERT_TRUE(cur->declared_schema.has_value());
  EXPECT_EQ(cur->declared_schema->num_fields(), 3u);
  // The declaration reaches the engine: it is the target's schema.
  ASSERT_TRUE(d.declared_schema.has_value());
  EXPECT_EQ(d.declared_schema->num_fields(), 3u);
  EXPECT_EQ(cur->table_properties.at("delta.enableChangeDataFeed"), "true");

  const FlowPlan* hist = FindFlow(plan, "hist");
  ASSERT_NE(hist, nullptr);
  EXPECT_TRUE(hist->once);
  const apply::FlowDefinition& h = hist->flow;
  EXPECT_EQ(h.target, "/lake/sales/history");
  EXPECT_EQ(h.sequence_by, (Names{"ts", "lsn"}));
  EXPECT_TRUE(h.sequence_is_struct);
  EXPECT_EQ(h.delete_when, nullptr);
  EXPECT_EQ(h.truncate_when, nullptr);
  EXPECT_EQ(h.columns.mode, ColumnSelection::Mode::kOnly);
  EXPECT_EQ(h.columns.columns, (Names{"id", "name", "region"}));
  EXPECT_EQ(h.scd_type, apply::ScdType::kType2);
  EXPECT_TRUE(SameSelection(h.track_history, ColumnSelection::Mode::kExcept, {"name"}));
  EXPECT_TRUE(
      SameSelection(h.ignore_null_updates, ColumnSelection::Mode::kOnly, {"name", "region"}));
  EXPECT_FALSE(hist->declared_schema.has_value());

  // The legacy statement has no flow name: the flow is named after its target.
  const FlowPlan* legacy = FindFlow(plan, "sales.history");
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->flow.name, "sales.history");
  EXPECT_FALSE(legacy->flow.ignore_null_updates.has_value());
  EXPECT_EQ(legacy->flow.columns.mode, ColumnSelection::Mode::kAll);

  std::string text = DescribePlan(plan);
  EXPECT_NE(text.find("1. flow cur\n   AUTO CDC into sales.current (/lake/sales/current)\n"
                      "   from files '/in/*.csv' (csv)\n"
                      "   keys id, region, sequence by seq, SCD type 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("keys id, sequence by STRUCT(ts, lsn), SCD type 2"), std::string::npos)
      << text;
}

TEST(PipelinePlanTest, SnapshotFlowsLeaveTheSequenceEmpty) {
  PipelinePlan plan = MustPlan(R"(
CREATE STREAMING TABLE dim;
CREATE FLOW snap AS AUTO CDC INTO dim FROM SNAPSHOT (read_files('/snap/*.csv', format => 'csv'))
KEYS (id) STORED AS SCD TYPE 2 TRACK HISTORY ON (name);
)");
  ASSERT_EQ(plan.flows.size(), 1u);
  const FlowPlan& f = plan.flows[0];
  EXPECT_EQ(f.kind, FlowPlan::Kind::kSnapshot);
  EXPECT_EQ(f.flow.keys, (Names{"id"}));
  EXPECT_TRUE(f.flow.sequence_by.empty());
  EXPECT_EQ(f.flow.scd_type, apply::ScdType::kType2);
  EXPECT_TRUE(SameSelection(f.flow.track_history, ColumnSelection::Mode::kOnly, {"name"}));
  EXPECT_EQ(f.flow.target, "/lake/default/dim");
}

TEST(PipelinePlanTest, ViewsBecomeTransformsInnermostFirst) {
  PipelinePlan plan = MustPlan(R"(
CREATE TEMPORARY VIEW raw_v AS
  SELECT * FROM STREAM(read_files('/in/*.json', format => 'json')) WHERE id IS NOT NULL;
CREATE TEMPORARY VIEW clean_v AS SELECT id, upper(name) AS name FROM STREAM(raw_v);
CREATE OR REFRESH STREAMING TABLE out AS SELECT * EXCEPT (name) FROM STREAM(LIVE.clean_v);
CREATE OR REFRESH STREAMING TABLE bronze;
CREATE TEMPORARY VIEW bronze_v AS SELECT * FROM STREAM(bronze) WHERE op <> 'x';
CREATE OR REFRESH STREAMING TABLE silver;
CREATE FLOW s AS AUTO CDC INTO silver FROM bronze_v KEYS (id) SEQUENCE BY seq;
)");
  const FlowPlan* out = FindFlow(plan, "default.out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->source.kind, SourcePlan::Kind::kFiles);
  EXPECT_EQ(out->source.pattern, "/in/*.json");
  ASSERT_EQ(out->source.transforms.size(), 3u);
  EXPECT_NE(out->source.transforms[0].where, nullptr);    // raw_v
  EXPECT_EQ(out->source.transforms[1].items.size(), 2u);  // clean_v
  EXPECT_EQ(out->source.transforms[1].items[1].alias, "name");
  EXPECT_EQ(out->source.transforms[2].items[0].except, (Names{"name"}));  // the table's own
  EXPECT_TRUE(out->source.streaming);
  EXPECT_FALSE(plan.tables.count("default.raw_v"));  // views are not tables

  const FlowPlan* s = FindFlow(plan, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->source.kind, SourcePlan::Kind::kTable);
  EXPECT_EQ(s->source.table, "default.bronze");
  EXPECT_EQ(s->source.table_folder, "/lake/default/bronze");
  ASSERT_EQ(s->source.transforms.size(), 1u);
  EXPECT_EQ(s->source.transforms[0].where->ToString(), "op <> 'x'");
  EXPECT_FALSE(s->source.streaming);  // the flow reads the view without STREAM
  EXPECT_EQ(s->source.Describe(), "table default.bronze through 1 SELECT");
}

TEST(PipelinePlanTest, FlowsRunAfterTheWritersOfWhatTheyRead) {
  PipelinePlan plan = MustPlan(R"(
CREATE OR REFRESH STREAMING TABLE gold;
CREATE FLOW to_gold AS AUTO CDC INTO gold FROM STREAM(silver) KEYS (id) SEQUENCE BY seq;
CREATE OR REFRESH STREAMING TABLE silver AS SELECT * FROM STREAM(bronze) WHERE id > 0;
CREATE OR REFRESH STREAMING TABLE other
  AS SELECT * FROM STREAM(read_files('/o/*.json', format => 'json'));
CREATE OR REFRESH STREAMING TABLE bronze
  AS SELECT * FROM STREAM(read_files('/in/*.json', format => 'debezium'));
)");
  EXPECT_EQ(FlowNames(plan),
            (Names{"default.other", "default.bronze", "default.silver", "to_gold"}));
  EXPECT_EQ(FindFlow(plan, "to_gold")->depends_on, (Names{"default.silver"}));
  EXPECT_EQ(FindFlow(plan, "default.silver")->depends_on, (Names{"default.bronze"}));
  EXPECT_TRUE(FindFlow(plan, "default.other")->depends_on.empty());
  std::string text = DescribePlan(plan);
  EXPECT_NE(text.find("3. flow default.silver\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   after default.bronze\n"), std::string::npos) << text;
  EXPECT_NE(text.find("1. flow default.other\n   append into default.other"), std::string::npos)
      << text;
}

// A CSV writer cut just before a last, empty sequence field leaves a record that is not whole
// yet: the bronze's reader must know the SEQUENCE BY columns of the flows reading it, through
// streaming tables appended from it too, and only of those.
TEST(PipelinePlanTest, BronzeRowsRequireTheSequencesOfTheFlowsReadingThem) {
  PipelinePlan plan = MustPlan(R"(
CREATE OR REFRESH STREAMING TABLE bronze
  AS SELECT * FROM STREAM(read_files('/in/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE filtered AS SELECT * FROM STREAM(bronze) WHERE id > 0;
CREATE OR REFRESH STREAMING TABLE s1;
CREATE FLOW f1 AS AUTO CDC INTO s1 FROM STREAM(bronze) KEYS (id) SEQUENCE BY seq;
CREATE OR REFRESH STREAMING TABLE s2;
CREATE FLOW f2 AS AUTO CDC INTO s2 FROM STREAM(filtered) KEYS (id) SEQUENCE BY lsn;
CREATE OR REFRESH STREAMING TABLE s3;
CREATE FLOW f3 AS AUTO CDC INTO s3 FROM STREAM(bronze) KEYS (id) SEQUENCE BY seq;
CREATE OR REFRESH STREAMING TABLE other
  AS SELECT * FROM STREAM(read_files('/o/*.csv', format => 'csv'));
)");
  EXPECT_EQ(FindFlow(plan, "default.bronze")->source.options.required_columns,
            (Names{"seq", "lsn"}));
  EXPECT_TRUE(FindFlow(plan, "default.other")->source.options.required_columns.empty());
  // A flow's own SEQUENCE BY reaches its file reader as sequence columns, not through this.
  EXPECT_TRUE(FindFlow(plan, "f1")->source.options.required_columns.empty());
}

TEST(PipelinePlanTest, TwoFlowsIntoOneTableBothRunBeforeItsReaders) {
  PipelinePlan plan = MustPlan(R"(
CREATE STREAMING TABLE mid;
CREATE FLOW w1 AS AUTO CDC INTO mid FROM STREAM(read_files('/a', format => 'csv'))
  KEYS (id) SEQUENCE BY seq;
CREATE FLOW w2 AS AUTO CDC INTO mid FROM STREAM(read_files('/b', format => 'csv'))
  KEYS (id) SEQUENCE BY seq;
)");
  EXPECT_EQ(FlowNames(plan), (Names{"w1", "w2"}));
}

// The run would stop at the upstream's first update or delete: a table read as a stream may
// only be appended to. --dry-run plans the same, so it refuses the same.
TEST(PipelinePlanTest, AFlowReadingAnAutoCdcTargetIsRefused) {
  for (const char* scd : {"1", "2"}) {
    std::string text = std::string(R"(
CREATE STREAMING TABLE sink;
CREATE FLOW reader AS AUTO CDC INTO sink FROM STREAM(mid) KEYS (id) SEQUENCE BY seq;
CREATE STREAMING TABLE mid;
CREATE FLOW w1 AS AUTO CDC INTO mid FROM STREAM(read_files('/a', format => 'csv'))
  KEYS (id) SEQUENCE BY seq STORED AS SCD TYPE )") +
                       scd + ";";
    std::string error = PlanError(text);
    EXPECT_NE(error.find(At(text, "CREATE FLOW reader")), std::string::npos) << error;
    EXPECT_NE(error.find("flow reader reads default.mid as a stream"), std::string::npos) << error;
    EXPECT_NE(error.find("AUTO CDC flow w1 (SCD type " + std::string(scd) + ")"), std::string::npos)
        << error;
    EXPECT_NE(error.find("may only be appended to"), std::string::npos) << error;
  }
}

TEST(PipelinePlanTest, ASnapshotOfATableIsRefusedAtPlanning) {
  std::string text = R"(
CREATE STREAMING TABLE src AS SELECT * FROM STREAM(read_files('/in', format => 'csv'));
CREATE STREAMING TABLE dim;
CREATE FLOW snap AS AUTO CDC INTO dim FROM SNAPSHOT (src) KEYS (id);
)";
  std::string error = PlanError(text);
  EXPECT_NE(error.find(At(text, "CREATE FLOW snap")), std::string::npos) << error;
  EXPECT_NE(error.find("AUTO CDC FROM SNAPSHOT reads files"), std::string::npos) << error;
}

TEST(PipelinePlanTest, SetKeysTakeEffectOrAreWarnedAbout) {
  PipelinePlan plan = MustPlan(R"(
SET pipelines.trigger.interval = '10 seconds';
SET spark.databricks.delta.properties.defaults.enableChangeDataFeed = true;
SET pipelines.cdc.tombstoneGCThresholdInSeconds = 60;
SET spark.sql.shuffle.partitions = 8;
CREATE STREAMING TABLE t TBLPROPERTIES ('pipelines.cdc.tombstoneGCThresholdInSeconds' = '5');
CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/a', format => 'csv'))
  KEYS (id) SEQUENCE BY seq;
CREATE STREAMING TABLE b AS SELECT * FROM STREAM(read_files('/b', format => 'csv'));
)");
  EXPECT_EQ(plan.trigger_interval_ms, 10'000);
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("SET key 'spark.sql.shuffle.partitions' is not used"),
            std::string::npos)
      << plan.warnings[0];
  const FlowPlan* f = FindFlow(plan, "f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->flow.table_properties.at("delta.enableChangeDataFeed"), "true");
  // The table's own TBLPROPERTIES win over the pipeline's default.
  EXPECT_EQ(f->flow.table_properties.at("pipelines.cdc.tombstoneGCThresholdInSeconds"), "5");
  EXPECT_EQ(FindFlow(plan, "default.b")->table_properties.at("delta.enableChangeDataFeed"), "true");
  std::string text = "SET pipelines.trigger.interval = soon;";
  EXPECT_NE(PlanError(text).find("pipelines.trigger.interval"), std::string::npos);
}

TEST(PipelinePlanTest, FlowShapeErrorsAreFoundAtPlanning) {
  std::string text = R"(
CREATE STREAMING TABLE t;
CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/a', format => 'csv'))
  KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (id);
)";
  std::string error = PlanError(text);
  EXPECT_NE(error.find("flow f: key column 'id' is left out"), std::string::npos) << error;
}

TEST(PipelinePlanTest, ACycleIsAnErrorNamingItsFlows) {
  const std::string text = R"(CREATE STREAMING TABLE a;
CREATE STREAMING TABLE b;
CREATE STREAMING TABLE c AS SELECT * FROM STREAM(read_files('/c', format => 'csv'));
CREATE FLOW fa AS AUTO CDC INTO a FROM STREAM(b) KEYS (id) SEQUENCE BY seq;
CREATE FLOW fb AS AUTO CDC INTO b FROM STREAM(a) KEYS (id) SEQUENCE BY seq;
)";
  std::string message = PlanError(text);
  EXPECT_EQ(message.rfind(At(text, "CREATE FLOW fa") + "flows read each other's tables in a cycle: "
                                                       "fa, fb",
                          0),
            0u)
      << message;
  EXPECT_EQ(message.find("default.c"), std::string::npos) << message;
}

TEST(PipelinePlanTest, AFlowReadingItsOwnTargetIsRefused) {
  const std::string text =
      "CREATE STREAMING TABLE a;\nCREATE FLOW f AS AUTO CDC INTO a FROM STREAM(a) KEYS (id) "
      "SEQUENCE BY seq;";
  std::string message = PlanError(text);
  EXPECT_EQ(message.rfind(At(text, "CREATE FLOW") + "flow 'f' reads the table it writes", 0), 0u)
      << message;
}

TEST(PipelinePlanTest, PartitionedAutoCdcTargetReachesTheFlow) {
  PipelinePlan plan = MustPlan(
      "CREATE STREAMING TABLE t PARTITIONED BY (region);\n"
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/in', format => 'csv')) "
      "KEYS (id) SEQUENCE BY seq;\n"
      "CREATE STREAMING TABLE d (id INT, region STRING) PARTITIONED BY (__END_AT, region);\n"
      "CREATE FLOW g AS AUTO CDC INTO d FROM SNAPSHOT (read_files('/s/*.csv', format => 'csv')) "
      "KEYS (id) STORED AS SCD TYPE 2;");
  ASSERT_EQ(plan.flows.size(), 2u);
  EXPECT_EQ(plan.flows[0].flow.partition_columns, (Names{"region"}));
  EXPECT_EQ(plan.flows[1].flow.partition_columns, (Names{"__END_AT", "region"}));
}

TEST(PipelinePlanTest, PartitionColumnNotDeclaredFailsPlanning) {
  const std::string text =
      "CREATE STREAMING TABLE t (id INT, region STRING) PARTITIONED BY (regoin);\n"
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/in', format => 'csv')) "
      "KEYS (id) SEQUENCE BY seq;";
  std::string message = PlanError(text);
  EXPECT_EQ(message.rfind(At(text, "CREATE FLOW") +
                              "'default.t': PARTITIONED BY names column 'regoin', which the "
                              "target does not have (did you mean 'region'?",
                          0),
            0u)
      << message;
  // SCD1 has no __END_AT to partition by.
  const std::string scd1 =
      "CREATE STREAMING TABLE t (id INT) PARTITIONED BY (__END_AT);\n"
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/in', format => 'csv')) "
      "KEYS (id) SEQUENCE BY seq;";
  EXPECT_NE(PlanError(scd1).find("PARTITIONED BY names column '__END_AT'"), std::string::npos);
  // SCD2 bounds of a STRUCT sequence are STRUCTs, which Delta does not partition by.
  const std::string by_struct =
      "CREATE STREAMING TABLE t (id INT) PARTITIONED BY (__END_AT);\n"
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(read_files('/in', format => 'csv')) "
      "KEYS (id) SEQUENCE BY STRUCT(a, b) STORED AS SCD TYPE 2;";
  EXPECT_NE(PlanError(by_struct).find("PARTITIONED BY column '__END_AT' is struct"),
            std::string::npos)
      << PlanError(by_struct);
}

TEST(PipelinePlanTest, UndefinedTargetIsNamedWithItsPosition) {
  const std::string text = R"(CREATE STREAMING TABLE t;
  CREATE FLOW f AS AUTO CDC INTO missing FROM STREAM(t) KEYS (id) SEQUENCE BY seq;
)";
  std::string message = PlanError(text);
  EXPECT_EQ(
      message.rfind(At(text, "CREATE FLOW") + "the flow's target 'missing' is not defined", 0), 0u)
      << message;
  EXPECT_NE(message.find("CREATE OR REFRESH STREAMING TABLE missing;"), std::string::npos);
  EXPECT_NE(message.find("\n  "), std::string::npos) << "no source line and caret: " << message;
}

TEST(PipelinePlanTest, AutoCdcIntoATableFilledByItsOwnQueryIsRefused) {
  const std::string text =
      "CREATE STREAMING TABLE t AS SELECT * FROM read_files('/x', format => 'csv');\n"
      "CREATE FLOW f AS AUTO CDC INTO t FROM read_files('/y', format => 'csv') KEYS (id) "
      "SEQUENCE BY seq;";
  std::string message = PlanError(text);
  EXPECT_EQ(message.rfind(At(text, "CREATE FLOW"), 0), 0u) << message;
  EXPECT_NE(message.find("filled by its own AS SELECT"), std::string::npos) << message;
}

TEST(PipelinePlanTest, ReadFilesOptionsAndFormatsAreChecked) {
  {
    const std::string text =
        "CREATE STREAMING TABLE t AS SELECT *\n"
        "FROM STREAM(read_files('/x', format => 'csv', header => true));";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(At(text, "header") + "read_files option 'header' is not supported", 0),
              0u)
        << message;
  }
  {
    const std::string text =
        "CREATE STREAMING TABLE t AS SELECT * FROM STREAM(read_files('/x', format => 'avro'));";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(At(text, "format") + "read_files format 'avro' is not supported", 0),
              0u)
        << message;
  }
  {
    const std::string text =
        "\n\nCREATE STREAMING TABLE t AS SELECT * FROM STREAM(read_files('/x'));";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind("line 3, column ", 0), 0u) << message;
    EXPECT_NE(message.find("read_files needs format =>"), std::string::npos) << message;
  }
  {
    const std::string text =
        "CREATE STREAMING TABLE t AS SELECT * FROM read_files('/x', format => 'sqlserver',\n"
        "  fileFormat => 'xml');";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(At(text, "fileFormat") + "read_files fileFormat must be", 0), 0u)
        << message;
  }
  {
    const std::string text =
        "CREATE STREAMING TABLE t AS SELECT * FROM read_files('/x', format => 'csv',\n"
        "  schema => 'id NOTATYPE');";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(At(text, "schema =>") + "read_files schema: ", 0), 0u) << message;
  }
}

TEST(PipelinePlanTest, NamesDefinedTwiceAreRefused) {
  {
    const std::string text = "CREATE STREAMING TABLE t;\nCREATE STREAMING TABLE default.t;";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(
                  At(text, "CREATE STREAMING TABLE default") + "'default.t' is defined twice", 0),
              0u)
        << message;
  }
  {
    const std::string text =
        "CREATE STREAMING TABLE t;\nCREATE TEMPORARY VIEW t AS SELECT * FROM s;";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind(At(text, "CREATE TEMPORARY") + "'t' is defined twice", 0), 0u)
        << message;
  }
  {
    const std::string text =
        "CREATE TEMPORARY VIEW v AS SELECT * FROM s;\nCREATE TEMPORARY VIEW v AS SELECT * FROM r;";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind("line 2, column 1: 'v' is defined twice", 0), 0u) << message;
  }
  {
    const std::string text =
        "CREATE STREAMING TABLE t;\n"
        "CREATE FLOW f AS AUTO CDC INTO t FROM read_files('/a', format => 'csv') KEYS (id) "
        "SEQUENCE BY seq;\n"
        "CREATE FLOW f AS AUTO CDC INTO t FROM read_files('/b', format => 'csv') KEYS (id) "
        "SEQUENCE BY seq;";
    std::string message = PlanError(text);
    EXPECT_EQ(message.rfind("line 3, column 1: flow 'f' is defined twice", 0), 0u) << message;
  }
}

TEST(PipelinePlanTest, AViewReadingItselfIsRefused) {
  const std::string text =
      "CREATE TEMPORARY VIEW v AS SELECT * FROM w;\n"
      "CREATE TEMPORARY VIEW w AS SELECT * FROM v;\n"
      "CREATE STREAMING TABLE t AS SELECT * FROM v;";
  std::string message = PlanError(text);
  EXPECT_NE(message.find("reads itself"), std::string::npos) << message;
}

TEST(PipelinePlanTest, ATableNameThatCannotBeAFolderIsAnErrorAtTheStatement) {
  const std::string text = "SET a = b;\nCREATE STREAMING TABLE a.b.c.d;";
  std::string message = PlanError(text);
  EXPECT_EQ(message.rfind("line 2, column 1: ", 0), 0u) << message;
  EXPECT_NE(message.find("more than three parts"), std::string::npos) << message;
}

std::string ReadSource(const std::string& relative) {
  auto text =
      io::LocalFileSystem::Instance()->ReadFile(std::string(CDCLAKE_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

TEST(PipelinePlanTest, QuickstartExamplePlans) {
  const std::string data = std::string(CDCLAKE_SOURCE_DIR) + "/examples/quickstart/data";
  auto plan = PlanText(ReadSource("examples/quickstart/pipeline.sql"), {{"data", data}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(FlowNames(*plan), (Names{"shop.bronze_customers", "shop.bronze_orders",
                                     "customers_current", "customers_history", "orders_current"}));
  EXPECT_EQ(plan->tables.size(), 5u);
  const FlowPlan* orders = FindFlow(*plan, "shop.bronze_orders");
  ASSERT_NE(orders, nullptr);
  EXPECT_EQ(orders->source.pattern, data + "/orders/*.json");
  EXPECT_EQ(orders->source.format, sources::SourceFormat::kDebezium);
  ASSERT_TRUE(orders->source.options.schema.has_value());
  const FlowPlan* history = FindFlow(*plan, "customers_history");
  ASSERT_NE(history, nullptr);
  EXPECT_EQ(history->depends_on, (Names{"shop.bronze_customers"}));
  EXPECT_EQ(history->source.table, "shop.bronze_customers");
  EXPECT_EQ(history->flow.scd_type, apply::ScdType::kType2);
  EXPECT_EQ(history->flow.columns.columns.size(), 7u);
  EXPECT_NE(DescribePlan(*plan).find("5. flow orders_current"), std::string::npos);
}

TEST(PipelinePlanTest, SqlServerExamplePlans) {
  const std::string data = std::string(CDCLAKE_SOURCE_DIR) + "/examples/sqlserver-orders/data";
  auto plan = PlanText(ReadSource("examples/sqlserver-orders/pipeline.sql"), {{"data", data}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(FlowNames(*plan),
            (Names{"sales.bronze_order_lines", "order_lines_current", "order_lines_history"}));
  EXPECT_EQ(plan->flows[0].source.format, sources::SourceFormat::kSqlServer);
  EXPECT_EQ(plan->flows[0].source.pattern, data + "/dbo_order_lines_CT-*.csv");
  const FlowPlan* history = FindFlow(*plan, "order_lines_history");
  ASSERT_NE(history, nullptr);
  EXPECT_EQ(history->flow.keys, (Names{"order_id", "line_no"}));
  EXPECT_TRUE(
      SameSelection(history->flow.track_history, ColumnSelection::Mode::kExcept, {"unit_price"}));
  EXPECT_EQ(history->target_folder, "/lake/sales/order_lines_history");
}

TEST(PipelinePlanTest, ExamplesNeedTheirVariable) {
  auto ast = sql::ParsePipeline(ReadSource("examples/quickstart/pipeline.sql"));
  EXPECT_FALSE(ast.ok());
}

TEST(PipelinePlanTest, AppendFlowsShareATableAndItsReadersWaitForAll) {
  PipelinePlan plan = MustPlan(R"(
CREATE OR REFRESH STREAMING TABLE s.orders (CONSTRAINT pos EXPECT (id > 0))
TBLPROPERTIES ('cdclake.schemaPolicy' = 'block');
CREATE FLOW eu AS INSERT INTO s.orders BY NAME SELECT * FROM STREAM(read_files('/eu/*.csv', format => 'csv'));
CREATE FLOW us AS INSERT INTO ONCE s.orders BY NAME SELECT id FROM read_files('/us/*.csv', format => 'csv');
CREATE OR REFRESH STREAMING TABLE s.copy AS SELECT * FROM STREAM(s.orders);
)");
  ASSERT_EQ(FlowNames(plan), (Names{"eu", "us", "s.copy"}));
  for (size_t i = 0; i < 2; ++i) {
    const FlowPlan& f = plan.flows[i];
    EXPECT_EQ(f.kind, FlowPlan::Kind::kIngest);
    EXPECT_EQ(f.target, "s.orders");
    EXPECT_EQ(f.target_folder, "/lake/s/orders");
    ASSERT_EQ(f.expectations.size(), 1u);  // the table's expectations hold for every flow
    EXPECT_EQ(f.table_properties.at("cdclake.schemaPolicy"), "block");
  }
  EXPECT_FALSE(plan.flows[0].once);
  EXPECT_TRUE(plan.flows[1].once);
  EXPECT_FALSE(plan.flows[1].source.streaming);
  EXPECT_EQ(plan.flows[2].depends_on, (Names{"eu", "us"}));
}

TEST(PipelinePlanTest, AnAppendFlowIntoAnAutoCdcTargetIsRefused) {
  const std::string message = PlanError(R"(
CREATE OR REFRESH STREAMING TABLE s.cur;
CREATE FLOW cur AS AUTO CDC INTO s.cur FROM STREAM(read_files('/a/*.csv', format => 'csv'))
KEYS (id) SEQUENCE BY seq;
CREATE FLOW more AS INSERT INTO s.cur BY NAME SELECT * FROM STREAM(read_files('/b/*.csv', format => 'csv'));
)");
  EXPECT_EQ(message.rfind("line 5, column 1: flow more writes s.cur, which AUTO CDC flow cur "
                          "already keeps by key",
                          0),
            0u)
      << message;
  for (const char* bad : {"`../x`", "`a/b`", "`..`"}) {
    EXPECT_NE(PlanError(std::string("CREATE STREAMING TABLE t; CREATE FLOW ") + bad +
                        " AS INSERT INTO t BY NAME SELECT * FROM STREAM(read_files('/b', format "
                        "=> 'csv'));")
                  .find("cannot name a folder"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(PlanError("CREATE FLOW f AS INSERT INTO nowhere BY NAME SELECT * FROM "
                      "STREAM(read_files('/b/*.csv', format => 'csv'));")
                .find("the flow's target 'nowhere' is not defined"),
            std::string::npos);
}

}  // namespace
}  // namespace cdclake::pipeline
