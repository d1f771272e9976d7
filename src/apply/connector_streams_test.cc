// Acceptance tests for real change streams: each connector's Debezium events
// (the shared fixtures and longer streams made from them) and SQL Server CDC
// exports, read by the real readers and applied by the engine, give one table
// whatever the arrival order, duplicates and batch cuts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "apply/testing/table_rows.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "json/json.h"
#include "sources/change_source.h"
#include "sql/condition_parser.h"

namespace cdclake::apply {
namespace {

using data::Value;
using sources::SourceFormat;

constexpr int64_t kFixedNowMs = 1'700'000'000'000;
constexpr const char* kToastPlaceholder = "__debezium_unavailable_value";

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

// Scrambled arrivals per stream and table type (CDCLAKE_CONNECTOR_CASES,
// default 2); a synthesised stream is also generated afresh for every two
// cases.
int Cases() {
  return static_cast<int>(std::max<int64_t>(1, EnvInt("CDCLAKE_CONNECTOR_CASES", 2)));
}

std::string ReadShared(const std::string& relative) {
  io::LocalFileSystem fs;
  auto text = fs.ReadFile(std::string(CDCLAKE_SHARED_DIR) + "/testdata/sources/" + relative);
  EXPECT_TRUE(text.ok()) << relative << ": " << text.status().ToString();
  return text.ok() ? *text : std::string();
}

// A pretty-printed JSON document on one line: every line trimmed and joined
// (line breaks in these files only ever fall between tokens).
std::string OneLine(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    size_t b = at, e = end;
    while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\r')) ++b;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
    out.append(text, b, e - b);
    at = end + 1;
  }
  return out;
}

// The records of a fixture: its lines for .jsonl, else the one document on one
// line.
std::vector<std::string> FixtureRecords(const std::string& relative) {
  std::string text = ReadShared(relative);
  std::vector<std::string> out;
  if (relative.size() > 6 && relative.substr(relative.size() - 6) == ".jsonl") {
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      if (end > at) out.push_back(text.substr(at, end - at));
      at = end + 1;
    }
  } else {
    out.push_back(OneLine(text));
  }
  return out;
}

json::Json ParseJson(const std::string& text) {
  auto parsed = json::Parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : json::Json();
}

// --- streams, arrivals and runs
// -----------------------------------------------------------------

// One change stream: records (one per line) in source order, as one connector
// wrote them.
struct Stream {
  std::string name;
  SourceFormat format = SourceFormat::kDebezium;
  std::string header;                // CSV header of a SQL Server export, repeated in each file
  std::vector<std::string> records;  // in sequence order
  std::vector<bool> is_row;          // false for records the reader counts but never returns
  std::vector<bool> is_truncate;     // Debezium op t (see Scrambled)
  std::vector<std::string> keys;
  // Types given for columns, as `cdclake apply --schema` gives them; others are
  // inferred.
  std::vector<data::Field> schema;
  int64_t rows() const { return std::count(is_row.begin(), is_row.end(), true); }
};

Stream MakeStream(std::string name, SourceFormat format, std::vector<std::string> records,
                  std::vector<std::string> keys) {
  Stream s;
  s.name = std::move(name);
  s.format = format;
  s.records = std::move(records);
  s.is_row.assign(s.records.size(), true);
  s.is_truncate.assign(s.records.size(), false);
  s.keys = std::move(keys);
  return s;
}

// The flow `cdclake apply --format debezium|sqlserver --keys ...` builds (cli
// FlowFromArgs).
FlowDefinition StreamFlow(const Stream& stream, ScdType scd, const std::string& target) {
  FlowDefinition flow;
  flow.name = "connector_" + stream.name;
  flow.target = target;
  flow.keys = stream.keys;
  flow.sequence_by = {"_seq"};
  flow.scd_type = scd;
  auto deletes = sql::ParseCondition("_op = 'd'");
  EXPECT_TRUE(deletes.ok()) << deletes.status().ToString();
  if (deletes.ok()) flow.delete_when = std::move(deletes).value();
  if (stream.format == SourceFormat::kDebezium && scd == ScdType::kType1) {
    auto truncates = sql::ParseCondition("_op = 't'");
    EXPECT_TRUE(truncates.ok()) << truncates.status().ToString();
    if (truncates.ok()) flow.truncate_when = std::move(truncates).value();
  }
  flow.columns = ColumnSelection::Except(sources::ChangeStreamColumns());
  return flow;
}

// How the records arrive: files of record indices (repeats allowed), each read
// in batches.
struct Arrival {
  std::vector<std::vector<size_t>> files;
  int64_t batch_rows = 1 << 16;
  std::string description;
};

Arrival InOrder(const Stream& stream) {
  Arrival a;
  a.files.emplace_back();
  for (size_t i = 0; i < stream.records.size(); ++i) a.files[0].push_back(i);
  a.description = "in order, one file, one batch";
  return a;
}

