// UnnamedFile over POSIX: opened with O_APPEND, so a write after a cut lands at the new end.
#include "io/unnamed_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "io/file_system_internal.h"
#include "io/local_file_system.h"

namespace cdclake::io {

Result<std::unique_ptr<UnnamedFile>> UnnamedFile::Create(const std::string& folder) {
  std::string name = "an unnamed file in " + folder;
  Status made = LocalFileSystem().CreateDirs(folder);
  if (!made.ok()) return made.WithContext(name);
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    // No O_TMPFILE here: a named file, unlinked at once.
    std::string path = folder + "/.cdclake-unnamed-XXXXXX";
    fd = ::mkostemp(path.data(), O_APPEND | O_CLOEXEC);
    if (fd < 0) return internal::ErrnoStatus("create", name, errno);
    ::unlink(path.c_str());
  }
  return std::unique_ptr<UnnamedFile>(new UnnamedFile(fd, std::move(name)));
}

UnnamedFile::~UnnamedFile() {
  ::close(fd_);
}

Result<int64_t> UnnamedFile::Append(std::string_view bytes) {
  const int64_t at = size_;
  Status written = internal::WriteAll(fd_, bytes, name_);
  if (!written.ok()) {
    // What a failed write left past the end is cut, so the next append starts at `at`.
    (void)Truncate(at);
    return written;
  }
  size_ += static_cast<int64_t>(bytes.size());
  return at;
}

Status UnnamedFile::ReadAt(int64_t offset, size_t length, char* out) const {
  if (offset < 0 || offset > size_ || static_cast<int64_t>(length) > size_ - offset) {
    return Status::Corrupt(name_ + ": a read past its end");
  }
  size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, out + done, length - done,
                              static_cast<off_t>(offset + static_cast<int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return internal::ErrnoStatus("read", name_, errno);
    if (n == 0) return Status::Corrupt(name_ + ": shorter than was written");
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status UnnamedFile::Truncate(int64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    return internal::ErrnoStatus("cut", name_, errno);
  }
  size_ = size;
  return Status::OK();
}

}  // namespace cdclake::io
