// TransactionAssembler: Begin/Commit transactions and protocol version 2's stream blocks
// (Stream Start/Stop/Commit/Abort), as PostgreSQL's own apply worker reads them: a
// subtransaction's abort drops its changes and everything streamed after its first change.
#include "sources/postgres/transaction_assembler.h"

#include <type_traits>
#include <utility>

namespace cdclake::sources::postgres {
namespace {

OwnedTuple Own(const Tuple& tuple) {
  OwnedTuple out;
  out.kinds.reserve(tuple.size());
  out.values.reserve(tuple.size());
  for (const TupleCell& cell : tuple) {
    out.kinds.push_back(cell.kind);
    out.values.emplace_back(cell.bytes);
  }
  return out;
}

RelationInfo Describe(const Relation& r) {
  RelationInfo out;
  out.oid = r.oid;
  out.schema = std::string(r.schema);
  out.name = std::string(r.name);
  out.replica_identity = r.replica_identity;
  for (const RelationColumn& c : r.columns) {
    out.columns.push_back({std::string(c.name), c.type_oid, c.type_modifier, c.key});
  }
  return out;
}

// The change an I, U, D or T message carries, its tuples owned.
PgChange ChangeOf(const Insert& m, Lsn lsn) {
  PgChange c;
  c.kind = PgChange::Kind::kInsert;
  c.relation = m.relation;
  c.lsn = lsn;
  c.new_tuple = Own(m.new_tuple);
  return c;
}

PgChange ChangeOf(const Update& m, Lsn lsn) {
  PgChange c;
  c.kind = PgChange::Kind::kUpdate;
  c.relation = m.relation;
  c.lsn = lsn;
  c.old_kind = m.old_kind;
  c.old_tuple = Own(m.old_tuple);
  c.new_tuple = Own(m.new_tuple);
  return c;
}

PgChange ChangeOf(const Delete& m, Lsn lsn) {
  PgChange c;
  c.kind = PgChange::Kind::kDelete;
  c.relation = m.relation;
  c.lsn = lsn;
  c.old_kind = m.old_kind;
  c.old_tuple = Own(m.old_tuple);
  return c;
}

PgChange ChangeOf(const Truncate& m, Lsn lsn) {
  PgChange c;
  c.kind = PgChange::Kind::kTruncate;
  c.lsn = lsn;
  c.truncated = m.relations;
  c.truncate_options = m.options;
  return c;
}

}  // namespace

const RelationInfo* TransactionAssembler::relation(uint32_t oid) const {
  auto it = relations_.find(oid);
  return it == relations_.end() ? nullptr : it->second.get();
}

TransactionAssembler::TransactionAssembler(SpillOptions spill) : spill_(std::move(spill)) {
  if (!spill_.file) spill_.file = MakeSpillFile(spill_.folder);
}

std::shared_ptr<const RelationInfo> TransactionAssembler::shared_relation(uint32_t oid) const {
  auto it = relations_.find(oid);
  return it == relations_.end() ? nullptr : it->second;
}

size_t TransactionAssembler::held_changes() const {
  size_t n = open_ ? open_->changes.size() : 0;
  for (const auto& [xid, s] : streams_) n += s.changes.size();
  return n;
}

Status TransactionAssembler::Hold(PgChange change, std::optional<uint32_t> xid) {
  if (change.kind != PgChange::Kind::kTruncate) {
    auto it = relations_.find(change.relation);
    if (it == relations_.end()) {
      return Status::Corrupt("pgoutput: a change of relation " + std::to_string(change.relation) +
                             " before any Relation message described it");
    }
    change.shape = it->second;
    const size_t width = change.shape->columns.size();
    for (const OwnedTuple* t : {&change.old_tuple, &change.new_tuple}) {
      if (!t->kinds.empty() && t->kinds.size() != width) {
        return Status::Corrupt("pgoutput: a tuple of " + std::to_string(t->kinds.size()) +
                               " columns for " + change.shape->schema + "." + change.shape->name +
                               ", described with " + std::to_string(width));
      }
    }
  }
  if (stream_xid_) {
    auto [it, added] = streams_.try_emplace(*stream_xid_);
    Streamed& s = it->second;
    if (added) s.changes = ChangeSpool(spill_);
    if (xid && *xid != *stream_xid_ && s.first_change_of.emplace(*xid, s.changes.size()).second) {
      s.changes.MarkNext();
    }
    return s.changes.Add(std::move(change));
  }
  if (!open_) return Status::Corrupt("pgoutput: a change outside any transaction");
  return open_->changes.Add(std::move(change));
}

Result<std::optional<PgTransaction>> TransactionAssembler::Add(const PgOutputMessage& message,
                                                               Lsn frame_lsn) {
  using Out = std::optional<PgTransaction>;
  return std::visit(
      [&](const auto& m) -> Result<Out> {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, Begin>) {
          if (open_ || stream_xid_) {
            return Status::Corrupt("pgoutput: Begin of transaction " + std::to_string(m.xid) +
                                   " inside another transaction");
          }
          open_ =
              PgTransaction{m.xid, m.final_lsn, 0, m.commit_time_us, false, ChangeSpool(spill_)};
          return Out();
        } else if constexpr (std::is_same_v<M, Commit>) {
          if (!open_) return Status::Corrupt("pgoutput: Commit without Begin");
          PgTransaction done = std::move(*open_);
          open_.reset();
          if (done.commit_lsn != m.commit_lsn) {
            return Status::Corrupt("pgoutput: Commit at another LSN than its Begin announced");
          }
          done.end_lsn = m.end_lsn;
          done.commit_time_us = m.commit_time_us;
          done.changes.ClearMarks();
          return Out(std::move(done));
        } else if constexpr (std::is_same_v<M, Relation>) {
          relations_[m.oid] = std::make_shared<const RelationInfo>(Describe(m));
          return Out();
        } else if constexpr (std::is_same_v<M, Insert> || std::is_same_v<M, Update> ||
                             std::is_same_v<M, Delete> || std::is_same_v<M, Truncate>) {
          CDCLAKE_RETURN_IF_ERROR(Hold(ChangeOf(m, frame_lsn), m.xid));
          return Out();
        } else if constexpr (std::is_same_v<M, StreamStart>) {
          if (open_) return Status::Corrupt("pgoutput: Stream Start inside a transaction");
          stream_xid_ = m.xid;
          if (m.first_segment) streams_.erase(m.xid);  // streamed again from its start
          auto [it, added] = streams_.try_emplace(m.xid);
          if (added) it->second.changes = ChangeSpool(spill_);
          return Out();
        } else if constexpr (std::is_same_v<M, StreamStop>) {
          stream_xid_.reset();
          return Out();
        } else if constexpr (std::is_same_v<M, StreamCommit>) {
          auto it = streams_.find(m.xid);
          if (it == streams_.end()) {
            return Status::Corrupt("pgoutput: Stream Commit of transaction " +
                                   std::to_string(m.xid) + ", never streamed");
          }
          PgTransaction done{m.xid,     m.commit_lsn,
                             m.end_lsn, m.commit_time_us,
                             true,      std::move(it->second.changes)};
          streams_.erase(it);
          done.changes.ClearMarks();
          return Out(std::move(done));
        } else if constexpr (std::is_same_v<M, StreamAbort>) {
          auto it = streams_.find(m.xid);
          if (it == streams_.end()) return Out();
          if (m.subxid == m.xid) {
            streams_.erase(it);
            return Out();
          }
          Streamed& s = it->second;
          auto first = s.first_change_of.find(m.subxid);
          if (first != s.first_change_of.end()) {
            size_t cut = first->second;
            CDCLAKE_RETURN_IF_ERROR(s.changes.TruncateTo(cut));
            for (auto f = s.first_change_of.begin(); f != s.first_change_of.end();) {
              f = f->second >= cut ? s.first_change_of.erase(f) : std::next(f);
            }
          }
          return Out();
        } else {
          // Origin, Type, LogicalMessage: nothing to hold.
          return Out();
        }
      },
      message);
}

}  // namespace cdclake::sources::postgres
