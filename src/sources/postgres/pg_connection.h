// PgConnection: one libpq connection to PostgreSQL with the session settings every cdclake
// connection pins, and statements whose results come back as text.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"

struct pg_conn;
struct pg_cancel;

namespace cdclake::sources::postgres {

/// A statement's result: column names and each row's values as PostgreSQL's text output.
struct PgRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

class PgConnection {
 public:
  struct Options {
    /// Opens a replication connection (`replication=database`): the walsender's commands
    /// (CREATE_REPLICATION_SLOT, START_REPLICATION, IDENTIFY_SYSTEM) as well as SQL.
    bool replication = false;
  };

  /// Connects with `conninfo` (libpq's key=value or URI form). Every connection pins
  /// datestyle=ISO, intervalstyle=postgres, extra_float_digits=3, timezone=UTC, lc_monetary=C
  /// and bytea_output=hex, so a value's text is the same from a snapshot and from the
  /// replication stream (an `options` keyword in `conninfo` is replaced by these). The error
  /// names the server (host, port, database, user: never the password) and libpq's reason.
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& conninfo,
                                                       Options options);
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& conninfo) {
    return Connect(conninfo, Options{});
  }
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs `sql` (one or more statements); the last statement's rows. A failing statement is an
  /// error with PostgreSQL's message and SQLSTATE; a statement that starts a COPY is refused.
  Result<PgRows> Query(const std::string& sql);
  /// Runs `sql`, ignoring any rows.
  Status Execute(const std::string& sql);

  /// "host:port/database": for messages.
  std::string Describe() const;
  /// The server's version as an integer (150018 for 15.18).
  int server_version() const;
  /// The connection itself, for the replication stream.
  pg_conn* raw() const { return conn_; }

 private:
  explicit PgConnection(pg_conn* conn) : conn_(conn) {}
  pg_conn* conn_;
};

/// What stopping a connection's statement takes, copied from the connection while only its
/// owner uses it; Cancel may then be called from any thread, as often as wanted, while the
/// owner goes on with the connection (the statement ends with an error there). Nothing when
/// no statement runs. A backend blocked sending to a client that no longer reads ends when the
/// connection closes.
class PgCanceller {
 public:
  explicit PgCanceller(const PgConnection& connection);
  ~PgCanceller();
  PgCanceller(const PgCanceller&) = delete;
  PgCanceller& operator=(const PgCanceller&) = delete;
  void Cancel() const;

 private:
  pg_cancel* cancel_;
};

/// A libpq message (PQerrorMessage, PQresultErrorMessage) without its trailing newline.
std::string LibpqMessage(const char* message);

/// `text` as a SQL string literal ('it''s').
std::string QuoteLiteral(std::string_view text);
/// `name` as a SQL identifier ("Order").
std::string QuoteIdentifier(std::string_view name);

}  // namespace cdclake::sources::postgres
