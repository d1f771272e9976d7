// Tests for per-file statistics: computing them over every type, nesting, column selection and
// string/timestamp/NaN edge cases; parsing the stats of every add in the conformance tables.
#include "delta/file_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "base/strings.h"
#include "data/decimal.h"
#include "data/value_format.h"
#include "delta/partition_value.h"
#include "delta/schema_json.h"
#include "io/local_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Field;
using data::RecordBatch;
using data::Schema;
using data::Value;
using Json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s,
               int64_t us = 0) {
  return data::DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

RecordBatch Batch(std::vector<Field> fields, const std::vector<std::vector<Value>>& rows) {
  RecordBatch batch{Schema(std::move(fields))};
  for (const auto& row : rows) batch.AppendRow(row);
  return batch;
}

ParsedStats MustParse(const std::string& stats) {
  auto parsed = ParseStatsJson(stats);
  EXPECT_TRUE(parsed.ok()) << stats << ": " << parsed.status().ToString();
  return parsed.ok() ? *parsed : ParsedStats{};
}

Schema AllTypes() {
  return Schema({Field{"b", DataType::Boolean()}, Field{"i8", DataType::Int8()},
                 Field{"i16", DataType::Int16()}, Field{"i32", DataType::Int32()},
                 Field{"i64", DataType::Int64()}, Field{"f", DataType::Float()},
                 Field{"d", DataType::Double()}, Field{"dec", DataType::Decimal(10, 2)},
                 Field{"s", DataType::String()}, Field{"bin", DataType::Binary()},
                 Field{"dt", DataType::Date()}, Field{"ts", DataType::Timestamp()},
                 Field{"ntz", DataType::TimestampNtz()}});
}

RecordBatch AllTypesBatch() {
  RecordBatch batch{AllTypes()};
  batch.AppendRow({Value::Bool(true), Value::Int(1), Value::Int(100), Value::Int(-5),
                   Value::Int(10), Value::Double(1.5), Value::Double(-2.25), Value::Decimal(12345),
                   Value::Bytes("apple"), Value::Bytes(std::string("\0\1", 2)), Value::Int(0),
                   Value::Int(Micros(2024, 1, 1, 10, 0, 0, 123456)),
                   Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000))});
  batch.AppendRow({Value::Bool(false), Value::Int(-3), Value::Null(), Value::Int(7), Value::Null(),
                   Value::Double(-0.5), Value::Double(1e300), Value::Decimal(-1),
                   Value::Bytes("banana"), Value::Null(), Value::Int(19000),
                   Value::Int(Micros(2024, 1, 1, 10, 0, 0, 123000)), Value::Null()});
  batch.AppendRow(std::vector<Value>(13, Value::Null()));
  return batch;
}

TEST(FileStatistics, EveryTypeWithNulls) {
  std::string stats = ComputeStatsJson(AllTypesBatch());
  EXPECT_EQ(
      stats,
      R"({"numRecords":3,)"
      R"("minValues":{"i8":-3,"i16":100,"i32":-5,"i64":10,"f":-0.5,"d":-2.25,"dec":-0.01,"s":"apple",)"
      R"("dt":"1970-01-01","ts":"2024-01-01T10:00:00.123Z","ntz":"2021-11-18T02:30:00.123"},)"
      R"("maxValues":{"i8":1,"i16":100,"i32":7,"i64":10,"f":1.5,"d":1e+300,"dec":123.45,"s":"banana",)"
      R"("dt":"2022-01-08","ts":"2024-01-01T10:00:00.124Z","ntz":"2021-11-18T02:30:00.123"},)"
      R"("nullCount":{"b":1,"i8":1,"i16":2,"i32":1,"i64":2,"f":1,"d":1,"dec":1,"s":1,"bin":2,"dt":1,"ts":1,"ntz":2}})");
  EXPECT_TRUE(Json::accept(stats));
}

