// TransactionAssembler over what a real PostgreSQL sends: plain and streamed transactions,
// interleaved streams, a subtransaction rolled back inside a streamed transaction, and aborts.
#include "sources/postgres/transaction_assembler.h"

#include <gtest/gtest.h>

#include <set>

#include "io/scratch_dir.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/testing/postgres_server.h"
#include "sources/postgres/testing/slot_changes.h"

namespace cdclake::sources::postgres {
namespace {

using testing::ExecuteEach;

// A committed transaction with its changes in memory, to look at.
struct Txn {
  bool streamed = false;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;
  std::vector<PgChange> changes;
  size_t spilled = 0;  // of them, on disk
};

Txn Look(const PgTransaction& t) {
  auto changes = t.changes.Collect();
  EXPECT_TRUE(changes.ok()) << changes.status().ToString();
  return Txn{t.streamed, t.commit_lsn, t.end_lsn, changes.ok() ? *changes : std::vector<PgChange>{},
             t.changes.spilled()};
}

struct Assembled {
  std::vector<Txn> transactions;
  int subtransaction_aborts = 0;  // Stream Abort messages of a subtransaction
  size_t open_streams = 0;
  size_t held = 0;
};

Assembled Assemble(PgConnection& db, const std::string& slot, const std::string& options,
                   SpillOptions spill = {}) {
  std::vector<testing::SlotChange> changes = testing::PeekChanges(db, slot, options);
  PgOutputDecoder decoder;
  TransactionAssembler assembler(spill);
  Assembled out;
  for (const auto& change : changes) {
    auto message = decoder.Decode(change.bytes);
    EXPECT_TRUE(message.ok()) << message.status().ToString();
    if (!message.ok()) break;
    if (const auto* abort = std::get_if<StreamAbort>(&*message)) {
      out.subtransaction_aborts += abort->subxid != abort->xid;
    }
    auto done = assembler.Add(*message, change.lsn);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    if (!done.ok()) break;
    if (*done) out.transactions.push_back(Look(**done));
  }
  out.open_streams = assembler.open_streams();
  out.held = assembler.held_changes();
  return out;
}

// The first column of every insert of `t`, as integers.
std::vector<int> InsertedIds(const Txn& t) {
  std::vector<int> ids;
  for (const PgChange& c : t.changes) {
    if (c.kind == PgChange::Kind::kInsert) ids.push_back(std::stoi(c.new_tuple.values[0]));
  }
  return ids;
}

std::vector<int> Range(int from, int to) {
  std::vector<int> out;
  for (int i = from; i <= to; ++i) out.push_back(i);
  return out;
}

const char* kStreamed = "'proto_version', '2', 'publication_names', 'p', 'streaming', 'on'";

TEST(TransactionAssembler, StreamedTransactionWithARolledBackSavepoint) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  // 3,000 rows pass the server's 64kB logical_decoding_work_mem, so each part is streamed
  // before the next begins, the rolled-back savepoint's rows included.
  ASSERT_TRUE(ExecuteEach(*db, R"(
    CREATE DATABASE sp;
  )"));
  auto sp = PgConnection::Connect(testing::SharedPostgresServer()->conninfo("sp"));
  ASSERT_TRUE(sp.ok());
  ASSERT_TRUE(ExecuteEach(**sp, R"(
    CREATE TABLE t(id int PRIMARY KEY, pad text);
    CREATE PUBLICATION p FOR TABLE t;
    SELECT pg_create_logical_replication_slot('s_sp', 'pgoutput');
    BEGIN;
    INSERT INTO t SELECT g, 'top' FROM generate_series(1, 3000) g;
    SAVEPOINT a;
    INSERT INTO t SELECT g, 'rolled back' FROM generate_series(3001, 6000) g;
    ROLLBACK TO a;
    SAVEPOINT b;
    INSERT INTO t SELECT g, 'kept' FROM generate_series(6001, 9000) g;
    RELEASE b;
    INSERT INTO t VALUES (9001, 'last');
    COMMIT;
    BEGIN;
    INSERT INTO t SELECT g, 'aborted' FROM generate_series(10001, 14000) g;
    ROLLBACK;
    INSERT INTO t VALUES (20000, 'small');
  )"));
  Assembled a = Assemble(**sp, "s_sp", kStreamed);
  ASSERT_EQ(a.transactions.size(), 2u);
  const Txn& big = a.transactions[0];
  EXPECT_TRUE(big.streamed);
  std::vector<int> expected = Range(1, 3000);
  for (int i : Range(6001, 9001)) expected.push_back(i);
  EXPECT_EQ(InsertedIds(big), expected);
  EXPECT_GT(big.end_lsn, big.commit_lsn);
  // Changes carry their own LSNs, in order.
  for (size_t i = 1; i < big.changes.size(); ++i) {
    ASSERT_GE(big.changes[i].lsn, big.changes[i - 1].lsn) << i;
  }
  EXPECT_FALSE(a.transactions[1].streamed);
  EXPECT_EQ(InsertedIds(a.transactions[1]), std::vector<int>{20000});
  EXPECT_GT(a.transactions[1].end_lsn, big.end_lsn);
  // The rolled-back rows were streamed before their abort arrived, so the cut did the work.
  EXPECT_GE(a.subtransaction_aborts, 1);
  EXPECT_EQ(a.open_streams, 0u);  // the aborted one is gone
  EXPECT_EQ(a.held, 0u);

  // The same stream with 8 kB of changes held in memory: the rolled-back savepoint's first
  // change is on disk when its abort comes, and the aborted transaction's too.
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  Assembled spilled =
      Assemble(**sp, "s_sp", kStreamed, SpillOptions{8192, folder->path(), nullptr});
  ASSERT_EQ(spilled.transactions.size(), 2u);
  EXPECT_EQ(InsertedIds(spilled.transactions[0]), expected);
  // Changes of about 100 bytes: fewer than 100 are in memory at any time, so the cut at the
  // 3,001st change, which comes after 6,000, was made on disk.
  EXPECT_GT(spilled.transactions[0].spilled, spilled.transactions[0].changes.size() - 100);
  ASSERT_EQ(spilled.transactions[0].changes.size(), big.changes.size());
  for (size_t i = 0; i < big.changes.size(); ++i) {
    const PgChange& x = big.changes[i];
    const PgChange& y = spilled.transactions[0].changes[i];
    ASSERT_TRUE(x.lsn == y.lsn && x.kind == y.kind && x.new_tuple.values == y.new_tuple.values &&
                x.new_tuple.kinds == y.new_tuple.kinds && y.shape != nullptr &&
                y.shape->name == "t")
        << i;
  }
  EXPECT_EQ(InsertedIds(spilled.transactions[1]), std::vector<int>{20000});
  EXPECT_EQ(spilled.held, 0u);
}

TEST(TransactionAssembler, InterleavedStreamsComeOutWholeInCommitOrder) {
  auto admin = testing::ConnectToSharedServer();
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->Execute("CREATE DATABASE il").ok());
  auto one = PgConnection::Connect(testing::SharedPostgresServer()->conninfo("il"));
  auto two = PgConnection::Connect(testing::SharedPostgresServer()->conninfo("il"));
  ASSERT_TRUE(one.ok() && two.ok());
  ASSERT_TRUE(ExecuteEach(**one, R"(
    CREATE TABLE t(id int PRIMARY KEY, v text);
    CREATE PUBLICATION p FOR TABLE t;
    SELECT pg_create_logical_replication_slot('s_il', 'pgoutput');
  )"));
  ASSERT_TRUE((*one)->Execute("BEGIN").ok());
  ASSERT_TRUE(
      (*one)->Execute("INSERT INTO t SELECT g, 'one' FROM generate_series(1, 3000) g").ok());
  ASSERT_TRUE((*two)->Execute("BEGIN").ok());
  ASSERT_TRUE(
      (*two)->Execute("INSERT INTO t SELECT g, 'two' FROM generate_series(5001, 8000) g").ok());
  ASSERT_TRUE(
      (*one)->Execute("INSERT INTO t SELECT g, 'one' FROM generate_series(3001, 4000) g").ok());
  ASSERT_TRUE((*two)->Execute("UPDATE t SET v = 'two again' WHERE id <= 5100").ok());
  ASSERT_TRUE((*two)->Execute("COMMIT").ok());
  ASSERT_TRUE((*one)->Execute("DELETE FROM t WHERE id <= 10").ok());
  ASSERT_TRUE((*one)->Execute("COMMIT").ok());

  Assembled a = Assemble(**one, "s_il", kStreamed);
  ASSERT_EQ(a.transactions.size(), 2u);
  // Commit order: the second session committed first.
  EXPECT_EQ(InsertedIds(a.transactions[0]), Range(5001, 8000));
  int updates = 0;
  for (const PgChange& c : a.transactions[0].changes) updates += c.kind == PgChange::Kind::kUpdate;
  EXPECT_EQ(updates, 100);
  EXPECT_EQ(InsertedIds(a.transactions[1]), Range(1, 4000));
  int deletes = 0;
  for (const PgChange& c : a.transactions[1].changes) {
    if (c.kind == PgChange::Kind::kDelete) {
      ++deletes;
      EXPECT_EQ(c.old_kind, 'K');
    }
  }
  EXPECT_EQ(deletes, 10);
  EXPECT_LT(a.transactions[0].end_lsn, a.transactions[1].end_lsn);
  EXPECT_EQ(a.held, 0u);
}

TEST(TransactionAssembler, RelationsTruncatesAndMessagesOutOfPlace) {
  auto admin = testing::ConnectToSharedServer();
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->Execute("CREATE DATABASE tr").ok());
  auto db = PgConnection::Connect(testing::SharedPostgresServer()->conninfo("tr"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(ExecuteEach(**db, R"(
    CREATE TABLE a(id int PRIMARY KEY, v text);
    CREATE TABLE b(id int PRIMARY KEY);
    CREATE PUBLICATION p FOR TABLE a, b;
    SELECT pg_create_logical_replication_slot('s_tr', 'pgoutput');
    INSERT INTO a VALUES (1, 'x');
    INSERT INTO b VALUES (1);
    ALTER TABLE a ADD COLUMN w int;
    INSERT INTO a VALUES (2, 'y', 7);
    TRUNCATE a, b;
  )"));
  std::vector<testing::SlotChange> changes =
      testing::PeekChanges(**db, "s_tr", "'proto_version', '1', 'publication_names', 'p'");
  PgOutputDecoder decoder;
  TransactionAssembler assembler;
  std::vector<Txn> done;
  for (const auto& change : changes) {
    auto message = decoder.Decode(change.bytes);
    ASSERT_TRUE(message.ok());
    auto t = assembler.Add(*message, change.lsn);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    if (*t) done.push_back(Look(**t));
  }
  ASSERT_EQ(done.size(), 4u);
  auto oid_a = (*db)->Query("SELECT 'a'::regclass::oid, 'b'::regclass::oid");
  ASSERT_TRUE(oid_a.ok());
  const uint32_t a = static_cast<uint32_t>(std::stoul(*oid_a->rows[0][0]));
  const uint32_t b = static_cast<uint32_t>(std::stoul(*oid_a->rows[0][1]));
  // The relation as its latest message describes it: the added column is there.
  const RelationInfo* info = assembler.relation(a);
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->columns.size(), 3u);
  EXPECT_EQ(info->columns[2].name, "w");
  EXPECT_EQ(done[2].changes[0].new_tuple.values, (std::vector<std::string>{"2", "y", "7"}));
  // One truncate naming both tables.
  ASSERT_EQ(done[3].changes.size(), 1u);
  EXPECT_EQ(done[3].changes[0].kind, PgChange::Kind::kTruncate);
  EXPECT_EQ(
      std::set<uint32_t>(done[3].changes[0].truncated.begin(), done[3].changes[0].truncated.end()),
      (std::set<uint32_t>{a, b}));

  // Out of place: a change before any transaction, a commit without a begin, a change of a
  // relation never described.
  TransactionAssembler fresh;
  Insert insert;
  insert.relation = a;
  EXPECT_EQ(fresh.Add(Commit{}, 0).status().code(), StatusCode::kCorrupt);
  ASSERT_TRUE(fresh.Add(Begin{1, 0, 9}, 0).ok());
  auto unknown = fresh.Add(insert, 0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("before any Relation message"), std::string::npos);
  EXPECT_EQ(fresh.Add(Begin{2, 0, 10}, 0).status().code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace cdclake::sources::postgres
