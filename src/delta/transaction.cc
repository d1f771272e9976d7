// Optimistic commits with conflict checks.
#include "delta/transaction.h"

#include <chrono>

#include "delta/checkpoint_writer.h"
#include "delta/log_segment.h"
#include "delta/metadata_change.h"

namespace cdclake::delta {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Transaction::Transaction(io::FileSystem& fs, std::string table_root,
                         std::shared_ptr<const Snapshot> read_snapshot)
    : fs_(fs), table_root_(std::move(table_root)), read_snapshot_(std::move(read_snapshot)) {}

bool Transaction::IsBlindAppend() const {
  for (const Action& a : actions_) {
    if (!std::holds_alternative<delta::Add>(a) && !std::holds_alternative<CommitInfo>(a) &&
        !std::holds_alternative<AddCdc>(a)) {
      return false;
    }
  }
  return true;
}

Status Transaction::CheckConflicts(int64_t from_version, int64_t to_version) const {
  bool blind = IsBlindAppend();
  for (int64_t v = from_version; v <= to_version; ++v) {
    std::string path = CommitPath(table_root_, v);
    CDCLAKE_ASSIGN_OR_RETURN(std::string content, fs_.ReadFile(path));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Action> winner, ParseActions(content));
    for (const Action& w : winner) {
      if (std::holds_alternative<Protocol>(w) || std::holds_alternative<Metadata>(w)) {
        return Status::Conflict("version " + std::to_string(v) +
                                " changed the table's protocol or metadata");
      }
      if (const auto* d = std::get_if<DomainMetadata>(&w)) {
        for (const Action& mine : actions_) {
          const auto* m = std::get_if<DomainMetadata>(&mine);
          if (m && m->domain == d->domain) {
            return Status::Conflict("version " + std::to_string(v) + " also wrote domain '" +
                                    d->domain + "'");
          }
        }
      }
      if (const auto* t = std::get_if<Txn>(&w)) {
        for (const Action& mine : actions_) {
          const auto* m = std::get_if<Txn>(&mine);
          if (m && m->app_id == t->app_id) {
            return Status::Conflict("version " + std::to_string(v) +
                                    " also committed for application '" + t->app_id + "'");
          }
        }
      }
    }
    // The named conflicts above first; then any change that is not an append on both sides.
    for (const Action& w : winner) {
      bool winner_appends_only =
          std::holds_alternative<delta::Add>(w) || std::holds_alternative<CommitInfo>(w) ||
          std::holds_alternative<AddCdc>(w) || std::holds_alternative<Txn>(w);
      if (!blind || !winner_appends_only) {
        return Status::Conflict(
            "version " + std::to_string(v) +
            " was committed concurrently and the two changes are not both appends");
      }
    }
  }
  return Status::OK();
}

void Transaction::CheckpointIfDue(int64_t version) {
  if (version <= 0 || !read_snapshot_) return;
  // The table's metadata as of `version`: this commit's, else the one read (a concurrent
  // metadata change would have been a conflict). Knowing the interval here spares loading the
  // snapshot after every commit.
  const Metadata* metadata = &read_snapshot_->metadata();
  for (const Action& a : actions_) {
    if (const auto* m = std::get_if<Metadata>(&a)) metadata = m;
  }
  if (version % CheckpointInterval(*metadata) != 0) return;
  // The commit is durable already: a checkpoint that fails (a crash, a full disk, a race) is
  // simply not there, and the next one due will be written.
  Status checkpoint = MaybeCheckpoint(fs_, table_root_, version);
  (void)checkpoint;
}

namespace {

// The writer feature a table needs before a commit may carry domainMetadata.
constexpr const char* kDomainMetadataFeature = "domainMetadata";

// A commit carrying domainMetadata on a table whose protocol lacks the writer feature also
// carries the protocol with it added (WithWriterFeature), replacing a protocol it already has.
void AddDomainFeatureIfNeeded(const Snapshot* read, std::vector<Action>& actions_) {
  bool domains = false;
  const Protocol* protocol = read != nullptr ? &read->protocol() : nullptr;
  for (const Action& a : actions_) {
    domains = domains || std::holds_alternative<DomainMetadata>(a);
    if (const auto* p = std::get_if<Protocol>(&a)) protocol = p;
  }
  if (!domains || protocol == nullptr) return;
  Protocol needed = WithWriterFeature(*protocol, kDomainMetadataFeature);
  if (needed.writer_features == protocol->writer_features &&
      needed.min_writer_version == protocol->min_writer_version) {
    return;
  }
  for (Action& a : actions_) {
    if (auto* p = std::get_if<Protocol>(&a)) {
      *p = std::move(needed);
      return;
    }
  }
  actions_.insert(actions_.begin(), std::move(needed));
}

}  // namespace

Result<int64_t> Transaction::Commit(const CommitOptions& options) {
  AddDomainFeatureIfNeeded(read_snapshot_.get(), actions_);
  int64_t version = read_snapshot_ ? read_snapshot_->version() + 1 : 0;
  int64_t now = NowMillis();
  CommitInfo info;
  info.value = json::Json{{"timestamp", now},
                          {"operation", options.operation},
                          {"operationParameters", options.operation_parameters},
                          {"operationMetrics", options.operation_metrics},
                          {"isBlindAppend", IsBlindAppend()},
                          {"engineInfo", "cdclake/0.1.0"}};
  if (read_snapshot_) info.value["readVersion"] = read_snapshot_->version();
  // In-commit timestamps: on when the table (or the metadata this commit sets) enables them.
  bool ict = read_snapshot_ && read_snapshot_->Property("delta.enableInCommitTimestamps") == "true";
  for (const Action& a : actions_) {
    if (const auto* m = std::get_if<Metadata>(&a)) {
      auto it = m->configuration.find("delta.enableInCommitTimestamps");
      ict = it != m->configuration.end() && it->second == "true";
    }
  }
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    if (ict) {
      int64_t previous = read_snapshot_ ? read_snapshot_->timestamp_ms() : 0;
      info.value["inCommitTimestamp"] = std::max(now, previous + 1);
    }
    std::vector<Action> all;
    all.push_back(info);
    for (const Action& a : actions_) all.push_back(a);
    Status put = fs_.PutIfAbsent(CommitPath(table_root_, version), ActionsToJsonLines(all));
    if (put.ok()) {
      CheckpointIfDue(version);
      return version;
    }
    if (put.code() != StatusCode::kAlreadyExists) return put;
    if (!read_snapshot_)
      return Status::Conflict(table_root_ + ": the table was created concurrently");
    // Another writer won `version`: find how far the log got, and see if we can follow.
    CDCLAKE_ASSIGN_OR_RETURN(LogSegment seg, ListLogSegment(fs_, table_root_));
    CDCLAKE_RETURN_IF_ERROR(CheckConflicts(version, seg.latest_version));
    version = seg.latest_version + 1;
  }
  return Status::Conflict(table_root_ + ": gave up after " + std::to_string(options.max_attempts) +
                          " lost commit races");
}

}  // namespace cdclake::delta
