// Encoding and decoding of the parquet.thrift metadata structs in the Thrift compact protocol,
// by their parquet.thrift field ids. Decoders are tables of FieldSpecs (id, name, target);
// unknown fields are skipped, missing required fields are kCorrupt.
#include "parquet/format/parquet_types.h"

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parquet/format/compact_protocol.h"

namespace cdclake::parquet::format {
namespace {

using CT = CompactType;

// ---------------------------------------------------------------------------------------------
// Decoding: values. Errors name the offset; the struct decoder adds which field it was.

// `context` put in front of an error: "RowGroup.columns" + "[3]: ..." or "X" + ": ...".
Status Within(const Status& s, std::string_view context) {
  if (s.ok()) return s;
  std::string msg(context);
  if (s.message().empty() || s.message().front() != '[') msg += ": ";
  msg += s.message();
  return Status(s.code(), std::move(msg));
}

// The name of an expected type; kBoolTrue stands for "either bool".
std::string Wanted(CT want) {
  return want == CT::kBoolTrue ? "bool" : CompactTypeName(want);
}

Status Expect(const CompactReader& r, const FieldHeader& f, CT want) {
  if (want == CT::kBoolTrue ? IsBoolType(f.type) : f.type == want) return Status::OK();
  return Status::Corrupt("expected " + Wanted(want) + ", found " + CompactTypeName(f.type) +
                         " (field " + std::to_string(f.id) + ", before offset " +
                         std::to_string(r.position()) + ")");
}

template <typename T>
Status ReadScalar(CompactReader& r, const FieldHeader& f, CT want,
                  Result<T> (CompactReader::*read)(), T* out) {
  CDCLAKE_RETURN_IF_ERROR(Expect(r, f, want));
  CDCLAKE_ASSIGN_OR_RETURN(*out, (r.*read)());
  return Status::OK();
}

Status ReadValue(CompactReader& r, const FieldHeader& f, bool* out) {
  return ReadScalar(r, f, CT::kBoolTrue, &CompactReader::ReadBool, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, int8_t* out) {
  return ReadScalar(r, f, CT::kI8, &CompactReader::ReadI8, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, int16_t* out) {
  return ReadScalar(r, f, CT::kI16, &CompactReader::ReadI16, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, int32_t* out) {
  return ReadScalar(r, f, CT::kI32, &CompactReader::ReadI32, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, int64_t* out) {
  return ReadScalar(r, f, CT::kI64, &CompactReader::ReadI64, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, std::string* out) {
  std::string_view v;
  CDCLAKE_RETURN_IF_ERROR(ReadScalar(r, f, CT::kBinary, &CompactReader::ReadBinary, &v));
  out->assign(v.data(), v.size());
  return Status::OK();
}

// Enums travel as i32. Type, FieldRepetitionType and PageType must be values this library
// knows; Encoding, ConvertedType and CompressionCodec keep any value for the reader to judge.
template <typename E>
Status ReadEnum(CompactReader& r, const FieldHeader& f, int32_t lo, int32_t hi, E* out) {
  int32_t v = 0;
  CDCLAKE_RETURN_IF_ERROR(ReadValue(r, f, &v));
  if (v < lo || v > hi) {
    return Status::Corrupt("unknown value " + std::to_string(v) + " (before offset " +
                           std::to_string(r.position()) + ")");
  }
  *out = static_cast<E>(v);
  return Status::OK();
}

constexpr int32_t kAnyLo = std::numeric_limits<int32_t>::min();
constexpr int32_t kAnyHi = std::numeric_limits<int32_t>::max();

Status ReadValue(CompactReader& r, const FieldHeader& f, Type* out) {
  return ReadEnum(r, f, 0, 7, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, FieldRepetitionType* out) {
  return ReadEnum(r, f, 0, 2, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, PageType* out) {
  return ReadEnum(r, f, 0, 3, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, Encoding* out) {
  return ReadEnum(r, f, kAnyLo, kAnyHi, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, ConvertedType* out) {
  return ReadEnum(r, f, kAnyLo, kAnyHi, out);
}
Status ReadValue(CompactReader& r, const FieldHeader& f, CompressionCodec* out) {
  return ReadEnum(r, f, kAnyLo, kAnyHi, out);
}

// Struct decoders, declared here so the templates below can call them.
Status Decode(CompactReader& r, Statistics* out);
Status Decode(CompactReader& r, LogicalType* out);
Status Decode(CompactReader& r, SchemaElement* out);
Status Decode(CompactReader& r, DataPageHeader* out);
Status Decode(CompactReader& r, DictionaryPageHeader* out);
Status Decode(CompactReader& r, DataPageHeaderV2* out);
Status Decode(CompactReader& r, PageHeader* out);
Status Decode(CompactReader& r, KeyValue* out);
Status Decode(CompactReader& r, SortingColumn* out);
Status Decode(CompactReader& r, PageEncodingStats* out);
Status Decode(CompactReader& r, ColumnMetaData* out);
Status Decode(CompactReader& r, ColumnChunk* out);
Status Decode(CompactReader& r, RowGroup* out);
Status Decode(CompactReader& r, ColumnOrder* out);
Status Decode(CompactReader& r, FileMetaData* out);

template <typename T>
concept ThriftStruct = requires(CompactReader& r, T* p) {
  { Decode(r, p) } -> std::same_as<Status>;
};

template <ThriftStruct T>
Status ReadValue(CompactReader& r, const FieldHeader& f, T* out) {
  CDCLAKE_RETURN_IF_ERROR(Expect(r, f, CT::kStruct));
  *out = T{};
  return Decode(r, out);
}

template <typename T>
Status ReadValue(CompactReader& r, const FieldHeader& f, std::optional<T>* out) {
  T v{};
  CDCLAKE_RETURN_IF_ERROR(ReadValue(r, f, &v));
  *out = std::move(v);
  return Status::OK();
}

// List elements: the wire type of each element type, and how to read one.
template <typename T>
constexpr CT kElementType = CT::kStruct;
template <>
constexpr CT kElementType<Encoding> = CT::kI32;
template <>
constexpr CT kElementType<std::string> = CT::kBinary;

Status ReadElement(CompactReader& r, Encoding* out) {
  CDCLAKE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
  *out = static_cast<Encoding>(v);
  return Status::OK();
}
Status ReadElement(CompactReader& r, std::string* out) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string_view v, r.ReadBinary());
  out->assign(v.data(), v.size());
  return Status::OK();
}
template <ThriftStruct T>
Status ReadElement(CompactReader& r, T* out) {
  return Decode(r, out);
}

// A list. The reader bounds the announced size by the bytes that remain, and the vector grows
// with the elements actually read, never by the announced size alone.
template <typename T>
Status ReadValue(CompactReader& r, const FieldHeader& f, std::vector<T>* out) {
  CDCLAKE_RETURN_IF_ERROR(Expect(r, f, CT::kList));
  CDCLAKE_ASSIGN_OR_RETURN(ListHeader header, r.ReadListBegin());
  if (header.size > 0 && header.element_type != kElementType<T>) {
    return Status::Corrupt("expected a list of " + Wanted(kElementType<T>) + ", found a list of " +
                           CompactTypeName(header.element_type) + " (before offset " +
                           std::to_string(r.position()) + ")");
  }
  out->clear();
  out->reserve(std::min<size_t>(header.size, 1024));
  for (uint32_t i = 0; i < header.size; ++i) {
    T element{};
    Status s = ReadElement(r, &element);
    if (!s.ok()) return Within(s, "[" + std::to_string(i) + "]");
    out->push_back(std::move(element));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Decoding: structs, as tables of fields.

// One field of a struct being decoded: its id and name, whether thrift requires it, where its
// value goes and the function that reads it there.
struct FieldSpec {
  int16_t id;
  std::string_view name;
  bool required;
  void* target;
  Status (*read)(CompactReader& r, const FieldHeader& f, void* target);
};

template <typename T>
Status ReadInto(CompactReader& r, const FieldHeader& f, void* target) {
  return ReadValue(r, f, static_cast<T*>(target));
}

template <typename T>
FieldSpec Req(int16_t id, std::string_view name, T* target) {
  return {id, name, true, target, &ReadInto<T>};
}

template <typename T>
FieldSpec Opt(int16_t id, std::string_view name, T* target) {
  return {id, name, false, target, &ReadInto<T>};
}

// Reads one struct: each field goes to its spec, unknown fields are skipped, and every required
// field must have been met.
Status DecodeFields(CompactReader& r, std::string_view struct_name,
                    std::initializer_list<FieldSpec> fields) {
  assert(fields.size() <= 64);
  uint64_t seen = 0;  // bit i: fields[i] was read
  CDCLAKE_RETURN_IF_ERROR(Within(r.ReadStructBegin(), struct_name));
  while (true) {
    auto header = r.ReadFieldHeader();
    if (!header.ok()) return Within(header.status(), struct_name);
    if (header->type == CT::kStop) break;
    size_t i = 0;
    for (const FieldSpec& spec : fields) {
      if (spec.id == header->id) break;
      ++i;
    }
    if (i == fields.size()) {
      Status s = r.Skip(header->type);
      if (!s.ok()) {
        return Within(s, std::string(struct_name) + " unknown field " + std::to_string(header->id));
      }
      continue;
    }
    const FieldSpec& spec = fields.begin()[i];
    Status s = spec.read(r, *header, spec.target);
    if (!s.ok()) return Within(s, std::string(struct_name) + "." + std::string(spec.name));
    seen |= uint64_t{1} << i;
  }
  size_t i = 0;
  for (const FieldSpec& spec : fields) {
    if (spec.required && (seen & (uint64_t{1} << i)) == 0) {
      return Status::Corrupt(std::string(struct_name) + ": required field " +
                             std::string(spec.name) + " (" + std::to_string(spec.id) +
                             ") is missing (struct ends at offset " + std::to_string(r.position()) +
                             ")");
    }
    ++i;
  }
  return Within(r.ReadStructEnd(), struct_name);
}

Status Decode(CompactReader& r, Statistics* out) {
  return DecodeFields(
      r, "Statistics",
      {Opt(1, "max", &out->max), Opt(2, "min", &out->min), Opt(3, "null_count", &out->null_count),
       Opt(4, "distinct_count", &out->distinct_count), Opt(5, "max_value", &out->max_value),
       Opt(6, "min_value", &out->min_value), Opt(7, "is_max_value_exact", &out->is_max_value_exact),
       Opt(8, "is_min_value_exact", &out->is_min_value_exact)});
}

// An empty struct (StringType, DateType, MicroSeconds, TypeDefinedOrder, ...); fields a newer
// writer may have added are skipped.
Status SkipEmptyStruct(CompactReader& r, const FieldHeader& f) {
  CDCLAKE_RETURN_IF_ERROR(Expect(r, f, CT::kStruct));
  return r.Skip(CT::kStruct);
}

// Reads a one-member union: `on_member` handles the member (or skips an unknown one). An empty
// union leaves `*members` 0; more than one member is kCorrupt.
template <typename OnMember>
Status DecodeUnion(CompactReader& r, std::string_view union_name, int* members,
                   OnMember&& on_member) {
  *members = 0;
  CDCLAKE_RETURN_IF_ERROR(Within(r.ReadStructBegin(), union_name));
  while (true) {
    auto header = r.ReadFieldHeader();
    if (!header.ok()) return Within(header.status(), union_name);
    if (header->type == CT::kStop) break;
    if (++*members > 1) {
      return Status::Corrupt(std::string(union_name) + ": a union with more than one member (" +
                             std::to_string(header->id) + ", before offset " +
                             std::to_string(r.position()) + ")");
    }
    Status s = on_member(*header);
    if (!s.ok()) {
      return Within(s, std::string(union_name) + " member " + std::to_string(header->id));
    }
  }
  return Within(r.ReadStructEnd(), union_name);
}

// TimeUnit: a union of empty structs MILLIS (1), MICROS (2), NANOS (3). An unknown member
// leaves `*unit` empty.
Status ReadTimeUnit(CompactReader& r, const FieldHeader& f, void* target) {
  auto* unit = static_cast<std::optional<TimeUnit>*>(target);
  CDCLAKE_RETURN_IF_ERROR(Expect(r, f, CT::kStruct));
  int members = 0;
  CDCLAKE_RETURN_IF_ERROR(DecodeUnion(r, "TimeUnit", &members, [&](const FieldHeader& m) {
    if (m.id < 1 || m.id > 3) return r.Skip(m.type);
    *unit = static_cast<TimeUnit>(m.id);
    return SkipEmptyStruct(r, m);
  }));
  if (members == 0) {
    return Status::Corrupt("TimeUnit: an empty union (before offset " +
                           std::to_string(r.position()) + ")");
  }
  return Status::OK();
}

// The members of LogicalType that hold fields: DecimalType, TimeType/TimestampType, IntType.
Status DecodeLogicalMember(CompactReader& r, const FieldHeader& m, LogicalType* out) {
  using Kind = LogicalType::Kind;
  switch (m.id) {
    case 5:
      CDCLAKE_RETURN_IF_ERROR(Expect(r, m, CT::kStruct));
      return DecodeFields(
          r, "DecimalType",
          {Req(1, "scale", &out->decimal_scale), Req(2, "precision", &out->decimal_precision)});
    case 7:
    case 8: {
      CDCLAKE_RETURN_IF_ERROR(Expect(r, m, CT::kStruct));
      std::optional<TimeUnit> unit;
      CDCLAKE_RETURN_IF_ERROR(DecodeFields(r, m.id == 7 ? "TimeType" : "TimestampType",
                                           {Req(1, "isAdjustedToUTC", &out->is_adjusted_to_utc),
                                            FieldSpec{2, "unit", true, &unit, &ReadTimeUnit}}));
      if (unit.has_value()) {
        out->unit = *unit;
      } else {
        out->kind = Kind::kOther;  // a time unit this reader does not know
      }
      return Status::OK();
    }
    case 10:
      CDCLAKE_RETURN_IF_ERROR(Expect(r, m, CT::kStruct));
      return DecodeFields(
          r, "IntType", {Req(1, "bitWidth", &out->bit_width), Req(2, "isSigned", &out->is_signed)});
    default:
      return SkipEmptyStruct(r, m);
  }
}

// LogicalType is a union; `kind` is the member's id. An empty union decodes as kNone, a member
// this reader does not know as kOther.
Status Decode(CompactReader& r, LogicalType* out) {
  using Kind = LogicalType::Kind;
  int members = 0;
  return DecodeUnion(r, "LogicalType", &members, [&](const FieldHeader& m) {
    bool known = m.id >= 1 && m.id <= 15 && m.id != 9;  // 9 is reserved (INTERVAL)
    if (!known) {
      out->kind = Kind::kOther;
      return r.Skip(m.type);
    }
    out->kind = static_cast<Kind>(m.id);
    return DecodeLogicalMember(r, m, out);
  });
}

Status Decode(CompactReader& r, SchemaElement* out) {
  return DecodeFields(
      r, "SchemaElement",
      {Opt(1, "type", &out->type), Opt(2, "type_length", &out->type_length),
       Opt(3, "repetition_type", &out->repetition_type), Req(4, "name", &out->name),
       Opt(5, "num_children", &out->num_children), Opt(6, "converted_type", &out->converted_type),
       Opt(7, "scale", &out->scale), Opt(8, "precision", &out->precision),
       Opt(9, "field_id", &out->field_id), Opt(10, "logicalType", &out->logical_type)});
}

Status Decode(CompactReader& r, DataPageHeader* out) {
  return DecodeFields(r, "DataPageHeader",
                      {Req(1, "num_values", &out->num_values), Req(2, "encoding", &out->encoding),
                       Req(3, "definition_level_encoding", &out->definition_level_encoding),
                       Req(4, "repetition_level_encoding", &out->repetition_level_encoding),
                       Opt(5, "statistics", &out->statistics)});
}

Status Decode(CompactReader& r, DictionaryPageHeader* out) {
  return DecodeFields(r, "DictionaryPageHeader",
                      {Req(1, "num_values", &out->num_values), Req(2, "encoding", &out->encoding),
                       Opt(3, "is_sorted", &out->is_sorted)});
}

Status Decode(CompactReader& r, DataPageHeaderV2* out) {
  return DecodeFields(
      r, "DataPageHeaderV2",
      {Req(1, "num_values", &out->num_values), Req(2, "num_nulls", &out->num_nulls),
       Req(3, "num_rows", &out->num_rows), Req(4, "encoding", &out->encoding),
       Req(5, "definition_levels_byte_length", &out->definition_levels_byte_length),
       Req(6, "repetition_levels_byte_length", &out->repetition_levels_byte_length),
       Opt(7, "is_compressed", &out->is_compressed), Opt(8, "statistics", &out->statistics)});
}

// 6 index_page_header is skipped as an unknown field.
Status Decode(CompactReader& r, PageHeader* out) {
  return DecodeFields(
      r, "PageHeader",
      {Req(1, "type", &out->type), Req(2, "uncompressed_page_size", &out->uncompressed_page_size),
       Req(3, "compressed_page_size", &out->compressed_page_size), Opt(4, "crc", &out->crc),
       Opt(5, "data_page_header", &out->data_page_header),
       Opt(7, "dictionary_page_header", &out->dictionary_page_header),
       Opt(8, "data_page_header_v2", &out->data_page_header_v2)});
}

Status Decode(CompactReader& r, KeyValue* out) {
  return DecodeFields(r, "KeyValue", {Req(1, "key", &out->key), Opt(2, "value", &out->value)});
}

Status Decode(CompactReader& r, SortingColumn* out) {
  return DecodeFields(
      r, "SortingColumn",
      {Req(1, "column_idx", &out->column_idx), Req(2, "descending", &out->descending),
       Req(3, "nulls_first", &out->nulls_first)});
}

Status Decode(CompactReader& r, PageEncodingStats* out) {
  return DecodeFields(r, "PageEncodingStats",
                      {Req(1, "page_type", &out->page_type), Req(2, "encoding", &out->encoding),
                       Req(3, "count", &out->count)});
}

// 16 size_statistics and 17 geospatial_statistics are skipped as unknown fields.
Status Decode(CompactReader& r, ColumnMetaData* out) {
  return DecodeFields(
      r, "ColumnMetaData",
      {Req(1, "type", &out->type), Req(2, "encodings", &out->encodings),
       Req(3, "path_in_schema", &out->path_in_schema), Req(4, "codec", &out->codec),
       Req(5, "num_values", &out->num_values),
       Req(6, "total_uncompressed_size", &out->total_uncompressed_size),
       Req(7, "total_compressed_size", &out->total_compressed_size),
       Opt(8, "key_value_metadata", &out->key_value_metadata),
       Req(9, "data_page_offset", &out->data_page_offset),
       Opt(10, "index_page_offset", &out->index_page_offset),
       Opt(11, "dictionary_page_offset", &out->dictionary_page_offset),
       Opt(12, "statistics", &out->statistics), Opt(13, "encoding_stats", &out->encoding_stats),
       Opt(14, "bloom_filter_offset", &out->bloom_filter_offset),
       Opt(15, "bloom_filter_length", &out->bloom_filter_length)});
}

// 8 crypto_metadata and 9 encrypted_column_metadata are skipped as unknown fields.
Status Decode(CompactReader& r, ColumnChunk* out) {
  return DecodeFields(
      r, "ColumnChunk",
      {Opt(1, "file_path", &out->file_path), Req(2, "file_offset", &out->file_offset),
       Opt(3, "meta_data", &out->meta_data),
       Opt(4, "offset_index_offset", &out->offset_index_offset),
       Opt(5, "offset_index_length", &out->offset_index_length),
       Opt(6, "column_index_offset", &out->column_index_offset),
       Opt(7, "column_index_length", &out->column_index_length)});
}

Status Decode(CompactReader& r, RowGroup* out) {
  return DecodeFields(
      r, "RowGroup",
      {Req(1, "columns", &out->columns), Req(2, "total_byte_size", &out->total_byte_size),
       Req(3, "num_rows", &out->num_rows), Opt(4, "sorting_columns", &out->sorting_columns),
       Opt(5, "file_offset", &out->file_offset),
       Opt(6, "total_compressed_size", &out->total_compressed_size),
       Opt(7, "ordinal", &out->ordinal)});
}

// ColumnOrder is a union whose only known member is TYPE_ORDER (1). Any other member, or none,
// leaves type_defined_order false: min/max of that column follow an order this reader lacks.
Status Decode(CompactReader& r, ColumnOrder* out) {
  out->type_defined_order = false;
  int members = 0;
  return DecodeUnion(r, "ColumnOrder", &members, [&](const FieldHeader& m) {
    if (m.id != 1) return r.Skip(m.type);
    out->type_defined_order = true;
    return SkipEmptyStruct(r, m);
  });
}

// 8 encryption_algorithm: only noted (encrypted files are not supported).
Status NotePresentAndSkip(CompactReader& r, const FieldHeader& f, void* target) {
  *static_cast<bool*>(target) = true;
  return r.Skip(f.type);
}

// 9 footer_signing_key_metadata is skipped as an unknown field.
Status Decode(CompactReader& r, FileMetaData* out) {
  return DecodeFields(
      r, "FileMetaData",
      {Req(1, "version", &out->version), Req(2, "schema", &out->schema),
       Req(3, "num_rows", &out->num_rows), Req(4, "row_groups", &out->row_groups),
       Opt(5, "key_value_metadata", &out->key_value_metadata),
       Opt(6, "created_by", &out->created_by), Opt(7, "column_orders", &out->column_orders),
       FieldSpec{8, "encryption_algorithm", false, &out->has_encryption_algorithm,
                 &NotePresentAndSkip}});
}

// ---------------------------------------------------------------------------------------------
// Encoding. Optional fields are written only when set, optional lists only when not empty.

void Encode(CompactWriter& w, const Statistics& s);
void Encode(CompactWriter& w, const LogicalType& t);
void Encode(CompactWriter& w, const SchemaElement& e);
void Encode(CompactWriter& w, const KeyValue& kv);
void Encode(CompactWriter& w, const SortingColumn& c);
void Encode(CompactWriter& w, const PageEncodingStats& s);
void Encode(CompactWriter& w, const ColumnMetaData& m);
void Encode(CompactWriter& w, const ColumnChunk& c);
void Encode(CompactWriter& w, const RowGroup& g);
void Encode(CompactWriter& w, const ColumnOrder& o);
void Encode(CompactWriter& w, const DataPageHeader& h);
void Encode(CompactWriter& w, const DictionaryPageHeader& h);
void Encode(CompactWriter& w, const DataPageHeaderV2& h);
void Encode(CompactWriter& w, const PageHeader& h);
void Encode(CompactWriter& w, const FileMetaData& m);

template <typename T>
void WriteStructField(CompactWriter& w, int16_t id, const T& value) {
  w.WriteFieldBegin(id, CT::kStruct);
  Encode(w, value);
}

template <typename T>
void WriteStructListField(CompactWriter& w, int16_t id, const std::vector<T>& values) {
  w.WriteFieldBegin(id, CT::kList);
  w.WriteListBegin(CT::kStruct, values.size());
  for (const T& v : values) Encode(w, v);
}

void WriteEmptyStruct(CompactWriter& w) {
  w.WriteStructBegin();
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const Statistics& s) {
  w.WriteStructBegin();
  if (s.max) w.WriteBinaryField(1, *s.max);
  if (s.min) w.WriteBinaryField(2, *s.min);
  if (s.null_count) w.WriteI64Field(3, *s.null_count);
  if (s.distinct_count) w.WriteI64Field(4, *s.distinct_count);
  if (s.max_value) w.WriteBinaryField(5, *s.max_value);
  if (s.min_value) w.WriteBinaryField(6, *s.min_value);
  if (s.is_max_value_exact) w.WriteBoolField(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.WriteBoolField(8, *s.is_min_value_exact);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

// kNone and kOther (and values outside the enum) carry nothing to write.
bool IsWritable(const LogicalType& t) {
  using Kind = LogicalType::Kind;
  switch (t.kind) {
    case Kind::kString:
    case Kind::kMap:
    case Kind::kList:
    case Kind::kEnum:
    case Kind::kDecimal:
    case Kind::kDate:
    case Kind::kTime:
    case Kind::kTimestamp:
    case Kind::kInteger:
    case Kind::kUnknown:
    case Kind::kJson:
    case Kind::kBson:
    case Kind::kUuid:
    case Kind::kFloat16:
      return true;
    case Kind::kNone:
    case Kind::kOther:
      return false;
  }
  return false;
}

// REQUIRES: IsWritable(t).
void Encode(CompactWriter& w, const LogicalType& t) {
  using Kind = LogicalType::Kind;
  w.WriteStructBegin();
  w.WriteFieldBegin(static_cast<int16_t>(t.kind), CT::kStruct);
  switch (t.kind) {
    case Kind::kDecimal:
      w.WriteStructBegin();
      w.WriteI32Field(1, t.decimal_scale);
      w.WriteI32Field(2, t.decimal_precision);
      w.WriteFieldStop();
      w.WriteStructEnd();
      break;
    case Kind::kTime:
    case Kind::kTimestamp:
      w.WriteStructBegin();
      w.WriteBoolField(1, t.is_adjusted_to_utc);
      w.WriteFieldBegin(2, CT::kStruct);
      w.WriteStructBegin();  // the TimeUnit union
      w.WriteFieldBegin(static_cast<int16_t>(t.unit), CT::kStruct);
      WriteEmptyStruct(w);
      w.WriteFieldStop();
      w.WriteStructEnd();
      w.WriteFieldStop();
      w.WriteStructEnd();
      break;
    case Kind::kInteger:
      w.WriteStructBegin();
      w.WriteI8Field(1, t.bit_width);
      w.WriteBoolField(2, t.is_signed);
      w.WriteFieldStop();
      w.WriteStructEnd();
      break;
    default:
      WriteEmptyStruct(w);
      break;
  }
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const SchemaElement& e) {
  w.WriteStructBegin();
  if (e.type) w.WriteI32Field(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.WriteI32Field(2, *e.type_length);
  if (e.repetition_type) w.WriteI32Field(3, static_cast<int32_t>(*e.repetition_type));
  w.WriteBinaryField(4, e.name);
  if (e.num_children) w.WriteI32Field(5, *e.num_children);
  if (e.converted_type) w.WriteI32Field(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.WriteI32Field(7, *e.scale);
  if (e.precision) w.WriteI32Field(8, *e.precision);
  if (e.field_id) w.WriteI32Field(9, *e.field_id);
  if (e.logical_type && IsWritable(*e.logical_type)) WriteStructField(w, 10, *e.logical_type);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const KeyValue& kv) {
  w.WriteStructBegin();
  w.WriteBinaryField(1, kv.key);
  if (kv.value) w.WriteBinaryField(2, *kv.value);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const SortingColumn& c) {
  w.WriteStructBegin();
  w.WriteI32Field(1, c.column_idx);
  w.WriteBoolField(2, c.descending);
  w.WriteBoolField(3, c.nulls_first);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const PageEncodingStats& s) {
  w.WriteStructBegin();
  w.WriteI32Field(1, static_cast<int32_t>(s.page_type));
  w.WriteI32Field(2, static_cast<int32_t>(s.encoding));
  w.WriteI32Field(3, s.count);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const ColumnMetaData& m) {
  w.WriteStructBegin();
  w.WriteI32Field(1, static_cast<int32_t>(m.type));
  w.WriteFieldBegin(2, CT::kList);
  w.WriteListBegin(CT::kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.WriteI32(static_cast<int32_t>(e));
  w.WriteFieldBegin(3, CT::kList);
  w.WriteListBegin(CT::kBinary, m.path_in_schema.size());
  for (const std::string& p : m.path_in_schema) w.WriteBinary(p);
  w.WriteI32Field(4, static_cast<int32_t>(m.codec));
  w.WriteI64Field(5, m.num_values);
  w.WriteI64Field(6, m.total_uncompressed_size);
  w.WriteI64Field(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) WriteStructListField(w, 8, m.key_value_metadata);
  w.WriteI64Field(9, m.data_page_offset);
  if (m.index_page_offset) w.WriteI64Field(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.WriteI64Field(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStructField(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) WriteStructListField(w, 13, m.encoding_stats);
  if (m.bloom_filter_offset) w.WriteI64Field(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.WriteI32Field(15, *m.bloom_filter_length);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const ColumnChunk& c) {
  w.WriteStructBegin();
  if (c.file_path) w.WriteBinaryField(1, *c.file_path);
  w.WriteI64Field(2, c.file_offset);
  if (c.meta_data) WriteStructField(w, 3, *c.meta_data);
  if (c.offset_index_offset) w.WriteI64Field(4, *c.offset_index_offset);
  if (c.offset_index_length) w.WriteI32Field(5, *c.offset_index_length);
  if (c.column_index_offset) w.WriteI64Field(6, *c.column_index_offset);
  if (c.column_index_length) w.WriteI32Field(7, *c.column_index_length);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const RowGroup& g) {
  w.WriteStructBegin();
  WriteStructListField(w, 1, g.columns);
  w.WriteI64Field(2, g.total_byte_size);
  w.WriteI64Field(3, g.num_rows);
  if (!g.sorting_columns.empty()) WriteStructListField(w, 4, g.sorting_columns);
  if (g.file_offset) w.WriteI64Field(5, *g.file_offset);
  if (g.total_compressed_size) w.WriteI64Field(6, *g.total_compressed_size);
  if (g.ordinal) w.WriteI16Field(7, *g.ordinal);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

// A ColumnOrder without type_defined_order is written as an empty union, which readers treat
// as an order they do not know.
void Encode(CompactWriter& w, const ColumnOrder& o) {
  w.WriteStructBegin();
  if (o.type_defined_order) {
    w.WriteFieldBegin(1, CT::kStruct);
    WriteEmptyStruct(w);
  }
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const DataPageHeader& h) {
  w.WriteStructBegin();
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, static_cast<int32_t>(h.encoding));
  w.WriteI32Field(3, static_cast<int32_t>(h.definition_level_encoding));
  w.WriteI32Field(4, static_cast<int32_t>(h.repetition_level_encoding));
  if (h.statistics) WriteStructField(w, 5, *h.statistics);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const DictionaryPageHeader& h) {
  w.WriteStructBegin();
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, static_cast<int32_t>(h.encoding));
  if (h.is_sorted) w.WriteBoolField(3, *h.is_sorted);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const DataPageHeaderV2& h) {
  w.WriteStructBegin();
  w.WriteI32Field(1, h.num_values);
  w.WriteI32Field(2, h.num_nulls);
  w.WriteI32Field(3, h.num_rows);
  w.WriteI32Field(4, static_cast<int32_t>(h.encoding));
  w.WriteI32Field(5, h.definition_levels_byte_length);
  w.WriteI32Field(6, h.repetition_levels_byte_length);
  w.WriteBoolField(7, h.is_compressed);  // always written, though the spec defaults it to true
  if (h.statistics) WriteStructField(w, 8, *h.statistics);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const PageHeader& h) {
  w.WriteStructBegin();
  w.WriteI32Field(1, static_cast<int32_t>(h.type));
  w.WriteI32Field(2, h.uncompressed_page_size);
  w.WriteI32Field(3, h.compressed_page_size);
  if (h.crc) w.WriteI32Field(4, *h.crc);
  if (h.data_page_header) WriteStructField(w, 5, *h.data_page_header);
  if (h.dictionary_page_header) WriteStructField(w, 7, *h.dictionary_page_header);
  if (h.data_page_header_v2) WriteStructField(w, 8, *h.data_page_header_v2);
  w.WriteFieldStop();
  w.WriteStructEnd();
}

void Encode(CompactWriter& w, const FileMetaData& m) {
  w.WriteStructBegin();
  w.WriteI32Field(1, m.version);
  WriteStructListField(w, 2, m.schema);
  w.WriteI64Field(3, m.num_rows);
  WriteStructListField(w, 4, m.row_groups);
  if (!m.key_value_metadata.empty()) WriteStructListField(w, 5, m.key_value_metadata);
  if (m.created_by) w.WriteBinaryField(6, *m.created_by);
  if (!m.column_orders.empty()) WriteStructListField(w, 7, m.column_orders);
  // 8 encryption_algorithm is never written: cdclake writes no encrypted files.
  w.WriteFieldStop();
  w.WriteStructEnd();
}

template <typename T>
Result<T> DecodeTop(std::string_view bytes, size_t* consumed) {
  CompactReader r(bytes);
  T value{};
  CDCLAKE_RETURN_IF_ERROR(Decode(r, &value));
  if (consumed != nullptr) *consumed = r.position();
  return value;
}

}  // namespace

// Trailing bytes after the struct are ignored: a plaintext-footer encrypted file, for one,
// follows its FileMetaData with a signature.
Result<FileMetaData> DecodeFileMetaData(std::string_view bytes) {
  return DecodeTop<FileMetaData>(bytes, nullptr);
}

void EncodeFileMetaData(const FileMetaData& meta, std::string* out) {
  CompactWriter w(out);
  Encode(w, meta);
}

Result<PageHeader> DecodePageHeader(std::string_view bytes, size_t* consumed) {
  return DecodeTop<PageHeader>(bytes, consumed);
}

void EncodePageHeader(const PageHeader& header, std::string* out) {
  CompactWriter w(out);
  Encode(w, header);
}

Result<Statistics> DecodeStatistics(std::string_view bytes) {
  return DecodeTop<Statistics>(bytes, nullptr);
}

void EncodeStatistics(const Statistics& stats, std::string* out) {
  CompactWriter w(out);
  Encode(w, stats);
}

}  // namespace cdclake::parquet::format
