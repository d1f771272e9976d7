// ChangeSpool: changes beyond the memory budget are written, in the order they came, as records
// of a private unnamed file (little-endian: only this process reads it), their shapes as
// indexes into a table the file keeps in memory.
#include "sources/postgres/change_spool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "base/bytes.h"
#include "io/unnamed_file.h"

namespace cdclake::sources::postgres {

class SpillFile {
 public:
  explicit SpillFile(std::string folder) : folder_(std::move(folder)) {}
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  std::string Name() const { return "a spill file in " + folder_; }

  // Writes `bytes` at the end; returns where they begin. The file is made on the first write.
  Result<int64_t> Append(std::string_view bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!file_) {
      CDCLAKE_ASSIGN_OR_RETURN(file_, io::UnnamedFile::Create(folder_, "a spill file"));
    }
    return file_->Append(bytes);
  }

  // Reads beside appends without waiting on them (the file only grows while anyone reads).
  Status ReadAt(int64_t offset, size_t length, char* out) {
    io::UnnamedFile* file = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      file = file_.get();
    }
    if (file == nullptr) return Status::Corrupt(Name() + ": read before anything was written");
    return file->ReadAt(offset, length, out);
  }

  // A spool (or a copy of one) holds changes in the file from Hold to Release; when the last
  // lets go, the file's space and its shapes are taken back.
  void Hold() { holders_.fetch_add(1); }
  void Release() {
    if (holders_.fetch_sub(1) != 1) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (holders_.load() != 0) return;  // another spool started to spill meanwhile
    // Cut also when empty: a failed write may have left bytes past the end.
    if (file_ && !file_->Truncate(0).ok()) return;
    shapes_.clear();
  }

  uint32_t ShapeIndex(const std::shared_ptr<const RelationInfo>& shape) {
    if (!shape) return UINT32_MAX;
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = shapes_.size(); i-- > 0;) {
      if (shapes_[i] == shape) return static_cast<uint32_t>(i);
    }
    shapes_.push_back(shape);
    return static_cast<uint32_t>(shapes_.size() - 1);
  }
  // Null for an index no shape has (a damaged record).
  std::shared_ptr<const RelationInfo> Shape(uint32_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    return index < shapes_.size() ? shapes_[index] : nullptr;
  }

 private:
  std::string folder_;
  std::mutex mutex_;
  std::unique_ptr<io::UnnamedFile> file_;
  std::atomic<int64_t> holders_{0};
  std::vector<std::shared_ptr<const RelationInfo>> shapes_;
};

namespace {

constexpr size_t kChunk = size_t{1} << 20;

std::string DefaultSpillFolder() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/var/tmp";
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

void PutTuple(std::string* out, const OwnedTuple& t) {
  AppendLE<uint32_t>(out, static_cast<uint32_t>(t.kinds.size()));
  for (TupleCell::Kind k : t.kinds) AppendLE<uint8_t>(out, static_cast<uint8_t>(k));
  for (size_t i = 0; i < t.kinds.size(); ++i) {
    const std::string_view v = i < t.values.size() ? std::string_view(t.values[i]) : "";
    AppendLE<uint32_t>(out, static_cast<uint32_t>(v.size()));
    out->append(v);
  }
}

// Reads a file's records back in order, stretch by stretch, through a buffer that grows to hold
// the largest one.
class RecordReader {
 public:
  explicit RecordReader(SpillFile& file) : file_(file) {}

  // Reads the stretch [begin, end) next.
  void Start(int64_t begin, int64_t end) {
    offset_ = begin;
    end_ = end;
    buffer_.clear();
    pos_ = 0;
  }
  // Where the next record starts.
  int64_t Position() const { return offset_ - static_cast<int64_t>(buffer_.size() - pos_); }

  template <typename T>
  Result<T> Get() {
    CDCLAKE_RETURN_IF_ERROR(Need(sizeof(T)));
    const T value = LoadLE<T>(buffer_.data() + pos_);
    pos_ += sizeof(T);
    return value;
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
      CDCLAKE_RETURN_IF_ERROR(Need(size));
      t->values[i].assign(buffer_.data() + pos_, size);
      pos_ += size;
    }
    return Status::OK();
  }

 private:
  // Makes `n` more bytes readable at pos_.
  Status Need(size_t n) {
    if (buffer_.size() - pos_ >= n) return Status::OK();
    buffer_.erase(0, pos_);
    pos_ = 0;
    const int64_t left = end_ - offset_;
    if (static_cast<int64_t>(n - buffer_.size()) > left) {
      return Status::Corrupt(file_.Name() + ": a record ends past the end of its stretch");
    }
    const size_t want = std::min(std::max(n - buffer_.size(), kChunk), static_cast<size_t>(left));
    const size_t at = buffer_.size();
    buffer_.resize(at + want);
    CDCLAKE_RETURN_IF_ERROR(file_.ReadAt(offset_, want, buffer_.data() + at));
    offset_ += static_cast<int64_t>(want);
    return Status::OK();
  }

