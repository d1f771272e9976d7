// SortedRunBuilder: an arena of records sorted by key, spilled as run files when the budget is
// reached, merged back with a heap of run cursors.
#include "sources/snapshot/sorted_run_builder.h"

#include <algorithm>
#include <cstring>
#include <queue>

#include "sources/snapshot/record_file_reader.h"
#include "sources/snapshot/record_file_writer.h"

namespace cdclake::sources::snapshot {

namespace {

using Entry = SortedRunBuilder::Entry;

int CompareKeys(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

std::string_view KeyOf(const Entry& e) {
  return {e.data, e.key_size};
}

// Deletes the spill files when the last stream reading them is gone.
struct SpillFiles {
  io::FileSystem* fs;
  std::vector<std::string> paths;
  ~SpillFiles() {
    for (const std::string& p : paths) (void)fs->Delete(p);
  }
};

// A sorted in-memory run that owns its buffer.
class MemoryRun : public RecordStream {
 public:
  MemoryRun(std::vector<std::unique_ptr<char[]>> arena, std::vector<Entry> entries)
      : arena_(std::move(arena)), entries_(std::move(entries)) {}
  Result<bool> Next(Record* record) override {
    if (next_ >= entries_.size()) return false;
    const Entry& e = entries_[next_++];
    record->key = {e.data, e.key_size};
    record->rest = {e.data + e.key_size, e.rest_size};
    record->line = e.line;
    return true;
  }

 private:
  std::vector<std::unique_ptr<char[]>> arena_;
  std::vector<Entry> entries_;
  size_t next_ = 0;
};

// The k-way merge of sorted streams; on equal keys the stream given first comes first.
class MergeStream : public RecordStream {
 public:
  MergeStream(std::vector<std::unique_ptr<RecordStream>> inputs, std::shared_ptr<SpillFiles> files)
      : inputs_(std::move(inputs)), current_(inputs_.size()), files_(std::move(files)) {}

  Result<bool> Next(Record* record) override {
    if (!started_) {
      started_ = true;
      for (size_t i = 0; i < inputs_.size(); ++i) CDCLAKE_RETURN_IF_ERROR(Advance(i));
    } else if (last_ >= 0) {
      CDCLAKE_RETURN_IF_ERROR(Advance(static_cast<size_t>(last_)));
    }
    if (heap_.empty()) {
      last_ = -1;
      return false;
    }
    const size_t i = heap_.top();
    heap_.pop();
    *record = current_[i];
    last_ = static_cast<int64_t>(i);
    return true;
  }

 private:
  Status Advance(size_t i) {
    CDCLAKE_ASSIGN_OR_RETURN(bool more, inputs_[i]->Next(&current_[i]));
    if (more) heap_.push(i);
    return Status::OK();
  }
  struct Later {
    const MergeStream* self;
    bool operator()(size_t a, size_t b) const {
      const int c = CompareKeys(self->current_[a].key, self->current_[b].key);
      return c != 0 ? c > 0 : a > b;
    }
  };

  std::vector<std::unique_ptr<RecordStream>> inputs_;
  std::vector<Record> current_;
  std::priority_queue<size_t, std::vector<size_t>, Later> heap_{Later{this}};
  std::shared_ptr<SpillFiles> files_;
  bool started_ = false;
  int64_t last_ = -1;
};

}  // namespace

SortedRunBuilder::SortedRunBuilder(io::FileSystem& fs, std::string spill_dir,
                                   int64_t memory_budget_bytes)
    : fs_(fs),
      spill_dir_(std::move(spill_dir)),
      budget_(std::max<int64_t>(memory_budget_bytes, 4096)) {
  block_bytes_ = std::clamp<int64_t>(budget_ / 64, 1024, 256 << 10);
  arena_chunk_bytes_ = static_cast<size_t>(std::clamp<int64_t>(budget_ / 16, 1024, 4 << 20));
}

SortedRunBuilder::~SortedRunBuilder() {
  for (const std::string& p : runs_) (void)fs_.Delete(p);
}

int64_t SortedRunBuilder::BufferBytes() const {
  return arena_bytes_ + static_cast<int64_t>(entries_.capacity() * sizeof(Entry));
}

Status SortedRunBuilder::Add(std::string_view key, std::string_view rest, int64_t line) {
  const size_t size = key.size() + rest.size();
  if (arena_.empty() || arena_used_ + size > arena_chunk_bytes_) {
    // A record larger than a chunk gets a chunk of its own.
    const size_t chunk = std::max(arena_chunk_bytes_, size);
    if (!entries_.empty() &&
        BufferBytes() + static_cast<int64_t>(chunk) + static_cast<int64_t>(sizeof(Entry)) >
            budget_) {
      CDCLAKE_RETURN_IF_ERROR(Spill());
    }
    arena_.push_back(std::make_unique<char[]>(chunk));
    arena_bytes_ += static_cast<int64_t>(chunk);
    arena_used_ = 0;
  } else if (entries_.size() == entries_.capacity() &&
             BufferBytes() + static_cast<int64_t>(entries_.capacity() * sizeof(Entry)) > budget_) {
    // Doubling the entry vector would pass the budget.
    CDCLAKE_RETURN_IF_ERROR(Spill());
    return Add(key, rest, line);
  }
  char* at = arena_.back().get() + arena_used_;
  if (!key.empty()) std::memcpy(at, key.data(), key.size());
  if (!rest.empty()) std::memcpy(at + key.size(), rest.data(), rest.size());
  arena_used_ += size;
  entries_.push_back(
      Entry{at, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(rest.size()), line});
  ++records_;
  peak_buffer_bytes_ = std::max(peak_buffer_bytes_, BufferBytes());
  return Status::OK();
}

Result<std::string> SortedRunBuilder::NewRunPath() {
  if (next_run_ == 0) CDCLAKE_RETURN_IF_ERROR(fs_.CreateDirs(spill_dir_));
  return io::JoinPath(spill_dir_, "run-" + std::to_string(next_run_++) + ".tmp");
}

Status SortedRunBuilder::Spill() {
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return CompareKeys(KeyOf(a), KeyOf(b)) < 0;
  });
  CDCLAKE_ASSIGN_OR_RETURN(std::string path, NewRunPath());
  runs_.push_back(path);
  CDCLAKE_ASSIGN_OR_RETURN(auto writer, RecordFileWriter::Open(fs_, path, "run", block_bytes_));
  for (const Entry& e : entries_) {
    CDCLAKE_RETURN_IF_ERROR(writer->Add(KeyOf(e), {e.data + e.key_size, e.rest_size}, e.line));
  }
  CDCLAKE_RETURN_IF_ERROR(writer->Finish());
  ++spilled_runs_;
  entries_.clear();
  entries_.shrink_to_fit();
  arena_.clear();
  arena_bytes_ = 0;
  arena_used_ = 0;
  return Status::OK();
}

