// RowText: kept texts as they are, texts left in files read back through a window and checked
// by digest.
#include "change/row_text.h"

#include <xxhash.h>

#include <algorithm>

#include "change/change_batch.h"
#include "data/value_format.h"

namespace cdclake::change {

uint64_t RowTextDigest(std::string_view text) {
  return XXH3_64bits(text.data(), text.size());
}

std::string RowTextSource::Read(std::string_view file, int64_t offset, uint64_t length,
                                uint64_t digest) const {
  if (file.empty() || offset < 0) return {};
  const auto at = static_cast<uint64_t>(offset);
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_ == nullptr || last_->path() != file) {
      window_.clear();
      Result<std::unique_ptr<io::RandomAccessFile>> opened = fs_.OpenRead(std::string(file));
      if (!opened.ok()) {
        last_.reset();
        return {};
      }
      last_ = std::move(*opened);
    }
    if (at < window_offset_ || at - window_offset_ + length > window_.size()) {
      window_.clear();
      Result<uint64_t> size = last_->Size();
      if (!size.ok() || at > *size || length > *size - at) return {};
      const uint64_t want = std::min(std::max(length, kWindowBytes), *size - at);
      if (!last_->ReadAt(at, want, &window_).ok()) {
        window_.clear();
        return {};
      }
      window_offset_ = at;
    }
    text = window_.substr(static_cast<size_t>(at - window_offset_), static_cast<size_t>(length));
  }
  if (RowTextDigest(text) != digest) return {};
  return text;
}

std::string RowText(const ChangeBatch& batch, size_t row) {
  if (row >= batch.raw.size()) return {};
  if (!batch.raw.in_file(row)) return std::string(batch.raw[row]);
  if (batch.text_source == nullptr || row >= batch.positions.size()) return {};
  return batch.text_source->Read(batch.positions.file(row), batch.positions.byte_offset(row),
                                 batch.raw.in_file_length(row), batch.raw.in_file_digest(row));
}

std::string RowTextOrJson(const ChangeBatch& batch, size_t row) {
  std::string text = RowText(batch, row);
  if (!text.empty()) return text;
  const data::RecordBatch& rows = batch.rows;
  const auto r = static_cast<int64_t>(row);
  text = "{";
  for (size_t c = 0; c < rows.num_columns(); ++c) {
    if (c) text += ",";
    data::AppendJsonString(rows.schema().field(c).name, &text);
    text += ":";
    data::AppendValueJson(rows.column(c).GetValue(r), *rows.schema().field(c).type, &text);
  }
  text += "}";
  return text;
}

}  // namespace cdclake::change
