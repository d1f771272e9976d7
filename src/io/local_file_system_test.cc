// LocalFileSystem beyond the shared contract: put-if-absent races between processes, temporary
// file names, what a writer that dies mid-write leaves behind, and errno in messages.
#include "io/local_file_system.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "io/canonical_path.h"
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

std::string ChildData(int child) {
  return "child " + std::to_string(child) + std::string(5000, '.');
}

// Forks `children` processes that wait on a pipe, then all PutIfAbsent `path` at once. Returns
// each child's exit code: 0 won, 1 lost with kAlreadyExists, 2 anything else.
std::vector<int> RacePutIfAbsent(const std::string& path, int children) {
  int go[2];
  if (::pipe(go) != 0) return {};
  std::vector<pid_t> pids;
  for (int child = 0; child < children; ++child) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(go[1]);
      char byte;
      while (::read(go[0], &byte, 1) < 0) {
      }  // EOF once the parent closes its end: everyone starts together
      Status status = LocalFileSystem::Instance()->PutIfAbsent(path, ChildData(child));
      ::_exit(status.ok() ? 0 : status.code() == StatusCode::kAlreadyExists ? 1 : 2);
    }
    pids.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int wstatus = 0;
    if (pid < 0 || ::waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus)) {
      codes.push_back(-1);
    } else {
      codes.push_back(WEXITSTATUS(wstatus));
    }
  }
  return codes;
}

TEST(LocalFileSystemTest, ExactlyOneProcessWinsPutIfAbsent) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  LocalFileSystem fs;
  constexpr int kChildren = 6;
  for (int round = 0; round < 8; ++round) {
    const std::string path = JoinPath(dir.path(), "_delta_log/" + std::to_string(round) + ".json");
    std::vector<int> codes = RacePutIfAbsent(path, kChildren);
    ASSERT_EQ(codes.size(), static_cast<size_t>(kChildren));
    int winner = -1;
    for (int child = 0; child < kChildren; ++child) {
      ASSERT_TRUE(codes[child] == 0 || codes[child] == 1) << "child exit " << codes[child];
      if (codes[child] == 0) {
        ASSERT_EQ(winner, -1) << "two winners in round " << round;
        winner = child;
      }
    }
    ASSERT_NE(winner, -1) << "no winner in round " << round;
    EXPECT_EQ(ValueOrDie(fs.ReadFile(path)), ChildData(winner));
  }
  // No temporary files are left behind.
  std::vector<FileInfo> entries = ValueOrDie(fs.List(JoinPath(dir.path(), "_delta_log")));
  EXPECT_EQ(entries.size(), 8u);
}

