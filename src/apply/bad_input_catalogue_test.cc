// The bad-input catalogue end to end: for each kind of bad record (Debezium,
// SQL Server CDC exports, CSV and JSON Lines), read by the real reader amid
// good ones and applied, the bad one lands in `<target>_quarantine` with its
// text, place and reason, the good ones apply, and the counts conserve
// (SEMANTICS §2, §8).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "apply/testing/table_rows.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"
#include "sources/change_source.h"
#include "sql/condition_parser.h"

namespace cdclake::apply {
namespace {

using data::Value;
using sources::SourceFormat;

constexpr int64_t kFixedNowMs = 1'700'000'000'000;

using Row = testing::TableRow;

Result<std::vector<Row>> ReadRows(io::FileSystem& fs, const std::string& table) {
  return testing::ReadTableRows(fs, table);
}

std::shared_ptr<const data::Expr> Condition(const std::string& text) {
  auto parsed = sql::ParseCondition(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? std::shared_ptr<const data::Expr>(std::move(parsed).value()) : nullptr;
}

// One file of records, some of them bad.
struct Input {
  SourceFormat format = SourceFormat::kDebezium;
  sources::FileFormat file_format = sources::FileFormat::kCsv;  // of a SQL Server export
  std::vector<std::string> lines;      // the file, one record per line (a CSV header first)
  std::map<size_t, std::string> bad;   // index in `lines` -> what the reason must mention
  std::set<int64_t> good_ids;          // `id` of the rows that must reach the target
  std::optional<data::Schema> schema;  // types to read columns as
};

// The flow the CLI builds: for change streams keys id, sequence _seq, deletes
// on _op = 'd', metadata columns left out; for plain files sequence `seq`,
// deletes on op = 'DELETE'.
FlowDefinition FlowFor(const Input& in, const std::string& target) {
  FlowDefinition flow;
  flow.name = "catalogue";
  flow.target = target;
  flow.keys = {"id"};
  if (sources::IsChangeStreamFormat(in.format)) {
    flow.sequence_by = {"_seq"};
    flow.delete_when = Condition("_op = 'd'");
    if (in.format == SourceFormat::kDebezium) flow.truncate_when = Condition("_op = 't'");
    flow.columns = ColumnSelection::Except(sources::ChangeStreamColumns());
  } else {
    flow.sequence_by = {"seq"};
    flow.delete_when = Condition("op = 'DELETE'");
    flow.columns = ColumnSelection::Except({"op", "seq"});
  }
  return flow;
}

// Reads `in` through the real reader, applies every batch, and checks
// quarantine, target and counts.
void Check(const Input& in) {
  auto scratch = io::ScratchDir::Create("cdclake-catalogue-");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  io::LocalFileSystem fs;
  const char* ext =
      in.format == SourceFormat::kCsv ? "csv"
      : in.format == SourceFormat::kSqlServer && in.file_format == sources::FileFormat::kCsv
          ? "csv"
          : "json";
  const std::string path = scratch->path() + "/events." + ext;
  std::string text;
  std::vector<int64_t> offsets;
  for (const std::string& line : in.lines) {
    offsets.push_back(static_cast<int64_t>(text.size()));
    text += line + "\n";
  }
  ASSERT_TRUE(fs.WriteFile(path, text).ok());

  const std::string target = scratch->path() + "/target";
  ApplyOptions options;
  options.clock = [] { return kFixedNowMs; };
  auto applier = Applier::Open(fs, FlowFor(in, target), options);
  ASSERT_TRUE(applier.ok()) << applier.status().ToString();
  sources::ChangeSourceOptions source_options;
  source_options.schema = in.schema;
  source_options.file_format = in.file_format;
  source_options.batch_rows = 2;  // bad records in batches of their own and among good rows
  auto source = sources::OpenChangeSource(fs, path, in.format, source_options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  ApplyCounts counts;
  int64_t rejected = 0;
  for (;;) {
    auto batch = (*source)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch->has_value()) break;
    rejected += static_cast<int64_t>((*batch)->rejected.size());
    auto applied = (*applier)->Apply(**batch);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    counts += applied->counts;
  }

  const int64_t header =
      in.format == SourceFormat::kCsv ||
              (in.format == SourceFormat::kSqlServer && in.file_format == sources::FileFormat::kCsv)
          ? 1
          : 0;
  const int64_t records = static_cast<int64_t>(in.lines.size()) - header;
  const int64_t bad = static_cast<int64_t>(in.bad.size());
  // Conservation: every record read is applied, discarded or quarantined; the
  // reader's rejected records are read and quarantined.
  EXPECT_EQ(counts.read, records);
  EXPECT_EQ(counts.read, counts.applied + counts.discarded + counts.quarantined);
  EXPECT_EQ(counts.quarantined, bad);
  EXPECT_LE(rejected, counts.quarantined);
  EXPECT_EQ(counts.applied, records - bad);

  auto quarantine = ReadRows(fs, target + "_quarantine");
  ASSERT_TRUE(quarantine.ok()) << quarantine.status().ToString();
  ASSERT_EQ(quarantine->size(), in.bad.size());
  for (const auto& [index, cause] : in.bad) {
    SCOPED_TRACE("bad line " + std::to_string(index + 1) + ": " + in.lines[index]);
    const Row* found = nullptr;
    for (const Row& q : *quarantine) {
      if (q.at("source_line") == Value::Int(static_cast<int64_t>(index) + 1)) found = &q;
    }
    ASSERT_NE(found, nullptr) << "not in the quarantine";
    const Row& q = *found;
    EXPECT_EQ(q.at("source_file"), Value::Bytes(path));
    EXPECT_EQ(q.at("source_offset"), Value::Int(offsets[index]));
    EXPECT_EQ(q.at("raw"), Value::Bytes(in.lines[index]));
    EXPECT_EQ(q.at("flow"), Value::Bytes("catalogue"));
    ASSERT_TRUE(q.at("reason").is_bytes());
    EXPECT_NE(q.at("reason").bytes().find(cause), std::string::npos)
        << "reason: " << q.at("reason").bytes();
  }

  auto rows = ReadRows(fs, target);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::set<int64_t> ids;
  for (const Row& r : *rows) {
    ASSERT_TRUE(r.at("id").is_int());
    ids.insert(r.at("id").int_value());
  }
  EXPECT_EQ(ids, in.good_ids);
}

// --- Debezium
// -------------------------------------------------------------------------------------

// A MySQL create event (payload only) for `id` at binlog position `pos`.
std::string Event(const std::string& id, int64_t pos, const std::string& op = "c",
                  const std::string& after = "") {
  std::string image = after.empty() ? R"({"id":)" + id + R"(,"first_name":"f)" + id +
                                          R"(","email":"e)" + id + R"(@example.org"})"
                                    : after;
  return R"({"before":null,"after":)" + image +
         R"(,"source":{"version":"2.7.3.Final","connector":"mysql","name":"m","ts_ms":1700000000000,)"
         R"("snapshot":"false","db":"inventory","table":"customers","server_id":223344,"gtid":null,)"
         R"("file":"mysql-bin.000003","pos":)" +
         std::to_string(pos) + R"(,"row":0,"thread":7,"query":null},"op":")" + op +
         R"(","ts_ms":1700000000100,"transaction":null})";
}