// Shuffled, with about one record in eight repeated, cut into files of random
// sizes that are read in batches of a random size.
Arrival Scrambled(const Stream& stream, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> order;
  const size_t n = stream.records.size();
  for (size_t i = 0; i < n; ++i) order.push_back(i);
  for (size_t i = 0; i < std::max<size_t>(1, n / 8); ++i) order.push_back(rng() % n);
  std::shuffle(order.begin(), order.end(), rng);
  Arrival a;
  const size_t max_file = std::max<size_t>(1, order.size() / 3);
  for (size_t at = 0; at < order.size();) {
    size_t size = std::min(order.size() - at, 1 + rng() % max_file);
    std::vector<size_t> file(order.begin() + static_cast<std::ptrdiff_t>(at),
                             order.begin() + static_cast<std::ptrdiff_t>(at + size));
    at += size;
    // The first file does not start with a truncate: before the target exists, a batch of
    // truncates has no table columns to create it from. Later files may (the applier gives
    // such a batch the target's columns; see FileStartingWithATruncate).
    if (a.files.empty()) {
      auto opener =
          std::find_if(file.begin(), file.end(), [&](size_t i) { return !stream.is_truncate[i]; });
      if (opener != file.end()) std::iter_swap(file.begin(), opener);
    }
    a.files.push_back(std::move(file));
  }
  const size_t max_batch = std::max<size_t>(2, order.size() / 8);
  a.batch_rows = rng() % 4 == 0 ? (1 << 16) : static_cast<int64_t>(1 + rng() % max_batch);
  a.description = "seed " + std::to_string(seed) + ": " + std::to_string(order.size()) +
                  " records in " + std::to_string(a.files.size()) + " files, batches of " +
                  std::to_string(a.batch_rows);
  return a;
}

// A target row: column name -> value.
using Row = testing::TableRow;

std::string RowText(const Row& row) {
  std::string out;
  for (const auto& [name, value] : row) {
    out += (out.empty() ? "" : ", ") + name + "=" + value.DebugString();
  }
  return out;
}

// SCD2 rows compared with a model that does not know sequences: __START_AT
// dropped and
// __END_AT as whether the version is still open.
Row WithoutSequences(Row row) {
  auto end = row.find("__END_AT");
  if (end != row.end()) {
    end->second = Value::Bytes(end->second.is_null() ? "open" : "closed");
    row.erase("__START_AT");
  }
  return row;
}

std::vector<std::string> SortedTexts(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(RowText(r));
  std::sort(out.begin(), out.end());
  return out;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "  " + l + "\n";
  return out;
}

Result<std::vector<Row>> ReadRows(io::FileSystem& fs, const std::string& table) {
  return testing::ReadTableRows(fs, table);
}

struct RunResult {
  ApplyCounts counts;
  std::vector<Row> rows;
  std::vector<Row> quarantine;
};

// Applies `arrival` of `stream` to a fresh table under `dir` as the CLI does:
// each file opened with the column types earlier files fixed, every batch
// applied in turn.
Result<RunResult> ApplyArrival(const Stream& stream, ScdType scd, const Arrival& arrival,
                               const std::string& dir, bool persistent_index) {
  io::LocalFileSystem fs;
  CDCLAKE_RETURN_IF_ERROR(fs.CreateDirs(dir + "/in"));
  const std::string target = dir + "/target";
  ApplyOptions options;
  options.clock = [] { return kFixedNowMs; };
  options.persistent_index = persistent_index;
  CDCLAKE_ASSIGN_OR_RETURN(auto applier,
                           Applier::Open(fs, StreamFlow(stream, scd, target), options));
  RunResult out;
  std::vector<data::Field> known = stream.schema;
  for (size_t f = 0; f < arrival.files.size(); ++f) {
    std::string text = stream.header;
    for (size_t i : arrival.files[f]) text += stream.records[i] + "\n";
    char name[64];
    std::snprintf(name, sizeof(name), "/in/part-%04zu.%s", f,
                  stream.format == SourceFormat::kSqlServer ? "csv" : "json");
    const std::string path = dir + name;
    CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(path, text));
    sources::ChangeSourceOptions source_options;
    source_options.batch_rows = arrival.batch_rows;
    if (!known.empty()) source_options.schema = data::Schema(known);
    CDCLAKE_ASSIGN_OR_RETURN(auto source,
                             sources::OpenChangeSource(fs, path, stream.format, source_options));
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, source->Next());
      if (!batch.has_value()) break;
      for (const data::Field& field : batch->rows.schema().fields()) {
        bool have = std::any_of(known.begin(), known.end(),
                                [&](const data::Field& k) { return k.name == field.name; });
        if (!have && batch->rows.num_rows() > 0) known.push_back({field.name, field.type, true});
      }
      auto applied = applier->Apply(*batch);
      if (!applied.ok()) return applied.status().WithContext("applying " + path);
      out.counts += applied->counts;
    }
  }
  CDCLAKE_ASSIGN_OR_RETURN(out.rows, ReadRows(fs, target));
  CDCLAKE_ASSIGN_OR_RETURN(out.quarantine, ReadRows(fs, target + "_quarantine"));
  return out;
}

int64_t Records(const Stream& stream, const Arrival& arrival) {
  int64_t n = 0;
  for (const auto& file : arrival.files) {
    for (size_t i : file) n += stream.is_row[i] ? 1 : 0;
  }
  return n;
}

