// BYTE_STREAM_SPLIT (Parquet encoding 9): byte k of every value goes to stream k; the streams are
// stored one after another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cdclake::parquet {

/// Appends n * width bytes: `values` holds n values of `width` bytes each, in little-endian order.
void EncodeByteStreamSplit(const uint8_t* values, size_t width, size_t n, std::string* out);

/// Decodes the first `n` values into `out` (n * width bytes). The streams fill `data`, so each is
/// data.size() / width bytes long; a size that is not a multiple of `width`, or streams shorter
/// than `n`, are kCorrupt. `width` 0 is kInvalidArgument.
Status DecodeByteStreamSplit(std::string_view data, size_t width, size_t n, uint8_t* out);

}  // namespace cdclake::parquet
