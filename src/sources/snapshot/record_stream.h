// RecordStream: anything that yields (key, rest, line) records in key order — a record file, a
// sorted in-memory run, or the merge of several.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace cdclake::sources::snapshot {

/// One record; the views stay valid until the next call to the stream's Next.
struct Record {
  std::string_view key;
  std::string_view rest;
  int64_t line = 0;
};

class RecordStream {
 public:
  virtual ~RecordStream() = default;
  /// Reads the next record into `*record`; false at the end.
  virtual Result<bool> Next(Record* record) = 0;
};

}  // namespace cdclake::sources::snapshot
