// PgTableReader: one PostgreSQL table read as change rows, exactly once across runs: the first
// run copies the table in the snapshot a new replication slot exports and then streams from the
// slot's consistent point; later runs stream from the position the Delta table recorded.
// POSTGRES-SOURCE.md (sections 2 and 3) has the hand-off and the argument.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "json/json.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/pg_table_copy.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/pgoutput_message.h"
#include "sources/postgres/stream_end.h"
#include "sources/postgres/transaction_assembler.h"

namespace cdclake::sources::postgres {

class ReplicationStream;
class SharedSlot;

/// read_postgres(connection => ..., publication => ..., slot => ..., table => ...).
struct PgTableSpec {
  std::string connection;   // libpq's conninfo
  std::string publication;  // must exist and publish `table`
  std::string slot;         // created on the first run
  std::string table;        // "schema.name", or "name" in the search path
  int64_t batch_rows = 100000;
  /// Connections copying the table at once on the first run, each a range of its blocks
  /// (read_postgres's copy_connections; PgCopySpec::connections).
  int copy_connections = 1;
  /// How often the slot hears from the reader at least, also while the flow commits and no
  /// batch is being read (PostgreSQL ends a stream silent for wal_sender_timeout, 60 s).
  int64_t status_interval_ms = 10000;
  /// A barrier (cdclake reconcile): when not 0, reading ends after the last transaction ending
  /// at or before it, and the last batch's position is it exactly.
  Lsn stop_at = 0;
  /// Only looking (cdclake reconcile): the slot is never told more than it has confirmed
  /// already, so reading moves it nowhere (a shared slot's other tables may be behind).
  bool read_only = false;
  /// Where and when a transaction's changes held before its commit go to disk (read_postgres's
  /// spill_mb; the folder is the target's `_cdclake/spill`).
  SpillOptions spill;
};

/// How far a table read from PostgreSQL is: every transaction of the slot's stream that ends at
/// or before `lsn` is in the table, none after it. Recorded with each Delta commit.
struct PgPosition {
  std::string system_id;  // IDENTIFY_SYSTEM's: a position is only good on its own cluster
  std::string database;
  std::string slot;
  Lsn lsn = 0;
  /// While the first copy of the table is committed in several batches: the rows copied so far
  /// (the copy was made at `lsn`); -1 once it is whole. A reader resuming from a position with
  /// a copy not whole copies the table again (the exported snapshot is gone).
  int64_t snapshot_rows = -1;

  /// {"postgres": "<system_id>/<database>/<slot>", "lsn": "16/B374D848"[, "snapshotRows": N]}.
  json::Json ToJson() const;
  /// kCorrupt naming what is missing; nullopt for a position of another kind of source.
  static Result<std::optional<PgPosition>> FromJson(const json::Json& value);
  /// "pg:<system_id>/<database>/<slot>": the Delta `txn` application id of the table's commits.
  std::string AppId() const;
  /// "pg:<system_id>/<database>/<slot>@16/B374D848".
  std::string ToString() const;
};

/// A batch of whole transactions (or of the initial copy's rows) and the position after it.
struct PgBatch {
  change::ChangeBatch rows;
  PgPosition end;
  int64_t written_ms = 0;  // the last transaction's commit time (ms since the Unix epoch)
  int64_t transactions = 0;
  bool snapshot = false;
};

class PgTableReader {
 public:
  /// Connects and checks the publication, the table (its key: the primary key, else the
  /// replica identity index) and the slot. `resume`: the position the table recorded, from
  /// which the slot is read on (an error when the slot is gone, lost or ahead of it); nullopt:
  /// the first run, which (re)creates the slot and copies the table first.
  ///
  /// `shared`: the slot is read by other flows too (SharedSlot). The slot is then created
  /// without a snapshot when it does not exist, the table copied in a snapshot of its own (a
  /// temporary slot's), and its transactions taken from the pass's one read of the stream;
  /// the slot moves on when the pass ends (SharedSlot::Advance), not as batches commit.
  static Result<std::unique_ptr<PgTableReader>> Open(const PgTableSpec& spec,
                                                     const std::optional<PgPosition>& resume,
                                                     SharedSlot* shared = nullptr);
  ~PgTableReader();
  PgTableReader(const PgTableReader&) = delete;
  PgTableReader& operator=(const PgTableReader&) = delete;

  /// The next batch: the copy of the table in about batch_rows rows each, then whole
  /// transactions, at most about batch_rows rows unless one transaction holds more. nullopt once
  /// every transaction committed before Open is read. A copy started again (the last one
  /// stopped before it was whole) begins with a `t` row, so that what the stopped copy
  /// committed and the table no longer has does not stay.
  Result<std::optional<PgBatch>> Next();

