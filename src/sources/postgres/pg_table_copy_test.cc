// PgTableCopy against a real PostgreSQL: the rows of an exported snapshot, every one once, over
// one connection and over several block ranges (rows moved to the table's end by updates after
// the snapshot included), in chunks of at most the size asked for and numbered in order; a range
// whose backend is killed is the copy's error; a copy dropped half way ends its COPYs.
#include "sources/postgres/pg_table_copy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/replication_stream.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

using testing::ConnectToSharedServer;
using testing::SharedPostgresServer;
using Ranges = std::vector<std::pair<int64_t, int64_t>>;

TEST(BlockRanges, SplitTheTableEvenlyWithTheLastRangeOpen) {
  EXPECT_EQ(BlockRanges(100, 3, 10), (Ranges{{0, 33}, {33, 66}, {66, -1}}));
  EXPECT_EQ(BlockRanges(100, 1, 10), (Ranges{{0, -1}}));
  // No more ranges than min_range_blocks allows, and always one.
  EXPECT_EQ(BlockRanges(100, 8, 30), (Ranges{{0, 33}, {33, 66}, {66, -1}}));
  EXPECT_EQ(BlockRanges(5, 4, 10), (Ranges{{0, -1}}));
  EXPECT_EQ(BlockRanges(0, 4, 1024), (Ranges{{0, -1}}));
  EXPECT_EQ(BlockRanges(7, 0, 0), (Ranges{{0, -1}}));
  EXPECT_EQ(BlockRanges(4, 4, 0), (Ranges{{0, 1}, {1, 2}, {2, 3}, {3, -1}}));
}

struct Copied {
  std::map<int64_t, std::string> values;  // id -> v
  int64_t rows = 0;
  int64_t chunks = 0;
  int64_t largest_chunk = 0;
  bool ordinals_in_order = true;
};

// Every chunk of `copy` (at most `max_records` each) until it ends.
Copied Drain(PgTableCopy& copy, const RelationInfo& relation, int64_t max_records) {
  Copied out;
  const size_t n = relation.columns.size();
  while (true) {
    auto chunk = copy.Next(out.rows, max_records);
    EXPECT_TRUE(chunk.ok()) << chunk.status().ToString();
    if (!chunk.ok() || !*chunk) break;
    const data::RecordBatch& rows = (*chunk)->rows;
    EXPECT_TRUE((*chunk)->rejected.empty());
    ++out.chunks;
    out.largest_chunk = std::max(out.largest_chunk, rows.num_rows());
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const int64_t id = rows.column(0).GetValue(r).int_value();
      EXPECT_EQ(out.values.count(id), 0u) << "id " << id << " copied twice";
      out.values[id] = std::string(rows.column(1).StringAt(r));
      EXPECT_EQ(rows.column(n).StringAt(r), "r");
      const int64_t ordinal = rows.column(n + 1).child(2).IntegerAt(r);
      if (ordinal != out.rows + r) out.ordinals_in_order = false;
    }
    out.rows += rows.num_rows();
  }
  auto done = copy.Done();
  EXPECT_TRUE(done.ok() && *done);
  return out;
}

// A replication connection holding a temporary slot's exported snapshot while it stays idle.
struct Exported {
  std::unique_ptr<PgConnection> replication;
  CreatedSlot slot;
};

Exported Export(const std::string& slot) {
  Exported out;
  PgConnection::Options options;
  options.replication = true;
  auto replication = PgConnection::Connect(SharedPostgresServer()->conninfo(), options);
  EXPECT_TRUE(replication.ok()) << replication.status().ToString();
  if (!replication.ok()) return out;
  out.replication = std::move(*replication);
  auto created = CreateReplicationSlot(*out.replication, slot, SnapshotAction::kExport,
                                       /*temporary=*/true);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  if (created.ok()) out.slot = *created;
  return out;
}

PgCopySpec Spec(const Exported& exported, int connections) {
  PgCopySpec spec;
  spec.connection = SharedPostgresServer()->conninfo();
  spec.snapshot = exported.slot.snapshot_name;
  spec.connections = connections;
  spec.min_range_blocks = 10;
  spec.batch_rows = 300;
  return spec;
}

