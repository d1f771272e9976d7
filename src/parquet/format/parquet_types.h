// The Parquet file metadata structures, as parquet.thrift defines them (field ids in comments).
// Names follow the spec; camelCase spec fields become snake_case. Optional fields are
// std::optional. Unknown fields are skipped on read, so newer writers' files still open.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake::parquet::format {

enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

struct Statistics {
  std::optional<std::string> max;          // 1 (deprecated, signed order)
  std::optional<std::string> min;          // 2 (deprecated, signed order)
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
};

enum class TimeUnit : int32_t { kMillis = 1, kMicros = 2, kNanos = 3 };  // union member ids

/// LogicalType is a thrift union; `kind` says which member is set (its field id).
struct LogicalType {
  enum class Kind : int32_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kOther = 99,  // a member this reader does not know; read and kept as "other"
  };
  Kind kind = Kind::kNone;
  int32_t decimal_scale = 0;          // DecimalType 1
  int32_t decimal_precision = 0;      // DecimalType 2
  bool is_adjusted_to_utc = false;    // TimeType/TimestampType 1
  TimeUnit unit = TimeUnit::kMicros;  // TimeType/TimestampType 2
  int8_t bit_width = 0;               // IntType 1
  bool is_signed = true;              // IntType 2
};

struct SchemaElement {
  std::optional<Type> type;                            // 1
  std::optional<int32_t> type_length;                  // 2
  std::optional<FieldRepetitionType> repetition_type;  // 3
  std::string name;                                    // 4 (required)
  std::optional<int32_t> num_children;                 // 5
  std::optional<ConvertedType> converted_type;         // 6
  std::optional<int32_t> scale;                        // 7
  std::optional<int32_t> precision;                    // 8
  std::optional<int32_t> field_id;                     // 9
  std::optional<LogicalType> logical_type;             // 10
};

struct DataPageHeader {
  int32_t num_values = 0;                               // 1
  Encoding encoding = Encoding::kPlain;                 // 2
  Encoding definition_level_encoding = Encoding::kRle;  // 3
  Encoding repetition_level_encoding = Encoding::kRle;  // 4
  std::optional<Statistics> statistics;                 // 5
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                // 1
  Encoding encoding = Encoding::kPlain;  // 2
  std::optional<bool> is_sorted;         // 3
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::kPlain;       // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  bool is_compressed = true;                  // 7 (default true)
  std::optional<Statistics> statistics;       // 8
};

struct PageHeader {
  PageType type = PageType::kDataPage;             // 1
  int32_t uncompressed_page_size = 0;              // 2
  int32_t compressed_page_size = 0;                // 3
  std::optional<int32_t> crc;                      // 4
  std::optional<DataPageHeader> data_page_header;  // 5
  // 6 index_page_header: skipped on read, never written
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
};

struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3
};

struct ColumnMetaData {
  Type type = Type::kBoolean;                                // 1
  std::vector<Encoding> encodings;                           // 2
  std::vector<std::string> path_in_schema;                   // 3
  CompressionCodec codec = CompressionCodec::kUncompressed;  // 4
  int64_t num_values = 0;                                    // 5
  int64_t total_uncompressed_size = 0;                       // 6
  int64_t total_compressed_size = 0;                         // 7
  std::vector<KeyValue> key_value_metadata;                  // 8
  int64_t data_page_offset = 0;                              // 9
  std::optional<int64_t> index_page_offset;                  // 10
  std::optional<int64_t> dictionary_page_offset;             // 11
  std::optional<Statistics> statistics;                      // 12
  std::vector<PageEncodingStats> encoding_stats;             // 13
  std::optional<int64_t> bloom_filter_offset;                // 14
  std::optional<int32_t> bloom_filter_length;                // 15
  // 16 size_statistics, 17 geospatial_statistics: skipped on read, never written
};

struct ColumnChunk {
  std::optional<std::string> file_path;        // 1
  int64_t file_offset = 0;                     // 2
  std::optional<ColumnMetaData> meta_data;     // 3
  std::optional<int64_t> offset_index_offset;  // 4
  std::optional<int32_t> offset_index_length;  // 5
  std::optional<int64_t> column_index_offset;  // 6
  std::optional<int32_t> column_index_length;  // 7
  // 8 crypto_metadata, 9 encrypted_column_metadata: skipped (encryption is not supported)
};

struct RowGroup {
  std::vector<ColumnChunk> columns;              // 1
  int64_t total_byte_size = 0;                   // 2
  int64_t num_rows = 0;                          // 3
  std::vector<SortingColumn> sorting_columns;    // 4
  std::optional<int64_t> file_offset;            // 5
  std::optional<int64_t> total_compressed_size;  // 6
  std::optional<int16_t> ordinal;                // 7
};

/// ColumnOrder is a union whose only member is TYPE_ORDER (1, an empty struct).
struct ColumnOrder {
  bool type_defined_order = true;
};

struct FileMetaData {
  int32_t version = 1;                       // 1
  std::vector<SchemaElement> schema;         // 2
  int64_t num_rows = 0;                      // 3
  std::vector<RowGroup> row_groups;          // 4
  std::vector<KeyValue> key_value_metadata;  // 5
  std::optional<std::string> created_by;     // 6
  std::vector<ColumnOrder> column_orders;    // 7
  bool has_encryption_algorithm = false;     // 8 present (encrypted footers: not supported)
};

/// Decodes a FileMetaData from the footer bytes; kCorrupt names what was wrong and where.
Result<FileMetaData> DecodeFileMetaData(std::string_view bytes);
/// Appends the thrift compact encoding of `meta` to `out`.
void EncodeFileMetaData(const FileMetaData& meta, std::string* out);

/// Decodes one PageHeader from the front of `bytes`; `*consumed` gets its encoded length.
Result<PageHeader> DecodePageHeader(std::string_view bytes, size_t* consumed);
void EncodePageHeader(const PageHeader& header, std::string* out);

/// Statistics alone (tests and Delta checkpoints use this).
Result<Statistics> DecodeStatistics(std::string_view bytes);
void EncodeStatistics(const Statistics& stats, std::string* out);

}  // namespace cdclake::parquet::format
