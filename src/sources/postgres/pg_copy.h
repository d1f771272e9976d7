// PgCopyOut: `COPY ... TO STDOUT` in PostgreSQL's text format, read row by row as each row's
// cells, on a connection that runs nothing else until the COPY has ended.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cdclake::sources::postgres {

class PgConnection;

class PgCopyOut {
 public:
  /// Starts `copy` (a `COPY (...) TO STDOUT` statement, text format) on `connection`, which
  /// must outlive the reader.
  static Result<std::unique_ptr<PgCopyOut>> Start(PgConnection& connection,
                                                  const std::string& copy);
  ~PgCopyOut();
  PgCopyOut(const PgCopyOut&) = delete;
  PgCopyOut& operator=(const PgCopyOut&) = delete;

  /// The next row's cells (nullptr: NULL), valid until the next call; nullptr once the COPY has
  /// ended (and the server said it succeeded). A row of another width than the first is
  /// kCorrupt naming the row.
  Result<const std::vector<const std::string*>*> Next();

 private:
  explicit PgCopyOut(PgConnection& connection) : connection_(connection) {}
  Status Ended();

  PgConnection& connection_;
  char* line_ = nullptr;  // libpq's buffer for the last row
  bool done_ = false;
  int64_t rows_ = 0;
  std::vector<std::string> cells_;  // reused: each keeps its capacity
  std::vector<const std::string*> row_;
};

/// One line of COPY's text format (without its newline) into `cells` (resized; each cell
/// unescaped) and `row` (a pointer per cell, nullptr for `\N`). Exposed for tests.
void SplitCopyLine(std::string_view line, std::vector<std::string>* cells,
                   std::vector<const std::string*>* row);

}  // namespace cdclake::sources::postgres
