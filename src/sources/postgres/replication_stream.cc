// ReplicationStream: the walsender's CopyBoth sub-protocol over libpq ("Streaming Replication
// Protocol": XLogData 'w', Primary keepalive 'k', Standby status update 'r').
#include "sources/postgres/replication_stream.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <utility>

#include "base/bytes.h"
#include "sources/postgres/lsn.h"

namespace cdclake::sources::postgres {
namespace {

int64_t NowPostgresMicros() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return UnixToPostgresMicros(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

const std::optional<std::string>& Cell(const PgRows& rows, const char* column) {
  static const std::optional<std::string> kNone;
  for (size_t c = 0; c < rows.columns.size(); ++c) {
    if (rows.columns[c] == column && !rows.rows.empty()) return rows.rows[0][c];
  }
  return kNone;
}

}  // namespace

Result<ReplicationSystem> IdentifySystem(PgConnection& replication) {
  CDCLAKE_ASSIGN_OR_RETURN(PgRows rows, replication.Query("IDENTIFY_SYSTEM"));
  ReplicationSystem out;
  const auto& id = Cell(rows, "systemid");
  const auto& timeline = Cell(rows, "timeline");
  const auto& position = Cell(rows, "xlogpos");
  if (!id || !timeline || !position) {
    return Status::Corrupt("PostgreSQL " + replication.Describe() +
                           ": IDENTIFY_SYSTEM did not answer systemid, timeline and xlogpos "
                           "(is this a replication=database connection?)");
  }
  out.system_id = *id;
  auto [end, ec] =
      std::from_chars(timeline->data(), timeline->data() + timeline->size(), out.timeline);
  if (ec != std::errc()) return Status::Corrupt("IDENTIFY_SYSTEM: timeline '" + *timeline + "'");
  CDCLAKE_ASSIGN_OR_RETURN(out.wal_position, ParseLsn(*position));
  if (const auto& db = Cell(rows, "dbname")) out.database = *db;
  return out;
}

Result<CreatedSlot> CreateReplicationSlot(PgConnection& replication, const std::string& slot,
                                          SnapshotAction snapshot, bool temporary) {
  const char* action = snapshot == SnapshotAction::kExport ? "export"
                       : snapshot == SnapshotAction::kUse  ? "use"
                                                           : "nothing";
  CDCLAKE_ASSIGN_OR_RETURN(PgRows rows,
                           replication.Query("CREATE_REPLICATION_SLOT " + QuoteIdentifier(slot) +
                                             (temporary ? " TEMPORARY" : "") +
                                             " LOGICAL pgoutput (SNAPSHOT '" + action + "')"));
  CreatedSlot out;
  const auto& name = Cell(rows, "slot_name");
  const auto& point = Cell(rows, "consistent_point");
  if (!name || !point) {
    return Status::Corrupt("PostgreSQL " + replication.Describe() +
                           ": CREATE_REPLICATION_SLOT answered no slot name or consistent point");
  }
  out.name = *name;
  CDCLAKE_ASSIGN_OR_RETURN(out.consistent_point, ParseLsn(*point));
  if (const auto& snapshot_name = Cell(rows, "snapshot_name")) out.snapshot_name = *snapshot_name;
  return out;
}

Result<std::unique_ptr<ReplicationStream>> ReplicationStream::Start(
    std::unique_ptr<PgConnection> replication, const Options& options) {
  std::string publications;
  for (const std::string& p : options.publications) {
    publications += (publications.empty() ? "" : ",") + QuoteIdentifier(p);
  }
  std::string command = "START_REPLICATION SLOT " + QuoteIdentifier(options.slot) + " LOGICAL " +
                        FormatLsn(options.start) + " (proto_version '" +
                        (options.streaming ? "2" : "1") + "', publication_names " +
                        QuoteLiteral(publications) + (options.streaming ? ", streaming 'on'" : "") +
                        (options.messages ? ", messages 'true'" : "") + ")";
  PGresult* result = PQexec(replication->raw(), command.c_str());
  ExecStatusType status = PQresultStatus(result);
  std::string reason = LibpqMessage(PQresultErrorMessage(result));
  PQclear(result);
  if (status != PGRES_COPY_BOTH) {
    return Status::InvalidArgument("PostgreSQL " + replication->Describe() + ": " + command + ": " +
                                   (reason.empty() ? "no replication stream" : reason));
  }
  return std::unique_ptr<ReplicationStream>(new ReplicationStream(std::move(replication)));
}

ReplicationStream::~ReplicationStream() {
  FreeBuffer();
}

void ReplicationStream::FreeBuffer() {
  if (buffer_ != nullptr) PQfreemem(buffer_);
  buffer_ = nullptr;
}

Status ReplicationStream::StreamError(const std::string& what) {
  return Status::IoError("PostgreSQL " + connection_->Describe() + ": replication stream " + what);
}

Result<std::optional<ReplicationFrame>> ReplicationStream::Next(int timeout_ms) {
  FreeBuffer();
  PGconn* conn = connection_->raw();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int n = 0;
  while (true) {
    n = PQgetCopyData(conn, &buffer_, /*async=*/1);
    if (n > 0) break;
    if (n == -1) {  // the server ended the stream
      std::string reason;
      while (PGresult* result = PQgetResult(conn)) {
        if (reason.empty()) reason = LibpqMessage(PQresultErrorMessage(result));
        PQclear(result);
      }
      return StreamError("ended: " +
                         (reason.empty() ? std::string("the server finished it") : reason));
    }
    if (n == -2) return StreamError("broke: " + LibpqMessage(PQerrorMessage(conn)));
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return std::optional<ReplicationFrame>();
    pollfd socket{PQsocket(conn), POLLIN, 0};
    if (poll(&socket, 1, static_cast<int>(left)) < 0 && errno != EINTR) {
      return StreamError("poll failed");
    }
    if (PQconsumeInput(conn) == 0)
      return StreamError("broke: " + LibpqMessage(PQerrorMessage(conn)));
  }
  const char* frame = buffer_;
  const size_t size = static_cast<size_t>(n);
  if (frame[0] == 'w' && size >= 25) {
    XLogData data;
    data.data_start = LoadBigEndian(frame + 1, 8);
    data.wal_end = LoadBigEndian(frame + 9, 8);
    data.send_time_us = static_cast<int64_t>(LoadBigEndian(frame + 17, 8));
    data.payload = std::string_view(frame + 25, size - 25);
    return std::optional<ReplicationFrame>(data);
  }
  if (frame[0] == 'k' && size >= 18) {
    Keepalive keepalive;
    keepalive.wal_end = LoadBigEndian(frame + 1, 8);
    keepalive.send_time_us = static_cast<int64_t>(LoadBigEndian(frame + 9, 8));
    keepalive.reply_requested = frame[17] != 0;
    return std::optional<ReplicationFrame>(keepalive);
  }
  return StreamError("sent a frame of " + std::to_string(size) + " bytes starting '" +
                     std::string(1, frame[0]) + "' (w or k expected)");
}

Status ReplicationStream::SendStatus(Lsn written, Lsn flushed, bool reply_requested) {
  char message[1 + 8 * 4 + 1];
  message[0] = 'r';
  StoreBigEndian64(written, message + 1);
  StoreBigEndian64(flushed, message + 9);
  StoreBigEndian64(flushed, message + 17);  // applied: what is flushed is applied
  StoreBigEndian64(static_cast<uint64_t>(NowPostgresMicros()), message + 25);
  message[33] = reply_requested ? 1 : 0;
  PGconn* conn = connection_->raw();
  if (PQputCopyData(conn, message, sizeof(message)) != 1 || PQflush(conn) != 0) {
    return StreamError("could not send a status update: " + LibpqMessage(PQerrorMessage(conn)));
  }
  return Status::OK();
}

Status ReplicationStream::Finish(int timeout_ms) {
  FreeBuffer();
  PGconn* conn = connection_->raw();
  if (PQputCopyEnd(conn, nullptr) != 1 || PQflush(conn) != 0) {
    return StreamError("could not be ended: " + LibpqMessage(PQerrorMessage(conn)));
  }
  // The server answers CopyDone after whatever it was sending; then the command completes.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    int n = PQgetCopyData(conn, &buffer_, /*async=*/1);
    FreeBuffer();
    if (n == -1) break;
    if (n == -2) return StreamError("broke while ending: " + LibpqMessage(PQerrorMessage(conn)));
    if (n > 0) continue;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return StreamError("did not end within " + std::to_string(timeout_ms) + " ms");
    pollfd socket{PQsocket(conn), POLLIN, 0};
    if (poll(&socket, 1, static_cast<int>(left)) < 0 && errno != EINTR) {
      return StreamError("poll failed");
    }
    if (PQconsumeInput(conn) == 0) {
      return StreamError("broke while ending: " + LibpqMessage(PQerrorMessage(conn)));
    }
  }
  while (PGresult* result = PQgetResult(conn)) PQclear(result);
  return Status::OK();
}

}  // namespace cdclake::sources::postgres
