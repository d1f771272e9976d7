// Tests for the parquet.thrift structs: round trips with every optional set and unset, known
// encodings, skipped unknown fields, required fields, and hostile input (truncated, mutated,
// too deeply nested) that must fail cleanly.
#include "parquet/format/parquet_types.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "parquet/format/compact_protocol.h"

namespace cdclake::parquet::format {

// Field-by-field equality for the tests (internal linkage: the header defines none).
static bool operator==(const Statistics& a, const Statistics& b) {
  auto tie = [](const Statistics& s) {
    return std::tie(s.max, s.min, s.null_count, s.distinct_count, s.max_value, s.min_value,
                    s.is_max_value_exact, s.is_min_value_exact);
  };
  return tie(a) == tie(b);
}
static bool operator==(const LogicalType& a, const LogicalType& b) {
  auto tie = [](const LogicalType& t) {
    return std::tie(t.kind, t.decimal_scale, t.decimal_precision, t.is_adjusted_to_utc, t.unit,
                    t.bit_width, t.is_signed);
  };
  return tie(a) == tie(b);
}
static bool operator==(const SchemaElement& a, const SchemaElement& b) {
  auto tie = [](const SchemaElement& e) {
    return std::tie(e.type, e.type_length, e.repetition_type, e.name, e.num_children,
                    e.converted_type, e.scale, e.precision, e.field_id, e.logical_type);
  };
  return tie(a) == tie(b);
}
static bool operator==(const DataPageHeader& a, const DataPageHeader& b) {
  auto tie = [](const DataPageHeader& h) {
    return std::tie(h.num_values, h.encoding, h.definition_level_encoding,
                    h.repetition_level_encoding, h.statistics);
  };
  return tie(a) == tie(b);
}
static bool operator==(const DictionaryPageHeader& a, const DictionaryPageHeader& b) {
  return std::tie(a.num_values, a.encoding, a.is_sorted) ==
         std::tie(b.num_values, b.encoding, b.is_sorted);
}
static bool operator==(const DataPageHeaderV2& a, const DataPageHeaderV2& b) {
  auto tie = [](const DataPageHeaderV2& h) {
    return std::tie(h.num_values, h.num_nulls, h.num_rows, h.encoding,
                    h.definition_levels_byte_length, h.repetition_levels_byte_length,
                    h.is_compressed, h.statistics);
  };
  return tie(a) == tie(b);
}
static bool operator==(const PageHeader& a, const PageHeader& b) {
  auto tie = [](const PageHeader& h) {
    return std::tie(h.type, h.uncompressed_page_size, h.compressed_page_size, h.crc,
                    h.data_page_header, h.dictionary_page_header, h.data_page_header_v2);
  };
  return tie(a) == tie(b);
}
static bool operator==(const KeyValue& a, const KeyValue& b) {
  return std::tie(a.key, a.value) == std::tie(b.key, b.value);
}
static bool operator==(const SortingColumn& a, const SortingColumn& b) {
  return std::tie(a.column_idx, a.descending, a.nulls_first) ==
         std::tie(b.column_idx, b.descending, b.nulls_first);
}
static bool operator==(const PageEncodingStats& a, const PageEncodingStats& b) {
  return std::tie(a.page_type, a.encoding, a.count) == std::tie(b.page_type, b.encoding, b.count);
}
static bool operator==(const ColumnMetaData& a, const ColumnMetaData& b) {
  auto tie = [](const ColumnMetaData& m) {
    return std::tie(m.type, m.encodings, m.path_in_schema, m.codec, m.num_values,
                    m.total_uncompressed_size, m.total_compressed_size, m.key_value_metadata,
                    m.data_page_offset, m.index_page_offset, m.dictionary_page_offset, m.statistics,
                    m.encoding_stats, m.bloom_filter_offset, m.bloom_filter_length);
  };
  return tie(a) == tie(b);
}
static bool operator==(const ColumnChunk& a, const ColumnChunk& b) {
  auto tie = [](const ColumnChunk& c) {
    return std::tie(c.file_path, c.file_offset, c.meta_data, c.offset_index_offset,
                    c.offset_index_length, c.column_index_offset, c.column_index_length);
  };
  return tie(a) == tie(b);
}
static bool operator==(const RowGroup& a, const RowGroup& b) {
  auto tie = [](const RowGroup& g) {
    return std::tie(g.columns, g.total_byte_size, g.num_rows, g.sorting_columns, g.file_offset,
                    g.total_compressed_size, g.ordinal);
  };
  return tie(a) == tie(b);
}
static bool operator==(const ColumnOrder& a, const ColumnOrder& b) {
  return a.type_defined_order == b.type_defined_order;
}
static bool operator==(const FileMetaData& a, const FileMetaData& b) {
  auto tie = [](const FileMetaData& m) {
    return std::tie(m.version, m.schema, m.num_rows, m.row_groups, m.key_value_metadata,
                    m.created_by, m.column_orders, m.has_encryption_algorithm);
  };
  return tie(a) == tie(b);
}

namespace {

using CT = CompactType;
using Kind = LogicalType::Kind;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

void ExpectCorrupt(const Status& s, std::string_view fragment) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.ToString();
}

Statistics FullStatistics() {
  Statistics s;
  s.max = std::string("\xff\x00zz", 4);
  s.min = "a";
  s.null_count = 3;
  s.distinct_count = -1;
  s.max_value = "zz";
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

LogicalType Logical(Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

// A schema exercising every LogicalType kind this library writes.
std::vector<SchemaElement> FullSchema() {
  std::vector<SchemaElement> schema;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 17;
  schema.push_back(root);

  SchemaElement id;
  id.type = Type::kInt64;
  id.repetition_type = FieldRepetitionType::kRequired;
  id.name = "id";
  id.field_id = 1;
  id.converted_type = ConvertedType::kInt64;
  id.logical_type = Logical(Kind::kInteger);
  id.logical_type->bit_width = 64;
  id.logical_type->is_signed = true;
  schema.push_back(id);

  SchemaElement small = id;
  small.type = Type::kInt32;
  small.name = "small";
  small.logical_type->bit_width = 8;
  small.logical_type->is_signed = false;
  schema.push_back(small);

  SchemaElement amount;
  amount.type = Type::kFixedLenByteArray;
  amount.type_length = 16;
  amount.repetition_type = FieldRepetitionType::kOptional;
  amount.name = "amount";
  amount.converted_type = ConvertedType::kDecimal;
  amount.scale = 2;
  amount.precision = 38;
  amount.logical_type = Logical(Kind::kDecimal);
  amount.logical_type->decimal_scale = 2;
  amount.logical_type->decimal_precision = 38;
  schema.push_back(amount);

  for (auto [kind, unit, utc] : {std::tuple{Kind::kTimestamp, TimeUnit::kMicros, true},
                                 std::tuple{Kind::kTimestamp, TimeUnit::kNanos, false},
                                 std::tuple{Kind::kTime, TimeUnit::kMillis, false}}) {
    SchemaElement t;
    t.type = Type::kInt64;
    t.repetition_type = FieldRepetitionType::kOptional;
    t.name = "t" + std::to_string(schema.size());
    t.logical_type = Logical(kind);
    t.logical_type->unit = unit;
    t.logical_type->is_adjusted_to_utc = utc;
    schema.push_back(t);
  }
  for (Kind kind : {Kind::kString, Kind::kMap, Kind::kList, Kind::kEnum, Kind::kDate,
                    Kind::kUnknown, Kind::kJson, Kind::kBson, Kind::kUuid, Kind::kFloat16}) {
    SchemaElement e;
    e.type = Type::kByteArray;
    e.repetition_type = FieldRepetitionType::kRepeated;
    e.name = "k" + std::to_string(static_cast<int>(kind));
    e.logical_type = Logical(kind);
    schema.push_back(e);
  }
  return schema;
}

ColumnChunk FullColumnChunk(int64_t offset) {
  ColumnChunk c;
  c.file_path = "other.parquet";
  c.file_offset = offset;
  ColumnMetaData m;
  m.type = Type::kByteArray;
  m.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
  m.path_in_schema = {"a", "b", ""};
  m.codec = CompressionCodec::kZstd;
  m.num_values = 1000;
  m.total_uncompressed_size = 123456789012;
  m.total_compressed_size = 42;
  m.key_value_metadata = {{"k", "v"}, {"no value", std::nullopt}};
  m.data_page_offset = offset + 100;
  m.index_page_offset = offset + 200;
  m.dictionary_page_offset = offset;
  m.statistics = FullStatistics();
  m.encoding_stats = {{PageType::kDictionaryPage, Encoding::kPlain, 1},
                      {PageType::kDataPage, Encoding::kRleDictionary, 7}};
  m.bloom_filter_offset = offset + 300;
  m.bloom_filter_length = 512;
  c.meta_data = m;
  c.offset_index_offset = 9000;
  c.offset_index_length = 90;
  c.column_index_offset = 8000;
  c.column_index_length = 80;
  return c;
}

FileMetaData FullFileMetaData() {
  FileMetaData m;
  m.version = 2;
  m.schema = FullSchema();
  m.num_rows = 1'000'000'000'000;
  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    for (int c = 0; c < 3; ++c) rg.columns.push_back(FullColumnChunk(4 + g * 1000 + c * 10));
    rg.total_byte_size = 5000 + g;
    rg.num_rows = 500;
    rg.sorting_columns = {{0, true, false}, {2, false, true}};
    rg.file_offset = 4 + g * 1000;
    rg.total_compressed_size = 4000;
    rg.ordinal = static_cast<int16_t>(g);
    m.row_groups.push_back(rg);
  }
  m.key_value_metadata = {{"delta.schema", "{}"}, {"empty", std::nullopt}};
  m.created_by = "cdclake version 0.1.0";
  for (int i = 0; i < 16; ++i) m.column_orders.push_back(ColumnOrder{i != 3});
  return m;
}

FileMetaData MinimalFileMetaData() {
  FileMetaData m;
  SchemaElement root;
  root.name = "root";
  m.schema.push_back(root);
  return m;
}

// A FileMetaData where every optional inside is left unset (but the lists hold one of each).
FileMetaData SparseFileMetaData() {
  FileMetaData m = MinimalFileMetaData();
  SchemaElement leaf;
  leaf.name = "x";
  m.schema.push_back(leaf);
  RowGroup rg;
  ColumnChunk c;
  c.meta_data = ColumnMetaData{};
  c.meta_data->statistics = Statistics{};
  rg.columns.push_back(c);
  rg.columns.push_back(ColumnChunk{});
  m.row_groups.push_back(rg);
  return m;
}

std::string Encoded(const FileMetaData& m) {
  std::string out;
  EncodeFileMetaData(m, &out);
  return out;
}

void ExpectRoundTrip(const FileMetaData& m) {
  std::string bytes = Encoded(m);
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(*decoded == m);
  EXPECT_EQ(Encoded(*decoded), bytes);
}

void ExpectRoundTrip(const PageHeader& h) {
  std::string bytes;
  EncodePageHeader(h, &bytes);
  size_t consumed = 0;
  auto decoded = DecodePageHeader(bytes, &consumed);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(*decoded == h);
  EXPECT_EQ(consumed, bytes.size());
}

TEST(ParquetTypesTest, FileMetaDataRoundTripsWithEveryOptionalSet) {
  ExpectRoundTrip(FullFileMetaData());
}

TEST(ParquetTypesTest, FileMetaDataRoundTripsWithEveryOptionalUnset) {
  ExpectRoundTrip(MinimalFileMetaData());
  ExpectRoundTrip(SparseFileMetaData());
}

TEST(ParquetTypesTest, StatisticsRoundTrip) {
  for (const Statistics& s : {FullStatistics(), Statistics{}}) {
    std::string bytes;
    EncodeStatistics(s, &bytes);
    auto decoded = DecodeStatistics(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_TRUE(*decoded == s);
  }
  // Each optional alone.
  Statistics full = FullStatistics();
  for (int i = 0; i < 8; ++i) {
    Statistics s;
    switch (i) {
      case 0:
        s.max = full.max;
        break;
      case 1:
        s.min = full.min;
        break;
      case 2:
        s.null_count = full.null_count;
        break;
      case 3:
        s.distinct_count = full.distinct_count;
        break;
      case 4:
        s.max_value = full.max_value;
        break;
      case 5:
        s.min_value = full.min_value;
        break;
      case 6:
        s.is_max_value_exact = false;
        break;
      case 7:
        s.is_min_value_exact = true;
        break;
    }
    std::string bytes;
    EncodeStatistics(s, &bytes);
    auto decoded = DecodeStatistics(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_TRUE(*decoded == s) << i;
  }
}

TEST(ParquetTypesTest, PageHeadersRoundTrip) {
  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 1 << 20;
  v1.compressed_page_size = 12345;
  v1.crc = -559038737;
  v1.data_page_header = DataPageHeader{100, Encoding::kRleDictionary, Encoding::kRle,
                                       Encoding::kBitPacked, FullStatistics()};
  ExpectRoundTrip(v1);
  v1.crc.reset();
  v1.data_page_header->statistics.reset();
  ExpectRoundTrip(v1);

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 100;
  dict.compressed_page_size = 50;
  dict.dictionary_page_header = DictionaryPageHeader{10, Encoding::kPlain, true};
  ExpectRoundTrip(dict);
  dict.dictionary_page_header->is_sorted.reset();
  ExpectRoundTrip(dict);

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 7;
  v2.compressed_page_size = 7;
  v2.crc = 0;
  v2.data_page_header_v2 =
      DataPageHeaderV2{10, 2, 9, Encoding::kDeltaBinaryPacked, 3, 4, false, FullStatistics()};
  ExpectRoundTrip(v2);
  v2.data_page_header_v2->is_compressed = true;
  v2.data_page_header_v2->statistics.reset();
  ExpectRoundTrip(v2);

  PageHeader bare;  // no sub-header at all
  bare.type = PageType::kIndexPage;
  ExpectRoundTrip(bare);
}

TEST(ParquetTypesTest, KnownEncodings) {
  Statistics s;
  s.null_count = 3;
  std::string bytes;
  EncodeStatistics(s, &bytes);
  EXPECT_EQ(bytes, Bytes({0x36, 0x06, 0x00}));

  Statistics s2;
  s2.max = "a";
  s2.is_min_value_exact = false;
  bytes.clear();
  EncodeStatistics(s2, &bytes);
  EXPECT_EQ(bytes, Bytes({0x18, 0x01, 'a', 0x72, 0x00}));

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 100;
  dict.compressed_page_size = 50;
  dict.dictionary_page_header = DictionaryPageHeader{10, Encoding::kPlain, std::nullopt};
  bytes.clear();
  EncodePageHeader(dict, &bytes);
  EXPECT_EQ(bytes, Bytes({0x15, 0x04,        // 1: type 2
                          0x15, 0xC8, 0x01,  // 2: 100
                          0x15, 0x64,        // 3: 50
                          0x4C,              // 7: struct
                          0x15, 0x14,        //   1: 10
                          0x15, 0x00,        //   2: PLAIN
                          0x00, 0x00}));

  FileMetaData m = MinimalFileMetaData();
  bytes = Encoded(m);
  EXPECT_EQ(bytes, Bytes({0x15, 0x02,                            // 1: version 1
                          0x19, 0x1C,                            // 2: list of 1 struct
                          0x48, 0x04, 'r', 'o', 'o', 't', 0x00,  //   4: name "root"
                          0x16, 0x00,                            // 3: num_rows 0
                          0x19, 0x0C,                            // 4: empty list of struct
                          0x00}));
}

TEST(ParquetTypesTest, LogicalTypeEncodings) {
  FileMetaData m = MinimalFileMetaData();
  m.schema[0].logical_type = Logical(Kind::kTimestamp);
  m.schema[0].logical_type->is_adjusted_to_utc = true;
  m.schema[0].logical_type->unit = TimeUnit::kMicros;
  std::string bytes = Encoded(m);
  // SchemaElement: name, then 10: LogicalType {8: TimestampType {1: true, 2: {2: {}}}}.
  std::string want_element = Bytes({0x48, 0x04, 'r', 'o', 'o', 't', 0x6C,  // 10 = 4 + 6
                                    0x8C, 0x11, 0x1C, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x00});
  EXPECT_NE(bytes.find(want_element), std::string::npos) << HexEncode(bytes);

  m.schema[0].logical_type = Logical(Kind::kInteger);
  m.schema[0].logical_type->bit_width = 16;
  m.schema[0].logical_type->is_signed = false;
  bytes = Encoded(m);
  want_element = Bytes({0x6C, 0xAC, 0x13, 0x10, 0x12, 0x00, 0x00});  // 10: {10: {1: 16, 2: false}}
  EXPECT_NE(bytes.find(want_element), std::string::npos) << HexEncode(bytes);
}

TEST(ParquetTypesTest, LogicalTypeNoneAndOtherAreNotWritten) {
  for (Kind kind : {Kind::kNone, Kind::kOther}) {
    FileMetaData m = MinimalFileMetaData();
    m.schema[0].logical_type = Logical(kind);
    auto decoded = DecodeFileMetaData(Encoded(m));
    ASSERT_TRUE(decoded.ok());
    EXPECT_FALSE(decoded->schema[0].logical_type.has_value());
  }
}

// Writes a FileMetaData by hand: version, a schema of one element whose LogicalType is built by
// `logical` (written as field 10 when given), num_rows and no row groups.
template <typename WriteLogical>
std::string FileWithLogicalType(WriteLogical&& logical) {
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(2, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteBinaryField(4, "root");
  w.WriteFieldBegin(10, CT::kStruct);
  w.WriteStructBegin();
  logical(w);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteI64Field(3, 0);
  w.WriteFieldBegin(4, CT::kList);
  w.WriteListBegin(CT::kStruct, 0);
  w.WriteFieldStop();
  w.WriteStructEnd();
  return out;
}

void WriteEmpty(CompactWriter& w) {
  w.WriteStructBegin();
  w.WriteFieldStop();
  w.WriteStructEnd();
}

TEST(ParquetTypesTest, UnknownLogicalTypeMembersDecodeAsOther) {
  // 16: VARIANT (a struct with a field), unknown here.
  auto decoded = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(16, CT::kStruct);
    w.WriteStructBegin();
    w.WriteI8Field(1, 1);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_TRUE(decoded->schema[0].logical_type.has_value());
  EXPECT_EQ(decoded->schema[0].logical_type->kind, Kind::kOther);

  // A timestamp in a time unit this reader does not know (4).
  decoded = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(8, CT::kStruct);
    w.WriteStructBegin();
    w.WriteBoolField(1, true);
    w.WriteFieldBegin(2, CT::kStruct);
    w.WriteStructBegin();
    w.WriteFieldBegin(4, CT::kStruct);
    WriteEmpty(w);
    w.WriteFieldStop();
    w.WriteStructEnd();
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->schema[0].logical_type->kind, Kind::kOther);

  // An empty union: kNone.
  decoded = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {}));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->schema[0].logical_type->kind, Kind::kNone);

  // A known empty member that a newer writer gave a field: the field is skipped.
  decoded = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(1, CT::kStruct);
    w.WriteStructBegin();
    w.WriteBinaryField(1, "new");
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->schema[0].logical_type->kind, Kind::kString);
}

