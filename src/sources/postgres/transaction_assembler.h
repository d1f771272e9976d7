// TransactionAssembler: pgoutput messages, in the order the server sends them, into whole
// committed transactions (streamed ones reassembled, aborted ones and rolled-back
// subtransactions dropped), each change owning its cells.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "sources/postgres/change_spool.h"
#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

/// A committed transaction: what a Delta commit must hold whole.
struct PgTransaction {
  uint32_t xid = 0;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;  // what the client confirms once the transaction is durable
  int64_t commit_time_us = 0;
  bool streamed = false;
  ChangeSpool changes;
  /// Rows copied by the initial snapshot, not streamed: inserts become `r` rows whose ordinals
  /// continue from `first_ordinal` (the snapshot arrives in several parts).
  bool snapshot = false;
  int64_t first_ordinal = 0;
};

class TransactionAssembler {
 public:
  /// `spill`: where and when a transaction's changes held before its commit go to disk.
  /// The transactions' spools share one file (spill.file, made here when null).
  explicit TransactionAssembler(SpillOptions spill = {});

  /// Takes the next message and the LSN of the frame it came in (XLogData::data_start). Returns
  /// the transaction a Commit or Stream Commit completes. A message out of place (a change
  /// outside a transaction, a Begin inside one, a change of a relation never described, a tuple
  /// of another width than its relation) is kCorrupt naming it. A Stream Start of a first
  /// segment drops anything held for that transaction (streamed again after a reconnect).
  Result<std::optional<PgTransaction>> Add(const PgOutputMessage& message, Lsn frame_lsn);

  /// The relation `oid` as last described; nullptr if it never was.
  const RelationInfo* relation(uint32_t oid) const;
  /// The same, shared: a later Relation message replaces it rather than changing it.
  std::shared_ptr<const RelationInfo> shared_relation(uint32_t oid) const;
  /// Streamed transactions begun and neither committed nor aborted.
  size_t open_streams() const { return streams_.size(); }
  /// Changes held for transactions not committed yet.
  size_t held_changes() const;
  /// Between a Begin and its Commit, or inside a stream block: a keepalive arriving now does
  /// not mean that everything before it was sent.
  bool in_transaction() const { return open_.has_value() || stream_xid_.has_value(); }

 private:
  struct Streamed {
    ChangeSpool changes;
    std::map<uint32_t, size_t> first_change_of;  // subtransaction -> its first change's index
  };
  Status Hold(PgChange change, std::optional<uint32_t> xid);

  SpillOptions spill_;
  std::map<uint32_t, std::shared_ptr<const RelationInfo>> relations_;
  std::optional<PgTransaction> open_;  // between Begin and Commit
  std::map<uint32_t, Streamed> streams_;
  std::optional<uint32_t> stream_xid_;  // inside a stream block
};

}  // namespace cdclake::sources::postgres
