// PgTableReader against a real PostgreSQL: the snapshot hand-off while another session keeps
// committing (every row exactly once, snapshot or stream), resuming from a recorded position,
// transactions large enough to be streamed in progress (committed and aborted), and the slot
// checks (gone, ahead of the position, in use, another cluster's position).
#include "sources/postgres/pg_table_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "io/scratch_dir.h"
#include "sources/postgres/lsn.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

using testing::ConnectToSharedServer;
using testing::SharedPostgresServer;

// Every id of `batch`'s rows with its operation ("r", "c", "u", "d", "t").
std::vector<std::pair<int64_t, std::string>> IdsAndOps(const PgBatch& batch) {
  std::vector<std::pair<int64_t, std::string>> out;
  const data::RecordBatch& rows = batch.rows.rows;
  const int id = rows.schema().FieldIndex("id");
  const int op = rows.schema().FieldIndex("_op");
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    const data::Column& ids = rows.column(static_cast<size_t>(id));
    out.emplace_back(ids.IsNull(r) ? -1 : ids.GetValue(r).int_value(),
                     std::string(rows.column(static_cast<size_t>(op)).StringAt(r)));
  }
  return out;
}

// Reads `reader` to its end: every batch's ids and ops, and the last position.
struct ReadAll {
  std::vector<std::pair<int64_t, std::string>> rows;
  std::optional<PgPosition> end;
  int batches = 0;
  bool snapshot = false;
};

ReadAll Drain(PgTableReader& reader) {
  ReadAll out;
  for (int i = 0; i < 10000; ++i) {
    auto batch = reader.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    ++out.batches;
    out.snapshot = out.snapshot || (*batch)->snapshot;
    for (auto& row : IdsAndOps(**batch)) out.rows.push_back(row);
    out.end = (*batch)->end;
    reader.Confirm((*batch)->end.lsn);
  }
  return out;
}

// Table `table` published as pub_<its last word> (reader_big: pub_big), read through `slot` on
// `server` (the shared one by default).
PgTableSpec Spec(const std::string& table, const std::string& slot,
                 const testing::PostgresServer* server = nullptr) {
  PgTableSpec spec;
  spec.connection = (server != nullptr ? server : SharedPostgresServer())->conninfo();
  spec.publication = "pub_" + table.substr(table.rfind('_') + 1);
  spec.slot = slot;
  spec.table = table;
  spec.batch_rows = 500;
  return spec;
}

TEST(PgTableReader, SnapshotAndStreamMeetWhileAnotherSessionCommits) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(
      db->Execute("CREATE TABLE reader_handoff(id bigint PRIMARY KEY, v text);"
                  "CREATE PUBLICATION pub_handoff FOR TABLE reader_handoff;"
                  "INSERT INTO reader_handoff SELECT g, 'seed' FROM generate_series(1, 2000) g")
          .ok());
  // A writer commits one row per transaction all through the snapshot and the stream.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> written{2000};
  std::thread writer([&] {
    auto w = ConnectToSharedServer();
    if (w == nullptr) return;
    while (!stop.load()) {
      const int64_t id = written.load() + 1;
      if (!w->Execute("INSERT INTO reader_handoff VALUES (" + std::to_string(id) + ", 'live')")
               .ok()) {
        break;
      }
      written.store(id);
    }
  });
  auto reader = PgTableReader::Open(Spec("reader_handoff", "slot_handoff"), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->keys(), std::vector<std::string>{"id"});
  ReadAll first = Drain(**reader);
  EXPECT_TRUE(first.snapshot);
  ASSERT_TRUE(first.end.has_value());
  reader->reset();
  stop.store(true);
  writer.join();
  // The rest, from the position the first reader ended at, as a later run would.
  auto again = PgTableReader::Open(Spec("reader_handoff", "slot_handoff"), first.end);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ReadAll second = Drain(**again);
  EXPECT_FALSE(second.snapshot);
  // What the run summary says of the slot once reading ended.
  auto lag = (*again)->Lag();
  ASSERT_TRUE(lag.ok()) << lag.status().ToString();
  EXPECT_EQ(lag->rfind("slot slot_handoff: ", 0), 0u) << *lag;
  EXPECT_NE(lag->find(" of WAL after its confirmed position "), std::string::npos) << *lag;
  EXPECT_NE(lag->find(" retained"), std::string::npos) << *lag;

  std::map<int64_t, int> seen;
  int snapshot_rows = 0;
  for (const auto* part : {&first, &second}) {
    for (const auto& [id, op] : part->rows) {
      ++seen[id];
      snapshot_rows += op == "r";
      EXPECT_TRUE(op == "r" || op == "c") << "id " << id << " came as " << op;
    }
  }
  const int64_t total = written.load();
  EXPECT_EQ(static_cast<int64_t>(seen.size()), total) << "every row committed is read";
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << "id " << id << " read twice";
  EXPECT_GE(snapshot_rows, 2000);
  EXPECT_GT(total, snapshot_rows) << "the writer committed nothing during the stream";
}

