// PgTableCopy: connections importing one snapshot, a COPY of a block range on each, a thread per
// COPY turning its rows into chunks of change rows, and a bounded queue to the reader.
#include "sources/postgres/pg_table_copy.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_change_rows.h"

namespace cdclake::sources::postgres {

namespace {

// PostgreSQL 14 reads `ctid >= a AND ctid < b` by a TID range scan: only the range's blocks.
constexpr int kTidRangeScanVersion = 140000;
// How long the second and later connections wait for the table's lock. Once the first COPY
// holds it, an ALTER TABLE queues behind that COPY and the next COPY behind the ALTER; the first
// is read only after every COPY has started, so without a limit they would wait on each other
// for ever. The copy then fails naming the range, and the next run tries again.
constexpr int64_t kLockTimeoutMs = 10000;
constexpr int64_t kMaxChunkRows = int64_t{1} << 16;
constexpr size_t kChunksAhead = 1;  // chunks waiting for Next, besides each thread's own

std::string BlockBound(int64_t block) {
  return "'(" + std::to_string(block) + ",0)'::tid";
}

// Numbers the rows of `chunk` from `first` in the ordinal of its column `seq` (_seq).
void NumberRows(size_t seq, int64_t first, change::ChangeBatch* chunk) {
  data::Column& ordinal = chunk->rows.mutable_column(seq).mutable_child(2);
  std::vector<uint8_t>& values = ordinal.mutable_values();
  for (int64_t i = 0; i < ordinal.length(); ++i) {
    const int64_t v = first + i;
    std::memcpy(values.data() + i * sizeof v, &v, sizeof v);
  }
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
  copy->schema_ = PgChangeSchema(relation);
  copy->seq_column_ = relation.columns.size() + 1;
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
    const std::string cell = FirstCell(size);
    if (!cell.empty()) blocks = std::stoll(cell);
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
          range.connection->Execute("SET LOCAL lock_timeout = " + std::to_string(kLockTimeoutMs)));
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
  // Over several connections a batch is made of whole chunks, one a connection at least.
  const auto pieces = std::max<int64_t>(static_cast<int64_t>(copy->ranges_.size()),
                                        (spec.batch_rows + kMaxChunkRows - 1) / kMaxChunkRows);
  copy->chunk_rows_ = std::max<int64_t>((spec.batch_rows + pieces - 1) / pieces, 1);
  // COPY rather than a cursor: the server sends rows as fast as it makes them, and each comes
  // as one line, split in place.
  for (size_t i = 0; i < copy->ranges_.size(); ++i) {
    Range& range = copy->ranges_[i];  // in place from here: `writer` points at its chunk
    Result<std::unique_ptr<PgCopyOut>> started = PgCopyOut::Start(*range.connection, statements[i]);
    if (!started.ok()) return started.status().WithContext(range.name);
    range.copy = std::move(*started);
    range.chunk.rows = data::RecordBatch(copy->schema_);
    range.writer = std::make_unique<PgSnapshotRows>(relation, database, consistent_point,
                                                    commit_time_us, &range.chunk);
  }
  if (copy->ranges_.size() == 1) return copy;  // read as Next asks, in its caller's thread
  copy->running_ = copy->ranges_.size();
  for (Range& range : copy->ranges_) {
    range.canceller = std::make_unique<PgCanceller>(*range.connection);
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

Status PgTableCopy::ReadInto(Range& range, int64_t records) {
  while (range.copy != nullptr && range.chunk.num_records() < records) {
    CDCLAKE_ASSIGN_OR_RETURN(const std::vector<const std::string*>* row, range.copy->Next());
    if (row == nullptr) {
      range.copy.reset();
      return range.connection->Execute("COMMIT");
    }
    CDCLAKE_RETURN_IF_ERROR(range.writer->Append(*row, 0));
  }
  return Status::OK();
}

change::ChangeBatch PgTableCopy::TakeChunk(Range& range) {
  range.writer->Finish();
  change::ChangeBatch out = std::exchange(range.chunk, change::ChangeBatch());
  range.chunk.rows = data::RecordBatch(schema_);
  return out;
}

void PgTableCopy::Copy(Range* range) {
  Status status = Status::OK();
  while (true) {
    status = ReadInto(*range, chunk_rows_);
    if (!status.ok()) break;
    if (range->chunk.num_records() > 0 && !Push(TakeChunk(*range))) break;
    if (range->copy == nullptr) break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  range->ended = true;
  if (!status.ok() && !stopping_ && !failed_) failed_ = status.WithContext(range->name);
  --running_;
  changed_.notify_all();
}

bool PgTableCopy::Push(change::ChangeBatch chunk) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || failed_ || chunks_.size() < kChunksAhead; });
  if (stopping_ || failed_) return false;
  chunks_.push_back(std::move(chunk));
  changed_.notify_all();
  return true;
}

Status PgTableCopy::Wait(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [&] { return failed_ || !chunks_.empty() || running_ == 0; });
  return failed_.value_or(Status::OK());
}

Status PgTableCopy::ReadOne(int64_t records) {
  if (failed_) return *failed_;
  Range& range = ranges_.front();
  // A COPY that failed has ended on its connection: read again, it would look whole.
  Status status = ReadInto(range, records);
  if (!status.ok()) failed_ = status.WithContext(range.name);
  return failed_.value_or(Status::OK());
}

Result<std::optional<change::ChangeBatch>> PgTableCopy::Next(int64_t first_ordinal,
                                                             int64_t max_records) {
  using Out = std::optional<change::ChangeBatch>;
  change::ChangeBatch chunk;
  if (ranges_.size() == 1) {
    CDCLAKE_RETURN_IF_ERROR(ReadOne(max_records));
    if (ranges_.front().chunk.num_records() == 0) return Out();
    chunk = TakeChunk(ranges_.front());
  } else {
    std::unique_lock<std::mutex> lock(mutex_);
    CDCLAKE_RETURN_IF_ERROR(Wait(lock));
    if (chunks_.empty()) return Out();
    chunk = std::move(chunks_.front());
    chunks_.pop_front();
    changed_.notify_all();
    lock.unlock();
    const int64_t keep = max_records - static_cast<int64_t>(chunk.rejected.size());
    if (keep < chunk.rows.num_rows()) {
      // The rows past `max_records` wait for the next call, ahead of every other chunk.
      change::ChangeBatch front = change::TakeFrontRows(keep, &chunk);
      lock.lock();
      chunks_.push_front(std::move(chunk));
      lock.unlock();
      chunk = std::move(front);
    }
  }
  NumberRows(seq_column_, first_ordinal, &chunk);
  return Out(std::move(chunk));
}

Result<bool> PgTableCopy::Done() {
  if (ranges_.size() == 1) {
    CDCLAKE_RETURN_IF_ERROR(ReadOne(1));
    return ranges_.front().chunk.num_records() == 0;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  CDCLAKE_RETURN_IF_ERROR(Wait(lock));
  return chunks_.empty();
}

}  // namespace cdclake::sources::postgres
