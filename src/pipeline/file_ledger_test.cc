// FileLedger: entries survive a write and a load, later deltas win, compaction keeps every
// entry, files no ref names are ignored, and odd path bytes round-trip.
#include "pipeline/file_ledger.h"

#include <gtest/gtest.h>

#include <set>

#include "io/memory_file_system.h"

namespace cdclake::pipeline {
namespace {

LedgerEntry Entry(int64_t size, bool done = true) {
  LedgerEntry e;
  e.size = size;
  e.mtime_ms = 1000 + size;
  e.consumed = size;
  e.done = done;
  return e;
}

TEST(FileLedgerTest, RecordsLoadBackAndLaterDeltasWin) {
  io::MemoryFileSystem fs;
  const std::string dir = LedgerFolder("t", "f");
  EXPECT_EQ(dir, "t/_cdclake/ledger/f");
  FileLedger ledger(dir);
  auto first = ledger.Record(fs, {{"/land/a.csv", Entry(10)}, {"/land/b\tc%\n.csv", Entry(5)}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->files.size(), 1u);  // the first write is a base
  LedgerEntry grown = Entry(20);
  grown.unterminated_last = sources::RecordSpan{15, 20};
  auto second = ledger.Record(fs, {{"/land/a.csv", grown}});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->files.size(), 2u);  // then small deltas

  auto loaded = FileLedger::Load(fs, dir, *second);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->size(), 2u);
  ASSERT_NE(loaded->Find("/land/a.csv"), nullptr);
  EXPECT_EQ(*loaded->Find("/land/a.csv"), grown);
  ASSERT_NE(loaded->Find("/land/b\tc%\n.csv"), nullptr);
  EXPECT_EQ(*loaded->Find("/land/b\tc%\n.csv"), Entry(5));
  EXPECT_EQ(loaded->Find("/land/x.csv"), nullptr);

  // The older ref still reads as it did: nothing was rewritten.
  auto old = FileLedger::Load(fs, dir, *first);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old->Find("/land/a.csv"), Entry(10));
  // A ref round-trips through JSON.
  auto ref = LedgerRef::FromJson(second->ToJson());
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->files, second->files);
}

// Digests (named files) round-trip; a file of the first version, without the column, still
// loads, its entries without digests; a line with a column missing is an error naming it.
TEST(FileLedgerTest, DigestsRoundTripAndFirstVersionFilesStillLoad) {
  io::MemoryFileSystem fs;
  const std::string dir = LedgerFolder("t", "f");
  ASSERT_TRUE(fs.PutIfAbsent(dir + "/g0-old.base.tsv",
                             "cdclake-file-ledger\t1\n/land/old.csv\t7\t1007\t7\t1\t-1\t-1\n")
                  .ok());
  auto old = FileLedger::Load(fs, dir, LedgerRef{{"g0-old.base.tsv"}});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  ASSERT_NE(old->Find("/land/old.csv"), nullptr);
  EXPECT_EQ(*old->Find("/land/old.csv"), Entry(7));

  LedgerEntry named = Entry(12);
  named.digest = "xxh3:000102030405060708090a0b0c0d0e0f";
  auto ref = old->Record(fs, {{"a.csv", named}});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  auto loaded = FileLedger::Load(fs, dir, *ref);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_NE(loaded->Find("a.csv"), nullptr);
  EXPECT_EQ(loaded->Find("a.csv")->digest, named.digest);
  EXPECT_EQ(*loaded->Find("/land/old.csv"), Entry(7));  // empty digest kept empty ("-")

  ASSERT_TRUE(fs.PutIfAbsent(dir + "/g0-bad.base.tsv",
                             "cdclake-file-ledger\t2\n/land/b.csv\t7\t1007\t7\t1\t-1\t-1\n")
                  .ok());
  auto bad = FileLedger::Load(fs, dir, LedgerRef{{"g0-bad.base.tsv"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("g0-bad.base.tsv: line 2 is not path, size, mtime, "
                                        "consumed, done, span start, span end, digest"),
            std::string::npos)
      << bad.status().ToString();
}

TEST(FileLedgerTest, CompactsIntoANewBaseNowAndThen) {
  io::MemoryFileSystem fs;
  FileLedger ledger("l");
  LedgerRef ref;
  size_t most = 0;
  for (int i = 0; i < 100; ++i) {
    auto r = ledger.Record(fs, {{"/f" + std::to_string(i), Entry(i)}});
    ASSERT_TRUE(r.ok());
    ref = *r;
    most = std::max(most, ref.files.size());
  }
  EXPECT_LE(most, 18u);  // a base and at most 17 deltas
  auto loaded = FileLedger::Load(fs, "l", ref);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 100u);
  for (int i = 0; i < 100; ++i) ASSERT_NE(loaded->Find("/f" + std::to_string(i)), nullptr);
}

TEST(FileLedgerTest, AMissingFileItNamesIsAnErrorThatSaysWhatToDo) {
  io::MemoryFileSystem fs;
  FileLedger ledger("l");
  auto ref = ledger.Record(fs, {{"/a", Entry(1)}});
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(fs.Delete("l/" + ref->files[0]).ok());
  auto loaded = FileLedger::Load(fs, "l", *ref);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("file ledger"), std::string::npos)
      << loaded.status().ToString();
}