TEST(ParquetTypesTest, MalformedLogicalTypesAreCorrupt) {
  auto two_members = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(1, CT::kStruct);
    WriteEmpty(w);
    w.WriteFieldBegin(6, CT::kStruct);
    WriteEmpty(w);
  }));
  ExpectCorrupt(two_members.status(), "more than one member");

  auto no_precision = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(5, CT::kStruct);
    w.WriteStructBegin();
    w.WriteI32Field(1, 2);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ExpectCorrupt(no_precision.status(), "DecimalType: required field precision");

  auto no_unit = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(7, CT::kStruct);
    w.WriteStructBegin();
    w.WriteBoolField(1, true);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ExpectCorrupt(no_unit.status(), "TimeType: required field unit");

  auto empty_unit = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(7, CT::kStruct);
    w.WriteStructBegin();
    w.WriteBoolField(1, true);
    w.WriteFieldBegin(2, CT::kStruct);
    WriteEmpty(w);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ExpectCorrupt(empty_unit.status(), "TimeUnit");

  auto string_not_struct =
      DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) { w.WriteI32Field(1, 0); }));
  ExpectCorrupt(string_not_struct.status(), "expected struct, found i32");

  auto int_without_sign = DecodeFileMetaData(FileWithLogicalType([](CompactWriter& w) {
    w.WriteFieldBegin(10, CT::kStruct);
    w.WriteStructBegin();
    w.WriteI8Field(1, 32);
    w.WriteFieldStop();
    w.WriteStructEnd();
  }));
  ExpectCorrupt(int_without_sign.status(), "IntType: required field isSigned");
}

