// Tests of DebeziumReader on every fixture under testdata/sources/debezium/: the decoded values,
// operations, sequences, tables and counts the fixtures' README describes.
#include <gtest/gtest.h>

#include "data/data_type.h"
#include "data/decimal.h"
#include "json/json.h"
#include "sources/debezium/debezium_test_util_internal.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Value;
using testing::DebeziumRead;
using testing::Int;
using testing::ReadDebeziumFixture;
using testing::Str;
using testing::Struct;

DebeziumRead Read(std::string_view fixture, DebeziumOptions options = {}) {
  Result<DebeziumRead> read = ReadDebeziumFixture(fixture, std::move(options));
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  if (!read.ok()) return DebeziumRead();
  for (const change::RejectedRecord& r : read->rejected()) {
    ADD_FAILURE() << fixture << ": rejected line " << r.position.line << ": " << r.reason;
  }
  return std::move(read).value();
}

Value Pg(int64_t commit, int64_t lsn) {
  return Struct({Int(commit), Int(lsn)});
}
Value MySql(std::string file, int64_t pos, int64_t row) {
  return Struct({Str(std::move(file)), Int(pos), Int(row)});
}
Value SqlServer(std::string commit, std::string change, int64_t serial) {
  return Struct({Str(std::move(commit)), Str(std::move(change)), Int(serial)});
}

// --- PostgreSQL ---

TEST(DebeziumFixtures, PostgresCreateWithSchema) {
  DebeziumRead read = Read("postgresql/docs-create-with-schema.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_TRUE(read.TypeOf(0, "id")->Equals(*DataType::Int32()));  // int32 in the schema
  EXPECT_EQ(read.Get(0, "id"), Int(1));
  EXPECT_EQ(read.Get(0, "first_name"), Str("Anne"));
  EXPECT_EQ(read.Get(0, "last_name"), Str("Kretchmar"));
  EXPECT_EQ(read.Get(0, "email"), Str("annek@noanswer.org"));
  EXPECT_EQ(read.Get(0, "_op"), Str("c"));
  // sequence "[\"24023119\",\"24023128\"]": [last commit LSN, LSN]; never ts_ms.
  EXPECT_EQ(read.Get(0, "_seq"), Pg(24023119, 24023128));
  EXPECT_EQ(read.Get(0, "_source_ts_ms"), Int(1559033904863));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("postgres.public.customers"));
}

