// Tests for types, columns, decimals and the shared text forms of values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <random>
#include <string>

#include "data/column.h"
#include "data/decimal.h"
#include "data/record_batch.h"
#include "data/value_format.h"

namespace cdclake::data {
namespace {

TEST(DataTypeTest, PrintsSqlSpelling) {
  auto t =
      DataType::Struct({{"a", DataType::Int32(), true},
                        {"b", DataType::List(DataType::Decimal(10, 2)), true},
                        {"c", DataType::Map(DataType::String(), DataType::TimestampNtz()), false}});
  EXPECT_EQ(t->ToString(),
            "struct<a:int,b:array<decimal(10,2)>,c:map<string,timestamp_ntz> not null>");
  EXPECT_TRUE(t->Equals(*DataType::Struct(t->fields())));
  EXPECT_FALSE(DataType::Decimal(10, 2)->Equals(*DataType::Decimal(10, 3)));
}

// Truncate undoes appends for every kind of column: what is left, and what is appended after,
// is what a column built without the dropped slots holds.
TEST(ColumnTest, TruncateUndoesAppendsOfEveryKind) {
  const Value s1 = Value::Bytes("first");
  const Value s2 = Value::Bytes("second, longer");
  const std::vector<std::pair<TypePtr, std::vector<Value>>> cases = {
      {DataType::Int64(), {Value::Int(1), Value::Null(), Value::Int(3)}},
      {DataType::Boolean(), {Value::Bool(true), Value::Bool(false), Value::Null()}},
      {DataType::Decimal(12, 2),
       {Value::Decimal(Int128(125)), Value::Null(), Value::Decimal(Int128(-7))}},
      {DataType::String(), {s1, Value::Null(), s2}},
      {DataType::List(DataType::String()),
       {Value::Nested({s1, s2}), Value::Null(), Value::Nested({s2, s1, s2})}},
      {DataType::Struct({{"a", DataType::Int32(), true}, {"b", DataType::String(), true}}),
       {Value::Nested({Value::Int(1), s1}), Value::Null(), Value::Nested({Value::Int(3), s2})}},
  };
  for (const auto& [type, values] : cases) {
    for (int64_t keep = 0; keep <= 2; ++keep) {
      Column column(type);
      for (const Value& v : values) column.AppendValue(v);
      column.Truncate(keep);
      column.AppendValue(values[0]);
      Column expected(type);
      for (int64_t i = 0; i < keep; ++i) expected.AppendValue(values[static_cast<size_t>(i)]);
      expected.AppendValue(values[0]);
      ASSERT_EQ(column.length(), expected.length()) << type->ToString() << " keep " << keep;
      EXPECT_EQ(column.null_count(), expected.null_count()) << type->ToString() << " keep " << keep;
      for (int64_t i = 0; i < expected.length(); ++i) {
        EXPECT_EQ(column.GetValue(i), expected.GetValue(i))
            << type->ToString() << " keep " << keep << " slot " << i;
      }
      EXPECT_EQ(column.values().size(), expected.values().size()) << type->ToString();
      EXPECT_EQ(column.bytes(), expected.bytes()) << type->ToString();
      EXPECT_EQ(column.offsets(), expected.offsets()) << type->ToString();
    }
  }
}

// Take gives the rows at the indices, in their order, repeats included: strings (whose bytes it
// sizes before copying), NULLs among them, fixed-width values and nested ones.
TEST(ColumnTest, TakeGivesTheRowsAtTheIndicesInOrder) {
  std::mt19937 rng(1204);
  for (const TypePtr& type :
       {DataType::String(), DataType::Binary(), DataType::Int64(),
        DataType::List(DataType::String()),
        DataType::Struct({{"s", DataType::String(), true}, {"i", DataType::Int32(), true}})}) {
    Column column(type);
    std::vector<Value> values;
    for (int i = 0; i < 300; ++i) {
      const std::string text(rng() % 40, static_cast<char>('a' + i % 26));
      Value v = Value::Null();
      if (rng() % 5 != 0) {
        switch (type->id()) {
          case TypeId::kInt64:
            v = Value::Int(i * 1000003);
            break;
          case TypeId::kList:
            v = Value::Nested({Value::Bytes(text), Value::Null()});
            break;
          case TypeId::kStruct:
            v = Value::Nested({Value::Bytes(text), Value::Int(i)});
            break;
          default:
            v = Value::Bytes(text);
        }
      }
      column.AppendValue(v);
      values.push_back(v);
    }
    std::vector<int64_t> indices;
    for (int i = 0; i < 500; ++i) indices.push_back(static_cast<int64_t>(rng() % 300));
    const Column taken = column.Take(indices);
    ASSERT_EQ(taken.length(), 500) << type->ToString();
    for (size_t i = 0; i < indices.size(); ++i) {
      ASSERT_EQ(taken.GetValue(static_cast<int64_t>(i)), values[static_cast<size_t>(indices[i])])
          << type->ToString() << " row " << i;
    }
    EXPECT_EQ(column.Take({}).length(), 0);
  }
}

TEST(DecimalTest, FormatsExactly) {
  EXPECT_EQ(FormatDecimal(1230, 2), "12.30");
  EXPECT_EQ(FormatDecimal(-5, 3), "-0.005");
  EXPECT_EQ(FormatDecimal(0, 2), "0.00");
  EXPECT_EQ(FormatDecimal(7, 0), "7");
  Int128 max38 = PowerOfTen(38) - 1;
  EXPECT_EQ(FormatDecimal(max38, 0), std::string(38, '9'));
  EXPECT_EQ(FormatDecimal(-max38, 38), "-0." + std::string(38, '9'));
}

TEST(DecimalTest, ParsesWithoutRounding) {
  EXPECT_EQ(*ParseDecimal("12.3", 10, 2), 1230);
  EXPECT_EQ(*ParseDecimal("-0.005", 5, 3), -5);
  EXPECT_EQ(*ParseDecimal("1e3", 5, 0), 1000);
  EXPECT_EQ(*ParseDecimal("5E-3", 5, 3), 5);
  EXPECT_EQ(*ParseDecimal("+7.000", 5, 0), 7);
  EXPECT_FALSE(ParseDecimal("1.234", 10, 2).ok());
  EXPECT_FALSE(ParseDecimal("123", 2, 0).ok());
  EXPECT_FALSE(ParseDecimal("abc", 10, 2).ok());
  EXPECT_FALSE(ParseDecimal("", 10, 2).ok());
  EXPECT_FALSE(ParseDecimal("1.2.3", 10, 2).ok());
  EXPECT_EQ(*ParseDecimal(std::string(38, '9'), 38, 0), PowerOfTen(38) - 1);
}

// The digits of `text` (sign, digits with at most one point, an optional exponent) as an
// unscaled value at `scale`, computed the slow way: a decimal string shifted and checked digit
// by digit in 128 bits. nullopt where ParseDecimal must refuse.
std::optional<Int128> SlowDecimal(const std::string& text, int precision, int scale) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string ints, fracs;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ints += text[i++];
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) fracs += text[i++];
  }
  if (ints.empty() && fracs.empty()) return std::nullopt;
  int exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool minus = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) minus = text[i++] == '-';
    if (i >= text.size()) return std::nullopt;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      exponent = exponent * 10 + (text[i++] - '0');
    }
    if (minus) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  const std::string all = ints + fracs;
  const int wanted = std::max(static_cast<int>(ints.size()) + exponent + scale, 0);
  for (int k = wanted; k < static_cast<int>(all.size()); ++k) {
    if (all[static_cast<size_t>(k)] != '0') return std::nullopt;
  }
  Int128 v = 0;
  for (int k = 0; k < wanted; ++k) {
    const int d = k < static_cast<int>(all.size()) ? all[static_cast<size_t>(k)] - '0' : 0;
    if (v > (PowerOfTen(38) - 1 - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (v >= PowerOfTen(precision)) return std::nullopt;
  return negative ? -v : v;
}

// ParseDecimal (digits read in place, 64-bit up to 18 digits) against the slow way, over
// random texts around every edge: signs, leading and trailing zeros, points at either end,
// exponents, 17 to 20 digits (the 64-bit boundary), 37 to 39 digits (the 128-bit one).
TEST(DecimalTest, ParseAgreesWithTheSlowWayOnRandomTexts) {
  std::mt19937_64 random(20261203);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint64_t>(n)); };
  int checked = 0;
  int refused = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string text;
    if (pick(4) == 0) text += pick(2) ? '-' : '+';
    const int lengths[] = {0, 1, 2, 5, 17, 18, 19, 20, 36, 37, 38, 39};
    const int int_digits = lengths[pick(12)];
    const int frac_digits = pick(3) == 0 ? 0 : lengths[pick(9)];
    for (int k = 0; k < int_digits; ++k)
      text += static_cast<char>('0' + (k == 0 && pick(3) == 0 ? 9 : pick(10)));
    if (frac_digits > 0 || pick(6) == 0) text += '.';
    for (int k = 0; k < frac_digits; ++k) text += static_cast<char>('0' + (pick(2) ? 0 : pick(10)));
    if (pick(6) == 0)
      text += std::string(pick(2) ? "e" : "E") + (pick(2) ? "-" : "") + std::to_string(pick(40));
    if (pick(50) == 0) text += 'x';
    const int precision = 1 + pick(38);
    const int scale = pick(precision + 1);
    const std::optional<Int128> want = SlowDecimal(text, precision, scale);
    const Result<Int128> got = ParseDecimal(text, precision, scale);
    ASSERT_EQ(got.ok(), want.has_value()) << text << " as decimal(" << precision << "," << scale
                                          << "): " << (got.ok() ? "read" : got.status().message());
    if (want) {
      ASSERT_EQ(*got, *want) << text;
      ++checked;
    } else {
      ++refused;
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(refused, 10000);
}

TEST(DecimalTest, ByteWidthByPrecision) {
  EXPECT_EQ(DecimalByteWidth(1), 1);
  EXPECT_EQ(DecimalByteWidth(2), 1);
  EXPECT_EQ(DecimalByteWidth(3), 2);
  EXPECT_EQ(DecimalByteWidth(9), 4);
  EXPECT_EQ(DecimalByteWidth(18), 8);
  EXPECT_EQ(DecimalByteWidth(38), 16);
}

TEST(ValueFormatTest, DatesAndTimestamps) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(19723), "2024-01-01");
  EXPECT_EQ(FormatDate(DaysFromCivil(2000, 2, 29)), "2000-02-29");
  for (int64_t d = -800000; d < 800000; d += 997) {
    Value v = Value::Int(d);
    std::string s = FormatDate(d);
    int y = 0;
    unsigned m = 0, dd = 0;
    if (s[0] != '+' && s[0] != '-') {
      ASSERT_EQ(std::sscanf(s.c_str(), "%d-%u-%u", &y, &m, &dd), 3) << s;
      EXPECT_EQ(DaysFromCivil(y, m, dd), d) << s;
    }
  }
  EXPECT_EQ(FormatTimestamp(0, true), "1970-01-01 00:00:00.000000Z");
  EXPECT_EQ(FormatTimestamp(-1, false), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatTimestamp(1700000000123456, true), "2023-11-14 22:13:20.123456Z");
}

