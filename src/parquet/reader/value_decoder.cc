// Value decoding for every encoding and physical-to-logical conversion.
#include "parquet/reader/value_decoder.h"

#include <cstring>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "parquet/encoding/byte_stream_split.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_byte_array.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/encoding/plain_boolean.h"
#include "parquet/encoding/rle_bit_packed_decoder.h"
#include "parquet/physical_value.h"

namespace cdclake::parquet {

using data::TypeId;
using format::Encoding;
using format::Type;

namespace {

constexpr int64_t kJulianEpochDay = 2440588;  // 1970-01-01 as a Julian day number
constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

enum class TimeScale { kMicros, kMillis, kNanos };

TimeScale ScaleOf(const format::SchemaElement& e) {
  if (e.logical_type && e.logical_type->kind == format::LogicalType::Kind::kTimestamp) {
    if (e.logical_type->unit == format::TimeUnit::kMillis) return TimeScale::kMillis;
    if (e.logical_type->unit == format::TimeUnit::kNanos) return TimeScale::kNanos;
    return TimeScale::kMicros;
  }
  if (e.converted_type == format::ConvertedType::kTimestampMillis) return TimeScale::kMillis;
  return TimeScale::kMicros;
}

bool IsUnsigned(const format::SchemaElement& e) {
  if (e.logical_type && e.logical_type->kind == format::LogicalType::Kind::kInteger) {
    return !e.logical_type->is_signed;
  }
  if (!e.converted_type) return false;
  auto c = *e.converted_type;
  return c == format::ConvertedType::kUint8 || c == format::ConvertedType::kUint16 ||
         c == format::ConvertedType::kUint32 || c == format::ConvertedType::kUint64;
}

template <typename T>
void AppendTyped(data::Column* out, const T* values, int64_t n) {
  if (n == 0) return;
  auto& buf = out->mutable_values();
  size_t at = buf.size();
  buf.resize(at + static_cast<size_t>(n) * sizeof(T));
  std::memcpy(buf.data() + at, values, static_cast<size_t>(n) * sizeof(T));
}

}  // namespace

void SealDenseColumn(data::Column* column) {
  int width = column->type()->byte_width();
  int64_t n = width > 0 ? static_cast<int64_t>(column->values().size()) / width
                        : static_cast<int64_t>(column->offsets().size()) - 1;
  column->SetLengthAndValidity(n, {});
}

ValueDecoder::ValueDecoder(const SchemaNode& leaf)
    : leaf_(leaf),
      physical_(*leaf.element.type),
      width_(PhysicalWidth(leaf)),
      dictionary_(leaf.type) {}

Status ValueDecoder::Truncated(const char* what) const {
  return Status::Corrupt("column '" + leaf_.name + "': " + what);
}

Status ValueDecoder::AppendFixed(const uint8_t* p, int64_t n, int width, data::Column* out) {
  const format::SchemaElement& e = leaf_.element;
  TypeId id = leaf_.type->id();
  switch (physical_) {
    case Type::kInt32: {
      if (id == TypeId::kInt32 || id == TypeId::kDate) {
        AppendTyped(out, reinterpret_cast<const int32_t*>(p), n);
        return Status::OK();
      }
      bool is_unsigned = IsUnsigned(e);
      for (int64_t i = 0; i < n; ++i) {
        auto v = LoadLE<int32_t>(p + i * 4);
        switch (id) {
          case TypeId::kInt8:
            out->Append<int8_t>(static_cast<int8_t>(v));
            break;
          case TypeId::kInt16:
            out->Append<int16_t>(is_unsigned ? static_cast<int16_t>(static_cast<uint8_t>(v))
                                             : static_cast<int16_t>(v));
            break;
          case TypeId::kInt32:
            out->Append<int32_t>(is_unsigned ? static_cast<uint16_t>(v) : v);
            break;
          case TypeId::kInt64:
            out->Append<int64_t>(static_cast<uint32_t>(v));
            break;
          case TypeId::kDecimal:
            out->Append<data::Int128>(v);
            break;
          default:
            return Status::Internal("unexpected INT32 mapping");
        }
      }
      return Status::OK();
    }
    case Type::kInt64: {
      TimeScale scale = ScaleOf(e);
      if ((id == TypeId::kInt64 || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz) &&
          scale == TimeScale::kMicros) {
        AppendTyped(out, reinterpret_cast<const int64_t*>(p), n);
        return Status::OK();
      }
      for (int64_t i = 0; i < n; ++i) {
        auto v = LoadLE<int64_t>(p + i * 8);
        if (id == TypeId::kDecimal) {
          out->Append<data::Int128>(
              IsUnsigned(e) ? static_cast<data::Int128>(static_cast<uint64_t>(v)) : v);
        } else if (scale == TimeScale::kMillis) {
          int64_t micros = 0;
          if (__builtin_mul_overflow(v, int64_t{1000}, &micros)) {
            return Truncated("millisecond timestamp out of the microsecond range");
          }
          out->Append<int64_t>(micros);
        } else {
          out->Append<int64_t>(v / 1000 - ((v % 1000) < 0 ? 1 : 0));
        }
      }
      return Status::OK();
    }
    case Type::kInt96:
      for (int64_t i = 0; i < n; ++i) {
        auto nanos = LoadLE<int64_t>(p + i * 12);
        auto day = LoadLE<int32_t>(p + i * 12 + 8);
        // In 128 bits: a hostile day or nanosecond count must not overflow.
        data::Int128 micros =
            static_cast<data::Int128>(day - kJulianEpochDay) * kMicrosPerDay + nanos / 1000;
        if (micros > INT64_MAX || micros < INT64_MIN)
          return Truncated("INT96 timestamp out of range");
        out->Append<int64_t>(static_cast<int64_t>(micros));
      }
      return Status::OK();
    case Type::kFloat:
      AppendTyped(out, reinterpret_cast<const float*>(p), n);
      return Status::OK();
    case Type::kDouble:
      AppendTyped(out, reinterpret_cast<const double*>(p), n);
      return Status::OK();
    case Type::kFixedLenByteArray:
      for (int64_t i = 0; i < n; ++i) {
        CDCLAKE_RETURN_IF_ERROR(
            AppendByteArray(std::string_view(reinterpret_cast<const char*>(p) + i * width,
                                             static_cast<size_t>(width)),
                            out));
      }
      return Status::OK();
    default:
      return Status::Internal("not a fixed-width type");
  }
}

Status ValueDecoder::AppendByteArray(std::string_view v, data::Column* out) {
  if (leaf_.type->id() == TypeId::kDecimal) {
    if (v.size() > 16) return Truncated("decimal value wider than 16 bytes");
    out->Append<data::Int128>(
        ReadBigEndianDecimal(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
    return Status::OK();
  }
  out->mutable_bytes().append(v);
  out->mutable_offsets().push_back(static_cast<int64_t>(out->bytes().size()));
  return Status::OK();
}

Status ValueDecoder::DecodePlain(std::string_view data, int64_t n, data::Column* out) {
  if (physical_ == Type::kBoolean) {
    if (static_cast<uint64_t>(n) > static_cast<uint64_t>(data.size()) * 8) {
      return Truncated("PLAIN booleans run past the end of the page");
    }
    std::vector<uint8_t> bits(static_cast<size_t>(n));
    CDCLAKE_RETURN_IF_ERROR(DecodePlainBooleans(data, static_cast<size_t>(n), bits.data()));
    AppendTyped(out, bits.data(), n);
    return Status::OK();
  }
  if (width_ > 0) {
    if (static_cast<uint64_t>(n) * static_cast<uint64_t>(width_) > data.size()) {
      return Truncated("PLAIN values run past the end of the page");
    }
    return AppendFixed(reinterpret_cast<const uint8_t*>(data.data()), n, width_, out);
  }
  size_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (data.size() - pos < 4)
      return Truncated("PLAIN byte array length runs past the end of the page");
    uint32_t len = LoadLE<uint32_t>(data.data() + pos);
    pos += 4;
    if (data.size() - pos < len) return Truncated("PLAIN byte array runs past the end of the page");
    CDCLAKE_RETURN_IF_ERROR(AppendByteArray(data.substr(pos, len), out));
    pos += len;
  }
  return Status::OK();
}

Status ValueDecoder::SetDictionary(std::string_view body, int64_t n) {
  if (n < 0) return Truncated("negative dictionary size");
  if (static_cast<uint64_t>(n) > body.size() / static_cast<uint64_t>(width_ > 0 ? width_ : 4) + 1) {
    return Truncated("the dictionary page claims more values than its bytes can hold");
  }
  if (physical_ == Type::kBoolean) return Truncated("BOOLEAN columns have no dictionary");
  dictionary_ = data::Column(leaf_.type);
  CDCLAKE_RETURN_IF_ERROR(DecodePlain(body, n, &dictionary_));
  SealDenseColumn(&dictionary_);
  has_dictionary_ = true;
  return Status::OK();
}

Status ValueDecoder::DecodeDictionary(std::string_view data, int64_t n, data::Column* out) {
  if (!has_dictionary_) return Truncated("dictionary-encoded page without a dictionary page");
  if (data.empty()) {
    if (n == 0) return Status::OK();
    return Truncated("dictionary-encoded page has no bit width");
  }
  int bit_width = static_cast<uint8_t>(data[0]);
  if (bit_width > 32) return Truncated("dictionary index bit width over 32");
  std::vector<uint32_t> indices(static_cast<size_t>(n));
  RleBitPackedDecoder decoder(data.substr(1), bit_width);
  CDCLAKE_ASSIGN_OR_RETURN(size_t got, decoder.GetBatch(indices.data(), static_cast<size_t>(n)));
  if (got != static_cast<size_t>(n)) return Truncated("fewer dictionary indices than values");
  auto dict_size = static_cast<uint32_t>(dictionary_.length());
  for (uint32_t idx : indices) {
    if (idx >= dict_size) {
      return Status::Corrupt("column '" + leaf_.name + "': dictionary index " +
                             std::to_string(idx) + " out of range (dictionary has " +
                             std::to_string(dict_size) + " values)");
    }
  }
  int width = leaf_.type->byte_width();
  if (width > 0) {
    auto& buf = out->mutable_values();
    size_t at = buf.size();
    buf.resize(at + static_cast<size_t>(n) * width);
    uint8_t* dst = buf.data() + at;
    const uint8_t* src = dictionary_.values().data();
    if (width == 8) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * 8, src + static_cast<size_t>(indices[i]) * 8, 8);
    } else if (width == 4) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + i * 4, src + static_cast<size_t>(indices[i]) * 4, 4);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * width, src + static_cast<size_t>(indices[i]) * width,
                    static_cast<size_t>(width));
      }
    }
    return Status::OK();
  }
  auto& bytes = out->mutable_bytes();
  auto& offsets = out->mutable_offsets();
  for (uint32_t idx : indices) {
    bytes.append(dictionary_.StringAt(idx));
    offsets.push_back(static_cast<int64_t>(bytes.size()));
  }
  return Status::OK();
}

