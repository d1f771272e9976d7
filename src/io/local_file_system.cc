// LocalFileSystem over POSIX: positioned reads, buffered writes to a temporary file published by
// rename(2) or link(2), folder listing and creation. With unnamed_file.cc, the only place
// cdclake touches real files.
#include "io/local_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "io/file_system_internal.h"

namespace cdclake::io {
namespace {

constexpr size_t kBufferSize = size_t{1} << 20;  // appends smaller than this are coalesced
constexpr size_t kMaxIoChunk = size_t{1} << 30;  // bytes per read(2)/write(2) call

using internal::ErrnoText;

// "<what> <path>: <strerror>"; kNotFound for ENOENT, kIoError otherwise.
Status ErrnoStatus(std::string_view what, const std::string& path, int err) {
  std::string msg(what);
  msg += ' ';
  msg += path;
  msg += ": ";
  msg += ErrnoText(err);
  if (err == ENOENT) return Status::NotFound(std::move(msg));
  return Status::IoError(std::move(msg));
}

// For look-ups a missing folder on the way (ENOTDIR) means the path is simply not there.
Status LookupStatus(std::string_view what, const std::string& path, int err) {
  return ErrnoStatus(what, path, err == ENOTDIR ? ENOENT : err);
}

std::string_view StripTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

// The folder holding `path`: "" for a bare name, "/" for a file in the root.
std::string ParentOf(std::string_view path) {
  path = StripTrailingSlashes(path);
  size_t slash = path.find_last_of('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(StripTrailingSlashes(path.substr(0, slash)));
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

Status CheckFilePath(const std::string& path) {
  std::string_view name = BaseName(path);
  if (name.empty() || name == "." || name == "..") {
    return Status::InvalidArgument("not a file path: '" + path + "'");
  }
  return Status::OK();
}

int64_t ModificationTimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

FileInfo InfoFromStat(std::string path, const struct stat& st) {
  FileInfo info;
  info.path = std::move(path);
  info.is_directory = S_ISDIR(st.st_mode);
  info.size = info.is_directory ? 0 : static_cast<uint64_t>(st.st_size);
  info.modification_time_ms = ModificationTimeMs(st);
  return info;
}

// 64 random bits as 16 hex digits. getrandom(2) differs per call and per process (also after
// fork); the fallback mixes time, pid and a counter.
std::string RandomHex() {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof(v), 0) != static_cast<ssize_t>(sizeof(v))) {
    static std::atomic<uint64_t> counter{0};
    v = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    v ^= static_cast<uint64_t>(::getpid()) << 40;
    v ^= counter.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[i] = kHex[v & 0xF];
    v >>= 4;
  }
  return out;
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), std::min(data.size(), kMaxIoChunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

Status SyncFd(int fd, const std::string& path) {
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return ErrnoStatus("fsync", path, errno);
  }
  return Status::OK();
}

Status CloseFd(int fd, const std::string& path) {
  // On Linux the descriptor is released even when close reports EINTR; never retry.
  if (::close(fd) != 0 && errno != EINTR) return ErrnoStatus("close", path, errno);
  return Status::OK();
}

// Makes a rename or link inside `dir` durable. Some file systems cannot sync folders (EINVAL);
// that is not an error.
Status SyncDir(const std::string& dir) {
  const std::string name = dir.empty() ? "." : dir;
  int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open folder", name, errno);
  Status status;
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    status = ErrnoStatus("fsync folder", name, errno);
  }
  ::close(fd);
  return status;
}

// Creates a fresh temporary file beside `path`; returns its descriptor and sets *temp_path.
Result<int> CreateTempFile(const std::string& path, std::string* temp_path) {
  const std::string dir = ParentOf(path);
  const std::string prefix = "." + std::string(BaseName(path)) + ".";
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = JoinPath(dir, prefix + RandomHex() + ".tmp");
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      *temp_path = std::move(temp);
      return fd;
    }
    if (errno != EEXIST && errno != EINTR) return ErrnoStatus("create", temp, errno);
  }
  return Status::IoError("no free temporary name beside " + path);
}

class LocalRandomAccessFile final : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalRandomAccessFile() override { ::close(fd_); }
  LocalRandomAccessFile(const LocalRandomAccessFile&) = delete;
  LocalRandomAccessFile& operator=(const LocalRandomAccessFile&) = delete;

  Result<uint64_t> Size() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return ErrnoStatus("stat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) const override {
    // The size is looked up again only for a read past the size seen last (the file may have
    // grown): a stat per read was a third of the system calls of reading many small ranges.
    uint64_t size = known_size_.load(std::memory_order_relaxed);
    if (!internal::InRange(offset, length, size)) {
      CDCLAKE_ASSIGN_OR_RETURN(size, Size());
      known_size_.store(size, std::memory_order_relaxed);
      if (!internal::InRange(offset, length, size)) {
        return internal::ReadPastEnd(path_, offset, length, size);
      }
    }
    out->resize(length);
    const int64_t done = internal::PreadFully(fd_, out->data(), length, offset);
    if (done < 0) return ErrnoStatus("read", path_, errno);
    if (static_cast<uint64_t>(done) < length) {  // the file shrank under us
      return internal::ReadPastEnd(path_, offset, length, offset + static_cast<uint64_t>(done));
    }
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  mutable std::atomic<uint64_t> known_size_{0};  // the size Size() gave last
  int fd_;
};

