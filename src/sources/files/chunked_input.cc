// ChunkedInput: chunked reads with the unconsumed tail carried over.
#include "sources/files/chunked_input_internal.h"

#include <algorithm>

namespace cdclake::sources::internal {

Result<ChunkedInput> ChunkedInput::Open(const io::FileSystem& fs, const std::string& path,
                                        int64_t chunk_bytes) {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  return ChunkedInput(fs, std::move(file), size,
                      static_cast<uint64_t>(std::max<int64_t>(chunk_bytes, 1)), 0);
}

Result<ChunkedInput> ChunkedInput::OpenRange(const io::FileSystem& fs, const std::string& path,
                                             int64_t chunk_bytes, uint64_t begin, uint64_t end) {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  end = std::min(end, size);
  return ChunkedInput(fs, std::move(file), end,
                      static_cast<uint64_t>(std::max<int64_t>(chunk_bytes, 1)),
                      std::min(begin, end));
}

Status ChunkedInput::ReadMore() {
  if (at_eof()) return Status::OK();
  const uint64_t tail = buffer_.size() - consumed_;
  if (tail <= chunk_bytes_ / 8) {
    // Read the unconsumed tail (usually part of one record) again with the next chunk, straight
    // into the buffer: cheaper than copying every chunk behind it.
    const uint64_t start = buffer_offset_ + consumed_;
    const uint64_t length = std::min(chunk_bytes_, size_ - read_end_);
    CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(start, tail + length, &buffer_));
    buffer_offset_ = start;
    consumed_ = 0;
    read_end_ += length;
    return Status::OK();
  }
  // A long tail: carry it to the front, then append the next chunk.
  if (consumed_ > 0) {
    buffer_.erase(0, consumed_);
    buffer_offset_ += consumed_;
    consumed_ = 0;
  }
  uint64_t length = std::min(chunk_bytes_, size_ - read_end_);
  CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(read_end_, length, &chunk_));
  if (buffer_.empty()) {
    buffer_.swap(chunk_);
  } else {
    buffer_.append(chunk_);
  }
  read_end_ += length;
  return Status::OK();
}

void ChunkedInput::Rewind() {
  buffer_.clear();
  consumed_ = 0;
  buffer_offset_ = begin_;
  read_end_ = begin_;
}

Status ChunkedInput::SkipByteOrderMark() {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (offset() != 0) return Status::OK();  // a range that starts mid-file
  while (available().size() < kByteOrderMark.size() && !at_eof()) {
    CDCLAKE_RETURN_IF_ERROR(ReadMore());
  }
  if (available().substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    Consume(kByteOrderMark.size());
  }
  return Status::OK();
}

}  // namespace cdclake::sources::internal