TEST(PgTableCopy, EveryRowOfTheSnapshotOnceOverOneConnectionAndOverThreeRanges) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  // About 14 rows a block: some 215 blocks.
  ASSERT_TRUE(db->Execute("CREATE TABLE copy_ranges(id int PRIMARY KEY, v text, pad text);"
                          "INSERT INTO copy_ranges SELECT g, 'before', repeat('p', 500) "
                          "FROM generate_series(1, 3000) g")
                  .ok());
  auto table = DescribePgTable(*db, "copy_ranges");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  for (int connections : {1, 3}) {
    SCOPED_TRACE("connections " + std::to_string(connections));
    Exported exported = Export("copy_ranges_" + std::to_string(connections));
    ASSERT_NE(exported.replication, nullptr);
    // After the snapshot: updated rows move to new blocks at the table's end (the last range),
    // deleted and inserted ones differ from it. None of it is in the copy.
    ASSERT_TRUE(db->Execute("UPDATE copy_ranges SET v = 'after' WHERE id % 3 = 0;"
                            "DELETE FROM copy_ranges WHERE id <= 100;"
                            "INSERT INTO copy_ranges SELECT g, 'new', '' "
                            "FROM generate_series(3001, 3500) g")
                    .ok());
    auto copy = PgTableCopy::Start(Spec(exported, connections), table->relation, "postgres",
                                   exported.slot.consistent_point, 0);
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    EXPECT_EQ((*copy)->ranges(), static_cast<size_t>(connections));
    Copied copied = Drain(**copy, table->relation, 777);
    EXPECT_EQ(copied.rows, 3000);
    ASSERT_EQ(copied.values.size(), 3000u);
    EXPECT_EQ(copied.values.begin()->first, 1);
    EXPECT_EQ(copied.values.rbegin()->first, 3000);
    for (const auto& [id, v] : copied.values) EXPECT_EQ(v, "before") << id;
    EXPECT_LE(copied.largest_chunk, 777);
    EXPECT_GE(copied.chunks, 4);
    EXPECT_TRUE(copied.ordinals_in_order);
    // The next round copies the table as it is now, from a new snapshot.
    ASSERT_TRUE(db->Execute("TRUNCATE copy_ranges; INSERT INTO copy_ranges SELECT g, 'before', "
                            "repeat('p', 500) FROM generate_series(1, 3000) g")
                    .ok());
  }
}

// Rows of copy_<name>: 40,000 of 500 bytes (20 MB), more than the sockets hold.
void MakeBigTable(PgConnection& db, const std::string& name) {
  ASSERT_TRUE(db.Execute("CREATE TABLE " + name +
                         "(id int PRIMARY KEY, v text, pad text);"
                         "INSERT INTO " +
                         name + " SELECT g, 'v', repeat('p', 500) FROM generate_series(1, 40000) g")
                  .ok());
}

// How many backends run a COPY of `table`.
int64_t CopiesRunning(PgConnection& db, const std::string& table) {
  auto n = db.Query("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%" +
                    table + "%' AND state = 'active' AND pid <> pg_backend_pid()");
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return n.ok() ? std::stoll(FirstCell(*n)) : -1;
}

TEST(PgTableCopy, ARangeWhoseBackendIsKilledIsTheCopysErrorOnEveryLaterCall) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  MakeBigTable(*db, "copy_killed");
  auto table = DescribePgTable(*db, "copy_killed");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  Exported exported = Export("copy_killed");
  ASSERT_NE(exported.replication, nullptr);
  for (int connections : {1, 2}) {
    SCOPED_TRACE("connections " + std::to_string(connections));
    PgCopySpec spec = Spec(exported, connections);
    spec.batch_rows = 100;
    auto copy = PgTableCopy::Start(spec, table->relation, "postgres", 0, 0);
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    ASSERT_EQ((*copy)->ranges(), static_cast<size_t>(connections));
    auto first = (*copy)->Next(0, 100);
    ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
    ASSERT_EQ(CopiesRunning(*db, "copy_killed"), connections) << "every range waits on the reader";
    ASSERT_TRUE(db->Execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query "
                            "LIKE 'COPY (SELECT%copy_killed%' AND pid <> pg_backend_pid()")
                    .ok());
    Status failed = Status::OK();
    for (int i = 0; i < 1000 && failed.ok(); ++i) {
      auto chunk = (*copy)->Next(0, 100);
      if (!chunk.ok()) failed = chunk.status();
      ASSERT_TRUE(!chunk.ok() || chunk->has_value()) << "the copy ended as if whole";
    }
    ASSERT_FALSE(failed.ok()) << "rows kept coming after the backends were killed";
    EXPECT_NE(failed.message().find("COPY"), std::string::npos) << failed.ToString();
    EXPECT_EQ(failed.message().rfind("copying public.copy_killed", 0), 0u) << failed.ToString();
    // And again on later calls: the copy is not whole.
    EXPECT_FALSE((*copy)->Next(0, 100).ok());
    EXPECT_FALSE((*copy)->Done().ok());
  }
}

TEST(PgTableCopy, ACopyDroppedHalfWayEndsItsCopiesOnTheServer) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  MakeBigTable(*db, "copy_dropped");
  auto table = DescribePgTable(*db, "copy_dropped");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  Exported exported = Export("copy_dropped");
  ASSERT_NE(exported.replication, nullptr);
  for (int connections : {1, 3}) {
    PgCopySpec spec = Spec(exported, connections);
    auto copy = PgTableCopy::Start(spec, table->relation, "postgres", 0, 0);
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    auto first = (*copy)->Next(0, 10);
    ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
    EXPECT_EQ((*first)->rows.num_rows(), 10);
    EXPECT_EQ(CopiesRunning(*db, "copy_dropped"), connections);
    copy->reset();
    int64_t running = -1;
    for (int i = 0; i < 100 && running != 0; ++i) {
      running = CopiesRunning(*db, "copy_dropped");
      if (running != 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(running, 0) << connections << " connections";
  }
}

}  // namespace
}  // namespace cdclake::sources::postgres