TEST(PgTableReader, TheCopyComesInBatchesAndAStoppedCopyStartsAgainAfterATruncate) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_copy(id int PRIMARY KEY, v text);"
                          "CREATE PUBLICATION pub_copy FOR TABLE reader_copy;"
                          "INSERT INTO reader_copy SELECT g, 'v' FROM generate_series(1, 1800) g")
                  .ok());
  auto reader = PgTableReader::Open(Spec("reader_copy", "slot_copy"), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // batch_rows is 500: four batches of the copy, all but the last saying how far it got.
  std::vector<PgBatch> copy;
  for (int i = 0; i < 4; ++i) {
    auto batch = (*reader)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_TRUE(batch->has_value());
    EXPECT_TRUE((*batch)->snapshot);
    copy.push_back(std::move(**batch));
  }
  EXPECT_EQ(copy[0].end.snapshot_rows, 500);
  EXPECT_EQ(copy[2].end.snapshot_rows, 1500);
  EXPECT_EQ(copy[3].end.snapshot_rows, -1) << "the last batch ends the copy";
  EXPECT_EQ(copy[3].rows.rows.num_rows(), 300);
  auto json = PgPosition::FromJson(copy[0].end.ToJson());
  ASSERT_TRUE(json.ok() && json->has_value());
  EXPECT_EQ((*json)->snapshot_rows, 500);
  reader->reset();

  // A run that committed only the first batch of its copy, then stopped: the next copies the
  // table again, a `t` row first, every row once after it.
  ASSERT_TRUE(db->Execute("DELETE FROM reader_copy WHERE id <= 100").ok());
  auto again = PgTableReader::Open(Spec("reader_copy", "slot_copy"), copy[0].end);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ((*again)->notices().size(), 1u);
  EXPECT_NE((*again)->notices()[0].find("stopped after 500 rows"), std::string::npos);
  ReadAll read = Drain(**again);
  ASSERT_FALSE(read.rows.empty());
  EXPECT_EQ(read.rows[0].second, "t");
  std::map<int64_t, int> seen;
  for (size_t i = 1; i < read.rows.size(); ++i) {
    EXPECT_EQ(read.rows[i].second, "r");
    ++seen[read.rows[i].first];
  }
  EXPECT_EQ(seen.size(), 1700u);
  EXPECT_EQ(seen.count(50), 0u) << "a row deleted before the copy started again";
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
  ASSERT_TRUE(read.end.has_value());
  EXPECT_EQ(read.end->snapshot_rows, -1);
}

