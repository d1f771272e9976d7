// PgTableReader: the catalog checks, the snapshot hand-off and the stream, batched into whole
// transactions.
#include "sources/postgres/pg_table_reader.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iterator>

#include "base/crash_point.h"
#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_change_rows.h"
#include "sources/postgres/replication_stream.h"
#include "sources/postgres/shared_slot.h"

namespace cdclake::sources::postgres {
namespace {

constexpr int kWaitMs = 200;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool SameShape(const std::vector<RelationInfo::Column>& a,
               const std::vector<RelationInfo::Column>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type_oid != b[i].type_oid ||
        a[i].type_modifier != b[i].type_modifier) {
      return false;
    }
  }
  return true;
}

}  // namespace

json::Json PgPosition::ToJson() const {
  json::Json out = json::Json::object();
  out["postgres"] = system_id + "/" + database + "/" + slot;
  out["lsn"] = FormatLsn(lsn);
  if (snapshot_rows >= 0) out["snapshotRows"] = snapshot_rows;
  return out;
}

Result<std::optional<PgPosition>> PgPosition::FromJson(const json::Json& value) {
  if (!value.is_object() || !value.contains("postgres")) return std::optional<PgPosition>();
  const json::Json& id = value["postgres"];
  if (!id.is_string() || !value.contains("lsn") || !value["lsn"].is_string()) {
    return Status::Corrupt("a PostgreSQL position needs \"postgres\" and \"lsn\" strings: " +
                           json::Dump(value));
  }
  const std::string text = id.get<std::string>();
  const size_t first = text.find('/');
  const size_t last = text.rfind('/');
  if (first == std::string::npos || first == last) {
    return Status::Corrupt("a PostgreSQL position's \"postgres\" is <system>/<database>/<slot>: " +
                           text);
  }
  PgPosition out;
  out.system_id = text.substr(0, first);
  out.database = text.substr(first + 1, last - first - 1);
  out.slot = text.substr(last + 1);
  CDCLAKE_ASSIGN_OR_RETURN(out.lsn, ParseLsn(value["lsn"].get<std::string>()));
  if (value.contains("snapshotRows")) {
    if (!value["snapshotRows"].is_number_integer()) {
      return Status::Corrupt("a PostgreSQL position's \"snapshotRows\" is a count: " +
                             json::Dump(value));
    }
    out.snapshot_rows = value["snapshotRows"].get<int64_t>();
  }
  return std::optional<PgPosition>(out);
}

std::string PgPosition::AppId() const {
  return "pg:" + system_id + "/" + database + "/" + slot;
}

std::string PgPosition::ToString() const {
  std::string out = AppId() + "@" + FormatLsn(lsn);
  if (snapshot_rows >= 0) out += " (copying, " + std::to_string(snapshot_rows) + " rows)";
  return out;
}

