// FileSystem: the one seam between cdclake and storage. Nothing outside io/ calls POSIX file
// functions. LocalFileSystem serves real folders; MemoryFileSystem serves tests (and can be told
// to fail at a chosen operation, to force torn writes and commit races).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake::io {

/// A file open for positioned reads. Implementations are safe for concurrent ReadAt calls.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual Result<uint64_t> Size() const = 0;
  /// Reads exactly `length` bytes at `offset` into `out` (resized); kCorrupt when the file is
  /// shorter ("read past end of <path>: wanted N bytes at offset O, file has S").
  virtual Status ReadAt(uint64_t offset, uint64_t length, std::string* out) const = 0;
  virtual const std::string& path() const = 0;
};

/// A file being written front to back. Nothing is visible under its final name before Close()
/// returns ok: writers write to a temporary name and rename.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Append(std::string_view data) = 0;
  virtual uint64_t BytesWritten() const = 0;
  /// Flushes, syncs and publishes the file under its name (replacing any file there).
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

struct FileInfo {
  std::string path;  // full path, as given to List plus the entry name
  uint64_t size = 0;
  int64_t modification_time_ms = 0;
  bool is_directory = false;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const = 0;
  /// Creates parent folders as needed.
  virtual Result<std::unique_ptr<OutputStream>> OpenWrite(const std::string& path) = 0;

  /// Reads a whole file.
  virtual Result<std::string> ReadFile(const std::string& path) const;
  /// Writes a whole file atomically (temporary name, then rename), replacing what was there.
  virtual Status WriteFile(const std::string& path, std::string_view data);
  /// Creates `path` with `data` only if no file has that name; kAlreadyExists otherwise. Atomic:
  /// of two racing callers exactly one succeeds, and readers never see a partial file. This is
  /// how Delta commits are published.
  virtual Status PutIfAbsent(const std::string& path, std::string_view data) = 0;

  virtual Result<bool> Exists(const std::string& path) const = 0;
  virtual Result<FileInfo> Stat(const std::string& path) const = 0;
  /// The entries directly inside `dir`, sorted by name; kNotFound when `dir` does not exist.
  virtual Result<std::vector<FileInfo>> List(const std::string& dir) const = 0;
  virtual Status CreateDirs(const std::string& dir) = 0;
  /// Removes a file; ok when it does not exist.
  virtual Status Delete(const std::string& path) = 0;
  /// Renames, replacing any file at `to`.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
};

/// Joins path parts with '/', without doubling separators.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace cdclake::io
