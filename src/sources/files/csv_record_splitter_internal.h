// CsvRecordSplitter: cuts RFC 4180 records out of a ChunkedInput — fields, the record's raw
// text, its first line and byte offset — and recovers from malformed records.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sources/files/chunked_input_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

/// One field of a record: where its text is inside the record's raw text.
struct CsvField {
  size_t begin = 0;   // offset in CsvRecord::text of the first byte inside any quotes
  size_t length = 0;  // bytes up to (not including) the closing quote or separator
  bool quoted = false;
  bool has_doubled_quotes = false;  // "" inside a quoted field, to be unescaped
};

struct CsvRecord {
  /// The record without its line ending (for a malformed record: the text being skipped).
  std::string_view text;
  int64_t line = 0;     // 1-based line of the record's first byte
  uint64_t offset = 0;  // file offset of the record's first byte
  uint64_t end = 0;     // file offset just past the record, its line ending included
  /// A line ending (or a lone CR) ended the record; false for a last record the file ends in.
  bool terminated = true;
  /// A quoted field is still open at the end of the file: the record is not whole yet (its text
  /// runs to the end of the file; `error` says why it is not a record).
  bool pending = false;
  std::vector<CsvField> fields;
  /// Non-null when the record is malformed; `fields` is then meaningless.
  const char* error = nullptr;

  /// A field without quotes and without bytes: NULL.
  bool IsNull(size_t i) const { return !fields[i].quoted && fields[i].length == 0; }
};

/// Splits records. Blank lines (no bytes, or a lone CR) are skipped. A record whose quoted field
/// is still open at the end of the file is returned `pending` (its writer may not have closed it
/// yet); one open past kMaxQuotedBytes is malformed: its first line is returned as the bad
/// record and splitting resumes on the next line. Characters after a
/// closing quote make the record malformed up to the end of that line.
class CsvRecordSplitter {
 public:
  static constexpr size_t kMaxQuotedBytes = 64 << 20;

  /// REQUIRES: `input` outlives the splitter.
  explicit CsvRecordSplitter(ChunkedInput* input) : input_(input) {}

  /// Reads the next record into `*record`; false at the end of the file. The record's views
  /// stay valid until the next call.
  Result<bool> Next(CsvRecord* record);

  /// Field `i`'s text with doubled quotes undone (copied into `arena` only when needed).
  static std::string_view FieldText(const CsvRecord& record, size_t i, ScratchArena* arena);

  /// Starts over at the beginning of the file (after Rewind of the input).
  void Restart() {
    line_ = 1;
    started_ = false;
  }
  /// Starts on a record boundary inside the file: its first record is on line `line`, and no
  /// byte order mark is looked for.
  void StartAt(int64_t line) {
    line_ = line;
    started_ = true;
  }

 private:
  enum class Outcome { kRecord, kMalformed, kPending, kNeedMore, kEnd };

  // Splits one record from the front of `data`, setting `*consumed` to the bytes it takes
  // (line ending included).
  Outcome Split(std::string_view data, bool eof, CsvRecord* record, size_t* consumed);

  ChunkedInput* input_;
  int64_t line_ = 1;
  bool started_ = false;  // past a UTF-8 byte order mark
};

}  // namespace cdclake::sources::internal