TEST(FileStatistics, RoundTripThroughParse) {
  RecordBatch batch = AllTypesBatch();
  ParsedStats p = MustParse(ComputeStatsJson(batch));
  EXPECT_EQ(p.num_records, 3);
  EXPECT_TRUE(p.tight_bounds);
  struct Want {
    const char* name;
    Value min, max;
    int64_t nulls;
  };
  std::vector<Want> wants = {
      {"b", Value::Null(), Value::Null(), 1},
      {"i8", Value::Int(-3), Value::Int(1), 1},
      {"i16", Value::Int(100), Value::Int(100), 2},
      {"i32", Value::Int(-5), Value::Int(7), 1},
      {"i64", Value::Int(10), Value::Int(10), 2},
      {"f", Value::Double(-0.5), Value::Double(1.5), 1},
      {"d", Value::Double(-2.25), Value::Double(1e300), 1},
      {"dec", Value::Decimal(-1), Value::Decimal(12345), 1},
      {"s", Value::Bytes("apple"), Value::Bytes("banana"), 1},
      {"bin", Value::Null(), Value::Null(), 2},
      {"dt", Value::Int(0), Value::Int(19000), 1},
      {"ts", Value::Int(Micros(2024, 1, 1, 10, 0, 0, 123000)),
       Value::Int(Micros(2024, 1, 1, 10, 0, 0, 124000)), 1},
      {"ntz", Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000)),
       Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000)), 2},
  };
  for (const Want& w : wants) {
    const auto& type =
        *batch.schema().field(static_cast<size_t>(batch.schema().FieldIndex(w.name))).type;
    auto min = p.MinValue({w.name}, type);
    auto max = p.MaxValue({w.name}, type);
    ASSERT_TRUE(min.ok()) << w.name << ": " << min.status().ToString();
    ASSERT_TRUE(max.ok()) << w.name << ": " << max.status().ToString();
    EXPECT_EQ(*min, w.min) << w.name;
    EXPECT_EQ(*max, w.max) << w.name;
    EXPECT_EQ(p.NullCount({w.name}), w.nulls) << w.name;
  }
  EXPECT_EQ(p.NullCount({"missing"}), -1);
  EXPECT_TRUE(p.MinValue({"missing"}, *DataType::Int32())->is_null());
}

TEST(FileStatistics, NestedStructsListsAndMaps) {
  auto inner =
      DataType::Struct({Field{"x", DataType::String()}, Field{"flag", DataType::Boolean()}});
  auto s = DataType::Struct(
      {Field{"a", DataType::Int32()}, Field{"t", inner}, Field{"bin", DataType::Binary()}});
  RecordBatch batch = Batch(
      {Field{"id", DataType::Int64()}, Field{"s", s},
       Field{"arr", DataType::List(DataType::Int32())},
       Field{"m", DataType::Map(DataType::String(), DataType::Int32())}},
      {
          {Value::Int(1),
           Value::Nested({Value::Int(1), Value::Nested({Value::Bytes("q"), Value::Bool(true)}),
                          Value::Bytes("z")}),
           Value::Nested({Value::Int(1), Value::Int(2)}),
           Value::Nested({Value::Nested({Value::Bytes("k"), Value::Int(1)})})},
          {Value::Int(2), Value::Null(), Value::Null(), Value::Null()},
          {Value::Int(3), Value::Nested({Value::Null(), Value::Null(), Value::Null()}),
           Value::Nested({}), Value::Nested({})},
      });
  EXPECT_EQ(
      ComputeStatsJson(batch),
      R"({"numRecords":3,"minValues":{"id":1,"s":{"a":1,"t":{"x":"q"}}},"maxValues":{"id":3,"s":{"a":1,"t":{"x":"q"}}},)"
      R"("nullCount":{"id":0,"s":{"a":2,"t":{"x":2,"flag":2},"bin":2},"arr":1,"m":1}})");
}

TEST(FileStatistics, NullStructHidesValuesBelowIt) {
  // A reader may fill a struct's children with values under a null struct slot; those rows are
  // still null for every leaf below.
  auto type = DataType::Struct({Field{"x", DataType::Int32()}});
  data::Column s(type);
  s.mutable_child(0).Append<int32_t>(5);
  s.mutable_child(0).Append<int32_t>(-99);
  s.SetLengthAndValidity(2, {1, 0});
  RecordBatch batch(Schema({Field{"s", type}}), {std::move(s)});
  EXPECT_EQ(
      ComputeStatsJson(batch),
      R"({"numRecords":2,"minValues":{"s":{"x":5}},"maxValues":{"s":{"x":5}},"nullCount":{"s":{"x":1}}})");
}

