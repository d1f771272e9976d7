// RecordSpan and PendingRecord: where a record lies in a file, and the record at a file's end
// that its writer has not finished yet (shared by every text reader and ChangeSource).
#pragma once

#include <cstdint>
#include <string>

namespace cdclake::sources {

/// A record's place in a file: [byte_offset, byte_end).
struct RecordSpan {
  int64_t byte_offset = 0;
  int64_t byte_end = 0;
};

/// An unterminated record at the end of a file that is not a whole record yet (its writer has
/// not finished it): neither a row nor a rejected record, and not consumed, so a later run reads
/// it again once it is complete.
struct PendingRecord {
  int64_t line = 0;  // 1-based line (or record number) where it starts
  int64_t byte_offset = 0;
  int64_t bytes = 0;  // how many bytes of it are there so far
  /// The whole file is pending: a Parquet file whose footer is not written yet (its rows are
  /// only readable once it is).
  bool whole_file = false;
};

/// A pending record and the file it is in, as run summaries report them.
struct PendingFile {
  std::string file;
  PendingRecord record;
};

}  // namespace cdclake::sources