// Good events 1, 2 around `bad`, then good 3: the bad record in every batch
// position.
Input DebeziumWith(const std::string& bad, const std::string& cause) {
  Input in;
  in.lines = {Event("1", 100), bad, Event("2", 300), Event("3", 400)};
  in.bad = {{1, cause}};
  in.good_ids = {1, 2, 3};
  return in;
}

TEST(BadInputCatalogue, DebeziumTruncatedLine) {
  std::string whole = Event("9", 200);
  Input in = DebeziumWith(whole.substr(0, whole.size() / 2), "truncated");
  Check(in);
}

TEST(BadInputCatalogue, DebeziumInvalidJson) {
  std::string broken = Event("9", 200);
  broken.replace(broken.find(R"(,"first_name")"), 1, " ");  // a missing comma
  Check(DebeziumWith(broken, "invalid JSON at byte"));
}

// A Connect schema part declaring id INT32 (and price a Decimal of scale 2),
// then the payload.
std::string WithSchema(const std::string& id, const std::string& price, int64_t pos,
                       const std::string& op = "c") {
  const std::string value_fields =
      R"([{"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",)"
      R"("version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"}])";
  const std::string schema =
      R"({"type":"struct","fields":[{"type":"struct","fields":)" + value_fields +
      R"(,"optional":true,"name":"m.inventory.items.Value","field":"before"},)"
      R"({"type":"struct","fields":)" +
      value_fields +
      R"(,"optional":true,"name":"m.inventory.items.Value","field":"after"},)"
      R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"connector"},)"
      R"({"type":"string","optional":false,"field":"file"},)"
      R"({"type":"int64","optional":false,"field":"pos"},)"
      R"({"type":"int32","optional":false,"field":"row"}],"optional":false,)"
      R"("name":"io.debezium.connector.mysql.Source","field":"source"},)"
      R"({"type":"string","optional":false,"field":"op"}],"optional":false,)"
      R"("name":"m.inventory.items.Envelope"})";
  return R"({"schema":)" + schema + R"(,"payload":{"before":null,"after":{"id":)" + id +
         R"(,"price":)" + price +
         R"(},"source":{"connector":"mysql","file":"mysql-bin.000003",)"
         R"("pos":)" +
         std::to_string(pos) + R"(,"row":0},"op":")" + op + R"("}})";
}