// Applies the stream in order, then `cases` scrambled arrivals, each to a fresh
// table; checks counts on every run and that every run's table equals the
// in-order one. Returns that table.
std::vector<Row> CheckArrivals(const Stream& stream, ScdType scd, int cases, uint64_t seed_base) {
  auto scratch = io::ScratchDir::Create("cdclake-connector-");
  EXPECT_TRUE(scratch.ok()) << scratch.status().ToString();
  if (!scratch.ok()) return {};
  std::vector<Arrival> arrivals = {InOrder(stream)};
  for (int c = 0; c < cases; ++c) arrivals.push_back(Scrambled(stream, seed_base + c));
  std::vector<Row> first;
  std::vector<std::string> expected;
  for (size_t a = 0; a < arrivals.size(); ++a) {
    const Arrival& arrival = arrivals[a];
    SCOPED_TRACE(stream.name + ", SCD" + std::to_string(static_cast<int>(scd)) + ", " +
                 arrival.description);
    auto run = ApplyArrival(stream, scd, arrival, scratch->path() + "/run" + std::to_string(a),
                            /*persistent_index=*/a % 2 == 0);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    if (!run.ok()) continue;
    const ApplyCounts& c = run->counts;
    EXPECT_EQ(c.read, Records(stream, arrival));
    EXPECT_EQ(c.read, c.applied + c.discarded + c.quarantined);
    EXPECT_EQ(c.quarantined, 0);
    EXPECT_EQ(run->quarantine.size(), 0u)
        << "first: " << (run->quarantine.empty() ? "" : RowText(run->quarantine[0]));
    if (a == 0) {
      first = run->rows;
      expected = SortedTexts(run->rows);
      continue;
    }
    std::vector<std::string> got = SortedTexts(run->rows);
    EXPECT_EQ(got, expected) << "in order:\n" << Joined(expected) << "this run:\n" << Joined(got);
  }
  return first;
}

// The rows whose `column` is `value`.
std::vector<Row> Where(const std::vector<Row>& rows, const std::string& column,
                       const Value& value) {
  std::vector<Row> out;
  for (const Row& r : rows) {
    auto it = r.find(column);
    if (it != r.end() && it->second == value) out.push_back(r);
  }
  return out;
}

Value Str(const std::string& s) {
  return Value::Bytes(s);
}

std::vector<Row> Open(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (const Row& r : rows) {
    if (r.count("__END_AT") && r.at("__END_AT").is_null()) out.push_back(r);
  }
  return out;
}

// --- the fixtures
// ---------------------------------------------------------------------------------

// `weight` read as DOUBLE (as `--schema "weight DOUBLE"` does, and as inference now gives a
// schemaless number with a fraction; see DecimalInferredPerFile).
Stream PostgresProducts() {
  Stream s =
      MakeStream("postgres_products", SourceFormat::kDebezium,
                 FixtureRecords("debezium/postgresql/flink-products-changelog.jsonl"), {"id"});
  s.schema = {{"weight", data::DataType::Double(), true}};
  return s;
}

Stream PostgresCustomers() {
  std::vector<std::string> records;
  for (const char* f :
       {"docs-create-with-schema.json", "docs-update-payload.json", "docs-delete-payload.json",
        "examples-kafka-ssl-create-payload.json", "blog-toast-placeholder-update.json"}) {
    records.push_back(FixtureRecords(std::string("debezium/postgresql/") + f)[0]);
  }
  return MakeStream("postgres_customers", SourceFormat::kDebezium, records, {"id"});
}

Stream MySqlCustomers() {
  std::vector<std::string> records;
  for (const char* f : {"docs-create-with-schema.json", "dbz-test-serde-with-schema.json",
                        "dbz-test-serde-without-schema.json", "dbz-test-serde-update.json",
                        "docs-update-payload.json", "examples-engine-wasm-snapshot-read.json",
                        "docs-delete-payload.json", "examples-engine-wasm-update.json"}) {
    records.push_back(FixtureRecords(std::string("debezium/mysql/") + f)[0]);
  }
  return MakeStream("mysql_customers", SourceFormat::kDebezium, records, {"id"});
}

Stream SqlServerCustomers() {
  std::vector<std::string> records;
  for (const char* f :
       {"docs-create-with-schema.json", "docs-update-payload.json", "docs-delete-payload.json"}) {
    records.push_back(FixtureRecords(std::string("debezium/sqlserver/") + f)[0]);
  }
  return MakeStream("sqlserver_customers", SourceFormat::kDebezium, records, {"id"});
}

const int kFixtureCases = 3;

