// PgTableCopy: a table's rows in an exported snapshot as chunks of change rows: over one
// connection, read as the caller asks; over several at once, each one range of the table's
// blocks read by a thread of its own, the chunks handed out as they are ready.
// POSTGRES-SOURCE.md section 2 has the snapshot hand-off this is the copy of.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sources/postgres/change_spool.h"
#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/pg_copy.h"

namespace cdclake::sources::postgres {

class PgSnapshotRows;

struct PgCopySpec {
  std::string connection;  // libpq's conninfo
  std::string snapshot;    // the exported snapshot's name (CREATE_REPLICATION_SLOT)
  /// Connections copying at once, each a range of the table's blocks. Fewer when the table is
  /// small (under `min_range_blocks` blocks a range) or the server is older than PostgreSQL 14
  /// (a range is then read by a TID range scan; before, each would scan the whole table).
  int connections = 1;
  int64_t min_range_blocks = 1024;  // 8 MB with the default block size
  /// The rows the reader asks Next for at a time. Over several connections, each thread hands
  /// over chunks of a part of it (at most 65,536 rows) and one more waits ready: about a batch
  /// in memory beside the reader's.
  int64_t batch_rows = 100000;
};

/// The block ranges [from, to) of a table of `blocks` blocks for `connections` copies, at least
/// `min_range_blocks` each; from 0 for the first and to -1 (no end) for the last, so rows in
/// blocks past `blocks` (the table grew) are read too. Exposed for tests.
std::vector<std::pair<int64_t, int64_t>> BlockRanges(int64_t blocks, int connections,
                                                     int64_t min_range_blocks);

class PgTableCopy {
 public:
  /// Opens the connections, each importing `spec.snapshot` (which must be alive: its
  /// replication connection idle) and starting its COPY before this returns, so the exported
  /// snapshot may go once it has. The rows are `r` rows of `relation` at `consistent_point`, as
  /// PgSnapshotRows makes them.
  static Result<std::unique_ptr<PgTableCopy>> Start(const PgCopySpec& spec,
                                                    const RelationInfo& relation,
                                                    const std::string& database,
                                                    Lsn consistent_point, int64_t commit_time_us);
  /// Stops the copies not ended yet (their statements cancelled) and waits for their threads.
  ~PgTableCopy();
  PgTableCopy(const PgTableCopy&) = delete;
  PgTableCopy& operator=(const PgTableCopy&) = delete;

  /// The next rows, at most `max_records` records (rows and rejected ones), numbered in `_seq`'s
  /// ordinal from `first_ordinal` on; nullopt once every range is copied whole. The first error
  /// of any range is returned, naming the table and the range, and again on every later call.
  Result<std::optional<change::ChangeBatch>> Next(int64_t first_ordinal, int64_t max_records);
  /// Whether every row has been handed out: waits for the next chunk or for the last range's end.
  Result<bool> Done();

  /// Connections copying (ranges of the table).
  size_t ranges() const { return ranges_.size(); }

 private:
  struct Range {
    std::string name;  // "copying public.t, blocks 0 to 1200": for errors
    std::unique_ptr<PgConnection> connection;
    std::unique_ptr<PgCopyOut> copy;         // null once the COPY has ended and its transaction too
    change::ChangeBatch chunk;               // rows read and not handed out yet
    std::unique_ptr<PgSnapshotRows> writer;  // into `chunk`
    std::unique_ptr<PgCanceller> canceller;  // with a thread
    std::thread thread;
    bool ended = false;  // its thread is done (under mutex_)
  };
  PgTableCopy() = default;
  // Reads `range`'s rows into its chunk until it holds `records` records or the COPY ends.
  Status ReadInto(Range& range, int64_t records);
  // `range`'s chunk, handed out; the range starts a new one.
  change::ChangeBatch TakeChunk(Range& range);
  // One range, read in the caller's thread: ReadInto, its first error kept as the copy's.
  Status ReadOne(int64_t records);
  void Copy(Range* range);
  // Hands `chunk` over, waiting for room; false when the copy is being stopped or has failed.
  bool Push(change::ChangeBatch chunk);
  // Waits for a chunk or the end; the error of a range that failed.
  Status Wait(std::unique_lock<std::mutex>& lock);

  int64_t chunk_rows_ = 0;  // rows a copying thread hands over at a time
  data::Schema schema_;     // PgChangeSchema(relation)
  size_t seq_column_ = 0;   // _seq's, whose ordinal Next numbers
  std::vector<Range> ranges_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<change::ChangeBatch> chunks_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::optional<Status> failed_;
};

}  // namespace cdclake::sources::postgres
