// The Thrift compact protocol writer and reader, as Apache Thrift's
// doc/specs/thrift-compact-protocol.md describes it.
#include "parquet/format/compact_protocol.h"

#include <cassert>
#include <cstring>
#include <limits>

namespace cdclake::parquet::format {
namespace {

constexpr uint8_t kLongFormListSize = 15;  // the size nibble that says "a varint follows"

bool IsValueType(uint8_t t) {
  return t >= 1 && t <= 13;
}

// The fewest bytes one element of `type` can take on the wire; bounds announced sizes.
size_t MinEncodedSize(CompactType type) {
  switch (type) {
    case CompactType::kDouble:
      return 8;
    case CompactType::kUuid:
      return 16;
    default:
      return 1;
  }
}

}  // namespace

std::string CompactTypeName(CompactType type) {
  switch (type) {
    case CompactType::kStop:
      return "stop";
    case CompactType::kBoolTrue:
      return "bool(true)";
    case CompactType::kBoolFalse:
      return "bool(false)";
    case CompactType::kI8:
      return "i8";
    case CompactType::kI16:
      return "i16";
    case CompactType::kI32:
      return "i32";
    case CompactType::kI64:
      return "i64";
    case CompactType::kDouble:
      return "double";
    case CompactType::kBinary:
      return "binary";
    case CompactType::kList:
      return "list";
    case CompactType::kSet:
      return "set";
    case CompactType::kMap:
      return "map";
    case CompactType::kStruct:
      return "struct";
    case CompactType::kUuid:
      return "uuid";
  }
  return "type " + std::to_string(static_cast<int>(type));
}

// ---------------------------------------------------------------------------------------------
// CompactWriter

void CompactWriter::WriteStructBegin() {
  field_id_stack_.push_back(last_field_id_);
  last_field_id_ = 0;
}

void CompactWriter::WriteStructEnd() {
  assert(!field_id_stack_.empty() && "WriteStructEnd without WriteStructBegin");
  if (field_id_stack_.empty()) return;
  last_field_id_ = field_id_stack_.back();
  field_id_stack_.pop_back();
}

void CompactWriter::WriteFieldBegin(int16_t id, CompactType type) {
  assert(type != CompactType::kStop && "use WriteFieldStop");
  auto type_bits = static_cast<uint8_t>(type);
  int32_t delta = static_cast<int32_t>(id) - last_field_id_;
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | type_bits));
  } else {
    out_->push_back(static_cast<char>(type_bits));
    AppendVarint(out_, ZigZagEncode(id));
  }
  last_field_id_ = id;
}

void CompactWriter::WriteBoolField(int16_t id, bool value) {
  WriteFieldBegin(id, value ? CompactType::kBoolTrue : CompactType::kBoolFalse);
}

void CompactWriter::WriteFieldStop() {
  out_->push_back('\0');
}

void CompactWriter::WriteBool(bool value) {
  out_->push_back(static_cast<char>(value ? CompactType::kBoolTrue : CompactType::kBoolFalse));
}

void CompactWriter::WriteI8(int8_t value) {
  out_->push_back(static_cast<char>(value));
}
void CompactWriter::WriteI16(int16_t value) {
  AppendVarint(out_, ZigZagEncode(value));
}
void CompactWriter::WriteI32(int32_t value) {
  AppendVarint(out_, ZigZagEncode(value));
}
void CompactWriter::WriteI64(int64_t value) {
  AppendVarint(out_, ZigZagEncode(value));
}
void CompactWriter::WriteDouble(double value) {
  AppendLE(out_, value);
}

void CompactWriter::WriteBinary(std::string_view value) {
  AppendVarint(out_, value.size());
  out_->append(value);
}