TEST(PgTableReader, ACopyOverTwoConnectionsMeetsTheStreamWhileAnotherSessionCommits) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  // Five rows a block: 2,400 blocks, two ranges of at least 1,024.
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_ranges(id bigint PRIMARY KEY, v text, pad text);"
                          "CREATE PUBLICATION pub_ranges FOR TABLE reader_ranges;"
                          "INSERT INTO reader_ranges SELECT g, 'seed', repeat('p', 1500) "
                          "FROM generate_series(1, 12000) g")
                  .ok());
  // A writer updates seed rows (moving them to the table's end) and inserts new ones all
  // through the copy and the stream.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> written{12000};
  std::thread writer([&] {
    auto w = ConnectToSharedServer();
    if (w == nullptr) return;
    while (!stop.load()) {
      const int64_t id = written.load() + 1;
      if (!w->Execute("BEGIN; UPDATE reader_ranges SET v = 'live' WHERE id = " +
                      std::to_string(id % 12000 + 1) + "; INSERT INTO reader_ranges VALUES (" +
                      std::to_string(id) + ", 'live', ''); COMMIT")
               .ok()) {
        break;
      }
      written.store(id);
    }
  });
  PgTableSpec spec = Spec("reader_ranges", "slot_ranges");
  spec.copy_connections = 2;
  auto reader = PgTableReader::Open(spec, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->StartText(), "snapshot of public.reader_ranges over 2 connections");
  ReadAll read = Drain(**reader);
  reader->reset();
  stop.store(true);
  writer.join();
  auto rest = PgTableReader::Open(spec, read.end);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  ReadAll after = Drain(**rest);
  std::map<int64_t, int> copied;
  std::map<int64_t, int> inserted;
  for (const auto* part : {&read, &after}) {
    for (const auto& [id, op] : part->rows) {
      if (op == "r") ++copied[id];
      if (op == "c") ++inserted[id];
      EXPECT_TRUE(op == "r" || op == "c" || op == "u") << "id " << id << " came as " << op;
    }
  }
  // Every seed row once in the copy; every row inserted after it once in the stream.
  ASSERT_GE(copied.size(), 12000u);
  for (int64_t id = 1; id <= 12000; ++id) EXPECT_EQ(copied.count(id), 1u) << "seed id " << id;
  for (const auto& [id, count] : copied) EXPECT_EQ(count, 1) << "id " << id << " copied twice";
  for (const auto& [id, count] : inserted) {
    EXPECT_EQ(count, 1) << "id " << id << " streamed twice";
    EXPECT_EQ(copied.count(id), 0u) << "id " << id << " copied and streamed";
  }
  EXPECT_EQ(static_cast<int64_t>(copied.size() + inserted.size()), written.load())
      << "every row committed is read once";
  EXPECT_GT(inserted.size(), 0u) << "the writer committed nothing during the stream";
}

TEST(PgTableReader, LargeTransactionsStreamedInProgressCommitWholeOrNotAtAll) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_big(id int PRIMARY KEY, v text);"
                          "CREATE PUBLICATION pub_big FOR TABLE reader_big;")
                  .ok());
  auto reader = PgTableReader::Open(Spec("reader_big", "slot_big"), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ReadAll snapshot = Drain(**reader);
  EXPECT_TRUE(snapshot.rows.empty());
  reader->reset();
  // Far more than logical_decoding_work_mem (64kB): sent in blocks before the commit.
  ASSERT_TRUE(db->Execute("BEGIN; INSERT INTO reader_big SELECT g, repeat('x', 50) FROM "
                          "generate_series(1, 20000) g; ROLLBACK")
                  .ok());
  // The acceptance's 200,000 rows in one transaction (CDCLAKE_PG_BIG_TXN_ROWS sets another).
  const char* env = std::getenv("CDCLAKE_PG_BIG_TXN_ROWS");
  const int64_t rows = env != nullptr ? std::atoll(env) : 200000;
  ASSERT_TRUE(db->Execute("INSERT INTO reader_big SELECT g, repeat('y', 50) FROM "
                          "generate_series(1, " +
                          std::to_string(rows) + ") g")
                  .ok());
  // Read first with 1 MB of changes held in memory (the rest waits on disk for the commit),
  // only looking (the slot stays); then as usual, all in memory.
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  PgTableSpec spilling = Spec("reader_big", "slot_big");
  spilling.read_only = true;
  spilling.spill = SpillOptions{int64_t{1} << 20, folder->path() + "/spill", nullptr};
  auto looked = PgTableReader::Open(spilling, snapshot.end);
  ASSERT_TRUE(looked.ok()) << looked.status().ToString();
  ReadAll spilled = Drain(**looked);
  looked->reset();
  // The folder is made by the first spill; its files have no names (or lose them at once).
  ASSERT_TRUE(std::filesystem::is_directory(folder->path() + "/spill")) << "nothing spilled";
  EXPECT_TRUE(std::filesystem::is_empty(folder->path() + "/spill")) << "a file left behind";
  auto streamed = PgTableReader::Open(Spec("reader_big", "slot_big"), snapshot.end);
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  ReadAll read = Drain(**streamed);
  EXPECT_EQ(static_cast<int64_t>(read.rows.size()), rows) << "the aborted transaction left nothing";
  // batch_rows is 500, but a transaction is never split.
  EXPECT_EQ(read.batches, 1);
  EXPECT_EQ(spilled.batches, 1);
  EXPECT_TRUE(spilled.rows == read.rows) << "spilled: " << spilled.rows.size() << " rows";
}