TEST(ConnectorStreams, PostgresFlinkChangelogScd1) {
  std::vector<Row> rows = CheckArrivals(PostgresProducts(), ScdType::kType1, kFixtureCases, 100);
  EXPECT_EQ(rows.size(), 10u);  // 101..111, 111 deleted
  EXPECT_TRUE(Where(rows, "id", Value::Int(111)).empty());
  auto r106 = Where(rows, "id", Value::Int(106));
  ASSERT_EQ(r106.size(), 1u);
  EXPECT_EQ(r106[0]["description"], Str("18oz carpenter hammer"));
  auto r107 = Where(rows, "id", Value::Int(107));
  ASSERT_EQ(r107.size(), 1u);
  EXPECT_EQ(r107[0]["weight"], Value::Double(5.1));
  auto r110 = Where(rows, "id", Value::Int(110));
  ASSERT_EQ(r110.size(), 1u);
  EXPECT_EQ(r110[0]["description"], Str("new water resistent white wind breaker"));
  EXPECT_EQ(r110[0]["weight"], Value::Double(0.5));
  EXPECT_EQ(rows[0].count("_op") + rows[0].count("_seq") + rows[0].count("_source_table"), 0u);
}

TEST(ConnectorStreams, PostgresFlinkChangelogScd2) {
  std::vector<Row> rows = CheckArrivals(PostgresProducts(), ScdType::kType2, kFixtureCases, 200);
  // Seven keys with one version; 106, 107, 110 and 111 with two; 111 closed by
  // its delete.
  EXPECT_EQ(rows.size(), 15u);
  EXPECT_EQ(Open(rows).size(), 10u);
  auto r111 = Where(rows, "id", Value::Int(111));
  ASSERT_EQ(r111.size(), 2u);
  EXPECT_TRUE(Open(r111).empty());
  auto r107 = Where(rows, "id", Value::Int(107));
  ASSERT_EQ(r107.size(), 2u);
  auto open107 = Open(r107);
  ASSERT_EQ(open107.size(), 1u);
  EXPECT_EQ(open107[0]["weight"], Value::Double(5.1));
  // Opened at the update's position (commit_lsn, lsn), both from the event's
  // lsn.
  EXPECT_EQ(open107[0]["__START_AT"], Value::Nested({Value::Int(34132200), Value::Int(34132200)}));
}

TEST(ConnectorStreams, PostgresCustomersScd1) {
  std::vector<Row> rows = CheckArrivals(PostgresCustomers(), ScdType::kType1, kFixtureCases, 300);
  ASSERT_EQ(rows.size(), 2u);  // id 1 created, updated, deleted
  auto r1004 = Where(rows, "id", Value::Int(1004));
  ASSERT_EQ(r1004.size(), 1u);
  EXPECT_EQ(r1004[0]["first_name"], Str("Dana"));
  // The TOAST placeholder is never data; with no earlier row the column is
  // NULL.
  EXPECT_TRUE(r1004[0]["biography"].is_null());
  auto r1005 = Where(rows, "id", Value::Int(1005));
  ASSERT_EQ(r1005.size(), 1u);
  EXPECT_EQ(r1005[0]["email"], Str("bob@marley.com"));
}

TEST(ConnectorStreams, PostgresCustomersScd2) {
  std::vector<Row> rows = CheckArrivals(PostgresCustomers(), ScdType::kType2, kFixtureCases, 400);
  ASSERT_EQ(rows.size(), 4u);
  auto r1 = Where(rows, "id", Value::Int(1));
  ASSERT_EQ(r1.size(), 2u);
  EXPECT_TRUE(Open(r1).empty());
  std::set<std::string> names;
  for (Row& r : r1) names.insert(r["first_name"].bytes());
  EXPECT_EQ(names, (std::set<std::string>{"Anne", "Anne Marie"}));
  EXPECT_EQ(Open(rows).size(), 2u);
}

TEST(ConnectorStreams, MySqlCustomersScd1) {
  std::vector<Row> rows = CheckArrivals(MySqlCustomers(), ScdType::kType1, kFixtureCases, 500);
  ASSERT_EQ(rows.size(), 1u);  // 1004 deleted at pos 805
  EXPECT_EQ(rows[0]["id"], Value::Int(1001));
  EXPECT_EQ(rows[0]["first_name"], Str("Sarah"));
}

TEST(ConnectorStreams, MySqlCustomersScd2) {
  std::vector<Row> rows = CheckArrivals(MySqlCustomers(), ScdType::kType2, kFixtureCases, 600);
  // 1004: Anne at 154 (four identical events there), Anne Marie at 484, Anne
  // again from the snapshot read at 797, closed by the delete at 805. 1001:
  // Sarah.
  ASSERT_EQ(rows.size(), 4u);
  auto r1004 = Where(rows, "id", Value::Int(1004));
  ASSERT_EQ(r1004.size(), 3u);
  EXPECT_TRUE(Open(r1004).empty());
  auto last = Where(r1004, "__END_AT",
                    Value::Nested({Str("mysql-bin.000003"), Value::Int(805), Value::Int(0)}));
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0]["first_name"], Str("Anne"));
  EXPECT_EQ(last[0]["__START_AT"],
            Value::Nested({Str("mysql-bin.000003"), Value::Int(797), Value::Int(0)}));
}

TEST(ConnectorStreams, SqlServerCustomersScd1) {
  std::vector<Row> rows = CheckArrivals(SqlServerCustomers(), ScdType::kType1, kFixtureCases, 700);
  EXPECT_TRUE(rows.empty());  // 1005 created, updated, deleted
}