class LocalOutputStream final : public OutputStream {
 public:
  LocalOutputStream(std::string path, std::string temp_path, int fd)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {}

  ~LocalOutputStream() override { Abandon(); }
  LocalOutputStream(const LocalOutputStream&) = delete;
  LocalOutputStream& operator=(const LocalOutputStream&) = delete;

  Status Append(std::string_view data) override {
    CDCLAKE_RETURN_IF_ERROR(CheckWritable());
    if (buffer_.size() + data.size() > kBufferSize) {
      CDCLAKE_RETURN_IF_ERROR(Fail(Flush()));
      if (data.size() >= kBufferSize) {
        CDCLAKE_RETURN_IF_ERROR(Fail(WriteAll(fd_, data, temp_path_)));
        bytes_written_ += data.size();
        return Status::OK();
      }
    }
    buffer_.append(data);
    bytes_written_ += data.size();
    return Status::OK();
  }

  uint64_t BytesWritten() const override { return bytes_written_; }

  Status Close() override {
    CDCLAKE_RETURN_IF_ERROR(CheckWritable());
    Status status = Flush();
    if (status.ok()) status = SyncFd(fd_, temp_path_);
    Status closed = CloseFd(fd_, temp_path_);
    fd_ = -1;
    if (status.ok()) status = closed;
    if (status.ok() && ::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      const int err = errno;
      status = ErrnoStatus("rename " + temp_path_ + " to", path_, err);
    }
    if (!status.ok()) {
      Abandon();
      error_ = status;
      return status;
    }
    published_ = true;
    return SyncDir(ParentOf(path_));
  }

  const std::string& path() const override { return path_; }

 private:
  Status CheckWritable() const {
    if (published_) return Status::InvalidArgument("stream already closed: " + path_);
    return error_;
  }

  // Remembers the first failure: the stream is unusable after it and its file is dropped.
  Status Fail(Status status) {
    if (!status.ok()) {
      Abandon();
      error_ = status;
    }
    return status;
  }

  Status Flush() {
    Status status = WriteAll(fd_, buffer_, temp_path_);
    buffer_.clear();
    return status;
  }

  // Closes the descriptor and removes the temporary file, unless published.
  void Abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!published_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }

  std::string path_;
  std::string temp_path_;  // empty once removed
  int fd_;
  std::string buffer_;
  uint64_t bytes_written_ = 0;
  bool published_ = false;
  Status error_;
};

}  // namespace

std::shared_ptr<LocalFileSystem> LocalFileSystem::Instance() {
  static const std::shared_ptr<LocalFileSystem> instance = std::make_shared<LocalFileSystem>();
  return instance;
}

