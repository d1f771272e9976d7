// PgChangeRows over what a real PostgreSQL sends: inserts, TOAST left unchanged (DEFAULT and
// FULL identity), a key change, a value the Delta type cannot hold, a delete and a truncate.
#include "sources/postgres/pg_change_rows.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "data/value_format.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/testing/postgres_server.h"
#include "sources/postgres/testing/slot_changes.h"

namespace cdclake::sources::postgres {
namespace {

// Every committed transaction the slot holds, and the relations they touched.
struct Stream {
  std::vector<PgTransaction> transactions;
  std::map<std::string, RelationInfo> relations;  // by name
};

Stream ReadSlot(PgConnection& db, const std::string& slot) {
  Stream out;
  auto changes = testing::PeekChanges(db, slot, "'proto_version', '1', 'publication_names', 'p'");
  PgOutputDecoder decoder;
  TransactionAssembler assembler;
  for (const auto& change : changes) {
    auto message = decoder.Decode(change.bytes);
    EXPECT_TRUE(message.ok()) << message.status().ToString();
    if (!message.ok()) break;
    if (const auto* r = std::get_if<Relation>(&*message)) {
      out.relations[std::string(r->name)];  // filled below, once the assembler owns it
    }
    auto done = assembler.Add(*message, change.lsn);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    if (done.ok() && *done) out.transactions.push_back(std::move(**done));
    if (const auto* r = std::get_if<Relation>(&*message)) {
      out.relations[std::string(r->name)] = *assembler.relation(r->oid);
    }
  }
  return out;
}

change::ChangeBatch RowsOf(const Stream& s, const std::string& table,
                           const std::vector<std::string>& keys = {}) {
  change::ChangeBatch batch;
  for (const PgTransaction& t : s.transactions) {
    Status st = AppendPgChanges(t, s.relations.at(table), keys, "shop", &batch);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return batch;
}

std::string Cell(const change::ChangeBatch& b, const std::string& column, int64_t row) {
  const data::Column& c = b.rows.column(static_cast<size_t>(b.rows.schema().FieldIndex(column)));
  if (c.IsNull(row)) return "NULL";
  if (c.type()->id() == data::TypeId::kString) return std::string(c.StringAt(row));
  return data::FormatValueText(c.GetValue(row), *c.type());
}

TEST(PgChangeRows, ChangesOfARealServerAsDebeziumShapedRows) {
  auto server = testing::PostgresServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto db = PgConnection::Connect((*server)->conninfo());
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(testing::ExecuteEach(**db, R"(
    CREATE TABLE c(id int PRIMARY KEY, name text, note text, price numeric(6,2));
    ALTER TABLE c ALTER COLUMN note SET STORAGE EXTERNAL;
    CREATE TABLE f(id int PRIMARY KEY, name text, note text);
    ALTER TABLE f ALTER COLUMN note SET STORAGE EXTERNAL;
    ALTER TABLE f REPLICA IDENTITY FULL;
    CREATE PUBLICATION p FOR TABLE c, f;
    SELECT pg_create_logical_replication_slot('rows', 'pgoutput');
    INSERT INTO c VALUES (1, 'a', repeat('x', 3000), 1.00);
    UPDATE c SET name = 'b' WHERE id = 1;
    UPDATE c SET id = 2 WHERE id = 1;
    INSERT INTO c VALUES (3, 'bad', NULL, 'NaN');
    DELETE FROM c WHERE id = 2;
    TRUNCATE c;
    INSERT INTO f VALUES (1, 'a', repeat('y', 3000));
    UPDATE f SET name = 'b' WHERE id = 1;
  )"));
  Stream s = ReadSlot(**db, "rows");
  change::ChangeBatch c = RowsOf(s, "c");

  std::vector<std::string> ops, ids;
  for (int64_t r = 0; r < c.rows.num_rows(); ++r) {
    ops.push_back(Cell(c, "_op", r));
    ids.push_back(Cell(c, "id", r));
  }
  // The key change is a delete of the old key and an upsert of the new; the NaN row is rejected.
  EXPECT_EQ(ops, (std::vector<std::string>{"c", "u", "d", "u", "d", "t"}));
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "1", "1", "2", "2", "NULL"}));
  EXPECT_EQ(Cell(c, "note", 0), std::string(3000, 'x'));
  EXPECT_EQ(Cell(c, "price", 0), "1.00");
  EXPECT_EQ(Cell(c, "name", 4), "NULL");  // a delete carries only the key
  EXPECT_EQ(Cell(c, "_source_table", 0), "shop.public.c");

  // The TOASTed note the updates left alone is marked unchanged, never a value.
  const size_t note = static_cast<size_t>(c.rows.schema().FieldIndex("note"));
  ASSERT_EQ(c.unchanged.size(), c.rows.num_columns());
  for (int64_t r = 0; r < c.rows.num_rows(); ++r) {
    const bool update = ops[static_cast<size_t>(r)] == "u";
    EXPECT_EQ(c.unchanged[note][static_cast<size_t>(r)] != 0, update) << r;
    if (update) {
      EXPECT_EQ(Cell(c, "note", r), "NULL") << r;
    }
  }

