// ChangeSpool: random changes added under budgets from none to all in memory, cut at marks
// (a rolled-back subtransaction), read back equal to the same changes kept in a vector.
#include "sources/postgres/change_spool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>

#include "io/scratch_dir.h"
#include "io/testing/file_size_limit.h"

namespace cdclake::sources::postgres {
namespace {

bool Same(const PgChange& a, const PgChange& b) {
  return a.kind == b.kind && a.relation == b.relation && a.shape == b.shape && a.lsn == b.lsn &&
         a.old_kind == b.old_kind && a.old_tuple.kinds == b.old_tuple.kinds &&
         a.old_tuple.values == b.old_tuple.values && a.new_tuple.kinds == b.new_tuple.kinds &&
         a.new_tuple.values == b.new_tuple.values && a.truncated == b.truncated &&
         a.truncate_options == b.truncate_options;
}

PgChange RandomChange(std::mt19937_64& rng,
                      const std::vector<std::shared_ptr<const RelationInfo>>& shapes) {
  PgChange c;
  c.kind = static_cast<PgChange::Kind>(rng() % 4);
  c.lsn = rng();
  if (c.kind == PgChange::Kind::kTruncate) {
    for (uint64_t n = rng() % 3 + 1; n > 0; --n) c.truncated.push_back(rng() % 5 + 1);
    c.truncate_options = static_cast<uint8_t>(rng() % 4);
    return c;
  }
  c.shape = shapes[rng() % shapes.size()];
  c.relation = c.shape->oid;
  auto tuple = [&](OwnedTuple* t) {
    for (size_t i = 0; i < c.shape->columns.size(); ++i) {
      const auto kind = static_cast<TupleCell::Kind>(rng() % 4);
      t->kinds.push_back(kind);
      // Now and then a value far larger than the reader's buffer.
      const size_t size = rng() % 50 == 0 ? (1u << 20) + rng() % 5000 : rng() % 40;
      t->values.push_back(kind == TupleCell::Kind::kText || kind == TupleCell::Kind::kBinary
                              ? std::string(size, static_cast<char>('a' + rng() % 26))
                              : "");
    }
  };
  tuple(&c.new_tuple);
  if (c.kind != PgChange::Kind::kInsert && rng() % 2 == 0) {
    c.old_kind = rng() % 2 == 0 ? 'K' : 'O';
    tuple(&c.old_tuple);
  }
  return c;
}

std::vector<std::shared_ptr<const RelationInfo>> Shapes() {
  std::vector<std::shared_ptr<const RelationInfo>> shapes;
  for (uint32_t oid = 1; oid <= 3; ++oid) {
    auto r = std::make_shared<RelationInfo>();
    r->oid = oid;
    r->name = "t" + std::to_string(oid);
    for (uint32_t c = 0; c < oid + 1; ++c) r->columns.push_back({"c" + std::to_string(c), 25});
    shapes.push_back(std::move(r));
  }
  return shapes;
}

TEST(ChangeSpool, ReadsBackWhatWasAddedWhateverTheBudgetAndCuts) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  const std::vector<std::shared_ptr<const RelationInfo>> shapes = Shapes();
  for (int64_t budget : {int64_t{0}, int64_t{1000}, int64_t{50000}, int64_t{1} << 40}) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      SCOPED_TRACE("budget " + std::to_string(budget) + ", seed " + std::to_string(seed));
      std::mt19937_64 rng(seed);
      ChangeSpool spool(SpillOptions{budget, folder->path() + "/spill", nullptr});
      std::vector<PgChange> expected;
      std::vector<size_t> marks;
      for (int step = 0; step < 400; ++step) {
        const uint64_t what = rng() % 20;
        if (what == 0) {
          spool.MarkNext();
          marks.push_back(expected.size());
        } else if (what == 1 && !marks.empty()) {
          // A subtransaction rolled back: cut at one of the marks; it and the later ones go.
          const size_t m = rng() % marks.size();
          const size_t cut = marks[m];
          ASSERT_TRUE(spool.TruncateTo(cut).ok());
          expected.resize(cut);
          while (!marks.empty() && marks.back() >= cut) marks.pop_back();
        } else {
          PgChange c = RandomChange(rng, shapes);
          expected.push_back(c);
          ASSERT_TRUE(spool.Add(std::move(c)).ok());
        }
        ASSERT_EQ(spool.size(), expected.size());
      }
      if (budget == 0) {
        EXPECT_EQ(spool.spilled(), spool.size()) << "everything on disk";
      }
      if (budget == int64_t{1} << 40) {
        EXPECT_EQ(spool.spilled_bytes(), 0);
      }
      const ChangeSpool copy = spool;  // shares the file
      for (const ChangeSpool* s : {static_cast<const ChangeSpool*>(&spool), &copy}) {
        size_t seen = 0;
        ASSERT_TRUE(s->ForEach([&](const PgChange& c, size_t i) {
                       EXPECT_EQ(i, seen);
                       EXPECT_TRUE(i < expected.size() && Same(c, expected[i])) << i;
                       ++seen;
                       return Status::OK();
                     }).ok());
        EXPECT_EQ(seen, expected.size());
      }
      for (const PgChange& c : expected) {
        if (c.kind != PgChange::Kind::kTruncate) {
          EXPECT_TRUE(spool.Touches(c.relation));
        }
      }
      // A copy goes on by itself: what is added to it is not in the original.
      ChangeSpool added = copy;
      PgChange big;  // past every budget here but the last: it spills
      big.new_tuple = {{TupleCell::Kind::kText}, {std::string(100000, 'z')}};
      ASSERT_TRUE(added.Add(big).ok());
      auto both = added.Collect();
      ASSERT_TRUE(both.ok()) << both.status().ToString();
      ASSERT_EQ(both->size(), expected.size() + 1);
      EXPECT_TRUE(Same(both->back(), big));
      auto original = spool.Collect();
      ASSERT_TRUE(original.ok());
      EXPECT_EQ(original->size(), expected.size());
      // Cut back to a mark below what is on disk, while a copy shares the file: the copy keeps
      // its changes.
      if (!marks.empty() && marks.front() < spool.spilled()) {
        ASSERT_TRUE(spool.TruncateTo(marks.front()).ok());
        auto cut = spool.Collect();
        ASSERT_TRUE(cut.ok()) << cut.status().ToString();
        ASSERT_EQ(cut->size(), marks.front());
        for (size_t i = 0; i < cut->size(); ++i) ASSERT_TRUE(Same((*cut)[i], expected[i])) << i;
        auto kept = copy.Collect();
        ASSERT_TRUE(kept.ok());
        EXPECT_EQ(kept->size(), expected.size());
      }
    }
  }
}