Result<std::unique_ptr<PgTableReader>> PgTableReader::Open(const PgTableSpec& spec,
                                                           const std::optional<PgPosition>& resume,
                                                           SharedSlot* shared) {
  std::unique_ptr<PgTableReader> reader(new PgTableReader());
  PgTableReader& r = *reader;
  r.spec_ = spec;
  r.shared_ = shared;
  r.assembler_ = TransactionAssembler(spec.spill);
  CDCLAKE_ASSIGN_OR_RETURN(r.sql_, PgConnection::Connect(spec.connection));
  PgConnection& sql = *r.sql_;
  const std::string where = "PostgreSQL " + sql.Describe();

  // The table, then the publication that must carry it.
  auto described = DescribePgTable(sql, spec.table);
  if (!described.ok()) {
    return Status(described.status().code(), "read_postgres: " + described.status().message());
  }
  r.catalog_ = std::move(described->relation);
  r.keys_ = std::move(described->keys);
  const std::string& qualified = described->qualified;
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows published, sql.Query("SELECT EXISTS(SELECT 1 FROM pg_publication WHERE pubname = " +
                                  QuoteLiteral(spec.publication) +
                                  "), EXISTS(SELECT 1 FROM pg_publication_tables WHERE pubname = " +
                                  QuoteLiteral(spec.publication) +
                                  " AND schemaname = " + QuoteLiteral(r.catalog_.schema) +
                                  " AND tablename = " + QuoteLiteral(r.catalog_.name) + ")"));
  if (FirstCell(published, 0) != "t") {
    return Status::NotFound(where + ": publication '" + spec.publication +
                            "' does not exist; create it before the first run (the slot reads "
                            "it from then on): CREATE PUBLICATION " +
                            ReadableIdentifier(spec.publication) + " FOR TABLE " + qualified + ";");
  }
  if (FirstCell(published, 1) != "t") {
    return Status::InvalidArgument(
        where + ": publication '" + spec.publication + "' does not publish " + qualified +
        "; add it: ALTER PUBLICATION " + ReadableIdentifier(spec.publication) + " ADD TABLE " +
        qualified + ";");
  }
  if (r.keys_.empty()) {
    return Status::InvalidArgument(where + ": " + qualified +
                                   " has neither a primary key nor a replica identity index, so "
                                   "its updates and deletes cannot be applied by key; add a "
                                   "primary key");
  }

  CDCLAKE_ASSIGN_OR_RETURN(r.replication_, PgConnection::Connect(spec.connection, {true}));
  CDCLAKE_ASSIGN_OR_RETURN(ReplicationSystem system, IdentifySystem(*r.replication_));
  r.system_id_ = system.system_id;
  r.database_ = system.database;
  // A run reads what was committed before it began (and what comes while it reads). Asked
  // first: a first run's copy holds the connection from the slot's checks on.
  CDCLAKE_ASSIGN_OR_RETURN(PgRows now, sql.Query("SELECT pg_current_wal_lsn()"));
  CDCLAKE_ASSIGN_OR_RETURN(Lsn stop_at, ParseLsn(FirstCell(now)));
  r.end_.set_stop_at(spec.stop_at != 0 ? spec.stop_at : stop_at);
  CDCLAKE_RETURN_IF_ERROR(shared != nullptr ? r.CheckSharedSlot(resume) : r.CheckSlot(resume));
  if (spec.read_only && (!resume || shared != nullptr)) {
    return Status::InvalidArgument(
        "read_postgres: only a table with a position reads a slot of "
        "its own without moving it");
  }
  r.last_end_ = r.start_;
  r.confirmed_.store(spec.read_only ? r.slot_confirmed_ : r.start_);
  return reader;
}

PgTableReader::~PgTableReader() {
  Close();
}

void PgTableReader::Close() {
  if (heartbeat_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(heartbeat_mutex_);
      stopping_ = true;
    }
    heartbeat_wake_.notify_all();
    heartbeat_.join();
  }
  if (stream_) {
    (void)SendStatus(false);
    (void)stream_->Finish(2000);
    stream_.reset();
  }
}

namespace {

std::string Bytes(int64_t n) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(n);
  size_t u = 0;
  while (v >= 1000 && u + 1 < std::size(units)) {
    v /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

}  // namespace

Result<std::string> PgTableReader::Lag() {
  // The walsender takes the last status before the end of the stream: the slot's confirmed
  // position below is the one sent.
  Close();
  if (shared_ != nullptr) {
    // The slot moves on when the pass ends, to its flows' lowest position: this flow's own
    // position is what says how far behind it is.
    CDCLAKE_ASSIGN_OR_RETURN(PgRows rows,
                             sql_->Query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), " +
                                         QuoteLiteral(FormatLsn(last_end_)) +
                                         "::pg_lsn)::bigint, pg_wal_lsn_diff(pg_current_wal_lsn(), "
                                         "restart_lsn)::bigint FROM pg_replication_slots WHERE "
                                         "slot_name = " +
                                         QuoteLiteral(spec_.slot)));
    if (rows.rows.empty() || !rows.rows[0][0] || !rows.rows[0][1]) {
      return Status::NotFound("slot " + spec_.slot + " is gone");
    }
    return "slot " + spec_.slot + " (shared by " + std::to_string(shared_->spec().readers) +
           " flows): " + Bytes(std::stoll(*rows.rows[0][0])) +
           " of WAL after this flow's position " + FormatLsn(last_end_) + ", " +
           Bytes(std::stoll(*rows.rows[0][1])) + " retained";
  }
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows rows,
      sql_->Query("SELECT confirmed_flush_lsn, pg_wal_lsn_diff(pg_current_wal_lsn(), "
                  "confirmed_flush_lsn)::bigint, pg_wal_lsn_diff(pg_current_wal_lsn(), "
                  "restart_lsn)::bigint FROM pg_replication_slots WHERE slot_name = " +
                  QuoteLiteral(spec_.slot)));
  if (rows.rows.empty() || !rows.rows[0][1] || !rows.rows[0][2]) {
    return Status::NotFound("slot " + spec_.slot + " is gone");
  }
  const auto& row = rows.rows[0];
  return "slot " + spec_.slot + ": " + Bytes(std::stoll(*row[1])) +
         " of WAL after its confirmed position " + row[0].value_or("?") + ", " +
         Bytes(std::stoll(*row[2])) + " retained";
}