TEST(PgTableReader, TheSlotHearsFromTheReaderWhileTheFlowCommits) {
  // A server that ends a replication stream silent for 2 s; the flow "commits" for 5 s between
  // two batches, while nothing reads the stream.
  auto server = testing::PostgresServer::Start({"wal_sender_timeout=2s"});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto db = PgConnection::Connect((*server)->conninfo());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)
                  ->Execute("CREATE TABLE slow(id int PRIMARY KEY);"
                            "CREATE PUBLICATION pub_slow FOR TABLE slow;")
                  .ok());
  PgTableSpec spec = Spec("slow", "slot_slow", server->get());
  spec.batch_rows = 1;
  spec.status_interval_ms = 500;
  auto snapshot = PgTableReader::Open(spec, std::nullopt);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  ReadAll copied = Drain(**snapshot);
  ASSERT_TRUE(copied.end.has_value());
  snapshot->reset();
  ASSERT_TRUE((*db)->Execute("INSERT INTO slow VALUES (1)").ok());
  ASSERT_TRUE((*db)->Execute("INSERT INTO slow VALUES (2)").ok());
  auto reader = PgTableReader::Open(spec, copied.end);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto first = (*reader)->Next();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->rows.rows.num_rows(), 1);
  std::this_thread::sleep_for(std::chrono::seconds(5));
  auto active =
      (*db)->Query("SELECT active FROM pg_replication_slots WHERE slot_name = 'slot_slow'");
  ASSERT_TRUE(active.ok()) << active.status().ToString();
  ASSERT_EQ(active->rows.size(), 1u);
  EXPECT_EQ(active->rows[0][0].value_or(""), "t")
      << "the server ended the stream while the flow committed (wal_sender_timeout)";
  (*reader)->Confirm((*first)->end.lsn);
  auto second = (*reader)->Next();
  ASSERT_TRUE(second.ok()) << "the stream did not survive a 5 s commit: "
                           << second.status().ToString();
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->rows.rows.num_rows(), 1);
}

TEST(PgTableReader, SlotGoneOrAheadOfThePositionIsAnErrorNotASilentGap) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_guarded(id int PRIMARY KEY);"
                          "CREATE PUBLICATION pub_guarded FOR TABLE reader_guarded;"
                          "INSERT INTO reader_guarded VALUES (1)")
                  .ok());
  auto reader = PgTableReader::Open(Spec("reader_guarded", "slot_guarded"), std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ReadAll first = Drain(**reader);
  ASSERT_TRUE(first.end.has_value());
  reader->reset();

  // Another cluster's (or database's) position.
  PgPosition foreign = *first.end;
  foreign.system_id = "1234";
  auto wrong = PgTableReader::Open(Spec("reader_guarded", "slot_guarded"), foreign);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("--full-refresh"), std::string::npos)
      << wrong.status().ToString();

  // Someone advanced the slot past what the table holds.
  ASSERT_TRUE(db->Execute("INSERT INTO reader_guarded VALUES (2)").ok());
  ASSERT_TRUE(
      db->Execute("SELECT pg_replication_slot_advance('slot_guarded', pg_current_wal_lsn())").ok());
  auto ahead = PgTableReader::Open(Spec("reader_guarded", "slot_guarded"), first.end);
  ASSERT_FALSE(ahead.ok());
  EXPECT_EQ(ahead.status().code(), StatusCode::kConflict);
  EXPECT_NE(ahead.status().message().find("beyond the " + FormatLsn(first.end->lsn)),
            std::string::npos)
      << ahead.status().ToString();

  // The slot is gone.
  ASSERT_TRUE(db->Execute("SELECT pg_drop_replication_slot('slot_guarded')").ok());
  auto gone = PgTableReader::Open(Spec("reader_guarded", "slot_guarded"), first.end);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
  EXPECT_NE(gone.status().message().find("no longer exists"), std::string::npos);
}