TEST(BadInputCatalogue, DebeziumValueOfTheWrongTypeForItsSchemaField) {
  Input in;
  in.lines = {WithSchema("1", R"("AQ==")", 100), WithSchema(R"("abc")", R"("AQ==")", 200),
              WithSchema("2", R"("Ang=")", 300)};
  in.bad = {{1, "column 'id': 'abc' is not an INT"}};
  in.good_ids = {1, 2};
  Check(in);
}

TEST(BadInputCatalogue, DebeziumDecimalWithBadBase64) {
  Input in;
  in.lines = {WithSchema("1", R"("AQ==")", 100), WithSchema("9", R"("*not base64*")", 200),
              WithSchema("2", R"("Ang=")", 300)};
  in.bad = {{1, "column 'price': '*not base64*'"}};
  in.good_ids = {1, 2};
  Check(in);
}

TEST(BadInputCatalogue, DebeziumUnknownOp) {
  Check(DebeziumWith(Event("9", 200, "x"), "unknown op 'x'"));
}

TEST(BadInputCatalogue, DebeziumUpdateWithoutAfter) {
  std::string update = Event("9", 200, "u", "null");
  Check(DebeziumWith(update, "no after image"));
}

TEST(BadInputCatalogue, DebeziumNullKey) {
  Check(DebeziumWith(Event("null", 200), "NULL in key column 'id'"));
}

TEST(BadInputCatalogue, DebeziumNullSequence) {
  // A MySQL event without its binlog position: `_seq` is NULL.
  std::string event = Event("9", 200);
  event.replace(event.find(R"("file":"mysql-bin.000003","pos":200,"row":0)"),
                std::string(R"("file":"mysql-bin.000003","pos":200,"row":0)").size(),
                R"("file":null,"pos":null,"row":null)");
  Check(DebeziumWith(event, "NULL sequence"));
}

// --- SQL Server CDC exports
// -------------------------------------------------------------------

constexpr const char* kCdcHeader =
    "__$start_lsn,__$end_lsn,__$seqval,__$operation,__$update_mask,id,name,__$"
    "command_id";

Input SqlServerWith(const std::string& bad, const std::string& cause) {
  Input in;
  in.format = SourceFormat::kSqlServer;
  in.lines = {kCdcHeader, "0x0000002A000000100003,,0x0000002A000000100002,2,0x03,1,ann,1", bad,
              "0x0000002A000000300003,,0x0000002A000000300002,2,0x03,2,bob,1",
              "0x0000002A000000400003,,0x0000002A000000400002,2,0x03,3,cy,1"};
  in.bad = {{2, cause}};
  in.good_ids = {1, 2, 3};
  return in;
}

