// Helpers shared by the FileSystem implementations in io/ (not part of the public contract).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cdclake::io::internal {

/// strerror's text for `err`.
std::string ErrnoText(int err);

/// Reads `length` bytes at `offset` (retrying EINTR and short reads): the bytes read, fewer
/// only where the file ends; -1 with errno set on an error.
int64_t PreadFully(int fd, char* out, uint64_t length, uint64_t offset);

/// Writes all of `data` at `offset` (retrying EINTR and short writes); false with errno set on
/// an error.
bool PwriteAll(int fd, std::string_view data, uint64_t offset);

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
