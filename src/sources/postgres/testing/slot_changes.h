// Test helpers over a real server: run a script statement by statement, and read what a
// pgoutput slot holds through pg_logical_slot_peek_binary_changes (no replication connection).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/bytes.h"
#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_connection.h"

namespace cdclake::sources::postgres::testing {

/// Runs each statement of `script` (ended by ";" at a line end) on its own, as psql would: a
/// replication slot cannot be created in a transaction that has written.
inline ::testing::AssertionResult ExecuteEach(PgConnection& db, const std::string& script) {
  size_t from = 0;
  while (from < script.size()) {
    size_t end = script.find(";\n", from);
    if (end == std::string::npos) end = script.size();
    std::string statement = script.substr(from, end - from);
    from = end + 2;
    if (statement.find_first_not_of(" \n") == std::string::npos) continue;
    Status s = db.Execute(statement);
    if (!s.ok()) return ::testing::AssertionFailure() << statement << ": " << s.ToString();
  }
  return ::testing::AssertionSuccess();
}

/// One message a slot holds: its LSN and bytes.
struct SlotChange {
  Lsn lsn = 0;
  std::string bytes;
};

/// Every message `slot` holds, without consuming them; `options` are the plugin's
/// ("'proto_version', '1', 'publication_names', 'p'"). Only flushed WAL is decoded: a last
/// statement that commits flushes what came before it (an abort record is not flushed at once).
inline std::vector<SlotChange> PeekChanges(PgConnection& db, const std::string& slot,
                                           const std::string& options) {
  auto rows = db.Query("SELECT lsn, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes(" +
                       QuoteLiteral(slot) + ", NULL, NULL, " + options + ")");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<SlotChange> out;
  if (!rows.ok()) return out;
  for (const auto& row : rows->rows) {
    SlotChange change;
    auto lsn = ParseLsn(*row[0]);
    EXPECT_TRUE(lsn.ok());
    change.lsn = lsn.ok() ? *lsn : 0;
    std::optional<std::string> bytes = HexDecode(*row[1]);
    EXPECT_TRUE(bytes.has_value());
    change.bytes = bytes.value_or("");
    out.push_back(std::move(change));
  }
  return out;
}

}  // namespace cdclake::sources::postgres::testing