TEST(FileStatistics, WhichStatsAppear) {
  // No column with min/max: no minValues/maxValues at all; a struct without such leaves is left
  // out of them but stays in nullCount.
  auto flags = DataType::Struct({Field{"flag", DataType::Boolean()}});
  EXPECT_EQ(ComputeStatsJson(Batch({Field{"b", DataType::Boolean()}, Field{"s", flags}},
                                   {{Value::Bool(true), Value::Nested({Value::Bool(false)})}})),
            R"({"numRecords":1,"nullCount":{"b":0,"s":{"flag":0}}})");
  EXPECT_EQ(
      ComputeStatsJson(Batch({Field{"i", DataType::Int32()}, Field{"s", flags}},
                             {{Value::Int(4), Value::Null()}})),
      R"({"numRecords":1,"minValues":{"i":4},"maxValues":{"i":4},"nullCount":{"i":0,"s":{"flag":1}}})");
  // All null: the key is dropped from min/max (Spark's to_json drops nulls), but not the object.
  EXPECT_EQ(ComputeStatsJson(Batch({Field{"i", DataType::Int32()}}, {{Value::Null()}})),
            R"({"numRecords":1,"minValues":{},"maxValues":{},"nullCount":{"i":1}})");
  EXPECT_EQ(ComputeStatsJson(Batch({Field{"i", DataType::Int32()}}, {})),
            R"({"numRecords":0,"minValues":{},"maxValues":{},"nullCount":{"i":0}})");
  EXPECT_EQ(ComputeStatsJson(RecordBatch(Schema())), R"({"numRecords":0})");
}

RecordBatch WideBatch() {
  auto s = DataType::Struct({Field{"x", DataType::Int32()}, Field{"y", DataType::Int32()},
                             Field{"z", DataType::Int32()}});
  return Batch({Field{"a", DataType::Int32()}, Field{"S", s}, Field{"b", DataType::Int32()}},
               {{Value::Int(1), Value::Nested({Value::Int(2), Value::Int(3), Value::Int(4)}),
                 Value::Int(5)}});
}

TEST(FileStatistics, FirstNLeaves) {
  RecordBatch batch = WideBatch();
  EXPECT_EQ(
      ComputeStatsJson(batch, {}, 2),
      R"({"numRecords":1,"minValues":{"a":1,"S":{"x":2}},"maxValues":{"a":1,"S":{"x":2}},"nullCount":{"a":0,"S":{"x":0}}})");
  EXPECT_EQ(
      ComputeStatsJson(batch, {}, 4),
      R"({"numRecords":1,"minValues":{"a":1,"S":{"x":2,"y":3,"z":4}},"maxValues":{"a":1,"S":{"x":2,"y":3,"z":4}},)"
      R"("nullCount":{"a":0,"S":{"x":0,"y":0,"z":0}}})");
  EXPECT_EQ(ComputeStatsJson(batch, {}, 0), R"({"numRecords":1})");
  EXPECT_EQ(ComputeStatsJson(batch, {}, -1), ComputeStatsJson(batch, {}, 5));
  EXPECT_EQ(ComputeStatsJson(batch, {}, -1), ComputeStatsJson(batch));
  // A list or map is one leaf.
  RecordBatch lists =
      Batch({Field{"l", DataType::List(DataType::Int32())}, Field{"i", DataType::Int32()}},
            {{Value::Nested({Value::Int(1)}), Value::Int(7)}});
  EXPECT_EQ(ComputeStatsJson(lists, {}, 1), R"({"numRecords":1,"nullCount":{"l":0}})");
}

