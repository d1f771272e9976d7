// SharedSlot: the slot's stream read once per pass into each table's parts of its transactions,
// and the slot moved on at the pass's end.
#include "sources/postgres/shared_slot.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/replication_stream.h"
#include "sources/postgres/stream_end.h"

namespace cdclake::sources::postgres {
namespace {

constexpr int kWaitMs = 200;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// `transaction` cut into one part per table it touches (a TRUNCATE of several tables is in
// each of theirs), each with the table's shape as the assembler knows it now (a Relation
// message replaces a shape, so the parts read before keep theirs). The number of
// changes kept goes to `kept`.
Status Split(PgTransaction transaction, const TransactionAssembler& assembler,
             const SpillOptions& spill, std::map<uint32_t, std::vector<TablePart>>* parts,
             int64_t* kept) {
  if (transaction.changes.empty()) return Status::OK();  // all rolled back: no part
  std::map<uint32_t, TablePart> by_table;
  auto part_of = [&](uint32_t oid) -> TablePart& {
    auto [it, added] = by_table.try_emplace(oid);
    if (added) {
      PgTransaction& t = it->second.transaction;
      t.xid = transaction.xid;
      t.commit_lsn = transaction.commit_lsn;
      t.end_lsn = transaction.end_lsn;
      t.commit_time_us = transaction.commit_time_us;
      t.streamed = transaction.streamed;
      t.changes = ChangeSpool(spill);
    }
    return it->second;
  };
  if (transaction.changes.touched().size() == 1) {
    // One table (the common case): the transaction is its part, its changes (those on disk
    // too) moved, not copied.
    *kept += static_cast<int64_t>(transaction.changes.size());
    const uint32_t oid = *transaction.changes.touched().begin();
    TablePart& part = part_of(oid);
    part.transaction.changes = std::move(transaction.changes);
  } else {
    CDCLAKE_RETURN_IF_ERROR(transaction.changes.Drain([&](PgChange&& c) {
      if (c.kind == PgChange::Kind::kTruncate) {
        for (uint32_t oid : c.truncated) {
          ++*kept;
          CDCLAKE_RETURN_IF_ERROR(part_of(oid).transaction.changes.Add(c));
        }
        return Status::OK();
      }
      ++*kept;
      TablePart& part = part_of(c.relation);
      return part.transaction.changes.Add(std::move(c));
    }));
  }
  for (auto& [oid, part] : by_table) {
    part.shape = assembler.shared_relation(oid);
    (*parts)[oid].push_back(std::move(part));
  }
  return Status::OK();
}

}  // namespace

Result<bool> SharedSlot::Ensure(PgConnection& replication) {
  CDCLAKE_ASSIGN_OR_RETURN(PgRows slot,
                           replication.Query("SELECT wal_status FROM pg_replication_slots WHERE "
                                             "slot_name = " +
                                             QuoteLiteral(spec_.slot)));
  if (!slot.rows.empty() && FirstCell(slot) != "lost") return false;
  if (!slot.rows.empty()) {
    // Invalidated: no table can read on from it; the tables copied again use a new one.
    CDCLAKE_RETURN_IF_ERROR(
        replication.Execute("DROP_REPLICATION_SLOT " + QuoteIdentifier(spec_.slot)));
  }
  CDCLAKE_RETURN_IF_ERROR(
      CreateReplicationSlot(replication, spec_.slot, SnapshotAction::kNothing).status());
  return true;
}

int SharedSlot::Join(std::optional<Lsn> position) {
  std::lock_guard<std::mutex> lock(mutex_);
  positions_.push_back(position);
  return static_cast<int>(positions_.size()) - 1;
}

void SharedSlot::Confirm(int reader, Lsn lsn) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reader < 0 || static_cast<size_t>(reader) >= positions_.size()) return;
  std::optional<Lsn>& p = positions_[static_cast<size_t>(reader)];
  p = std::max(p.value_or(0), lsn);
}

const std::vector<TablePart>& SharedSlot::PartsOf(uint32_t oid) const {
  static const std::vector<TablePart> kNone;
  auto it = parts_.find(oid);
  return it == parts_.end() ? kNone : it->second;
}

Status SharedSlot::Read() {
  if (!read_) {
    read_ = ReadStream();
    const std::string& m = read_->message();
    if (!read_->ok() && m.find("publication") != std::string::npos &&
        m.find("does not exist") != std::string::npos) {
      // pgoutput looks publications up as the catalog was at the slot's position.
      read_ = Status(read_->code(),
                     m + "; the shared slot '" + spec_.slot +
                         "' reads from its position on, before that publication was created: "
                         "put the table in a publication that is older (ALTER PUBLICATION ... "
                         "ADD TABLE ...) and copy it again (--full-refresh TABLE: its changes "
                         "before the ALTER are in no publication), or give its flow a slot of "
                         "its own");
    }
  }
  return *read_;
}

