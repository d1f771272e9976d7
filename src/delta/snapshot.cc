// Log replay into a Snapshot.
#include "delta/snapshot.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "delta/checkpoint_reader.h"
#include "delta/file_statistics.h"
#include "delta/log_segment.h"
#include "delta/type_widening.h"

namespace cdclake::delta {

Status CheckReadable(const Protocol& p) {
  if (p.min_reader_version > 3) {
    return Status::NotSupported("not supported: reader version " +
                                std::to_string(p.min_reader_version));
  }
  if (p.min_reader_version == 3) {
    static const std::set<std::string> kKnown = {
        "columnMapping",       "deletionVectors", "timestampNtz",        "v2Checkpoint",
        "vacuumProtocolCheck", "typeWidening",    "typeWidening-preview"};
    for (const std::string& f : p.reader_features.value_or(std::vector<std::string>{})) {
      if (!kKnown.count(f)) return Status::NotSupported("not supported: " + f);
    }
  }
  return Status::OK();
}

class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(Snapshot* s) : s_(s) {}

  void Apply(Action&& action) {
    std::visit(
        [&](auto&& a) {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, Protocol>) {
            s_->protocol_ = std::move(a);
            have_protocol_ = true;
          } else if constexpr (std::is_same_v<T, Metadata>) {
            s_->metadata_ = std::move(a);
            have_metadata_ = true;
          } else if constexpr (std::is_same_v<T, Add>) {
            std::string key = FileKey(a.path, a.deletion_vector);
            removed_.erase(key);
            // A newer add of the same path replaces the file; one with another DV replaces the
            // old (path, dv) pair only through an explicit remove, which writers always emit.
            live_[key] = std::move(a);
          } else if constexpr (std::is_same_v<T, Remove>) {
            std::string key = FileKey(a.path, a.deletion_vector);
            live_.erase(key);
            removed_[key] = std::move(a);
          } else if constexpr (std::is_same_v<T, Txn>) {
            s_->txns_[a.app_id] = std::move(a);
          } else if constexpr (std::is_same_v<T, DomainMetadata>) {
            if (a.removed) {
              s_->domains_.erase(a.domain);
            } else {
              s_->domains_[a.domain] = std::move(a);
            }
          }
        },
        std::move(action));
  }

  Status Finish() {
    if (!have_protocol_)
      return Status::Corrupt(s_->table_root_ + ": the log has no protocol action");
    if (!have_metadata_)
      return Status::Corrupt(s_->table_root_ + ": the log has no metaData action");
    for (auto& [_, add] : live_) s_->files_.push_back(std::move(add));
    std::sort(s_->files_.begin(), s_->files_.end(),
              [](const Add& a, const Add& b) { return a.path < b.path; });
    for (auto& [_, rm] : removed_) s_->tombstones_.push_back(std::move(rm));
    return Status::OK();
  }

 private:
  Snapshot* s_;
  bool have_protocol_ = false;
  bool have_metadata_ = false;
  std::unordered_map<std::string, Add> live_;
  std::unordered_map<std::string, Remove> removed_;
};

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(const io::FileSystem& fs,
                                                       const std::string& table_root,
                                                       std::optional<int64_t> version) {
  CDCLAKE_ASSIGN_OR_RETURN(LogSegment seg, ListLogSegment(fs, table_root, version));
  auto snap = std::make_shared<Snapshot>();
  snap->table_root_ = table_root;
  snap->version_ = seg.version;
  SnapshotBuilder builder(snap.get());
  if (!seg.checkpoint_files.empty()) {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Action> actions,
                             ReadCheckpoint(fs, table_root, seg.checkpoint_files));
    for (Action& a : actions) builder.Apply(std::move(a));
  }
  std::optional<int64_t> last_ict;
  int64_t last_mtime = seg.checkpoint_modification_time_ms;  // when no commit follows it
  for (const LogFile& commit : seg.commits) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(commit.path));
    auto actions = ParseActions(content);
    if (!actions.ok()) return actions.status().WithContext(commit.path);
    last_ict.reset();
    for (Action& a : *actions) {
      if (const auto* ci = std::get_if<CommitInfo>(&a)) last_ict = ci->in_commit_timestamp;
      builder.Apply(std::move(a));
    }
    last_mtime = commit.modification_time_ms;
  }
  CDCLAKE_RETURN_IF_ERROR(builder.Finish());
  return Finalize(std::move(snap), last_ict, last_mtime);
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Finalize(std::shared_ptr<Snapshot> snap,
                                                           std::optional<int64_t> last_ict,
                                                           int64_t last_mtime) {
  const std::string& table_root = snap->table_root_;
  CDCLAKE_RETURN_IF_ERROR(CheckReadable(snap->protocol_).WithContext(table_root));
  bool ict = snap->Property("delta.enableInCommitTimestamps") == "true";
  snap->timestamp_ms_ = ict && last_ict ? *last_ict : last_mtime;
  auto schema = ParseDeltaSchema(snap->metadata_.schema_string);
  if (!schema.ok()) return schema.status().WithContext(table_root + ": schemaString");
  snap->schema_ = std::move(schema).value();
  if (HasTypeWidening(snap->protocol_)) {
    CDCLAKE_RETURN_IF_ERROR(CheckTypeChanges(snap->schema_).WithContext(table_root));
  }
  snap->column_mapping_mode_ = snap->Property("delta.columnMapping.mode", "none");
  return std::shared_ptr<const Snapshot>(std::move(snap));
}

