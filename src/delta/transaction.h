// Transaction: an optimistic commit (§Creation of New Log Entries). The next version's commit
// file is published with put-if-absent; when another writer won that version, the winning
// commits are read and the commit is retried at the next version if the two can both stand
// (both only appended files, no protocol, metadata or application-transaction change),
// otherwise it fails with kConflict. The table is never left torn: a commit is one file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::delta {

struct CommitOptions {
  std::string operation = "WRITE";
  json::Json operation_parameters = json::Json::object();
  json::Json operation_metrics = json::Json::object();
  int max_attempts = 20;
};

class Transaction {
 public:
  /// `read_snapshot` is the version the changes were based on; nullptr creates the table
  /// (the actions must then hold a protocol and a metaData).
  Transaction(io::FileSystem& fs, std::string table_root,
              std::shared_ptr<const Snapshot> read_snapshot);

  void Add(Action action) { actions_.push_back(std::move(action)); }
  const std::vector<Action>& actions() const { return actions_; }

  /// Publishes the actions as the next version; returns that version. When that version is a
  /// multiple of the table's `delta.checkpointInterval` (default 10), a checkpoint follows; its
  /// failure does not fail the commit.
  Result<int64_t> Commit(const CommitOptions& options = {});

 private:
  void CheckpointIfDue(int64_t version);
  Status CheckConflicts(int64_t from_version, int64_t to_version) const;
  bool IsBlindAppend() const;

  io::FileSystem& fs_;
  std::string table_root_;
  std::shared_ptr<const Snapshot> read_snapshot_;
  std::vector<Action> actions_;
};

/// Milliseconds since the epoch, now.
int64_t NowMillis();

}  // namespace cdclake::delta
