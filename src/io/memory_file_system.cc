// MemoryFileSystem: files in a map under one mutex, folders implied by paths, and the counters
// behind injected failures.
#include "io/memory_file_system.h"

#include <chrono>
#include <utility>

#include "io/file_system_internal.h"

namespace cdclake::io {
namespace {

// Drops empty and "." parts: "/a//./b/" -> "/a/b", "a/" -> "a", "/" -> "/", "." -> "".
std::string Normalize(std::string_view path) {
  std::string out;
  if (!path.empty() && path.front() == '/') out = "/";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (!part.empty() && part != ".") {
      if (!out.empty() && out.back() != '/') out.push_back('/');
      out.append(part);
    }
    start = end + 1;
  }
  return out;
}

bool IsRoot(const std::string& key) {
  return key.empty() || key == "/";
}

// What every path inside the folder `key` starts with.
std::string ChildPrefix(const std::string& key) {
  return IsRoot(key) ? key : key + "/";
}

std::string ParentKey(const std::string& key) {
  size_t slash = key.find_last_of('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return key.substr(0, slash);
}

Status InjectedFailure() {
  return Status::IoError("injected failure");
}

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string path, std::shared_ptr<const std::string> data)
      : path_(std::move(path)), data_(std::move(data)) {}

  Result<uint64_t> Size() const override { return static_cast<uint64_t>(data_->size()); }

  Status ReadAt(uint64_t offset, uint64_t length, std::string* out) const override {
    if (!internal::InRange(offset, length, data_->size())) {
      return internal::ReadPastEnd(path_, offset, length, data_->size());
    }
    out->assign(data_->data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  std::shared_ptr<const std::string> data_;  // immutable, so reads need no lock
};

// Whether the current thread is running a before-PutIfAbsent hook.
thread_local bool in_put_if_absent_hook = false;

}  // namespace

class MemoryFileSystem::Stream final : public OutputStream {
 public:
  Stream(MemoryFileSystem* fs, std::string path) : fs_(fs), path_(std::move(path)) {}

  Status Append(std::string_view data) override {
    CDCLAKE_RETURN_IF_ERROR(CheckWritable());
    CDCLAKE_RETURN_IF_ERROR(fs_->CountAppend());
    buffer_.append(data);
    bytes_written_ += data.size();
    return Status::OK();
  }

  uint64_t BytesWritten() const override { return bytes_written_; }