TEST(FileStatistics, NamedColumns) {
  RecordBatch batch = WideBatch();
  // Schema order, names matched ignoring case, a dotted path picks one nested field.
  EXPECT_EQ(
      ComputeStatsJson(batch, {"B", "s.Y"}),
      R"({"numRecords":1,"minValues":{"S":{"y":3},"b":5},"maxValues":{"S":{"y":3},"b":5},"nullCount":{"S":{"y":0},"b":0}})");
  // A struct named whole brings all its leaves; backticks quote; unknown names are ignored.
  EXPECT_EQ(
      ComputeStatsJson(batch, {"`S`", "nope", "a.b"}),
      R"({"numRecords":1,"minValues":{"S":{"x":2,"y":3,"z":4}},"maxValues":{"S":{"x":2,"y":3,"z":4}},)"
      R"("nullCount":{"S":{"x":0,"y":0,"z":0}}})");
  RecordBatch dotted = Batch({Field{"a.b", DataType::Int32()}, Field{"a", DataType::Int32()}},
                             {{Value::Int(1), Value::Int(2)}});
  EXPECT_EQ(
      ComputeStatsJson(dotted, {"`a.b`"}),
      R"({"numRecords":1,"minValues":{"a.b":1},"maxValues":{"a.b":1},"nullCount":{"a.b":0}})");
}

TEST(FileStatistics, StringTruncation) {
  const std::string a32(32, 'a');
  EXPECT_EQ(TruncateStatsMin("abc"), "abc");
  EXPECT_EQ(*TruncateStatsMax("abc"), "abc");
  EXPECT_EQ(*TruncateStatsMax(a32), a32);
  EXPECT_EQ(TruncateStatsMin(a32 + "bcd"), a32);
  EXPECT_EQ(*TruncateStatsMax(a32 + "bcd"), a32 + "\x7F");
  // The next character at or above U+007F needs the greatest code point as tie-breaker.
  EXPECT_EQ(*TruncateStatsMax(a32 + "\x7F"), a32 + "\xF4\x8F\xBF\xBF");
  EXPECT_EQ(*TruncateStatsMax(a32 + "\xC3\xA9xyz"), a32 + "\xF4\x8F\xBF\xBF");
  // Counting is by characters, not bytes.
  std::string e40;
  for (int i = 0; i < 40; ++i) e40 += "\xC3\xA9";
  EXPECT_EQ(TruncateStatsMin(e40).size(), 64u);
  EXPECT_EQ(*TruncateStatsMax(e40), e40.substr(0, 64) + "\xF4\x8F\xBF\xBF");
  // U+10FFFF after the prefix: grow the prefix over them (up to twice its length).
  const std::string top = "\xF4\x8F\xBF\xBF";
  EXPECT_EQ(*TruncateStatsMax(a32 + top + top + "b"), a32 + top + top + "\x7F");
  std::string tops10 = a32;
  for (int i = 0; i < 10; ++i) tops10 += top;
  EXPECT_EQ(*TruncateStatsMax(tops10), tops10);
  std::string tops40 = a32;
  for (int i = 0; i < 40; ++i) tops40 += top;
  EXPECT_FALSE(TruncateStatsMax(tops40).has_value());
  EXPECT_EQ(*TruncateStatsMax("abcdefgh", 3), "abc\x7F");

  // Bounds hold for every prefix length.
  for (const std::string& v :
       {a32 + "zzz", e40, tops10, a32 + top + "\xC3\xA9", std::string("ab\x7F\x7F") + "c"}) {
    for (int n = 1; n < 50; ++n) {
      EXPECT_LE(TruncateStatsMin(v, n), v);
      auto max = TruncateStatsMax(v, n);
      if (max) {
        EXPECT_GE(*max, v) << n;
      }
    }
  }

  // In a file: min truncated, max bumped, both valid JSON.
  RecordBatch batch =
      Batch({Field{"s", DataType::String()}},
            {{Value::Bytes(a32 + "b")}, {Value::Bytes(std::string(40, 'z'))}, {Value::Bytes("m")}});
  ParsedStats p = MustParse(ComputeStatsJson(batch));
  EXPECT_EQ(p.min_values["s"], a32);
  EXPECT_EQ(p.max_values["s"], std::string(32, 'z') + "\x7F");
  // Values that are not UTF-8 get no bounds.
  RecordBatch bad =
      Batch({Field{"s", DataType::String()}}, {{Value::Bytes("\xFF")}, {Value::Bytes("ok")}});
  EXPECT_EQ(ComputeStatsJson(bad),
            R"({"numRecords":2,"minValues":{"s":"ok"},"maxValues":{},"nullCount":{"s":0}})");
}

