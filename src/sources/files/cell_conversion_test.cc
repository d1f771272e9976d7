// Tests for cell conversion: the text parsers (integers, decimals, dates, timestamps), JSON
// values against each type, and the wording of the reasons.
#include "sources/files/cell_conversion_internal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "data/decimal.h"
#include "data/value_format.h"

namespace cdclake::sources::internal {
namespace {

using data::DataType;
using data::TypePtr;
using Problem = ConversionError::Problem;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t Micros(int64_t y, unsigned mo, unsigned d, int64_t h, int64_t mi, int64_t s,
               int64_t us = 0) {
  return data::DaysFromCivil(y, mo, d) * kMicrosPerDay + ((h * 60 + mi) * 60 + s) * 1000000 + us;
}

TEST(CellConversion, ParseInt64) {
  int64_t v = 0;
  EXPECT_EQ(ParseInt64("0", &v), IntParse::kOk);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(ParseInt64("+15", &v), IntParse::kOk);
  EXPECT_EQ(v, 15);
  EXPECT_EQ(ParseInt64("-9223372036854775808", &v), IntParse::kOk);
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseInt64("9223372036854775807", &v), IntParse::kOk);
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseInt64("9223372036854775808", &v), IntParse::kOverflow);
  EXPECT_EQ(ParseInt64("-9223372036854775809", &v), IntParse::kOverflow);
  EXPECT_EQ(ParseInt64("184467440737095516160", &v), IntParse::kOverflow);
  for (const char* bad : {"", "-", "+", "1.0", "1e3", " 1", "1 ", "0x10", "12a", "--1"}) {
    EXPECT_EQ(ParseInt64(bad, &v), IntParse::kNotInteger) << bad;
  }
  // Overflowing digits followed by a letter: not an integer at all.
  EXPECT_EQ(ParseInt64("99999999999999999999x", &v), IntParse::kNotInteger);
}

TEST(CellConversion, IsPlainDecimal) {
  int int_digits = -1, frac_digits = -1;
  bool point = false;
  ASSERT_TRUE(IsPlainDecimal("-0012.340", &int_digits, &frac_digits, &point));
  EXPECT_EQ(int_digits, 2);
  EXPECT_EQ(frac_digits, 3);
  EXPECT_TRUE(point);
  ASSERT_TRUE(IsPlainDecimal("0", &int_digits, &frac_digits, &point));
  EXPECT_EQ(int_digits, 0);
  EXPECT_FALSE(point);
  ASSERT_TRUE(IsPlainDecimal(".5", &int_digits, &frac_digits, &point));
  EXPECT_EQ(frac_digits, 1);
  ASSERT_TRUE(IsPlainDecimal("7.", &int_digits, &frac_digits, &point));
  EXPECT_EQ(int_digits, 1);
  EXPECT_EQ(frac_digits, 0);
  for (const char* bad : {"", ".", "-", "+.", "1.2.3", "1e5", "1,5", " 1", "--1"}) {
    EXPECT_FALSE(IsPlainDecimal(bad, &int_digits, &frac_digits, &point)) << bad;
  }
}

TEST(CellConversion, Dates) {
  int64_t days = 0;
  ASSERT_TRUE(ParseDateText("1970-01-01", &days));
  EXPECT_EQ(days, 0);
  ASSERT_TRUE(ParseDateText("2000-02-29", &days));
  EXPECT_EQ(days, data::DaysFromCivil(2000, 2, 29));
  ASSERT_TRUE(ParseDateText("0001-01-01", &days));
  EXPECT_EQ(days, data::DaysFromCivil(1, 1, 1));
  for (const char* bad :
       {"1900-02-29", "2023-02-29", "2024-04-31", "2024-00-10", "2024-13-01", "2024-01-00",
        "2024-1-01", "24-01-01", "2024/01/01", "2024-01-01 ", "2024-01-01T00:00:00", ""}) {
    EXPECT_FALSE(ParseDateText(bad, &days)) << bad;
  }
}