  Status Close() override {
    CDCLAKE_RETURN_IF_ERROR(CheckWritable());
    Status status = fs_->CloseStream(path_, std::move(buffer_));
    buffer_.clear();
    if (!status.ok()) {
      error_ = status;
      return status;
    }
    closed_ = true;
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  Status CheckWritable() const {
    if (closed_) return Status::InvalidArgument("stream already closed: " + path_);
    return error_;
  }

  MemoryFileSystem* fs_;
  std::string path_;
  std::string buffer_;
  uint64_t bytes_written_ = 0;
  bool closed_ = false;
  Status error_;  // a failed Close() leaves the stream unusable
};

MemoryFileSystem::MemoryFileSystem() = default;
MemoryFileSystem::~MemoryFileSystem() = default;

Status MemoryFileSystem::CountMutation() {
  ++mutation_count_;
  if (operations_before_failure_ == 0) return InjectedFailure();
  if (operations_before_failure_ > 0) --operations_before_failure_;
  return Status::OK();
}

Status MemoryFileSystem::CheckNotFailing() const {
  return operations_before_failure_ == 0 ? InjectedFailure() : Status::OK();
}

int64_t MemoryFileSystem::Now() const {
  if (clock_) return clock_();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool MemoryFileSystem::HasChildren(const std::string& key) const {
  const std::string prefix = ChildPrefix(key);
  auto file = files_.lower_bound(prefix);
  if (file != files_.end() && file->first.starts_with(prefix)) return true;
  auto dir = dirs_.lower_bound(prefix);
  return dir != dirs_.end() && dir->starts_with(prefix);
}

bool MemoryFileSystem::IsDir(const std::string& key) const {
  return IsRoot(key) || dirs_.contains(key) || HasChildren(key);
}

Status MemoryFileSystem::CheckCanHoldFile(const std::string& key, const std::string& path) const {
  if (IsRoot(key)) return Status::InvalidArgument("not a file path: '" + path + "'");
  if (IsDir(key)) return Status::IoError(path + ": is a folder");
  for (size_t slash = key.find('/', 1); slash != std::string::npos;
       slash = key.find('/', slash + 1)) {
    const std::string ancestor = key.substr(0, slash);
    if (files_.contains(ancestor)) {
      return Status::IoError(path + ": " + ancestor + " is a file, not a folder");
    }
  }
  return Status::OK();
}

void MemoryFileSystem::Publish(const std::string& key, std::string data) {
  Entry& entry = files_[key];
  entry.data = std::make_shared<const std::string>(std::move(data));
  entry.modification_time_ms = Now();
}

Status MemoryFileSystem::CountAppend() {
  std::lock_guard lock(mu_);
  return CountMutation();
}

Status MemoryFileSystem::CloseStream(const std::string& path, std::string data) {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CountMutation());
  CDCLAKE_RETURN_IF_ERROR(CheckCanHoldFile(key, path));
  Publish(key, std::move(data));
  return Status::OK();
}

Result<std::unique_ptr<RandomAccessFile>> MemoryFileSystem::OpenRead(
    const std::string& path) const {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  auto it = files_.find(key);
  if (it == files_.end()) {
    if (IsDir(key)) return Status::IoError("open " + path + ": is a folder");
    return Status::NotFound("open " + path + ": no such file");
  }
  return std::unique_ptr<RandomAccessFile>(std::make_unique<MemoryFile>(path, it->second.data));
}

Result<std::unique_ptr<OutputStream>> MemoryFileSystem::OpenWrite(const std::string& path) {
  const std::string key = Normalize(path);
  {
    std::lock_guard lock(mu_);
    CDCLAKE_RETURN_IF_ERROR(CheckCanHoldFile(key, path));
  }
  return std::unique_ptr<OutputStream>(std::make_unique<Stream>(this, path));
}

Status MemoryFileSystem::WriteFile(const std::string& path, std::string_view data) {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CountMutation());
  CDCLAKE_RETURN_IF_ERROR(CheckCanHoldFile(key, path));
  Publish(key, std::string(data));
  return Status::OK();
}

Status MemoryFileSystem::PutIfAbsent(const std::string& path, std::string_view data) {
  std::function<void(const std::string&)> hook;
  {
    std::lock_guard lock(mu_);
    hook = before_put_if_absent_;
  }
  if (hook && !in_put_if_absent_hook) {
    struct Guard {
      Guard() { in_put_if_absent_hook = true; }
      ~Guard() { in_put_if_absent_hook = false; }
    } guard;
    hook(path);
  }
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CountMutation());
  CDCLAKE_RETURN_IF_ERROR(CheckCanHoldFile(key, path));
  if (files_.contains(key)) return Status::AlreadyExists(path);
  Publish(key, std::string(data));
  return Status::OK();
}

Result<bool> MemoryFileSystem::Exists(const std::string& path) const {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  return files_.contains(key) || IsDir(key);
}

Result<FileInfo> MemoryFileSystem::Stat(const std::string& path) const {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  FileInfo info;
  info.path = path;
  auto it = files_.find(key);
  if (it != files_.end()) {
    info.size = it->second.data->size();
    info.modification_time_ms = it->second.modification_time_ms;
    return info;
  }
  if (!IsDir(key)) return Status::NotFound("stat " + path + ": no such file or folder");
  info.is_directory = true;
  return info;
}

Result<std::vector<FileInfo>> MemoryFileSystem::List(const std::string& dir) const {
  const std::string key = Normalize(dir);
  std::lock_guard lock(mu_);
  if (!IsDir(key)) return Status::NotFound("list " + dir + ": no such folder");
  const std::string prefix = ChildPrefix(key);
  std::map<std::string_view, FileInfo> by_name;
  auto add_folder = [&](std::string_view name) {
    if (name.empty() || by_name.contains(name)) return;
    FileInfo info;
    info.path = JoinPath(dir, name);
    info.is_directory = true;
    by_name.emplace(name, std::move(info));
  };
  for (auto it = files_.lower_bound(prefix); it != files_.end() && it->first.starts_with(prefix);
       ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash != std::string_view::npos) {
      add_folder(rest.substr(0, slash));
      continue;
    }
    FileInfo info;
    info.path = JoinPath(dir, rest);
    info.size = it->second.data->size();
    info.modification_time_ms = it->second.modification_time_ms;
    by_name.emplace(rest, std::move(info));
  }
  for (auto it = dirs_.lower_bound(prefix); it != dirs_.end() && it->starts_with(prefix); ++it) {
    std::string_view rest = std::string_view(*it).substr(prefix.size());
    add_folder(rest.substr(0, rest.find('/')));
  }
  std::vector<FileInfo> entries;
  entries.reserve(by_name.size());
  for (auto& [name, info] : by_name) entries.push_back(std::move(info));
  return entries;
}

