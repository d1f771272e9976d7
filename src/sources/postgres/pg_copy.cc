// PgCopyOut: libpq's COPY OUT rows (PQgetCopyData) split into cells.
#include "sources/postgres/pg_copy.h"

#include <libpq-fe.h>

#include "sources/postgres/pg_connection.h"

namespace cdclake::sources::postgres {
namespace {

// The character a backslash escape stands for (COPY's text format: \b \f \n \r \t \v and the
// escaped character itself otherwise; PostgreSQL writes no octal or hex escapes).
char Unescaped(char c) {
  switch (c) {
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    default:
      return c;
  }
}

}  // namespace

void SplitCopyLine(std::string_view line, std::vector<std::string>* cells,
                   std::vector<const std::string*>* row) {
  size_t n = 0;
  size_t start = 0;
  row->clear();
  while (true) {
    size_t end = line.find('\t', start);
    if (end == std::string_view::npos) end = line.size();
    if (cells->size() <= n) cells->emplace_back();
    std::string& cell = (*cells)[n];
    const std::string_view text = line.substr(start, end - start);
    const bool null = text == "\\N";
    if (!null && text.find('\\') == std::string_view::npos) {
      cell.assign(text);
    } else if (!null) {
      cell.clear();
      for (size_t i = 0; i < text.size(); ++i) {
        cell += text[i] == '\\' && i + 1 < text.size() ? Unescaped(text[++i]) : text[i];
      }
    }
    // Marked for now: `cells` may still grow (and move its strings) on this line.
    row->push_back(null ? nullptr : &cell);
    ++n;
    if (end == line.size()) break;
    start = end + 1;
  }
  for (size_t c = 0; c < n; ++c) {
    if ((*row)[c] != nullptr) (*row)[c] = &(*cells)[c];
  }
}

Result<std::unique_ptr<PgCopyOut>> PgCopyOut::Start(PgConnection& connection,
                                                    const std::string& copy) {
  PGconn* conn = connection.raw();
  if (PQsendQuery(conn, copy.c_str()) == 0) {
    return Status::IoError("PostgreSQL " + connection.Describe() + ": " +
                           LibpqMessage(PQerrorMessage(conn)));
  }
  PGresult* result = PQgetResult(conn);
  const ExecStatusType status = result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  std::string message = result != nullptr ? LibpqMessage(PQresultErrorMessage(result)) : "";
  PQclear(result);
  if (status != PGRES_COPY_OUT) {
    while (PGresult* rest = PQgetResult(conn)) PQclear(rest);
    return Status::InvalidArgument("PostgreSQL " + connection.Describe() + ": '" +
                                   copy.substr(0, 80) + "' did not start a COPY: " + message);
  }
  return std::unique_ptr<PgCopyOut>(new PgCopyOut(connection));
}

PgCopyOut::~PgCopyOut() {
  // A COPY abandoned half-way ends with its connection, which its owner closes.
  if (line_ != nullptr) PQfreemem(line_);
}

Status PgCopyOut::Ended() {
  done_ = true;
  PGconn* conn = connection_.raw();
  std::optional<Status> failed;
  while (PGresult* result = PQgetResult(conn)) {
    if (PQresultStatus(result) != PGRES_COMMAND_OK && !failed) {
      failed = Status::IoError("PostgreSQL " + connection_.Describe() +
                               ": the COPY ended with an error after " + std::to_string(rows_) +
                               " rows: " + LibpqMessage(PQresultErrorMessage(result)));
    }
    PQclear(result);
  }
  return failed.value_or(Status::OK());
}

Result<const std::vector<const std::string*>*> PgCopyOut::Next() {
  using Out = const std::vector<const std::string*>*;
  if (line_ != nullptr) {
    PQfreemem(line_);
    line_ = nullptr;
  }
  if (done_) return Out(nullptr);
  const int length = PQgetCopyData(connection_.raw(), &line_, /*async=*/0);
  if (length == -1) {
    CDCLAKE_RETURN_IF_ERROR(Ended());
    return Out(nullptr);
  }
  if (length < 0) {
    return Status::IoError("PostgreSQL " + connection_.Describe() + ": the COPY broke after " +
                           std::to_string(rows_) +
                           " rows: " + LibpqMessage(PQerrorMessage(connection_.raw())));
  }
  std::string_view line(line_, static_cast<size_t>(length));
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  const size_t width = row_.size();
  SplitCopyLine(line, &cells_, &row_);
  if (rows_ > 0 && row_.size() != width) {
    return Status::Corrupt("PostgreSQL " + connection_.Describe() + ": COPY row " +
                           std::to_string(rows_ + 1) + " has " + std::to_string(row_.size()) +
                           " cells, the rows before " + std::to_string(width));
  }
  ++rows_;
  return Out(&row_);
}

}  // namespace cdclake::sources::postgres