TEST(CellConversion, Timestamps) {
  struct Case {
    const char* text;
    int64_t micros;
    bool zone;
  };
  const Case cases[] = {
      {"2024-01-02 03:04:05", Micros(2024, 1, 2, 3, 4, 5), false},
      {"2024-01-02T03:04:05", Micros(2024, 1, 2, 3, 4, 5), false},
      {"2024-01-02t03:04", Micros(2024, 1, 2, 3, 4, 0), false},
      {"2024-01-02", Micros(2024, 1, 2, 0, 0, 0), false},
      {"2024-01-02 03:04:05.1", Micros(2024, 1, 2, 3, 4, 5, 100000), false},
      {"2024-01-02 03:04:05.000001", Micros(2024, 1, 2, 3, 4, 5, 1), false},
      {"2024-01-02 03:04:05.123456789", Micros(2024, 1, 2, 3, 4, 5, 123456), false},
      {"2024-01-02 03:04:05Z", Micros(2024, 1, 2, 3, 4, 5), true},
      {"2024-01-02 03:04:05.5z", Micros(2024, 1, 2, 3, 4, 5, 500000), true},
      {"2024-01-02 03:04:05+05:30", Micros(2024, 1, 1, 21, 34, 5), true},
      {"2024-01-02 03:04:05-0800", Micros(2024, 1, 2, 11, 4, 5), true},
      {"2024-01-02 03:04:05+01", Micros(2024, 1, 2, 2, 4, 5), true},
      {"1969-12-31 23:59:59.999999", -1, false},
  };
  for (const Case& c : cases) {
    int64_t micros = 0;
    bool zone = false;
    ASSERT_TRUE(ParseTimestampText(c.text, &micros, &zone)) << c.text;
    EXPECT_EQ(micros, c.micros) << c.text;
    EXPECT_EQ(zone, c.zone) << c.text;
  }
  for (const char* bad :
       {"2024-01-02 24:00:00", "2024-01-02 10:60:00", "2024-01-02 10:00:60", "2024-01-02 1:00:00",
        "2024-01-02 03:04:05.", "2024-01-02 03:04:05+2", "2024-01-02 03:04:05+19:00",
        "2024-01-02 03:04:05 ", "2024-01-02_03:04:05", "2024-01-02 03:04:05+05:", "2024-01-02 03",
        "2024-02-30 00:00:00", "2024-01-02 03:04:05UTC"}) {
    int64_t micros = 0;
    bool zone = false;
    EXPECT_FALSE(ParseTimestampText(bad, &micros, &zone)) << bad;
  }
}

// Converts `text` as `type`, expecting success.
StagedCell Text(std::string_view text, const TypePtr& type) {
  ScratchArena arena;
  StagedCell cell;
  ConversionError error;
  EXPECT_TRUE(ConvertText(text, type, &arena, &cell, &error))
      << text << ": " << error.Describe("c");
  return cell;
}

// Converts `text` as `type`, expecting failure; returns the reason for column "c".
std::string TextError(std::string_view text, const TypePtr& type) {
  ScratchArena arena;
  StagedCell cell;
  ConversionError error;
  EXPECT_FALSE(ConvertText(text, type, &arena, &cell, &error)) << text;
  return error.Describe("c");
}

TEST(CellConversion, TextToEachType) {
  EXPECT_EQ(Text("tRuE", DataType::Boolean()).i, 1);
  EXPECT_EQ(Text("FALSE", DataType::Boolean()).i, 0);
  EXPECT_EQ(Text("-32768", DataType::Int16()).i, -32768);
  EXPECT_EQ(Text("2.5", DataType::Float()).d, 2.5);
  EXPECT_EQ(Text("+1e2", DataType::Double()).d, 100.0);
  EXPECT_TRUE(std::isinf(Text("-inf", DataType::Double()).d));
  EXPECT_TRUE(std::isnan(Text("NaN", DataType::Double()).d));
  // 0.1 as a float is not 0.1 as a double: it is parsed as a float.
  EXPECT_EQ(Text("0.1", DataType::Float()).d, static_cast<double>(0.1f));
  EXPECT_EQ(Text("-1.5e1", DataType::Decimal(4, 1)).dec, -150);
  EXPECT_EQ(Text("raw bytes", DataType::Binary()).bytes, "raw bytes");

  EXPECT_EQ(TextError("1", DataType::Boolean()), "column 'c': '1' is not a BOOLEAN");
  EXPECT_EQ(TextError("40000", DataType::Int16()),
            "column 'c': '40000' is out of range for SMALLINT");
  EXPECT_EQ(TextError("1e39", DataType::Float()), "column 'c': '1e39' is out of range for FLOAT");
  EXPECT_EQ(TextError("+-1", DataType::Double()), "column 'c': '+-1' is not a DOUBLE");
  EXPECT_EQ(TextError("1.5x", DataType::Double()), "column 'c': '1.5x' is not a DOUBLE");
  EXPECT_EQ(TextError("12345", DataType::Decimal(4, 0)),
            "column 'c': '12345' does not fit DECIMAL(4,0)");
  EXPECT_EQ(TextError("1/2", DataType::Decimal(4, 0)), "column 'c': '1/2' is not a DECIMAL(4,0)");
  EXPECT_EQ(TextError("2024-01-01 00:00:00+01:00", DataType::TimestampNtz()),
            "column 'c': '2024-01-01 00:00:00+01:00' is not a TIMESTAMP_NTZ (it has a time zone)");
  EXPECT_EQ(TextError("[1,", DataType::List(DataType::Int32())),
            "column 'c': '[1,' is not valid JSON for array<int> (unexpected end of input)");
  EXPECT_EQ(TextError("{}", DataType::List(DataType::Int32())),
            "column 'c': '{}' is not an array<int>");
}

