// PgOutputDecoder against the bytes a real PostgreSQL sends: changes made on a temporary
// server, read back through a pgoutput slot with pg_logical_slot_peek_binary_changes.
#include "sources/postgres/pgoutput_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sources/postgres/pg_connection.h"
#include "sources/postgres/testing/postgres_server.h"
#include "sources/postgres/testing/slot_changes.h"

namespace cdclake::sources::postgres {
namespace {

using testing::ExecuteEach;

// Every message `slot` holds, as bytes.
std::vector<std::string> Peek(PgConnection& db, const std::string& slot,
                              const std::string& options) {
  std::vector<std::string> out;
  for (auto& change : testing::PeekChanges(db, slot, options))
    out.push_back(std::move(change.bytes));
  return out;
}

std::vector<PgOutputMessage> DecodeAll(const std::vector<std::string>& bytes) {
  PgOutputDecoder decoder;
  std::vector<PgOutputMessage> out;
  for (const std::string& b : bytes) {
    auto m = decoder.Decode(b);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (m.ok()) out.push_back(*m);
  }
  return out;
}

template <typename T>
std::vector<const T*> All(const std::vector<PgOutputMessage>& messages) {
  std::vector<const T*> out;
  for (const auto& m : messages) {
    if (const T* t = std::get_if<T>(&m)) out.push_back(t);
  }
  return out;
}

std::string Text(const TupleCell& cell) {
  if (cell.kind == TupleCell::Kind::kNull) return "<null>";
  if (cell.kind == TupleCell::Kind::kUnchanged) return "<unchanged>";
  return std::string(cell.bytes);
}

std::vector<std::string> Texts(const Tuple& tuple) {
  std::vector<std::string> out;
  for (const TupleCell& c : tuple) out.push_back(Text(c));
  return out;
}

TEST(PgOutputDecoder, ChangesOfARealServer) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(ExecuteEach(*db, R"(
    CREATE TABLE items(id int PRIMARY KEY, name text, note text, price numeric(10,2));
    ALTER TABLE items ALTER COLUMN note SET STORAGE EXTERNAL;
    CREATE PUBLICATION p_items FOR TABLE items;
    SELECT pg_create_logical_replication_slot('s_items', 'pgoutput');
    INSERT INTO items VALUES (1, 'one', repeat('x', 3000), 1.50);
    UPDATE items SET name = 'uno' WHERE id = 1;
    UPDATE items SET id = 2 WHERE id = 1;
    DELETE FROM items WHERE id = 2;
    BEGIN;
    INSERT INTO items VALUES (3, 'three', NULL, NULL);
    SAVEPOINT a;
    INSERT INTO items VALUES (4, 'four', NULL, NULL);
    ROLLBACK TO a;
    COMMIT;
    SELECT pg_logical_emit_message(true, 'cdclake', 'hello');
    TRUNCATE items;
    ALTER TABLE items REPLICA IDENTITY FULL;
    INSERT INTO items VALUES (5, 'five', 'n', 5.00);
    UPDATE items SET price = 5.5 WHERE id = 5;
  )"));
  auto oid = db->Query("SELECT 'items'::regclass::oid");
  ASSERT_TRUE(oid.ok());
  const uint32_t items = static_cast<uint32_t>(std::stoul(*oid->rows[0][0]));

  // The messages view these bytes.
  const std::vector<std::string> bytes = Peek(
      *db, "s_items", "'proto_version', '1', 'publication_names', 'p_items', 'messages', 'true'");
  std::vector<PgOutputMessage> m = DecodeAll(bytes);

  // Every transaction is B ... C with the same commit LSN; end LSNs grow.
  auto begins = All<Begin>(m);
  auto commits = All<Commit>(m);
  ASSERT_EQ(begins.size(), commits.size());
  // Four changes, the savepoint transaction, the message, the truncate, an insert and an update;
  // the ALTER TABLE changes no row, and PostgreSQL 15 sends no empty transaction.
  ASSERT_EQ(begins.size(), 9u);
  for (size_t i = 0; i < begins.size(); ++i) {
    EXPECT_EQ(begins[i]->final_lsn, commits[i]->commit_lsn) << i;
    EXPECT_GT(commits[i]->end_lsn, commits[i]->commit_lsn) << i;
    if (i > 0) {
      EXPECT_GT(commits[i]->end_lsn, commits[i - 1]->end_lsn) << i;
    }
    EXPECT_GT(begins[i]->commit_time_us, 0);
  }

  // The relation, first with the default identity (the key flagged), then FULL (all flagged).
  auto relations = All<Relation>(m);
  ASSERT_GE(relations.size(), 2u);
  const Relation& r = *relations.front();
  EXPECT_EQ(r.oid, items);
  EXPECT_EQ(r.schema, "public");
  EXPECT_EQ(r.name, "items");
  EXPECT_EQ(r.replica_identity, 'd');
  ASSERT_EQ(r.columns.size(), 4u);
  EXPECT_EQ(r.columns[0].name, "id");
  EXPECT_TRUE(r.columns[0].key);
  EXPECT_FALSE(r.columns[1].key);
  EXPECT_EQ(r.columns[0].type_oid, 23u);    // int4
  EXPECT_EQ(r.columns[2].type_oid, 25u);    // text
  EXPECT_EQ(r.columns[3].type_oid, 1700u);  // numeric
  EXPECT_EQ(r.columns[3].type_modifier, ((10 << 16) | 2) + 4);
  EXPECT_EQ(r.columns[1].type_modifier, -1);
  const Relation& full = *relations.back();
  EXPECT_EQ(full.replica_identity, 'f');
  for (const RelationColumn& c : full.columns) {
    EXPECT_TRUE(c.key) << c.name;
  }

  auto inserts = All<Insert>(m);
  ASSERT_EQ(inserts.size(), 3u);  // 1, 3 (4 was rolled back to its savepoint), 5
  EXPECT_EQ(Texts(inserts[0]->new_tuple),
            (std::vector<std::string>{"1", "one", std::string(3000, 'x'), "1.50"}));
  EXPECT_EQ(inserts[0]->relation, items);
  EXPECT_FALSE(inserts[0]->xid.has_value());
  EXPECT_EQ(Texts(inserts[1]->new_tuple),
            (std::vector<std::string>{"3", "three", "<null>", "<null>"}));

  auto updates = All<Update>(m);
  ASSERT_EQ(updates.size(), 3u);
  // The TOASTed note the update left alone comes as unchanged, not as a value.
  EXPECT_EQ(updates[0]->old_kind, 0);
  EXPECT_EQ(Texts(updates[0]->new_tuple),
            (std::vector<std::string>{"1", "uno", "<unchanged>", "1.50"}));
  // A key change sends the old key; the other old columns are not part of the identity.
  EXPECT_EQ(updates[1]->old_kind, 'K');
  EXPECT_EQ(Texts(updates[1]->old_tuple),
            (std::vector<std::string>{"1", "<null>", "<null>", "<null>"}));
  EXPECT_EQ(Text(updates[1]->new_tuple[0]), "2");
  // REPLICA IDENTITY FULL sends the whole old row.
  EXPECT_EQ(updates[2]->old_kind, 'O');
  EXPECT_EQ(Texts(updates[2]->old_tuple), (std::vector<std::string>{"5", "five", "n", "5.00"}));
  EXPECT_EQ(Text(updates[2]->new_tuple[3]), "5.50");

  auto deletes = All<Delete>(m);
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0]->old_kind, 'K');
  EXPECT_EQ(Text(deletes[0]->old_tuple[0]), "2");

