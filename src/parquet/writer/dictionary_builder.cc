// Dictionary building for RLE_DICTIONARY column chunks.
#include "parquet/writer/dictionary_builder.h"

#include <cstring>

#include "base/bytes.h"

namespace cdclake::parquet {

namespace {
constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4FULL;

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 31;
  h *= kMul2;
  h ^= h >> 29;
  return h;
}
}  // namespace

uint64_t HashBytes(std::string_view bytes) {
  uint64_t h = bytes.size() * kMul1;
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n >= 8) {
    h = (h ^ Mix(LoadLE<uint64_t>(p) * kMul1)) * kMul2;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = (h ^ Mix((tail + n) * kMul1)) * kMul2;
  return Mix(h);
}

DictionaryBuilder::DictionaryBuilder(int fixed_width) : fixed_width_(fixed_width) {
  Clear();
}

void DictionaryBuilder::Clear() {
  count_ = 0;
  plain_.clear();
  starts_.clear();
  hashes_.clear();
  slots_.assign(1024, 0);
  mask_ = slots_.size() - 1;
}

std::string_view DictionaryBuilder::EntryAt(uint32_t index) const {
  if (fixed_width_ > 0) {
    return std::string_view(plain_).substr(static_cast<size_t>(index) * fixed_width_, fixed_width_);
  }
  uint32_t start = starts_[index];
  uint32_t len = LoadLE<uint32_t>(plain_.data() + start - 4);
  return std::string_view(plain_).substr(start, len);
}

void DictionaryBuilder::Grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  uint64_t mask = slots.size() - 1;
  for (uint32_t i = 0; i < count_; ++i) {
    uint64_t pos = hashes_[i] & mask;
    while (slots[pos] != 0) pos = (pos + 1) & mask;
    slots[pos] = i + 1;
  }
  slots_.swap(slots);
  mask_ = mask;
}

uint32_t DictionaryBuilder::Insert(std::string_view value) {
  uint64_t h = HashBytes(value);
  uint64_t pos = h & mask_;
  while (true) {
    uint32_t slot = slots_[pos];
    if (slot == 0) break;
    uint32_t index = slot - 1;
    if (hashes_[index] == h && EntryAt(index) == value) return index;
    pos = (pos + 1) & mask_;
  }
  auto index = static_cast<uint32_t>(count_++);
  slots_[pos] = index + 1;
  hashes_.push_back(h);
  if (fixed_width_ == 0) {
    AppendLE<uint32_t>(&plain_, static_cast<uint32_t>(value.size()));
    starts_.push_back(static_cast<uint32_t>(plain_.size()));
  }
  plain_.append(value);
  if (count_ * 2 > slots_.size()) Grow();
  return index;
}

}  // namespace cdclake::parquet
