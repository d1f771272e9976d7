// StreamEnd: when a reader of a replication stream has everything committed before the WAL
// position it set out to read to. Shared by PgTableReader and SharedSlot.
#pragma once

#include <chrono>
#include <cstdint>

#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

class StreamEnd {
 public:
  /// A server with nothing more to send for this long, short of `stop_at`, has sent all there
  /// is (its WAL ended there after all, as a position may point past a page header).
  static constexpr int64_t kIdleEndMs = 5000;

  void set_stop_at(Lsn stop_at) { stop_at_ = stop_at; }
  Lsn stop_at() const { return stop_at_; }

  /// The server sent data: it is not idle.
  void Sending() { idle_at_ = 0; }

  /// A keepalive at `wal_end` came outside any transaction: true once every transaction
  /// committed before stop_at has been sent (the keepalive is at or past it, or the server has
  /// stayed quiet at one place short of it for kIdleEndMs).
  bool Reached(Lsn wal_end) {
    if (wal_end >= stop_at_) return true;
    const int64_t now = NowMs();
    if (wal_end != idle_at_) {
      idle_at_ = wal_end;
      idle_since_ms_ = now;
    }
    return now - idle_since_ms_ >= kIdleEndMs;
  }

 private:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  Lsn stop_at_ = 0;
  Lsn idle_at_ = 0;  // the server's position while it sends nothing but keepalives
  int64_t idle_since_ms_ = 0;
};

}  // namespace cdclake::sources::postgres
