// The Thrift compact protocol: CompactWriter appends encodings to a string; CompactReader
// reads a byte view with bounds, nesting-depth and list-size limits, so hostile bytes fail
// with kCorrupt (naming what was read and where) instead of crashing or allocating wildly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"

namespace cdclake::parquet::format {

/// Wire type ids of the compact protocol: the low nibble of field headers and list headers.
/// A bool field carries its value in its type (kBoolTrue / kBoolFalse). A list of bools is
/// written with element type kBoolTrue; the reader accepts kBoolTrue or kBoolFalse there.
enum class CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13,  // 16 raw bytes; newer Thrift only, accepted so it can be skipped
};

/// "i32", "struct", ... ("type 14" for values outside the enum).
std::string CompactTypeName(CompactType type);

/// True for kBoolTrue and kBoolFalse.
inline bool IsBoolType(CompactType type) {
  return type == CompactType::kBoolTrue || type == CompactType::kBoolFalse;
}

/// A field header: `type` is kStop (and `id` 0) at the end of a struct.
struct FieldHeader {
  int16_t id = 0;
  CompactType type = CompactType::kStop;
};

/// A list or set header.
struct ListHeader {
  CompactType element_type = CompactType::kStop;
  uint32_t size = 0;
};

/// A map header; the key and value types are kStop for an empty map.
struct MapHeader {
  CompactType key_type = CompactType::kStop;
  CompactType value_type = CompactType::kStop;
  uint32_t size = 0;
};

/// Appends compact-protocol bytes to a string. Writing cannot fail; misuse (a bool through
/// WriteFieldBegin, an unbalanced WriteStructEnd, a list over INT32_MAX) is a programmer error.
///
/// A struct is: WriteStructBegin, fields (WriteFieldBegin + a value, or WriteBoolField),
/// WriteFieldStop, WriteStructEnd.
class CompactWriter {
 public:
  /// REQUIRES: `out` outlives the writer.
  explicit CompactWriter(std::string* out) : out_(out) {}

  /// Enters a struct: field ids inside are delta-encoded from 0 again.
  void WriteStructBegin();
  /// Leaves a struct (does not write the stop field; call WriteFieldStop first).
  void WriteStructEnd();

  /// A field header: one byte when 0 < id - previous id <= 15, else the type byte and the id as
  /// a zigzag varint. REQUIRES: `type` is not a bool type and not kStop.
  void WriteFieldBegin(int16_t id, CompactType type);
  /// A bool field: the value travels in the header, no value bytes follow.
  void WriteBoolField(int16_t id, bool value);
  /// The stop field (one zero byte) that ends a struct.
  void WriteFieldStop();

  /// A bool as a list/set/map element (one byte: 1 true, 2 false).
  void WriteBool(bool value);
  void WriteI8(int8_t value);    // one raw byte
  void WriteI16(int16_t value);  // zigzag varint, as are i32 and i64
  void WriteI32(int32_t value);
  void WriteI64(int64_t value);
  void WriteDouble(double value);            // 8 bytes little endian
  void WriteBinary(std::string_view value);  // varint length, then the bytes

  /// A list header: one byte for up to 14 elements, else 0xF0|type and a varint size.
  /// REQUIRES: size <= INT32_MAX.
  void WriteListBegin(CompactType element_type, size_t size);
  void WriteSetBegin(CompactType element_type, size_t size);
  /// A map header: varint size, then (when size > 0) one byte key type << 4 | value type.
  void WriteMapBegin(CompactType key_type, CompactType value_type, size_t size);

  // Shorthands: a field header and its value.
  void WriteI8Field(int16_t id, int8_t value);
  void WriteI16Field(int16_t id, int16_t value);
  void WriteI32Field(int16_t id, int32_t value);
  void WriteI64Field(int16_t id, int64_t value);
  void WriteBinaryField(int16_t id, std::string_view value);

 private:
  void WriteCollectionBegin(CompactType element_type, size_t size);

  std::string* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> field_id_stack_;
};

/// Reads compact-protocol bytes from a borrowed view. Every error is kCorrupt and says what
/// was being read and at which byte offset. Nesting of structs and containers is limited to
/// kMaxDepth, and a list, set or map may not announce more elements than its remaining bytes
/// could hold, so no input recurses without bound or makes a caller allocate absurd amounts.
/// (Structs count against the depth limit always; lists, sets and maps while being skipped.)
/// After an error the reader's state is unspecified: report the error and drop the reader.
class CompactReader {
 public:
  static constexpr int kMaxDepth = 64;

  /// REQUIRES: the bytes behind `data` outlive the reader and the views it returns.
  explicit CompactReader(std::string_view data) : in_(data) {}

  size_t position() const { return in_.position(); }
  size_t remaining() const { return in_.remaining(); }

  /// Enters a struct: checks the depth limit and starts field-id deltas from 0.
  Status ReadStructBegin();
  /// Leaves a struct entered with ReadStructBegin (after its stop field was read).
  Status ReadStructEnd();

  /// The next field header; `type` kStop at the end of the struct. After a bool field header,
  /// ReadBool returns its value without reading bytes.
  Result<FieldHeader> ReadFieldHeader();

  /// The value of the bool field whose header was just read, or else one bool list element.
  Result<bool> ReadBool();
  Result<int8_t> ReadI8();
  Result<int16_t> ReadI16();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<double> ReadDouble();
  /// A view into the input (no copy).
  Result<std::string_view> ReadBinary();

  /// List and set headers; the size is checked against the bytes that remain. An empty list
  /// may carry any element type (some writers leave it 0).
  Result<ListHeader> ReadListBegin();
  Result<ListHeader> ReadSetBegin();
  Result<MapHeader> ReadMapBegin();

  /// Skips the value of a field of wire type `type` (bool fields: nothing to read), including
  /// nested structs, lists, sets and maps, within the depth limit.
  Status Skip(CompactType type);

 private:
  Status SkipValue(CompactType type, bool in_container);
  Status SkipStruct();
  Status EnterNesting(size_t offset, std::string_view what);
  Result<uint64_t> ReadVarint(std::string_view what, int bits);
  Result<int64_t> ReadZigZag(std::string_view what, int bits);
  Result<ListHeader> ReadCollectionBegin(std::string_view what);
  Result<bool> ReadBoolByte();
  Status Corrupt(size_t offset, std::string_view what, std::string_view detail) const;

  ByteReader in_;
  int depth_ = 0;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> field_id_stack_;
  std::optional<bool> pending_bool_;
};

}  // namespace cdclake::parquet::format
