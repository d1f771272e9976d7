// LineCursor: the lines of a ChunkedInput (LF or CRLF endings), each with its number and file
// offset.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "sources/files/chunked_input_internal.h"

namespace cdclake::sources::internal {

/// Cuts a ChunkedInput into lines (LF or CRLF), skipping a leading UTF-8 byte order mark.
class LineCursor {
 public:
  /// REQUIRES: `input` outlives the cursor.
  explicit LineCursor(ChunkedInput* input) : input_(input) {}

  /// The next line without its line ending, its 1-based number and its file offset; false at
  /// the end of the file. The view stays valid until the next call.
  Result<bool> Next(std::string_view* line, int64_t* number, uint64_t* offset);

  /// Numbers the lines from `first` on (a cursor over a range that starts at that line).
  void StartAtLine(int64_t first) { line_ = first - 1; }

  /// The last line's end: the file offset just past it, its line ending included.
  uint64_t end() const { return end_; }
  /// Whether a line ending (LF, or a CR the file ends in) ended the last line.
  bool terminated() const { return terminated_; }

 private:
  ChunkedInput* input_;
  int64_t line_ = 0;
  uint64_t end_ = 0;
  bool terminated_ = true;
  size_t scanned_ = 0;  // bytes of available() already searched for a newline
  bool started_ = false;
};

}  // namespace cdclake::sources::internal