void PgTableReader::Heartbeat() {
  const auto tick = std::chrono::milliseconds(std::max<int64_t>(spec_.status_interval_ms / 4, 10));
  std::unique_lock<std::mutex> wait(heartbeat_mutex_);
  while (!heartbeat_wake_.wait_for(wait, tick, [this] { return stopping_; })) {
    if (NowMs() - last_status_ms_.load() < spec_.status_interval_ms &&
        confirmed_.load() == confirmed_sent_) {
      continue;
    }
    // Next sends its own while it reads; a failure here shows there too.
    std::unique_lock<std::mutex> stream(stream_mutex_, std::try_to_lock);
    if (stream.owns_lock()) (void)SendStatus(false);
  }
}

Status PgTableReader::CheckSlot(const std::optional<PgPosition>& resume) {
  const std::string where = "PostgreSQL " + sql_->Describe();
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows slot, sql_->Query("SELECT confirmed_flush_lsn, wal_status, active, plugin, database, "
                               "active_pid FROM pg_replication_slots WHERE slot_name = " +
                               QuoteLiteral(spec_.slot)));
  const bool exists = !slot.rows.empty();
  const std::string refresh =
      "; a full refresh of the table (cdclake run --full-refresh TABLE) copies the table again "
      "through a new slot";
  if (resume && resume->snapshot_rows >= 0) {
    // The first copy stopped before it was whole: its snapshot is gone, so it starts again,
    // through a new slot, with a `t` row first (ReadSnapshot).
    stopped_copy_rows_ = resume->snapshot_rows;
    truncate_first_ = true;
    notices_.push_back("the first copy of " + catalog_.schema + "." + catalog_.name +
                       " stopped after " + std::to_string(resume->snapshot_rows) +
                       " rows: copying it again through a new slot, after a truncate of what "
                       "the stopped copy committed");
    if (exists && FirstCell(slot, 2) != "t") {
      CDCLAKE_RETURN_IF_ERROR(
          replication_->Execute("DROP_REPLICATION_SLOT " + QuoteIdentifier(spec_.slot)));
    }
    return BeginSnapshot();
  }
  if (resume) return CheckResume(slot, *resume);
  if (exists) {
    if (FirstCell(slot, 2) == "t") {
      return Status::InvalidArgument(where + ": replication slot '" + spec_.slot +
                                     "' is in use by process " + FirstCell(slot, 5) +
                                     "; each read_postgres needs a slot of its own");
    }
    // A slot without a position in the table: a first run that stopped before its snapshot
    // committed. Its exported snapshot is gone, so it must be made again.
    CDCLAKE_RETURN_IF_ERROR(
        replication_->Execute("DROP_REPLICATION_SLOT " + QuoteIdentifier(spec_.slot)));
    notices_.push_back("replication slot '" + spec_.slot +
                       "' existed but the table records no position from it (a first run that "
                       "stopped before its snapshot committed?): dropped it and copying the "
                       "table again through a new one");
  }
  return BeginSnapshot();
}

