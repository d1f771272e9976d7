// What the two-halves readers (CSV, Debezium) share: decoding two byte ranges of a file at
// once, and the line a byte offset falls on.
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "io/file_system.h"

namespace cdclake::sources::internal {

/// Every batch a half's reader gave, or the first error.
struct DecodedHalf {
  Status status;
  std::vector<change::ChangeBatch> batches;
};

/// Reads `reader` (any reader whose Next gives Result<std::optional<change::ChangeBatch>>) to
/// its end or first error.
template <typename Reader>
void ReadHalf(Reader& reader, DecodedHalf* out) {
  for (;;) {
    Result<std::optional<change::ChangeBatch>> next = reader.Next();
    if (!next.ok()) {
      out->status = next.status();
      return;
    }
    if (!next->has_value()) return;
    out->batches.push_back(std::move(**next));
  }
}

/// Decodes `first` on a thread of its own while the caller decodes `second`.
template <typename Reader>
void ReadBothHalves(Reader& first, Reader& second, DecodedHalf* a, DecodedHalf* b) {
  std::thread helper([&] { ReadHalf(first, a); });
  ReadHalf(second, b);
  helper.join();
}

/// The 1-based line of `file` that byte `offset` starts: one past the line endings ('\n')
/// before it, counted in chunks of a few MiB.
Result<int64_t> LineAtOffset(io::RandomAccessFile& file, uint64_t offset);

}  // namespace cdclake::sources::internal
