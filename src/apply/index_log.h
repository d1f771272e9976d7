// IndexLog: the key index's durable form. Each commit the engine writes carries, in a Parquet
// file under `<table>/_cdclake/index_log/`, the index entries it changed; the commit's
// commitInfo names the file. Replaying those files in version order rebuilds the index, so
// the index (and the tombstones in it) survive crashes and deletion. See docs/apply.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "apply/key_index.h"
#include "base/progress.h"
#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::apply {

/// The commitInfo operationParameters member that names a commit's index-log file.
inline constexpr const char* kIndexLogParameter = "cdclake.indexLog";
/// The index metadata entry holding the table version the index reflects.
inline constexpr const char* kIndexVersionKey = "m:version";

std::string IndexDir(const std::string& table_root);
std::string IndexLogDir(const std::string& table_root);

/// Writes `batch` as a new index-log file; returns its name (relative to IndexLogDir).
Result<std::string> WriteIndexLog(io::FileSystem& fs, const std::string& table_root,
                                  const IndexWriteBatch& batch);

/// Reads an index-log file back into a write batch.
Result<IndexWriteBatch> ReadIndexLog(const io::FileSystem& fs, const std::string& table_root,
                                     const std::string& name);

/// Writes the whole of `index` (which reflects table `version`) as one index-log file and
/// names it in `<table>/_cdclake/index_base.json`, so that a later replay starts from it
/// instead of version 0 (after a rebuild from the table's rows, whose earlier index-log files
/// are gone).
Status WriteIndexBase(io::FileSystem& fs, const std::string& table_root, KeyIndex& index,
                      int64_t version);

/// The table version `index` reflects (-1 when empty).
Result<int64_t> IndexVersion(KeyIndex& index);

/// Brings `index` from the version it reflects up to `table_version` by replaying the
/// index-log files named by the commits in between, each with its version. An empty index
/// starts from the index base (WriteIndexBase) when there is one at or before `table_version`. A
/// commit that adds or removes data files without an index-log file (another writer) is
/// kNotSupported, naming the version and its operation. `progress` hears of the commits
/// replayed.
Status CatchUp(const io::FileSystem& fs, const std::string& table_root, int64_t table_version,
               KeyIndex& index, const ProgressFn& progress = {});

/// Opens the key index of the table at `table_root` (whose latest version is `table_version`,
/// -1 when there is no table yet) and catches it up: RocksDB under IndexDir when `persistent`
/// and `fs` is the local file system, else in memory (rebuilt from the index log). An index
/// ahead of the table (a restored table) or without a table is dropped and rebuilt.
Result<std::unique_ptr<KeyIndex>> OpenTableIndex(io::FileSystem& fs, const std::string& table_root,
                                                 int64_t table_version, bool persistent);

}  // namespace cdclake::apply
