// Tests for the Thrift compact protocol: known encodings byte for byte, reading them back,
// skipping every type, and rejecting malformed, oversized and too deeply nested input.
#include "parquet/format/compact_protocol.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace cdclake::parquet::format {
namespace {

using CT = CompactType;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

void ExpectCorrupt(const Status& s, std::string_view fragment) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s.ToString();
}

TEST(CompactWriterTest, FieldHeadersUseDeltasAndLongForm) {
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteI32Field(1, 5);         // delta 1
  w.WriteI64Field(3, -1);        // delta 2
  w.WriteBinaryField(20, "ab");  // delta 17: long form
  w.WriteI8Field(19, -2);        // going back: long form
  w.WriteBoolField(20, true);    // delta 1, value in the header
  w.WriteBoolField(21, false);
  w.WriteI32Field(-1, 0);  // negative id: long form
  w.WriteFieldStop();
  w.WriteStructEnd();
  EXPECT_EQ(out, Bytes({0x15, 0x0A,                  // field 1 i32 5
                        0x26, 0x01,                  // field 3 i64 -1
                        0x08, 0x28, 0x02, 'a', 'b',  // field 20 binary "ab"
                        0x03, 0x26, 0xFE,            // field 19 i8 -2
                        0x11,                        // field 20 true
                        0x12,                        // field 21 false
                        0x05, 0x01, 0x00,            // field -1 i32 0
                        0x00}));
}

TEST(CompactWriterTest, NestedStructsRestoreFieldIds) {
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteI32Field(5, 1);
  w.WriteFieldBegin(6, CT::kStruct);
  w.WriteStructBegin();
  w.WriteI32Field(1, 7);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteI32Field(7, 0);
  w.WriteFieldStop();
  w.WriteStructEnd();
  EXPECT_EQ(out, Bytes({0x55, 0x02, 0x1C, 0x15, 0x0E, 0x00, 0x15, 0x00, 0x00}));
}

TEST(CompactWriterTest, IntegersAreZigZagVarints) {
  std::string out;
  CompactWriter w(&out);
  w.WriteI32(-64);
  w.WriteI32(64);
  w.WriteI32(std::numeric_limits<int32_t>::min());
  w.WriteI32(std::numeric_limits<int32_t>::max());
  w.WriteI16(-300);
  w.WriteI64(std::numeric_limits<int64_t>::min());
  w.WriteI8(-1);
  w.WriteDouble(1.0);
  EXPECT_EQ(out, Bytes({0x7F,                                                        // -64
                        0x80, 0x01,                                                  // 64
                        0xFF, 0xFF, 0xFF, 0xFF, 0x0F,                                // INT32_MIN
                        0xFE, 0xFF, 0xFF, 0xFF, 0x0F,                                // INT32_MAX
                        0xD7, 0x04,                                                  // -300
                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  // INT64_MIN
                        0xFF,                                                        // i8 -1
                        0,    0,    0,    0,    0,    0,    0xF0, 0x3F}));           // 1.0
}

TEST(CompactWriterTest, ListSetAndMapHeaders) {
  std::string out;
  CompactWriter w(&out);
  w.WriteListBegin(CT::kI32, 14);
  w.WriteListBegin(CT::kI32, 15);
  w.WriteListBegin(CT::kBinary, 0);
  w.WriteListBegin(CT::kBoolTrue, 3);
  w.WriteBool(true);
  w.WriteBool(false);
  w.WriteBool(true);
  w.WriteSetBegin(CT::kI64, 300);
  w.WriteMapBegin(CT::kI32, CT::kBinary, 1);
  w.WriteMapBegin(CT::kI32, CT::kBinary, 0);
  EXPECT_EQ(out, Bytes({0xE5,                    // 14 x i32
                        0xF5, 0x0F,              // 15 x i32: long form
                        0x08,                    // empty list of binary
                        0x31, 0x01, 0x02, 0x01,  // [true, false, true]
                        0xF6, 0xAC, 0x02,        // set of 300 i64
                        0x01, 0x58,              // map of 1 i32 -> binary
                        0x00}));                 // empty map
}

