// UnnamedFile over POSIX: writes are positioned at the end it keeps, so bytes a failed write
// left behind are written over, not read back as records.
#include "io/unnamed_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "io/file_system_internal.h"
#include "io/local_file_system.h"

namespace cdclake::io {
namespace {

// Every failure of this file is kIoError, ENOENT too (the folder went away under it).
Status IoFailure(std::string_view what, const std::string& name, int err) {
  return Status::IoError(std::string(what) + " " + name + ": " + internal::ErrnoText(err));
}

}  // namespace

Result<std::unique_ptr<UnnamedFile>> UnnamedFile::Create(const std::string& folder,
                                                         std::string_view what) {
  std::string name = std::string(what) + " in " + folder;
  if (folder.empty()) return Status::InvalidArgument(std::string(what) + ": no folder given");
  Status made = LocalFileSystem().CreateDirs(folder);
  if (!made.ok()) return Status::IoError(name + ": " + made.message());
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    // No O_TMPFILE here: a named file, unlinked at once.
    std::string path = folder + "/.cdclake-unnamed-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return IoFailure("create", name, errno);
    ::unlink(path.c_str());
  }
  return std::unique_ptr<UnnamedFile>(new UnnamedFile(fd, std::move(name)));
}

UnnamedFile::~UnnamedFile() {
  ::close(fd_);
}

Result<int64_t> UnnamedFile::Append(std::string_view bytes) {
  const int64_t at = size_.load();
  if (!internal::PwriteAll(fd_, bytes, static_cast<uint64_t>(at))) {
    return IoFailure("write", name_, errno);
  }
  size_.store(at + static_cast<int64_t>(bytes.size()));
  return at;
}

Status UnnamedFile::ReadAt(int64_t offset, size_t length, char* out) const {
  const int64_t size = size_.load();
  if (offset < 0 ||
      !internal::InRange(static_cast<uint64_t>(offset), length, static_cast<uint64_t>(size))) {
    return internal::ReadPastEnd(name_, static_cast<uint64_t>(offset), length,
                                 static_cast<uint64_t>(size));
  }
  const int64_t done = internal::PreadFully(fd_, out, length, static_cast<uint64_t>(offset));
  if (done < 0) return IoFailure("read", name_, errno);
  if (static_cast<uint64_t>(done) < length) {
    return Status::Corrupt(name_ + ": shorter than was written");
  }
  return Status::OK();
}

Status UnnamedFile::Truncate(int64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    return IoFailure("cut", name_, errno);
  }
  size_.store(size);
  return Status::OK();
}

}  // namespace cdclake::io