Status PgTableReader::CheckResume(const PgRows& slot, const PgPosition& p) {
  const std::string where = "PostgreSQL " + sql_->Describe();
  const bool exists = !slot.rows.empty();
  const std::string refresh =
      shared_ == nullptr
          ? "; a full refresh of the table (cdclake run --full-refresh TABLE) copies the table "
            "again through a new slot"
          : "; a full refresh of the table (cdclake run --full-refresh TABLE) copies it again; "
            "the slot is shared, so each table reading it that stops with this error needs one";
  resume_ = p;
  if (p.system_id != system_id_ || p.database != database_ || p.slot != spec_.slot) {
    return Status::InvalidArgument(where + ": the table was read from " + p.ToString() +
                                   ", not from slot '" + spec_.slot + "' of database " + database_ +
                                   " on system " + system_id_ + refresh);
  }
  if (!exists) {
    return Status::NotFound(where + ": replication slot '" + spec_.slot +
                            "' no longer exists, so the changes after " + FormatLsn(p.lsn) +
                            " the table holds cannot be read" + refresh);
  }
  if (FirstCell(slot, 1) == "lost") {
    return Status::Conflict(where + ": replication slot '" + spec_.slot +
                            "' was invalidated (wal_status 'lost': the server removed WAL it "
                            "still needed, see max_slot_wal_keep_size); the changes after " +
                            FormatLsn(p.lsn) + " are gone" + refresh);
  }
  CDCLAKE_ASSIGN_OR_RETURN(Lsn confirmed, ParseLsn(FirstCell(slot, 0)));
  slot_confirmed_ = confirmed;
  if (confirmed > p.lsn) {
    return Status::Conflict(
        where + ": replication slot '" + spec_.slot + "' has confirmed " + FormatLsn(confirmed) +
        ", beyond the " + FormatLsn(p.lsn) +
        " the table holds: something else read from the slot, advanced it or created it again, "
        "and the changes between are not in the table" +
        refresh);
  }
  start_ = p.lsn;
  return Status::OK();
}

Status PgTableReader::CheckSharedSlot(const std::optional<PgPosition>& resume) {
  if (resume && resume->snapshot_rows < 0) {
    CDCLAKE_ASSIGN_OR_RETURN(PgRows slot, sql_->Query("SELECT confirmed_flush_lsn, wal_status FROM "
                                                      "pg_replication_slots WHERE slot_name = " +
                                                      QuoteLiteral(spec_.slot)));
    CDCLAKE_RETURN_IF_ERROR(CheckResume(slot, *resume));
    replication_.reset();  // the pass reads the stream once for every flow of the slot
    shared_reader_ = shared_->Join(start_);
    return Status::OK();
  }
  // A first copy, or one made again: the slot first, so that it keeps every change after the
  // copy's own snapshot, taken next.
  CDCLAKE_ASSIGN_OR_RETURN(bool created, shared_->Ensure(*replication_));
  if (created) {
    notices_.push_back("created replication slot '" + spec_.slot + "', shared by " +
                       std::to_string(shared_->spec().readers) + " flows");
  }
  if (resume) {
    stopped_copy_rows_ = resume->snapshot_rows;
    truncate_first_ = true;
    notices_.push_back("the first copy of " + catalog_.schema + "." + catalog_.name +
                       " stopped after " + std::to_string(resume->snapshot_rows) +
                       " rows: copying it again, after a truncate of what the stopped copy "
                       "committed");
  }
  CDCLAKE_RETURN_IF_ERROR(BeginSnapshot());
  shared_reader_ = shared_->Join(start_);
  return Status::OK();
}

Status PgTableReader::BeginSnapshot() {
  // A shared slot exists already: the copy's snapshot is a temporary slot's, dropped with its
  // connection once the snapshot is imported. Its consistent point is past the shared slot's.
  static std::atomic<int> copies{0};
  const bool temporary = shared_ != nullptr;
  const std::string name = temporary ? "cdclake_copy_" + std::to_string(getpid()) + "_" +
                                           std::to_string(copies.fetch_add(1))
                                     : spec_.slot;
  CDCLAKE_ASSIGN_OR_RETURN(
      CreatedSlot slot,
      CreateReplicationSlot(*replication_, name, SnapshotAction::kExport, temporary));
  CrashPoint("pg-slot-created");
  start_ = slot.consistent_point;
  // The snapshot lives while the replication connection is idle; once imported, the copy's
  // transactions keep it.
  PgCopySpec copy;
  copy.connection = spec_.connection;
  copy.snapshot = slot.snapshot_name;
  copy.connections = spec_.copy_connections;
  copy.batch_rows = spec_.batch_rows;
  CDCLAKE_ASSIGN_OR_RETURN(copy_, PgTableCopy::Start(copy, catalog_, database_, start_,
                                                     UnixToPostgresMicros(NowMs() * 1000)));
  if (temporary) replication_.reset();
  return Status::OK();
}