int OpenFiles() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

// The bytes in the files this process has open in `folder` (unnamed: found through
// /proc/self/fd, whose links name the folder); -1 when there is none.
int64_t BytesOpenIn(const std::string& given) {
  // The links name the folder with its links resolved ($TMPDIR may be one).
  const std::string folder = std::filesystem::canonical(given).string();
  int64_t bytes = -1;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
    if (ec || target.rfind(folder + "/", 0) != 0) continue;
    const auto size = std::filesystem::file_size(e.path(), ec);
    if (!ec) bytes = std::max<int64_t>(bytes, 0) + static_cast<int64_t>(size);
  }
  return bytes;
}

TEST(ChangeSpool, SpoolsOfOneOwnerShareOneFile) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  SpillOptions options{0, folder->path(), nullptr};
  options.file = MakeSpillFile(folder->path());
  const int before = OpenFiles();
  std::vector<ChangeSpool> spools;
  for (int i = 0; i < 3000; ++i) {
    ChangeSpool& s = spools.emplace_back(options);
    PgChange c;
    c.lsn = static_cast<Lsn>(i);
    c.new_tuple = {{TupleCell::Kind::kText}, {std::to_string(i)}};
    ASSERT_TRUE(s.Add(c).ok());
    ASSERT_TRUE(s.Add(c).ok());
    ASSERT_EQ(s.spilled(), 2u);
  }
  EXPECT_LE(OpenFiles(), before + 1) << "3,000 spilled transactions, one file";
  for (int i = 0; i < 3000; i += 7) {
    auto back = spools[static_cast<size_t>(i)].Collect();
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(back->size(), 2u);
    EXPECT_EQ((*back)[1].new_tuple.values[0], std::to_string(i));
  }
  // Moved from, a spool is empty.
  ChangeSpool moved = std::move(spools[0]);
  EXPECT_EQ(moved.size(), 2u);
  EXPECT_EQ(spools[0].size(), 0u);  // NOLINT(bugprone-use-after-move): what is left is defined
  EXPECT_TRUE(spools[0].ForEach([](const PgChange&, size_t) { return Status::OK(); }).ok());
}