TEST(ConnectorStreams, SqlServerCustomersScd2) {
  std::vector<Row> rows = CheckArrivals(SqlServerCustomers(), ScdType::kType2, kFixtureCases, 800);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(Open(rows).empty());
  auto first = Where(rows, "email", Str("john.doe@example.org"));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["__START_AT"], Value::Nested({Str("00000027:00000758:0005"),
                                                   Str("00000027:00000758:0003"), Value::Int(1)}));
  auto second = Where(rows, "email", Str("noreply@example.org"));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0]["__END_AT"], Value::Nested({Str("00000027:00000db0:0007"),
                                                  Str("00000027:00000db0:0005"), Value::Int(1)}));
}

// Known gaps, kept as disabled tests until the engine or the readers change.

// A Debezium file whose first record is a truncate (op t, no row image) gives a
// first batch with only the change-stream columns, which fails the flow ("KEYS
// names column 'id', which the source does not have"); `cdclake apply --format
// debezium` stops there. Batches after the first keep the columns seen before,
// so only a file that starts with a truncate fails.
TEST(ConnectorStreams, FileStartingWithATruncate) {
  Stream s =
      MakeStream("truncate_first", SourceFormat::kDebezium,
                 {FixtureRecords("debezium/postgresql/examples-kafka-ssl-create-payload.json")[0],
                  FixtureRecords("debezium/postgresql/docs-truncate-payload.json")[0]},
                 {"id"});
  auto scratch = io::ScratchDir::Create("cdclake-connector-");
  ASSERT_TRUE(scratch.ok());
  Arrival a;
  a.files = {{0}, {1}};
  auto run = ApplyArrival(s, ScdType::kType1, a, scratch->path(), true);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->counts.applied, 2);
  EXPECT_TRUE(run->rows.empty());  // the truncate (lsn 46523128) is after the
                                   // create (34466480)
}

// Payload-only numbers are read as DECIMAL(p,s) fitted to the first file's
// values; a later file (with the types earlier files fixed, as the CLI reads
// it) quarantines a weight with more digits, so which rows survive depends on
// how the stream was cut into files.
TEST(ConnectorStreams, DecimalInferredPerFile) {
  Stream s =
      MakeStream("decimal_per_file", SourceFormat::kDebezium,
                 FixtureRecords("debezium/postgresql/flink-products-changelog.jsonl"), {"id"});
  auto scratch = io::ScratchDir::Create("cdclake-connector-");
  ASSERT_TRUE(scratch.ok());
  Arrival a;
  a.files = {{0}, {4, 8}};  // 3.14, then 0.875 and 22.2
  auto run = ApplyArrival(s, ScdType::kType1, a, scratch->path(), true);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->counts.quarantined, 0);
  for (const Row& q : run->quarantine) ADD_FAILURE() << RowText(q);
  EXPECT_EQ(run->rows.size(), 3u);
}

// SQL Server snapshot rows (op r) carry commit_lsn but no change_lsn or
// event_serial_no (SOURCE-FORMATS.md §1.4); `_seq` then has NULL members and
// the engine quarantines every snapshot row as "NULL sequence", so an initial
// snapshot never reaches the table.
TEST(ConnectorStreams, SqlServerSnapshotRows) {
  json::Json e = ParseJson(FixtureRecords("debezium/sqlserver/docs-create-with-schema.json")[0]);
  json::Json p = e["payload"];
  p["op"] = "r";
  p["source"]["snapshot"] = "true";
  p["source"]["change_lsn"] = json::Json();
  p["source"]["event_serial_no"] = json::Json();
  Stream s = MakeStream("sqlserver_snapshot", SourceFormat::kDebezium, {json::Dump(p)}, {"id"});
  auto scratch = io::ScratchDir::Create("cdclake-connector-");
  ASSERT_TRUE(scratch.ok());
  auto run = ApplyArrival(s, ScdType::kType1, InOrder(s), scratch->path(), true);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  for (const Row& q : run->quarantine) ADD_FAILURE() << RowText(q);
  ASSERT_EQ(run->rows.size(), 1u);
  EXPECT_EQ(run->rows[0]["email"], Str("john.doe@example.org"));
}

// --- synthesised streams
// ---------------------------------------------------------------------------

enum class Connector { kPostgres, kMySql, kSqlServer, kOracle, kSqlServerExport };

const char* ConnectorName(Connector c) {
  switch (c) {
    case Connector::kPostgres:
      return "postgres";
    case Connector::kMySql:
      return "mysql";
    case Connector::kSqlServer:
      return "sqlserver";
    case Connector::kOracle:
      return "oracle";
    case Connector::kSqlServerExport:
      return "sqlserver_export";
  }
  return "?";
}

// Column names: the key, then three values. PostgreSQL's third is a DOUBLE and
// its second the TOASTable one; Oracle spells names in upper case as its
// connector does.
std::vector<std::string> Columns(Connector c) {
  if (c == Connector::kPostgres) return {"id", "name", "description", "weight"};
  if (c == Connector::kOracle) return {"ID", "FIRST_NAME", "LAST_NAME", "EMAIL"};
  return {"id", "first_name", "last_name", "email"};
}

