// PgTableCopy: connections importing one snapshot, a COPY of a block range on each, a thread per
// COPY turning its rows into chunks of change rows, and a bounded queue to the reader.
#include "sources/postgres/pg_table_copy.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "sources/postgres/pg_change_rows.h"

namespace cdclake::sources::postgres {

namespace {

// PostgreSQL 14 reads `ctid >= a AND ctid < b` by a TID range scan: only the range's blocks.
constexpr int kTidRangeScanVersion = 140000;

std::string BlockBound(int64_t block) {
  return "'(" + std::to_string(block) + ",0)'::tid";
}

// Numbers the rows of `chunk` (rows of PgChangeSchema(relation)) from `first` in _seq's ordinal.
void NumberRows(const RelationInfo& relation, int64_t first, change::ChangeBatch* chunk) {
  data::Column& ordinal = chunk->rows.mutable_column(relation.columns.size() + 1).mutable_child(2);
  std::vector<uint8_t>& values = ordinal.mutable_values();
  for (int64_t i = 0; i < ordinal.length(); ++i) {
    const int64_t v = first + i;
    std::memcpy(values.data() + i * sizeof v, &v, sizeof v);
  }
}

// Indices from..to-1.
std::vector<int64_t> Indices(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(to - from, 0)));
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> BlockRanges(int64_t blocks, int connections,
                                                     int64_t min_range_blocks) {
  int64_t n = std::max(connections, 1);
  if (min_range_blocks > 0) n = std::min(n, std::max<int64_t>(blocks / min_range_blocks, 1));
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t i = 0; i < n; ++i) {
    out.emplace_back(blocks * i / n, i + 1 == n ? -1 : blocks * (i + 1) / n);
  }
  return out;
}

Result<std::unique_ptr<PgTableCopy>> PgTableCopy::Start(const PgCopySpec& spec,
                                                        const RelationInfo& relation,
                                                        const std::string& database,
                                                        Lsn consistent_point,
                                                        int64_t commit_time_us) {
  std::unique_ptr<PgTableCopy> copy(new PgTableCopy());
  copy->spec_ = spec;
  copy->relation_ = relation;
  copy->database_ = database;
  copy->consistent_point_ = consistent_point;
  copy->commit_time_us_ = commit_time_us;
  // Every connection sees the table as the snapshot does: the slot's consistent point.
  auto open = [&]() -> Result<std::unique_ptr<PgConnection>> {
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> c,
                             PgConnection::Connect(spec.connection));
    CDCLAKE_RETURN_IF_ERROR(c->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    CDCLAKE_RETURN_IF_ERROR(c->Execute("SET TRANSACTION SNAPSHOT " + QuoteLiteral(spec.snapshot)));
    return c;
  };
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> first, open());
  int connections = spec.connections;
  int64_t blocks = 0;
  if (first->server_version() < kTidRangeScanVersion) {
    connections = 1;
  } else if (connections > 1) {
    // The table's size now, at least its size in the snapshot (a file only grows until a
    // VACUUM cuts empty pages off its end, and the last range has no end).
    CDCLAKE_ASSIGN_OR_RETURN(
        PgRows size, first->Query("SELECT pg_relation_size(" + std::to_string(relation.oid) +
                                  "::oid::regclass) / current_setting('block_size')::bigint"));
    if (!size.rows.empty() && size.rows[0][0]) blocks = std::stoll(*size.rows[0][0]);
  }
  std::string columns;
  for (const RelationInfo::Column& c : relation.columns) {
    columns += (columns.empty() ? "" : ", ") + QuoteIdentifier(c.name);
  }
  const std::string table = relation.schema + "." + relation.name;
  const std::string from =
      " FROM " + QuoteIdentifier(relation.schema) + "." + QuoteIdentifier(relation.name);
  // Every connection imports the snapshot before any COPY takes the table's lock.
  std::vector<std::string> statements;
  for (const auto& [begin, end] : BlockRanges(blocks, connections, spec.min_range_blocks)) {
    Range range;
    range.name = "copying " + table;
    if (connections > 1) {
      range.name += ", blocks " + std::to_string(begin) + " to " +
                    (end < 0 ? std::string("the end") : std::to_string(end));
    }
    if (copy->ranges_.empty()) {
      range.connection = std::move(first);
    } else {
      CDCLAKE_ASSIGN_OR_RETURN(range.connection, open());
      CDCLAKE_RETURN_IF_ERROR(
          range.connection->Execute("SET LOCAL lock_timeout = " +
                                    std::to_string(std::max<int64_t>(spec.lock_timeout_ms, 1))));
    }
    std::string statement = "COPY (SELECT ";
    statement += columns;
    statement += from;
    if (begin > 0) statement += " WHERE ctid >= " + BlockBound(begin);
    if (end >= 0) statement += (begin > 0 ? " AND" : " WHERE") + (" ctid < " + BlockBound(end));
    statement += ") TO STDOUT";
    statements.push_back(std::move(statement));
    copy->ranges_.push_back(std::move(range));
  }
  // COPY rather than a cursor: the server sends rows as fast as it makes them, and each comes
  // as one line, split in place.
  for (size_t i = 0; i < copy->ranges_.size(); ++i) {
    Range& range = copy->ranges_[i];
    Result<std::unique_ptr<PgCopyOut>> started = PgCopyOut::Start(*range.connection, statements[i]);
    if (!started.ok()) return started.status().WithContext(range.name);
    range.copy = std::move(*started);
    range.canceller = std::make_unique<PgCanceller>(*range.connection);
  }
  if (copy->ranges_.size() == 1) return copy;  // read as Next asks, in its caller's thread
  copy->running_ = copy->ranges_.size();
  for (Range& range : copy->ranges_) {
    range.thread = std::thread([c = copy.get(), r = &range] { c->Copy(r); });
  }
  return copy;
}

