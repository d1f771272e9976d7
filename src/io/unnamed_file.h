// UnnamedFile: a private scratch file without a name in the file system, gone with the process
// even when the process is killed. Written at its end, read at any offset, cut back.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::io {

class UnnamedFile {
 public:
  /// Makes one in `folder` (created when missing): O_TMPFILE where the file system has it, else
  /// a named file unlinked at once. Errors call it "<what> in <folder>": kInvalidArgument for
  /// an empty folder, kIoError for every failure of the file system.
  static Result<std::unique_ptr<UnnamedFile>> Create(const std::string& folder,
                                                     std::string_view what = "an unnamed file");
  UnnamedFile(const UnnamedFile&) = delete;
  UnnamedFile& operator=(const UnnamedFile&) = delete;
  ~UnnamedFile();

  /// Writes `bytes` at the end; returns the offset they start at. After a failed write the end
  /// is where it was: the next append writes over what the failed one left.
  Result<int64_t> Append(std::string_view bytes);
  /// Reads `length` bytes at `offset` into `out`; kCorrupt past the end. Safe beside one
  /// Append in another thread (not beside Truncate).
  Status ReadAt(int64_t offset, size_t length, char* out) const;
  /// Cuts the file to `size` bytes; later appends start there.
  Status Truncate(int64_t size);

  int64_t size() const { return size_.load(); }
  /// How errors name it: "<what> in <folder>".
  const std::string& name() const { return name_; }

 private:
  UnnamedFile(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

  int fd_;
  std::string name_;
  std::atomic<int64_t> size_{0};  // the end as written; the file may hold more after a failure
};

}  // namespace cdclake::io