TEST(FileStatistics, TimestampsRoundOutwardToMilliseconds) {
  RecordBatch batch =
      Batch({Field{"ts", DataType::Timestamp()}, Field{"ntz", DataType::TimestampNtz()}},
            {{Value::Int(-1), Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123001))},
             {Value::Int(-1500), Value::Int(Micros(2021, 11, 18, 2, 30, 0, 122999))}});
  EXPECT_EQ(
      ComputeStatsJson(batch),
      R"({"numRecords":2,"minValues":{"ts":"1969-12-31T23:59:59.998Z","ntz":"2021-11-18T02:30:00.122"},)"
      R"("maxValues":{"ts":"1970-01-01T00:00:00.000Z","ntz":"2021-11-18T02:30:00.124"},"nullCount":{"ts":0,"ntz":0}})");
  RecordBatch exact = Batch({Field{"ts", DataType::Timestamp()}}, {{Value::Int(1000)}});
  EXPECT_EQ(
      ComputeStatsJson(exact),
      R"({"numRecords":1,"minValues":{"ts":"1970-01-01T00:00:00.001Z"},"maxValues":{"ts":"1970-01-01T00:00:00.001Z"},"nullCount":{"ts":0}})");
  RecordBatch edge = Batch({Field{"ts", DataType::Timestamp()}},
                           {{Value::Int(Micros(9999, 12, 31, 23, 59, 59, 999999))}});
  EXPECT_EQ(
      ComputeStatsJson(edge),
      R"({"numRecords":1,"minValues":{"ts":"9999-12-31T23:59:59.999Z"},"maxValues":{"ts":"+10000-01-01T00:00:00.000Z"},"nullCount":{"ts":0}})");
}

TEST(FileStatistics, NaNAndInfinities) {
  RecordBatch batch =
      Batch({Field{"nan", DataType::Double()}, Field{"inf", DataType::Double()},
             Field{"f", DataType::Float()}},
            {{Value::Double(1.0), Value::Double(INFINITY), Value::Double(-INFINITY)},
             {Value::Double(NAN), Value::Double(2.0), Value::Double(static_cast<double>(0.1f))},
             {Value::Double(3.0), Value::Null(), Value::Null()}});
  EXPECT_EQ(
      ComputeStatsJson(batch),
      R"({"numRecords":3,"minValues":{"inf":2.0},"maxValues":{"f":0.1},"nullCount":{"nan":0,"inf":1,"f":1}})");
  ParsedStats p = MustParse(ComputeStatsJson(batch));
  // A float bound reads back as the float it was, not as the double nearest "0.1".
  EXPECT_EQ(*p.MaxValue({"f"}, *DataType::Float()), Value::Double(static_cast<double>(0.1f)));
  // Readers also accept Spark-style string spellings.
  ParsedStats q = MustParse(R"({"minValues":{"d":"-Infinity"},"maxValues":{"d":"NaN"}})");
  EXPECT_EQ(*q.MinValue({"d"}, *DataType::Double()), Value::Double(-INFINITY));
  EXPECT_TRUE(std::isnan(q.MaxValue({"d"}, *DataType::Double())->double_value()));
}