TEST(ParquetTypesTest, ColumnOrders) {
  FileMetaData m = MinimalFileMetaData();
  m.column_orders = {ColumnOrder{true}, ColumnOrder{false}};
  ExpectRoundTrip(m);

  // An unknown union member: no order this reader knows.
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(2, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteBinaryField(4, "root");
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteI64Field(3, 0);
  w.WriteFieldBegin(4, CT::kList);
  w.WriteListBegin(CT::kStruct, 0);
  w.WriteFieldBegin(7, CT::kList);
  w.WriteListBegin(CT::kStruct, 2);
  w.WriteStructBegin();
  w.WriteFieldBegin(2, CT::kStruct);
  WriteEmpty(w);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteStructBegin();
  w.WriteFieldBegin(1, CT::kStruct);
  WriteEmpty(w);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldStop();
  w.WriteStructEnd();
  auto decoded = DecodeFileMetaData(out);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->column_orders.size(), 2u);
  EXPECT_FALSE(decoded->column_orders[0].type_defined_order);
  EXPECT_TRUE(decoded->column_orders[1].type_defined_order);
}

// Unknown fields of every wire type, ids first_id, first_id + 1, ...
void WriteUnknownFields(CompactWriter& w, int16_t first_id) {
  int16_t id = first_id;
  w.WriteBoolField(id++, true);
  w.WriteBoolField(id++, false);
  w.WriteI8Field(id++, -1);
  w.WriteI16Field(id++, 1000);
  w.WriteI32Field(id++, -5);
  w.WriteI64Field(id++, int64_t{1} << 40);
  w.WriteFieldBegin(id++, CT::kDouble);
  w.WriteDouble(0.25);
  w.WriteBinaryField(id++, "unknown");
  w.WriteFieldBegin(id++, CT::kList);
  w.WriteListBegin(CT::kStruct, 2);
  WriteEmpty(w);
  w.WriteStructBegin();
  w.WriteFieldBegin(1, CT::kList);
  w.WriteListBegin(CT::kBoolTrue, 1);
  w.WriteBool(true);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldBegin(id++, CT::kSet);
  w.WriteSetBegin(CT::kI64, 2);
  w.WriteI64(1);
  w.WriteI64(2);
  w.WriteFieldBegin(id++, CT::kMap);
  w.WriteMapBegin(CT::kBinary, CT::kList, 1);
  w.WriteBinary("k");
  w.WriteListBegin(CT::kDouble, 1);
  w.WriteDouble(1.5);
  w.WriteFieldBegin(id++, CT::kStruct);
  w.WriteStructBegin();
  w.WriteI32Field(1, 1);
  w.WriteFieldBegin(2, CT::kStruct);
  WriteEmpty(w);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

TEST(ParquetTypesTest, UnknownFieldsOfEveryTypeAreSkipped) {
  // FileMetaData with unknown fields before, between and after the known ones, and in a nested
  // KeyValue and Statistics-bearing ColumnChunk.
  std::string out;
  CompactWriter w(&out);
  w.WriteStructBegin();
  WriteUnknownFields(w, 40);
  w.WriteI32Field(1, 2);
  w.WriteFieldBegin(2, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();
  WriteUnknownFields(w, 20);
  w.WriteBinaryField(4, "root");
  w.WriteFieldStop();
  w.WriteStructEnd();
  WriteUnknownFields(w, 60);
  w.WriteI64Field(3, 5);
  w.WriteFieldBegin(4, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();  // RowGroup
  w.WriteFieldBegin(1, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();  // ColumnChunk
  w.WriteI64Field(2, 4);
  w.WriteFieldBegin(8, CT::kStruct);  // crypto_metadata: skipped
  WriteEmpty(w);
  WriteUnknownFields(w, 30);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteI64Field(2, 10);
  w.WriteI64Field(3, 5);
  WriteUnknownFields(w, 8);
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteFieldBegin(5, CT::kList);
  w.WriteListBegin(CT::kStruct, 1);
  w.WriteStructBegin();
  w.WriteBinaryField(1, "k");
  WriteUnknownFields(w, 3);
  w.WriteBinaryField(2, "v");  // known field after unknown ones, long form
  w.WriteFieldStop();
  w.WriteStructEnd();
  w.WriteBinaryField(9, "footer signing key");  // footer_signing_key_metadata: skipped
  w.WriteFieldStop();
  w.WriteStructEnd();

  auto decoded = DecodeFileMetaData(out);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->version, 2);
  ASSERT_EQ(decoded->schema.size(), 1u);
  EXPECT_EQ(decoded->schema[0].name, "root");
  EXPECT_EQ(decoded->num_rows, 5);
  ASSERT_EQ(decoded->row_groups.size(), 1u);
  ASSERT_EQ(decoded->row_groups[0].columns.size(), 1u);
  EXPECT_EQ(decoded->row_groups[0].columns[0].file_offset, 4);
  EXPECT_EQ(decoded->row_groups[0].total_byte_size, 10);
  ASSERT_EQ(decoded->key_value_metadata.size(), 1u);
  EXPECT_EQ(decoded->key_value_metadata[0].value, "v");
  EXPECT_FALSE(decoded->has_encryption_algorithm);

  // Statistics and PageHeader (6: index_page_header among the unknown).
  out.clear();
  CompactWriter s(&out);
  s.WriteStructBegin();
  WriteUnknownFields(s, 9);
  s.WriteI64Field(3, 77);
  s.WriteFieldStop();
  s.WriteStructEnd();
  auto stats = DecodeStatistics(out);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->null_count, 77);
  EXPECT_FALSE(stats->max.has_value());

  out.clear();
  CompactWriter p(&out);
  p.WriteStructBegin();
  p.WriteI32Field(1, 1);
  p.WriteI32Field(2, 8);
  p.WriteI32Field(3, 8);
  p.WriteFieldBegin(6, CT::kStruct);
  WriteEmpty(p);
  WriteUnknownFields(p, 9);
  p.WriteFieldStop();
  p.WriteStructEnd();
  size_t consumed = 0;
  auto header = DecodePageHeader(out, &consumed);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->type, PageType::kIndexPage);
  EXPECT_EQ(consumed, out.size());
}

TEST(ParquetTypesTest, EncryptionAlgorithmIsDetectedButNeverWritten) {
  std::string bytes = Encoded(MinimalFileMetaData());
  bytes.pop_back();  // drop the stop byte; add 8 (delta 4): {1: {}}
  bytes += Bytes({0x4C, 0x1C, 0x00, 0x00, 0x00});
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->has_encryption_algorithm);
  EXPECT_EQ(Encoded(*decoded), Encoded(MinimalFileMetaData()));
}

