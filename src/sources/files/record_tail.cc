// RecordTail: the text of a record that grew after it was read.
#include "sources/files/record_tail_internal.h"

#include <algorithm>

namespace cdclake::sources::internal {

std::string RecordTail::AppendedRaw(std::string_view now) const {
  const auto was_bytes =
      static_cast<size_t>(std::max<int64_t>(earlier_->byte_end - earlier_->byte_offset, 0));
  std::string raw = "was: ";
  raw.append(now.substr(0, std::min(was_bytes, now.size())));
  raw += "\nnow: ";
  raw.append(now);
  return raw;
}

std::string RecordTail::AppendedReason(int64_t line, uint64_t content_end) const {
  return "BYTES APPENDED TO A RECORD ALREADY READ: line " + std::to_string(line) +
         " ended the file without a line ending (bytes " + std::to_string(earlier_->byte_offset) +
         " to " + std::to_string(earlier_->byte_end) +
         ") when an earlier run read it, and it now goes on to byte " +
         std::to_string(content_end) +
         "; the version read then stands and this one is quarantined with both (was:/now:). "
         "The writer must end each record with its line ending before readers see it; apply "
         "the corrected record again if it is the right one";
}

}  // namespace cdclake::sources::internal