void CompactWriter::WriteCollectionBegin(CompactType element_type, size_t size) {
  assert(size <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  auto type_bits = static_cast<uint8_t>(element_type);
  if (size < kLongFormListSize) {
    out_->push_back(static_cast<char>((size << 4) | type_bits));
  } else {
    out_->push_back(static_cast<char>((kLongFormListSize << 4) | type_bits));
    AppendVarint(out_, size);
  }
}

void CompactWriter::WriteListBegin(CompactType element_type, size_t size) {
  WriteCollectionBegin(element_type, size);
}

void CompactWriter::WriteSetBegin(CompactType element_type, size_t size) {
  WriteCollectionBegin(element_type, size);
}

void CompactWriter::WriteMapBegin(CompactType key_type, CompactType value_type, size_t size) {
  assert(size <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
  AppendVarint(out_, size);
  if (size > 0) {
    out_->push_back(static_cast<char>((static_cast<uint8_t>(key_type) << 4) |
                                      static_cast<uint8_t>(value_type)));
  }
}

void CompactWriter::WriteI8Field(int16_t id, int8_t value) {
  WriteFieldBegin(id, CompactType::kI8);
  WriteI8(value);
}

void CompactWriter::WriteI16Field(int16_t id, int16_t value) {
  WriteFieldBegin(id, CompactType::kI16);
  WriteI16(value);
}

void CompactWriter::WriteI32Field(int16_t id, int32_t value) {
  WriteFieldBegin(id, CompactType::kI32);
  WriteI32(value);
}

void CompactWriter::WriteI64Field(int16_t id, int64_t value) {
  WriteFieldBegin(id, CompactType::kI64);
  WriteI64(value);
}

void CompactWriter::WriteBinaryField(int16_t id, std::string_view value) {
  WriteFieldBegin(id, CompactType::kBinary);
  WriteBinary(value);
}

// ---------------------------------------------------------------------------------------------
// CompactReader

Status CompactReader::Corrupt(size_t offset, std::string_view what, std::string_view detail) const {
  std::string msg(what);
  msg += " at offset ";
  msg += std::to_string(offset);
  msg += ": ";
  msg += detail;
  return Status::Corrupt(std::move(msg));
}

Status CompactReader::EnterNesting(size_t offset, std::string_view what) {
  if (depth_ >= kMaxDepth) {
    return Corrupt(offset, what,
                   "nesting deeper than " + std::to_string(kMaxDepth) + " structs and containers");
  }
  ++depth_;
  return Status::OK();
}

Status CompactReader::ReadStructBegin() {
  CDCLAKE_RETURN_IF_ERROR(EnterNesting(position(), "struct"));
  field_id_stack_.push_back(last_field_id_);
  last_field_id_ = 0;
  return Status::OK();
}

Status CompactReader::ReadStructEnd() {
  if (field_id_stack_.empty()) {
    return Status::Internal("ReadStructEnd without ReadStructBegin at offset " +
                            std::to_string(position()));
  }
  last_field_id_ = field_id_stack_.back();
  field_id_stack_.pop_back();
  --depth_;
  pending_bool_.reset();
  return Status::OK();
}

Result<uint64_t> CompactReader::ReadVarint(std::string_view what, int bits) {
  size_t start = position();
  auto v = in_.ReadVarint();
  if (!v.ok())
    return v.status().WithContext(std::string(what) + " at offset " + std::to_string(start));
  if (bits < 64 && (*v >> bits) != 0) {
    return Corrupt(start, what,
                   "varint " + std::to_string(*v) + " exceeds " + std::to_string(bits) + " bits");
  }
  return *v;
}

Result<int64_t> CompactReader::ReadZigZag(std::string_view what, int bits) {
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint(what, bits));
  return ZigZagDecode(raw);
}

Result<FieldHeader> CompactReader::ReadFieldHeader() {
  pending_bool_.reset();
  size_t start = position();
  auto byte_or = in_.ReadByte();
  if (!byte_or.ok()) {
    return byte_or.status().WithContext("field header at offset " + std::to_string(start));
  }
  uint8_t byte = *byte_or;
  uint8_t type_bits = byte & 0x0F;
  uint8_t delta = byte >> 4;
  FieldHeader header;
  if (type_bits == 0) {
    if (delta != 0) {
      return Corrupt(start, "field header", "stop byte with a nonzero field delta");
    }
    return header;  // stop
  }
  if (!IsValueType(type_bits)) {
    return Corrupt(start, "field header", "unknown type " + std::to_string(type_bits));
  }
  header.type = static_cast<CompactType>(type_bits);
  if (delta != 0) {
    int32_t id = static_cast<int32_t>(last_field_id_) + delta;
    if (id > std::numeric_limits<int16_t>::max()) {
      return Corrupt(start, "field header", "field id overflows i16");
    }
    header.id = static_cast<int16_t>(id);
  } else {
    CDCLAKE_ASSIGN_OR_RETURN(int64_t id, ReadZigZag("field id", 16));
    header.id = static_cast<int16_t>(id);
  }
  last_field_id_ = header.id;
  if (IsBoolType(header.type)) pending_bool_ = header.type == CompactType::kBoolTrue;
  return header;
}

Result<bool> CompactReader::ReadBoolByte() {
  size_t start = position();
  auto byte = in_.ReadByte();
  if (!byte.ok()) return byte.status().WithContext("bool at offset " + std::to_string(start));
  switch (*byte) {
    case 1:
      return true;
    case 0:  // older writers used 0 for false
    case 2:
      return false;
    default:
      return Corrupt(start, "bool", "byte " + std::to_string(*byte) + " is not 0, 1 or 2");
  }
}

Result<bool> CompactReader::ReadBool() {
  if (pending_bool_.has_value()) {
    bool v = *pending_bool_;
    pending_bool_.reset();
    return v;
  }
  return ReadBoolByte();
}

Result<int8_t> CompactReader::ReadI8() {
  size_t start = position();
  auto byte = in_.ReadByte();
  if (!byte.ok()) return byte.status().WithContext("i8 at offset " + std::to_string(start));
  return static_cast<int8_t>(*byte);
}

Result<int16_t> CompactReader::ReadI16() {
  CDCLAKE_ASSIGN_OR_RETURN(int64_t v, ReadZigZag("i16", 16));
  return static_cast<int16_t>(v);
}

Result<int32_t> CompactReader::ReadI32() {
  CDCLAKE_ASSIGN_OR_RETURN(int64_t v, ReadZigZag("i32", 32));
  return static_cast<int32_t>(v);
}

Result<int64_t> CompactReader::ReadI64() {
  return ReadZigZag("i64", 64);
}

Result<double> CompactReader::ReadDouble() {
  size_t start = position();
  auto v = in_.ReadLE<double>();
  if (!v.ok()) return v.status().WithContext("double at offset " + std::to_string(start));
  return *v;
}

Result<std::string_view> CompactReader::ReadBinary() {
  size_t start = position();
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t length, ReadVarint("binary length", 64));
  if (length > remaining()) {
    return Corrupt(start, "binary",
                   "length " + std::to_string(length) + " exceeds the " +
                       std::to_string(remaining()) + " bytes that remain");
  }
  auto bytes = in_.ReadBytes(static_cast<size_t>(length));
  if (!bytes.ok()) return bytes.status().WithContext("binary at offset " + std::to_string(start));
  return *bytes;
}