Result<std::unique_ptr<RecordStream>> SortedRunBuilder::Finish() {
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return CompareKeys(KeyOf(a), KeyOf(b)) < 0;
  });
  auto memory = std::make_unique<MemoryRun>(std::move(arena_), std::move(entries_));
  arena_.clear();
  entries_.clear();
  if (runs_.empty()) return std::unique_ptr<RecordStream>(std::move(memory));

  // Merge passes while there are more runs than the budget has blocks for: the oldest runs
  // first, so equal keys keep the order they were added in.
  const size_t fan_in =
      static_cast<size_t>(std::clamp<int64_t>(budget_ / (2 * block_bytes_), 2, 64));
  auto files = std::make_shared<SpillFiles>();
  files->fs = &fs_;
  while (runs_.size() + 1 > fan_in) {
    std::vector<std::unique_ptr<RecordStream>> inputs;
    std::vector<std::string> merged(runs_.begin(), runs_.begin() + fan_in);
    for (const std::string& p : merged) {
      CDCLAKE_ASSIGN_OR_RETURN(auto reader, RecordFileReader::Open(fs_, p));
      inputs.push_back(std::move(reader));
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::string path, NewRunPath());
    {
      MergeStream merge(std::move(inputs), nullptr);
      CDCLAKE_ASSIGN_OR_RETURN(auto writer, RecordFileWriter::Open(fs_, path, "run", block_bytes_));
      Record r;
      while (true) {
        CDCLAKE_ASSIGN_OR_RETURN(bool more, merge.Next(&r));
        if (!more) break;
        CDCLAKE_RETURN_IF_ERROR(writer->Add(r.key, r.rest, r.line));
      }
      CDCLAKE_RETURN_IF_ERROR(writer->Finish());
    }
    ++spilled_runs_;
    for (const std::string& p : merged) (void)fs_.Delete(p);
    runs_.erase(runs_.begin(), runs_.begin() + fan_in);
    runs_.insert(runs_.begin(), path);
  }
  std::vector<std::unique_ptr<RecordStream>> inputs;
  for (const std::string& p : runs_) {
    CDCLAKE_ASSIGN_OR_RETURN(auto reader, RecordFileReader::Open(fs_, p));
    inputs.push_back(std::move(reader));
  }
  inputs.push_back(std::move(memory));
  files->paths = std::move(runs_);
  runs_.clear();
  return std::unique_ptr<RecordStream>(std::make_unique<MergeStream>(std::move(inputs), files));
}

}  // namespace cdclake::sources::snapshot
