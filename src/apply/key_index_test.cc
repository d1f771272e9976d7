// Tests for KeyIndex: the same behaviour from the memory map and from RocksDB (typed tests), then
// what only RocksDB has: persistence across reopen, Destroy, errors for unusable paths.
#include "apply/key_index.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "io/scratch_dir.h"

namespace cdclake::apply {
namespace {

struct MemoryBackend {
  Result<std::unique_ptr<KeyIndex>> Open() { return NewMemoryKeyIndex(); }
};

// RocksDB with a map budget: within it (the default), mapped and uncompressed; 0, never mapped:
// blocks read into the block cache, files compressed.
template <int64_t kMapBudget>
struct RocksBackendWithBudget {
  std::optional<io::ScratchDir> dir;
  Result<std::unique_ptr<KeyIndex>> Open() {
    if (!dir) {
      auto made = io::ScratchDir::Create("cdclake-keyindex-");
      if (!made.ok()) return made.status();
      dir.emplace(std::move(made).value());
    }
    return OpenRocksKeyIndex(dir->path() + "/index", 8 << 20, /*write_ahead_log=*/true, kMapBudget);
  }
};
using RocksBackend = RocksBackendWithBudget<kIndexMapBudgetBytes>;
using RocksBlockCacheBackend = RocksBackendWithBudget<0>;

template <typename Backend>
class KeyIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = backend_.Open();
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    index_ = std::move(opened).value();
  }