TEST(ParquetTypesTest, DecodePageHeaderReportsItsLength) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 3;
  h.compressed_page_size = 3;
  h.data_page_header = DataPageHeader{};
  std::string bytes;
  EncodePageHeader(h, &bytes);
  size_t header_size = bytes.size();
  bytes += "abc";  // page data follows
  size_t consumed = 0;
  auto decoded = DecodePageHeader(bytes, &consumed);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(consumed, header_size);
  EXPECT_TRUE(*decoded == h);
}

TEST(ParquetTypesTest, MissingRequiredFieldsAreCorrupt) {
  // SchemaElement without a name.
  std::string bytes = Bytes({0x15, 0x02, 0x19, 0x1C, 0x00, 0x16, 0x00, 0x19, 0x0C, 0x00});
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "SchemaElement: required field name (4)");
  // FileMetaData without num_rows.
  bytes = Bytes({0x15, 0x02, 0x19, 0x0C, 0x29, 0x0C, 0x00});
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "FileMetaData: required field num_rows");
  // PageHeader without compressed_page_size.
  bytes = Bytes({0x15, 0x00, 0x15, 0x02, 0x00});
  size_t consumed = 0;
  ExpectCorrupt(DecodePageHeader(bytes, &consumed).status(),
                "PageHeader: required field compressed_page_size");
  // A ColumnChunk without file_offset, deep inside.
  FileMetaData m = MinimalFileMetaData();
  m.row_groups.emplace_back();
  m.row_groups[0].columns.emplace_back();
  bytes = Encoded(m);
  std::string chunk = Bytes({0x19, 0x1C, 0x26, 0x00, 0x00});  // columns: [{2: 0}]
  size_t at = bytes.find(chunk);
  ASSERT_NE(at, std::string::npos) << HexEncode(bytes);
  bytes.replace(at, chunk.size(), Bytes({0x19, 0x1C, 0x00}));
  Status s = DecodeFileMetaData(bytes).status();
  ExpectCorrupt(s, "ColumnChunk: required field file_offset");
  ExpectCorrupt(s, "FileMetaData.row_groups[0]");
}

