// Tests for partition values: each type's text both ways, Spark's number spelling, folder-name
// escaping, and every partition value (and folder name) of the conformance tables.
#include "delta/partition_value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "data/decimal.h"
#include "data/value_format.h"
#include "delta/schema_json.h"
#include "io/local_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;
using Json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s,
               int64_t us = 0) {
  return data::DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

Value Parse(const char* text, const data::TypePtr& type) {
  auto v = ParsePartitionValue(std::optional<std::string>(text), *type);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : Value::Null();
}

StatusCode ParseError(const char* text, const data::TypePtr& type) {
  return ParsePartitionValue(std::optional<std::string>(text), *type).status().code();
}

TEST(PartitionValue, NullAndEmpty) {
  for (const auto& type :
       {DataType::String(), DataType::Int32(), DataType::Date(), DataType::Timestamp(),
        DataType::Decimal(5, 2), DataType::Boolean(), DataType::Binary()}) {
    auto absent = ParsePartitionValue(std::nullopt, *type);
    ASSERT_TRUE(absent.ok());
    EXPECT_TRUE(absent->is_null());
    auto empty = ParsePartitionValue(std::string(), *type);
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->is_null()) << type->ToString();
  }
  // The literal text "null" is a string like any other.
  EXPECT_EQ(Parse("null", DataType::String()), Value::Bytes("null"));
  EXPECT_EQ(ParseError("null", DataType::Int64()), StatusCode::kCorrupt);
}