TEST(CompactReaderTest, ReadsWhatTheWriterWrote) {
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteI32Field(1, -123456);
  w.WriteI64Field(3, std::numeric_limits<int64_t>::min());
  w.WriteBinaryField(20, "hello");
  w.WriteI8Field(19, -128);
  w.WriteBoolField(20, true);
  w.WriteBoolField(21, false);
  w.WriteI16Field(-7, std::numeric_limits<int16_t>::min());
  w.WriteFieldBegin(22, CT::kDouble);
  w.WriteDouble(-2.5);
  w.WriteFieldBegin(23, CT::kList);
  w.WriteListBegin(CT::kI32, 20);
  for (int i = 0; i < 20; ++i) w.WriteI32(i - 10);
  w.WriteFieldBegin(24, CT::kList);
  w.WriteListBegin(CT::kBoolTrue, 2);
  w.WriteBool(false);
  w.WriteBool(true);
  w.WriteFieldBegin(25, CT::kStruct);
  w.WriteStructBegin();
  w.WriteI32Field(1, 9);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteI32Field(26, 1);
  w.WriteFieldStop();
  w.WriteStructEnd();

  CompactReader r(out);
  ASSERT_TRUE(r.ReadStructBegin().ok());
  auto h = r.ReadFieldHeader();
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->id, 1);
  EXPECT_EQ(h->type, CT::kI32);
  EXPECT_EQ(*r.ReadI32(), -123456);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 3);
  EXPECT_EQ(*r.ReadI64(), std::numeric_limits<int64_t>::min());
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 20);
  EXPECT_EQ(h->type, CT::kBinary);
  EXPECT_EQ(*r.ReadBinary(), "hello");
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 19);
  EXPECT_EQ(*r.ReadI8(), -128);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 20);
  EXPECT_EQ(h->type, CT::kBoolTrue);
  EXPECT_EQ(*r.ReadBool(), true);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 21);
  EXPECT_EQ(h->type, CT::kBoolFalse);
  EXPECT_EQ(*r.ReadBool(), false);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, -7);
  EXPECT_EQ(*r.ReadI16(), std::numeric_limits<int16_t>::min());
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 22);
  EXPECT_EQ(*r.ReadDouble(), -2.5);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 23);
  auto list = r.ReadListBegin();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->element_type, CT::kI32);
  ASSERT_EQ(list->size, 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(*r.ReadI32(), i - 10);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 24);
  list = r.ReadListBegin();
  ASSERT_EQ(list->size, 2u);
  EXPECT_TRUE(IsBoolType(list->element_type));
  EXPECT_EQ(*r.ReadBool(), false);
  EXPECT_EQ(*r.ReadBool(), true);
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 25);
  EXPECT_EQ(h->type, CT::kStruct);
  ASSERT_TRUE(r.ReadStructBegin().ok());
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 1);
  EXPECT_EQ(*r.ReadI32(), 9);
  EXPECT_EQ(r.ReadFieldHeader()->type, CT::kStop);
  ASSERT_TRUE(r.ReadStructEnd().ok());
  h = r.ReadFieldHeader();
  EXPECT_EQ(h->id, 26);  // delta from 25, restored after the nested struct
  EXPECT_EQ(*r.ReadI32(), 1);
  EXPECT_EQ(r.ReadFieldHeader()->type, CT::kStop);
  ASSERT_TRUE(r.ReadStructEnd().ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactReaderTest, AcceptsBoolListElementTypeTwoAndFalseAsZero) {
  std::string in = Bytes({0x32, 0x01, 0x00, 0x02});
  CompactReader r(in);
  auto list = r.ReadListBegin();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size, 3u);
  EXPECT_EQ(*r.ReadBool(), true);
  EXPECT_EQ(*r.ReadBool(), false);
  EXPECT_EQ(*r.ReadBool(), false);
}

// A struct holding a field of every wire type (ids 1..15), then field 100 = 42.
std::string EveryTypeThen42() {
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteBoolField(1, true);
  w.WriteBoolField(2, false);
  w.WriteI8Field(3, 7);
  w.WriteI16Field(4, -300);
  w.WriteI32Field(5, 1 << 30);
  w.WriteI64Field(6, -(int64_t{1} << 50));
  w.WriteFieldBegin(7, CT::kDouble);
  w.WriteDouble(3.25);
  w.WriteBinaryField(8, std::string(200, 'x'));
  w.WriteFieldBegin(9, CT::kList);  // list<list<i32>>
  w.WriteListBegin(CT::kList, 2);
  w.WriteListBegin(CT::kI32, 3);
  for (int i = 0; i < 3; ++i) w.WriteI32(i);
  w.WriteListBegin(CT::kI32, 0);
  w.WriteFieldBegin(10, CT::kSet);  // set<binary>
  w.WriteSetBegin(CT::kBinary, 16);
  for (int i = 0; i < 16; ++i) w.WriteBinary(std::to_string(i));
  w.WriteFieldBegin(11, CT::kMap);  // map<i32, struct{bool, list<bool>}>
  w.WriteMapBegin(CT::kI32, CT::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteI32(i);
    w.WriteStructBegin();
    w.WriteBoolField(1, i == 0);
    w.WriteFieldBegin(2, CT::kList);
    w.WriteListBegin(CT::kBoolTrue, 2);
    w.WriteBool(true);
    w.WriteBool(false);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }
  w.WriteFieldBegin(12, CT::kStruct);  // struct{struct{map<binary, double>}}
  w.WriteStructBegin();
  w.WriteFieldBegin(3, CT::kStruct);
  w.WriteStructBegin();
  w.WriteFieldBegin(1, CT::kMap);
  w.WriteMapBegin(CT::kBinary, CT::kDouble, 1);
  w.WriteBinary("k");
  w.WriteDouble(0.5);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldBegin(13, CT::kUuid);
  out.append(16, '\x5A');
  w.WriteFieldBegin(14, CT::kMap);
  w.WriteMapBegin(CT::kI32, CT::kI32, 0);
  w.WriteFieldBegin(15, CT::kList);
  w.WriteListBegin(CT::kStruct, 0);
  w.WriteI32Field(100, 42);
  w.WriteFieldStop();
  w.WriteStructEnd();
  return out;
}