// One change in sequence order.
struct Change {
  char op = 'c';  // r c u d t
  int64_t key = 0;
  std::vector<Value> values;  // after image; for d the image deleted
  std::vector<Value> before;  // u: the image before
  bool toast = false;         // u: the TOASTable column is unchanged and sent as the placeholder
  int txn = 0;                // 0: the snapshot
  int in_txn = 0;
};

struct Generated {
  std::vector<Change> changes;
  int txns = 0;
  std::vector<Row> scd1;  // expected rows
  std::vector<Row> scd2;  // expected rows, WithoutSequences
};

struct GenOptions {
  int events = 200;
  int keys = 20;
  bool snapshot = false;  // initial rows as op r sharing one position
  bool truncate = false;  // one truncate two thirds in
  bool toast = false;     // PostgreSQL TOAST placeholders on some updates
  bool doubles = false;   // third value column is a DOUBLE
};

Value NewValue(int column, int64_t key, int version, bool doubles) {
  if (column == 2 && doubles) return Value::Double(static_cast<double>(key) + 0.25 * (version % 4));
  static const char* kPrefix[] = {"n", "d", "e"};
  return Str(std::string(kPrefix[column]) + std::to_string(key) + "v" + std::to_string(version));
}

Generated Generate(uint64_t seed, const GenOptions& o, const std::vector<std::string>& names) {
  std::mt19937_64 rng(seed);
  Generated g;
  std::map<int64_t, std::vector<Value>> current;
  std::map<int64_t, int> versions;
  struct Version {
    std::vector<Value> values;
    bool open;
  };
  std::map<int64_t, std::vector<Version>> history;
  auto record = [&](const Change& c) {
    g.changes.push_back(c);
    if (c.op == 't') {
      current.clear();
      return;
    }
    auto& h = history[c.key];
    bool has_open = !h.empty() && h.back().open;
    if (c.op == 'd') {
      current.erase(c.key);
      if (has_open) h.back().open = false;
      return;
    }
    current[c.key] = c.values;
    if (has_open && h.back().values == c.values) return;  // identical: nothing
    if (has_open) h.back().open = false;
    h.push_back({c.values, true});
  };
  if (o.snapshot) {
    for (int64_t k = 1; k <= o.keys / 2; ++k) {
      Change c;
      c.op = 'r';
      c.key = k;
      for (int col = 0; col < 3; ++col) c.values.push_back(NewValue(col, k, 0, o.doubles));
      c.in_txn = static_cast<int>(k - 1);
      record(c);
    }
  }
  int emitted = static_cast<int>(g.changes.size());
  bool truncated = !o.truncate;
  while (emitted < o.events) {
    ++g.txns;
    const int size = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < size && emitted < o.events; ++j, ++emitted) {
      Change c;
      c.txn = g.txns;
      c.in_txn = j;
      if (!truncated && emitted >= o.events * 2 / 3) {
        truncated = true;
        c.op = 't';
        c.in_txn = 0;
        record(c);
        ++emitted;
        break;  // a truncate is its own transaction
      }
      c.key = 1 + static_cast<int64_t>(rng() % o.keys);
      auto it = current.find(c.key);
      const int version = ++versions[c.key];
      if (it == current.end()) {
        c.op = 'c';
        for (int col = 0; col < 3; ++col)
          c.values.push_back(NewValue(col, c.key, version, o.doubles));
      } else if (rng() % 100 < 15) {
        c.op = 'd';
        c.values = it->second;
        c.before = it->second;
      } else {
        c.op = 'u';
        c.before = it->second;
        c.values = it->second;
        if (rng() % 10 != 0) {  // else an update that changes nothing (UPDATE t SET x = x)
          bool changed = false;
          for (int col = 0; col < 3; ++col) {
            if (rng() % 2 == 0) {
              c.values[col] = NewValue(col, c.key, version, o.doubles);
              changed = true;
            }
          }
          if (!changed) c.values[0] = NewValue(0, c.key, version, o.doubles);
        }
        if (o.toast && rng() % 3 == 0) {
          c.toast = true;
          c.values[1] = c.before[1];  // unchanged, so the source cannot send it
        }
      }
      record(c);
    }
  }
  for (const auto& [key, values] : current) {
    Row r{{names[0], Value::Int(key)}};
    for (int col = 0; col < 3; ++col) r[names[col + 1]] = values[col];
    g.scd1.push_back(r);
  }
  for (const auto& [key, versions_of_key] : history) {
    for (const Version& v : versions_of_key) {
      Row r{{names[0], Value::Int(key)}, {"__END_AT", Str(v.open ? "open" : "closed")}};
      for (int col = 0; col < 3; ++col) r[names[col + 1]] = v.values[col];
      g.scd2.push_back(r);
    }
  }
  return g;
}

json::Json Image(const std::vector<std::string>& names, int64_t key,
                 const std::vector<Value>& values, bool toast) {
  json::Json image = json::Json::object();
  image[names[0]] = key;
  for (int col = 0; col < 3; ++col) {
    const Value& v = values[col];
    if (col == 1 && toast) {
      image[names[col + 1]] = kToastPlaceholder;
    } else if (v.is_double()) {
      image[names[col + 1]] = v.double_value();
    } else {
      image[names[col + 1]] = v.bytes();
    }
  }
  return image;
}

