// ChunkedInput: a file read front to back in large chunks through io::FileSystem, keeping the
// bytes of a record that straddles two chunks together.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "change/row_text.h"
#include "io/file_system.h"

namespace cdclake::sources::internal {

class ChunkedInput {
 public:
  /// REQUIRES: chunk_bytes > 0.
  static Result<ChunkedInput> Open(const io::FileSystem& fs, const std::string& path,
                                   int64_t chunk_bytes);
  /// The bytes [begin, end) of the file only, as if the file began and ended there (offsets
  /// stay the file's). `end` past the file's size means its end.
  static Result<ChunkedInput> OpenRange(const io::FileSystem& fs, const std::string& path,
                                        int64_t chunk_bytes, uint64_t begin, uint64_t end);

  /// The bytes read and not yet consumed. Views into it stay valid until ReadMore or Rewind.
  std::string_view available() const { return std::string_view(buffer_).substr(consumed_); }
  /// The file offset of available()[0].
  uint64_t offset() const { return buffer_offset_ + consumed_; }
  /// Whether every byte of the file has been read into the buffer.
  bool at_eof() const { return read_end_ >= size_; }
  /// The offset just past the last byte read: the file's size, or the range's end.
  uint64_t size() const { return size_; }

  /// Drops the first `n` available bytes. REQUIRES: n <= available().size().
  void Consume(size_t n) { consumed_ += n; }
  /// Appends the next chunk of the file to available(). REQUIRES: !at_eof().
  Status ReadMore();
  /// Reads the file's texts back (for rows that leave their text in the file).
  const std::shared_ptr<const change::RowTextSource>& text_source() const { return text_source_; }
  /// Starts over at the first byte of the file (of the range).
  void Rewind();
  /// Consumes a UTF-8 byte-order mark at the current position, if there is one and the
  /// position is the file's start (reading more first when fewer than three bytes are
  /// available). A range that starts later starts on a record, whatever its bytes.
  Status SkipByteOrderMark();

 private:
  ChunkedInput(const io::FileSystem& fs, std::unique_ptr<io::RandomAccessFile> file, uint64_t size,
               uint64_t chunk_bytes, uint64_t begin)
      : text_source_(std::make_shared<change::RowTextSource>(fs)),
        file_(std::move(file)),
        size_(size),
        chunk_bytes_(chunk_bytes),
        begin_(begin),
        buffer_offset_(begin),
        read_end_(begin) {}

  std::shared_ptr<const change::RowTextSource> text_source_;
  std::unique_ptr<io::RandomAccessFile> file_;
  uint64_t size_ = 0;
  uint64_t chunk_bytes_ = 0;
  uint64_t begin_ = 0;  // the range's first byte (0: the whole file)
  std::string buffer_;
  std::string chunk_;           // the last chunk read, before it joins buffer_
  size_t consumed_ = 0;         // bytes of buffer_ already consumed
  uint64_t buffer_offset_ = 0;  // file offset of buffer_[0]
  uint64_t read_end_ = 0;       // file offset just past buffer_
};

}  // namespace cdclake::sources::internal