TEST(FileStatistics, ParseExactNumbersAndZones) {
  ParsedStats p = MustParse(
      R"({"numRecords":7,"minValues":{"big":-9999999999.9999999999,"zero":0E-10,"e":-2.9546424000000000000E-17,)"
      R"("huge":99999999999999999999999999999999999999,"ts":"2000-01-01T00:00:00.000-08:00","n":{"x":5}},)"
      R"("maxValues":{"ts":"2021-11-18T02:30:00.123","i":2147483648},"nullCount":{"n":{"x":2}},"tightBounds":false})");
  EXPECT_EQ(p.num_records, 7);
  EXPECT_FALSE(p.tight_bounds);
  EXPECT_EQ(p.number_text.at("/minValues/big"), "-9999999999.9999999999");
  EXPECT_EQ(*p.MinValue({"big"}, *DataType::Decimal(20, 10)),
            Value::Decimal(-(data::PowerOfTen(20) - 1)));
  EXPECT_EQ(*p.MinValue({"zero"}, *DataType::Decimal(20, 10)), Value::Decimal(0));
  EXPECT_EQ(*p.MinValue({"e"}, *DataType::Decimal(38, 36)),
            Value::Decimal(-(data::Int128{29546424} * data::PowerOfTen(12))));
  EXPECT_EQ(*p.MinValue({"huge"}, *DataType::Decimal(38, 0)),
            Value::Decimal(data::PowerOfTen(38) - 1));
  EXPECT_EQ(*p.MinValue({"ts"}, *DataType::Timestamp()), Value::Int(Micros(2000, 1, 1, 8, 0, 0)));
  EXPECT_EQ(*p.MaxValue({"ts"}, *DataType::TimestampNtz()),
            Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000)));
  EXPECT_EQ(*p.MinValue({"n", "x"}, *DataType::Int16()), Value::Int(5));
  EXPECT_EQ(p.NullCount({"n", "x"}), 2);
  EXPECT_EQ(p.NullCount({"n"}), -1);  // a struct has no count of its own
  // Present but not of the asked type: corrupt, naming the column.
  auto too_big = p.MaxValue({"i"}, *DataType::Int32());
  EXPECT_EQ(too_big.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(too_big.status().message().find("'i'"), std::string::npos)
      << too_big.status().message();
  EXPECT_EQ(*p.MaxValue({"i"}, *DataType::Int64()), Value::Int(2147483648));
  EXPECT_EQ(p.MinValue({"ts"}, *DataType::Int64()).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(p.MinValue({"big"}, *DataType::Decimal(20, 2)).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(p.MinValue({"n"}, *DataType::Int32()).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(p.MinValue({"ts"}, *DataType::List(DataType::Int32())).status().code(),
            StatusCode::kNotSupported);

  ParsedStats empty = MustParse("{}");
  EXPECT_EQ(empty.num_records, -1);
  EXPECT_TRUE(empty.tight_bounds);
  EXPECT_TRUE(empty.min_values.is_null());
  EXPECT_TRUE(empty.MinValue({"a"}, *DataType::Int32())->is_null());
}

TEST(FileStatistics, ParseErrorsAreCorrupt) {
  for (const char* bad :
       {"", "{", "nope", "[1]", "3", R"({"numRecords":"3"})", R"({"numRecords":-1})",
        R"({"numRecords":1.5})", R"({"minValues":[1]})", R"({"nullCount":3})",
        R"({"tightBounds":"false"})", R"({"a":1} trailing)"}) {
    auto p = ParseStatsJson(bad);
    EXPECT_EQ(p.status().code(), StatusCode::kCorrupt) << bad;
    EXPECT_EQ(p.status().message().rfind("stats: ", 0), 0u) << p.status().message();
  }
  auto invalid = ParseStatsJson(R"({"numRecords":)");
  EXPECT_NE(invalid.status().message().find("invalid JSON at byte"), std::string::npos)
      << invalid.status().message();
  // Null members count as absent.
  ParsedStats nulls = MustParse(R"({"numRecords":null,"minValues":null,"tightBounds":null})");
  EXPECT_EQ(nulls.num_records, -1);
  EXPECT_TRUE(nulls.tight_bounds);
}

// ---------------------------------------------------------------- the conformance tables

bool LessOrEqual(const Value& a, const Value& b, const data::DataType& type) {
  switch (type.id()) {
    case data::TypeId::kFloat:
    case data::TypeId::kDouble:
      return a.double_value() <= b.double_value();
    case data::TypeId::kDecimal:
      return a.decimal_value() <= b.decimal_value();
    case data::TypeId::kString:
    case data::TypeId::kBinary:
      return a.bytes() <= b.bytes();
    default:
      return a.int_value() <= b.int_value();
  }
}

// Walks the leaves of a physical schema with their paths.
void Leaves(const std::vector<Field>& fields, std::vector<std::string>* path,
            std::vector<std::pair<std::vector<std::string>, data::TypePtr>>* out) {
  for (const Field& f : fields) {
    path->push_back(f.name);
    if (f.type->id() == data::TypeId::kStruct) {
      Leaves(f.type->fields(), path, out);
    } else {
      out->emplace_back(*path, f.type);
    }
    path->pop_back();
  }
}

TEST(FileStatistics, EveryStatsStringOfTheConformanceTables) {
  const io::FileSystem& fs = *io::LocalFileSystem::Instance();
  const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  auto tables = fs.List(root);
  ASSERT_TRUE(tables.ok());
  int parsed = 0, bounds = 0;
  for (const io::FileInfo& t : *tables) {
    if (!t.is_directory) continue;
    SCOPED_TRACE(t.path);
    std::string log = t.path + "/delta/_delta_log";
    if (!fs.Exists(log).ValueOr(false)) log = t.path + "/_delta_log";
    auto files = fs.List(log);
    if (!files.ok()) continue;
    std::vector<std::pair<std::vector<std::string>, data::TypePtr>> leaves;
    for (const io::FileInfo& f : *files) {
      if (!EndsWith(f.path, ".json")) continue;
      auto text = fs.ReadFile(f.path);
      ASSERT_TRUE(text.ok());
      for (const std::string& line : Split(*text, '\n')) {
        Json a = Json::parse(line, nullptr, false);
        if (!a.is_object()) continue;
        if (a.contains("metaData")) {
          auto schema = ParseDeltaSchema(a["metaData"]["schemaString"].get<std::string>());
          ASSERT_TRUE(schema.ok());
          auto physical = PhysicalSchema(
              *schema, a["metaData"]["configuration"].value("delta.columnMapping.mode", "none"));
          ASSERT_TRUE(physical.ok());
          leaves.clear();
          std::vector<std::string> path;
          Leaves(physical->fields(), &path, &leaves);
        }
        for (const char* kind : {"add", "remove"}) {
          if (!a.contains(kind) || !a[kind].contains("stats") || !a[kind]["stats"].is_string())
            continue;
          std::string stats = a[kind]["stats"];
          auto p = ParseStatsJson(stats);
          ASSERT_TRUE(p.ok()) << stats << ": " << p.status().ToString();
          ++parsed;
          EXPECT_GE(p->num_records, 0);
          for (const auto& [path, type] : leaves) {
            auto min = p->MinValue(path, *type);
            auto max = p->MaxValue(path, *type);
            if (type->is_nested()) continue;  // never written for lists and maps
            ASSERT_TRUE(min.ok()) << stats << ": " << min.status().ToString();
            ASSERT_TRUE(max.ok()) << stats << ": " << max.status().ToString();
            if (!min->is_null() && !max->is_null()) {
              EXPECT_TRUE(LessOrEqual(*min, *max, *type)) << stats;
              ++bounds;
            }
            int64_t nulls = p->NullCount(path);
            if (nulls >= 0) {
              EXPECT_LE(nulls, p->num_records) << stats;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(parsed, 300);
  EXPECT_GT(bounds, 500);
}

TEST(FileStatistics, KnownStatsOfTheConformanceTables) {
  const io::FileSystem& fs = *io::LocalFileSystem::Instance();
  const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta/";
  auto first_stats = [&](const std::string& file, int skip = 0) {
    auto text = fs.ReadFile(root + file);
    EXPECT_TRUE(text.ok()) << file;
    for (const std::string& line : Split(text.ValueOr(""), '\n')) {
      Json a = Json::parse(line, nullptr, false);
      if (a.is_object() && a.contains("add") && skip-- == 0)
        return MustParse(a["add"]["stats"].get<std::string>());
    }
    ADD_FAILURE() << "no add in " << file;
    return ParsedStats{};
  };
  const std::string decimal_log =
      "golden-basic-decimal-table/delta/_delta_log/00000000000000000000.json";
  auto col3 = first_stats(decimal_log, 0).MinValue({"col3"}, *DataType::Decimal(20, 10));
  ASSERT_TRUE(col3.ok()) << col3.status().ToString();
  EXPECT_EQ(*col3, Value::Decimal(-(data::PowerOfTen(20) - 1)));  // beyond a double's precision
  EXPECT_EQ(*first_stats(decimal_log, 1).MinValue({"col3"}, *DataType::Decimal(20, 10)),
            Value::Decimal(0));  // 0E-10
  EXPECT_EQ(*first_stats(decimal_log, 3).MaxValue({"col3"}, *DataType::Decimal(20, 10)),
            Value::Decimal(*data::ParseDecimal("3333333333.3333333333", 20, 10)));
  EXPECT_EQ(*first_stats(decimal_log, 0).MaxValue({"col1"}, *DataType::Decimal(5, 2)),
            Value::Decimal(-99999));

  ParsedStats various = first_stats(
      "golden-decimal-various-scale-precision/delta/_delta_log/00000000000000000000.json");
  EXPECT_EQ(*various.MinValue({"decimal_38_36"}, *DataType::Decimal(38, 36)),
            Value::Decimal(-(data::Int128{29546424} * data::PowerOfTen(12))));
  EXPECT_EQ(*various.MinValue({"decimal_25_12"}, *DataType::Decimal(25, 12)),
            Value::Decimal(-31661));
  EXPECT_EQ(*various.MaxValue({"decimal_4_0"}, *DataType::Decimal(4, 0)), Value::Decimal(4));

  ParsedStats cm = first_stats(
      "golden-table-with-columnmapping-mode-name/delta/_delta_log/00000000000000000000.json");
  EXPECT_EQ(*cm.MinValue({"col-0b5309e1-aa86-4b87-8518-140cde5402c9"}, *DataType::Timestamp()),
            Value::Int(1000));
  EXPECT_EQ(*cm.MaxValue({"col-bd5b1c73-a03c-4003-9f20-87824bdc7bdf",
                          "col-eaa68779-506e-4105-96f2-5ffa36e49460",
                          "col-47272f8f-d4ab-45e7-a6b8-09a5684bcd0b"},
                         *DataType::Int32()),
            Value::Int(3));
  EXPECT_EQ(*cm.MinValue({"col-1edc2784-c10e-406b-ab0b-6e996611a5fc"}, *DataType::Float()),
            Value::Double(1.0));
  EXPECT_EQ(cm.NullCount({"col-5b541ad9-2c28-4744-8bc6-be861b37434f"}), 0);  // an array column

  ParsedStats ntz =
      first_stats("golden-data-reader-timestamp_ntz/delta/_delta_log/00000000000000000001.json");
  EXPECT_EQ(*ntz.MinValue({"tsNtz"}, *DataType::TimestampNtz()),
            Value::Int(Micros(2021, 11, 18, 2, 30, 0, 123000)));

  ParsedStats edge =
      first_stats("rs-table_with_edge_timestamps/_delta_log/00000000000000000000.json");
  EXPECT_EQ(*edge.MinValue({"BIG_DATE"}, *DataType::Timestamp()),
            Value::Int(Micros(9999, 12, 31, 0, 0, 0)));

  bool saw_wide = false;
  for (int v = 0; v < 7; ++v) {
    char name[80];
    std::snprintf(name, sizeof(name), "golden-log-replay-dv-key-cases/delta/_delta_log/%020d.json",
                  v);
    auto text = fs.ReadFile(root + name);
    if (!text.ok()) continue;
    for (const std::string& line : Split(*text, '\n')) {
      Json a = Json::parse(line, nullptr, false);
      if (a.is_object() && a.contains("add"))
        saw_wide |= !MustParse(a["add"]["stats"].get<std::string>()).tight_bounds;
    }
  }
  EXPECT_TRUE(saw_wide);
}

TEST(FileStatistics, MatchesSparkOnItsOwnData) {
  // dat-basic_append v0 wrote letter a..c, number 1..3, a_float 1.1..3.3 with these stats.
  RecordBatch batch =
      Batch({Field{"letter", DataType::String()}, Field{"number", DataType::Int64()},
             Field{"a_float", DataType::Double()}},
            {{Value::Bytes("a"), Value::Int(1), Value::Double(1.1)},
             {Value::Bytes("b"), Value::Int(2), Value::Double(2.2)},
             {Value::Bytes("c"), Value::Int(3), Value::Double(3.3)}});
  EXPECT_EQ(
      ComputeStatsJson(batch),
      R"({"numRecords":3,"minValues":{"letter":"a","number":1,"a_float":1.1},"maxValues":{"letter":"c","number":3,"a_float":3.3},"nullCount":{"letter":0,"number":0,"a_float":0}})");
}

}  // namespace
}  // namespace cdclake::delta
