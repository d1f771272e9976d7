// RecordTail: what a text reader knows about the end of its file — the record there that is not
// whole yet (pending), the last record when it ended the file without a terminator, and whether
// an earlier run's unterminated last record has had bytes appended since.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sources/files/record_span.h"

namespace cdclake::sources::internal {

class RecordTail {
 public:
  /// `earlier`: ChangeSourceOptions::unterminated_last, the span an earlier run consumed.
  explicit RecordTail(std::optional<RecordSpan> earlier = std::nullopt) : earlier_(earlier) {}

  /// Whether the record starting at `offset` whose text (terminator excluded) ends at
  /// `content_end` is the earlier run's unterminated last record, now ending elsewhere.
  bool Appended(uint64_t offset, uint64_t content_end) const {
    return earlier_.has_value() && static_cast<int64_t>(offset) == earlier_->byte_offset &&
           static_cast<int64_t>(content_end) != earlier_->byte_end;
  }
  /// For an Appended record whose text is now `now`: the raw text holding both versions, the
  /// reason, and the offset to give its position — where the appended bytes start, past the
  /// earlier run's position in the file, so the caller keeps it rather than dropping it as read.
  std::string AppendedRaw(std::string_view now) const;
  std::string AppendedReason(int64_t line, uint64_t content_end) const;
  uint64_t AppendedOffset() const { return static_cast<uint64_t>(earlier_->byte_end); }

  /// Notes the record just returned (row or rejected): [offset, end), and whether a terminator
  /// ended it.
  void NoteReturned(uint64_t offset, uint64_t end, bool terminated) {
    if (terminated) {
      unterminated_last_.reset();
    } else {
      unterminated_last_ = RecordSpan{static_cast<int64_t>(offset), static_cast<int64_t>(end)};
    }
  }
  /// Notes the record at the end of the file that is not whole yet.
  void NotePending(int64_t line, uint64_t offset, uint64_t end) {
    pending_ =
        PendingRecord{line, static_cast<int64_t>(offset), static_cast<int64_t>(end - offset)};
  }

  const std::optional<PendingRecord>& pending() const { return pending_; }
  const std::optional<RecordSpan>& unterminated_last() const { return unterminated_last_; }

 private:
  std::optional<RecordSpan> earlier_;
  std::optional<PendingRecord> pending_;
  std::optional<RecordSpan> unterminated_last_;
};

}  // namespace cdclake::sources::internal
