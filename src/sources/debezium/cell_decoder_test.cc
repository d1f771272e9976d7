// Tests of Debezium cell decoding: base64, two's-complement unscaled values, rescaling, the
// temporal units and the placeholder shapes.
#include "sources/debezium/cell_decoder_internal.h"

#include <gtest/gtest.h>

#include <string>

#include "data/decimal.h"

namespace cdclake::sources::internal {
namespace {

using data::DataType;
using data::Int128;

JsonValue String(std::string_view text) {
  JsonValue v;
  v.kind = JsonKind::kString;
  v.text = text;
  return v;
}

JsonValue Number(std::string_view text) {
  JsonValue v;
  v.kind = JsonKind::kNumber;
  v.text = text;
  v.has_point = text.find('.') != std::string_view::npos;
  return v;
}

TEST(DebeziumCellDecoder, Base64) {
  std::string out;
  EXPECT_TRUE(DecodeBase64("AQ==", &out));
  EXPECT_EQ(out, std::string("\x01", 1));
  out.clear();
  EXPECT_TRUE(DecodeBase64("_-8", &out));  // URL-safe, no padding
  EXPECT_EQ(out, "\xFF\xEF");
  out.clear();
  EXPECT_FALSE(DecodeBase64("A", &out));
  EXPECT_FALSE(DecodeBase64("AQ=", &out));
  EXPECT_FALSE(DecodeBase64("A Q==", &out));
  EXPECT_FALSE(DecodeBase64("AQ===", &out));
}

TEST(DebeziumCellDecoder, TwosComplement) {
  Int128 v = 0;
  ASSERT_TRUE(TwosComplementToInt128(std::string("\x00\xBC\x5F\x16", 4), &v));
  EXPECT_EQ(v, 12345110);  // leading sign byte of a positive value
  ASSERT_TRUE(TwosComplementToInt128("\xFF", &v));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(TwosComplementToInt128("\x80", &v));
  EXPECT_EQ(v, -128);
  ASSERT_TRUE(TwosComplementToInt128(std::string("\xFF\xFF\x7F", 3), &v));
  EXPECT_EQ(v, -129);
  // Seventeen bytes whose first only repeats the sign fit; a real seventeenth byte does not.
  std::string seventeen(17, '\0');
  seventeen[16] = 5;
  ASSERT_TRUE(TwosComplementToInt128(seventeen, &v));
  EXPECT_EQ(v, 5);
  seventeen[0] = 1;
  EXPECT_FALSE(TwosComplementToInt128(seventeen, &v));
  std::string sixteen(16, '\xFF');
  sixteen[0] = '\x7F';  // the largest 128-bit value
  ASSERT_TRUE(TwosComplementToInt128(sixteen, &v));
  EXPECT_GT(v, 0);
}

TEST(DebeziumCellDecoder, Rescale) {
  Int128 v = 0;
  ASSERT_TRUE(Rescale(1, 2, 4, 38, &v));
  EXPECT_EQ(v, 100);
  ASSERT_TRUE(Rescale(12300, 4, 2, 38, &v));
  EXPECT_EQ(v, 123);
  EXPECT_FALSE(Rescale(12345, 4, 2, 38, &v));  // never rounded
  EXPECT_FALSE(Rescale(123, 0, 0, 2, &v));     // precision
  ASSERT_TRUE(Rescale(0, 0, 50, 38, &v));
  EXPECT_EQ(v, 0);
}

TEST(DebeziumCellDecoder, DecimalForms) {
  ScratchArena arena;
  StagedCell cell;
  ConversionError error;
  ColumnSpec spec{DataType::Decimal(8, 3), CellEncoding::kDecimal};
  ASSERT_TRUE(DecodeCell(String("ALxfFg=="), spec, &arena, &cell, &error));
  EXPECT_EQ(cell.dec, 12345110);
  ASSERT_TRUE(DecodeCell(Number("12345.110"), spec, &arena, &cell, &error));
  EXPECT_EQ(cell.dec, 12345110);
  EXPECT_FALSE(DecodeCell(Number("123456.1"), spec, &arena, &cell, &error));  // precision 8
  EXPECT_EQ(error.Describe("d"), "column 'd': '123456.1' does not fit DECIMAL(8,3)");
  EXPECT_FALSE(DecodeCell(String(""), spec, &arena, &cell, &error));
  ColumnSpec variable{DataType::Decimal(38, 2), CellEncoding::kVariableScaleDecimal};
  JsonValue object;
  object.kind = JsonKind::kObject;
  object.text = R"({"scale":2,"value":"AQ=="})";
  ASSERT_TRUE(DecodeCell(object, variable, &arena, &cell, &error));
  EXPECT_EQ(cell.dec, 1);  // 0.01
  object.text = R"({"scale":3,"value":"AQ=="})";
  EXPECT_FALSE(DecodeCell(object, variable, &arena, &cell, &error));  // 0.001 needs scale 3
  object.text = R"({"scale":2})";
  EXPECT_FALSE(DecodeCell(object, variable, &arena, &cell, &error));
}

TEST(DebeziumCellDecoder, TemporalUnits) {
  ScratchArena arena;
  StagedCell cell;
  ConversionError error;
  ColumnSpec millis{DataType::TimestampNtz(), CellEncoding::kTimestampMillis};
  ASSERT_TRUE(DecodeCell(Number("1679581805123"), millis, &arena, &cell, &error));
  EXPECT_EQ(cell.i, 1679581805123000);
  EXPECT_FALSE(DecodeCell(Number("9223372036854776"), millis, &arena, &cell, &error));
  EXPECT_FALSE(DecodeCell(Number("1.5"), millis, &arena, &cell, &error));
  ColumnSpec nanos{DataType::TimestampNtz(), CellEncoding::kTimestampNanos};
  ASSERT_TRUE(DecodeCell(Number("-1500"), nanos, &arena, &cell, &error));
  EXPECT_EQ(cell.i, -2);  // floor
  ColumnSpec zoned{DataType::Timestamp(), CellEncoding::kZonedTimestamp};
  ASSERT_TRUE(
      DecodeCell(String("2023-03-23T22:00:10.123456789+02:00"), zoned, &arena, &cell, &error));
  EXPECT_EQ(cell.i, 1679601610123456);  // UTC, digits past micros dropped
  ColumnSpec days{DataType::Date(), CellEncoding::kDays};
  ASSERT_TRUE(DecodeCell(Number("19439"), days, &arena, &cell, &error));
  EXPECT_EQ(cell.i, 19439);
  EXPECT_FALSE(DecodeCell(Number("3000000000"), days, &arena, &cell, &error));
}

TEST(DebeziumCellDecoder, PlaceholderLookalikes) {
  ScratchArena arena;
  EXPECT_TRUE(IsUnavailablePlaceholder(String("__debezium_unavailable_value"), &arena));
  EXPECT_FALSE(IsUnavailablePlaceholder(String("__debezium_unavailable_valuX"), &arena));
  JsonValue array;
  array.kind = JsonKind::kArray;
  array.text = R"(["__debezium_unavailable_value","x"])";
  EXPECT_FALSE(IsUnavailablePlaceholder(array, &arena));
  array.text = "[95,95]";  // a prefix of the bytes
  EXPECT_FALSE(IsUnavailablePlaceholder(array, &arena));
  JsonValue object;
  object.kind = JsonKind::kObject;
  object.text = R"({"__debezium_unavailable_value":"x","y":1})";
  EXPECT_FALSE(IsUnavailablePlaceholder(object, &arena));
}

}  // namespace
}  // namespace cdclake::sources::internal
