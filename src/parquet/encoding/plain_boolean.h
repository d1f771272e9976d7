// PLAIN encoding of BOOLEAN values: one bit per value, LSB first, the last byte zero-padded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cdclake::parquet {

/// Appends ceil(n / 8) bytes. REQUIRES: each value is 0 or 1 (only the low bit is used).
void EncodePlainBooleans(const uint8_t* values, size_t n, std::string* out);

/// Reads `n` values from the first ceil(n / 8) bytes of `data` into `out` as 0 or 1. Later bytes
/// are ignored; fewer bytes are kCorrupt.
Status DecodePlainBooleans(std::string_view data, size_t n, uint8_t* out);

}  // namespace cdclake::parquet