  SpillFile& file_;
  int64_t offset_ = 0;
  int64_t end_ = 0;
  std::string buffer_;
  size_t pos_ = 0;
};

}  // namespace

std::shared_ptr<SpillFile> MakeSpillFile(std::string folder) {
  return std::make_shared<SpillFile>(folder.empty() ? DefaultSpillFolder() : std::move(folder));
}

ChangeSpool::Hold::Hold(std::shared_ptr<SpillFile> file) : file_(std::move(file)) {
  if (file_) file_->Hold();
}

ChangeSpool::Hold::Hold(const Hold& other) : file_(other.file_) {
  if (file_) file_->Hold();
}

ChangeSpool::Hold& ChangeSpool::Hold::operator=(const Hold& other) {
  if (this != &other) {
    Release();
    file_ = other.file_;
    if (file_) file_->Hold();
  }
  return *this;
}

ChangeSpool::Hold& ChangeSpool::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    Release();
    file_ = std::move(other.file_);
    other.file_.reset();
  }
  return *this;
}

ChangeSpool::Hold::~Hold() {
  Release();
}

void ChangeSpool::Hold::Release() {
  if (file_) file_->Release();
  file_.reset();
}

ChangeSpool::ChangeSpool(const SpillOptions& options)
    : memory_budget_(options.memory_bytes), folder_(options.folder), shared_file_(options.file) {}

ChangeSpool::ChangeSpool(ChangeSpool&& other) noexcept {
  *this = std::move(other);
}

ChangeSpool& ChangeSpool::operator=(ChangeSpool&& other) noexcept {
  if (this == &other) return *this;
  memory_budget_ = other.memory_budget_;
  folder_ = std::move(other.folder_);
  shared_file_ = std::move(other.shared_file_);
  hold_ = std::move(other.hold_);
  segments_ = std::move(other.segments_);
  spilled_ = other.spilled_;
  memory_ = std::move(other.memory_);
  memory_bytes_ = other.memory_bytes_;
  marks_ = std::move(other.marks_);
  touched_ = std::move(other.touched_);
  other.Clear();
  return *this;
}

void ChangeSpool::Clear() {
  hold_ = Hold();
  segments_.clear();
  spilled_ = 0;
  memory_.clear();
  memory_bytes_ = 0;
  marks_.clear();
  touched_.clear();
}

ChangeSpool::~ChangeSpool() = default;

Status ChangeSpool::Add(PgChange change) {
  if (change.kind == PgChange::Kind::kTruncate) {
    touched_.insert(change.truncated.begin(), change.truncated.end());
  } else {
    touched_.insert(change.relation);
  }
  memory_bytes_ += MemoryOf(change);
  memory_.push_back(std::move(change));
  if (memory_bytes_ > memory_budget_) return Spill();
  return Status::OK();
}

void ChangeSpool::MarkNext() {
  if (marks_.empty() || marks_.back().first < size()) marks_.emplace_back(size(), -1);
}