TEST(PartitionValue, Numbers) {
  EXPECT_EQ(Parse("-128", DataType::Int8()), Value::Int(-128));
  EXPECT_EQ(ParseError("128", DataType::Int8()), StatusCode::kCorrupt);
  EXPECT_EQ(Parse("32767", DataType::Int16()), Value::Int(32767));
  EXPECT_EQ(ParseError("-32769", DataType::Int16()), StatusCode::kCorrupt);
  EXPECT_EQ(Parse("+2147483647", DataType::Int32()), Value::Int(2147483647));
  EXPECT_EQ(ParseError("2147483648", DataType::Int32()), StatusCode::kCorrupt);
  EXPECT_EQ(Parse("-9223372036854775808", DataType::Int64()),
            Value::Int(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(ParseError("9223372036854775808", DataType::Int64()), StatusCode::kCorrupt);
  EXPECT_EQ(ParseError("1.0", DataType::Int64()), StatusCode::kCorrupt);
  EXPECT_EQ(ParseError("12a", DataType::Int64()), StatusCode::kCorrupt);
  EXPECT_EQ(ParseError(" 1", DataType::Int64()), StatusCode::kCorrupt);

  EXPECT_EQ(Parse("0.0", DataType::Double()), Value::Double(0.0));
  EXPECT_EQ(Parse("-1.5E-7", DataType::Double()), Value::Double(-1.5e-7));
  EXPECT_EQ(Parse("1.0E10", DataType::Double()), Value::Double(1e10));
  EXPECT_EQ(Parse("Infinity", DataType::Double()), Value::Double(INFINITY));
  EXPECT_EQ(Parse("-Infinity", DataType::Double()), Value::Double(-INFINITY));
  EXPECT_TRUE(std::isnan(Parse("NaN", DataType::Double()).double_value()));
  // A float is read at float precision, then widened.
  EXPECT_EQ(Parse("1.1", DataType::Float()), Value::Double(static_cast<double>(1.1f)));
  EXPECT_EQ(ParseError("1.1.1", DataType::Double()), StatusCode::kCorrupt);
  EXPECT_EQ(ParseError("1e999", DataType::Double()), StatusCode::kCorrupt);

  EXPECT_EQ(Parse("-2342342.23423", DataType::Decimal(12, 5)), Value::Decimal(-234234223423));
  EXPECT_EQ(Parse("0.00004", DataType::Decimal(12, 5)), Value::Decimal(4));
  EXPECT_EQ(Parse("234", DataType::Decimal(12, 5)), Value::Decimal(23400000));
  // Exact: no rounding of extra digits, no overflow of the precision.
  EXPECT_EQ(ParseError("0.000001", DataType::Decimal(12, 5)), StatusCode::kCorrupt);
  EXPECT_EQ(ParseError("12345678", DataType::Decimal(12, 5)), StatusCode::kCorrupt);
  data::Int128 big = data::PowerOfTen(38) - 1;
  EXPECT_EQ(Parse("99999999999999999999.999999999999999999", DataType::Decimal(38, 18)),
            Value::Decimal(big));

  EXPECT_EQ(Parse("true", DataType::Boolean()), Value::Bool(true));
  EXPECT_EQ(Parse("FALSE", DataType::Boolean()), Value::Bool(false));
  EXPECT_EQ(ParseError("yes", DataType::Boolean()), StatusCode::kCorrupt);
}

TEST(PartitionValue, DatesAndTimestamps) {
  EXPECT_EQ(Parse("1970-01-01", DataType::Date()), Value::Int(0));
  EXPECT_EQ(Parse("2020-02-29", DataType::Date()), Value::Int(data::DaysFromCivil(2020, 2, 29)));
  EXPECT_EQ(Parse("2021-9-8", DataType::Date()), Value::Int(data::DaysFromCivil(2021, 9, 8)));
  EXPECT_EQ(Parse("0001-01-01", DataType::Date()), Value::Int(data::DaysFromCivil(1, 1, 1)));
  EXPECT_EQ(Parse("+10000-01-01", DataType::Date()), Value::Int(data::DaysFromCivil(10000, 1, 1)));
  EXPECT_EQ(Parse("-0001-12-31", DataType::Date()), Value::Int(data::DaysFromCivil(-1, 12, 31)));
  for (const char* bad : {"2021-02-29", "2021-13-01", "2021-00-10", "2021-01-32", "21-01-01",
                          "2021/01/01", "2021-01-01x", "2021-01-01 00:00:00", ""}) {
    if (*bad == 0) continue;
    EXPECT_EQ(ParseError(bad, DataType::Date()), StatusCode::kCorrupt) << bad;
  }

  auto ts = DataType::Timestamp();
  EXPECT_EQ(Parse("2021-09-08 11:11:11", ts), Value::Int(Micros(2021, 9, 8, 11, 11, 11)));
  EXPECT_EQ(Parse("2020-01-01 08:09:10.001", ts), Value::Int(Micros(2020, 1, 1, 8, 9, 10, 1000)));
  EXPECT_EQ(Parse("1969-01-01 00:00:00", ts), Value::Int(Micros(1969, 1, 1, 0, 0, 0)));
  EXPECT_EQ(Parse("2024-01-01T10:00:00.000000Z", ts), Value::Int(Micros(2024, 1, 1, 10, 0, 0)));
  EXPECT_EQ(Parse("1970-01-01T00:00:00.123456Z", ts), Value::Int(123456));
  EXPECT_EQ(Parse("1970-01-01T01:00:00+01:00", ts), Value::Int(0));
  EXPECT_EQ(Parse("1969-12-31T16:00:00.5-08:00", ts), Value::Int(500000));
  EXPECT_EQ(Parse("1970-01-01T05:30:00+0530", ts), Value::Int(0));
  EXPECT_EQ(Parse("1970-01-01 00:00:00.123456789", ts), Value::Int(123456));  // nanos truncated
  EXPECT_EQ(Parse("2024-01-01", ts), Value::Int(Micros(2024, 1, 1, 0, 0, 0)));
  EXPECT_EQ(Parse("2024-01-01 10:00", ts), Value::Int(Micros(2024, 1, 1, 10, 0, 0)));
  EXPECT_EQ(Parse("1969-12-31 23:59:59.999999", ts), Value::Int(-1));
  for (const char* bad :
       {"2024-01-01 24:00:00", "2024-01-01 10:60:00", "2024-01-01 10:00:61", "2024-01-01 10:00:00.",
        "2024-01-01 10:00:00.1234567890", "2024-01-01X10:00:00", "2024-01-01 10:00:00 UTC",
        "2024-01-01T10:00:00ZZ", "2024-01-01T10:00:00+1"}) {
    EXPECT_EQ(ParseError(bad, ts), StatusCode::kCorrupt) << bad;
  }

  auto ntz = DataType::TimestampNtz();
  EXPECT_EQ(Parse("2013-07-05 17:01:00.123456", ntz),
            Value::Int(Micros(2013, 7, 5, 17, 1, 0, 123456)));
  EXPECT_EQ(Parse("2021-11-18T02:30:00.123", ntz),
            Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000)));
  EXPECT_EQ(ParseError("2021-11-18 02:30:00+01:00", ntz), StatusCode::kCorrupt);
}

