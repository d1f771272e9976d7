// The FileSystem contract, run over LocalFileSystem and MemoryFileSystem alike: reads, writes,
// listing, renames, put-if-absent, invisible unfinished writes, and races between threads.
#include "io/file_system.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <optional>
#include <thread>
#include <vector>

#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake::io {
namespace {

#define ASSERT_OK(expr)                              \
  do {                                               \
    const ::cdclake::Status status_ = (expr);        \
    ASSERT_TRUE(status_.ok()) << status_.ToString(); \
  } while (false)

template <typename T>
T ValueOrDie(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

std::vector<std::string> Names(const std::vector<FileInfo>& entries, const std::string& dir) {
  std::vector<std::string> names;
  for (const FileInfo& e : entries) {
    EXPECT_EQ(e.path.substr(0, dir.size() + 1), dir + "/");
    names.push_back(e.path.substr(dir.size() + 1) + (e.is_directory ? "/" : ""));
  }
  return names;
}

enum class Kind { kLocal, kMemory };

std::string KindName(const testing::TestParamInfo<Kind>& info) {
  return info.param == Kind::kLocal ? "Local" : "Memory";
}

class FileSystemTest : public testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Kind::kLocal) {
      scratch_.emplace(ValueOrDie(ScratchDir::Create("cdclake-io-test-")));
      fs_ = std::make_unique<LocalFileSystem>();
      root_ = scratch_->path();
    } else {
      fs_ = std::make_unique<MemoryFileSystem>();
      root_ = "/mem/root";
      ASSERT_OK(fs_->CreateDirs(root_));
    }
  }

  std::string Path(std::string_view name) const { return JoinPath(root_, name); }

  std::optional<ScratchDir> scratch_;
  std::unique_ptr<FileSystem> fs_;
  std::string root_;
};

TEST_P(FileSystemTest, WritesAndReadsWholeFiles) {
  const std::string path = Path("a/b/c.txt");
  ASSERT_OK(fs_->WriteFile(path, "hello"));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)), "hello");
  EXPECT_TRUE(ValueOrDie(fs_->Exists(path)));

  FileInfo info = ValueOrDie(fs_->Stat(path));
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.size, 5u);
  EXPECT_FALSE(info.is_directory);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  EXPECT_LT(std::abs(info.modification_time_ms - now_ms), 60 * 60 * 1000);

  ASSERT_OK(fs_->WriteFile(path, "replaced"));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)), "replaced");

  ASSERT_OK(fs_->WriteFile(Path("empty"), ""));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("empty"))), "");
  EXPECT_EQ(ValueOrDie(fs_->Stat(Path("empty"))).size, 0u);
}

TEST_P(FileSystemTest, ReadsAtOffsets) {
  const std::string path = Path("f.bin");
  ASSERT_OK(fs_->WriteFile(path, "0123456789"));
  auto file = ValueOrDie(fs_->OpenRead(path));
  EXPECT_EQ(file->path(), path);
  EXPECT_EQ(ValueOrDie(file->Size()), 10u);
  std::string out = "junk";
  ASSERT_OK(file->ReadAt(2, 3, &out));
  EXPECT_EQ(out, "234");
  ASSERT_OK(file->ReadAt(0, 10, &out));
  EXPECT_EQ(out, "0123456789");
  ASSERT_OK(file->ReadAt(10, 0, &out));
  EXPECT_EQ(out, "");
}

TEST_P(FileSystemTest, ReadPastEndIsCorruptAndNamesThePath) {
  const std::string path = Path("short.bin");
  ASSERT_OK(fs_->WriteFile(path, "12345"));
  auto file = ValueOrDie(fs_->OpenRead(path));
  std::string out;
  for (auto [offset, length] : std::vector<std::pair<uint64_t, uint64_t>>{
           {3, 5}, {0, 6}, {6, 0}, {~uint64_t{0}, 2}, {2, ~uint64_t{0}}}) {
    Status status = file->ReadAt(offset, length, &out);
    EXPECT_EQ(status.code(), StatusCode::kCorrupt) << status.ToString();
    EXPECT_NE(status.message().find("read past end of " + path), std::string::npos)
        << status.message();
  }
  Status status = file->ReadAt(3, 5, &out);
  EXPECT_NE(status.message().find("wanted 5 bytes at offset 3, file has 5"), std::string::npos)
      << status.message();
}

