// MemoryFileSystem: a FileSystem held in memory for tests, with a settable clock, injected
// failures (to cut a writer off at any operation, like a crash) and a hook to stage commit races.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"

namespace cdclake::io {

/// Files in a map, safe to share between threads. Paths are normalized (repeated and trailing
/// '/' and "." parts dropped), so "a//b/" and "a/b" name the same entry; "" and "/" are roots
/// that always exist. Folders are implied by the files below them; CreateDirs records empty
/// ones, and a folder stays after its last file is deleted or renamed away (as on disk). A file
/// and a folder cannot share a name.
///
/// Writes through OpenWrite are private to their stream until Close() succeeds; a stream that
/// is destroyed unclosed leaves nothing behind (like a process that died before its rename).
///
/// REQUIRES: the file system outlives the streams it opened (files opened for reading hold
/// their own copy of the data and may outlive it).
class MemoryFileSystem : public FileSystem {
 public:
  MemoryFileSystem();
  ~MemoryFileSystem() override;

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override;
  Result<std::unique_ptr<OutputStream>> OpenWrite(const std::string& path) override;
  /// One mutating operation (unlike the default, which is an OpenWrite, Append and Close).
  Status WriteFile(const std::string& path, std::string_view data) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Result<bool> Exists(const std::string& path) const override;
  Result<FileInfo> Stat(const std::string& path) const override;
  Result<std::vector<FileInfo>> List(const std::string& dir) const override;
  Status CreateDirs(const std::string& dir) override;
  /// Removes a file; ok when nothing has that name; kIoError for a folder.
  Status Delete(const std::string& path) override;
  /// Moves a file (not a folder), keeping its modification time.
  Status Rename(const std::string& from, const std::string& to) override;

  // --- Clock -----------------------------------------------------------------------------

  /// Where modification times come from (milliseconds since the Unix epoch). The default, and
  /// what nullptr restores, is the system clock. Called with the file system's lock held: it
  /// must not call back into the file system.
  void SetClock(std::function<int64_t()> now_ms);
  /// A clock stopped at `now_ms`.
  void SetNowMs(int64_t now_ms);
  /// Back-dates (or forward-dates) one file; kNotFound when there is no such file.
  Status SetModificationTime(const std::string& path, int64_t modification_time_ms);

  // --- Fault injection ---------------------------------------------------------------------
  //
  // The mutating operations that count are Append, Close, PutIfAbsent, WriteFile, Rename and
  // Delete, one each. After FailAfter(n), n more of them go through; from then on every one,
  // and CreateDirs, returns kIoError("injected failure") and changes nothing, as if the process
  // had died at that point. Reads keep working, so a test can inspect what a crash left behind.

  /// REQUIRES: operations >= 0. FailAfter(0) fails the very next mutating operation.
  void FailAfter(int64_t operations);
  /// Stops injecting failures (the "restarted" process works normally).
  void ClearFailure();
  /// Whether injected failures are being returned now.
  bool failing() const;
  /// How many counted mutating operations have been attempted so far, including failed ones.
  /// Run a scenario once and read it to learn how many crash points there are.
  int64_t mutation_count() const;

  // --- Commit races ------------------------------------------------------------------------

  /// Called at the start of every PutIfAbsent, before it checks for an existing file, with the
  /// path; a test publishes a competing file there to make the caller lose a race. nullptr
  /// removes the hook. The hook runs without the lock held and may use this file system;
  /// PutIfAbsent calls made from inside the hook do not call it again.
  void SetBeforePutIfAbsent(std::function<void(const std::string& path)> hook);

 private:
  class Stream;
  struct Entry {
    std::shared_ptr<const std::string> data;
    int64_t modification_time_ms = 0;
  };

  // All REQUIRE mu_ held.
  Status CountMutation();
  Status CheckNotFailing() const;
  int64_t Now() const;
  bool IsDir(const std::string& key) const;
  bool HasChildren(const std::string& key) const;
  Status CheckCanHoldFile(const std::string& key, const std::string& path) const;
  void Publish(const std::string& key, std::string data);

  // Close() of a stream: one counted operation that publishes `data` under `path`.
  Status CloseStream(const std::string& path, std::string data);
  // Append() of a stream: one counted operation.
  Status CountAppend();

  mutable std::mutex mu_;
  std::map<std::string, Entry> files_;  // by normalized path
  std::set<std::string> dirs_;          // folders kept without files below them
  std::function<int64_t()> clock_;
  std::function<void(const std::string&)> before_put_if_absent_;
  int64_t mutation_count_ = 0;
  int64_t operations_before_failure_ = -1;  // -1: no failure planned
};

}  // namespace cdclake::io