Result<ListHeader> CompactReader::ReadCollectionBegin(std::string_view what) {
  size_t start = position();
  auto byte_or = in_.ReadByte();
  if (!byte_or.ok()) {
    return byte_or.status().WithContext(std::string(what) + " header at offset " +
                                        std::to_string(start));
  }
  uint8_t type_bits = *byte_or & 0x0F;
  uint64_t size = *byte_or >> 4;
  if (size == kLongFormListSize) {
    CDCLAKE_ASSIGN_OR_RETURN(size, ReadVarint(std::string(what) + " size", 31));
  }
  ListHeader header;
  header.element_type = static_cast<CompactType>(type_bits);
  header.size = static_cast<uint32_t>(size);
  if (size == 0) return header;  // some writers leave the element type of empty lists at 0
  if (!IsValueType(type_bits)) {
    return Corrupt(start, what, "unknown element type " + std::to_string(type_bits));
  }
  if (size > remaining() / MinEncodedSize(header.element_type)) {
    return Corrupt(start, what,
                   std::to_string(size) + " elements of type " +
                       CompactTypeName(header.element_type) + " cannot fit in the " +
                       std::to_string(remaining()) + " bytes that remain");
  }
  return header;
}

Result<ListHeader> CompactReader::ReadListBegin() {
  return ReadCollectionBegin("list");
}
Result<ListHeader> CompactReader::ReadSetBegin() {
  return ReadCollectionBegin("set");
}

