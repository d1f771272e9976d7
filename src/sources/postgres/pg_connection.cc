// PgConnection: libpq wrapped so that nothing throws and every failure names the server.
#include "sources/postgres/pg_connection.h"

#include <libpq-fe.h>

namespace cdclake::sources::postgres {
namespace {

constexpr const char* kPinnedOptions =
    "-c datestyle=ISO -c intervalstyle=postgres -c extra_float_digits=3 -c timezone=UTC "
    "-c lc_monetary=C -c bytea_output=hex";

std::string ServerOf(const PGconn* conn) {
  auto or_unknown = [](const char* s) { return std::string(s != nullptr && *s ? s : "?"); };
  return or_unknown(PQhost(conn)) + ":" + or_unknown(PQport(conn)) + "/" + or_unknown(PQdb(conn)) +
         " as " + or_unknown(PQuser(conn));
}

}  // namespace

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& conninfo,
                                                            Options options) {
  // The connection string is expanded as the database name, so the keywords after it win.
  const char* keys[] = {"dbname", "options", "application_name", "replication", nullptr};
  const char* values[] = {conninfo.c_str(), kPinnedOptions, "cdclake",
                          options.replication ? "database" : nullptr, nullptr};
  if (!options.replication) keys[3] = nullptr;
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Status::IoError("PostgreSQL: out of memory opening a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string reason = LibpqMessage(PQerrorMessage(conn));
    std::string server = ServerOf(conn);
    PQfinish(conn);
    return Status::IoError("cannot connect to PostgreSQL at " + server + ": " + reason);
  }
  return std::unique_ptr<PgConnection>(new PgConnection(conn));
}

PgConnection::~PgConnection() {
  PQfinish(conn_);
}

Result<PgRows> PgConnection::Query(const std::string& sql) {
  if (PQsendQuery(conn_, sql.c_str()) == 0) {
    return Status::IoError("PostgreSQL " + Describe() + ": " + LibpqMessage(PQerrorMessage(conn_)));
  }
  PgRows out;
  std::optional<Status> failed;
  while (PGresult* result = PQgetResult(conn_)) {
    ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_TUPLES_OK || status == PGRES_SINGLE_TUPLE) {
      out = PgRows();
      int columns = PQnfields(result);
      for (int c = 0; c < columns; ++c) out.columns.emplace_back(PQfname(result, c));
      int rows = PQntuples(result);
      out.rows.reserve(static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r) {
        auto& row = out.rows.emplace_back();
        for (int c = 0; c < columns; ++c) {
          if (PQgetisnull(result, r, c)) {
            row.emplace_back();
          } else {
            row.emplace_back(std::string(PQgetvalue(result, r, c),
                                         static_cast<size_t>(PQgetlength(result, r, c))));
          }
        }
      }
    } else if (status == PGRES_COPY_OUT || status == PGRES_COPY_IN || status == PGRES_COPY_BOTH) {
      // PQgetResult would give the COPY state again and again: a COPY is not a query here.
      PQclear(result);
      return Status::InvalidArgument("PostgreSQL " + Describe() + ": '" + sql.substr(0, 60) +
                                     "' starts a COPY, which Query does not run (the connection "
                                     "is left in that COPY)");
    } else if (status != PGRES_COMMAND_OK && status != PGRES_EMPTY_QUERY && !failed) {
      const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
      failed = Status::InvalidArgument(
          "PostgreSQL " + Describe() + ": " + LibpqMessage(PQresultErrorMessage(result)) +
          (state != nullptr ? std::string(" (SQLSTATE ") + state + ")" : std::string()));
    }
    PQclear(result);
  }
  if (failed) return *failed;
  return out;
}

Status PgConnection::Execute(const std::string& sql) {
  return Query(sql).status();
}

std::string PgConnection::Describe() const {
  return ServerOf(conn_);
}

int PgConnection::server_version() const {
  return PQserverVersion(conn_);
}

PgCanceller::PgCanceller(const PgConnection& connection) : cancel_(PQgetCancel(connection.raw())) {}

PgCanceller::~PgCanceller() {
  if (cancel_ != nullptr) PQfreeCancel(cancel_);
}

void PgCanceller::Cancel() const {
  if (cancel_ == nullptr) return;
  char reason[256];
  (void)PQcancel(cancel_, reason, sizeof reason);
}

std::string LibpqMessage(const char* message) {
  std::string s = message != nullptr ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string QuoteLiteral(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace cdclake::sources::postgres