TEST_P(FileSystemTest, MissingFilesAreNotFound) {
  const std::string path = Path("nope.txt");
  EXPECT_EQ(fs_->OpenRead(path).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs_->ReadFile(path).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs_->Stat(path).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ValueOrDie(fs_->Exists(path)));
  EXPECT_EQ(fs_->List(Path("no-folder")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs_->Rename(path, Path("other")).code(), StatusCode::kNotFound);
  ASSERT_OK(fs_->Delete(path));
  ASSERT_OK(fs_->Delete(Path("no-folder/nope.txt")));

  // A file on the way is not a folder.
  ASSERT_OK(fs_->WriteFile(Path("file"), "x"));
  EXPECT_EQ(fs_->OpenRead(Path("file/inner")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs_->Stat(Path("file/inner")).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ValueOrDie(fs_->Exists(Path("file/inner"))));
  EXPECT_EQ(fs_->List(Path("file")).status().code(), StatusCode::kNotFound);
}

TEST_P(FileSystemTest, ListsEntriesSortedByName) {
  for (const char* name : {"b", "a", "00000000000000000010.json", "00000000000000000002.json",
                           "c/d", "c/e/f", "_delta_log/x"}) {
    ASSERT_OK(fs_->WriteFile(Path(name), name));
  }
  ASSERT_OK(fs_->CreateDirs(Path("empty")));
  ASSERT_OK(fs_->CreateDirs(Path("empty")));  // idempotent

  std::vector<FileInfo> entries = ValueOrDie(fs_->List(root_));
  EXPECT_EQ(Names(entries, root_),
            (std::vector<std::string>{"00000000000000000002.json", "00000000000000000010.json",
                                      "_delta_log/", "a", "b", "c/", "empty/"}));
  EXPECT_EQ(entries[0].size, 25u);
  EXPECT_EQ(entries[3].size, 1u);

  EXPECT_EQ(Names(ValueOrDie(fs_->List(Path("c"))), Path("c")),
            (std::vector<std::string>{"d", "e/"}));
  EXPECT_TRUE(ValueOrDie(fs_->List(Path("empty"))).empty());
  // A trailing slash names the same folder.
  EXPECT_EQ(ValueOrDie(fs_->List(root_ + "/")).size(), entries.size());

  FileInfo folder = ValueOrDie(fs_->Stat(Path("c/e")));
  EXPECT_TRUE(folder.is_directory);
  EXPECT_TRUE(ValueOrDie(fs_->Exists(Path("c/e"))));
}

TEST_P(FileSystemTest, CreateDirsNests) {
  ASSERT_OK(fs_->CreateDirs(Path("x/y/z")));
  EXPECT_TRUE(ValueOrDie(fs_->Stat(Path("x/y/z"))).is_directory);
  EXPECT_EQ(Names(ValueOrDie(fs_->List(Path("x"))), Path("x")), std::vector<std::string>{"y/"});
  ASSERT_OK(fs_->WriteFile(Path("file"), "x"));
  EXPECT_FALSE(fs_->CreateDirs(Path("file")).ok());
  EXPECT_FALSE(fs_->CreateDirs(Path("file/sub")).ok());
  EXPECT_FALSE(fs_->WriteFile(Path("file/sub"), "y").ok());
  EXPECT_FALSE(fs_->WriteFile(Path("x/y"), "a folder is there").ok());
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("file"))), "x");
}