Status ValueDecoder::Decode(Encoding encoding, std::string_view data, int64_t n,
                            data::Column* out) {
  switch (encoding) {
    case Encoding::kPlain:
      return DecodePlain(data, n, out);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      return DecodeDictionary(data, n, out);
    case Encoding::kRle: {
      if (physical_ != Type::kBoolean) return Truncated("RLE values on a non-boolean column");
      ByteReader r(data);
      CDCLAKE_ASSIGN_OR_RETURN(std::string_view runs, ReadLengthPrefixedLevels(r));
      std::vector<uint32_t> v(static_cast<size_t>(n));
      RleBitPackedDecoder decoder(runs, 1);
      CDCLAKE_ASSIGN_OR_RETURN(size_t got, decoder.GetBatch(v.data(), v.size()));
      if (got != v.size()) return Truncated("fewer RLE booleans than values");
      for (uint32_t b : v) out->mutable_values().push_back(static_cast<uint8_t>(b != 0));
      return Status::OK();
    }
    case Encoding::kDeltaBinaryPacked: {
      if (physical_ == Type::kInt32) {
        DeltaBinaryPackedDecoder<int32_t> d(data);
        CDCLAKE_RETURN_IF_ERROR(d.Init());
        std::vector<int32_t> v(static_cast<size_t>(n));
        CDCLAKE_RETURN_IF_ERROR(d.Decode(v.data(), v.size()));
        return AppendFixed(reinterpret_cast<const uint8_t*>(v.data()), n, 4, out);
      }
      if (physical_ == Type::kInt64) {
        DeltaBinaryPackedDecoder<int64_t> d(data);
        CDCLAKE_RETURN_IF_ERROR(d.Init());
        std::vector<int64_t> v(static_cast<size_t>(n));
        CDCLAKE_RETURN_IF_ERROR(d.Decode(v.data(), v.size()));
        return AppendFixed(reinterpret_cast<const uint8_t*>(v.data()), n, 8, out);
      }
      return Truncated("DELTA_BINARY_PACKED on a column that is not INT32 or INT64");
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      if (physical_ != Type::kByteArray && physical_ != Type::kFixedLenByteArray) {
        return Truncated("a byte-array encoding on a column that is not a byte array");
      }
      std::string bytes;
      std::vector<int64_t> offsets{0};
      if (encoding == Encoding::kDeltaLengthByteArray) {
        CDCLAKE_RETURN_IF_ERROR(
            DecodeDeltaLengthByteArray(data, static_cast<size_t>(n), &bytes, &offsets));
      } else {
        CDCLAKE_RETURN_IF_ERROR(
            DecodeDeltaByteArray(data, static_cast<size_t>(n), &bytes, &offsets));
      }
      for (int64_t i = 0; i < n; ++i) {
        CDCLAKE_RETURN_IF_ERROR(AppendByteArray(
            std::string_view(bytes).substr(static_cast<size_t>(offsets[i]),
                                           static_cast<size_t>(offsets[i + 1] - offsets[i])),
            out));
      }
      return Status::OK();
    }
    case Encoding::kByteStreamSplit: {
      if (width_ <= 0) return Truncated("BYTE_STREAM_SPLIT on a variable-width column");
      std::vector<uint8_t> v(static_cast<size_t>(n) * width_);
      CDCLAKE_RETURN_IF_ERROR(DecodeByteStreamSplit(data, static_cast<size_t>(width_),
                                                    static_cast<size_t>(n), v.data()));
      return AppendFixed(v.data(), n, width_, out);
    }
    default:
      return Status::NotSupported("column '" + leaf_.name + "': value encoding " +
                                  std::to_string(static_cast<int>(encoding)));
  }
}

}  // namespace cdclake::parquet