TEST(PartitionValue, BinaryAndNested) {
  EXPECT_EQ(Parse("\xF0\x9F\x98\x88", DataType::Binary()), Value::Bytes("\xF0\x9F\x98\x88"));
  EXPECT_EQ(Parse("\x01\x02\x03", DataType::Binary()), Value::Bytes("\x01\x02\x03"));
  EXPECT_EQ(ParseError("x", DataType::List(DataType::Int32())), StatusCode::kNotSupported);
}

TEST(PartitionValue, JavaFloatingText) {
  EXPECT_EQ(JavaFloatingText(0.0, false), "0.0");
  EXPECT_EQ(JavaFloatingText(-0.0, false), "-0.0");
  EXPECT_EQ(JavaFloatingText(1.0, false), "1.0");
  EXPECT_EQ(JavaFloatingText(100.0, false), "100.0");
  EXPECT_EQ(JavaFloatingText(0.1, false), "0.1");
  EXPECT_EQ(JavaFloatingText(0.001, false), "0.001");
  EXPECT_EQ(JavaFloatingText(0.0009, false), "9.0E-4");
  EXPECT_EQ(JavaFloatingText(123456.789, false), "123456.789");
  EXPECT_EQ(JavaFloatingText(9999999.0, false), "9999999.0");
  EXPECT_EQ(JavaFloatingText(1e7, false), "1.0E7");
  EXPECT_EQ(JavaFloatingText(-1.5e-7, false), "-1.5E-7");
  EXPECT_EQ(JavaFloatingText(1.7976931348623157e308, false), "1.7976931348623157E308");
  EXPECT_EQ(JavaFloatingText(4.9e-324, false), "4.9E-324");
  EXPECT_EQ(JavaFloatingText(NAN, false), "NaN");
  EXPECT_EQ(JavaFloatingText(INFINITY, false), "Infinity");
  EXPECT_EQ(JavaFloatingText(-INFINITY, true), "-Infinity");
  EXPECT_EQ(JavaFloatingText(static_cast<double>(1.1f), true), "1.1");
  EXPECT_EQ(JavaFloatingText(static_cast<double>(3.4028235e38f), true), "3.4028235E38");
  EXPECT_EQ(JavaFloatingText(static_cast<double>(1.1f), false), "1.100000023841858");
}