PgTableCopy::~PgTableCopy() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (Range& range : ranges_) {
    if (!range.thread.joinable()) continue;
    bool ended = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ended = range.ended;
    }
    // A COPY still sending (or waiting on a lock) stops at once rather than at its end.
    if (!ended) range.canceller->Cancel();
    range.thread.join();
  }
}

void PgTableCopy::Copy(Range* range) {
  Status status = Status::OK();
  change::ChangeBatch chunk;
  auto rows = std::make_unique<PgSnapshotRows>(relation_, database_, consistent_point_,
                                               commit_time_us_, &chunk);
  bool stopped = false;
  while (true) {
    Result<const std::vector<const std::string*>*> row = range->copy->Next();
    if (!row.ok()) {
      status = row.status();
      break;
    }
    if (*row == nullptr) break;
    status = rows->Append(**row, 0);
    if (!status.ok()) break;
    if (chunk.num_records() < spec_.chunk_rows) continue;
    rows->Finish();
    rows.reset();
    if (!Push(&chunk)) {
      stopped = true;
      break;
    }
    rows = std::make_unique<PgSnapshotRows>(relation_, database_, consistent_point_,
                                            commit_time_us_, &chunk);
  }
  if (status.ok() && !stopped) {
    rows->Finish();
    rows.reset();
    if (chunk.num_records() > 0) stopped = !Push(&chunk);
  }
  if (status.ok() && !stopped) {
    range->copy.reset();
    status = range->connection->Execute("COMMIT");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  range->ended = true;
  if (!status.ok() && !stopping_ && !failed_) failed_ = status.WithContext(range->name);
  --running_;
  changed_.notify_all();
}

bool PgTableCopy::Push(change::ChangeBatch* chunk) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] {
    return stopping_ || failed_ ||
           static_cast<int64_t>(chunks_.size()) < std::max<int64_t>(spec_.chunks_ahead, 1);
  });
  if (stopping_ || failed_) return false;
  chunks_.push_back(std::exchange(*chunk, change::ChangeBatch()));
  changed_.notify_all();
  return true;
}

Status PgTableCopy::Wait(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [&] { return failed_ || !chunks_.empty() || running_ == 0; });
  return failed_.value_or(Status::OK());
}

Status PgTableCopy::ReadPending(int64_t records) {
  if (failed_) return *failed_;
  Range& range = ranges_.front();
  auto read = [&]() -> Status {
    while (!pending_ended_ && pending_.num_records() < records) {
      CDCLAKE_ASSIGN_OR_RETURN(const std::vector<const std::string*>* row, range.copy->Next());
      if (row == nullptr) {
        range.copy.reset();
        CDCLAKE_RETURN_IF_ERROR(range.connection->Execute("COMMIT"));
        pending_ended_ = true;
        break;
      }
      if (pending_rows_ == nullptr) {
        pending_rows_ = std::make_unique<PgSnapshotRows>(relation_, database_, consistent_point_,
                                                         commit_time_us_, &pending_);
      }
      CDCLAKE_RETURN_IF_ERROR(pending_rows_->Append(*row, 0));
    }
    return Status::OK();
  };
  Status status = read();
  // A COPY that failed has ended on the connection: it would read as ended, not as failed.
  if (!status.ok()) failed_ = status.WithContext(range.name);
  return failed_.value_or(Status::OK());
}

Result<std::optional<change::ChangeBatch>> PgTableCopy::Next(int64_t first_ordinal,
                                                             int64_t max_records) {
  using Out = std::optional<change::ChangeBatch>;
  if (ranges_.size() == 1) {
    CDCLAKE_RETURN_IF_ERROR(ReadPending(max_records));
    if (pending_.num_records() == 0) return Out();
    if (pending_rows_ != nullptr) pending_rows_->Finish();
    pending_rows_.reset();
    change::ChangeBatch chunk = std::move(pending_);
    pending_ = change::ChangeBatch();
    NumberRows(relation_, first_ordinal, &chunk);
    return Out(std::move(chunk));
  }
  std::unique_lock<std::mutex> lock(mutex_);
  CDCLAKE_RETURN_IF_ERROR(Wait(lock));
  if (chunks_.empty()) return Out();
  change::ChangeBatch chunk = std::move(chunks_.front());
  chunks_.pop_front();
  const int64_t rows = chunk.rows.num_rows();
  const int64_t keep =
      std::clamp<int64_t>(max_records - static_cast<int64_t>(chunk.rejected.size()), 0, rows);
  if (keep < rows) {
    // The rows past `max_records` wait for the next call, ahead of every other chunk.
    change::ChangeBatch rest = chunk;
    rest.rejected.clear();
    change::KeepRows(Indices(keep, rows), &rest);
    chunks_.push_front(std::move(rest));
    change::KeepRows(Indices(0, keep), &chunk);
  }
  changed_.notify_all();
  lock.unlock();
  NumberRows(relation_, first_ordinal, &chunk);
  return Out(std::move(chunk));
}

Result<bool> PgTableCopy::Done() {
  if (ranges_.size() == 1) {
    CDCLAKE_RETURN_IF_ERROR(ReadPending(1));
    return pending_.num_records() == 0;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  CDCLAKE_RETURN_IF_ERROR(Wait(lock));
  return chunks_.empty();
}

}  // namespace cdclake::sources::postgres