Status SharedSlot::ReadStream() {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> sql,
                           PgConnection::Connect(spec_.connection));
  CDCLAKE_ASSIGN_OR_RETURN(PgRows slot,
                           sql->Query("SELECT confirmed_flush_lsn, pg_current_wal_lsn() FROM "
                                      "pg_replication_slots WHERE slot_name = " +
                                      QuoteLiteral(spec_.slot)));
  if (slot.rows.empty()) {
    return Status::NotFound("PostgreSQL " + sql->Describe() + ": replication slot '" + spec_.slot +
                            "' no longer exists");
  }
  CDCLAKE_ASSIGN_OR_RETURN(const Lsn confirmed, ParseLsn(FirstCell(slot, 0)));
  CDCLAKE_ASSIGN_OR_RETURN(stop_at_, ParseLsn(FirstCell(slot, 1)));
  if (spec_.stop_at != 0) stop_at_ = spec_.stop_at;
  StreamEnd stream_end;
  stream_end.set_stop_at(stop_at_);
  end_ = confirmed;

  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> replication,
                           PgConnection::Connect(spec_.connection, {true}));
  ReplicationStream::Options options;
  options.slot = spec_.slot;
  options.publications = spec_.publications;
  options.start = confirmed;
  options.streaming = true;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<ReplicationStream> stream,
                           ReplicationStream::Start(std::move(replication), options));
  PgOutputDecoder decoder;
  // One file for the pass: its transactions in progress and the tables' parts of them.
  SpillOptions spill = spec_.spill;
  spill.file = MakeSpillFile(spill.folder);
  TransactionAssembler assembler(spill);
  Lsn received = confirmed;
  int64_t last_status_ms = NowMs();
  int64_t held = 0;
  // Nothing read here is durable yet: the slot hears its own confirmed position back.
  auto status = [&](bool reply) {
    last_status_ms = NowMs();
    return stream->SendStatus(std::max(received, confirmed), confirmed, reply);
  };
  while (true) {
    if (NowMs() - last_status_ms >= spec_.status_interval_ms) {
      CDCLAKE_RETURN_IF_ERROR(status(false));
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<ReplicationFrame> frame, stream->Next(kWaitMs));
    if (!frame) {
      CDCLAKE_RETURN_IF_ERROR(status(true));  // quiet: the keepalive says how far it has sent
      continue;
    }
    if (const auto* data = std::get_if<XLogData>(&*frame)) {
      received = std::max(received, data->wal_end);
      CDCLAKE_ASSIGN_OR_RETURN(PgOutputMessage message, decoder.Decode(data->payload));
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<PgTransaction> done,
                               assembler.Add(message, data->data_start));
      stream_end.Sending();
      if (!done || done->end_lsn <= confirmed) continue;
      const Lsn done_end = done->end_lsn;
      CDCLAKE_RETURN_IF_ERROR(Split(std::move(*done), assembler, spill, &parts_, &held));
      end_ = std::max(end_, done_end);
      if (held >= spec_.max_changes) {
        more_ = true;
        break;
      }
      continue;
    }
    const auto& keepalive = std::get<Keepalive>(*frame);
    received = std::max(received, keepalive.wal_end);
    if (keepalive.reply_requested) CDCLAKE_RETURN_IF_ERROR(status(false));
    if (assembler.in_transaction() || !stream_end.Reached(keepalive.wal_end)) continue;
    // Everything committed before the keepalive's position was sent before it.
    end_ = std::max(end_, keepalive.wal_end);
    break;
  }
  (void)stream->Finish(2000);
  return Status::OK();
}

Result<std::string> SharedSlot::Advance() {
  std::optional<Lsn> lowest;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int>(positions_.size()) < spec_.readers) {
      return Status::Conflict(
          "replication slot '" + spec_.slot + "' stays where it is: " +
          std::to_string(positions_.size()) + " of the " + std::to_string(spec_.readers) +
          " flows reading it got as far as reading this pass, and the others' tables may need "
          "the WAL it keeps");
    }
    for (const std::optional<Lsn>& p : positions_) {
      if (p) lowest = std::min(lowest.value_or(*p), *p);
    }
  }
  if (!lowest) return "slot " + spec_.slot + ": no flow has a position yet";
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> sql,
                           PgConnection::Connect(spec_.connection));
  CDCLAKE_ASSIGN_OR_RETURN(PgRows slot,
                           sql->Query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE "
                                      "slot_name = " +
                                      QuoteLiteral(spec_.slot)));
  if (slot.rows.empty()) return Status::NotFound("replication slot '" + spec_.slot + "' is gone");
  CDCLAKE_ASSIGN_OR_RETURN(const Lsn confirmed, ParseLsn(FirstCell(slot, 0)));
  if (*lowest <= confirmed) {
    return "slot " + spec_.slot + " stays at " + FormatLsn(confirmed) +
           ", the lowest position its flows' tables hold";
  }
  CDCLAKE_RETURN_IF_ERROR(sql->Execute("SELECT pg_replication_slot_advance(" +
                                       QuoteLiteral(spec_.slot) + ", " +
                                       QuoteLiteral(FormatLsn(*lowest)) + "::pg_lsn)"));
  return "slot " + spec_.slot + " moved from " + FormatLsn(confirmed) + " to " +
         FormatLsn(*lowest) + ", the lowest position its flows' tables hold";
}

}  // namespace cdclake::sources::postgres