TEST(ParquetTypesTest, EnumValues) {
  auto page_with_type = [](int32_t type) {
    std::string bytes;
    CompactWriter w(&bytes);
    w.WriteStructBegin();
    w.WriteI32Field(1, type);
    w.WriteI32Field(2, 0);
    w.WriteI32Field(3, 0);
    w.WriteFieldStop();
    w.WriteStructEnd();
    return bytes;
  };
  size_t consumed = 0;
  ExpectCorrupt(DecodePageHeader(page_with_type(4), &consumed).status(),
                "PageHeader.type: unknown value 4");
  ExpectCorrupt(DecodePageHeader(page_with_type(-1), &consumed).status(), "unknown value -1");

  FileMetaData m = MinimalFileMetaData();
  m.schema[0].type = static_cast<Type>(8);
  ExpectCorrupt(DecodeFileMetaData(Encoded(m)).status(), "SchemaElement.type: unknown value 8");
  m = MinimalFileMetaData();
  m.schema[0].repetition_type = static_cast<FieldRepetitionType>(3);
  ExpectCorrupt(DecodeFileMetaData(Encoded(m)).status(), "repetition_type: unknown value 3");

  // Encoding, ConvertedType and CompressionCodec keep values they do not name.
  m = FullFileMetaData();
  m.schema[1].converted_type = static_cast<ConvertedType>(77);
  auto& meta = *m.row_groups[0].columns[0].meta_data;
  meta.encodings.push_back(static_cast<Encoding>(42));
  meta.codec = static_cast<CompressionCodec>(-3);
  meta.encoding_stats[0].encoding = static_cast<Encoding>(1000);
  ExpectRoundTrip(m);
  m = FullFileMetaData();
  m.row_groups[0].columns[0].meta_data->type = static_cast<Type>(9);
  ExpectCorrupt(DecodeFileMetaData(Encoded(m)).status(), "ColumnMetaData.type: unknown value 9");
  m = FullFileMetaData();
  m.row_groups[0].columns[0].meta_data->encoding_stats[0].page_type = static_cast<PageType>(7);
  ExpectCorrupt(DecodeFileMetaData(Encoded(m)).status(), "PageEncodingStats.page_type");
}