TEST(DebeziumFixtures, PostgresUpdatePayload) {
  DebeziumRead read = Read("postgresql/docs-update-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_TRUE(read.TypeOf(0, "id")->Equals(*DataType::Int64()));  // inferred
  EXPECT_EQ(read.Get(0, "id"), Int(1));
  EXPECT_EQ(read.Get(0, "first_name"), Str("Anne Marie"));
  EXPECT_EQ(read.Get(0, "_op"), Str("u"));
  // No sequence member: the event's own lsn is both positions.
  EXPECT_EQ(read.Get(0, "_seq"), Pg(24023128, 24023128));
}

TEST(DebeziumFixtures, PostgresDeletePayload) {
  DebeziumRead read = Read("postgresql/docs-delete-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(1));  // the before image: the key only
  EXPECT_FALSE(read.HasColumn(0, "first_name"));
  EXPECT_EQ(read.Get(0, "_op"), Str("d"));
  EXPECT_EQ(read.Get(0, "_seq"), Pg(46523128, 46523128));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("postgres.public.customers"));
}

TEST(DebeziumFixtures, PostgresTruncatePayload) {
  DebeziumRead read = Read("postgresql/docs-truncate-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "_op"), Str("t"));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("postgres.public.customers"));
  EXPECT_EQ(read.Get(0, "_seq"), Pg(46523128, 46523128));
  EXPECT_EQ(read.batches[0].rows.num_columns(), 4u);  // no table columns are known
}

TEST(DebeziumFixtures, PostgresMessagesAreCountedNotRows) {
  for (const char* fixture : {"postgresql/docs-message-transactional-payload.json",
                              "postgresql/docs-message-nontransactional-payload.json"}) {
    DebeziumRead read = Read(fixture);
    EXPECT_EQ(read.num_rows(), 0) << fixture;
    EXPECT_EQ(read.counts.messages, 1) << fixture;
  }
}

TEST(DebeziumFixtures, PostgresTransactionRecords) {
  for (const char* fixture :
       {"postgresql/docs-transaction-begin.json", "postgresql/docs-transaction-end.json"}) {
    DebeziumRead read = Read(fixture);
    EXPECT_EQ(read.num_rows(), 0) << fixture;
    EXPECT_EQ(read.counts.transaction_records, 1) << fixture;
  }
}

TEST(DebeziumFixtures, PostgresToastPlaceholder) {
  DebeziumRead read = Read("postgresql/blog-toast-placeholder-update.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(1004));
  EXPECT_EQ(read.Get(0, "first_name"), Str("Dana"));
  EXPECT_TRUE(read.Get(0, "biography").is_null());  // never the placeholder text
  EXPECT_TRUE(read.Unchanged(0, "biography"));
  EXPECT_FALSE(read.Unchanged(0, "first_name"));
  EXPECT_EQ(read.Get(0, "_op"), Str("u"));
  EXPECT_EQ(read.Get(0, "_seq"), Pg(34650016, 34650016));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("sourcedb.inventory.customers"));
}

TEST(DebeziumFixtures, PostgresRealCreateWithSequence) {
  DebeziumRead read = Read("postgresql/examples-kafka-ssl-create-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(1005));
  EXPECT_EQ(read.Get(0, "email"), Str("bob@marley.com"));
  EXPECT_EQ(read.Get(0, "_seq"), Pg(34442256, 34466480));
  EXPECT_EQ(read.Get(0, "_source_ts_ms"), Int(1733906311010));
}

TEST(DebeziumFixtures, PostgresFlinkChangelog) {
  DebeziumRead read = Read("postgresql/flink-products-changelog.jsonl");
  ASSERT_EQ(read.num_rows(), 16);
  ASSERT_EQ(read.batches.size(), 1u);
  // weights 0.1 .. 22.2 and 0.875 without a schema part: DOUBLE (decimal.handling.mode=double).
  EXPECT_TRUE(read.TypeOf(0, "weight")->Equals(*DataType::Double()));
  EXPECT_EQ(read.Get(0, "weight"), Value::Double(3.14));
  int snapshot = 0;
  for (int64_t r = 0; r < 9; ++r) {
    snapshot += read.Get(r, "_op") == Str("r");
    EXPECT_EQ(read.Get(r, "_seq"), Pg(34078720, 34078720));  // snapshot rows share one lsn
  }
  EXPECT_EQ(snapshot, 9);
  EXPECT_EQ(read.Get(9, "_op"), Str("u"));
  EXPECT_EQ(read.Get(9, "description"), Str("18oz carpenter hammer"));
  EXPECT_EQ(read.Get(11, "_op"), Str("c"));
  EXPECT_EQ(read.Get(11, "id"), Int(110));
  EXPECT_EQ(read.Get(15, "_op"), Str("d"));
  EXPECT_EQ(read.Get(15, "id"), Int(111));  // from the before image
  EXPECT_EQ(read.Get(15, "weight"), Value::Double(5.17));
  EXPECT_EQ(read.Get(15, "_seq"), Pg(34133800, 34133800));
  // Positions: line numbers of the JSON Lines file.
  EXPECT_EQ(read.batches[0].positions[15].line, 16);
}

TEST(DebeziumFixtures, PostgresFlinkSingleEvents) {
  DebeziumRead snapshot = Read("postgresql/flink-snapshot-read.json");  // pretty-printed
  ASSERT_EQ(snapshot.num_rows(), 1);
  EXPECT_EQ(snapshot.Get(0, "_op"), Str("r"));
  EXPECT_EQ(snapshot.Get(0, "name"), Str("scooter"));
  EXPECT_EQ(snapshot.batches[0].positions[0].line, 1);
  DebeziumRead update = Read("postgresql/flink-update-replica-identity-full.json");
  ASSERT_EQ(update.num_rows(), 1);
  EXPECT_EQ(update.Get(0, "description"), Str("18oz carpenter hammer"));  // after, not before
  DebeziumRead create = Read("postgresql/flink-create.json");
  ASSERT_EQ(create.num_rows(), 1);
  EXPECT_EQ(create.Get(0, "_op"), Str("c"));
  EXPECT_EQ(create.Get(0, "id"), Int(110));
  DebeziumRead del = Read("postgresql/flink-delete.json");
  ASSERT_EQ(del.num_rows(), 1);
  EXPECT_EQ(del.Get(0, "_op"), Str("d"));
  EXPECT_EQ(del.Get(0, "description"), Str("Big 2-wheel scooter "));  // full before image
  EXPECT_EQ(del.Get(0, "_source_table"), Str("postgres.inventory.products"));
}

// --- MySQL ---

TEST(DebeziumFixtures, MySqlSerdeWithSchema) {
  DebeziumRead read = Read("mysql/dbz-test-serde-with-schema.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_TRUE(read.TypeOf(0, "id")->Equals(*DataType::Int32()));
  EXPECT_EQ(read.Get(0, "id"), Int(1004));
  EXPECT_EQ(read.Get(0, "_op"), Str("c"));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("mysql-bin.000003", 154, 0));
  EXPECT_EQ(read.Get(0, "_source_ts_ms"), Int(0));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("inventory.customers"));
}

TEST(DebeziumFixtures, MySqlSerdeWithoutSchema) {
  DebeziumRead read = Read("mysql/dbz-test-serde-without-schema.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_TRUE(read.TypeOf(0, "id")->Equals(*DataType::Int64()));
  EXPECT_EQ(read.Get(0, "email"), Str("annek@noanswer.org"));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("mysql-bin.000003", 154, 0));
}

TEST(DebeziumFixtures, MySqlSerdeUpdate) {
  DebeziumRead read = Read("mysql/dbz-test-serde-update.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "_op"), Str("u"));
  EXPECT_EQ(read.Get(0, "first_name"), Str("Anne"));  // after (before says Anne-Marie)
}

TEST(DebeziumFixtures, MySqlSerdeUnwrapped) {
  DebeziumRead read = Read("mysql/dbz-test-serde-unwrapped.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(1004));
  EXPECT_EQ(read.Get(0, "last_name"), Str("Kretchmar"));
  EXPECT_EQ(read.Get(0, "_op"), Str("u"));  // no __op: an upsert
  EXPECT_TRUE(read.Get(0, "_seq").is_null());
  EXPECT_TRUE(read.Get(0, "_source_table").is_null());
}

TEST(DebeziumFixtures, MySqlCreateWithSchema) {
  DebeziumRead read = Read("mysql/docs-create-with-schema.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "id"), Int(1004));
  EXPECT_EQ(read.Get(0, "_op"), Str("c"));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("mysql-bin.000003", 154, 0));
}

TEST(DebeziumFixtures, MySqlUpdateAndDelete) {
  DebeziumRead update = Read("mysql/docs-update-payload.json");
  ASSERT_EQ(update.num_rows(), 1);
  EXPECT_EQ(update.Get(0, "first_name"), Str("Anne Marie"));
  EXPECT_EQ(update.Get(0, "_seq"), MySql("mysql-bin.000003", 484, 0));
  EXPECT_EQ(update.Get(0, "_source_ts_ms"), Int(1465581029100));
  DebeziumRead del = Read("mysql/docs-delete-payload.json");
  ASSERT_EQ(del.num_rows(), 1);
  EXPECT_EQ(del.Get(0, "_op"), Str("d"));
  EXPECT_EQ(del.Get(0, "id"), Int(1004));
  EXPECT_EQ(del.Get(0, "first_name"), Str("Anne Marie"));
  EXPECT_EQ(del.Get(0, "_seq"), MySql("mysql-bin.000003", 805, 0));
}

TEST(DebeziumFixtures, MySqlTruncate) {
  DebeziumRead read = Read("mysql/docs-truncate-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "_op"), Str("t"));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("inventory.customers"));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("mysql-bin.000003", 484, 0));
}

TEST(DebeziumFixtures, MySqlSchemaChangeAndTransactions) {
  DebeziumRead ddl = Read("mysql/docs-schema-change-event.json");
  EXPECT_EQ(ddl.num_rows(), 0);
  EXPECT_EQ(ddl.counts.schema_changes, 1);
  for (const char* fixture :
       {"mysql/docs-transaction-begin.json", "mysql/docs-transaction-end.json"}) {
    DebeziumRead read = Read(fixture);
    EXPECT_EQ(read.num_rows(), 0);
    EXPECT_EQ(read.counts.transaction_records, 1) << fixture;
  }
}

TEST(DebeziumFixtures, MySqlEngineSnapshotAndUpdate) {
  DebeziumRead snapshot = Read("mysql/examples-engine-wasm-snapshot-read.json");
  ASSERT_EQ(snapshot.num_rows(), 1);
  EXPECT_EQ(snapshot.Get(0, "_op"), Str("r"));
  EXPECT_EQ(snapshot.Get(0, "_seq"), MySql("mysql-bin.000003", 797, 0));
  EXPECT_EQ(snapshot.Get(0, "_source_ts_ms"), Int(1731327511000));
  DebeziumRead update = Read("mysql/examples-engine-wasm-update.json");
  ASSERT_EQ(update.num_rows(), 1);
  EXPECT_EQ(update.Get(0, "first_name"), Str("Sarah"));
  EXPECT_EQ(update.Get(0, "_seq"), MySql("mysql-bin.000003", 1041, 0));
}

TEST(DebeziumFixtures, MySqlAllTypesWithSchema) {
  DebeziumRead read = Read("mysql/paimon-alltypes-read-with-schema.json");
  ASSERT_EQ(read.num_rows(), 1);
  auto type = [&](const char* column) { return read.TypeOf(0, column); };
  // Decimals carried as JSON numbers (decimal.format=NUMERIC), read from their text.
  EXPECT_TRUE(type("pt")->Equals(*DataType::Decimal(2, 1)));
  EXPECT_EQ(read.Get(0, "pt"), Value::Decimal(11));
  EXPECT_TRUE(type("_bigint_unsigned")->Equals(*DataType::Decimal(38, 0)));  // no precision
  EXPECT_EQ(read.Get(0, "_bigint_unsigned"), Value::Decimal(20000000000));
  EXPECT_TRUE(type("_numeric")->Equals(*DataType::Decimal(8, 3)));
  EXPECT_EQ(read.Get(0, "_numeric"), Value::Decimal(12345110));
  EXPECT_TRUE(type("_fixed")->Equals(*DataType::Decimal(38, 3)));  // precision 40 capped
  EXPECT_EQ(data::FormatDecimal(read.Get(0, "_fixed").decimal_value(), 3),
            "123456789876543212345678987654321.110");
  EXPECT_EQ(data::FormatDecimal(read.Get(0, "_big_decimal").decimal_value(), 10),
            "2222222222222222300000001111.1234567890");
  // Temporal types by semantic name.
  EXPECT_TRUE(type("_date")->Equals(*DataType::Date()));
  EXPECT_EQ(read.Get(0, "_date"), Int(19439));  // 2023-03-23
  EXPECT_TRUE(type("_datetime")->Equals(*DataType::TimestampNtz()));
  EXPECT_EQ(read.Get(0, "_datetime"), Int(int64_t{1679581805000} * 1000));  // ms -> micros
  EXPECT_EQ(read.Get(0, "_datetime3"), Int(int64_t{1679581805123} * 1000));
  EXPECT_EQ(read.Get(0, "_datetime6"), Int(1679581805123456));  // MicroTimestamp
  EXPECT_TRUE(type("_timestamp")->Equals(*DataType::Timestamp()));
  EXPECT_EQ(read.Get(0, "_timestamp"), Int(1679608810123456));   // 2023-03-23T22:00:10.123456Z
  EXPECT_EQ(read.Get(0, "_timestamp0"), Int(1679555400000000));  // 2023-03-23T07:10:00Z
  EXPECT_TRUE(type("_time")->Equals(*DataType::Int64()));
  EXPECT_EQ(read.Get(0, "_time"), Int(36803000000));  // MicroTime: 10:13:23 in micros
  EXPECT_TRUE(type("_year")->Equals(*DataType::Int32()));
  EXPECT_EQ(read.Get(0, "_year"), Int(2023));
  // Binary from base64; Bits stay little-endian bytes.
  EXPECT_TRUE(type("_bin")->Equals(*DataType::Binary()));
  EXPECT_EQ(read.Get(0, "_bin"), Str(std::string("bytes\0\0\0\0\0", 10)));
  EXPECT_EQ(read.Get(0, "_blob"), Str("BLOB type test data"));
  EXPECT_EQ(read.Get(0, "_bit"), Str(std::string("\xC7\x07\0\0\0\0\0\0", 8)));
  EXPECT_EQ(read.Get(0, "_bit1"), Value::Bool(true));
  // Strings by semantic name.
  EXPECT_EQ(read.Get(0, "_json"), Str("{\"a\": \"b\"}"));
  EXPECT_EQ(read.Get(0, "_enum"), Str("value1"));
  EXPECT_EQ(read.Get(0, "_set"), Str("a,b"));
  // int16 stays SMALLINT; double stays DOUBLE.
  EXPECT_TRUE(type("_tinyint")->Equals(*DataType::Int16()));
  EXPECT_EQ(read.Get(0, "_real"), Value::Double(1.000001));
  // Geometry: a struct with the wkb as its base64 text.
  Value point = read.Get(0, "_point");
  ASSERT_TRUE(point.is_nested());
  EXPECT_EQ(point.children()[0], Value::Double(1.0));
  EXPECT_EQ(point.children()[2], Str("AQEAAAAAAAAAAADwPwAAAAAAAPA/"));
  EXPECT_EQ(read.Get(0, "_op"), Str("r"));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("", 0, 0));  // Flink CDC snapshot row
  EXPECT_EQ(read.Get(0, "_source_table"), Str("paimon_sync_table.all_types_table"));
}

TEST(DebeziumFixtures, MySqlProductsWithSchema) {
  DebeziumRead read = Read("mysql/paimon-products-create-with-schema-1.1.1.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "_op"), Str("c"));  // old snapshot rows say c
  EXPECT_TRUE(read.TypeOf(0, "weight")->Equals(*DataType::Double()));
  EXPECT_EQ(read.Get(0, "weight"), Value::Double(3.140000104904175));
  EXPECT_EQ(read.Get(0, "_seq"), MySql("mysql-bin.000003", 154, 0));
}

TEST(DebeziumFixtures, MySqlDecimalOracle) {
  // Not an event: a table of Connect Decimal values, each decoded from base64 and from the
  // numeric form through a one-column schema carrying its parameters.
  Result<json::Json> oracle =
      json::Parse(testing::FixtureText("mysql/paimon-alltypes-decimal-oracle.json"));
  ASSERT_TRUE(oracle.ok());
  int checked = 0;
  for (const json::Json& row : (*oracle)["rows"]) {
    const json::Json& params = row["schema_parameters"];
    std::string precision = params.contains("connect.decimal.precision")
                                ? params["connect.decimal.precision"].get<std::string>()
                                : "";
    std::string field =
        "{\"type\":\"bytes\",\"optional\":true,\"name\":"
        "\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"" +
        params["scale"].get<std::string>() + "\"" +
        (precision.empty() ? "" : ",\"connect.decimal.precision\":\"" + precision + "\"") +
        "},\"field\":\"v\"}";
    std::string schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[" +
                         field + "],\"field\":\"after\"}]}";
    std::string text = "{\"schema\":" + schema + ",\"payload\":{\"op\":\"c\",\"after\":{\"v\":\"" +
                       row["base64_value"].get<std::string>() + "\"}}}\n" +
                       "{\"schema\":" + schema + ",\"payload\":{\"op\":\"c\",\"after\":{\"v\":" +
                       row["numeric_json_text"].get<std::string>() + "}}}\n";
    Result<DebeziumRead> read = testing::ReadDebeziumText(text);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->num_rows(), 2) << text;
    int scale = std::stoi(params["scale"].get<std::string>());
    EXPECT_EQ(data::FormatDecimal(read->Get(0, "v").decimal_value(), scale),
              row["decoded_from_base64"].get<std::string>())
        << row["field"];
    EXPECT_EQ(data::FormatDecimal(read->Get(1, "v").decimal_value(), scale),
              row["numeric_json_text"].get<std::string>())
        << row["field"];
    ++checked;
  }
  EXPECT_EQ(checked, 14);
}

TEST(DebeziumFixtures, MySqlTombstoneLegacyEnvelope) {
  DebeziumRead read = Read("mysql/tutorial-tombstone-value-legacy-envelope.json");
  EXPECT_EQ(read.num_rows(), 0);
  EXPECT_EQ(read.counts.tombstones, 1);
}

TEST(DebeziumFixtures, MySqlKeysAsKafkaRecordKeys) {
  // The key fixtures are message keys: paired with a delete whose before image lacks them,
  // they give the key column.
  for (const char* fixture :
       {"mysql/tutorial-tombstone-key.json", "mysql/docs-key-with-schema.json"}) {
    std::string key = testing::FixtureText(fixture);
    for (char& c : key) c = c == '\n' ? ' ' : c;
    std::string text =
        "{\"key\":" + key +
        ",\"value\":{\"op\":\"d\",\"before\":{\"first_name\":\"x\"},"
        "\"source\":{\"connector\":\"mysql\",\"file\":\"f.1\",\"pos\":1,\"row\":0}}}\n"
        "{\"key\":" +
        key + ",\"value\":null}\n";
    Result<DebeziumRead> read = testing::ReadDebeziumText(text);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->num_rows(), 1) << fixture;
    EXPECT_TRUE(read->TypeOf(0, "id")->Equals(*DataType::Int32())) << fixture;  // key schema
    EXPECT_FALSE(read->Get(0, "id").is_null()) << fixture;
    EXPECT_EQ(read->Get(0, "first_name"), Str("x"));
    EXPECT_EQ(read->counts.tombstones, 1);
  }
}

// --- SQL Server ---

TEST(DebeziumFixtures, SqlServerCreateUpdateDelete) {
  DebeziumRead create = Read("sqlserver/docs-create-with-schema.json");
  ASSERT_EQ(create.num_rows(), 1);
  EXPECT_EQ(create.Get(0, "id"), Int(1005));
  // event_serial_no is the string "1" in the docs: read as a number.
  EXPECT_EQ(create.Get(0, "_seq"),
            SqlServer("00000027:00000758:0005", "00000027:00000758:0003", 1));
  EXPECT_EQ(create.Get(0, "_source_table"), Str("testDB.dbo.customers"));
  DebeziumRead update = Read("sqlserver/docs-update-payload.json");
  ASSERT_EQ(update.num_rows(), 1);
  EXPECT_EQ(update.Get(0, "email"), Str("noreply@example.org"));
  EXPECT_EQ(update.Get(0, "_seq"),
            SqlServer("00000027:00000ac0:0007", "00000027:00000ac0:0002", 2));
  DebeziumRead del = Read("sqlserver/docs-delete-payload.json");
  ASSERT_EQ(del.num_rows(), 1);
  EXPECT_EQ(del.Get(0, "_op"), Str("d"));
  EXPECT_EQ(del.Get(0, "email"), Str("noreply@example.org"));
  EXPECT_EQ(del.Get(0, "_seq"), SqlServer("00000027:00000db0:0007", "00000027:00000db0:0005", 1));
}

TEST(DebeziumFixtures, SqlServerTransactionRecords) {
  for (const char* fixture :
       {"sqlserver/docs-transaction-begin.json", "sqlserver/docs-transaction-end.json"}) {
    DebeziumRead read = Read(fixture);
    EXPECT_EQ(read.num_rows(), 0);
    EXPECT_EQ(read.counts.transaction_records, 1) << fixture;
  }
}

// --- MongoDB and common ---

TEST(DebeziumFixtures, MongoUpdateWithDocumentStrings) {
  DebeziumRead read = Read("mongodb/docs-update-payload.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "_id"), Int(1004));  // {"$numberLong": "1004"}
  EXPECT_EQ(read.Get(0, "first_name"), Str("Anne Marie"));
  EXPECT_EQ(read.Get(0, "_op"), Str("u"));
  // The cluster time (seconds, as ms) and its increment.
  EXPECT_EQ(read.Get(0, "_seq"), Struct({Int(1558965508000), Int(1)}));
  EXPECT_EQ(read.Get(0, "_source_table"), Str("inventory.customers"));
}

TEST(DebeziumFixtures, UnwrappedRewriteDelete) {
  DebeziumRead read = Read("common/docs-unwrap-rewrite-delete-value.json");
  ASSERT_EQ(read.num_rows(), 1);
  EXPECT_EQ(read.Get(0, "pk"), Int(2));
  EXPECT_TRUE(read.Get(0, "cola").is_null());
  EXPECT_EQ(read.Get(0, "_op"), Str("d"));  // "__deleted": "true"
  EXPECT_FALSE(read.HasColumn(0, "__deleted"));
}

TEST(DebeziumFixtures, TombstoneRecordShape) {
  DebeziumRead read = Read("common/tombstone-record-shape.json");
  EXPECT_EQ(read.num_rows(), 0);
  EXPECT_EQ(read.counts.tombstones, 1);
}

}  // namespace
}  // namespace cdclake::sources