Status ChangeSpool::Spill() {
  if (!hold_.get()) {
    std::shared_ptr<SpillFile> file = shared_file_.lock();
    if (!file) file = MakeSpillFile(folder_);  // a file of its own
    hold_ = Hold(std::move(file));
  }
  SpillFile& file = *hold_.get();
  // The first mark not on disk yet: marks are in index order, and so are the changes.
  size_t mark = static_cast<size_t>(
      std::lower_bound(marks_.begin(), marks_.end(), std::make_pair(spilled_, int64_t{-1})) -
      marks_.begin());
  // A write that fails after earlier chunks went out leaves the spool as it was: its changes
  // still in memory, so the stretches and marks of those chunks are taken back.
  const size_t segments_before = segments_.size();
  const int64_t last_end_before = segments_.empty() ? 0 : segments_.back().end;
  const size_t first_mark = mark;
  auto undo = [&](Status failed) {
    segments_.resize(segments_before);
    if (!segments_.empty()) segments_.back().end = last_end_before;
    for (size_t m = first_mark; m < marks_.size(); ++m) marks_[m].second = -1;
    return failed;
  };
  std::vector<std::pair<size_t, size_t>> placed;  // marks in `out`: (mark, place in `out`)
  std::string out;
  out.reserve(std::min<size_t>(kChunk, static_cast<size_t>(memory_bytes_)) + 4096);
  auto flush = [&]() -> Status {
    if (out.empty()) return Status::OK();
    CDCLAKE_ASSIGN_OR_RETURN(const int64_t at, file.Append(out));
    for (const auto& [m, place] : placed) marks_[m].second = at + static_cast<int64_t>(place);
    placed.clear();
    if (!segments_.empty() && segments_.back().end == at) {
      segments_.back().end += static_cast<int64_t>(out.size());
    } else {
      segments_.push_back({at, at + static_cast<int64_t>(out.size())});
    }
    out.clear();
    return Status::OK();
  };
  const RelationInfo* last_shape = nullptr;  // the shape of the change before, and its index
  uint32_t last_shape_index = UINT32_MAX;
  for (size_t i = 0; i < memory_.size(); ++i) {
    if (mark < marks_.size() && marks_[mark].first == spilled_ + i)
      placed.emplace_back(mark++, out.size());
    const PgChange& c = memory_[i];
    if (c.shape.get() != last_shape) {
      last_shape = c.shape.get();
      last_shape_index = file.ShapeIndex(c.shape);
    }
    AppendLE<uint8_t>(&out, static_cast<uint8_t>(c.kind));
    AppendLE<uint32_t>(&out, c.relation);
    AppendLE<uint32_t>(&out, last_shape_index);
    AppendLE<uint64_t>(&out, c.lsn);
    AppendLE<char>(&out, c.old_kind);
    PutTuple(&out, c.old_tuple);
    PutTuple(&out, c.new_tuple);
    AppendLE<uint32_t>(&out, static_cast<uint32_t>(c.truncated.size()));
    for (uint32_t oid : c.truncated) AppendLE<uint32_t>(&out, oid);
    AppendLE<uint8_t>(&out, c.truncate_options);
    if (out.size() >= kChunk) {
      if (Status flushed = flush(); !flushed.ok()) return undo(std::move(flushed));
    }
  }
  if (Status flushed = flush(); !flushed.ok()) return undo(std::move(flushed));
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
    auto mark = std::lower_bound(marks_.begin(), marks_.end(), std::make_pair(count, int64_t{-1}));
    if (mark == marks_.end() || mark->first != count || mark->second < 0) {
      return Status::Internal("a change spool cut on disk where no mark is");
    }
    // The segments from the cut on go; the one it falls in ends there.
    const int64_t at = mark->second;
    while (!segments_.empty() && segments_.back().begin >= at) segments_.pop_back();
    if (!segments_.empty() && segments_.back().end > at) segments_.back().end = at;
    spilled_ = count;
    memory_.clear();
    if (segments_.empty()) hold_ = Hold();
  }
  memory_bytes_ = 0;
  for (const PgChange& c : memory_) memory_bytes_ += MemoryOf(c);
  marks_.erase(std::lower_bound(marks_.begin(), marks_.end(), std::make_pair(count, int64_t{-1})),
               marks_.end());
  return Status::OK();
}

Status ChangeSpool::ReadSpilled(
    const std::function<Status(PgChange& change, size_t index)>& visit) const {
  if (spilled_ == 0) return Status::OK();
  SpillFile& file = *hold_.get();
  RecordReader reader(file);
  PgChange c;
  size_t i = 0;
  for (const Segment& segment : segments_) {
    reader.Start(segment.begin, segment.end);
    while (reader.Position() < segment.end && i < spilled_) {
      CDCLAKE_ASSIGN_OR_RETURN(const uint8_t kind, reader.Get<uint8_t>());
      if (kind > static_cast<uint8_t>(PgChange::Kind::kTruncate)) {
        return Status::Corrupt(file.Name() + ": a change of an unknown kind");
      }
      c.kind = static_cast<PgChange::Kind>(kind);
      CDCLAKE_ASSIGN_OR_RETURN(c.relation, reader.Get<uint32_t>());
      CDCLAKE_ASSIGN_OR_RETURN(const uint32_t shape, reader.Get<uint32_t>());
      c.shape = shape == UINT32_MAX ? nullptr : file.Shape(shape);
      if (shape != UINT32_MAX && !c.shape) {
        return Status::Corrupt(file.Name() + ": a change of an unknown shape");
      }
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
      CDCLAKE_RETURN_IF_ERROR(visit(c, i++));
    }
  }
  if (i != spilled_) {
    return Status::Corrupt(file.Name() + ": " + std::to_string(i) + " changes read back of " +
                           std::to_string(spilled_) + " written");
  }
  return Status::OK();
}

Status ChangeSpool::ForEach(
    const std::function<Status(const PgChange& change, size_t index)>& visit) const {
  CDCLAKE_RETURN_IF_ERROR(
      ReadSpilled([&](PgChange& change, size_t index) { return visit(change, index); }));
  for (size_t m = 0; m < memory_.size(); ++m) {
    CDCLAKE_RETURN_IF_ERROR(visit(memory_[m], spilled_ + m));
  }
  return Status::OK();
}

Status ChangeSpool::Drain(const std::function<Status(PgChange&& change)>& take) {
  Status status = ReadSpilled([&](PgChange& change, size_t) { return take(std::move(change)); });
  for (size_t m = 0; status.ok() && m < memory_.size(); ++m) status = take(std::move(memory_[m]));
  Clear();
  return status;
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
  int64_t bytes = 0;
  for (const Segment& s : segments_) bytes += s.end - s.begin;
  return bytes;
}

}  // namespace cdclake::sources::postgres