TEST(CompactReaderTest, SkipsFieldsOfEveryType) {
  std::string in = EveryTypeThen42();
  CompactReader r(in);
  ASSERT_TRUE(r.ReadStructBegin().ok());
  int skipped = 0;
  std::optional<int32_t> value;
  while (true) {
    auto h = r.ReadFieldHeader();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    if (h->type == CT::kStop) break;
    if (h->id == 100) {
      value = *r.ReadI32();
    } else {
      EXPECT_EQ(h->id, skipped + 1);
      Status s = r.Skip(h->type);
      ASSERT_TRUE(s.ok()) << "field " << h->id << ": " << s.ToString();
      ++skipped;
    }
  }
  ASSERT_TRUE(r.ReadStructEnd().ok());
  EXPECT_EQ(skipped, 15);
  EXPECT_EQ(value, 42);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactReaderTest, SkippingATruncatedStructFailsAtEveryPrefix) {
  std::string in = EveryTypeThen42();
  for (size_t n = 0; n < in.size(); ++n) {
    CompactReader r(std::string_view(in).substr(0, n));
    Status s = r.Skip(CT::kStruct);
    ASSERT_FALSE(s.ok()) << "prefix " << n;
    EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  }
  CompactReader r(in);
  EXPECT_TRUE(r.Skip(CT::kStruct).ok());
}

TEST(CompactReaderTest, RejectsTruncatedAndOversizedIntegers) {
  {
    std::string in = Bytes({0x80});
    CompactReader r(in);
    ExpectCorrupt(r.ReadI32().status(), "i32");
  }
  {
    std::string in = Bytes({0x80, 0x80, 0x80, 0x80, 0x10});  // 2^32: one bit too many
    CompactReader r(in);
    ExpectCorrupt(r.ReadI32().status(), "exceeds 32 bits");
  }
  {
    std::string in = Bytes({0x80, 0x80, 0x04});  // 2^16
    CompactReader r(in);
    ExpectCorrupt(r.ReadI16().status(), "i16");
  }
  {
    std::string in(11, '\xFF');
    CompactReader r(in);
    EXPECT_EQ(r.ReadI64().status().code(), StatusCode::kCorrupt);
  }
  {
    std::string in;
    CompactReader r(in);
    ExpectCorrupt(r.ReadI8().status(), "i8");
    ExpectCorrupt(r.ReadBool().status(), "bool");
    ExpectCorrupt(r.ReadDouble().status(), "double");
  }
}

TEST(CompactReaderTest, RejectsBadFieldHeaders) {
  {
    std::string in = Bytes({0x1E});  // type 14 does not exist
    CompactReader r(in);
    ExpectCorrupt(r.ReadFieldHeader().status(), "unknown type 14");
  }
  {
    std::string in = Bytes({0x10});  // stop with a delta
    CompactReader r(in);
    ExpectCorrupt(r.ReadFieldHeader().status(), "stop");
  }
  {
    std::string in = Bytes({0x05, 0xFE, 0xFF, 0x03, 0x00, 0x15});  // id 32767, then delta 1
    CompactReader r(in);
    auto h = r.ReadFieldHeader();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_EQ(h->id, 32767);
    ASSERT_TRUE(r.ReadI32().ok());
    ExpectCorrupt(r.ReadFieldHeader().status(), "overflows");
  }
  {
    std::string in = Bytes({0x05, 0x80, 0x80, 0x04});  // long-form id needs 17 bits
    CompactReader r(in);
    ExpectCorrupt(r.ReadFieldHeader().status(), "field id");
  }
  {
    std::string in = Bytes({0x05});
    CompactReader r(in);
    ExpectCorrupt(r.ReadFieldHeader().status(), "field id");
  }
}