TEST(PartitionValue, FormatAndRoundTrip) {
  struct Case {
    data::TypePtr type;
    Value value;
    std::string text;
  };
  std::vector<Case> cases = {
      {DataType::Boolean(), Value::Bool(true), "true"},
      {DataType::Int8(), Value::Int(-128), "-128"},
      {DataType::Int16(), Value::Int(300), "300"},
      {DataType::Int32(), Value::Int(0), "0"},
      {DataType::Int64(), Value::Int(std::numeric_limits<int64_t>::max()), "9223372036854775807"},
      {DataType::Float(), Value::Double(static_cast<double>(0.5f)), "0.5"},
      {DataType::Double(), Value::Double(1.0), "1.0"},
      {DataType::Double(), Value::Double(-2.5e10), "-2.5E10"},
      {DataType::Decimal(12, 5), Value::Decimal(-234234223423), "-2342342.23423"},
      {DataType::Decimal(12, 5), Value::Decimal(23400000), "234.00000"},
      {DataType::Decimal(3, 0), Value::Decimal(-7), "-7"},
      {DataType::String(), Value::Bytes("a/b=c"), "a/b=c"},
      {DataType::Binary(), Value::Bytes("\xF0\x9F\x98\x88"), "\xF0\x9F\x98\x88"},
      {DataType::Date(), Value::Int(0), "1970-01-01"},
      {DataType::Date(), Value::Int(-1), "1969-12-31"},
      {DataType::Timestamp(), Value::Int(Micros(2024, 1, 1, 10, 0, 0)),
       "2024-01-01T10:00:00.000000Z"},
      {DataType::Timestamp(), Value::Int(-1), "1969-12-31T23:59:59.999999Z"},
      {DataType::TimestampNtz(), Value::Int(Micros(2013, 7, 5, 17, 1, 0, 123456)),
       "2013-07-05 17:01:00.123456"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatPartitionValue(c.value, *c.type), c.text) << c.type->ToString();
    auto back = ParsePartitionValue(c.text, *c.type);
    ASSERT_TRUE(back.ok()) << c.text << ": " << back.status().ToString();
    EXPECT_EQ(*back, c.value) << c.text;
  }
  EXPECT_EQ(FormatPartitionValue(Value::Null(), *DataType::Int32()), "");
  // Doubles of every magnitude read back bit for bit.
  for (double d : {3.141592653589793, 1e-300, 6.02214076e23, -0.0001, 123456789.0, 5e-324}) {
    auto back = ParsePartitionValue(FormatPartitionValue(Value::Double(d), *DataType::Double()),
                                    *DataType::Double());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, Value::Double(d));
  }
}

TEST(PartitionValue, EscapeFolderNames) {
  EXPECT_EQ(EscapePartitionPathValue("/%20%f"), "%2F%2520%25f");
  EXPECT_EQ(EscapePartitionPathValue("2013-07-05 17:01:00.123456"),
            "2013-07-05 17%3A01%3A00.123456");
  EXPECT_EQ(EscapePartitionPathValue("a\"b#c'd*e=f?g\\h{i[j]k^l\x7F"),
            "a%22b%23c%27d%2Ae%3Df%3Fg%5Ch%7Bi%5Bj%5Dk%5El%7F");
  EXPECT_EQ(EscapePartitionPathValue(std::string("\x01\n\x1F", 3)), "%01%0A%1F");
  // Kept as is: UTF-8, spaces, and the characters Spark does not escape.
  EXPECT_EQ(EscapePartitionPathValue("\xF0\x9F\x98\x88 a-b_c.d+e,f;g@h!i~j&k}l"),
            "\xF0\x9F\x98\x88 a-b_c.d+e,f;g@h!i~j&k}l");
  EXPECT_EQ(PartitionPathSegment("letter", std::nullopt), "letter=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionPathSegment("letter", std::string()), "letter=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionPathSegment("a=b", std::string("c:d")), "a%3Db=c%3Ad");
}

// ---------------------------------------------------------------- the conformance tables

struct LoggedAdd {
  std::string table;
  std::string path;
  std::map<std::string, std::optional<std::string>> partition_values;
  std::string stats;
};

// The partition columns (keyed as partitionValues keys them) and every add of a table.
struct TableLog {
  std::map<std::string, data::TypePtr> partition_types;
  std::vector<LoggedAdd> adds;
};

