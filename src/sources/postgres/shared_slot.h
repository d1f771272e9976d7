// SharedSlot: one replication slot read once for several tables. Flows that name the same
// connection and slot share it: each pass reads the slot's stream once, from its confirmed
// position, and keeps each table's transactions for the readers of that table; the slot is
// moved on only at the pass's end, to the lowest position its readers' tables hold.
// POSTGRES-SOURCE.md section 3 has why a position below every table's is the only safe one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "sources/postgres/pgoutput_message.h"
#include "sources/postgres/transaction_assembler.h"

namespace cdclake::sources::postgres {

class PgConnection;

/// One table's part of a transaction, with the table's shape when the transaction ended.
struct TablePart {
  PgTransaction transaction;
  std::shared_ptr<const RelationInfo> shape;
};

class SharedSlot {
 public:
  struct Spec {
    std::string connection;
    std::string slot;
    std::vector<std::string> publications;  // every reader's
    int readers = 0;                        // how many readers the pass has
    /// A pass stops reading at the end of the transaction that brings the changes it holds to
    /// this many; the next pass goes on from there (more()).
    int64_t max_changes = 1000000;
    int64_t status_interval_ms = 10000;
    /// Where reading stops (0: the WAL position when Read starts): a pass that goes on from one
    /// that stopped at max_changes stops where that one meant to.
    Lsn stop_at = 0;
    /// Where and when transactions held before their commit, and the tables' parts of them, go
    /// to disk.
    SpillOptions spill;
  };
  explicit SharedSlot(Spec spec) : spec_(std::move(spec)) {}

  const Spec& spec() const { return spec_; }

  /// Creates the slot, without a snapshot, when it does not exist yet (each table is copied in
  /// a snapshot of its own, taken after the slot exists, so the slot has every change after
  /// it), or when the server invalidated it (wal_status 'lost'). `replication`: a replication
  /// connection to the slot's database. True when created.
  Result<bool> Ensure(PgConnection& replication);

  /// A reader joins the pass, holding its table at `position` (nullopt: it has no position
  /// yet). Returns the reader's number for Confirm.
  int Join(std::optional<Lsn> position);
  /// The reader's table now holds every transaction up to `lsn`.
  void Confirm(int reader, Lsn lsn);

  /// Reads the stream once per pass (later calls return at once): every transaction ending
  /// after the slot's confirmed position, up to the WAL position when first called, or fewer
  /// (more() says so) once max_changes are held.
  Status Read();
  /// `oid`'s parts of the transactions read, in commit order.
  const std::vector<TablePart>& PartsOf(uint32_t oid) const;
  /// After Read: every transaction ending at or before it was read.
  Lsn end() const { return end_; }
  /// After Read: the stream had more than max_changes: another pass goes on.
  bool more() const { return more_; }
  /// After Read: where it meant to stop.
  Lsn stop_at() const { return stop_at_; }

  /// At the pass's end: the slot moved on to the lowest position its readers hold, once every
  /// reader of the pass has joined (a reader that failed before may hold a lower one: kConflict
  /// saying so). Says what it did.
  Result<std::string> Advance();

 private:
  Status ReadStream();

  Spec spec_;
  std::mutex mutex_;  // Join, Confirm and Advance may come from reading-ahead threads
  std::vector<std::optional<Lsn>> positions_;
  std::optional<Status> read_;  // the one read's outcome, for every reader
  Lsn end_ = 0;
  Lsn stop_at_ = 0;
  bool more_ = false;
  std::map<uint32_t, std::vector<TablePart>> parts_;
};

}  // namespace cdclake::sources::postgres
