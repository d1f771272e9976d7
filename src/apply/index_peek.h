// IndexPeek: a target's key index read without writing anything, for tools (`cdclake explain`):
// the RocksDB index opened read only and caught up from the index log in memory, or the index
// log alone when the index cannot be opened.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "apply/key_index.h"
#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::apply {

/// The key-index entry holding `key`'s KeyState (key_state.h): 'k' and the key's encoding.
std::string KeyStateEntry(std::string_view key);

struct IndexPeek {
  /// The index as of the table version asked for, read only (Write fails): the entries the
  /// `keep` of PeekTableIndex selects, the metadata entries ("m:...") and the file dictionary
  /// ("F...") are current; other entries may be older.
  std::unique_ptr<KeyIndex> index;
  /// The on-disk index was used (read only); else the index log alone was replayed.
  bool from_disk = false;
  /// The version the on-disk index reflected when opened (-1 when it was not used): the index
  /// log's later versions were replayed on top of it.
  int64_t disk_version = -1;
  /// Why the on-disk index was not used ("" when it was, or when the table has none: a table
  /// on another file system, or written with the index in memory).
  std::string problem;
};

/// Opens the key index of the table at `table_root` (latest version `table_version`) for
/// reading, changing nothing on disk: `<table>/_cdclake/index` read only (no lock taken, so a
/// running flow is not disturbed; see OpenRocksKeyIndexReadOnly), then the index-log files of
/// the versions it lacks replayed into memory, keeping only the entries `keep` selects (plus
/// metadata and file entries). When that index is missing, cannot be opened or is ahead of the
/// table, the index log is replayed from its base (`problem` says why). An error when the index
/// log cannot be replayed either (files missing or damaged; a table written by another writer).
/// REQUIRES: table_version >= 0.
Result<IndexPeek> PeekTableIndex(const io::FileSystem& fs, const std::string& table_root,
                                 int64_t table_version,
                                 const std::function<bool(std::string_view entry)>& keep);

}  // namespace cdclake::apply
