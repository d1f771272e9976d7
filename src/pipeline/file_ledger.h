// FileLedger: every file a flow has read, as Auto Loader keeps it — its size and modification
// time when read, how far it was consumed, whether it was read to its end and how its last
// record ended — kept as immutable files beside the table (a base and small per-batch deltas,
// compacted now and then) that the flow's position names, so the ledger moves with the commit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"
#include "json/json.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

/// What the ledger knows of one file.
struct LedgerEntry {
  int64_t size = 0;      // its size when it was opened
  int64_t mtime_ms = 0;  // its modification time then
  /// Every record starting before this byte offset was consumed.
  int64_t consumed = 0;
  /// Read to its end (a pending, not yet whole last record excluded: see `consumed`).
  bool done = false;
  /// Its last consumed record ended the file without a terminator (ChangeSource::
  /// UnterminatedLast), passed back when the file is read on.
  std::optional<sources::RecordSpan> unterminated_last;
  /// io::FileDigest of its first `size` bytes, taken when it was opened; empty when not taken
  /// (files of streams, which Auto Loader tells apart by size and modification time alone). A
  /// named file whose ledger entry is done with the same size, time and digest is not read again.
  std::string digest;

  bool operator==(const LedgerEntry& o) const;
};

/// The ledger files a position names, base first, in the ledger folder.
struct LedgerRef {
  std::vector<std::string> files;

  json::Json ToJson() const;
  static Result<LedgerRef> FromJson(const json::Json& value);
};

/// The folder of `flow`'s ledger in the table at `table_root`: "<table>/_cdclake/ledger/<flow>".
std::string LedgerFolder(const std::string& table_root, const std::string& flow);

class FileLedger {
 public:
  FileLedger() = default;
  /// An empty ledger kept in `folder`.
  explicit FileLedger(std::string folder) : folder_(std::move(folder)) {}

  /// The ledger `ref` names in `folder` (later files' entries replace earlier ones). Files in
  /// the folder that `ref` does not name (left by a batch that never committed) are ignored.
  /// kNotFound naming the file when one is missing.
  static Result<FileLedger> Load(const io::FileSystem& fs, std::string folder,
                                 const LedgerRef& ref);

  const LedgerEntry* Find(const std::string& path) const;
  size_t size() const { return entries_.size(); }
  const LedgerRef& ref() const { return ref_; }

  /// Once loaded from the ref a committed position names: deletes the files of generations
  /// (a base and its deltas) more than two bases older than that ref's, so the folder holds
  /// about three copies of the ledger however long the flow runs. Best effort (a file left
  /// behind costs space only).
  void DeleteOldGenerations(io::FileSystem& fs) const;

  /// Records `changed` (path -> entry): as a new delta file, or — when the deltas have grown to
  /// a fair share of the base, or number more than a few — as a new base holding everything.
  /// Returns the ref naming the ledger with them, for the batch's position. Files are never
  /// rewritten or deleted: a ref recorded earlier still reads as it did.
  Result<LedgerRef> Record(io::FileSystem& fs,
                           const std::unordered_map<std::string, LedgerEntry>& changed);

 private:
  Status ReadFile(const io::FileSystem& fs, const std::string& name);
  Result<std::string> WriteFile(io::FileSystem& fs, const std::string& kind,
                                const std::unordered_map<std::string, LedgerEntry>& entries);

  std::string folder_;
  std::unordered_map<std::string, LedgerEntry> entries_;
  LedgerRef ref_;
  int64_t base_entries_ = 0;
  int64_t delta_entries_ = 0;
  int64_t generation_ = 0;  // of the current base (file names start "g<generation>-")
};

}  // namespace cdclake::pipeline