TEST(ParquetTypesTest, WrongWireTypesAreCorrupt) {
  std::string bytes = Bytes({0x16, 0x02, 0x00});  // version as i64
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "FileMetaData.version: expected i32");
  bytes = Bytes({0x35, 0x02, 0x00});  // Statistics.null_count as i32
  ExpectCorrupt(DecodeStatistics(bytes).status(), "Statistics.null_count: expected i64");
  bytes = Bytes({0x75, 0x02, 0x00});  // Statistics.is_max_value_exact as i32
  ExpectCorrupt(DecodeStatistics(bytes).status(), "expected bool");
  bytes = Bytes({0x15, 0x02, 0x19, 0x15, 0x00});  // schema: a list of i32
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "expected a list of struct");
}

TEST(ParquetTypesTest, EveryTruncationIsRejected) {
  for (const FileMetaData& m : {FullFileMetaData(), SparseFileMetaData()}) {
    std::string bytes = Encoded(m);
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto decoded = DecodeFileMetaData(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(decoded.ok()) << "prefix " << n << " of " << bytes.size();
      ASSERT_EQ(decoded.status().code(), StatusCode::kCorrupt) << decoded.status().ToString();
    }
  }
  PageHeader h;
  h.data_page_header =
      DataPageHeader{5, Encoding::kPlain, Encoding::kRle, Encoding::kRle, FullStatistics()};
  std::string bytes;
  EncodePageHeader(h, &bytes);
  for (size_t n = 0; n < bytes.size(); ++n) {
    size_t consumed = 0;
    ASSERT_FALSE(DecodePageHeader(std::string_view(bytes).substr(0, n), &consumed).ok()) << n;
  }
}

