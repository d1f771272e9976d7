// PgCatalog: a PostgreSQL table as its catalog describes it — the columns replication sends,
// the key rows are applied by — for reading it (read_postgres) and comparing with it
// (cdclake reconcile).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/transaction_assembler.h"

namespace cdclake::sources::postgres {

struct PgTable {
  /// The columns in order, without dropped and generated ones (which pgoutput does not send),
  /// key flags set from `keys`.
  RelationInfo relation;
  /// The primary key's columns, else the replica identity index's; empty when there is neither.
  std::vector<std::string> keys;
  /// schema.name as a person would type it (quoted only where needed).
  std::string qualified;
};

/// `table` ("schema.name", or "name" in the search path) on the server of `sql`; kNotFound,
/// naming the server, when it is not a table there.
Result<PgTable> DescribePgTable(PgConnection& sql, const std::string& table);

/// `name` as a person would type it in SQL: as is when it can be, else quoted.
std::string ReadableIdentifier(const std::string& name);

/// The first row's cell `column` of an answer; "" for NULL or no row.
std::string FirstCell(const PgRows& rows, size_t column = 0);

}  // namespace cdclake::sources::postgres
