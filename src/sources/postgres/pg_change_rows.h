// PgChangeRows: a committed PostgreSQL transaction's changes of one table as change rows, with
// the control columns the Debezium reader gives (_op, _seq, _source_ts_ms, _source_table), so
// AUTO CDC flows written for Debezium apply them unchanged.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sources/postgres/transaction_assembler.h"

namespace cdclake::sources::postgres {

/// The rows' columns: the table's (PgColumnTypeOf), then _op STRING, _seq STRUCT(commit_lsn
/// BIGINT, lsn BIGINT, ordinal BIGINT), _source_ts_ms BIGINT, _source_table STRING.
data::Schema PgChangeSchema(const RelationInfo& relation);

/// Appends the changes of `transaction` to `relation` to `batch` (rows of
/// PgChangeSchema(relation); a default-constructed batch is given that schema):
/// - an insert is `c` (`r` in a snapshot's rows); an update `u`, its unchanged TOAST cells marked
/// in
///   ChangeBatch::unchanged (or, under REPLICA IDENTITY FULL, taken from the old row);
/// - an update whose `K` tuple holds another key is a `d` of the old key, then `u` of the new;
/// - a delete is `d` with the key (other columns NULL unless the old row was sent whole);
/// - a TRUNCATE naming the table is one `t` row, every table column NULL.
/// `_seq` orders by commit LSN, then the change's LSN, then its place in the transaction.
/// `_source_table` is `database.schema.table`. A value the column's type cannot hold makes its
/// row a rejected record naming the table, column, value and LSN; the rest of the batch goes on.
/// `keys` names the key columns (the table's primary key); empty, the Relation message's key
/// flags are taken, which REPLICA IDENTITY FULL sets on every column: kInvalidArgument then.
/// `fill`, when given, is handed a copy of each update whose `K` tuple came with unchanged
/// (TOASTed) cells, to fill those in before it is appended. `tick`, when given, is called every
/// 65,536 changes (a long transaction read back from disk keeps the server answered).
using FillUnchanged = std::function<Status(PgChange* change)>;
Status AppendPgChanges(const PgTransaction& transaction, const RelationInfo& relation,
                       const std::vector<std::string>& keys, const std::string& database,
                       change::ChangeBatch* batch, const FillUnchanged& fill = nullptr,
                       const std::function<Status()>& tick = nullptr);

/// The initial copy's rows of `relation`, appended one at a time (no PgChange each): `r` rows
/// at `_seq` (consistent point, 0, ordinal), as AppendPgChanges makes a snapshot's inserts.
class PgSnapshotRows {
 public:
  /// `batch` (rows of PgChangeSchema(relation), given that schema when default-constructed)
  /// must outlive this.
  PgSnapshotRows(const RelationInfo& relation, const std::string& database, Lsn consistent_point,
                 int64_t commit_time_us, change::ChangeBatch* batch);
  ~PgSnapshotRows();
  PgSnapshotRows(const PgSnapshotRows&) = delete;
  PgSnapshotRows& operator=(const PgSnapshotRows&) = delete;

  /// One row: `cells[c]` is column c's text, nullptr for NULL. A value its column cannot hold
  /// makes the row a rejected record, as AppendPgChanges does.
  Status Append(const std::vector<const std::string*>& cells, int64_t ordinal);
  /// Call once the rows are in.
  void Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cdclake::sources::postgres