std::string PgTableReader::StartText() const {
  if (resume_) return resume_->ToString();
  std::string out = "snapshot of " + catalog_.schema + "." + catalog_.name;
  if (copy_ != nullptr && copy_->ranges() > 1) {
    out += " over " + std::to_string(copy_->ranges()) + " connections";
  }
  if (stopped_copy_rows_ >= 0) {
    out += " (again: a copy stopped after " + std::to_string(stopped_copy_rows_) + " rows)";
  }
  return out;
}

Result<PgBatch> PgTableReader::ReadSnapshot() {
  PgBatch batch;
  batch.snapshot = true;
  batch.rows.rows = data::RecordBatch(PgChangeSchema(catalog_));
  const int64_t now_us = NowMs() * 1000;
  if (truncate_first_) {
    // Before the rows of a copy made again: what the stopped copy committed goes.
    PgTransaction part;
    part.snapshot = true;
    part.commit_lsn = start_;
    part.end_lsn = start_;
    part.commit_time_us = UnixToPostgresMicros(now_us);
    part.first_ordinal = snapshot_ordinal_;
    PgChange truncate;
    truncate.kind = PgChange::Kind::kTruncate;
    truncate.truncated = {catalog_.oid};
    CDCLAKE_RETURN_IF_ERROR(part.changes.Add(std::move(truncate)));
    CDCLAKE_RETURN_IF_ERROR(AppendPgChanges(part, catalog_, keys_, database_, &batch.rows));
    ++snapshot_ordinal_;
    truncate_first_ = false;
  }
  bool whole = false;
  for (int64_t taken = 0; taken < spec_.batch_rows;) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> chunk,
                             copy_->Next(snapshot_ordinal_, spec_.batch_rows - taken));
    if (!chunk) {
      whole = true;
      break;
    }
    taken += chunk->num_records();
    snapshot_ordinal_ += chunk->num_records();
    change::AppendRows(std::move(*chunk), &batch.rows);
  }
  // Whether this batch ends the copy: it does when no row follows.
  if (!whole) {
    CDCLAKE_ASSIGN_OR_RETURN(whole, copy_->Done());
  }
  CrashPoint(whole ? "pg-copy-read" : "pg-copy-batch-read");
  batch.end = PgPosition{system_id_, database_, spec_.slot, start_};
  if (whole) {
    copy_.reset();
  } else {
    batch.end.snapshot_rows = snapshot_ordinal_;
  }
  batch.written_ms = now_us / 1000;
  last_end_ = start_;
  return batch;
}

Status PgTableReader::StartStreaming() {
  ReplicationStream::Options options;
  options.slot = spec_.slot;
  options.publications = {spec_.publication};
  options.start = start_;
  options.streaming = true;
  CDCLAKE_ASSIGN_OR_RETURN(stream_, ReplicationStream::Start(std::move(replication_), options));
  CrashPoint("pg-stream-started");
  last_status_ms_ = NowMs();
  heartbeat_ = std::thread([this] { Heartbeat(); });
  return Status::OK();
}

Status PgTableReader::SendStatus(bool reply_requested) {
  const Lsn confirmed = confirmed_.load();
  CDCLAKE_RETURN_IF_ERROR(
      stream_->SendStatus(std::max(received_, confirmed), confirmed, reply_requested));
  confirmed_sent_ = confirmed;
  last_status_ms_ = NowMs();
  return Status::OK();
}