TableLog ReadTableLog(const std::string& table) {
  const io::FileSystem& fs = *io::LocalFileSystem::Instance();
  std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta/" + table;
  std::string log = root + "/delta/_delta_log";
  if (!fs.Exists(log).ValueOr(false)) log = root + "/_delta_log";
  TableLog out;
  auto files = fs.List(log);
  EXPECT_TRUE(files.ok()) << table;
  if (!files.ok()) return out;
  for (const io::FileInfo& f : *files) {
    if (!EndsWith(f.path, ".json")) continue;
    auto text = fs.ReadFile(f.path);
    if (!text.ok()) continue;
    for (const std::string& line : Split(*text, '\n')) {
      Json a = Json::parse(line, nullptr, false);
      if (!a.is_object()) continue;
      if (a.contains("metaData")) {
        const Json& md = a["metaData"];
        auto schema = ParseDeltaSchema(md["schemaString"].get<std::string>());
        EXPECT_TRUE(schema.ok()) << schema.status().ToString();
        if (!schema.ok()) continue;
        std::string mode = md["configuration"].value("delta.columnMapping.mode", "none");
        auto physical = PhysicalSchema(*schema, mode);
        EXPECT_TRUE(physical.ok());
        out.partition_types.clear();
        for (const Json& c : md["partitionColumns"]) {
          int i = schema->schema.FieldIndex(c.get<std::string>());
          EXPECT_GE(i, 0);
          if (i < 0) continue;
          out.partition_types[physical->field(static_cast<size_t>(i)).name] =
              schema->schema.field(static_cast<size_t>(i)).type;
        }
      }
      if (a.contains("add")) {
        LoggedAdd add;
        add.table = table;
        add.path = a["add"]["path"].get<std::string>();
        for (const auto& [k, v] : a["add"]["partitionValues"].items()) {
          add.partition_values[k] =
              v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
        }
        if (a["add"].contains("stats") && a["add"]["stats"].is_string())
          add.stats = a["add"]["stats"];
        out.adds.push_back(std::move(add));
      }
    }
  }
  return out;
}

const std::vector<std::string> kPartitionedTables = {
    "dat-basic_partitioned",
    "dat-multi_partitioned",
    "golden-basic-decimal-table",
    "golden-data-reader-partition-values",
    "golden-data-reader-timestamp_ntz",
    "golden-dv-partitioned-with-checkpoint",
    "golden-dv-with-columnmapping",
    "golden-kernel-timestamp-int96",
    "golden-kernel-timestamp-partition-col-ISO8601",
    "golden-kernel-timestamp-timestamp_micros",
    "kernel-app-txn-checkpoint",
    "rs-cdc_ict_table",
    "rs-cdf-table",
    "rs-delta-2.2.0-partitioned-types",
    "rs-partition-type-primitives",
};

TEST(PartitionValue, EveryValueOfTheConformanceTablesParses) {
  int values = 0, folders = 0;
  for (const std::string& table : kPartitionedTables) {
    SCOPED_TRACE(table);
    TableLog log = ReadTableLog(table);
    ASSERT_FALSE(log.partition_types.empty());
    ASSERT_FALSE(log.adds.empty());
    for (const LoggedAdd& add : log.adds) {
      SCOPED_TRACE(add.path);
      for (const auto& [key, text] : add.partition_values) {
        ASSERT_TRUE(log.partition_types.count(key)) << key;
        const data::DataType& type = *log.partition_types.at(key);
        auto v = ParsePartitionValue(text, type);
        ASSERT_TRUE(v.ok()) << key << "=" << text.value_or("<null>") << ": "
                            << v.status().ToString();
        ++values;
        EXPECT_EQ(v->is_null(), !text.has_value() || text->empty());
        if (v->is_null()) continue;
        // What we would write reads back to the same value; Spark's own text comes back
        // unchanged for every type but `timestamp` (we write ISO-8601 UTC).
        std::string ours = FormatPartitionValue(*v, type);
        EXPECT_EQ(*ParsePartitionValue(ours, type), *v);
        if (type.id() != data::TypeId::kTimestamp) {
          EXPECT_EQ(ours, *text);
        }
      }
      // Spark's folder names are the escaped key=value pairs (the log URI-encodes the path once
      // more). The ISO-8601 table names its folders by a local-time spelling instead.
      if (table == "golden-kernel-timestamp-partition-col-ISO8601") continue;
      auto decoded = PercentDecode(add.path);
      ASSERT_TRUE(decoded.ok());
      std::vector<std::string> parts = Split(*decoded, '/');
      ASSERT_EQ(parts.size(), add.partition_values.size() + 1);
      for (size_t i = 0; i + 1 < parts.size(); ++i) {
        std::string key = parts[i].substr(0, parts[i].find('='));
        ASSERT_TRUE(add.partition_values.count(key)) << parts[i];
        EXPECT_EQ(parts[i], PartitionPathSegment(key, add.partition_values.at(key)));
        ++folders;
      }
    }
  }
  EXPECT_GT(values, 100);
  EXPECT_GT(folders, 100);
}

