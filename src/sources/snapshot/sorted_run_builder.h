// SortedRunBuilder: sorts records by key within a memory budget, spilling sorted runs to files
// and merging them back (k-way, in passes when there are many) into one key-ordered stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"
#include "sources/snapshot/record_stream.h"

namespace cdclake::sources::snapshot {

class SortedRunBuilder {
 public:
  /// Runs go to `spill_dir` (created when the first run spills; its run files are deleted when
  /// the stream Finish returns is gone). `memory_budget_bytes` bounds the sort buffer: record
  /// bytes plus 24 bytes per record; the merge reads one block per run on top of it.
  SortedRunBuilder(io::FileSystem& fs, std::string spill_dir, int64_t memory_budget_bytes);
  ~SortedRunBuilder();
  SortedRunBuilder(const SortedRunBuilder&) = delete;
  SortedRunBuilder& operator=(const SortedRunBuilder&) = delete;

  Status Add(std::string_view key, std::string_view rest, int64_t line);

  /// All records added, ordered by key bytes (memcmp; equal keys in the order they were added).
  /// REQUIRES: called once; no Add afterwards.
  Result<std::unique_ptr<RecordStream>> Finish();

  int64_t records() const { return records_; }
  /// Runs written to disk so far (merge passes included).
  int64_t spilled_runs() const { return spilled_runs_; }
  /// The largest sort buffer held, in bytes (record bytes plus the per-record entries).
  int64_t peak_buffer_bytes() const { return peak_buffer_bytes_; }

  struct Entry {
    const char* data;  // key bytes, then rest bytes
    uint32_t key_size;
    uint32_t rest_size;
    int64_t line;
  };

 private:
  int64_t BufferBytes() const;
  Status Spill();
  Result<std::string> NewRunPath();

  io::FileSystem& fs_;
  std::string spill_dir_;
  int64_t budget_;
  int64_t block_bytes_;
  std::vector<std::unique_ptr<char[]>> arena_;
  size_t arena_chunk_bytes_;
  size_t arena_used_ = 0;  // in the last chunk
  int64_t arena_bytes_ = 0;
  std::vector<Entry> entries_;
  std::vector<std::string> runs_;  // spilled run files, in the order written
  std::shared_ptr<std::vector<std::string>> owned_files_;
  int64_t records_ = 0;
  int64_t spilled_runs_ = 0;
  int64_t peak_buffer_bytes_ = 0;
  int next_run_ = 0;
};

}  // namespace cdclake::sources::snapshot
