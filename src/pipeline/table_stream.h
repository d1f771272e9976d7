// TableStream: a Delta table read as a stream — the rows each commit appended, version by
// version after a starting version, as a streaming table yields them to the flows reading it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "data/record_batch.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::pipeline {

/// The rows one commit appended.
struct AppendedRows {
  int64_t version = 0;
  int64_t timestamp_ms = 0;  // the commit's (commitInfo's), 0 when it records none
  data::RecordBatch rows;
};

class TableStream {
 public:
  /// A stream over `table_root`'s commits after `after_version` (-1: from the first) up to its
  /// latest version now. Later commits are seen by opening a new stream.
  /// With `skip_change_commits` a commit that removed or rewrote rows is passed over whole
  /// (Delta's skipChangeCommits), its appended rows too.
  static Result<std::unique_ptr<TableStream>> Open(const io::FileSystem& fs, std::string table_root,
                                                   int64_t after_version,
                                                   bool skip_change_commits = false);

  /// The latest version this stream reads up to.
  int64_t latest_version() const { return snapshot_->version(); }

  /// The next commit with appended rows (commits that append nothing — metadata changes,
  /// compaction — are passed over), or nullopt past the latest version. Rows are read with the
  /// latest schema: columns added later are NULL in earlier rows. kNotSupported when a commit
  /// removed or rewrote rows (a stream accepts appends only; unless such commits are skipped),
  /// naming the table and version;
  /// kNotFound when a commit file is gone (log cleanup ran past the stream's position).
  Result<std::optional<AppendedRows>> Next();

 private:
  TableStream(const io::FileSystem& fs, std::string table_root,
              std::shared_ptr<const delta::Snapshot> snapshot, int64_t next_version,
              bool skip_change_commits)
      : fs_(fs),
        table_root_(std::move(table_root)),
        snapshot_(std::move(snapshot)),
        next_version_(next_version),
        skip_change_commits_(skip_change_commits) {}

  const io::FileSystem& fs_;
  std::string table_root_;
  std::shared_ptr<const delta::Snapshot> snapshot_;
  int64_t next_version_;
  bool skip_change_commits_;
};

}  // namespace cdclake::pipeline