Status PgTableReader::FillMovedRow(PgChange* moved) {
  PgChange& change = *moved;
  // AppendPgChanges hands over this table's updates with a 'K' tuple and unchanged cells. A 'K'
  // tuple comes with an update only when the key changed (REPLICA IDENTITY DEFAULT or INDEX): a
  // TOASTed value it left unchanged belongs to the old key's row, which is gone.
  if (!change.shape) return Status::OK();
  const RelationInfo& shape = *change.shape;
  OwnedTuple& tuple = change.new_tuple;
  std::string wanted;
  std::vector<size_t> missing;
  std::string where;
  for (size_t c = 0; c < tuple.kinds.size() && c < shape.columns.size(); ++c) {
    const std::string name = QuoteIdentifier(shape.columns[c].name);
    if (tuple.kinds[c] == TupleCell::Kind::kUnchanged) {
      wanted += (wanted.empty() ? "" : ", ") + name;
      missing.push_back(c);
    }
    if (!shape.columns[c].key) continue;
    where += (where.empty() ? "" : " AND ") + name +
             (tuple.kinds[c] == TupleCell::Kind::kText ? " = " + QuoteLiteral(tuple.values[c])
                                                       : " IS NULL");
  }
  if (missing.empty() || where.empty()) return Status::OK();
  // The value now (it may be newer than this change; a later change sets it again, so the
  // table is exact once the run has read that far). A row deleted since stays unchanged.
  std::string query = "SELECT " + wanted;
  query += " FROM " + QuoteIdentifier(catalog_.schema);
  query += "." + QuoteIdentifier(catalog_.name);
  query += " WHERE " + where;
  CDCLAKE_ASSIGN_OR_RETURN(PgRows now, sql_->Query(query));
  if (now.rows.size() != 1) return Status::OK();
  for (size_t i = 0; i < missing.size(); ++i) {
    const std::optional<std::string>& value = now.rows[0][i];
    tuple.kinds[missing[i]] = value ? TupleCell::Kind::kText : TupleCell::Kind::kNull;
    tuple.values[missing[i]] = value.value_or("");
  }
  return Status::OK();
}

void PgTableReader::Confirm(Lsn lsn) {
  if (spec_.read_only) return;
  confirmed_.store(lsn);
  if (shared_ != nullptr) shared_->Confirm(shared_reader_, lsn);
}

Result<bool> PgTableReader::AddTransaction(PgTransaction transaction,
                                           std::shared_ptr<const RelationInfo> shape,
                                           PgBatch* batch) {
  if (shape != nullptr && transaction.changes.Touches(catalog_.oid)) {
    const bool empty = batch->rows.rows.num_rows() == 0 && batch->rows.rejected.empty();
    if (!empty && !SameShape(shape->columns, batch_shape_)) {
      held_ = std::move(transaction);
      held_shape_ = std::move(shape);
      return false;
    }
    if (empty) {
      batch->rows = change::ChangeBatch();
      batch->rows.rows = data::RecordBatch(PgChangeSchema(*shape));
      batch_shape_ = shape->columns;
    }
    // A long transaction (read back from disk) keeps the slot's stream answered: the heartbeat
    // cannot while Next holds the stream.
    auto tick = [this]() -> Status {
      if (stream_ == nullptr || NowMs() - last_status_ms_.load() < spec_.status_interval_ms) {
        return Status::OK();
      }
      return SendStatus(false);
    };
    CDCLAKE_RETURN_IF_ERROR(AppendPgChanges(
        transaction, *shape, keys_, database_, &batch->rows,
        [this](PgChange* c) { return FillMovedRow(c); }, tick));
  }
  last_end_ = transaction.end_lsn;
  batch->end.lsn = last_end_;
  batch->written_ms = PostgresToUnixMicros(transaction.commit_time_us) / 1000;
  ++batch->transactions;
  return true;
}