TEST(CompactReaderTest, RejectsBadBinaryAndBool) {
  {
    std::string in = Bytes({0x05, 'a', 'b'});
    CompactReader r(in);
    ExpectCorrupt(r.ReadBinary().status(), "exceeds");
  }
  {
    std::string in = Bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01});
    CompactReader r(in);
    ExpectCorrupt(r.ReadBinary().status(), "binary");
  }
  {
    std::string in = Bytes({0x21, 0x01, 0x07});
    CompactReader r(in);
    ASSERT_TRUE(r.ReadListBegin().ok());
    EXPECT_TRUE(r.ReadBool().ok());
    ExpectCorrupt(r.ReadBool().status(), "bool");
  }
}

TEST(CompactReaderTest, BoundsListAndMapSizesByRemainingBytes) {
  {
    std::string in = Bytes({0xF5, 0xFF, 0xFF, 0xFF, 0xFF, 0x07});  // INT32_MAX x i32
    CompactReader r(in);
    ExpectCorrupt(r.ReadListBegin().status(), "cannot fit");
  }
  {
    std::string in = Bytes({0xF5, 0x80, 0x80, 0x80, 0x80, 0x08});  // 2^31: over 31 bits
    CompactReader r(in);
    ExpectCorrupt(r.ReadListBegin().status(), "list size");
  }
  {
    std::string in = Bytes({0x27, 0, 0, 0, 0, 0, 0, 0, 0x3F});  // 2 doubles, bytes for one
    CompactReader r(in);
    ExpectCorrupt(r.ReadListBegin().status(), "cannot fit");
  }
  {
    std::string in = Bytes({0x3D, 0x01});  // element type 13 (uuid) needs 16 bytes each
    CompactReader r(in);
    ExpectCorrupt(r.ReadListBegin().status(), "cannot fit");
  }
  {
    std::string in = Bytes({0x1F});  // element type 15 does not exist
    CompactReader r(in);
    ExpectCorrupt(r.ReadListBegin().status(), "element type");
  }
  {
    std::string in = Bytes({0x03, 0x55, 0x02, 0x02, 0x04});  // 3 entries, bytes for 2.5
    CompactReader r(in);
    ExpectCorrupt(r.ReadMapBegin().status(), "cannot fit");
  }
  {
    std::string in = Bytes({0x01, 0xE5, 0x00, 0x00});  // key type 14
    CompactReader r(in);
    ExpectCorrupt(r.ReadMapBegin().status(), "map");
  }
  {
    std::string in = Bytes({0x19, 0xF5, 0xFF, 0xFF, 0xFF, 0x7F});  // list<list>, inner too big
    CompactReader r(in);
    ExpectCorrupt(r.Skip(CT::kList), "cannot fit");
  }
}

// `levels` structs nested in field 1 of one another, inside one top-level struct.
std::string NestedStructs(int levels) {
  std::string out;
  for (int i = 0; i < levels; ++i) out.push_back('\x1C');
  out.append(static_cast<size_t>(levels) + 1, '\0');
  return out;
}

TEST(CompactReaderTest, LimitsNestingDepthWhenSkipping) {
  for (int levels : {CompactReader::kMaxDepth - 1, CompactReader::kMaxDepth, 100000}) {
    std::string in = NestedStructs(levels);
    CompactReader r(in);
    Status s = r.Skip(CT::kStruct);
    if (levels < CompactReader::kMaxDepth) {
      EXPECT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(r.remaining(), 0u);
    } else {
      ExpectCorrupt(s, "nesting deeper than 64");
    }
  }
}

TEST(CompactReaderTest, LimitsNestingDepthOfContainers) {
  std::string lists(100000, '\x19');  // list of one list of one list ...
  lists.push_back('\x05');            // ... of no i32
  CompactReader r(lists);
  ExpectCorrupt(r.Skip(CT::kList), "nesting");

  std::string maps;
  for (int i = 0; i < 1000; ++i) maps += Bytes({0x01, 0x5B, 0x00});  // map<i32, map<...>>
  maps.push_back('\0');
  CompactReader m(maps);
  ExpectCorrupt(m.Skip(CT::kMap), "nesting");
}

TEST(CompactReaderTest, CannotSkipStop) {
  std::string in = Bytes({0x00});
  CompactReader r(in);
  ExpectCorrupt(r.Skip(CT::kStop), "skip");
}

TEST(CompactTypeTest, Names) {
  EXPECT_EQ(CompactTypeName(CT::kI32), "i32");
  EXPECT_EQ(CompactTypeName(CT::kStruct), "struct");
  EXPECT_EQ(CompactTypeName(static_cast<CT>(14)), "type 14");
}

}  // namespace
}  // namespace cdclake::parquet::format
