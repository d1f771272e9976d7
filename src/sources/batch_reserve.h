// BatchReserve: how much room a reader reserves for the batch it is about to decode, so that
// columns are not grown by doubling (each step copies what they hold) and a batch after a few
// huge values does not reserve gigabytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cdclake::sources {

/// Rows reserved at most, whatever the batch size asks for.
inline constexpr int64_t kMaxReservedRows = 1 << 16;
/// String bytes reserved at most per column.
inline constexpr int64_t kMaxReservedBytes = int64_t{64} << 20;

/// The rows to reserve for a batch of up to `batch_rows`.
inline int64_t ReservedRows(int64_t batch_rows) {
  return std::min(batch_rows, kMaxReservedRows);
}

/// The string bytes to reserve for `rows` rows of a column whose last batch held
/// `bytes_per_row` per row: that many (a last batch of a few huge values says little, so at
/// most kMaxReservedBytes); 0 without a hint.
inline size_t ReservedBytes(double bytes_per_row, int64_t rows) {
  if (bytes_per_row <= 0) return 0;
  return static_cast<size_t>(
      std::min(bytes_per_row * static_cast<double>(rows), static_cast<double>(kMaxReservedBytes)));
}

}  // namespace cdclake::sources
