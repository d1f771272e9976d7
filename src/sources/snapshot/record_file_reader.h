// RecordFileReader: reads a RecordFileWriter's file back, one block in memory at a time,
// checking every block's checksum and the trailer's record count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "io/file_system.h"
#include "sources/snapshot/record_stream.h"

namespace cdclake::sources::snapshot {

class RecordFileReader : public RecordStream {
 public:
  /// Opens `path` and reads its header. kCorrupt when the magic or the header's checksum is
  /// wrong.
  static Result<std::unique_ptr<RecordFileReader>> Open(const io::FileSystem& fs,
                                                        const std::string& path);

  /// The header bytes the writer was given.
  const std::string& header() const { return header_; }

  /// Reads the next record into `*record`; false at the end. kCorrupt (naming the file and
  /// offset) for a bad checksum, a torn file or a record count that does not match.
  Result<bool> Next(Record* record) override;

 private:
  RecordFileReader(std::unique_ptr<io::RandomAccessFile> file, uint64_t size)
      : file_(std::move(file)), size_(size) {}
  Status LoadBlock();
  Status Corrupt(const std::string& what) const;

  std::unique_ptr<io::RandomAccessFile> file_;
  uint64_t size_;
  uint64_t offset_ = 0;  // of the next block frame
  std::string header_;
  std::string block_;
  size_t block_pos_ = 0;
  bool ended_ = false;
  int64_t records_ = 0;
};

}  // namespace cdclake::sources::snapshot
