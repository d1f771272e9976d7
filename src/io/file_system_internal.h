// Helpers shared by the FileSystem implementations in io/ (not part of the public contract).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cdclake::io::internal {

/// "<what> <path>: <strerror>"; kNotFound for ENOENT, kIoError otherwise.
Status ErrnoStatus(std::string_view what, const std::string& path, int err);

/// The kCorrupt every RandomAccessFile returns for a read past the end of its file.
inline Status ReadPastEnd(const std::string& path, uint64_t offset, uint64_t length,
                          uint64_t size) {
  return Status::Corrupt("read past end of " + path + ": wanted " + std::to_string(length) +
                         " bytes at offset " + std::to_string(offset) + ", file has " +
                         std::to_string(size));
}

/// Whether [offset, offset + length) lies inside a file of `size` bytes (overflow safe).
inline bool InRange(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

}  // namespace cdclake::io::internal