TEST_P(FileSystemTest, DeleteRemovesFilesButKeepsTheFolder) {
  ASSERT_OK(fs_->WriteFile(Path("d/f"), "data"));
  ASSERT_OK(fs_->Delete(Path("d/f")));
  EXPECT_FALSE(ValueOrDie(fs_->Exists(Path("d/f"))));
  EXPECT_TRUE(ValueOrDie(fs_->List(Path("d"))).empty());
  ASSERT_OK(fs_->Delete(Path("d/f")));  // again: ok
  EXPECT_FALSE(fs_->Delete(Path("d")).ok()) << "folders are not deleted";
}

TEST_P(FileSystemTest, RenameMovesAndReplaces) {
  ASSERT_OK(fs_->WriteFile(Path("from"), "new"));
  ASSERT_OK(fs_->WriteFile(Path("to"), "old"));
  ASSERT_OK(fs_->Rename(Path("from"), Path("to")));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("to"))), "new");
  EXPECT_FALSE(ValueOrDie(fs_->Exists(Path("from"))));

  ASSERT_OK(fs_->Rename(Path("to"), Path("new/folder/moved")));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("new/folder/moved"))), "new");
  EXPECT_EQ(Names(ValueOrDie(fs_->List(root_)), root_), std::vector<std::string>{"new/"});
}

TEST_P(FileSystemTest, PutIfAbsentCreatesOnlyOnce) {
  const std::string path = Path("_delta_log/00000000000000000000.json");
  ASSERT_OK(fs_->PutIfAbsent(path, "first"));
  Status again = fs_->PutIfAbsent(path, "second");
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.ToString();
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)), "first");
  EXPECT_EQ(Names(ValueOrDie(fs_->List(Path("_delta_log"))), Path("_delta_log")),
            std::vector<std::string>{"00000000000000000000.json"});

  ASSERT_OK(fs_->WriteFile(Path("plain"), "x"));
  EXPECT_EQ(fs_->PutIfAbsent(Path("plain"), "y").code(), StatusCode::kAlreadyExists);
  ASSERT_OK(fs_->PutIfAbsent(Path("empty"), ""));
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("empty"))), "");
}

TEST_P(FileSystemTest, StreamsPublishOnlyOnClose) {
  const std::string path = Path("out/stream.bin");
  auto stream = ValueOrDie(fs_->OpenWrite(path));
  EXPECT_EQ(stream->path(), path);
  std::string expected;
  for (int i = 0; i < 20000; ++i) {  // many small appends
    std::string piece = std::to_string(i) + ",";
    ASSERT_OK(stream->Append(piece));
    expected += piece;
  }
  std::string big(3 << 20, 'z');  // one append larger than any buffer
  ASSERT_OK(stream->Append(big));
  expected += big;
  ASSERT_OK(stream->Append(""));
  ASSERT_OK(stream->Append("tail"));
  expected += "tail";
  EXPECT_EQ(stream->BytesWritten(), expected.size());
  EXPECT_FALSE(ValueOrDie(fs_->Exists(path)));

  ASSERT_OK(stream->Close());
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)), expected);
  EXPECT_FALSE(stream->Append("more").ok());
  EXPECT_FALSE(stream->Close().ok());
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)), expected);
  EXPECT_EQ(Names(ValueOrDie(fs_->List(Path("out"))), Path("out")),
            std::vector<std::string>{"stream.bin"});
}

TEST_P(FileSystemTest, UnclosedStreamsLeaveNothing) {
  {
    auto stream = ValueOrDie(fs_->OpenWrite(Path("lost.bin")));
    ASSERT_OK(stream->Append(std::string(2 << 20, 'x')));  // past the buffer: bytes on disk
  }
  EXPECT_FALSE(ValueOrDie(fs_->Exists(Path("lost.bin"))));
  EXPECT_TRUE(ValueOrDie(fs_->List(root_)).empty());

  ASSERT_OK(fs_->WriteFile(Path("kept.bin"), "old"));
  {
    auto stream = ValueOrDie(fs_->OpenWrite(Path("kept.bin")));
    ASSERT_OK(stream->Append("new"));
  }
  EXPECT_EQ(ValueOrDie(fs_->ReadFile(Path("kept.bin"))), "old");
  EXPECT_EQ(Names(ValueOrDie(fs_->List(root_)), root_), std::vector<std::string>{"kept.bin"});
}

