// FileDigest: XXH3-128 over a file's first bytes, streamed in chunks.
#include "io/file_digest.h"

#include <xxhash.h>

#include <algorithm>
#include <memory>

#include "base/bytes.h"

namespace cdclake::io {

Result<std::string> FileDigest(const FileSystem& fs, const std::string& path, uint64_t size) {
  constexpr uint64_t kChunk = 4 << 20;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file, fs.OpenRead(path));
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  if (state == nullptr || XXH3_128bits_reset(state.get()) != XXH_OK) {
    return Status::Internal("could not start a digest of " + path);
  }
  std::string chunk;
  for (uint64_t at = 0; at < size;) {
    const uint64_t want = std::min(kChunk, size - at);
    CDCLAKE_RETURN_IF_ERROR(file->ReadAt(at, want, &chunk));  // exactly `want` bytes, or kCorrupt
    XXH3_128bits_update(state.get(), chunk.data(), chunk.size());
    at += want;
  }
  XXH128_canonical_t canonical;  // big-endian bytes, the same on every machine
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state.get()));
  return "xxh3:" + HexEncode(std::string_view(reinterpret_cast<const char*>(canonical.digest),
                                              sizeof(canonical.digest)));
}

}  // namespace cdclake::io
