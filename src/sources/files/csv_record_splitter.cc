// CsvRecordSplitter: the RFC 4180 state machine over buffered chunks.
#include "sources/files/csv_record_splitter_internal.h"

#include <algorithm>
#include <cstring>

namespace cdclake::sources::internal {

namespace {

size_t CountNewlines(std::string_view s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// `s` without one trailing CR.
std::string_view WithoutCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace

CsvRecordSplitter::Outcome CsvRecordSplitter::Split(std::string_view data, bool eof,
                                                    CsvRecord* record, size_t* consumed) {
  if (data.empty()) return eof ? Outcome::kEnd : Outcome::kNeedMore;
  const char* base = data.data();
  const size_t n = data.size();
  record->fields.clear();
  record->error = nullptr;
  record->pending = false;

  // A malformed record: the text from its start to the end of the line holding `from`.
  auto malformed_to_line_end = [&](size_t from, const char* why) {
    const void* nl = from < n ? std::memchr(base + from, '\n', n - from) : nullptr;
    if (nl == nullptr && !eof) return Outcome::kNeedMore;
    size_t end = nl == nullptr ? n : static_cast<size_t>(static_cast<const char*>(nl) - base);
    record->text = WithoutCr(data.substr(0, end));
    record->error = why;
    *consumed = nl == nullptr ? n : end + 1;
    return Outcome::kMalformed;
  };

  size_t i = 0;
  for (;;) {
    if (i < n && base[i] == '"') {
      // Quoted field: up to a quote that is not doubled.
      const size_t open = i + 1;
      size_t j = open;
      bool doubled = false;
      size_t close;
      for (;;) {
        const void* q = j < n ? std::memchr(base + j, '"', n - j) : nullptr;
        if (q == nullptr) {
          if (n - open <= kMaxQuotedBytes) {
            if (!eof) return Outcome::kNeedMore;
            // The file ends inside the quotes: the writer may still close them.
            record->text = data;
            record->error = "unterminated quoted field";
            record->pending = true;
            *consumed = n;
            return Outcome::kPending;
          }
          return malformed_to_line_end(0, "unterminated quoted field");
        }
        size_t k = static_cast<size_t>(static_cast<const char*>(q) - base);
        if (k + 1 < n && base[k + 1] == '"') {
          doubled = true;
          j = k + 2;
          continue;
        }
        if (k + 1 == n && !eof) return Outcome::kNeedMore;  // the next byte may be a quote
        close = k;
        break;
      }
      record->fields.push_back(CsvField{open, close - open, true, doubled});
      i = close + 1;
      if (i == n) {
        // eof here: the record ends with the file.
        record->text = data.substr(0, n);
        *consumed = n;
        return Outcome::kRecord;
      }
      char c = base[i];
      if (c == ',') {
        ++i;
        continue;
      }
      if (c == '\n') {
        record->text = data.substr(0, i);
        *consumed = i + 1;
        return Outcome::kRecord;
      }
      if (c == '\r') {
        if (i + 1 == n) {
          if (!eof) return Outcome::kNeedMore;
          record->text = data.substr(0, i);
          *consumed = n;
          return Outcome::kRecord;
        }
        if (base[i + 1] == '\n') {
          record->text = data.substr(0, i);
          *consumed = i + 2;
          return Outcome::kRecord;
        }
      }
      return malformed_to_line_end(i, "unexpected character after a closing quote");
    }
    // Unquoted field: up to a comma or the end of the line (a quote inside is plain text).
    size_t j = i;
    while (j < n && base[j] != ',' && base[j] != '\n') ++j;
    if (j == n && !eof) return Outcome::kNeedMore;
    if (j < n && base[j] == ',') {
      record->fields.push_back(CsvField{i, j - i, false, false});
      i = j + 1;
      continue;
    }
    size_t end = j;
    if (end > i && base[end - 1] == '\r') --end;
    record->fields.push_back(CsvField{i, end - i, false, false});
    record->text = data.substr(0, end);
    *consumed = j < n ? j + 1 : n;
    return Outcome::kRecord;
  }
}

Result<bool> CsvRecordSplitter::Next(CsvRecord* record) {
  for (;;) {
    std::string_view data = input_->available();
    if (!started_) {
      CDCLAKE_RETURN_IF_ERROR(input_->SkipByteOrderMark());
      started_ = true;
      continue;
    }
    size_t consumed = 0;
    Outcome outcome = Split(data, input_->at_eof(), record, &consumed);
    if (outcome == Outcome::kNeedMore) {
      CDCLAKE_RETURN_IF_ERROR(input_->ReadMore());
      continue;
    }
    if (outcome == Outcome::kEnd) return false;
    record->line = line_;
    record->offset = input_->offset();
    record->end = record->offset + consumed;
    record->terminated = consumed > record->text.size();
    line_ += static_cast<int64_t>(CountNewlines(data.substr(0, consumed)));
    input_->Consume(consumed);
    if (outcome == Outcome::kRecord && record->fields.size() == 1 && record->IsNull(0) &&
        record->text.size() == 0) {
      continue;  // a blank line
    }
    return true;
  }
}

std::string_view CsvRecordSplitter::FieldText(const CsvRecord& record, size_t i,
                                              ScratchArena* arena) {
  const CsvField& f = record.fields[i];
  std::string_view text = record.text.substr(f.begin, f.length);
  if (!f.has_doubled_quotes) return text;
  char* out = arena->Allocate(text.size());
  size_t w = 0;
  for (size_t r = 0; r < text.size(); ++r) {
    out[w++] = text[r];
    if (text[r] == '"') ++r;  // the second quote of a pair
  }
  return std::string_view(out, w);
}

}  // namespace cdclake::sources::internal
