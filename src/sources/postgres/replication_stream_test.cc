// ReplicationStream against a real PostgreSQL: the snapshot hand-off of a new slot (the exported
// snapshot holds exactly what the stream does not), frames decoded, status updates moving the
// slot's confirmed_flush_lsn, keepalives asking for a reply.
#include "sources/postgres/replication_stream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "sources/postgres/lsn.h"
#include "sources/postgres/pgoutput_decoder.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

std::unique_ptr<PgConnection> Open(const testing::PostgresServer& server, bool replication) {
  auto db = PgConnection::Connect(server.conninfo(), PgConnection::Options{replication});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

// The decoded frames up to and including the first commit (or `limit` frames), keeping the
// payloads' bytes alive in `storage`.
struct Received {
  std::vector<std::string> storage;
  std::vector<PgOutputMessage> messages;
  std::vector<Lsn> starts;
  std::optional<Commit> commit;
};

Received ReadOneTransaction(ReplicationStream& stream) {
  Received out;
  out.storage.reserve(1000);
  PgOutputDecoder decoder;
  for (int i = 0; i < 1000 && !out.commit; ++i) {
    auto frame = stream.Next(10000);
    EXPECT_TRUE(frame.ok()) << frame.status().ToString();
    if (!frame.ok() || !*frame) break;
    if (const auto* data = std::get_if<XLogData>(&**frame)) {
      out.storage.emplace_back(data->payload);
      auto m = decoder.Decode(out.storage.back());
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      if (!m.ok()) break;
      out.messages.push_back(*m);
      out.starts.push_back(data->data_start);
      if (const auto* c = std::get_if<Commit>(&*m)) out.commit = *c;
    }
  }
  return out;
}

TEST(ReplicationStream, ExportedSnapshotAndStreamMeetWithoutGapOrOverlap) {
  auto server = testing::PostgresServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto sql = Open(**server, false);
  ASSERT_NE(sql, nullptr);
  ASSERT_TRUE(sql->Execute("CREATE TABLE t(id int PRIMARY KEY, v text);"
                           "CREATE PUBLICATION p FOR TABLE t;"
                           "INSERT INTO t SELECT g, 'before' FROM generate_series(1, 3) g")
                  .ok());

  auto replication = Open(**server, true);
  ASSERT_NE(replication, nullptr);
  auto system = IdentifySystem(*replication);
  ASSERT_TRUE(system.ok()) << system.status().ToString();
  EXPECT_FALSE(system->system_id.empty());
  EXPECT_EQ(system->database, "postgres");
  EXPECT_GT(system->wal_position, 0u);

  auto slot = CreateReplicationSlot(*replication, "cdclake_t", SnapshotAction::kExport);
  ASSERT_TRUE(slot.ok()) << slot.status().ToString();
  EXPECT_EQ(slot->name, "cdclake_t");
  EXPECT_FALSE(slot->snapshot_name.empty());
  EXPECT_GE(slot->consistent_point, system->wal_position);

  // A change committed after the slot: in the stream, not in the snapshot.
  ASSERT_TRUE(sql->Execute("INSERT INTO t VALUES (4, 'after')").ok());
  auto copier = Open(**server, false);
  ASSERT_NE(copier, nullptr);
  ASSERT_TRUE(copier->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ").ok());
  ASSERT_TRUE(
      copier->Execute("SET TRANSACTION SNAPSHOT " + QuoteLiteral(slot->snapshot_name)).ok());
  auto seen = copier->Query("SELECT string_agg(id::text, ',' ORDER BY id) FROM t");
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_EQ(*seen->rows[0][0], "1,2,3");
  ASSERT_TRUE(copier->Execute("COMMIT").ok());

  ReplicationStream::Options options;
  options.slot = "cdclake_t";
  options.publications = {"p"};
  options.start = slot->consistent_point;
  auto stream = ReplicationStream::Start(std::move(replication), options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();

  Received first = ReadOneTransaction(**stream);
  ASSERT_TRUE(first.commit.has_value());
  int inserts = 0;
  for (size_t i = 0; i < first.messages.size(); ++i) {
    if (const auto* insert = std::get_if<Insert>(&first.messages[i])) {
      ++inserts;
      EXPECT_EQ(insert->new_tuple[0].bytes, "4");
      EXPECT_GE(first.starts[i], slot->consistent_point);  // the change's own LSN
    }
  }
  EXPECT_EQ(inserts, 1);
  EXPECT_GT(first.commit->end_lsn, slot->consistent_point);

  // Confirming the commit's end moves the slot there, and only there.
  ASSERT_TRUE((*stream)->SendStatus(first.commit->end_lsn, first.commit->end_lsn).ok());
  std::string confirmed;
  for (int i = 0; i < 100; ++i) {
    auto rows = sql->Query(
        "SELECT confirmed_flush_lsn FROM pg_replication_slots "
        "WHERE slot_name = 'cdclake_t'");
    ASSERT_TRUE(rows.ok());
    confirmed = rows->rows[0][0].value_or("");
    if (confirmed == FormatLsn(first.commit->end_lsn)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(confirmed, FormatLsn(first.commit->end_lsn));

  // The next transaction follows, whole.
  ASSERT_TRUE(sql->Execute("UPDATE t SET v = 'changed' WHERE id <= 2").ok());
  Received second = ReadOneTransaction(**stream);
  ASSERT_TRUE(second.commit.has_value());
  int updates = 0;
  for (const auto& m : second.messages) updates += std::holds_alternative<Update>(m);
  EXPECT_EQ(updates, 2);
  EXPECT_GT(second.commit->end_lsn, first.commit->end_lsn);
}

TEST(ReplicationStream, KeepalivesAskForARepliesAndAnAnswerKeepsTheStreamOpen) {
  auto server = testing::PostgresServer::Start({"wal_sender_timeout=2s"});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto sql = Open(**server, false);
  ASSERT_NE(sql, nullptr);
  ASSERT_TRUE(
      sql->Execute("CREATE TABLE k(id int PRIMARY KEY); CREATE PUBLICATION pk FOR TABLE k").ok());
  auto replication = Open(**server, true);
  ASSERT_NE(replication, nullptr);
  auto slot = CreateReplicationSlot(*replication, "cdclake_k", SnapshotAction::kNothing);
  ASSERT_TRUE(slot.ok()) << slot.status().ToString();
  ReplicationStream::Options options;
  options.slot = "cdclake_k";
  options.publications = {"pk"};
  auto stream = ReplicationStream::Start(std::move(replication), options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();

  // For 3 seconds (past the 2 s timeout) answer every request: the stream stays open.
  int requested = 0;
  Lsn wal_end = 0;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    auto frame = (*stream)->Next(200);
    ASSERT_TRUE(frame.ok()) << frame.status().ToString();
    if (!*frame) continue;
    if (const auto* k = std::get_if<Keepalive>(&**frame)) {
      wal_end = std::max(wal_end, k->wal_end);
      requested += k->reply_requested;
      // Every keepalive answered, not only those asking: a loaded machine may see the request late.
      ASSERT_TRUE((*stream)->SendStatus(k->wal_end, slot->consistent_point).ok());
    }
  }
  EXPECT_GE(requested, 1);
  EXPECT_GT(wal_end, 0u);
  // Left unanswered, the server ends the stream at its timeout, and Next says so.
  Status ended = Status::OK();
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ended.ok() && std::chrono::steady_clock::now() < give_up) {
    auto frame = (*stream)->Next(500);
    if (!frame.ok()) ended = frame.status();
  }
  ASSERT_FALSE(ended.ok());
  EXPECT_NE(ended.message().find("replication stream"), std::string::npos) << ended.ToString();
}

TEST(Lsn, TextFormRoundTrips) {
  EXPECT_EQ(FormatLsn(0x16B374D848ull), "16/B374D848");
  EXPECT_EQ(FormatLsn(0), "0/0");
  auto lsn = ParseLsn("16/B374D848");
  ASSERT_TRUE(lsn.ok());
  EXPECT_EQ(*lsn, 0x16B374D848ull);
  EXPECT_FALSE(ParseLsn("16B374D848").ok());
  EXPECT_FALSE(ParseLsn("/1").ok());
  EXPECT_FALSE(ParseLsn("1/G").ok());
}

}  // namespace
}  // namespace cdclake::sources::postgres