Result<std::optional<PgBatch>> PgTableReader::Next() {
  using Out = std::optional<PgBatch>;
  if (copy_ != nullptr) {
    CDCLAKE_ASSIGN_OR_RETURN(PgBatch snapshot, ReadSnapshot());
    return Out(std::move(snapshot));
  }
  if (shared_ != nullptr) return NextShared();
  if (done_) return Out();
  std::lock_guard<std::mutex> stream_lock(stream_mutex_);
  if (!stream_) CDCLAKE_RETURN_IF_ERROR(StartStreaming());
  const Lsn batch_start = last_end_;
  const RelationInfo* known = assembler_.relation(catalog_.oid);
  CDCLAKE_ASSIGN_OR_RETURN(PgBatch batch, StartBatch(known != nullptr ? *known : catalog_));
  while (true) {
    if (confirmed_.load() != confirmed_sent_ ||
        NowMs() - last_status_ms_.load() >= spec_.status_interval_ms) {
      CDCLAKE_RETURN_IF_ERROR(SendStatus(false));
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<ReplicationFrame> frame, stream_->Next(kWaitMs));
    if (!frame) {
      // Quiet: ask where the server is (its keepalive answers with how far it has sent).
      CDCLAKE_RETURN_IF_ERROR(SendStatus(true));
      continue;
    }
    if (const auto* data = std::get_if<XLogData>(&*frame)) {
      received_ = std::max(received_, data->wal_end);
      CDCLAKE_ASSIGN_OR_RETURN(PgOutputMessage message, decoder_.Decode(data->payload));
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<PgTransaction> done,
                               assembler_.Add(message, data->data_start));
      end_.Sending();
      if (!done || done->end_lsn <= start_) continue;  // not whole yet, or in the table already
      if (spec_.stop_at != 0 && done->end_lsn > spec_.stop_at) {
        // Past the barrier: everything up to it is read, nothing after it is handed out.
        return EndReading(spec_.stop_at, batch_start, std::move(batch));
      }
      CDCLAKE_ASSIGN_OR_RETURN(
          bool added,
          AddTransaction(std::move(*done), assembler_.shared_relation(catalog_.oid), &batch));
      if (!added || batch.rows.rows.num_rows() >= spec_.batch_rows) return Out(std::move(batch));
      continue;
    }
    const auto& keepalive = std::get<Keepalive>(*frame);
    received_ = std::max(received_, keepalive.wal_end);
    if (keepalive.reply_requested) CDCLAKE_RETURN_IF_ERROR(SendStatus(false));
    if (assembler_.in_transaction() || !end_.Reached(keepalive.wal_end)) continue;
    // Every transaction committed before the keepalive's position was sent before it, so the
    // WAL up to it is read: it is the position, even where nothing of the table was in it
    // (so the slot does not hold WAL for other tables and databases).
    return EndReading(spec_.stop_at != 0 ? spec_.stop_at : keepalive.wal_end, batch_start,
                      std::move(batch));
  }
}

Result<PgBatch> PgTableReader::StartBatch(const RelationInfo& shape) {
  PgBatch batch;
  batch.end = PgPosition{system_id_, database_, spec_.slot, last_end_};
  batch.rows.rows = data::RecordBatch(PgChangeSchema(shape));
  if (held_) {
    PgTransaction t = std::move(*held_);
    held_.reset();
    CDCLAKE_ASSIGN_OR_RETURN(bool added, AddTransaction(std::move(t), held_shape_, &batch));
    (void)added;  // an empty batch takes any shape
  }
  return batch;
}

std::optional<PgBatch> PgTableReader::EndReading(Lsn end, Lsn batch_start, PgBatch batch) {
  done_ = true;
  last_end_ = std::max(last_end_, end);
  batch.end.lsn = last_end_;
  if (batch.transactions == 0 && last_end_ == batch_start) return std::nullopt;
  return batch;
}

Result<std::optional<PgBatch>> PgTableReader::NextShared() {
  using Out = std::optional<PgBatch>;
  if (done_) return Out();
  CDCLAKE_RETURN_IF_ERROR(shared_->Read());
  const std::vector<TablePart>& parts = shared_->PartsOf(catalog_.oid);
  const Lsn batch_start = last_end_;
  CDCLAKE_ASSIGN_OR_RETURN(PgBatch batch, StartBatch(catalog_));
  while (next_part_ < parts.size()) {
    const TablePart& part = parts[next_part_++];
    if (part.transaction.end_lsn <= start_) continue;  // in the table already
    // A copy: another flow may read the same table from the same parts.
    CDCLAKE_ASSIGN_OR_RETURN(bool added, AddTransaction(part.transaction, part.shape, &batch));
    if (!added || batch.rows.rows.num_rows() >= spec_.batch_rows) return Out(std::move(batch));
  }
  // Every transaction up to the end of what the pass read is in: that is the position, even
  // where none of it was this table's.
  return EndReading(shared_->end(), batch_start, std::move(batch));
}

}  // namespace cdclake::sources::postgres
