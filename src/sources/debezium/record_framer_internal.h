// RecordFramer: cuts a file of JSON values — one per line, pretty-printed one after another, or
// inside top-level arrays — into records, each with its line and byte offset, and skips past
// text that is not JSON to the next place a record can start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "sources/files/chunked_input_internal.h"

namespace cdclake::sources::internal {

/// The framer hands out a record as the rest of its first line (the cheap, usual case: one
/// record per line); when the record goes on past the line, Extend finds its end with the JSON
/// grammar. The caller then consumes the record's bytes, or Skips it when it is not valid JSON.
/// The elements of a top-level array are records; commas and brackets between them are not.
class RecordFramer {
 public:
  struct Record {
    std::string_view text;  // from the record's first byte to the end of its line (or value)
    int64_t line = 0;       // 1-based line of the first byte
    uint64_t offset = 0;    // file offset of the first byte
    bool whole = false;     // text is the whole value (after Extend)
    bool cut = false;       // text stops before the end of its line (a very long line)
    /// After an Extend that failed: the file ends inside the value, which its writer may not
    /// have finished (not invalid, not consumed: pending).
    bool pending = false;
  };

  /// REQUIRES: `input` outlives the framer and is at its start.
  static constexpr size_t kMaxLineBytes = size_t{1} << 20;

  explicit RecordFramer(ChunkedInput* input) : input_(input) {}
  /// For an input that starts inside a file (ChunkedInput::OpenRange, at a line's start):
  /// `first_line` is that line's number.
  RecordFramer(ChunkedInput* input, int64_t first_line) : input_(input), line_(first_line) {}

  /// The next record; false at the end of the file. Until Consume or Skip, calling Next again
  /// returns the same record. A line longer than kMaxLineBytes (a whole JSON array on one
  /// line) is handed out cut there; Extend then reads on.
  Result<bool> Next(Record* record);
  /// Replaces record->text by the whole JSON value starting there (reading on as needed).
  /// False, with `*reason`, when the text from there is not valid JSON.
  Result<bool> Extend(Record* record, std::string* reason);
  /// Consumes the first `n` bytes of the current record.
  void Consume(size_t n);
  /// The file offset just past the current record's first `n` bytes and the line ending right
  /// after them (blanks, then LF), before Consume; `*unterminated` is whether the file ends
  /// there without a line ending.
  uint64_t EndOf(const Record& record, size_t n, bool* unterminated) const;
  /// Consumes the current record, which is not valid JSON, up to the next line that can start a
  /// record (not indented deeper than the record's own line, starting with '{', '[' or 'n', or
  /// ']' inside an array); `*raw` gets the skipped text without trailing whitespace (and
  /// array commas).
  Status Skip(std::string* raw);

 private:
  // Consumes bytes that are not a record (whitespace, array punctuation), counting lines.
  Result<bool> SkipSeparators();
  // Whether a line of `data` after its first can start a record (as Skip resynchronises).
  bool RecordStartsAfterFirstLine(std::string_view data) const;

  ChunkedInput* input_;
  int64_t line_ = 1;            // line of available()[0]
  int64_t line_indent_ = 0;     // leading blanks of that line
  bool line_has_text_ = false;  // a non-blank byte came before available()[0] on its line
  int64_t record_indent_ = 0;   // leading blanks of the current record's first line
  bool in_array_ = false;
  size_t line_bytes_ = 0;  // bytes of available() known to hold no newline (the record's line)
  bool started_ = false;   // the byte order mark was looked for
};

}  // namespace cdclake::sources::internal
