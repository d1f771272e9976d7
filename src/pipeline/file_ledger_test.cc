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

// However long a flow runs, the folder keeps the files of the last three bases: recent refs
// (a batch or two behind, a table restored a little) load, older ones were deleted.
TEST(FileLedgerTest, OldGenerationsAreDeletedWhenANewBaseIsWritten) {
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
  auto listed = fs.List("l");
  ASSERT_TRUE(listed.ok());
  std::set<std::string> base_files;
  for (const auto& f : *listed) {
    if (f.path.find(".base.") != std::string::npos) base_files.insert(f.path);
  }
  EXPECT_EQ(base_files.size(), 3u);
  EXPECT_LE(listed->size(), 3u * 18);
  EXPECT_EQ(fs.Exists("l/0b0c-old.base.tsv").value(), false);  // from before generations
  for (size_t back = 0; back < 3; ++back) {
    auto recent = FileLedger::Load(fs, "l", refs[refs.size() - 1 - back]);
    ASSERT_TRUE(recent.ok()) << back << ": " << recent.status().ToString();
  }
  EXPECT_EQ(FileLedger::Load(fs, "l", refs[0]).status().code(), StatusCode::kNotFound);
  auto loaded = FileLedger::Load(fs, "l", refs.back());
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 400u);
  // A loaded ledger goes on counting generations from its base's.
  FileLedger resumed = std::move(loaded).value();
  for (int i = 0; i < 400; ++i)
    ASSERT_TRUE(resumed.Record(fs, {{"/g" + std::to_string(i), Entry(i)}}).ok());
  listed = fs.List("l");
  ASSERT_TRUE(listed.ok());
  EXPECT_LE(listed->size(), 3u * 18);
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

}  // namespace
}  // namespace cdclake::pipeline
