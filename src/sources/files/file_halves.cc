// LineAtOffset: line endings counted chunk by chunk.
#include <algorithm>
#include <string>

#include "sources/files/file_halves_internal.h"

namespace cdclake::sources::internal {

Result<int64_t> LineAtOffset(io::RandomAccessFile& file, uint64_t offset) {
  constexpr uint64_t kChunk = 8 << 20;
  int64_t line = 1;
  std::string chunk;
  for (uint64_t at = 0; at < offset; at += kChunk) {
    CDCLAKE_RETURN_IF_ERROR(file.ReadAt(at, std::min(kChunk, offset - at), &chunk));
    line += static_cast<int64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
  }
  return line;
}

}  // namespace cdclake::sources::internal
