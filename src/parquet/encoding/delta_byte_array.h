// DELTA_BYTE_ARRAY (Parquet encoding 7), front coding: each value's prefix length shared with the
// previous value (DELTA_BINARY_PACKED), then the suffixes as DELTA_LENGTH_BYTE_ARRAY.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace cdclake::parquet {

/// Appends the encoding of `values`. REQUIRES: each value is shorter than 2^31 bytes.
void EncodeDeltaByteArray(const std::vector<std::string_view>& values, std::string* out);

/// Decodes `n` values: appends their bytes to *bytes and their end offsets to *offsets.
/// REQUIRES: offsets->back() == bytes->size(); afterwards that holds again. On error neither is
/// changed. A prefix longer than the previous value (or than 0 for the first) is kCorrupt, and so
/// is a page whose values would add up to 2^31 bytes or more.
Status DecodeDeltaByteArray(std::string_view data, size_t n, std::string* bytes,
                            std::vector<int64_t>* offsets);

}  // namespace cdclake::parquet