TEST(ChangeSpool, TheFileIsCutWhenTheLastSpoolHoldingChangesInItLetsGo) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  const SpillOptions options{0, folder->path(), MakeSpillFile(folder->path())};
  PgChange c;
  c.new_tuple = {{TupleCell::Kind::kText}, {std::string(1000, 'x')}};
  std::optional<ChangeSpool> a(options);
  std::optional<ChangeSpool> b(options);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a->Add(c).ok());
  ASSERT_TRUE(b->Add(c).ok());
  const int64_t both = BytesOpenIn(folder->path());
  EXPECT_EQ(both, a->spilled_bytes() + b->spilled_bytes());
  std::optional<ChangeSpool> copy(*a);
  a.reset();
  EXPECT_EQ(BytesOpenIn(folder->path()), both) << "a copy of a and b still hold changes in it";
  copy.reset();
  EXPECT_EQ(BytesOpenIn(folder->path()), both) << "b still holds a change in it";
  auto back = b->Collect();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_TRUE(Same((*back)[0], c));
  b.reset();
  EXPECT_EQ(BytesOpenIn(folder->path()), 0) << "nothing holds changes in it";
  // The next spool starts at the beginning again.
  ChangeSpool d(options);
  ASSERT_TRUE(d.Add(c).ok());
  EXPECT_EQ(BytesOpenIn(folder->path()), d.spilled_bytes());
  back = d.Collect();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_TRUE(Same((*back)[0], c));
}