TEST(ParquetTypesTest, RandomMutationsNeverCrash) {
  const std::string original = Encoded(FullFileMetaData());
  std::mt19937 rng(20240611);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  int decoded_ok = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    std::string bytes = original;
    int mutations = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < mutations && !bytes.empty(); ++i) {
      switch (pick(5)) {
        case 0:
          bytes[pick(bytes.size())] = static_cast<char>(pick(256));
          break;
        case 1:
          bytes[pick(bytes.size())] ^= static_cast<char>(1 << pick(8));
          break;
        case 2:
          bytes.insert(pick(bytes.size()), 1, static_cast<char>(pick(256)));
          break;
        case 3:
          bytes.erase(pick(bytes.size()), 1 + pick(8));
          break;
        case 4:
          bytes.resize(pick(bytes.size()));
          break;
      }
    }
    auto decoded = DecodeFileMetaData(bytes);
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), StatusCode::kCorrupt) << decoded.status().ToString();
      continue;
    }
    ++decoded_ok;
    // Whatever decodes must encode again and decode to the same thing.
    std::string again = Encoded(*decoded);
    auto redecoded = DecodeFileMetaData(again);
    ASSERT_TRUE(redecoded.ok()) << redecoded.status().ToString();
    EXPECT_EQ(Encoded(*redecoded), again);
  }
  EXPECT_GT(decoded_ok, 0);  // some mutations (a changed value) still decode
}

