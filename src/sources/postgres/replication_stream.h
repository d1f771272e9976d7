// ReplicationStream: a logical replication connection's commands (IDENTIFY_SYSTEM,
// CREATE_REPLICATION_SLOT) and its stream of frames (XLogData, keepalives), with the standby
// status updates that tell PostgreSQL how far the client has made changes durable.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

/// IDENTIFY_SYSTEM's answer.
struct ReplicationSystem {
  std::string system_id;  // the cluster's identifier: a slot of another cluster is not ours
  int timeline = 0;
  Lsn wal_position = 0;  // the current WAL flush position
  std::string database;
};
Result<ReplicationSystem> IdentifySystem(PgConnection& replication);

/// CREATE_REPLICATION_SLOT's answer. `snapshot_name` (with SnapshotAction::kExport) names a
/// snapshot holding exactly the transactions committed before `consistent_point`; it lives
/// until the next command on the replication connection.
struct CreatedSlot {
  std::string name;
  Lsn consistent_point = 0;
  std::string snapshot_name;
};
enum class SnapshotAction { kExport, kUse, kNothing };
Result<CreatedSlot> CreateReplicationSlot(PgConnection& replication, const std::string& slot,
                                          SnapshotAction snapshot, bool temporary = false);

/// A 'w' frame: one pgoutput message and where it is in the WAL. `payload` views the stream's
/// buffer: valid until the next call to Next.
struct XLogData {
  Lsn data_start = 0;  // the message's LSN (0 for Relation and Type messages)
  Lsn wal_end = 0;
  int64_t send_time_us = 0;  // PostgreSQL epoch
  std::string_view payload;
};
/// A 'k' frame: how far the server has sent; `reply_requested` asks for a status update now.
struct Keepalive {
  Lsn wal_end = 0;
  int64_t send_time_us = 0;
  bool reply_requested = false;
};
using ReplicationFrame = std::variant<XLogData, Keepalive>;

class ReplicationStream {
 public:
  struct Options {
    std::string slot;
    std::vector<std::string> publications;
    Lsn start = 0;          // the server starts at max(start, the slot's confirmed flush)
    bool streaming = true;  // in-progress transactions in blocks (protocol version 2)
    bool messages = false;  // pg_logical_emit_message's messages
  };

  /// START_REPLICATION on `replication` (a connection opened with Options::replication), which
  /// the stream owns from then on.
  static Result<std::unique_ptr<ReplicationStream>> Start(std::unique_ptr<PgConnection> replication,
                                                          const Options& options);
  ~ReplicationStream();
  ReplicationStream(const ReplicationStream&) = delete;
  ReplicationStream& operator=(const ReplicationStream&) = delete;

  /// The next frame, waiting at most `timeout_ms`; nullopt when none came in that time. An
  /// error (the server ended the stream, the connection broke, a frame of the wrong shape) names
  /// the server and PostgreSQL's reason.
  Result<std::optional<ReplicationFrame>> Next(int timeout_ms);

  /// A standby status update: everything before `written` was received, everything before
  /// `flushed` is durable at the client. Only `flushed` moves the slot's confirmed_flush_lsn, so
  /// it must never be above what is committed to Delta.
  Status SendStatus(Lsn written, Lsn flushed, bool reply_requested = false);

  /// Ends the stream (CopyDone) and waits up to `timeout_ms` for the server to end it too, so
  /// that a status update sent before is processed rather than lost with the connection.
  Status Finish(int timeout_ms);

  PgConnection& connection() { return *connection_; }

 private:
  explicit ReplicationStream(std::unique_ptr<PgConnection> connection)
      : connection_(std::move(connection)) {}
  Status StreamError(const std::string& what);
  void FreeBuffer();

  std::unique_ptr<PgConnection> connection_;
  char* buffer_ = nullptr;  // libpq's copy of the last frame
};

}  // namespace cdclake::sources::postgres
