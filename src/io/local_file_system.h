// LocalFileSystem: the FileSystem over real POSIX folders. Writers publish by rename (OpenWrite)
// or by link(2) (PutIfAbsent), so readers and racing processes never see a partial file.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"

namespace cdclake::io {

/// Files on the local disk. Stateless and safe to share between threads; any number of
/// instances (and processes) may work on the same folders.
///
/// Writes go to a temporary file beside the target, named ".<name>.<16 hex digits>.tmp", which
/// is fsynced and then renamed (OpenWrite, WriteFile) or hard-linked (PutIfAbsent) to its final
/// name; the folder is fsynced after. A process that dies mid-write can leave such a temporary
/// file behind; List shows it like any other file (IsTemporaryName recognizes it).
class LocalFileSystem : public FileSystem {
 public:
  /// A shared instance for callers that do not care which one they use.
  static std::shared_ptr<LocalFileSystem> Instance();

  /// Whether `file_name` (a name without folders) has the shape of our temporary files.
  static bool IsTemporaryName(std::string_view file_name);

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override;
  /// Creates parent folders as needed. Appends are buffered (1 MiB); destroying the stream
  /// without a successful Close() removes its temporary file and leaves `path` untouched.
  Result<std::unique_ptr<OutputStream>> OpenWrite(const std::string& path) override;
  /// Atomic against other threads and processes: the data is written and synced under a
  /// temporary name, then link(2)ed to `path`, which fails when `path` exists. Needs a file
  /// system with hard links (any local POSIX one).
  Status PutIfAbsent(const std::string& path, std::string_view data) override;

  Result<bool> Exists(const std::string& path) const override;
  /// Folders report size 0.
  Result<FileInfo> Stat(const std::string& path) const override;
  /// Entries that vanish while listing are left out.
  Result<std::vector<FileInfo>> List(const std::string& dir) const override;
  Status CreateDirs(const std::string& dir) override;
  /// Removes a file (not a folder); ok when it does not exist.
  Status Delete(const std::string& path) override;
  /// rename(2); creates the parent folders of `to` as needed.
  Status Rename(const std::string& from, const std::string& to) override;
  /// Removes a folder and everything in it (or a file); ok when it does not exist.
  Status DeleteTree(const std::string& path);
};

}  // namespace cdclake::io
