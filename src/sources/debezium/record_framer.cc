// RecordFramer: line-first framing with a grammar fallback for values that span lines, and
// resynchronisation after invalid JSON.
#include "sources/debezium/record_framer_internal.h"

#include <algorithm>
#include <cstring>

#include "sources/files/json_scanner_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

void RecordFramer::Consume(size_t n) {
  std::string_view data = input_->available().substr(0, n);
  size_t start = 0;
  // Within the current record's first line there is no newline to count.
  const bool one_line = n <= line_bytes_;
  line_bytes_ = 0;
  for (; !one_line;) {
    const void* nl = std::memchr(data.data() + start, '\n', data.size() - start);
    if (nl == nullptr) break;
    ++line_;
    line_indent_ = 0;
    line_has_text_ = false;
    start = static_cast<size_t>(static_cast<const char*>(nl) - data.data()) + 1;
  }
  for (size_t i = start; i < data.size() && !line_has_text_; ++i) {
    if (IsBlank(data[i])) {
      ++line_indent_;
    } else {
      line_has_text_ = true;
    }
  }
  input_->Consume(n);
}

uint64_t RecordFramer::EndOf(const Record& record, size_t n, bool* unterminated) const {
  std::string_view data = input_->available();
  size_t i = n;
  while (i < data.size() && IsBlank(data[i])) ++i;
  *unterminated = false;
  if (i < data.size() && data[i] == '\n') return record.offset + i + 1;
  if (i >= data.size() && input_->at_eof()) *unterminated = true;
  return record.offset + n;
}

bool RecordFramer::RecordStartsAfterFirstLine(std::string_view data) const {
  size_t nl = data.find('\n');
  while (nl != std::string_view::npos) {
    size_t i = nl + 1;
    while (i < data.size() && (data[i] == ' ' || data[i] == '\t')) ++i;
    const char c = i < data.size() ? data[i] : '\0';
    if (static_cast<int64_t>(i - nl - 1) <= record_indent_ &&
        (c == '{' || c == '[' || c == 'n' || (in_array_ && c == ']'))) {
      return true;
    }
    nl = data.find('\n', i);
  }
  return false;
}

Result<bool> RecordFramer::SkipSeparators() {
  for (;;) {
    std::string_view data = input_->available();
    if (!started_) {
      CDCLAKE_RETURN_IF_ERROR(input_->SkipByteOrderMark());
      started_ = true;
      continue;
    }
    size_t i = 0;
    while (i < data.size()) {
      char c = data[i];
      if (IsBlank(c) || c == '\n' || (in_array_ && c == ',')) {
        ++i;
      } else if (in_array_ && c == ']') {
        in_array_ = false;
        ++i;
      } else if (!in_array_ && c == '[') {
        in_array_ = true;
        ++i;
      } else {
        break;
      }
    }
    Consume(i);
    if (i < data.size()) return true;
    if (input_->at_eof()) return false;
    CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
  }
}

Result<bool> RecordFramer::Next(Record* record) {
  CDCLAKE_ASSIGN_OR_RETURN(bool more, SkipSeparators());
  if (!more) return false;
  record_indent_ = line_indent_;
  size_t scanned = 0;
  for (;;) {
    std::string_view data = input_->available();
    const void* nl = std::memchr(data.data() + scanned, '\n', data.size() - scanned);
    const bool cut = nl == nullptr && !input_->at_eof() && data.size() >= kMaxLineBytes;
    if (nl == nullptr && !input_->at_eof() && !cut) {
      scanned = data.size();
      CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
      continue;
    }
    size_t end = nl == nullptr ? data.size()
                               : static_cast<size_t>(static_cast<const char*>(nl) - data.data());
    record->text = data.substr(0, end);
    record->line = line_;
    record->offset = input_->offset();
    record->whole = false;
    record->cut = cut;
    record->pending = false;
    line_bytes_ = end;
    return true;
  }
}

Result<bool> RecordFramer::Extend(Record* record, std::string* reason) {
  ScratchArena arena;
  for (;;) {
    std::string_view data = input_->available();
    arena.Reset();
    JsonScanner scanner(data, &arena);
    JsonValue value;
    if (scanner.ReadValue(&value)) {
      record->text = data.substr(0, scanner.position());
      record->whole = true;
      return true;
    }
    // An error in the last bytes read may be a token cut by the chunk ("fal|se"): read on.
    constexpr size_t kLongestToken = 8;
    if (scanner.error_offset() + kLongestToken < data.size() || input_->at_eof()) {
      // Cut by the end of the file, and no record begun since: its writer is still at it.
      record->pending = input_->at_eof() && scanner.ended_early() &&
                        !RecordStartsAfterFirstLine(data.substr(0, scanner.error_offset()));
      *reason = "invalid JSON at byte " + std::to_string(scanner.error_offset() + 1) +
                " of the record: " + scanner.error();
      // A line that stops short and a next line that starts a new record: say so.
      size_t line_end = std::min(record->text.size(), data.size());
      bool blank_between = scanner.error_offset() >= line_end;
      for (size_t i = line_end; blank_between && i < scanner.error_offset(); ++i) {
        blank_between = IsBlank(data[i]) || data[i] == '\n';
      }
      if (blank_between) *reason = "invalid JSON: the record is cut short (truncated)";
      return false;
    }
    CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
  }
}

Status RecordFramer::Skip(std::string* raw) {
  // Line by line from the record's first line, looking for one that can start a record.
  size_t line_start = 0;  // start of the line being looked at, in available()
  bool first = true;
  size_t resync = std::string_view::npos;
  while (resync == std::string_view::npos) {
    std::string_view data = input_->available();
    const void* nl = std::memchr(data.data() + line_start, '\n', data.size() - line_start);
    if (nl == nullptr && !input_->at_eof()) {
      CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
      continue;
    }
    if (!first) {
      size_t i = line_start;
      while (i < data.size() && (data[i] == ' ' || data[i] == '\t')) ++i;
      int64_t indent = static_cast<int64_t>(i - line_start);
      char c = i < data.size() ? data[i] : '\0';
      if (indent <= record_indent_ &&
          (c == '{' || c == '[' || c == 'n' || (in_array_ && c == ']'))) {
        resync = line_start;
        break;
      }
    }
    first = false;
    if (nl == nullptr) {
      resync = data.size();
      break;
    }
    line_start = static_cast<size_t>(static_cast<const char*>(nl) - data.data()) + 1;
  }
  std::string_view text = input_->available().substr(0, resync);
  while (!text.empty() &&
         (IsBlank(text.back()) || text.back() == '\n' || (in_array_ && text.back() == ','))) {
    text.remove_suffix(1);
  }
  raw->assign(text);
  Consume(resync);
  return Status::OK();
}

}  // namespace cdclake::sources::internal