  auto truncates = All<Truncate>(m);
  ASSERT_EQ(truncates.size(), 1u);
  EXPECT_EQ(truncates[0]->relations, std::vector<uint32_t>{items});
  EXPECT_EQ(truncates[0]->options, 0);

  auto messages = All<LogicalMessage>(m);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_TRUE(messages[0]->transactional);
  EXPECT_EQ(messages[0]->prefix, "cdclake");
  EXPECT_EQ(messages[0]->content, "hello");
  EXPECT_GT(messages[0]->lsn, 0u);
}

TEST(PgOutputDecoder, StreamedAndAbortedTransactions) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  // logical_decoding_work_mem is 64kB on the test server: 5,000 rows are streamed in blocks.
  // An abort record is not flushed at once, and the SQL functions decode only flushed WAL: the
  // last statement commits, which flushes it.
  ASSERT_TRUE(ExecuteEach(*db, R"(
    CREATE TABLE big(id int PRIMARY KEY, pad text);
    CREATE PUBLICATION p_big FOR TABLE big;
    SELECT pg_create_logical_replication_slot('s_big', 'pgoutput');
    INSERT INTO big SELECT g, repeat('p', 20) FROM generate_series(1, 5000) g;
    BEGIN;
    INSERT INTO big SELECT g, 'gone' FROM generate_series(5001, 10000) g;
    ROLLBACK;
    CREATE TABLE flushed(x int);
  )"));
  const std::vector<std::string> bytes =
      Peek(*db, "s_big", "'proto_version', '2', 'publication_names', 'p_big', 'streaming', 'on'");
  std::vector<PgOutputMessage> m = DecodeAll(bytes);

  auto starts = All<StreamStart>(m);
  auto stops = All<StreamStop>(m);
  ASSERT_GE(starts.size(), 2u);  // both transactions exceed 64kB
  EXPECT_EQ(starts.size(), stops.size());
  EXPECT_TRUE(starts[0]->first_segment);
  auto commits = All<StreamCommit>(m);
  ASSERT_EQ(commits.size(), 1u);
  auto aborts = All<StreamAbort>(m);
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0]->xid, aborts[0]->subxid);  // the whole transaction, not a subtransaction
  EXPECT_NE(aborts[0]->xid, commits[0]->xid);
  EXPECT_GT(commits[0]->end_lsn, commits[0]->commit_lsn);
  EXPECT_TRUE(All<Begin>(m).empty());  // a streamed transaction has no B/C

  // Inside stream blocks every change carries its transaction's id.
  size_t committed = 0, aborted = 0;
  for (const Insert* insert : All<Insert>(m)) {
    ASSERT_TRUE(insert->xid.has_value());
    if (*insert->xid == commits[0]->xid) ++committed;
    if (*insert->xid == aborts[0]->xid) ++aborted;
  }
  EXPECT_EQ(committed, 5000u);
  EXPECT_GT(aborted, 0u);  // the part streamed before the rollback
  for (const Relation* r : All<Relation>(m)) {
    EXPECT_TRUE(r->xid.has_value());
  }
}

