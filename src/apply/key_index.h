// KeyIndex: the persistent map from a key to its engine state (key_state.h), plus a few
// metadata entries (which table version it reflects). Writes are atomic batches.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace cdclake::apply {

/// Puts and deletes applied together, all or nothing.
struct IndexWriteBatch {
  std::vector<std::pair<std::string, std::string>> puts;
  std::vector<std::string> deletes;
  bool empty() const { return puts.empty() && deletes.empty(); }
};

class KeyIndex {
 public:
  virtual ~KeyIndex() = default;

  /// The value stored under `key`, or nullopt.
  virtual Result<std::optional<std::string>> Get(std::string_view key) = 0;

  /// Get for many keys at once (out[i] for keys[i]); faster than one by one.
  virtual Status MultiGet(std::span<const std::string> keys,
                          std::vector<std::optional<std::string>>* out) = 0;

  /// Applies every put and delete of `batch` atomically and durably (synced), so that after a
  /// crash either all or none of it is visible.
  virtual Status Write(const IndexWriteBatch& batch) = 0;

  /// Whether Get and MultiGet may run on several threads at once (with no writer).
  virtual bool SupportsConcurrentReads() const { return false; }

  /// Calls `visit(key, value)` for every entry whose key starts with `prefix`, in key order;
  /// stops early when visit returns false.
  virtual Status Scan(std::string_view prefix,
                      const std::function<bool(std::string_view, std::string_view)>& visit) = 0;
};

/// An index in memory (tests, and tables on a non-local file system).
std::unique_ptr<KeyIndex> NewMemoryKeyIndex();

/// An index whose entries total at most this many bytes uncompressed (about 1.5M keys of an
/// SCD1 table) is read through a memory map of its files, and the files it writes are not
/// compressed; a larger one is read into the block cache and writes LZ4 (one that outgrows the
/// budget while open writes LZ4 from then on, mapped until reopened). The map wins while a
/// batch's look-ups touch most of the index's pages, and loses past that (docs/apply.md, "The
/// key index and its durable form"). A budget of 0 or less never maps.
constexpr int64_t kIndexMapBudgetBytes = int64_t{96} << 20;

/// A RocksDB database in the local folder `path`, created if missing. Memory stays bounded
/// (block cache `cache_bytes`, and a memory map only of an index within `map_budget_bytes` at
/// open), so tables larger than RAM work. With `write_ahead_log` false, writes skip RocksDB's log
/// (and its fsync): each stays atomic, but a crash may lose the latest ones — for callers that can
/// redo them (the engine replays its index log).
Result<std::unique_ptr<KeyIndex>> OpenRocksKeyIndex(
    const std::string& path, int64_t cache_bytes = 256 << 20, bool write_ahead_log = true,
    int64_t map_budget_bytes = kIndexMapBudgetBytes);

/// The RocksDB database in the existing folder `path` opened read only, for tools: no lock is
/// taken and nothing is written there (not even RocksDB's LOG), so a flow may keep writing it
/// meanwhile; what that flow has not flushed yet is not seen. Write fails with kNotSupported.
Result<std::unique_ptr<KeyIndex>> OpenRocksKeyIndexReadOnly(
    const std::string& path, int64_t cache_bytes = 64 << 20,
    int64_t map_budget_bytes = kIndexMapBudgetBytes);

/// Removes the RocksDB database at `path` (used to drop an index that must be rebuilt).
Status DestroyRocksKeyIndex(const std::string& path);

}  // namespace cdclake::apply