// Resuming from a committed ref deletes the generations more than two bases older than it:
// the folder keeps about three copies however long the flow runs, recent refs load, older
// ones are gone. Recording never deletes (batches that commit nothing record refs too, and the
// committed position may be many bases behind them).
TEST(FileLedgerTest, ResumingDeletesGenerationsOlderThanTheCommittedRef) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.PutIfAbsent("l/0b0c-old.base.tsv", "cdclake-file-ledger\t1\n").ok());
  FileLedger ledger("l");
  std::vector<LedgerRef> refs;
  size_t bases = 0;
  for (int i = 0; i < 400; ++i) {
    auto r = ledger.Record(fs, {{"/f" + std::to_string(i), Entry(i)}});
    ASSERT_TRUE(r.ok());
    if (r->files.size() == 1) ++bases;
    refs.push_back(*r);
  }
  ASSERT_GE(bases, 5u);
  auto count_bases = [&]() {
    size_t n = 0;
    std::vector<io::FileInfo> listed = fs.List("l").value();
    for (const auto& f : listed) n += f.path.find(".base.") != std::string::npos;
    return n;
  };
  EXPECT_EQ(count_bases(), bases + 1);  // nothing deleted while recording
  // Committed far behind (batches that changed nothing): its generation and newer stay.
  const LedgerRef& committed = refs[refs.size() / 2];
  auto behind = FileLedger::Load(fs, "l", committed);
  ASSERT_TRUE(behind.ok());
  behind->DeleteOldGenerations(fs);
  ASSERT_TRUE(FileLedger::Load(fs, "l", committed).ok());
  ASSERT_TRUE(FileLedger::Load(fs, "l", refs.back()).ok());
  EXPECT_EQ(fs.Exists("l/0b0c-old.base.tsv").value(), false);  // from before generations
  // Committed at the newest: three bases left, recent refs load, the oldest is gone.
  auto loaded = FileLedger::Load(fs, "l", refs.back());
  ASSERT_TRUE(loaded.ok());
  loaded->DeleteOldGenerations(fs);
  EXPECT_EQ(count_bases(), 3u);
  EXPECT_LE(fs.List("l").value().size(), 3u * 18);
  for (size_t back = 0; back < 3; ++back) {
    auto recent = FileLedger::Load(fs, "l", refs[refs.size() - 1 - back]);
    ASSERT_TRUE(recent.ok()) << back << ": " << recent.status().ToString();
  }
  EXPECT_EQ(FileLedger::Load(fs, "l", refs[0]).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(FileLedger::Load(fs, "l", refs.back())->size(), 400u);
}

}  // namespace
}  // namespace cdclake::pipeline