TEST(PgOutputDecoder, CutAndDamagedMessagesAreErrorsNamingTheKind) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(ExecuteEach(*db, R"(
    CREATE TABLE cut(id bigint PRIMARY KEY, v text);
    CREATE PUBLICATION p_cut FOR TABLE cut;
    SELECT pg_create_logical_replication_slot('s_cut', 'pgoutput');
    INSERT INTO cut VALUES (1, 'a');
    UPDATE cut SET id = 2;
    DELETE FROM cut;
    TRUNCATE cut;
  )"));
  std::vector<std::string> bytes =
      Peek(*db, "s_cut", "'proto_version', '1', 'publication_names', 'p_cut', 'messages', 'true'");
  ASSERT_GE(bytes.size(), 10u);
  size_t checked = 0;
  for (const std::string& whole : bytes) {
    PgOutputDecoder decoder;
    ASSERT_TRUE(decoder.Decode(whole).ok());
    // Every shorter prefix is corrupt (none is a whole message of the same kind).
    for (size_t n = 1; n < whole.size(); ++n) {
      auto cut = decoder.Decode(whole.substr(0, n));
      ASSERT_FALSE(cut.ok()) << whole[0] << " cut at " << n;
      EXPECT_EQ(cut.status().code(), StatusCode::kCorrupt);
      EXPECT_NE(cut.status().message().find(std::string("'") + whole[0] + "' message"),
                std::string::npos)
          << cut.status().ToString();
      ++checked;
    }
    auto longer = decoder.Decode(whole + "!");
    ASSERT_FALSE(longer.ok());
    EXPECT_NE(longer.status().message().find("1 bytes after the message"), std::string::npos)
        << longer.status().ToString();
  }
  EXPECT_GT(checked, 100u);

  PgOutputDecoder decoder;
  EXPECT_EQ(decoder.Decode("").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(decoder.Decode("Z").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(decoder.Decode("P").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(decoder.Decode("E").status().code(), StatusCode::kCorrupt);  // no stream open
  // A tuple cell of an unknown kind.
  std::string insert("I\0\0\0\x01N\0\x01x", 9);
  auto bad = decoder.Decode(insert);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tuple cell kind 'x'"), std::string::npos)
      << bad.status().ToString();
}

TEST(PgConnection, ABadConnectionStringNamesTheServerAndTheReason) {
  auto refused = PgConnection::Connect(
      "host=127.0.0.1 port=1 dbname=shop user=ana password=secret connect_timeout=2");
  ASSERT_FALSE(refused.ok());
  const std::string message = refused.status().message();
  EXPECT_NE(message.find("127.0.0.1:1/shop as ana"), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  auto failed = db->Query("SELECT * FROM no_such_table");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("no_such_table"), std::string::npos);
  EXPECT_NE(failed.status().message().find("SQLSTATE 42P01"), std::string::npos);
  // The pinned session settings.
  auto settings = db->Query(
      "SELECT current_setting('TimeZone'), current_setting('DateStyle'), "
      "current_setting('extra_float_digits')");
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(*settings->rows[0][0], "UTC");
  EXPECT_EQ(*settings->rows[0][1], "ISO, MDY");
  EXPECT_EQ(*settings->rows[0][2], "3");
}

}  // namespace
}  // namespace cdclake::sources::postgres
