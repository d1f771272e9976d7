// RowText: kept texts as they are, texts left in files read back and checked by digest.
#include "change/row_text.h"

#include <xxhash.h>

#include "change/change_batch.h"

namespace cdclake::change {

uint64_t RowTextDigest(std::string_view text) {
  return XXH3_64bits(text.data(), text.size());
}

std::string RowTextSource::Read(std::string_view file, int64_t offset, uint64_t length,
                                uint64_t digest) const {
  if (file.empty() || offset < 0) return {};
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_ == nullptr || last_->path() != file) {
      Result<std::unique_ptr<io::RandomAccessFile>> opened = fs_.OpenRead(std::string(file));
      if (!opened.ok()) return {};
      last_ = std::move(*opened);
    }
    if (!last_->ReadAt(static_cast<uint64_t>(offset), length, &text).ok()) return {};
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

}  // namespace cdclake::change
