// ChangeSpool: changes beyond the memory budget are written, in the order they came, as records
// of a private file (native byte order: only this process reads it), their shapes as indexes
// into a table the file keeps in memory.
#include "sources/postgres/change_spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace cdclake::sources::postgres {

struct ChangeSpool::File {
  int fd = -1;
  std::string folder;  // for messages: the file has no name
  std::vector<std::shared_ptr<const RelationInfo>> shapes;

  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd >= 0) ::close(fd);
  }

  std::string Name() const { return "a spill file in " + folder; }

  uint32_t ShapeIndex(const std::shared_ptr<const RelationInfo>& shape) {
    if (!shape) return UINT32_MAX;
    for (size_t i = shapes.size(); i-- > 0;) {
      if (shapes[i] == shape) return static_cast<uint32_t>(i);
    }
    shapes.push_back(shape);
    return static_cast<uint32_t>(shapes.size() - 1);
  }
};

namespace {

constexpr size_t kChunk = size_t{1} << 20;

std::string SpillFolder(const SpillOptions& options) {
  if (!options.folder.empty()) return options.folder;
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/var/tmp";
}

Status ErrnoStatus(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err));
}

// About what a change holds in memory: its cells' bytes and the containers around them.
int64_t MemoryOf(const PgChange& c) {
  int64_t bytes = sizeof(PgChange);
  for (const OwnedTuple* t : {&c.old_tuple, &c.new_tuple}) {
    bytes += static_cast<int64_t>(t->kinds.size());
    for (const std::string& v : t->values) {
      bytes += static_cast<int64_t>(sizeof(std::string));
      if (v.size() > 15) bytes += static_cast<int64_t>(v.size());
    }
  }
  return bytes + static_cast<int64_t>(c.truncated.size() * sizeof(uint32_t));
}

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void PutTuple(std::string* out, const OwnedTuple& t) {
  Put<uint32_t>(out, static_cast<uint32_t>(t.kinds.size()));
  for (TupleCell::Kind k : t.kinds) Put<uint8_t>(out, static_cast<uint8_t>(k));
  for (size_t i = 0; i < t.kinds.size(); ++i) {
    const std::string empty;
    const std::string& v = i < t.values.size() ? t.values[i] : empty;
    Put<uint32_t>(out, static_cast<uint32_t>(v.size()));
    out->append(v);
  }
}

// Reads the file's records back in order through a buffer that grows to hold the largest one.
class RecordReader {
 public:
  RecordReader(int fd, int64_t end, std::string name)
      : fd_(fd), end_(end), name_(std::move(name)) {}

  // Makes `n` more bytes readable at pos_.
  Status Need(size_t n) {
    if (buffer_.size() - pos_ >= n) return Status::OK();
    buffer_.erase(0, pos_);
    pos_ = 0;
    while (buffer_.size() < n) {
      const int64_t left = end_ - offset_;
      if (left <= 0) return Status::Corrupt(name_ + ": a record ends past the end of the file");
      const size_t want =
          std::max(n - buffer_.size(), std::min<size_t>(kChunk, static_cast<size_t>(left)));
      const size_t at = buffer_.size();
      buffer_.resize(at + want);
      const ssize_t got = ::pread(fd_, buffer_.data() + at, want, offset_);
      if (got < 0) return ErrnoStatus("read " + name_, errno);
      if (got == 0) return Status::Corrupt(name_ + ": shorter than was written");
      buffer_.resize(at + static_cast<size_t>(got));
      offset_ += got;
    }
    return Status::OK();
  }

  template <typename T>
  Result<T> Get() {
    CDCLAKE_RETURN_IF_ERROR(Need(sizeof(T)));
    T value;
    std::memcpy(&value, buffer_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  Status GetBytes(size_t n, std::string* into) {
    CDCLAKE_RETURN_IF_ERROR(Need(n));
    into->assign(buffer_.data() + pos_, n);
    pos_ += n;
    return Status::OK();
  }

  Status GetTuple(OwnedTuple* t) {
    CDCLAKE_ASSIGN_OR_RETURN(const uint32_t n, Get<uint32_t>());
    t->kinds.resize(n);
    t->values.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      CDCLAKE_ASSIGN_OR_RETURN(const uint8_t k, Get<uint8_t>());
      t->kinds[i] = static_cast<TupleCell::Kind>(k);
    }
    for (uint32_t i = 0; i < n; ++i) {
      CDCLAKE_ASSIGN_OR_RETURN(const uint32_t size, Get<uint32_t>());
      CDCLAKE_RETURN_IF_ERROR(GetBytes(size, &t->values[i]));
    }
    return Status::OK();
  }

 private:
  int fd_;
  int64_t end_;
  std::string name_;
  int64_t offset_ = 0;
  std::string buffer_;
  size_t pos_ = 0;
};

Result<int> OpenUnnamed(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return Status::IoError("create " + folder + " for spilled changes: " + ec.message());
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // No O_TMPFILE here: a named file, unlinked at once.
  std::string path = folder + "/.cdclake-spill-XXXXXX";
  fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("create a spill file in " + folder, errno);
  ::unlink(path.c_str());
  return fd;
}

}  // namespace

Status ChangeSpool::Add(PgChange change) {
  if (change.kind == PgChange::Kind::kTruncate) {
    touched_.insert(change.truncated.begin(), change.truncated.end());
  } else {
    touched_.insert(change.relation);
  }
  memory_bytes_ += MemoryOf(change);
  memory_.push_back(std::move(change));
  if (memory_bytes_ > options_.memory_bytes) return Spill();
  return Status::OK();
}