TEST(LocalFileSystemTest, RecognizesTemporaryNames) {
  EXPECT_TRUE(LocalFileSystem::IsTemporaryName(".part-0.parquet.0123456789abcdef.tmp"));
  EXPECT_TRUE(LocalFileSystem::IsTemporaryName(".x.ffffffffffffffff.tmp"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName("x.0123456789abcdef.tmp"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName("..0123456789abcdef.tmp"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName(".x.0123456789ABCDEF.tmp"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName(".x.0123456789abcdef"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName(".x_0123456789abcdef.tmp"));
  EXPECT_FALSE(LocalFileSystem::IsTemporaryName("00000000000000000000.json"));
}

TEST(LocalFileSystemTest, AWriterThatDiesLeavesOnlyATemporaryFile) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  const std::string path = JoinPath(dir.path(), "part-0.parquet");
  pid_t pid = ::fork();
  if (pid == 0) {
    auto stream = LocalFileSystem::Instance()->OpenWrite(path);
    bool ok = stream.ok() && (*stream)->Append(std::string(3 << 20, 'x')).ok();
    ::_exit(ok ? 0 : 1);  // dies without Close() and without running destructors
  }
  ASSERT_GT(pid, 0);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);

  LocalFileSystem fs;
  EXPECT_FALSE(ValueOrDie(fs.Exists(path)));
  std::vector<FileInfo> entries = ValueOrDie(fs.List(dir.path()));
  ASSERT_EQ(entries.size(), 1u);
  std::string name = entries[0].path.substr(dir.path().size() + 1);
  EXPECT_TRUE(LocalFileSystem::IsTemporaryName(name)) << name;
  EXPECT_TRUE(name.starts_with(".part-0.parquet.")) << name;
  EXPECT_GT(entries[0].size, 0u);
}

TEST(LocalFileSystemTest, ErrorsNameThePathAndTheCause) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  LocalFileSystem fs;
  const std::string missing = JoinPath(dir.path(), "missing.json");
  Status status = fs.OpenRead(missing).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find(missing), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("No such file or directory"), std::string::npos)
      << status.message();

  ASSERT_OK(fs.CreateDirs(JoinPath(dir.path(), "folder")));
  status = fs.OpenRead(JoinPath(dir.path(), "folder")).status();
  EXPECT_EQ(status.code(), StatusCode::kIoError) << status.ToString();
  EXPECT_EQ(fs.OpenWrite(JoinPath(dir.path(), "folder/")).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(LocalFileSystemTest, WorksWithRelativePaths) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  LocalFileSystem fs;
  Status put = fs.PutIfAbsent("commit.json", "{}");
  Status write = fs.WriteFile("sub/file", "x");
  Result<std::vector<FileInfo>> listed = fs.List(".");
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_OK(put);
  ASSERT_OK(write);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].path, "./commit.json");
  EXPECT_TRUE((*listed)[1].is_directory);
}

TEST(LocalFileSystemTest, CanonicalSpellsOnePlaceOneWay) {
  ScratchDir dir = ValueOrDie(ScratchDir::Create());
  LocalFileSystem fs;
  ASSERT_OK(fs.WriteFile(dir.path() + "/land/a.csv", "x"));
  ASSERT_EQ(::symlink((dir.path() + "/land").c_str(), (dir.path() + "/link").c_str()), 0);
  const std::string real = ValueOrDie(Canonical(fs, dir.path() + "/land"));
  EXPECT_EQ(real.front(), '/');
  EXPECT_EQ(ValueOrDie(Canonical(fs, dir.path() + "//land/./")), real);
  EXPECT_EQ(ValueOrDie(Canonical(fs, dir.path() + "/x/../land")), real);
  EXPECT_EQ(ValueOrDie(Canonical(fs, dir.path() + "/link")), real);
  EXPECT_EQ(ValueOrDie(Canonical(fs, dir.path() + "/link/*.csv")), real + "/*.csv");
  // A part that does not exist (yet) is kept as written after the resolved prefix.
  EXPECT_EQ(ValueOrDie(Canonical(fs, dir.path() + "/link/new/../later")), real + "/later");
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  Result<std::string> relative = Canonical(fs, "./land");
  Result<std::string> via_link = Canonical(fs, "link//");
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(ValueOrDie(std::move(relative)), real);
  EXPECT_EQ(ValueOrDie(std::move(via_link)), real);
}

TEST(ScratchDirTest, RemovesEverythingWhenDestroyed) {
  std::string path;
  {
    ScratchDir dir = ValueOrDie(ScratchDir::Create("cdclake-scratch-test-"));
    path = dir.path();
    ASSERT_OK(LocalFileSystem::Instance()->WriteFile(JoinPath(path, "a/b/c"), "x"));
    ScratchDir moved = std::move(dir);
    EXPECT_EQ(moved.path(), path);
    EXPECT_TRUE(ValueOrDie(LocalFileSystem::Instance()->Exists(path)));
  }
  EXPECT_FALSE(ValueOrDie(LocalFileSystem::Instance()->Exists(path)));
  EXPECT_FALSE(ScratchDir::Create("a/b").ok());
}

}  // namespace
}  // namespace cdclake::io
