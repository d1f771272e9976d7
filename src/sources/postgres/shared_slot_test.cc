// SharedSlot against a real PostgreSQL: two tables read through one slot in passes, a table
// joining the slot while another session commits to both (every row exactly once, copy or
// stream), a pass that stops at max_changes and the next that goes on, and the slot moved to the
// lowest position its readers hold, never while one of them has not joined.
#include "sources/postgres/shared_slot.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/pg_table_reader.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

using testing::ConnectToSharedServer;
using testing::SharedPostgresServer;

constexpr const char* kSlot = "slot_shared";

PgTableSpec Spec(const std::string& table) {
  PgTableSpec spec;
  spec.connection = SharedPostgresServer()->conninfo();
  spec.publication = "pub_shared";
  spec.slot = kSlot;
  spec.table = table;
  spec.batch_rows = 400;
  return spec;
}

std::unique_ptr<SharedSlot> Pass(int readers, int64_t max_changes = 1000000, Lsn stop_at = 0) {
  SharedSlot::Spec spec;
  spec.connection = SharedPostgresServer()->conninfo();
  spec.slot = kSlot;
  spec.publications = {"pub_shared"};
  spec.readers = readers;
  spec.max_changes = max_changes;
  spec.stop_at = stop_at;
  return std::make_unique<SharedSlot>(spec);
}

// A reader's table as the test keeps it: each id's count of `r`/`c` rows, and its position.
struct Table {
  std::string name;
  std::map<int64_t, int> ids;
  std::optional<PgPosition> end;
  int snapshot_rows = 0;
};

// One pass of `table` through `slot`: every batch, each confirmed as a flow would.
void ReadPass(SharedSlot& slot, Table* table) {
  auto reader = PgTableReader::Open(Spec(table->name), table->end, &slot);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (int i = 0; i < 10000; ++i) {
    auto batch = (*reader)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    const data::RecordBatch& rows = (*batch)->rows.rows;
    const int id = rows.schema().FieldIndex("id");
    const int op = rows.schema().FieldIndex("_op");
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const std::string kind(rows.column(static_cast<size_t>(op)).StringAt(r));
      EXPECT_TRUE(kind == "r" || kind == "c") << table->name << " row came as " << kind;
      table->snapshot_rows += kind == "r";
      ++table->ids[rows.column(static_cast<size_t>(id)).GetValue(r).int_value()];
    }
    table->end = (*batch)->end;
    (*reader)->Confirm((*batch)->end.lsn);
  }
}

Lsn Confirmed(PgConnection& db) {
  auto rows = db.Query(std::string("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE "
                                   "slot_name = '") +
                       kSlot + "'");
  EXPECT_TRUE(rows.ok() && rows->rows.size() == 1);
  if (!rows.ok() || rows->rows.size() != 1) return 0;
  return ParseLsn(FirstCell(*rows)).ValueOr(0);
}

TEST(SharedSlot, ATableJoinsWhileAnotherSessionCommitsToBothAndEveryRowComesOnce) {
  auto db = ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute("CREATE TABLE shared_a(id bigint PRIMARY KEY, v text);"
                          "CREATE TABLE shared_b(id bigint PRIMARY KEY, v text);"
                          "CREATE PUBLICATION pub_shared FOR TABLE shared_a, shared_b;"
                          "INSERT INTO shared_a SELECT g, 'seed' FROM generate_series(1, 500) g;"
                          "INSERT INTO shared_b SELECT g, 'seed' FROM generate_series(1, 1500) g")
                  .ok());
  Table a;
  a.name = "shared_a";
  Table b;
  b.name = "shared_b";

  // Pass 1: only shared_a's flow exists. The slot is made (no snapshot), the table copied in
  // a temporary slot's snapshot of its own.
  auto pass1 = Pass(1);
  ReadPass(*pass1, &a);
  ASSERT_TRUE(a.end.has_value());
  ASSERT_TRUE(pass1->Advance().ok());
  EXPECT_EQ(a.snapshot_rows, 500);

  // A writer commits a row to each table per transaction from here on.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> written{1500};
  std::thread writer([&] {
    auto w = ConnectToSharedServer();
    if (w == nullptr) return;
    while (!stop.load()) {
      const std::string id = std::to_string(written.load() + 1);
      if (!w->Execute("BEGIN; INSERT INTO shared_a VALUES (" + id + ", 'live'); INSERT INTO " +
                      "shared_b VALUES (" + id + ", 'live'); COMMIT")
               .ok()) {
        break;
      }
      written.store(written.load() + 1);
    }
  });
  // Pass 2: shared_b joins (its copy made while the writer commits), shared_a streams on.
  auto pass2 = Pass(2);
  ReadPass(*pass2, &b);
  ReadPass(*pass2, &a);
  auto advanced = pass2->Advance();
  ASSERT_TRUE(advanced.ok()) << advanced.status().ToString();
  stop.store(true);
  writer.join();
  const Lsn lowest = std::min(a.end->lsn, b.end->lsn);
  EXPECT_EQ(Confirmed(*db), lowest) << *advanced;

  // 100 more transactions, then passes that hold at most 50 changes: each stops early, the
  // next goes on to where the first meant to stop.
  for (int i = 0; i < 100; ++i) {
    const std::string id = std::to_string(written.load() + 1);
    ASSERT_TRUE(db->Execute("BEGIN; INSERT INTO shared_a VALUES (" + id +
                            ", 'after'); INSERT INTO shared_b VALUES (" + id + ", 'after'); COMMIT")
                    .ok());
    written.store(written.load() + 1);
  }
  auto pass = Pass(2, 50);
  int passes = 0;
  for (; passes < 1000; ++passes) {
    ReadPass(*pass, &a);
    ReadPass(*pass, &b);
    ASSERT_TRUE(pass->Advance().ok());
    if (!pass->more()) break;
    pass = Pass(2, 50, pass->stop_at());
  }
  EXPECT_GE(passes, 3) << "200 changes in passes of at most 50 (a transaction's two at a time)";
  EXPECT_EQ(Confirmed(*db), std::min(a.end->lsn, b.end->lsn));

  const int64_t total = written.load();
  for (const Table* t : {&a, &b}) {
    const int64_t seeded = t == &a ? 500 : 1500;
    EXPECT_EQ(static_cast<int64_t>(t->ids.size()), seeded + (total - 1500)) << t->name;
    for (const auto& [id, count] : t->ids) EXPECT_EQ(count, 1) << t->name << " id " << id;
  }
  EXPECT_GE(b.snapshot_rows, 1500);
  EXPECT_GT(total, 1600) << "the writer committed nothing";

  // One slot: the copies' temporary slots went with their connections.
  auto slots = db->Query("SELECT string_agg(slot_name, ',') FROM pg_replication_slots");
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(FirstCell(*slots), kSlot);

  // A pass where one of two readers never joined does not move the slot.
  ASSERT_TRUE(db->Execute("INSERT INTO shared_a VALUES (-1, 'late')").ok());
  const Lsn before = Confirmed(*db);
  auto half = Pass(2);
  ReadPass(*half, &a);
  auto refused = half->Advance();
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict);
  EXPECT_NE(refused.status().message().find("1 of the 2 flows"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(Confirmed(*db), before);
  EXPECT_EQ(a.ids[-1], 1);
  EXPECT_TRUE(db->Execute(std::string("SELECT pg_drop_replication_slot('") + kSlot + "')").ok());
}

}  // namespace
}  // namespace cdclake::sources::postgres
