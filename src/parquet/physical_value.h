// Conversion between logical values in a Column and their Parquet physical form: widths,
// integer widening, decimals as INT32/INT64 or big-endian two's complement bytes.
#pragma once

#include <cstdint>
#include <string>

#include "data/column.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

/// Bytes per PLAIN value of the leaf's physical type: 4, 8, 12 (INT96) or the FIXED_LEN length;
/// 0 for BYTE_ARRAY; -1 for BOOLEAN (bit-packed).
int PhysicalWidth(const SchemaNode& leaf);

/// Appends the PLAIN bytes of `column[indices[i]]` for fixed-width physical types.
/// REQUIRES: PhysicalWidth(leaf) > 0 and the values are non-null.
void AppendPhysicalFixed(const data::Column& column, const SchemaNode& leaf, const int64_t* indices,
                         size_t n, std::string* out);

/// A decimal's unscaled value as `width` big-endian two's complement bytes.
void AppendBigEndianDecimal(data::Int128 v, int width, std::string* out);
/// The inverse, for 1..16 bytes (sign-extended).
data::Int128 ReadBigEndianDecimal(const uint8_t* bytes, size_t width);

}  // namespace cdclake::parquet
