// MemoryFileSystem beyond the shared contract: injected failures (crash points), the hook that
// stages commit races, the clock, and path normalization.
#include "io/memory_file_system.h"

#include "io/canonical_path.h"

#include <gtest/gtest.h>

#include <vector>

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

bool IsInjected(const Status& status) {
  return status.code() == StatusCode::kIoError && status.message() == "injected failure";
}

TEST(MemoryFileSystemTest, FailAfterCutsOffEveryMutation) {
  MemoryFileSystem fs;
  ASSERT_OK(fs.WriteFile("/t/keep", "kept"));
  EXPECT_EQ(fs.mutation_count(), 1);
  fs.FailAfter(2);
  EXPECT_FALSE(fs.failing());
  ASSERT_OK(fs.WriteFile("/t/a", "a"));
  ASSERT_OK(fs.PutIfAbsent("/t/b", "b"));
  EXPECT_TRUE(fs.failing());

  EXPECT_TRUE(IsInjected(fs.WriteFile("/t/c", "c")));
  EXPECT_TRUE(IsInjected(fs.PutIfAbsent("/t/d", "d")));
  EXPECT_TRUE(IsInjected(fs.Delete("/t/keep")));
  EXPECT_TRUE(IsInjected(fs.Rename("/t/keep", "/t/moved")));
  EXPECT_TRUE(IsInjected(fs.CreateDirs("/t/new")));
  auto stream = ValueOrDie(fs.OpenWrite("/t/stream"));
  EXPECT_TRUE(IsInjected(stream->Append("x")));
  EXPECT_TRUE(IsInjected(stream->Close()));
  EXPECT_EQ(fs.mutation_count(), 1 + 2 + 6);  // CreateDirs does not count

  // Nothing changed, and reads still work.
  std::vector<FileInfo> entries = ValueOrDie(fs.List("/t"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, "/t/a");
  EXPECT_EQ(entries[1].path, "/t/b");
  EXPECT_EQ(entries[2].path, "/t/keep");
  EXPECT_EQ(ValueOrDie(fs.ReadFile("/t/keep")), "kept");

  fs.ClearFailure();
  EXPECT_FALSE(fs.failing());
  ASSERT_OK(fs.Rename("/t/keep", "/t/moved"));
  EXPECT_EQ(ValueOrDie(fs.ReadFile("/t/moved")), "kept");
  EXPECT_FALSE(stream->Close().ok()) << "a stream that failed stays failed";
}

TEST(MemoryFileSystemTest, FailAfterZeroFailsTheNextOperation) {
  MemoryFileSystem fs;
  fs.FailAfter(0);
  EXPECT_TRUE(IsInjected(fs.WriteFile("f", "x")));
  EXPECT_FALSE(ValueOrDie(fs.Exists("f")));
}

TEST(MemoryFileSystemTest, StreamAppendsAndCloseEachCount) {
  MemoryFileSystem fs;
  fs.FailAfter(3);
  auto stream = ValueOrDie(fs.OpenWrite("/data/part-0.parquet"));
  ASSERT_OK(stream->Append("PAR1"));
  ASSERT_OK(stream->Append("..."));
  ASSERT_OK(stream->Append("PAR1"));
  EXPECT_TRUE(IsInjected(stream->Close()));
  EXPECT_FALSE(ValueOrDie(fs.Exists("/data/part-0.parquet")));
  EXPECT_EQ(fs.List("/data").status().code(), StatusCode::kNotFound);
}

// A writer that stages a data file and then publishes a commit naming it. At every crash point
// the commit exists only if the data file it names does: the order of operations protects
// readers. This is the pattern for crash tests in higher modules.
Status WriteDataThenCommit(FileSystem& fs) {
  CDCLAKE_ASSIGN_OR_RETURN(auto stream, fs.OpenWrite("/table/part-0.parquet"));
  for (int i = 0; i < 5; ++i) CDCLAKE_RETURN_IF_ERROR(stream->Append("row"));
  CDCLAKE_RETURN_IF_ERROR(stream->Close());
  return fs.PutIfAbsent("/table/_delta_log/00000000000000000000.json", "add part-0.parquet");
}

TEST(MemoryFileSystemTest, EveryCrashPointLeavesAConsistentTable) {
  int64_t operations;
  {
    MemoryFileSystem fs;
    ASSERT_OK(WriteDataThenCommit(fs));
    operations = fs.mutation_count();
  }
  ASSERT_EQ(operations, 7);  // 5 appends, close, put
  for (int64_t crash_at = 0; crash_at <= operations; ++crash_at) {
    MemoryFileSystem fs;
    fs.FailAfter(crash_at);
    Status status = WriteDataThenCommit(fs);
    EXPECT_EQ(status.ok(), crash_at == operations) << crash_at;
    fs.ClearFailure();
    bool committed = ValueOrDie(fs.Exists("/table/_delta_log/00000000000000000000.json"));
    bool data = ValueOrDie(fs.Exists("/table/part-0.parquet"));
    EXPECT_TRUE(!committed || data) << crash_at;
    EXPECT_EQ(committed, crash_at == operations) << crash_at;
    EXPECT_EQ(data, crash_at >= operations - 1) << crash_at;
    // The restarted writer succeeds.
    if (!committed) ASSERT_OK(WriteDataThenCommit(fs));
  }
}

TEST(MemoryFileSystemTest, HookMakesPutIfAbsentLoseARace) {
  MemoryFileSystem fs;
  std::vector<std::string> seen;
  fs.SetBeforePutIfAbsent([&](const std::string& path) {
    seen.push_back(path);
    // The competitor's own PutIfAbsent does not run the hook again.
    ASSERT_OK(fs.PutIfAbsent(path, "competitor"));
  });
  Status status = fs.PutIfAbsent("/log/1.json", "mine");
  EXPECT_EQ(status.code(), StatusCode::kAlreadyExists) << status.ToString();
  EXPECT_EQ(ValueOrDie(fs.ReadFile("/log/1.json")), "competitor");
  EXPECT_EQ(seen, std::vector<std::string>{"/log/1.json"});

  fs.SetBeforePutIfAbsent(nullptr);
  ASSERT_OK(fs.PutIfAbsent("/log/2.json", "mine"));
  EXPECT_EQ(ValueOrDie(fs.ReadFile("/log/2.json")), "mine");
  EXPECT_EQ(seen.size(), 1u);
}

TEST(MemoryFileSystemTest, ModificationTimesComeFromTheClock) {
  MemoryFileSystem fs;
  fs.SetNowMs(1'700'000'000'000);
  ASSERT_OK(fs.WriteFile("/a", "x"));
  EXPECT_EQ(ValueOrDie(fs.Stat("/a")).modification_time_ms, 1'700'000'000'000);

  int64_t now = 10;
  fs.SetClock([&now] { return now += 5; });
  ASSERT_OK(fs.PutIfAbsent("/b", "y"));
  EXPECT_EQ(ValueOrDie(fs.Stat("/b")).modification_time_ms, 15);
  ASSERT_OK(fs.Rename("/b", "/c"));  // renames keep the time
  EXPECT_EQ(ValueOrDie(fs.Stat("/c")).modification_time_ms, 15);
  std::vector<FileInfo> entries = ValueOrDie(fs.List("/"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].path, "/c");
  EXPECT_EQ(entries[1].modification_time_ms, 15);

  ASSERT_OK(fs.SetModificationTime("/a", 3));
  EXPECT_EQ(ValueOrDie(fs.Stat("/a")).modification_time_ms, 3);
  EXPECT_EQ(fs.SetModificationTime("/missing", 3).code(), StatusCode::kNotFound);
}

TEST(MemoryFileSystemTest, CanonicalIsLexical) {
  MemoryFileSystem fs;
  EXPECT_EQ(*Canonical(fs, "./land//a/../b/"), "land/b");
  EXPECT_EQ(*Canonical(fs, "/../land/./x"), "/land/x");
  EXPECT_EQ(*Canonical(fs, "../up"), "../up");
  EXPECT_EQ(*Canonical(fs, "land/*.csv"), "land/*.csv");
}

TEST(MemoryFileSystemTest, NormalizesPaths) {
  MemoryFileSystem fs;
  ASSERT_OK(fs.WriteFile("t//a/./b", "x"));
  EXPECT_EQ(ValueOrDie(fs.ReadFile("t/a/b")), "x");
  EXPECT_EQ(ValueOrDie(fs.ReadFile("./t/a/b/")), "x");
  EXPECT_EQ(ValueOrDie(fs.List("t/")).size(), 1u);
  EXPECT_EQ(ValueOrDie(fs.List("t/"))[0].path, "t/a");
  EXPECT_EQ(ValueOrDie(fs.List("")).size(), 1u);
  EXPECT_TRUE(ValueOrDie(fs.List("/")).empty()) << "absolute and relative trees are apart";
  EXPECT_EQ(fs.WriteFile("/", "x").code(), StatusCode::kInvalidArgument);
}

TEST(MemoryFileSystemTest, FilesAndFoldersDoNotShareNames) {
  MemoryFileSystem fs;
  ASSERT_OK(fs.WriteFile("/f", "x"));
  EXPECT_EQ(fs.WriteFile("/f/g", "y").code(), StatusCode::kIoError);
  EXPECT_EQ(fs.PutIfAbsent("/f/g", "y").code(), StatusCode::kIoError);
  EXPECT_EQ(fs.OpenWrite("/f/g").status().code(), StatusCode::kIoError);
  EXPECT_EQ(fs.Rename("/f", "/f/g").code(), StatusCode::kIoError);
  ASSERT_OK(fs.WriteFile("/d/x", "y"));
  EXPECT_EQ(fs.WriteFile("/d", "z").code(), StatusCode::kIoError);
  EXPECT_EQ(fs.OpenRead("/d").status().code(), StatusCode::kIoError);
  EXPECT_EQ(fs.Rename("/d", "/e").code(), StatusCode::kNotSupported);
  EXPECT_EQ(ValueOrDie(fs.ReadFile("/f")), "x");
}

}  // namespace
}  // namespace cdclake::io