TEST(PgTableReader, ASlotTheServerInvalidatedIsAnErrorThatSaysTheChangesAreGone) {
  // A server that keeps at most 1 MB of WAL for a slot: a stopped reader's slot is lost.
  auto server = testing::PostgresServer::Start({"max_slot_wal_keep_size=1MB"});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto db = PgConnection::Connect((*server)->conninfo());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)
                  ->Execute("CREATE TABLE kept(id int PRIMARY KEY);"
                            "CREATE PUBLICATION pub_kept FOR TABLE kept;")
                  .ok());
  const PgTableSpec spec = Spec("kept", "slot_kept", server->get());
  auto reader = PgTableReader::Open(spec, std::nullopt);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ReadAll first = Drain(**reader);
  ASSERT_TRUE(first.end.has_value());
  reader->reset();
  // Far more WAL than the slot may keep, and checkpoints that remove it.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*db)
                    ->Execute("INSERT INTO kept SELECT g FROM generate_series(" +
                              std::to_string(i * 200000 + 1) + ", " +
                              std::to_string((i + 1) * 200000) + ") g")
                    .ok());
    ASSERT_TRUE((*db)->Execute("SELECT pg_switch_wal()").ok());
    ASSERT_TRUE((*db)->Execute("CHECKPOINT").ok());
  }
  auto status =
      (*db)->Query("SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'slot_kept'");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->rows.size(), 1u);
  ASSERT_EQ(status->rows[0][0].value_or(""), "lost") << "the server did not invalidate the slot";
  auto lost = PgTableReader::Open(spec, first.end);
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.status().message().find("was invalidated"), std::string::npos)
      << lost.status().ToString();
  EXPECT_NE(lost.status().message().find("--full-refresh"), std::string::npos);
}

TEST(PgTableReader, TableWithoutKeyOrPublicationIsRefusedWithWhatToDo) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(
      db->Execute("CREATE TABLE reader_keyless(v int); CREATE PUBLICATION pub_keyless FOR "
                  "TABLE reader_keyless; CREATE TABLE reader_unpublished(id int PRIMARY KEY);"
                  "CREATE PUBLICATION pub_unpublished FOR TABLE reader_keyless")
          .ok());
  auto reader_keyless = PgTableReader::Open(Spec("reader_keyless", "slot_keyless"), std::nullopt);
  ASSERT_FALSE(reader_keyless.ok());
  EXPECT_NE(reader_keyless.status().message().find("add a primary key"), std::string::npos);
  auto reader_unpublished =
      PgTableReader::Open(Spec("reader_unpublished", "slot_unpublished"), std::nullopt);
  ASSERT_FALSE(reader_unpublished.ok());
  EXPECT_NE(reader_unpublished.status().message().find(
                "ALTER PUBLICATION pub_unpublished ADD TABLE public.reader_unpublished"),
            std::string::npos)
      << reader_unpublished.status().ToString();
  auto missing = PgTableReader::Open(Spec("reader_nosuch", "slot_nosuch"), std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'reader_nosuch' is not a table"), std::string::npos);
}

TEST(PgTableReader, OneTruncateOfSeveralTablesReachesEachTablesReaderOnce) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_tra(id int PRIMARY KEY);"
                          "CREATE TABLE reader_trb(id int PRIMARY KEY);"
                          "CREATE TABLE reader_trc(id int PRIMARY KEY);"
                          "CREATE PUBLICATION pub_tr FOR TABLE reader_tra, reader_trb;"
                          "INSERT INTO reader_tra VALUES (1); INSERT INTO reader_trb VALUES (2)")
                  .ok());
  auto spec = [](const std::string& table, const std::string& slot) {
    PgTableSpec s = Spec(table, slot);
    s.publication = "pub_tr";
    return s;
  };
  // The first runs copy each table; then one statement truncates both (and a table outside the
  // publication), and each table gets a row after it.
  std::map<std::string, std::optional<PgPosition>> at;
  for (const std::string& t : {std::string("reader_tra"), std::string("reader_trb")}) {
    auto reader = PgTableReader::Open(spec(t, "slot_" + t), std::nullopt);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    at[t] = Drain(**reader).end;
  }
  ASSERT_TRUE(db->Execute("TRUNCATE reader_tra, reader_trb, reader_trc;"
                          "INSERT INTO reader_tra VALUES (3); INSERT INTO reader_trb VALUES (4)")
                  .ok());
  for (const auto& [t, id] : {std::pair{"reader_tra", 3}, {"reader_trb", 4}}) {
    auto reader = PgTableReader::Open(spec(t, std::string("slot_") + t), at[t]);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ReadAll read = Drain(**reader);
    EXPECT_EQ(read.rows, (std::vector<std::pair<int64_t, std::string>>{{-1, "t"}, {id, "c"}})) << t;
  }
}