  /// Every transaction at or before `lsn` is durable in the table: the slot may let go of them.
  /// Safe from any thread; sent with the next status update (and when the reader closes).
  void Confirm(Lsn lsn);

  /// Once Next has returned nullopt (or to stop early): ends the stream, the slot told of the
  /// last confirmed position first, and says how far the slot is behind the server's WAL and
  /// how much WAL it keeps: "slot s: 0 B of WAL after its confirmed position 0/1A2B3C, 48 kB
  /// retained". Reading ends with it.
  Result<std::string> Lag();

  /// Where reading starts: the recorded position, or "snapshot".
  std::string StartText() const;
  /// Things the user should know (a leftover slot dropped and created again).
  const std::vector<std::string>& notices() const { return notices_; }
  /// The table's key columns, as the catalog gives them.
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  PgTableReader() = default;
  Status CheckSlot(const std::optional<PgPosition>& resume);
  Status CheckSharedSlot(const std::optional<PgPosition>& resume);
  // A slot's checks against the position the table recorded: the start of the stream then.
  Status CheckResume(const PgRows& slot, const PgPosition& resume);
  Result<std::optional<PgBatch>> NextShared();
  // A batch starting at the last position, with a transaction held back from the last one.
  Result<PgBatch> StartBatch(const RelationInfo& shape);
  // Reading ends at `end`: it becomes the position (also where nothing of the table was in the
  // WAL up to it). The batch, or nullopt when it holds nothing and the position did not move.
  std::optional<PgBatch> EndReading(Lsn end, Lsn batch_start, PgBatch batch);
  // Stops the heartbeat, sends the last status and ends the stream; nothing when done already.
  void Close();
  Status BeginSnapshot();
  Result<PgBatch> ReadSnapshot();
  Status StartStreaming();
  // Adds a completed transaction to `batch`; false when its table's shape differs from the
  // batch's (it is then kept for the next batch).
  Result<bool> AddTransaction(PgTransaction transaction, std::shared_ptr<const RelationInfo> shape,
                              PgBatch* batch);
  // An update that moved a row to another key carries no value for the TOASTed columns it left
  // unchanged (those belong to the old key): they are read from the table by the new key.
  Status FillMovedRow(PgChange* change);
  Status SendStatus(bool reply_requested);
  // Between batches (the flow committing the last one): status updates on time.
  void Heartbeat();

  PgTableSpec spec_;
  std::unique_ptr<PgConnection> sql_;
  std::unique_ptr<PgConnection> replication_;  // until the stream takes it
  std::unique_ptr<ReplicationStream> stream_;
  std::mutex stream_mutex_;  // the stream is used by Next or by the heartbeat, one at a time
  std::thread heartbeat_;
  std::mutex heartbeat_mutex_;
  std::condition_variable heartbeat_wake_;
  bool stopping_ = false;
  std::string system_id_;
  std::string database_;
  RelationInfo catalog_;  // the table as the catalog describes it
  std::vector<std::string> keys_;
  std::optional<PgPosition> resume_;
  bool truncate_first_ = false;        // the copy starts again: a `t` row before its rows
  int64_t snapshot_ordinal_ = 0;       // rows of the copy handed out so far
  int64_t stopped_copy_rows_ = -1;     // the stopped copy's rows, for StartText
  std::unique_ptr<PgTableCopy> copy_;  // the table's rows, in the copy's snapshot; null once whole
  Lsn start_ = 0;  // transactions ending at or before it are in the table already
  StreamEnd end_;  // stop_at: the WAL position when the reader opened (a run reads up to it)
  Lsn slot_confirmed_ = 0;  // the slot's confirmed position when the reader opened
  Lsn received_ = 0;
  Lsn last_end_ = 0;  // the end of the last transaction (or idle WAL) handed out
  std::atomic<Lsn> confirmed_{0};
  std::atomic<Lsn> confirmed_sent_{0};
  std::atomic<int64_t> last_status_ms_{0};
  PgOutputDecoder decoder_;
  TransactionAssembler assembler_;
  std::optional<PgTransaction> held_;  // a transaction of another shape than the last batch's
  std::shared_ptr<const RelationInfo> held_shape_;
  SharedSlot* shared_ = nullptr;
  int shared_reader_ = -1;
  size_t next_part_ = 0;  // SharedSlot::PartsOf's next
  std::vector<RelationInfo::Column> batch_shape_;
  std::vector<std::string> notices_;
  bool done_ = false;
};

}  // namespace cdclake::sources::postgres
