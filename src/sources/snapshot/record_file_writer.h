// RecordFileWriter: writes the snapshot diff's files — sorted runs and snapshot state — as
// checksummed blocks of (key, rest, line) records behind a header (format in docs/snapshots.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::sources::snapshot {

/// The first eight bytes of every record file.
inline constexpr std::string_view kRecordFileMagic = "CDCLREC1";

/// Writes records front to back. Nothing is visible under the file's name before Finish.
class RecordFileWriter {
 public:
  /// Creates `path` (published by Finish) whose header holds `header` (opaque bytes).
  static Result<std::unique_ptr<RecordFileWriter>> Open(io::FileSystem& fs, const std::string& path,
                                                        std::string_view header,
                                                        int64_t block_bytes = 64 << 10);

  /// Appends one record. `line` is where it came from (0 when unknown).
  Status Add(std::string_view key, std::string_view rest, int64_t line);

  /// Writes the last block and the trailer (record count and its checksum), then publishes.
  Status Finish();

  int64_t records() const { return records_; }
  uint64_t bytes_written() const;

 private:
  RecordFileWriter(std::unique_ptr<io::OutputStream> out, int64_t block_bytes)
      : out_(std::move(out)), block_bytes_(block_bytes) {}
  Status FlushBlock();

  std::unique_ptr<io::OutputStream> out_;
  int64_t block_bytes_;
  std::string block_;
  int64_t records_ = 0;
};

}  // namespace cdclake::sources::snapshot
