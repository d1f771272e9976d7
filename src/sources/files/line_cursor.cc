// LineCursor: newline search across chunk boundaries.
#include "sources/files/line_cursor_internal.h"

#include <cstring>

namespace cdclake::sources::internal {

Result<bool> LineCursor::Next(std::string_view* line, int64_t* number, uint64_t* offset) {
  for (;;) {
    std::string_view data = input_->available();
    if (!started_) {
      CDCLAKE_RETURN_IF_ERROR(input_->SkipByteOrderMark());
      started_ = true;
      continue;
    }
    if (data.empty() && input_->at_eof()) return false;
    const void* nl = scanned_ < data.size()
                         ? std::memchr(data.data() + scanned_, '\n', data.size() - scanned_)
                         : nullptr;
    if (nl == nullptr && !input_->at_eof()) {
      scanned_ = data.size();
      CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
      continue;
    }
    size_t end = nl == nullptr ? data.size()
                               : static_cast<size_t>(static_cast<const char*>(nl) - data.data());
    std::string_view text = data.substr(0, end);
    terminated_ = nl != nullptr;
    if (!text.empty() && text.back() == '\r') {
      text.remove_suffix(1);
      terminated_ = true;
    }
    *line = text;
    *number = ++line_;
    *offset = input_->offset();
    const size_t consumed = nl == nullptr ? end : end + 1;
    end_ = *offset + consumed;
    input_->Consume(consumed);
    scanned_ = 0;
    return true;
  }
}

}  // namespace cdclake::sources::internal