Status MemoryFileSystem::CreateDirs(const std::string& dir) {
  const std::string key = Normalize(dir);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CheckNotFailing());
  if (IsRoot(key)) return Status::OK();
  if (files_.contains(key))
    return Status::IoError("create folder " + dir + ": a file has that name");
  for (size_t slash = key.find('/', 1); slash != std::string::npos;
       slash = key.find('/', slash + 1)) {
    const std::string ancestor = key.substr(0, slash);
    if (files_.contains(ancestor)) {
      return Status::IoError("create folder " + dir + ": " + ancestor + " is a file");
    }
  }
  dirs_.insert(key);
  return Status::OK();
}

Status MemoryFileSystem::Delete(const std::string& path) {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CountMutation());
  auto it = files_.find(key);
  if (it == files_.end()) {
    if (IsDir(key)) return Status::IoError("delete " + path + ": is a folder");
    return Status::OK();
  }
  files_.erase(it);
  const std::string parent = ParentKey(key);
  if (!IsRoot(parent)) dirs_.insert(parent);  // the folder outlives its last file
  return Status::OK();
}

Status MemoryFileSystem::Rename(const std::string& from, const std::string& to) {
  const std::string from_key = Normalize(from);
  const std::string to_key = Normalize(to);
  std::lock_guard lock(mu_);
  CDCLAKE_RETURN_IF_ERROR(CountMutation());
  auto it = files_.find(from_key);
  if (it == files_.end()) {
    if (IsDir(from_key)) {
      return Status::NotSupported("rename " + from + ": MemoryFileSystem renames files only");
    }
    return Status::NotFound("rename " + from + ": no such file");
  }
  if (from_key == to_key) return Status::OK();
  CDCLAKE_RETURN_IF_ERROR(CheckCanHoldFile(to_key, to));
  Entry entry = std::move(it->second);
  files_.erase(it);
  files_[to_key] = std::move(entry);
  const std::string parent = ParentKey(from_key);
  if (!IsRoot(parent)) dirs_.insert(parent);
  return Status::OK();
}

void MemoryFileSystem::SetClock(std::function<int64_t()> now_ms) {
  std::lock_guard lock(mu_);
  clock_ = std::move(now_ms);
}

void MemoryFileSystem::SetNowMs(int64_t now_ms) {
  SetClock([now_ms] { return now_ms; });
}

Status MemoryFileSystem::SetModificationTime(const std::string& path,
                                             int64_t modification_time_ms) {
  const std::string key = Normalize(path);
  std::lock_guard lock(mu_);
  auto it = files_.find(key);
  if (it == files_.end()) return Status::NotFound("set time of " + path + ": no such file");
  it->second.modification_time_ms = modification_time_ms;
  return Status::OK();
}

void MemoryFileSystem::FailAfter(int64_t operations) {
  std::lock_guard lock(mu_);
  operations_before_failure_ = operations < 0 ? 0 : operations;
}

void MemoryFileSystem::ClearFailure() {
  std::lock_guard lock(mu_);
  operations_before_failure_ = -1;
}

bool MemoryFileSystem::failing() const {
  std::lock_guard lock(mu_);
  return operations_before_failure_ == 0;
}

int64_t MemoryFileSystem::mutation_count() const {
  std::lock_guard lock(mu_);
  return mutation_count_;
}

void MemoryFileSystem::SetBeforePutIfAbsent(std::function<void(const std::string& path)> hook) {
  std::lock_guard lock(mu_);
  before_put_if_absent_ = std::move(hook);
}

}  // namespace cdclake::io