TEST_P(FileSystemTest, OpenFilesKeepReadingAfterReplace) {
  ASSERT_OK(fs_->WriteFile(Path("f"), "version one"));
  auto file = ValueOrDie(fs_->OpenRead(Path("f")));
  ASSERT_OK(fs_->WriteFile(Path("f"), "v2"));
  std::string out;
  ASSERT_OK(file->ReadAt(0, 11, &out));
  EXPECT_EQ(out, "version one");
  ASSERT_OK(fs_->Delete(Path("f")));
  ASSERT_OK(file->ReadAt(8, 3, &out));
  EXPECT_EQ(out, "one");
}

TEST_P(FileSystemTest, ExactlyOneThreadWinsPutIfAbsent) {
  constexpr int kThreads = 12;
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = Path("_delta_log/" + std::to_string(round) + ".json");
    std::latch start(kThreads);
    std::atomic<int> winners{0};
    std::atomic<int> losers{0};
    std::atomic<int> winner{-1};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string data(1000 + t, static_cast<char>('a' + t));
        start.arrive_and_wait();
        Status status = fs_->PutIfAbsent(path, data);
        if (status.ok()) {
          ++winners;
          winner = t;
        } else if (status.code() == StatusCode::kAlreadyExists) {
          ++losers;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(winners.load(), 1) << "round " << round;
    ASSERT_EQ(losers.load(), kThreads - 1) << "round " << round;
    EXPECT_EQ(ValueOrDie(fs_->ReadFile(path)),
              std::string(1000 + winner, static_cast<char>('a' + winner)));
  }
  EXPECT_EQ(ValueOrDie(fs_->List(Path("_delta_log"))).size(), static_cast<size_t>(kRounds));
}

TEST_P(FileSystemTest, ReadersNeverSeePartialReplacements) {
  const std::string path = Path("current");
  auto version = [](int v) {
    return std::string(100 + 997 * (v % 7), static_cast<char>('A' + v % 26));
  };
  ASSERT_OK(fs_->WriteFile(path, version(0)));
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!done) {
        Result<std::string> data = fs_->ReadFile(path);
        if (!data.ok() || data->empty()) {
          ++bad;
          continue;
        }
        char c = data->front();
        int v = c - 'A';
        bool whole = data->find_first_not_of(c) == std::string::npos;
        bool length_fits = false;
        for (int k = v; k < 200; k += 26) length_fits |= data->size() == version(k).size();
        if (!whole || !length_fits) ++bad;
      }
    });
  }
  for (int v = 1; v < 150; ++v) ASSERT_OK(fs_->WriteFile(path, version(v)));
  done = true;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_P(FileSystemTest, ConcurrentReadAtOnOneFile) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data.push_back(static_cast<char>(i * 7));
  ASSERT_OK(fs_->WriteFile(Path("shared"), data));
  auto file = ValueOrDie(fs_->OpenRead(Path("shared")));
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string out;
      for (uint64_t offset = t; offset + 1000 <= data.size(); offset += 997) {
        if (!file->ReadAt(offset, 1000, &out).ok() || out != data.substr(offset, 1000)) ++bad;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(BothFileSystems, FileSystemTest,
                         testing::Values(Kind::kLocal, Kind::kMemory), KindName);

TEST(JoinPathTest, JoinsWithOneSeparator) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(JoinPath("a//", "/b"), "a/b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("a", ""), "a");
  EXPECT_EQ(JoinPath("/tmp/t", "_delta_log/0.json"), "/tmp/t/_delta_log/0.json");
  EXPECT_EQ(JoinPath("s3://bucket", "key"), "s3://bucket/key");
}

}  // namespace
}  // namespace cdclake::io