// Spools in several threads on one file, each made, filled, read back and dropped again and
// again: the file is cut whenever the last holder lets go, which must never be while another
// spool has changes in it, nor lose a shape another spool looked up.
TEST(ChangeSpool, SpoolsInSeveralThreadsOnOneFileReadBackTheirOwnChanges) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  const auto shapes = Shapes();
  const auto file = MakeSpillFile(folder->path());
  const int rounds = 150;
  std::atomic<int> wrong{0};
  std::atomic<int> spilled{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(t) + 100);
      for (int round = 0; round < rounds; ++round) {
        ChangeSpool spool(SpillOptions{rng() % 2 == 0 ? 0 : 3000, folder->path(), file});
        std::vector<PgChange> expected;
        for (uint64_t n = rng() % 20 + 1; n > 0; --n) {
          expected.push_back(RandomChange(rng, shapes));
          if (!spool.Add(expected.back()).ok()) ++wrong;
        }
        spilled += spool.spilled() > 0;
        auto back = spool.Collect();
        if (!back.ok() || back->size() != expected.size()) {
          ++wrong;
          continue;
        }
        for (size_t i = 0; i < expected.size(); ++i) wrong += !Same((*back)[i], expected[i]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(spilled.load(), rounds) << "most spools should have spilled";
  EXPECT_EQ(BytesOpenIn(folder->path()), 0) << "every spool let go: the file is empty";
}

TEST(ChangeSpool, DrainHandsOverEveryChangeInOrderAndEmptiesTheSpool) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  const auto shapes = Shapes();
  const SpillOptions options{20000, folder->path(), MakeSpillFile(folder->path())};
  for (size_t stop_at : {size_t{1000}, size_t{3}, size_t{150}}) {
    SCOPED_TRACE("stop at " + std::to_string(stop_at));
    std::mt19937_64 rng(stop_at);
    ChangeSpool spool(options);
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(spool.Add(RandomChange(rng, shapes)).ok());
    ASSERT_GT(spool.spilled(), 0u);
    ASSERT_LT(spool.spilled(), spool.size()) << "some on disk, some in memory";
    auto expected = spool.Collect();
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    std::vector<PgChange> taken;
    Status drained = spool.Drain([&](PgChange&& c) {
      if (taken.size() == stop_at) return Status::InvalidArgument("stop");
      taken.push_back(std::move(c));
      return Status::OK();
    });
    const size_t n = std::min(stop_at, expected->size());
    EXPECT_EQ(drained.ok(), stop_at >= expected->size()) << drained.ToString();
    ASSERT_EQ(taken.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(Same(taken[i], (*expected)[i])) << i;
    EXPECT_EQ(spool.size(), 0u);
    EXPECT_EQ(spool.spilled(), 0u);
    EXPECT_TRUE(spool.touched().empty());
    EXPECT_EQ(BytesOpenIn(folder->path()), 0) << "the drained spool held the file alone";
  }
}

// A spill whose first 1 MB chunk is written and whose second fails (RLIMIT_FSIZE): the
// changes stay in memory and the first chunk is not counted as theirs, so the next spill
// writes them once and they read back once, in order.
TEST(ChangeSpool, ASpillThatFailsHalfWayIsTakenBackWhole) {
  auto folder = io::ScratchDir::Create();
  ASSERT_TRUE(folder.ok());
  ChangeSpool spool(SpillOptions{int64_t{3} << 20, folder->path(), nullptr});
  std::vector<PgChange> expected;
  for (int i = 0; i < 3; ++i) {
    PgChange c;
    c.lsn = static_cast<Lsn>(i);
    c.new_tuple = {{TupleCell::Kind::kText}, {std::string((1u << 20) + 10, 'a' + i)}};
    expected.push_back(c);
  }
  ASSERT_TRUE(spool.Add(expected[0]).ok());
  ASSERT_TRUE(spool.Add(expected[1]).ok());
  ASSERT_EQ(spool.spilled(), 0u);
  {
    io::testing::FileSizeLimit limit(int64_t{3} << 19);  // 1.5 MB: the second chunk fails
    if (!limit.set()) GTEST_SKIP() << "RLIMIT_FSIZE cannot be lowered here";
    Status failed = spool.Add(expected[2]);  // past 3 MB: three chunks of 1 MB each
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.code(), StatusCode::kIoError) << failed.ToString();
    EXPECT_NE(failed.message().find("a spill file in"), std::string::npos) << failed.ToString();
  }
  EXPECT_EQ(spool.spilled(), 0u);
  EXPECT_EQ(spool.spilled_bytes(), 0);
  PgChange last;
  last.lsn = 99;
  last.new_tuple = {{TupleCell::Kind::kText}, {"last"}};
  expected.push_back(last);
  ASSERT_TRUE(spool.Add(last).ok());
  ASSERT_TRUE(spool.Add(last).ok());  // past the budget again: now the spill succeeds
  expected.push_back(last);
  EXPECT_GT(spool.spilled(), 0u);
  auto back = spool.Collect();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(Same((*back)[i], expected[i])) << i;
}

TEST(ChangeSpool, AVisitorsErrorStopsTheWalk) {
  ChangeSpool spool(SpillOptions{0, "", nullptr});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(spool.Add(PgChange{}).ok());
  int visits = 0;
  Status s = spool.ForEach([&](const PgChange&, size_t i) {
    ++visits;
    return i == 2 ? Status::InvalidArgument("stop") : Status::OK();
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(visits, 3);
}

TEST(ChangeSpool, AFolderThatCannotBeMadeIsNamed) {
  ChangeSpool spool(SpillOptions{0, "/proc/no/such/folder", nullptr});
  Status s = spool.Add(PgChange{});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/proc/no/such/folder"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace cdclake::sources::postgres