bool LocalFileSystem::IsTemporaryName(std::string_view name) {
  // ".<name>.<16 hex>.tmp"
  constexpr std::string_view kSuffix = ".tmp";
  constexpr size_t kHexDigits = 16;
  if (name.size() < 1 + 1 + 1 + kHexDigits + kSuffix.size()) return false;
  if (name.front() != '.' || !name.ends_with(kSuffix)) return false;
  std::string_view hex = name.substr(name.size() - kSuffix.size() - kHexDigits, kHexDigits);
  if (name[name.size() - kSuffix.size() - kHexDigits - 1] != '.') return false;
  return std::all_of(hex.begin(), hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<std::unique_ptr<RandomAccessFile>> LocalFileSystem::OpenRead(const std::string& path) const {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return LookupStatus("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status status = ErrnoStatus("stat", path, errno);
    ::close(fd);
    return status;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::IoError("open " + path + ": is a folder");
  }
  return std::unique_ptr<RandomAccessFile>(std::make_unique<LocalRandomAccessFile>(path, fd));
}

Result<std::unique_ptr<OutputStream>> LocalFileSystem::OpenWrite(const std::string& path) {
  CDCLAKE_RETURN_IF_ERROR(CheckFilePath(path));
  CDCLAKE_RETURN_IF_ERROR(CreateDirs(ParentOf(path)));
  std::string temp_path;
  CDCLAKE_ASSIGN_OR_RETURN(int fd, CreateTempFile(path, &temp_path));
  return std::unique_ptr<OutputStream>(
      std::make_unique<LocalOutputStream>(path, std::move(temp_path), fd));
}

Status LocalFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  CDCLAKE_RETURN_IF_ERROR(CheckFilePath(path));
  const std::string dir = ParentOf(path);
  CDCLAKE_RETURN_IF_ERROR(CreateDirs(dir));
  // A cheap early answer; the link below is what decides.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return Status::AlreadyExists(path);

  std::string temp_path;
  CDCLAKE_ASSIGN_OR_RETURN(int fd, CreateTempFile(path, &temp_path));
  Status status = WriteAll(fd, data, temp_path);
  if (status.ok()) status = SyncFd(fd, temp_path);
  Status closed = CloseFd(fd, temp_path);
  if (status.ok()) status = closed;
  if (status.ok() && ::link(temp_path.c_str(), path.c_str()) != 0) {
    int err = errno;
    if (err == EPERM || err == ENOTSUP || err == ENOSYS || err == EMLINK) {
      // No hard links here: an exclusive rename is just as atomic where it exists.
      if (::renameat2(AT_FDCWD, temp_path.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
        err = 0;
      } else if (errno == EEXIST) {
        err = EEXIST;
      }
    }
    if (err == EEXIST) {
      status = Status::AlreadyExists(path);
    } else if (err != 0) {
      status = ErrnoStatus("link " + temp_path + " to", path, err);
    }
  }
  ::unlink(temp_path.c_str());
  if (!status.ok()) return status;
  return SyncDir(dir);
}

Result<bool> LocalFileSystem::Exists(const std::string& path) const {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoStatus("stat", path, errno);
}

Result<FileInfo> LocalFileSystem::Stat(const std::string& path) const {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return LookupStatus("stat", path, errno);
  return InfoFromStat(path, st);
}

Result<std::vector<FileInfo>> LocalFileSystem::List(const std::string& dir) const {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return LookupStatus("list", dir, errno);
  const int dir_fd = ::dirfd(handle);
  std::vector<FileInfo> entries;
  Status status;
  while (true) {
    errno = 0;
    const struct dirent* entry = ::readdir(handle);
    if (entry == nullptr) {
      if (errno != 0) status = ErrnoStatus("list", dir, errno);
      break;
    }
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(dir_fd, entry->d_name, &st, 0) != 0) {
      const int err = errno;
      if (err == ENOENT) continue;  // deleted meanwhile, or a dangling symlink
      status = ErrnoStatus("stat", JoinPath(dir, name), err);
      break;
    }
    entries.push_back(InfoFromStat(JoinPath(dir, name), st));
  }
  ::closedir(handle);
  if (!status.ok()) return status;
  std::sort(entries.begin(), entries.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  return entries;
}

Status LocalFileSystem::CreateDirs(const std::string& dir) {
  if (dir.empty()) return Status::OK();
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    for (size_t end = 1; end <= dir.size(); ++end) {
      if (end < dir.size() && dir[end] != '/') continue;
      if (dir[end - 1] == '/') continue;  // "a//b" or a trailing slash
      const std::string prefix = dir.substr(0, end);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        return ErrnoStatus("create folder", prefix, errno);
      }
    }
    if (::stat(dir.c_str(), &st) != 0) return ErrnoStatus("create folder", dir, errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::IoError("create folder " + dir + ": a file has that name");
  }
  return Status::OK();
}

Status LocalFileSystem::Delete(const std::string& path) {
  if (::unlink(path.c_str()) == 0) return Status::OK();
  const int err = errno;
  if (err == ENOENT || err == ENOTDIR) return Status::OK();
  return ErrnoStatus("delete", path, err);
}

Status LocalFileSystem::DeleteTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Status::IoError("cannot remove " + path + ": " + ec.message());
  return Status::OK();
}

Status LocalFileSystem::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    int err = errno;
    struct stat st;
    if ((err == ENOENT || err == ENOTDIR) && ::lstat(from.c_str(), &st) != 0) {
      return ErrnoStatus("rename", from, ENOENT);
    }
    if (err != ENOENT) return ErrnoStatus("rename " + from + " to", to, err);
    // `from` exists, so the folder of `to` is missing.
    CDCLAKE_RETURN_IF_ERROR(CreateDirs(ParentOf(to)));
    if (::rename(from.c_str(), to.c_str()) != 0) {
      const int retry_err = errno;
      return ErrnoStatus("rename " + from + " to", to, retry_err);
    }
  }
  return SyncDir(ParentOf(to));
}

namespace internal {

std::string ErrnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

int64_t PreadFully(int fd, char* out, uint64_t length, uint64_t offset) {
  uint64_t done = 0;
  while (done < length) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(length - done, kMaxIoChunk));
    const ssize_t n = ::pread(fd, out + done, want, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;  // the end of the file
    done += static_cast<uint64_t>(n);
  }
  return static_cast<int64_t>(done);
}

bool PwriteAll(int fd, std::string_view data, uint64_t offset) {
  while (!data.empty()) {
    const ssize_t n =
        ::pwrite(fd, data.data(), std::min(data.size(), kMaxIoChunk), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace internal

}  // namespace cdclake::io