void ChangeSpool::MarkNext() {
  marks_.emplace(size(), -1);
}

Status ChangeSpool::Spill() {
  if (!file_) {
    auto file = std::make_shared<File>();
    file->folder = SpillFolder(options_);
    CDCLAKE_ASSIGN_OR_RETURN(file->fd, OpenUnnamed(file->folder));
    file_ = std::move(file);
  } else if (file_.use_count() > 1) {
    return Status::Internal("a copied change spool was added to");
  }
  std::string out;
  out.reserve(kChunk + 4096);
  int64_t at = file_end_;
  auto flush = [&]() -> Status {
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pwrite(file_->fd, out.data() + done, out.size() - done,
                                 at + static_cast<int64_t>(done));
      if (n < 0) return ErrnoStatus("write " + file_->Name(), errno);
      done += static_cast<size_t>(n);
    }
    at += static_cast<int64_t>(out.size());
    out.clear();
    return Status::OK();
  };
  for (size_t i = 0; i < memory_.size(); ++i) {
    auto mark = marks_.find(spilled_ + i);
    if (mark != marks_.end()) mark->second = at + static_cast<int64_t>(out.size());
    const PgChange& c = memory_[i];
    Put<uint8_t>(&out, static_cast<uint8_t>(c.kind));
    Put<uint32_t>(&out, c.relation);
    Put<uint32_t>(&out, file_->ShapeIndex(c.shape));
    Put<uint64_t>(&out, c.lsn);
    Put<char>(&out, c.old_kind);
    PutTuple(&out, c.old_tuple);
    PutTuple(&out, c.new_tuple);
    Put<uint32_t>(&out, static_cast<uint32_t>(c.truncated.size()));
    for (uint32_t oid : c.truncated) Put<uint32_t>(&out, oid);
    Put<uint8_t>(&out, c.truncate_options);
    if (out.size() >= kChunk) CDCLAKE_RETURN_IF_ERROR(flush());
  }
  CDCLAKE_RETURN_IF_ERROR(flush());
  file_end_ = at;
  spilled_ += memory_.size();
  memory_.clear();
  memory_.shrink_to_fit();
  memory_bytes_ = 0;
  return Status::OK();
}

Status ChangeSpool::TruncateTo(size_t count) {
  if (count > size()) return Status::Internal("a change spool cut past its end");
  if (count >= spilled_) {
    memory_.resize(count - spilled_);
  } else {
    auto mark = marks_.find(count);
    if (mark == marks_.end() || mark->second < 0) {
      return Status::Internal("a change spool cut on disk where no mark is");
    }
    file_end_ = mark->second;
    spilled_ = count;
    memory_.clear();
    if (file_.use_count() == 1) (void)::ftruncate(file_->fd, file_end_);
  }
  memory_bytes_ = 0;
  for (const PgChange& c : memory_) memory_bytes_ += MemoryOf(c);
  marks_.erase(marks_.lower_bound(count), marks_.end());
  return Status::OK();
}

Status ChangeSpool::ForEach(
    const std::function<Status(const PgChange& change, size_t index)>& visit) const {
  if (spilled_ > 0) {
    RecordReader reader(file_->fd, file_end_, file_->Name());
    PgChange c;
    for (size_t i = 0; i < spilled_; ++i) {
      CDCLAKE_ASSIGN_OR_RETURN(const uint8_t kind, reader.Get<uint8_t>());
      c.kind = static_cast<PgChange::Kind>(kind);
      CDCLAKE_ASSIGN_OR_RETURN(c.relation, reader.Get<uint32_t>());
      CDCLAKE_ASSIGN_OR_RETURN(const uint32_t shape, reader.Get<uint32_t>());
      if (shape != UINT32_MAX && shape >= file_->shapes.size()) {
        return Status::Corrupt(file_->Name() + ": a change of an unknown shape");
      }
      c.shape = shape == UINT32_MAX ? nullptr : file_->shapes[shape];
      CDCLAKE_ASSIGN_OR_RETURN(c.lsn, reader.Get<uint64_t>());
      CDCLAKE_ASSIGN_OR_RETURN(c.old_kind, reader.Get<char>());
      CDCLAKE_RETURN_IF_ERROR(reader.GetTuple(&c.old_tuple));
      CDCLAKE_RETURN_IF_ERROR(reader.GetTuple(&c.new_tuple));
      CDCLAKE_ASSIGN_OR_RETURN(const uint32_t truncated, reader.Get<uint32_t>());
      c.truncated.resize(truncated);
      for (uint32_t& oid : c.truncated) {
        CDCLAKE_ASSIGN_OR_RETURN(oid, reader.Get<uint32_t>());
      }
      CDCLAKE_ASSIGN_OR_RETURN(c.truncate_options, reader.Get<uint8_t>());
      CDCLAKE_RETURN_IF_ERROR(visit(c, i));
    }
  }
  for (size_t i = 0; i < memory_.size(); ++i) {
    CDCLAKE_RETURN_IF_ERROR(visit(memory_[i], spilled_ + i));
  }
  return Status::OK();
}

Result<std::vector<PgChange>> ChangeSpool::Collect() const {
  std::vector<PgChange> out;
  out.reserve(size());
  CDCLAKE_RETURN_IF_ERROR(ForEach([&](const PgChange& c, size_t) {
    out.push_back(c);
    return Status::OK();
  }));
  return out;
}

int64_t ChangeSpool::spilled_bytes() const {
  return file_end_;
}

}  // namespace cdclake::sources::postgres