TEST(BadInputCatalogue, SqlServerUnknownOperation) {
  Check(SqlServerWith("0x0000002A000000200003,,0x0000002A000000200002,7,0x03,9,zed,1",
                      "unknown __$operation '7'"));
}

TEST(BadInputCatalogue, SqlServerMalformedLsn) {
  Check(SqlServerWith("0x2A0010,,0x0000002A000000200002,2,0x03,9,zed,1",
                      "__$start_lsn '0x2A0010' is not"));
}

TEST(BadInputCatalogue, SqlServerNullKey) {
  Check(SqlServerWith("0x0000002A000000200003,,0x0000002A000000200002,2,0x03,,zed,1",
                      "NULL in key column 'id'"));
}

TEST(BadInputCatalogue, SqlServerValueOfTheWrongType) {
  Input in = SqlServerWith("0x0000002A000000200003,,0x0000002A000000200002,2,0x03,abc,zed,1",
                           "'abc' is not an INT");
  in.schema = data::Schema({{"id", data::DataType::Int32(), true}});
  Check(in);
}

// --- CSV and JSON Lines
// --------------------------------------------------------------------------

Input JsonLinesWith(const std::string& bad, const std::string& cause) {
  Input in;
  in.format = SourceFormat::kJsonLines;
  in.lines = {R"({"id":1,"name":"ann","op":"INSERT","seq":1})", bad,
              R"({"id":2,"name":"bob","op":"INSERT","seq":3})",
              R"({"id":3,"name":"cy","op":"INSERT","seq":4})"};
  in.bad = {{1, cause}};
  in.good_ids = {1, 2, 3};
  in.schema = data::Schema({{"id", data::DataType::Int32(), true},
                            {"name", data::DataType::String(), true},
                            {"op", data::DataType::String(), true},
                            {"seq", data::DataType::Int64(), true}});
  return in;
}

TEST(BadInputCatalogue, JsonLinesTruncatedLine) {
  Check(JsonLinesWith(R"({"id":9,"name":"ze)", "invalid JSON"));
}

TEST(BadInputCatalogue, JsonLinesInvalidJson) {
  Check(JsonLinesWith(R"({"id":9 "name":"zed","op":"INSERT","seq":2})", "invalid JSON"));
}

TEST(BadInputCatalogue, JsonLinesValueOfTheWrongType) {
  Check(JsonLinesWith(R"({"id":"abc","name":"zed","op":"INSERT","seq":2})",
                      "column 'id': 'abc' is not an INT"));
}

TEST(BadInputCatalogue, JsonLinesNullKeyAndSequence) {
  Input in =
      JsonLinesWith(R"({"id":null,"name":"zed","op":"INSERT","seq":2})", "NULL in key column 'id'");
  in.lines.push_back(R"({"id":8,"name":"yo","op":"INSERT","seq":null})");
  in.bad[in.lines.size() - 1] = "NULL sequence";
  Check(in);
}

Input CsvWith(const std::string& bad, const std::string& cause) {
  Input in;
  in.format = SourceFormat::kCsv;
  in.lines = {"id,name,op,seq", "1,ann,INSERT,1", bad, "2,bob,INSERT,3", "3,cy,INSERT,4"};
  in.bad = {{2, cause}};
  in.good_ids = {1, 2, 3};
  in.schema = data::Schema({{"id", data::DataType::Int32(), true},
                            {"name", data::DataType::String(), true},
                            {"op", data::DataType::String(), true},
                            {"seq", data::DataType::Int64(), true}});
  return in;
}

TEST(BadInputCatalogue, CsvValueOfTheWrongType) {
  Check(CsvWith("abc,zed,INSERT,2", "column 'id': 'abc' is not an INT"));
}

TEST(BadInputCatalogue, CsvNullKey) {
  Check(CsvWith(",zed,INSERT,2", "NULL in key column 'id'"));
}

TEST(BadInputCatalogue, CsvNullSequence) {
  Check(CsvWith("9,zed,INSERT,", "NULL sequence"));
}

}  // namespace
}  // namespace cdclake::apply