TEST(ValueFormatTest, CsvQuotingFollowsTheContract) {
  auto s = DataType::String();
  EXPECT_EQ(CsvField(Value::Null(), *s), "");
  EXPECT_EQ(CsvField(Value::Bytes(""), *s), "\"\"");
  EXPECT_EQ(CsvField(Value::Bytes("a,b"), *s), "\"a,b\"");
  EXPECT_EQ(CsvField(Value::Bytes("say \"hi\""), *s), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(Value::Bytes(std::string("\x01\xff", 2)), *DataType::Binary()), "01ff");
  EXPECT_EQ(CsvField(Value::Bool(true), *DataType::Boolean()), "true");
  EXPECT_EQ(CsvField(Value::Double(0.1), *DataType::Double()), "0.1");
  EXPECT_EQ(CsvField(Value::Double(1.5f), *DataType::Float()), "1.5");
  auto st =
      DataType::Struct({{"x", DataType::Int32(), true}, {"y", DataType::List(DataType::String())}});
  EXPECT_EQ(
      CsvField(Value::Nested({Value::Int(1), Value::Nested({Value::Bytes("a"), Value::Null()})}),
               *st),
      "\"{\"\"x\"\":1,\"\"y\"\":[\"\"a\"\",null]}\"");
}

TEST(ColumnTest, NestedValuesRoundTrip) {
  auto t = DataType::Struct({{"id", DataType::Int64()},
                             {"tags", DataType::List(DataType::String())},
                             {"m", DataType::Map(DataType::Int32(), DataType::Decimal(20, 4))}});
  Column c(t);
  std::vector<Value> values = {
      Value::Nested({Value::Int(1), Value::Nested({Value::Bytes("a"), Value::Null()}),
                     Value::Nested({Value::Nested({Value::Int(3), Value::Decimal(-12345)})})}),
      Value::Null(),
      Value::Nested({Value::Null(), Value::Nested({}), Value::Null()}),
  };
  for (const Value& v : values) c.AppendValue(v);
  ASSERT_EQ(c.length(), 3);
  EXPECT_EQ(c.null_count(), 1);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(c.GetValue(i), values[i]) << i;
  Column copy(t);
  for (int64_t i = 0; i < c.length(); ++i) copy.AppendFrom(c, i);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(copy.GetValue(i), values[i]) << i;
}

TEST(ValueTest, DoublesCompareByBits) {
  EXPECT_EQ(Value::Double(std::nan("")), Value::Double(std::nan("")));
  EXPECT_FALSE(Value::Double(0.0) == Value::Double(-0.0));
  EXPECT_FALSE(Value::Int(1) == Value::Double(1.0));
}

}  // namespace
}  // namespace cdclake::data