  // _seq: commit LSN, then change LSN, then the change's place; never decreasing over the rows.
  const data::Column& seq = c.rows.column(static_cast<size_t>(c.rows.schema().FieldIndex("_seq")));
  for (int64_t r = 1; r < c.rows.num_rows(); ++r) {
    auto key = [&](int64_t i) {
      return std::tuple(seq.child(0).IntegerAt(i), seq.child(1).IntegerAt(i),
                        seq.child(2).IntegerAt(i));
    };
    EXPECT_LE(key(r - 1), key(r)) << r;
    EXPECT_GT(seq.child(0).IntegerAt(r), 0);
  }
  EXPECT_LT(seq.child(0).IntegerAt(0), seq.child(0).IntegerAt(1));  // two transactions

  // NaN has no DECIMAL: the row is rejected, naming the table, column, value and LSN.
  ASSERT_EQ(c.rejected.size(), 1u);
  EXPECT_NE(c.rejected[0].reason.find("shop.public.c at LSN "), std::string::npos)
      << c.rejected[0].reason;
  EXPECT_NE(c.rejected[0].reason.find("column price"), std::string::npos) << c.rejected[0].reason;
  EXPECT_NE(c.rejected[0].reason.find("'NaN'"), std::string::npos) << c.rejected[0].reason;
  EXPECT_NE(c.rejected[0].raw.find("id=3"), std::string::npos) << c.rejected[0].raw;

  // Under REPLICA IDENTITY FULL every column is flagged as key, so the keys must be named; the
  // old row fills the unchanged value in.
  change::ChangeBatch unnamed;
  Status refused =
      AppendPgChanges(s.transactions.back(), s.relations.at("f"), {}, "shop", &unnamed);
  EXPECT_NE(refused.message().find("REPLICA IDENTITY FULL"), std::string::npos)
      << refused.ToString();
  change::ChangeBatch f = RowsOf(s, "f", {"id"});
  ASSERT_EQ(f.rows.num_rows(), 2);
  EXPECT_EQ(Cell(f, "_op", 1), "u");
  EXPECT_EQ(Cell(f, "note", 1), std::string(3000, 'y'));
  EXPECT_EQ(Cell(f, "name", 1), "b");
  EXPECT_TRUE(f.unchanged.empty());
}

TEST(PgChangeRows, ATableChangedInsideATransactionKeepsEachRowsOwnShape) {
  auto server = testing::PostgresServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto db = PgConnection::Connect((*server)->conninfo());
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(testing::ExecuteEach(**db, R"(
    CREATE TABLE m(id int PRIMARY KEY, a text, b text);
    CREATE PUBLICATION p FOR TABLE m;
    SELECT pg_create_logical_replication_slot('shape', 'pgoutput');
    BEGIN;
    INSERT INTO m VALUES (1, 'a1', 'b1');
    ALTER TABLE m DROP COLUMN a;
    INSERT INTO m VALUES (2, 'b2');
    ALTER TABLE m ADD COLUMN c int;
    INSERT INTO m VALUES (3, 'b3', 7);
    COMMIT;
  )"));
  Stream s = ReadSlot(**db, "shape");
  ASSERT_EQ(s.transactions.size(), 1u);
  change::ChangeBatch m = RowsOf(s, "m");  // the latest shape: id, b, c
  ASSERT_EQ(m.rows.num_rows(), 3);
  EXPECT_EQ(Cell(m, "b", 0), "b1");  // not a1: the first row's cells follow its own shape
  EXPECT_EQ(Cell(m, "c", 0), "NULL");
  EXPECT_EQ(Cell(m, "b", 1), "b2");
  EXPECT_EQ(Cell(m, "c", 2), "7");
  EXPECT_EQ(m.rows.schema().FieldIndex("a"), -1);
}

TEST(PgChangeRows, AnUnchangedKeyWithoutTheOldKeyIsRejected) {
  RelationInfo t;
  t.oid = 7;
  t.schema = "public";
  t.name = "t";
  t.columns = {{"k", 25, -1, true}, {"v", 25, -1, false}};
  PgTransaction transaction;
  transaction.commit_lsn = 100;
  transaction.end_lsn = 120;
  PgChange update;
  update.kind = PgChange::Kind::kUpdate;
  update.relation = 7;
  update.lsn = 110;
  update.new_tuple = {{TupleCell::Kind::kUnchanged, TupleCell::Kind::kText}, {"", "x"}};
  ASSERT_TRUE(transaction.changes.Add(update).ok());
  change::ChangeBatch batch;
  ASSERT_TRUE(AppendPgChanges(transaction, t, {}, "db", &batch).ok());
  EXPECT_EQ(batch.rows.num_rows(), 0);
  ASSERT_EQ(batch.rejected.size(), 1u);
  EXPECT_NE(batch.rejected[0].reason.find("cannot be identified"), std::string::npos);
  EXPECT_EQ(batch.rejected[0].position.byte_offset, 120);  // the transaction's end
}

}  // namespace
}  // namespace cdclake::sources::postgres
