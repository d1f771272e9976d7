// Physical value conversion.
#include "parquet/physical_value.h"

#include "base/bytes.h"

namespace cdclake::parquet {

using data::TypeId;
using format::Type;

int PhysicalWidth(const SchemaNode& leaf) {
  switch (*leaf.element.type) {
    case Type::kBoolean:
      return -1;
    case Type::kInt32:
    case Type::kFloat:
      return 4;
    case Type::kInt64:
    case Type::kDouble:
      return 8;
    case Type::kInt96:
      return 12;
    case Type::kByteArray:
      return 0;
    case Type::kFixedLenByteArray:
      return leaf.element.type_length.value_or(0);
  }
  return 0;
}

void AppendBigEndianDecimal(data::Int128 v, int width, std::string* out) {
  auto u = static_cast<unsigned __int128>(v);
  for (int i = width - 1; i >= 0; --i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
}

data::Int128 ReadBigEndianDecimal(const uint8_t* bytes, size_t width) {
  unsigned __int128 u = 0;
  for (size_t i = 0; i < width; ++i) u = (u << 8) | bytes[i];
  if (width > 0 && width < 16 && (bytes[0] & 0x80) != 0) {
    u |= ~static_cast<unsigned __int128>(0) << (8 * width);  // sign-extend
  }
  return static_cast<data::Int128>(u);
}

namespace {

template <typename From, typename To>
void AppendCast(const data::Column& c, const int64_t* idx, size_t n, std::string* out) {
  size_t at = out->size();
  out->resize(at + n * sizeof(To));
  char* dst = out->data() + at;
  const From* src = c.Data<From>();
  for (size_t i = 0; i < n; ++i) StoreLE<To>(dst + i * sizeof(To), static_cast<To>(src[idx[i]]));
}

}  // namespace

void AppendPhysicalFixed(const data::Column& column, const SchemaNode& leaf, const int64_t* indices,
                         size_t n, std::string* out) {
  const data::DataType& t = *leaf.type;
  switch (t.id()) {
    case TypeId::kInt8:
      AppendCast<int8_t, int32_t>(column, indices, n, out);
      return;
    case TypeId::kInt16:
      AppendCast<int16_t, int32_t>(column, indices, n, out);
      return;
    case TypeId::kInt32:
    case TypeId::kDate:
      AppendCast<int32_t, int32_t>(column, indices, n, out);
      return;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      AppendCast<int64_t, int64_t>(column, indices, n, out);
      return;
    case TypeId::kFloat:
      AppendCast<float, float>(column, indices, n, out);
      return;
    case TypeId::kDouble:
      AppendCast<double, double>(column, indices, n, out);
      return;
    case TypeId::kDecimal: {
      Type physical = *leaf.element.type;
      if (physical == Type::kInt32) {
        AppendCast<data::Int128, int32_t>(column, indices, n, out);
      } else if (physical == Type::kInt64) {
        AppendCast<data::Int128, int64_t>(column, indices, n, out);
      } else {
        int width = PhysicalWidth(leaf);
        const auto* src = column.Data<data::Int128>();
        for (size_t i = 0; i < n; ++i) AppendBigEndianDecimal(src[indices[i]], width, out);
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace cdclake::parquet