TEST(PgTableReader, ReplicaIdentityFullGivesTheSameChangesAsTheKey) {
  // With REPLICA IDENTITY FULL, updates and deletes carry the whole old row ('O' tuples): the
  // changes must come out as with the default identity, a key change as a delete of the old key
  // and an upsert (u) of the new one.
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE reader_full(id int PRIMARY KEY, v text);"
                          "ALTER TABLE reader_full REPLICA IDENTITY FULL;"
                          "CREATE PUBLICATION pub_full FOR TABLE reader_full;"
                          "INSERT INTO reader_full VALUES (1, 'a'), (2, 'b')")
                  .ok());
  auto first = PgTableReader::Open(Spec("reader_full", "slot_full"), std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ReadAll copy = Drain(**first);
  first->reset();
  ASSERT_TRUE(db->Execute("UPDATE reader_full SET v = 'a2' WHERE id = 1;"
                          "UPDATE reader_full SET id = 3 WHERE id = 2;"
                          "DELETE FROM reader_full WHERE id = 1;"
                          "INSERT INTO reader_full VALUES (4, 'd')")
                  .ok());
  auto again = PgTableReader::Open(Spec("reader_full", "slot_full"), copy.end);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ReadAll read = Drain(**again);
  EXPECT_EQ(read.rows, (std::vector<std::pair<int64_t, std::string>>{
                           {1, "u"}, {2, "d"}, {3, "u"}, {1, "d"}, {4, "c"}}));
}

TEST(PgTableReader, AServerThatCannotBeReachedOrADatabaseThatIsNotThereIsAClearErrorAtOnce) {
  // Nothing listens on port 1; the shared server has no database "no_such_db".
  PgTableSpec nowhere = Spec("reader_nowhere", "slot_nowhere");
  nowhere.connection = "host=127.0.0.1 port=1 dbname=postgres user=cdclake connect_timeout=5";
  const auto start = std::chrono::steady_clock::now();
  auto refused = PgTableReader::Open(nowhere, std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("127.0.0.1:1"), std::string::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("refused"), std::string::npos)
      << refused.status().ToString();
  PgTableSpec no_db = Spec("reader_nodb", "slot_nodb");
  no_db.connection += " dbname=no_such_db";
  auto missing = PgTableReader::Open(no_db, std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("database \"no_such_db\" does not exist"),
            std::string::npos)
      << missing.status().ToString();
}

TEST(PgTableReader, PositionRoundTripsThroughJson) {
  PgPosition p{"7312345678901234567", "shop", "cdclake_shop", (Lsn{0x16} << 32) | 0xB374D848};
  auto back = PgPosition::FromJson(p.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->system_id, p.system_id);
  EXPECT_EQ((*back)->database, "shop");
  EXPECT_EQ((*back)->slot, "cdclake_shop");
  EXPECT_EQ((*back)->lsn, p.lsn);
  EXPECT_EQ(p.ToString(), "pg:7312345678901234567/shop/cdclake_shop@16/B374D848");
  auto other = PgPosition::FromJson(json::Json{{"file", "a.json"}, {"offset", 3}});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
  EXPECT_FALSE(PgPosition::FromJson(json::Json{{"postgres", "no-slashes"}, {"lsn", "0/1"}}).ok());
}

}  // namespace
}  // namespace cdclake::sources::postgres