std::string Hex10(int a, int b, int c) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%08x:%08x:%04x", a, b, c);
  return buf;
}

// The Oracle event shape (io.debezium.connector.oracle.Source, LogMiner),
// written for these tests: the shared fixtures have no Oracle capture.
const char* kOracleTemplate =
    R"({"before":null,"after":null,"source":{"version":"2.7.3.Final","connector":"oracle",)"
    R"("name":"server1","ts_ms":1700000000000,"snapshot":"false","db":"ORCLPDB1",)"
    R"("sequence":null,"schema":"DEBEZIUM","table":"CUSTOMERS","txId":"6.28.807",)"
    R"("scn":"0","commit_scn":null,"rs_id":null,"ssn":0,"redo_thread":1,)"
    R"("user_name":"DEBEZIUM"},"op":"c","ts_ms":1700000000100,"transaction":null})";

// The records of `g` as `connector` writes them, from a template event of that
// connector.
Stream Render(Connector connector, const Generated& g) {
  const std::vector<std::string> names = Columns(connector);
  Stream s;
  s.name = ConnectorName(connector);
  s.keys = {names[0]};
  if (connector == Connector::kSqlServerExport) {
    s.format = SourceFormat::kSqlServer;
    s.header =
        "__$start_lsn,__$end_lsn,__$seqval,__$operation,__$update_mask,"
        "id,first_name,"
        "last_name,email,__$command_id\n";
    for (const Change& c : g.changes) {
      char start[32], seqval[32];
      std::snprintf(start, sizeof(start), "0x0000002A%08X0003", 0x100 + c.txn);
      std::snprintf(seqval, sizeof(seqval), "0x0000002A%08X%04X", 0x100 + c.txn, 2 + c.in_txn);
      auto line = [&](int operation, const std::vector<Value>& values, int mask) {
        char m[8];
        std::snprintf(m, sizeof(m), "0x%02X", mask);
        std::string out = std::string(start) + ",," + seqval + "," + std::to_string(operation) +
                          "," + m + "," + std::to_string(c.key);
        for (const Value& v : values) out += "," + v.bytes();
        return out + "," + std::to_string(c.in_txn + 1);
      };
      if (c.op == 'u') {
        int mask = 0;
        for (int col = 0; col < 3; ++col) mask |= c.values[col] == c.before[col] ? 0 : 2 << col;
        s.records.push_back(line(3, c.before, mask));
        s.is_row.push_back(false);  // a before-image: counted by the reader, never a row
        s.is_truncate.push_back(false);
        s.records.push_back(line(4, c.values, mask));
      } else {
        s.records.push_back(line(c.op == 'd' ? 1 : 2, c.values, 0x0F));
      }
      s.is_row.push_back(true);
      s.is_truncate.push_back(false);
    }
    return s;
  }
  s.format = SourceFormat::kDebezium;
  if (connector == Connector::kPostgres) s.schema = {{"weight", data::DataType::Double(), true}};
  json::Json base;
  switch (connector) {
    case Connector::kPostgres:
      base = ParseJson(FixtureRecords("debezium/postgresql/flink-create.json")[0]);
      break;
    case Connector::kMySql:  // with its Connect schema part (id INT32)
      base = ParseJson(FixtureRecords("debezium/mysql/docs-create-with-schema.json")[0]);
      break;
    case Connector::kSqlServer:
      base = ParseJson(FixtureRecords("debezium/sqlserver/docs-update-payload.json")[0]);
      break;
    default:
      base = ParseJson(kOracleTemplate);
      break;
  }
  const int64_t pg_snapshot_lsn = 34078720;
  const int64_t oracle_base = 9007199254740993;  // 2^53 + 1: SCNs must not go through a double
  for (const Change& c : g.changes) {
    json::Json e = base;
    json::Json& p = connector == Connector::kMySql ? e["payload"] : e;
    json::Json& src = p["source"];
    const bool snapshot = c.op == 'r';
    p["op"] = std::string(1, c.op);
    p["after"] = c.op == 'd' || c.op == 't' ? json::Json() : Image(names, c.key, c.values, c.toast);
    p["before"] = json::Json();
    if (c.op == 'd' && connector == Connector::kPostgres) {
      p["before"] = json::Json{{names[0], c.key}};  // REPLICA IDENTITY DEFAULT: the key only
    } else if (c.op == 'd' || (c.op == 'u' && connector != Connector::kPostgres)) {
      p["before"] = Image(names, c.key, c.op == 'd' ? c.values : c.before, false);
    }
    src["ts_ms"] = 1700000000000 + 1000 * c.txn;
    src["snapshot"] = snapshot ? "true" : "false";
    switch (connector) {
      case Connector::kPostgres: {
        // Rows of transaction t carry the commit LSN of the transaction before
        // it.
        int64_t lsn = snapshot ? pg_snapshot_lsn : pg_snapshot_lsn + 1000 * c.txn + 16 * c.in_txn;
        int64_t last_commit =
            c.txn <= 1 ? pg_snapshot_lsn + 8 : pg_snapshot_lsn + 1000 * (c.txn - 1) + 900;
        src["lsn"] = lsn;
        src["txId"] = 600 + c.txn;
        src["sequence"] =
            snapshot ? "[null,\"" + std::to_string(lsn) + "\"]"
                     : "[\"" + std::to_string(last_commit) + "\",\"" + std::to_string(lsn) + "\"]";
        break;
      }
      case Connector::kMySql: {
        // The binlog rolls over half way; positions restart in the new file.
        const bool second = c.txn > g.txns / 2;
        src["file"] = second ? "mysql-bin.000004" : "mysql-bin.000003";
        src["pos"] = snapshot ? 154 : second ? 4 + 300 * (c.txn - g.txns / 2) : 154 + 300 * c.txn;
        src["row"] = snapshot ? 0 : c.in_txn;
        src["query"] = json::Json();
        break;
      }
      case Connector::kSqlServer:
        src["commit_lsn"] = Hex10(0x27, 0x100 + c.txn, 0x7);
        src["change_lsn"] = Hex10(0x27, 0x100 + c.txn, 0x2 + c.in_txn);
        src["event_serial_no"] = c.op == 'u' ? 2 : 1;
        break;
      default:
        if (snapshot) {
          src["scn"] = std::to_string(oracle_base);
          src["commit_scn"] = json::Json();
        } else {
          src["scn"] = std::to_string(oracle_base + 100 * c.txn + c.in_txn);
          src["commit_scn"] = std::to_string(oracle_base + 100 * c.txn + 50);
        }
        break;
    }
    s.records.push_back(json::Dump(e));
    s.is_row.push_back(true);
    s.is_truncate.push_back(c.op == 't');
  }
  return s;
}

