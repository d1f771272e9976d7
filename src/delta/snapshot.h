// Snapshot: the immutable state of a table at one version, from log replay (§Action
// Reconciliation): protocol, metadata, the live files keyed by path and deletion vector, the
// tombstones, application transaction versions and domain metadata.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "delta/actions.h"
#include "delta/schema_json.h"
#include "io/file_system.h"

namespace cdclake::delta {

class Snapshot {
 public:
  /// Replays the log up to `version` (default: the latest). A table whose protocol needs a
  /// feature cdclake cannot read fails with kNotSupported("not supported: <feature>").
  static Result<std::shared_ptr<const Snapshot>> Load(
      const io::FileSystem& fs, const std::string& table_root,
      std::optional<int64_t> version = std::nullopt);
  /// The snapshot at `version` (default: the latest) of `base`'s table, by replaying only the
  /// commits after `base` onto it: what a writer does after its own commit instead of reading
  /// the checkpoint and every commit since again. The same result as Load; Load itself when a
  /// commit after `base` is missing (log cleanup). REQUIRES: `version`, if given, > base's.
  static Result<std::shared_ptr<const Snapshot>> LoadAfter(
      const io::FileSystem& fs, const Snapshot& base,
      std::optional<int64_t> version = std::nullopt);
  /// The latest version whose commit timestamp is at or before `timestamp_ms`.
  static Result<std::shared_ptr<const Snapshot>> LoadAsOf(const io::FileSystem& fs,
                                                          const std::string& table_root,
                                                          int64_t timestamp_ms);

  const std::string& table_root() const { return table_root_; }
  int64_t version() const { return version_; }
  /// The commit's timestamp: its in-commit timestamp when the table records them, else the
  /// commit file's modification time.
  int64_t timestamp_ms() const { return timestamp_ms_; }
  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  const DeltaSchema& delta_schema() const { return schema_; }
  /// The logical schema (data columns and partition columns, in the table's order).
  const data::Schema& schema() const { return schema_.schema; }
  /// "none", "name" or "id".
  const std::string& column_mapping_mode() const { return column_mapping_mode_; }
  /// Live files, ordered by path.
  const std::vector<Add>& files() const { return files_; }
  /// Removed files still within the tombstone retention (for vacuum).
  const std::vector<Remove>& tombstones() const { return tombstones_; }
  /// The last version recorded by application `app_id` (§Transaction Identifiers).
  std::optional<int64_t> TxnVersion(const std::string& app_id) const;
  const std::map<std::string, Txn>& txns() const { return txns_; }
  const std::map<std::string, DomainMetadata>& domains() const { return domains_; }
  /// A table property, or `fallback`.
  std::string Property(const std::string& key, const std::string& fallback = "") const;

  int64_t num_records() const;  // from file statistics; -1 when any file lacks them

 private:
  std::string table_root_;
  int64_t version_ = -1;
  int64_t timestamp_ms_ = 0;
  Protocol protocol_;
  Metadata metadata_;
  DeltaSchema schema_;
  std::string column_mapping_mode_ = "none";
  std::vector<Add> files_;
  std::vector<Remove> tombstones_;
  std::map<std::string, Txn> txns_;
  std::map<std::string, DomainMetadata> domains_;

  // Checks and derived fields once the actions are in (Load, LoadAfter).
  static Result<std::shared_ptr<const Snapshot>> Finalize(std::shared_ptr<Snapshot> snap,
                                                          std::optional<int64_t> last_ict,
                                                          int64_t last_mtime);

  friend class SnapshotBuilder;
};

/// The table features this reader understands (§Table Features), and the check.
Status CheckReadable(const Protocol& protocol);

}  // namespace cdclake::delta
