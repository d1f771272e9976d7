// Tests for the SQL Server metadata cell parsers: LSN forms, operation codes, command ids,
// update masks and which column each mask bit stands for.
#include "sources/sqlserver/cdc_field_parsing_internal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cdclake::sources::internal {
namespace {

TEST(CdcFieldParsing, LsnFormsNormaliseToLowerCaseHex) {
  std::string out;
  ASSERT_TRUE(NormalizeLsn("0x0000002A000000F00003", &out));
  EXPECT_EQ(out, "0000002a000000f00003");
  ASSERT_TRUE(NormalizeLsn("0X0000002a000000F00003", &out));
  EXPECT_EQ(out, "0000002a000000f00003");
  ASSERT_TRUE(NormalizeLsn("0000002A000000F00003", &out));
  EXPECT_EQ(out, "0000002a000000f00003");
  ASSERT_TRUE(NormalizeLsn("FFFFFFFFFFFFFFFFFFFF", &out));
  EXPECT_EQ(out, "ffffffffffffffffffff");
}

TEST(CdcFieldParsing, LsnRejectsEverythingElse) {
  std::string out = "untouched";
  EXPECT_FALSE(NormalizeLsn("AAAAKgAAAPAAAw==", &out));         // base64 of the 10 bytes
  EXPECT_FALSE(NormalizeLsn("0x0000002A000000F0003", &out));    // 19 digits
  EXPECT_FALSE(NormalizeLsn("0x0000002A000000F000030", &out));  // 21 digits
  EXPECT_FALSE(NormalizeLsn("0x0000002A000000F0000G", &out));   // not hex
  EXPECT_FALSE(NormalizeLsn(" 0000002A000000F00003", &out));    // padding
  EXPECT_FALSE(NormalizeLsn("0x", &out));
  EXPECT_FALSE(NormalizeLsn("", &out));
  EXPECT_FALSE(NormalizeLsn("x0000002A000000F00003", &out));
  EXPECT_FALSE(NormalizeLsn("00x0000002A000000F0003", &out));
}

TEST(CdcFieldParsing, Operations) {
  int op = 0;
  for (int expected = 1; expected <= 4; ++expected) {
    ASSERT_TRUE(ParseOperation(std::to_string(expected), &op));
    EXPECT_EQ(op, expected);
  }
  EXPECT_FALSE(ParseOperation("0", &op));
  EXPECT_FALSE(ParseOperation("5", &op));  // net changes 'all with merge'
  EXPECT_FALSE(ParseOperation("7", &op));
  EXPECT_FALSE(ParseOperation("02", &op));
  EXPECT_FALSE(ParseOperation("2.0", &op));
  EXPECT_FALSE(ParseOperation("", &op));
  EXPECT_FALSE(ParseOperation("insert", &op));
}

TEST(CdcFieldParsing, CommandIds) {
  int64_t id = -1;
  ASSERT_TRUE(ParseCommandId("0", &id));
  EXPECT_EQ(id, 0);
  ASSERT_TRUE(ParseCommandId("2147483647", &id));
  EXPECT_EQ(id, 2147483647);
  ASSERT_TRUE(ParseCommandId("-3", &id));
  EXPECT_EQ(id, -3);
  ASSERT_TRUE(ParseCommandId("+12", &id));
  EXPECT_EQ(id, 12);
  EXPECT_FALSE(ParseCommandId("2147483648", &id));
  EXPECT_FALSE(ParseCommandId("abc", &id));
  EXPECT_FALSE(ParseCommandId("1.5", &id));
  EXPECT_FALSE(ParseCommandId("", &id));
  EXPECT_FALSE(ParseCommandId("+", &id));
  EXPECT_FALSE(ParseCommandId("+-1", &id));
}

TEST(CdcFieldParsing, UpdateMaskBytes) {
  std::vector<uint8_t> mask;
  ASSERT_TRUE(ParseUpdateMask("0x07", &mask));
  EXPECT_EQ(mask, std::vector<uint8_t>({0x07}));
  ASSERT_TRUE(ParseUpdateMask("03fF", &mask));
  EXPECT_EQ(mask, std::vector<uint8_t>({0x03, 0xff}));
  ASSERT_TRUE(ParseUpdateMask("0x" + std::string(256, 'a'), &mask));
  EXPECT_EQ(mask.size(), 128u);
  EXPECT_FALSE(ParseUpdateMask("0x" + std::string(258, 'a'), &mask));  // 129 bytes
  EXPECT_FALSE(ParseUpdateMask("0x7", &mask));
  EXPECT_FALSE(ParseUpdateMask("0xg1", &mask));
  EXPECT_FALSE(ParseUpdateMask("0x", &mask));
  EXPECT_FALSE(ParseUpdateMask("", &mask));
  EXPECT_FALSE(ParseUpdateMask("Bw==", &mask));  // base64 of 0x07
}

// Ordinal 1 is the last byte's least significant bit, as sys.fn_cdc_is_bit_set reads it.
TEST(CdcFieldParsing, UpdateMaskBitOrder) {
  std::vector<uint8_t> one = {0x01};
  EXPECT_TRUE(IsUpdateMaskBitSet(one, 1));
  EXPECT_FALSE(IsUpdateMaskBitSet(one, 2));
  EXPECT_FALSE(IsUpdateMaskBitSet(one, 9));
  std::vector<uint8_t> four = {0x04};
  EXPECT_FALSE(IsUpdateMaskBitSet(four, 1));
  EXPECT_TRUE(IsUpdateMaskBitSet(four, 3));
  std::vector<uint8_t> high = {0x80};
  EXPECT_TRUE(IsUpdateMaskBitSet(high, 8));
  EXPECT_FALSE(IsUpdateMaskBitSet(high, 1));
  // Two bytes: 0x0201 sets ordinals 1 and 10; 0x0100 ordinal 9 only.
  std::vector<uint8_t> two = {0x02, 0x01};
  for (int ordinal = 1; ordinal <= 16; ++ordinal) {
    EXPECT_EQ(IsUpdateMaskBitSet(two, ordinal), ordinal == 1 || ordinal == 10) << ordinal;
  }
  std::vector<uint8_t> nine = {0x01, 0x00};
  for (int ordinal = 1; ordinal <= 16; ++ordinal) {
    EXPECT_EQ(IsUpdateMaskBitSet(nine, ordinal), ordinal == 9) << ordinal;
  }
  EXPECT_FALSE(IsUpdateMaskBitSet(nine, 0));
  EXPECT_FALSE(IsUpdateMaskBitSet(nine, 17));
  EXPECT_FALSE(IsUpdateMaskBitSet({}, 1));
}

}  // namespace
}  // namespace cdclake::sources::internal