  void Put(const std::string& key, const std::string& value) {
    IndexWriteBatch b;
    b.puts.emplace_back(key, value);
    Status s = index_->Write(b);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::optional<std::string> Get(std::string_view key) {
    auto got = index_->Get(key);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::nullopt;
  }

  // Every (key, value) under `prefix`, in the order Scan gives them; at most `limit`.
  std::vector<std::pair<std::string, std::string>> ScanAll(std::string_view prefix,
                                                           size_t limit = SIZE_MAX) {
    std::vector<std::pair<std::string, std::string>> seen;
    Status s = index_->Scan(prefix, [&](std::string_view k, std::string_view v) {
      seen.emplace_back(std::string(k), std::string(v));
      return seen.size() < limit;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return seen;
  }

  Backend backend_;
  std::unique_ptr<KeyIndex> index_;
};

using Backends = ::testing::Types<MemoryBackend, RocksBackend, RocksBlockCacheBackend>;
TYPED_TEST_SUITE(KeyIndexTest, Backends);

using Entries = std::vector<std::pair<std::string, std::string>>;

TYPED_TEST(KeyIndexTest, GetPutOverwriteDelete) {
  EXPECT_EQ(this->Get("k1"), std::nullopt);
  this->Put("k1", "v1");
  this->Put("k2", "v2");
  EXPECT_EQ(this->Get("k1"), "v1");
  EXPECT_EQ(this->Get("k2"), "v2");
  this->Put("k1", "v1b");
  EXPECT_EQ(this->Get("k1"), "v1b");

  IndexWriteBatch del;
  del.deletes = {"k1", "never-there"};
  ASSERT_TRUE(this->index_->Write(del).ok());
  EXPECT_EQ(this->Get("k1"), std::nullopt);
  EXPECT_EQ(this->Get("k2"), "v2");
  // A key that is a prefix of a stored key is a different key.
  EXPECT_EQ(this->Get("k"), std::nullopt);
}

TYPED_TEST(KeyIndexTest, BatchAppliesEveryPutAndDeleteTogether) {
  this->Put("old1", "x");
  this->Put("old2", "y");
  IndexWriteBatch b;
  for (int i = 0; i < 500; ++i) b.puts.emplace_back("new" + std::to_string(i), std::to_string(i));
  b.puts.emplace_back("old2", "y2");
  b.deletes = {"old1"};
  ASSERT_FALSE(b.empty());
  ASSERT_TRUE(this->index_->Write(b).ok());
  EXPECT_EQ(this->Get("old1"), std::nullopt);
  EXPECT_EQ(this->Get("old2"), "y2");
  EXPECT_EQ(this->Get("new0"), "0");
  EXPECT_EQ(this->Get("new499"), "499");
  EXPECT_EQ(this->ScanAll("new").size(), 500u);

  // Puts go first, then deletes: a key in both ends up absent.
  IndexWriteBatch both;
  both.puts.emplace_back("twice", "v");
  both.deletes = {"twice"};
  ASSERT_TRUE(this->index_->Write(both).ok());
  EXPECT_EQ(this->Get("twice"), std::nullopt);

  // The last put of a key in a batch wins.
  IndexWriteBatch repeated;
  repeated.puts = {{"r", "1"}, {"r", "2"}};
  ASSERT_TRUE(this->index_->Write(repeated).ok());
  EXPECT_EQ(this->Get("r"), "2");

  EXPECT_TRUE(this->index_->Write(IndexWriteBatch{}).ok());
  EXPECT_EQ(this->Get("old2"), "y2");
}

TYPED_TEST(KeyIndexTest, ScanVisitsPrefixInKeyOrderAndStopsEarly) {
  for (const char* k : {"b/1", "a/3", "a", "a/1", "ab", "a/2", "a0"})
    this->Put(k, std::string("v") + k);
  EXPECT_EQ(this->ScanAll("a/"), (Entries{{"a/1", "va/1"}, {"a/2", "va/2"}, {"a/3", "va/3"}}));
  EXPECT_EQ(this->ScanAll("a/", 2), (Entries{{"a/1", "va/1"}, {"a/2", "va/2"}}));
  EXPECT_EQ(this->ScanAll("a/", 1), (Entries{{"a/1", "va/1"}}));
  EXPECT_TRUE(this->ScanAll("c").empty());
  EXPECT_TRUE(this->ScanAll("a/4").empty());

  std::vector<std::string> all;
  for (const auto& [k, v] : this->ScanAll("")) all.push_back(k);
  EXPECT_EQ(all, (std::vector<std::string>{"a", "a/1", "a/2", "a/3", "a0", "ab", "b/1"}));
}

TYPED_TEST(KeyIndexTest, ScanPrefixOfHighBytes) {
  // Prefixes ending in 0xff have no simple upper bound; keys are compared as unsigned bytes.
  this->Put(std::string("\xff\xff", 2), "exact");
  this->Put(std::string("\xff\xff\x00", 3), "zero");
  this->Put(std::string("\xff\xff\xff", 3), "high");
  this->Put(std::string("\xff\xfe", 2), "lower");
  this->Put("\x7f", "ascii");
  auto seen = this->ScanAll(std::string("\xff\xff", 2));
  EXPECT_EQ(seen, (Entries{{std::string("\xff\xff", 2), "exact"},
                           {std::string("\xff\xff\x00", 3), "zero"},
                           {std::string("\xff\xff\xff", 3), "high"}}));
  EXPECT_EQ(this->ScanAll("\xff").size(), 4u);
  EXPECT_EQ(this->ScanAll("").front().second, "ascii");
}

TYPED_TEST(KeyIndexTest, BinaryKeysAndValuesWithZeroBytes) {
  const std::string a0b("a\0b", 3), a0c("a\0c", 3), a0("a\0", 2);
  const std::string value("\0\1\0\2", 4);
  this->Put(a0b, value);
  this->Put(a0c, std::string("\0", 1));
  this->Put("a", "plain");
  this->Put("", "empty key");
  EXPECT_EQ(this->Get(a0b), value);
  EXPECT_EQ(this->Get(a0c), std::string("\0", 1));
  EXPECT_EQ(this->Get("a"), "plain");
  EXPECT_EQ(this->Get(""), "empty key");
  EXPECT_EQ(this->Get(a0), std::nullopt);
  EXPECT_EQ(this->ScanAll(a0), (Entries{{a0b, value}, {a0c, std::string("\0", 1)}}));
  EXPECT_EQ(this->ScanAll("").size(), 4u);
}

TYPED_TEST(KeyIndexTest, MultiGetMatchesGetInOrder) {
  IndexWriteBatch b;
  for (int i = 0; i < 3000; i += 2) {
    b.puts.emplace_back("key" + std::to_string(i), "value" + std::to_string(i));
  }
  ASSERT_TRUE(this->index_->Write(b).ok());
  // More keys than one RocksDB call takes, unsorted, with misses and repeats.
  std::vector<std::string> keys;
  for (int i = 2999; i >= 0; --i) keys.push_back("key" + std::to_string(i));
  keys.push_back("key10");
  keys.push_back(std::string("key\0", 4));
  std::vector<std::optional<std::string>> out(7, "stale");
  ASSERT_TRUE(this->index_->MultiGet(keys, &out).ok());
  ASSERT_EQ(out.size(), keys.size());
  for (int i = 0; i < 3000; ++i) {
    const std::optional<std::string>& got = out[2999 - i];
    if (i % 2 == 0) {
      EXPECT_EQ(got, "value" + std::to_string(i)) << i;
    } else {
      EXPECT_EQ(got, std::nullopt) << i;
    }
  }
  EXPECT_EQ(out[3000], "value10");
  EXPECT_EQ(out[3001], std::nullopt);

  std::vector<std::optional<std::string>> none(3, "stale");
  ASSERT_TRUE(this->index_->MultiGet({}, &none).ok());
  EXPECT_TRUE(none.empty());
}

TYPED_TEST(KeyIndexTest, ScanVisitorMayWrite) {
  for (int i = 0; i < 5; ++i) this->Put("p" + std::to_string(i), "v");
  this->Put("q", "v");
  std::vector<std::string> seen;
  Status s = this->index_->Scan("p", [&](std::string_view k, std::string_view) {
    seen.emplace_back(k);
    IndexWriteBatch del;
    del.deletes.emplace_back(k);
    return this->index_->Write(del).ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  EXPECT_TRUE(this->ScanAll("p").empty());
  EXPECT_EQ(this->Get("q"), "v");
}

// RocksDB only.

class RocksKeyIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = io::ScratchDir::Create("cdclake-keyindex-");
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    dir_.emplace(std::move(made).value());
    path_ = dir_->path() + "/index";
  }

  std::unique_ptr<KeyIndex> MustOpen() {
    auto opened = OpenRocksKeyIndex(path_, 4 << 20);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  static bool Exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  std::optional<io::ScratchDir> dir_;
  std::string path_;
};

TEST_F(RocksKeyIndexTest, DataSurvivesReopen) {
  {
    auto index = MustOpen();
    ASSERT_NE(index, nullptr);
    IndexWriteBatch b;
    for (int i = 0; i < 1000; ++i) b.puts.emplace_back("k" + std::to_string(i), std::to_string(i));
    ASSERT_TRUE(index->Write(b).ok());
    IndexWriteBatch del;
    del.deletes = {"k7"};
    ASSERT_TRUE(index->Write(del).ok());
  }
  EXPECT_TRUE(Exists(path_ + "/CURRENT"));
  auto index = MustOpen();
  ASSERT_NE(index, nullptr);
  auto got = index->Get("k999");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "999");
  auto gone = index->Get("k7");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, std::nullopt);
  size_t n = 0;
  ASSERT_TRUE(index->Scan("k", [&](std::string_view, std::string_view) { return ++n > 0; }).ok());
  EXPECT_EQ(n, 999u);
}

// A write of 200,000 entries or more (or the first write of an opened index from 16,384) goes
// in as an ingested table file when the index runs without RocksDB's log (the engine's case):
// the same result as the memory index's, whatever mix of new keys, overwrites, repeated puts
// and deletes it holds, a later write through the memtable over it included, and it survives a
// reopen; a first write of 20,000 entries into a reopened index is ingested over both.
TEST_F(RocksKeyIndexTest, LargeWriteIngestedEqualsTheMemoryIndex) {
  auto memory = NewMemoryKeyIndex();
  auto all = [](KeyIndex& index) {
    std::map<std::string, std::string> seen;
    Status s = index.Scan("", [&](std::string_view k, std::string_view v) {
      seen.emplace(std::string(k), std::string(v));
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return seen;
  };
  std::map<std::string, std::string> expected;
  {
    auto opened = OpenRocksKeyIndex(path_, 4 << 20, /*write_ahead_log=*/false);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto rocks = std::move(opened).value();
    IndexWriteBatch before;  // small: through the memtable
    for (int i = 0; i < 5000; ++i) before.puts.emplace_back("k" + std::to_string(i), "old");
    ASSERT_TRUE(rocks->Write(before).ok());
    ASSERT_TRUE(memory->Write(before).ok());
    IndexWriteBatch large;
    for (int i = 250000; i > 0; --i) {  // reverse order: the write sorts
      large.puts.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
    }
    large.puts.emplace_back("k17", "repeated");  // a later put of a key wins
    large.puts.emplace_back("k250001", "put then deleted");
    large.deletes = {"k3", "k250001", "k3", "never-there", "k0"};
    ASSERT_GE(large.puts.size() + large.deletes.size(), 200000u);
    Status s = rocks->Write(large);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(memory->Write(large).ok());
    IndexWriteBatch again;  // through the memtable over the ingested file (not the first write)
    for (int i = 0; i < 20000; ++i) again.puts.emplace_back("k" + std::to_string(i * 7), "again");
    again.puts.emplace_back("k900000", "new");
    again.deletes = {"k21"};
    ASSERT_GE(again.puts.size() + again.deletes.size(), 16384u);
    ASSERT_TRUE(rocks->Write(again).ok());
    ASSERT_TRUE(memory->Write(again).ok());
    expected = all(*memory);
    EXPECT_EQ(expected.at("k14"), "again");
    EXPECT_EQ(expected.at("k900000"), "new");
    EXPECT_EQ(expected.count("k21"), 0u);
    EXPECT_EQ(expected.count("k3"), 0u);
    EXPECT_EQ(expected.count("k250001"), 0u);
    EXPECT_EQ(expected.at("k17"), "repeated");
    // k1..k250000 without k3 and k21, k0 put again (it is a multiple of 7), k900000 new
    EXPECT_EQ(expected.size(), 250000u - 2 + 2);
    EXPECT_EQ(all(*rocks), expected);
    EXPECT_FALSE(Exists(path_ + "/cdclake-ingest.sst"));
  }
  auto reopened = OpenRocksKeyIndex(path_, 4 << 20, /*write_ahead_log=*/false);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(all(**reopened), expected);
  IndexWriteBatch first;  // the reopened index's first write: ingested over both
  for (int i = 0; i < 20000; ++i) first.puts.emplace_back("k" + std::to_string(i * 11), "first");
  first.deletes = {"k22", "k14"};
  ASSERT_TRUE((*reopened)->Write(first).ok());
  ASSERT_TRUE(memory->Write(first).ok());
  expected = all(*memory);
  EXPECT_EQ(expected.at("k11"), "first");
  EXPECT_EQ(expected.count("k14"), 0u);
  EXPECT_EQ(all(**reopened), expected);
  EXPECT_FALSE(Exists(path_ + "/cdclake-ingest.sst"));
}

// The map budget (docs/apply.md, "The key index and its durable form"): an index within it
// writes uncompressed table files, one past it compressed ones, and either kind of file reads
// back the same through the memory map and through the block cache.
TEST_F(RocksKeyIndexTest, MapBudgetChoosesCompressionAndBothReadPathsAgree) {
  IndexWriteBatch load;  // ingested: more than 200,000 entries
  for (int i = 0; i < 210000; ++i) {
    load.puts.emplace_back("k" + std::to_string(i), "state-of-key-" + std::to_string(i % 1000));
  }
  auto table_bytes = [](const std::string& folder) {
    int64_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".sst") bytes += static_cast<int64_t>(entry.file_size());
    }
    return bytes;
  };
  const std::string small = path_ + "-small";  // within the budget
  const std::string large = path_ + "-large";  // past it
  for (const auto& [folder, budget] : {std::pair{small, kIndexMapBudgetBytes}, {large, 0}}) {
    auto opened = OpenRocksKeyIndex(folder, 4 << 20, /*write_ahead_log=*/false, budget);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    ASSERT_TRUE((*opened)->Write(load).ok());
  }
  const int64_t plain = table_bytes(small);
  const int64_t compressed = table_bytes(large);
  EXPECT_GT(plain, compressed * 3 / 2) << plain << " against " << compressed;

  std::vector<std::string> keys;
  std::vector<std::optional<std::string>> expected;
  for (int i = -5; i < 210005; i += 7) {
    keys.push_back("k" + std::to_string(i));
    expected.push_back(i >= 0 && i < 210000
                           ? std::optional<std::string>("state-of-key-" + std::to_string(i % 1000))
                           : std::nullopt);
  }
  // The budget counts entries uncompressed: a compressed index within a budget by its size on
  // disk but not by its entries still writes compressed files (its flush, here), where one
  // within the budget writes them plain.
  int64_t growth[2];
  for (int i = 0; i < 2; ++i) {
    const std::string folder = path_ + "-copy" + std::to_string(i);
    std::filesystem::copy(large, folder);
    const int64_t budget = i == 0 ? compressed + compressed / 4 : kIndexMapBudgetBytes;
    {
      auto opened = OpenRocksKeyIndex(folder, 4 << 20, /*write_ahead_log=*/false, budget);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      IndexWriteBatch some;  // fewer than an ingest takes: flushed at close
      for (int k = 0; k < 10000; ++k) {
        some.puts.emplace_back("n" + std::to_string(k), "state-of-key-" + std::to_string(k % 100));
      }
      ASSERT_TRUE((*opened)->Write(some).ok());
    }
    growth[i] = table_bytes(folder) - compressed;
  }
  EXPECT_LT(growth[0] * 5, growth[1] * 4) << growth[0] << " against " << growth[1];

  // An index that outgrows the budget while open writes compressed files from then on: a load
  // the budget just holds, then writes through the memtable past it, flushed at close.
  auto load_then_more = [&](const std::string& folder, int64_t budget) {
    auto opened = OpenRocksKeyIndex(folder, 4 << 20, /*write_ahead_log=*/false, budget);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok()) return int64_t{0};
    EXPECT_TRUE((*opened)->Write(load).ok());  // ingested, plain in both
    for (int round = 0; round < 6; ++round) {
      IndexWriteBatch more;  // through the memtable
      for (int k = 0; k < 15000; ++k) {
        more.puts.emplace_back("m" + std::to_string(round) + "-" + std::to_string(k),
                               "state-of-key-" + std::to_string(k % 1000));
      }
      EXPECT_TRUE((*opened)->Write(more).ok());
    }
    opened->reset();  // flushed at close
    return table_bytes(folder) - plain;
  };
  const int64_t more_plain = load_then_more(path_ + "-plain-more", kIndexMapBudgetBytes);
  const int64_t more_grown = load_then_more(path_ + "-grown-more", plain + plain / 4);
  EXPECT_LT(more_grown * 10, more_plain * 8) << more_grown << " against " << more_plain;

  // Each folder read both ways, then written through the memtable and read again.
  for (const std::string& folder : {small, large}) {
    for (int64_t budget : {kIndexMapBudgetBytes, int64_t{0}}) {
      auto opened = OpenRocksKeyIndex(folder, 4 << 20, /*write_ahead_log=*/false, budget);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      std::vector<std::optional<std::string>> got;
      ASSERT_TRUE((*opened)->MultiGet(keys, &got).ok());
      EXPECT_EQ(got, expected) << folder << " with budget " << budget;
      IndexWriteBatch more;
      more.puts.emplace_back("k7", budget == 0 ? "by the block cache" : "by the map");
      ASSERT_TRUE((*opened)->Write(more).ok());
      auto seven = (*opened)->Get("k7");
      ASSERT_TRUE(seven.ok());
      EXPECT_EQ(**seven, budget == 0 ? "by the block cache" : "by the map");
      more.puts[0].second = "state-of-key-7";
      ASSERT_TRUE((*opened)->Write(more).ok());
    }
  }
}

TEST_F(RocksKeyIndexTest, DestroyRemovesTheDatabase) {
  {
    auto index = MustOpen();
    ASSERT_NE(index, nullptr);
    IndexWriteBatch b;
    b.puts.emplace_back("k", "v");
    ASSERT_TRUE(index->Write(b).ok());
    // Not while it is open: the database's lock is held.
    Status busy = DestroyRocksKeyIndex(path_);
    EXPECT_FALSE(busy.ok());
    EXPECT_NE(busy.message().find(path_), std::string::npos) << busy.ToString();
  }
  Status s = DestroyRocksKeyIndex(path_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(Exists(path_));
  auto index = MustOpen();
  ASSERT_NE(index, nullptr);
  auto got = index->Get("k");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::nullopt);
}

TEST_F(RocksKeyIndexTest, DestroyOfAMissingFolderIsOk) {
  EXPECT_TRUE(DestroyRocksKeyIndex(dir_->path() + "/never-created").ok());
  EXPECT_EQ(DestroyRocksKeyIndex("").code(), StatusCode::kInvalidArgument);
}

TEST_F(RocksKeyIndexTest, UnusablePathsAreErrors) {
  // A regular file where a folder on the path should be.
  const std::string file = dir_->path() + "/plain-file";
  std::ofstream(file) << "not a folder";
  const std::string bad = file + "/index";
  auto opened = OpenRocksKeyIndex(bad);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kIoError) << opened.status().ToString();
  EXPECT_NE(opened.status().message().find(bad), std::string::npos) << opened.status().ToString();

  EXPECT_EQ(OpenRocksKeyIndex("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenRocksKeyIndex(path_, 0).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(RocksKeyIndexTest, SecondOpenOfTheSameFolderFails) {
  auto first = MustOpen();
  ASSERT_NE(first, nullptr);
  auto second = OpenRocksKeyIndex(path_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(path_), std::string::npos);
}

TEST_F(RocksKeyIndexTest, InfoLogStaysQuiet) {
  {
    auto index = MustOpen();
    ASSERT_NE(index, nullptr);
    for (int i = 0; i < 20; ++i) {
      IndexWriteBatch b;
      b.puts.emplace_back("k" + std::to_string(i), "v");
      ASSERT_TRUE(index->Write(b).ok());
    }
  }
  ASSERT_NE(MustOpen(), nullptr);
  // At the default (info) level one open alone writes tens of kilobytes of option dumps.
  struct stat st;
  ASSERT_EQ(::stat((path_ + "/LOG").c_str(), &st), 0);
  EXPECT_LT(st.st_size, 4096);
  EXPECT_FALSE(Exists(path_ + "/LOG.old"));
}

}  // namespace
}  // namespace cdclake::apply