Result<std::shared_ptr<const Snapshot>> Snapshot::LoadAfter(const io::FileSystem& fs,
                                                            const Snapshot& base,
                                                            std::optional<int64_t> version) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<LogFile> commits, ListCommits(fs, base.table_root_));
  std::vector<const LogFile*> after;
  for (const LogFile& c : commits) {
    if (c.version > base.version_ && (!version || c.version <= *version)) after.push_back(&c);
  }
  std::sort(after.begin(), after.end(),
            [](const LogFile* a, const LogFile* b) { return a->version < b->version; });
  // Every commit from the base on must be there (log cleanup may have removed some: then the
  // table is replayed from its checkpoint as usual).
  const bool contiguous =
      !after.empty() && (!version || after.back()->version == *version) &&
      after.back()->version - after.front()->version + 1 == static_cast<int64_t>(after.size()) &&
      after.front()->version == base.version_ + 1;
  if (!contiguous) return Load(fs, base.table_root_, version);
  auto snap = std::make_shared<Snapshot>();
  snap->table_root_ = base.table_root_;
  snap->version_ = after.back()->version;
  SnapshotBuilder builder(snap.get());
  builder.Apply(Protocol(base.protocol_));
  builder.Apply(Metadata(base.metadata_));
  for (const Add& a : base.files_) builder.Apply(Add(a));
  for (const Remove& r : base.tombstones_) builder.Apply(Remove(r));
  snap->txns_ = base.txns_;
  snap->domains_ = base.domains_;
  std::optional<int64_t> last_ict;
  int64_t last_mtime = base.timestamp_ms_;
  for (const LogFile* commit : after) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(commit->path));
    auto actions = ParseActions(content);
    if (!actions.ok()) return actions.status().WithContext(commit->path);
    last_ict.reset();
    for (Action& a : *actions) {
      if (const auto* ci = std::get_if<CommitInfo>(&a)) last_ict = ci->in_commit_timestamp;
      builder.Apply(std::move(a));
    }
    last_mtime = commit->modification_time_ms;
  }
  CDCLAKE_RETURN_IF_ERROR(builder.Finish());
  return Finalize(std::move(snap), last_ict, last_mtime);
}

Result<std::shared_ptr<const Snapshot>> Snapshot::LoadAsOf(const io::FileSystem& fs,
                                                           const std::string& table_root,
                                                           int64_t timestamp_ms) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<LogFile> commits, ListCommits(fs, table_root));
  std::optional<int64_t> chosen;
  for (const LogFile& c : commits) {
    int64_t ts = c.modification_time_ms;
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(c.path));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Action> actions, ParseActions(content));
    for (const Action& a : actions) {
      if (const auto* ci = std::get_if<CommitInfo>(&a)) {
        if (ci->in_commit_timestamp) ts = *ci->in_commit_timestamp;
      }
    }
    if (ts <= timestamp_ms) chosen = c.version;
  }
  if (!chosen) {
    return Status::NotFound(table_root + ": no version at or before timestamp " +
                            std::to_string(timestamp_ms));
  }
  return Load(fs, table_root, chosen);
}

std::optional<int64_t> Snapshot::TxnVersion(const std::string& app_id) const {
  auto it = txns_.find(app_id);
  if (it == txns_.end()) return std::nullopt;
  return it->second.version;
}

std::string Snapshot::Property(const std::string& key, const std::string& fallback) const {
  auto it = metadata_.configuration.find(key);
  return it == metadata_.configuration.end() ? fallback : it->second;
}

int64_t Snapshot::num_records() const {
  int64_t n = 0;
  for (const Add& a : files_) {
    if (!a.stats) return -1;
    auto stats = ParseStatsJson(*a.stats);
    if (!stats.ok() || stats->num_records < 0) return -1;
    n += stats->num_records;
    if (a.deletion_vector) n -= a.deletion_vector->cardinality;
  }
  return n;
}

}  // namespace cdclake::delta