class SynthesisedStreams : public ::testing::TestWithParam<Connector> {
 protected:
  GenOptions Options(ScdType scd) const {
    GenOptions o;
    const Connector c = GetParam();
    o.snapshot = c != Connector::kSqlServer && c != Connector::kSqlServerExport;
    // SQL Server never emits truncates; SCD2 flows have no truncate condition.
    o.truncate =
        scd == ScdType::kType1 && c != Connector::kSqlServer && c != Connector::kSqlServerExport;
    o.toast = c == Connector::kPostgres;
    o.doubles = c == Connector::kPostgres;
    return o;
  }

  void Check(ScdType scd) {
    const Connector connector = GetParam();
    const int cases = Cases();
    for (int seed = 1; seed <= (cases + 1) / 2; ++seed) {
      Generated g = Generate(1000 * static_cast<uint64_t>(connector) + seed, Options(scd),
                             Columns(connector));
      Stream stream = Render(connector, g);
      SCOPED_TRACE(std::string("generator seed ") + std::to_string(seed));
      std::vector<Row> rows = CheckArrivals(stream, scd, cases, 10000 + 100 * seed);
      // The in-order table is the one the generator's own bookkeeping expects.
      std::vector<Row> projected;
      for (const Row& r : rows) projected.push_back(WithoutSequences(r));
      std::vector<std::string> got = SortedTexts(projected);
      std::vector<std::string> want = SortedTexts(scd == ScdType::kType1 ? g.scd1 : g.scd2);
      EXPECT_EQ(got, want) << "expected:\n" << Joined(want) << "got:\n" << Joined(got);
      EXPECT_FALSE(want.empty());
    }
  }
};

TEST_P(SynthesisedStreams, Scd1) {
  Check(ScdType::kType1);
}

TEST_P(SynthesisedStreams, Scd2) {
  Check(ScdType::kType2);
}

INSTANTIATE_TEST_SUITE_P(Connectors, SynthesisedStreams,
                         ::testing::Values(Connector::kPostgres, Connector::kMySql,
                                           Connector::kSqlServer, Connector::kOracle,
                                           Connector::kSqlServerExport),
                         [](const ::testing::TestParamInfo<Connector>& info) {
                           return std::string(ConnectorName(info.param));
                         });

// The generator itself: the streams hold what the cases above rely on.
TEST(ConnectorStreams, GeneratedStreamsHaveEveryShape) {
  GenOptions o;
  o.snapshot = o.truncate = o.toast = o.doubles = true;
  Generated g = Generate(7, o, Columns(Connector::kPostgres));
  std::map<char, int> ops;
  int toast = 0;
  for (const Change& c : g.changes) {
    ++ops[c.op];
    toast += c.toast ? 1 : 0;
  }
  EXPECT_EQ(static_cast<int>(g.changes.size()), o.events);
  EXPECT_EQ(ops['r'], o.keys / 2);
  EXPECT_EQ(ops['t'], 1);
  EXPECT_GT(ops['c'], 0);
  EXPECT_GT(ops['u'], 20);
  EXPECT_GT(ops['d'], 5);
  EXPECT_GT(toast, 5);
  Stream s = Render(Connector::kPostgres, g);
  size_t placeholders = 0;
  for (const std::string& r : s.records)
    placeholders += r.find(kToastPlaceholder) != std::string::npos;
  EXPECT_EQ(placeholders, static_cast<size_t>(toast));
}

}  // namespace
}  // namespace cdclake::apply