TEST(ParquetTypesTest, DeepNestingIsRejected) {
  // An unknown field 30 holding structs nested 10000 deep.
  std::string bytes = Encoded(MinimalFileMetaData());
  bytes.pop_back();
  bytes.push_back('\x0C');  // long form: struct, id 30
  bytes.push_back('\x3C');
  for (int i = 0; i < 10000; ++i) bytes.push_back('\x1C');
  bytes.append(10002, '\0');
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "nesting deeper than 64");

  // Nested lists in an unknown field of Statistics.
  std::string stats = Bytes({0x09, 0x3C});  // field 30: list
  stats.append(5000, '\x19');
  stats += Bytes({0x05, 0x00});
  ExpectCorrupt(DecodeStatistics(stats).status(), "nesting");

  // Modest nesting is fine.
  bytes = Encoded(MinimalFileMetaData());
  bytes.pop_back();
  bytes += Bytes({0x0C, 0x3C});
  for (int i = 0; i < 20; ++i) bytes.push_back('\x1C');
  bytes.append(22, '\0');
  EXPECT_TRUE(DecodeFileMetaData(bytes).ok());
}

TEST(ParquetTypesTest, HugeAnnouncedListsFailWithoutAllocating) {
  // row_groups announces 2^31 - 1 elements in a few bytes.
  std::string bytes =
      Bytes({0x15, 0x02, 0x19, 0x0C, 0x16, 0x00, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00});
  ExpectCorrupt(DecodeFileMetaData(bytes).status(), "cannot fit");
  // A binary claiming more bytes than remain.
  bytes = Bytes({0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 'a', 0x00});
  ExpectCorrupt(DecodeStatistics(bytes).status(), "Statistics.max");
}

}  // namespace
}  // namespace cdclake::parquet::format