Result<MapHeader> CompactReader::ReadMapBegin() {
  size_t start = position();
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, ReadVarint("map size", 31));
  MapHeader header;
  header.size = static_cast<uint32_t>(size);
  if (size == 0) return header;
  auto byte_or = in_.ReadByte();
  if (!byte_or.ok()) {
    return byte_or.status().WithContext("map types at offset " + std::to_string(start));
  }
  uint8_t key_bits = *byte_or >> 4;
  uint8_t value_bits = *byte_or & 0x0F;
  if (!IsValueType(key_bits) || !IsValueType(value_bits)) {
    return Corrupt(
        start, "map",
        "unknown key/value types " + std::to_string(key_bits) + "/" + std::to_string(value_bits));
  }
  header.key_type = static_cast<CompactType>(key_bits);
  header.value_type = static_cast<CompactType>(value_bits);
  size_t entry = MinEncodedSize(header.key_type) + MinEncodedSize(header.value_type);
  if (size > remaining() / entry) {
    return Corrupt(start, "map",
                   std::to_string(size) + " entries cannot fit in the " +
                       std::to_string(remaining()) + " bytes that remain");
  }
  return header;
}

Status CompactReader::Skip(CompactType type) {
  if (IsBoolType(type)) {
    pending_bool_.reset();
    return Status::OK();
  }
  return SkipValue(type, /*in_container=*/false);
}

Status CompactReader::SkipStruct() {
  CDCLAKE_RETURN_IF_ERROR(ReadStructBegin());
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(FieldHeader field, ReadFieldHeader());
    if (field.type == CompactType::kStop) break;
    CDCLAKE_RETURN_IF_ERROR(Skip(field.type));
  }
  return ReadStructEnd();
}

Status CompactReader::SkipValue(CompactType type, bool in_container) {
  size_t start = position();
  switch (type) {
    case CompactType::kBoolTrue:
    case CompactType::kBoolFalse:
      if (!in_container) return Status::OK();
      return ReadBoolByte().status();
    case CompactType::kI8:
      return ReadI8().status();
    case CompactType::kI16:
      return ReadI16().status();
    case CompactType::kI32:
      return ReadI32().status();
    case CompactType::kI64:
      return ReadI64().status();
    case CompactType::kDouble:
      return ReadDouble().status();
    case CompactType::kBinary:
      return ReadBinary().status();
    case CompactType::kUuid: {
      Status s = in_.Skip(16);
      if (!s.ok()) return s.WithContext("uuid at offset " + std::to_string(start));
      return s;
    }
    case CompactType::kStruct:
      return SkipStruct();
    case CompactType::kList:
    case CompactType::kSet: {
      std::string_view what = type == CompactType::kList ? "list" : "set";
      CDCLAKE_ASSIGN_OR_RETURN(ListHeader header, ReadCollectionBegin(what));
      CDCLAKE_RETURN_IF_ERROR(EnterNesting(start, what));
      for (uint32_t i = 0; i < header.size; ++i) {
        Status s = SkipValue(header.element_type, /*in_container=*/true);
        if (!s.ok()) {
          --depth_;
          return s;
        }
      }
      --depth_;
      return Status::OK();
    }
    case CompactType::kMap: {
      CDCLAKE_ASSIGN_OR_RETURN(MapHeader header, ReadMapBegin());
      CDCLAKE_RETURN_IF_ERROR(EnterNesting(start, "map"));
      for (uint32_t i = 0; i < header.size; ++i) {
        Status s = SkipValue(header.key_type, /*in_container=*/true);
        if (s.ok()) s = SkipValue(header.value_type, /*in_container=*/true);
        if (!s.ok()) {
          --depth_;
          return s;
        }
      }
      --depth_;
      return Status::OK();
    }
    case CompactType::kStop:
      break;
  }
  return Corrupt(start, "value", "cannot skip a value of " + CompactTypeName(type));
}

}  // namespace cdclake::parquet::format