TEST(PartitionValue, KnownValuesOfTheConformanceTables) {
  std::map<std::string, std::vector<Value>> seen;  // "table/key" -> values
  for (const std::string& table : kPartitionedTables) {
    TableLog log = ReadTableLog(table);
    for (const LoggedAdd& add : log.adds) {
      for (const auto& [key, text] : add.partition_values) {
        auto v = ParsePartitionValue(text, *log.partition_types.at(key));
        ASSERT_TRUE(v.ok());
        std::string where = table;
        where += "/" + key;
        seen[where].push_back(*v);
      }
    }
  }
  auto has = [&](const std::string& k, const Value& v) {
    const auto& vs = seen[k];
    return std::find(vs.begin(), vs.end(), v) != vs.end();
  };
  EXPECT_TRUE(has("dat-multi_partitioned/letter", Value::Bytes("/%20%f")));
  EXPECT_TRUE(has("dat-multi_partitioned/data", Value::Bytes("\xF0\x9F\x98\x88")));
  EXPECT_TRUE(has("dat-multi_partitioned/date", Value::Int(1)));
  EXPECT_TRUE(has("dat-multi_partitioned/date", Value::Null()));
  EXPECT_TRUE(has("golden-basic-decimal-table/part", Value::Decimal(-234234223423)));
  EXPECT_TRUE(has("golden-basic-decimal-table/part", Value::Decimal(4)));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_timestamp",
                  Value::Int(Micros(2021, 9, 8, 11, 11, 11))));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_string_lit_null", Value::Bytes("null")));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_float", Value::Double(1.0)));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_boolean", Value::Bool(false)));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_big_decimal", Value::Decimal(1)));
  EXPECT_TRUE(has("golden-data-reader-partition-values/as_byte", Value::Null()));
  EXPECT_TRUE(has("golden-data-reader-timestamp_ntz/tsNtzPartition",
                  Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123456))));
  EXPECT_TRUE(
      has("golden-kernel-timestamp-int96/part", Value::Int(Micros(2020, 1, 1, 8, 9, 10, 1000))));
  EXPECT_TRUE(has("golden-kernel-timestamp-int96/part", Value::Int(Micros(1969, 1, 1, 0, 0, 0))));
  EXPECT_TRUE(
      has("golden-dv-with-columnmapping/col-60c949ca-b8bc-4330-b931-b73fb4c60037", Value::Int(9)));
  EXPECT_TRUE(has("rs-partition-type-primitives/year", Value::Bytes("2021.0")));
  EXPECT_TRUE(has("rs-cdf-table/birthday", Value::Int(data::DaysFromCivil(2023, 12, 29))));
}

TEST(PartitionValue, IsoTimestampsMatchTheirStringTwin) {
  // In this table the `str` column holds, as text, the same instant as the `ts` partition.
  TableLog log = ReadTableLog("golden-kernel-timestamp-partition-col-ISO8601");
  ASSERT_EQ(log.adds.size(), 2u);
  for (const LoggedAdd& add : log.adds) {
    auto ts = ParsePartitionValue(add.partition_values.at("ts"), *DataType::Timestamp());
    ASSERT_TRUE(ts.ok()) << ts.status().ToString();
    std::string str = Json::parse(add.stats)["minValues"]["str"];
    auto twin = ParseTimestampText(str);
    ASSERT_TRUE(twin.ok());
    EXPECT_EQ(ts->int_value(), *twin) << str;
  }
}

}  // namespace
}  // namespace cdclake::delta