TEST(CellConversion, DecimalsAgreeWithParseDecimal) {
  // The converter has a quick path for short plain numbers; it must agree with ParseDecimal
  // everywhere, including around its 18-digit limit.
  const char* texts[] = {"0",
                         "-0",
                         "+0.0",
                         "1",
                         "-1.5",
                         ".25",
                         "7.",
                         "123456789012345678",
                         "-123456789012345678",
                         "1234567890123456789",
                         "99999999999999999.9",
                         "999999999999999999.9",
                         "0.000000000000000001",
                         "12.345",
                         "12.3450",
                         "1e2",
                         "1.5E-1",
                         "00012.10"};
  const std::pair<int, int> types[] = {{38, 0}, {38, 2}, {38, 18}, {10, 4}, {19, 1}, {4, 1}};
  for (const auto& [precision, scale] : types) {
    TypePtr type = DataType::Decimal(precision, scale);
    for (const char* text : texts) {
      Result<data::Int128> expected = data::ParseDecimal(text, precision, scale);
      ScratchArena arena;
      StagedCell cell;
      ConversionError error;
      bool ok = ConvertText(text, type, &arena, &cell, &error);
      EXPECT_EQ(ok, expected.ok()) << text << " as " << type->ToString();
      if (ok && expected.ok()) {
        EXPECT_TRUE(cell.dec == *expected) << text << " as " << type->ToString();
      }
    }
  }
}

TEST(CellConversion, LongTextIsShortenedInReasons) {
  std::string text(200, 'x');
  std::string reason = TextError(text, DataType::Int64());
  EXPECT_EQ(reason, "column 'c': '" + std::string(77, 'x') + "...' is not a BIGINT");
}

// Reads `json` and converts it to `type`; returns the reason for column "c", or "" on success.
std::string FromJson(std::string_view json, const TypePtr& type, StagedCell* cell) {
  ScratchArena arena;
  JsonScanner scanner(json, &arena);
  JsonValue value;
  EXPECT_TRUE(scanner.ReadValue(&value)) << json;
  ConversionError error;
  if (ConvertJson(value, type, &arena, cell, &error)) return "";
  return error.Describe("c");
}

TEST(CellConversion, JsonValuesAgainstTypes) {
  StagedCell cell;
  EXPECT_EQ(FromJson("true", DataType::Boolean(), &cell), "");
  EXPECT_EQ(cell.i, 1);
  EXPECT_EQ(FromJson("\"true\"", DataType::Boolean(), &cell), "");
  EXPECT_EQ(FromJson("1", DataType::Boolean(), &cell), "column 'c': '1' is not a BOOLEAN");
  EXPECT_EQ(FromJson("true", DataType::Int32(), &cell), "column 'c': 'true' is not an INT");
  EXPECT_EQ(FromJson("1.0", DataType::Int32(), &cell), "column 'c': '1.0' is not an INT");
  EXPECT_EQ(FromJson("\"17\"", DataType::Int32(), &cell), "");
  EXPECT_EQ(cell.i, 17);
  EXPECT_EQ(FromJson("20240101", DataType::Date(), &cell), "column 'c': '20240101' is not a DATE");
  EXPECT_EQ(FromJson("[1]", DataType::Binary(), &cell), "column 'c': '[1]' is not a BINARY");
  EXPECT_EQ(FromJson("{\"a\": 1}", DataType::String(), &cell), "");
  EXPECT_EQ(cell.bytes, "{\"a\": 1}");
  EXPECT_EQ(FromJson("null", DataType::Int32(), &cell), "");
  EXPECT_EQ(cell.kind, StagedCell::Kind::kNull);
  EXPECT_EQ(FromJson("{\"1\":\"a\",\"x\":\"b\"}",
                     DataType::Map(DataType::Int32(), DataType::String()), &cell),
            "column 'c.x': 'x' is not an INT");
  EXPECT_EQ(FromJson("{\"A\":5}", DataType::Struct({{"a", DataType::Int64()}}), &cell), "");
  EXPECT_EQ(cell.value, data::Value::Nested({data::Value::Int(5)}));  // names ignore case
}

TEST(CellConversion, AppendCellWritesTheColumnType) {
  data::Column floats(DataType::Float());
  StagedCell cell = Text("0.1", DataType::Float());
  AppendCell(cell, &floats);
  StagedCell null;
  AppendCell(null, &floats);
  ASSERT_EQ(floats.length(), 2);
  EXPECT_EQ(floats.ValueAt<float>(0), 0.1f);
  EXPECT_TRUE(floats.IsNull(1));

  data::Column dates(DataType::Date());
  AppendCell(Text("2024-03-01", DataType::Date()), &dates);
  EXPECT_EQ(dates.ValueAt<int32_t>(0), data::DaysFromCivil(2024, 3, 1));

  data::Column flags(DataType::Boolean());
  AppendCell(Text("true", DataType::Boolean()), &flags);
  EXPECT_EQ(flags.GetValue(0), data::Value::Bool(true));
}

}  // namespace
}  // namespace cdclake::sources::internal
