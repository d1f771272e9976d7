// DELTA_LENGTH_BYTE_ARRAY (Parquet encoding 6): all lengths as DELTA_BINARY_PACKED INT32, then
// all the bytes back to back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake::parquet {

/// Appends the encoding of `values`. REQUIRES: each value is shorter than 2^31 bytes.
void EncodeDeltaLengthByteArray(const std::vector<std::string_view>& values, std::string* out);

/// Decodes `n` values: appends their bytes to *bytes and their end offsets to *offsets.
/// REQUIRES: offsets->back() == bytes->size() (the start offset is already there); afterwards
/// that holds again. On error neither is changed.
Status DecodeDeltaLengthByteArray(std::string_view data, size_t n, std::string* bytes,
                                  std::vector<int64_t>* offsets);

/// Reads a DELTA_BINARY_PACKED stream of lengths at the start of `data`: the first `n` into
/// *lengths (each checked to be >= 0), any further ones skipped. Returns the offset just past the
/// stream. Shared with DELTA_BYTE_ARRAY.
Result<size_t> DecodeDeltaLengths(std::string_view data, size_t n, std::vector<int32_t>* lengths);

}  // namespace cdclake::parquet
