// FileDigest: a fingerprint of a file's bytes, telling a file read before from one rewritten
// since with the same size and modification time.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::io {

/// XXH3's 128-bit hash of the first `size` bytes of `path`, as 32 lowercase hex digits ("xxh3:"
/// before them, so that another kind could follow). Read in chunks of a few MiB; kCorrupt
/// (RandomAccessFile::ReadAt's) when it holds fewer than `size` bytes.
Result<std::string> FileDigest(const FileSystem& fs, const std::string& path, uint64_t size);

}  // namespace cdclake::io
