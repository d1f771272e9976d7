// PositionList and RawTexts: per-row origins in packed form.
#include "change/row_origins.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace cdclake::change {

namespace {

// Room for `extra` more elements, growing by at least half again: a list appended to chunk by
// chunk would otherwise be copied whole at every append.
template <typename T>
void ReserveToAppend(std::vector<T>& v, size_t extra) {
  const size_t need = v.size() + extra;
  if (need > v.capacity()) v.reserve(std::max(need, v.capacity() + v.capacity() / 2));
}

}  // namespace

PositionList::PositionList(std::initializer_list<SourcePosition> positions) {
  for (const SourcePosition& p : positions) push_back(p);
}

PositionList::PositionList(const PositionList& other)
    : files_(other.files_), entries_(other.entries_) {}

PositionList& PositionList::operator=(const PositionList& other) {
  if (this != &other) {
    files_ = other.files_;
    file_ids_.clear();
    entries_ = other.entries_;
  }
  return *this;
}

void PositionList::clear() {
  files_.clear();
  file_ids_.clear();
  entries_.clear();
}

uint32_t PositionList::FileId(std::string_view file) {
  if (files_.empty()) files_.emplace_back();
  if (file.empty()) return 0;
  // Rows come in runs of one file: the last one added is the likeliest.
  if (!entries_.empty() && files_[entries_.back().file] == file) return entries_.back().file;
  constexpr size_t kSearchedUpTo = 16;
  if (files_.size() <= kSearchedUpTo) {
    for (size_t f = files_.size(); f-- > 1;) {
      if (files_[f] == file) return static_cast<uint32_t>(f);
    }
  } else {
    if (file_ids_.empty()) {
      for (size_t f = 1; f < files_.size(); ++f) file_ids_[files_[f]] = static_cast<uint32_t>(f);
    }
    if (auto it = file_ids_.find(file); it != file_ids_.end()) return it->second;
  }
  // The map's keys view the names in files_: a reallocation moves short names (kept inside
  // their std::string), so it is rebuilt after one.
  const size_t capacity = files_.capacity();
  files_.emplace_back(file);
  const auto id = static_cast<uint32_t>(files_.size() - 1);
  if (files_.capacity() != capacity) {
    file_ids_.clear();
  } else if (!file_ids_.empty()) {
    file_ids_[files_.back()] = id;
  }
  return id;
}

void PositionList::Add(std::string_view file, int64_t line, int64_t byte_offset, int64_t byte_end) {
  entries_.push_back(Entry{FileId(file), line, byte_offset, byte_end});
}

void PositionList::AddFrom(const PositionList& other, size_t i) {
  const Entry& e = other.entries_[i];
  Add(other.files_[e.file], e.line, e.byte_offset, e.byte_end);
}

void PositionList::Append(const PositionList& other) {
  if (entries_.empty() && &other != this) {
    *this = other;
    return;
  }
  const size_t n = other.size();  // `other` may be this list
  ReserveToAppend(entries_, n);
  for (size_t i = 0; i < n; ++i) AddFrom(other, i);
}

void PositionList::resize(size_t n) {
  if (files_.empty()) files_.emplace_back();
  entries_.resize(n);
}

void PositionList::Set(size_t i, const SourcePosition& p) {
  entries_[i] = Entry{FileId(p.file), p.line, p.byte_offset, p.byte_end};
}

const SourcePosition PositionList::operator[](size_t i) const {
  const Entry& e = entries_[i];
  return SourcePosition{files_[e.file], e.line, e.byte_offset, e.byte_end};
}

void PositionList::Keep(const std::vector<int64_t>& keep) {
  if (entries_.empty()) return;
  std::vector<Entry> kept;
  kept.reserve(keep.size());
  for (int64_t i : keep) {
    if (static_cast<size_t>(i) < entries_.size()) kept.push_back(entries_[static_cast<size_t>(i)]);
  }
  entries_ = std::move(kept);
}

PositionList PositionList::Slice(size_t begin, size_t end) const {
  PositionList out;
  out.entries_.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) out.AddFrom(*this, i);
  return out;
}

PositionList PositionList::TakeFront(size_t n) {
  n = std::min(n, entries_.size());
  PositionList front;
  if (n == entries_.size()) {
    std::swap(front, *this);
    return front;
  }
  // Both parts keep only the files they name: a list that rows pass through for a whole run
  // (PendingRows) would otherwise gather every file of the run and copy them all on each take.
  front = Slice(0, n);
  *this = Slice(n, entries_.size());
  return front;
}

RawTexts::RawTexts(std::initializer_list<std::string_view> texts) {
  for (std::string_view t : texts) push_back(t);
}

RawTexts& RawTexts::operator=(const RawTexts& other) {
  if (this != &other) {
    clear();
    Append(other);
  }
  return *this;
}

void RawTexts::clear() {
  blocks_.clear();
  block_sizes_.clear();
  used_ = 0;
  spans_.clear();
}

void RawTexts::push_back(std::string_view text) {
  if (text.empty()) {
    spans_.push_back(Span{});
    return;
  }
  if (blocks_.empty() || block_sizes_.back() - used_ < text.size()) {
    const size_t next =
        blocks_.empty() ? kFirstBlockBytes : std::min(kMostBlockBytes, block_sizes_.back() * 2);
    const size_t size = std::max(next, text.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    block_sizes_.push_back(size);
    used_ = 0;
  }
  std::memcpy(blocks_.back().get() + used_, text.data(), text.size());
  spans_.push_back(Span{static_cast<uint64_t>(used_), static_cast<uint64_t>(text.size()),
                        static_cast<uint32_t>(blocks_.size() - 1)});
  used_ += text.size();
}

void RawTexts::AddEmpty(size_t n) {
  spans_.resize(spans_.size() + n);
}

void RawTexts::AddInFile(uint64_t length, uint64_t digest) {
  spans_.push_back(Span{digest, length, kInFile});
}

void RawTexts::AddFrom(const RawTexts& other, size_t i) {
  if (i >= other.size()) {
    spans_.push_back(Span{});
  } else if (other.in_file(i)) {
    spans_.push_back(other.spans_[i]);
  } else {
    push_back(other[i]);
  }
}

void RawTexts::Append(const RawTexts& other) {
  const size_t n = other.size();  // `other` may be this list
  ReserveToAppend(spans_, n);
  for (size_t i = 0; i < n; ++i) AddFrom(other, i);
}

void RawTexts::Append(RawTexts&& other) {
  if (&other == this) {
    Append(static_cast<const RawTexts&>(other));
    return;
  }
  if (blocks_.empty() && spans_.empty()) {
    *this = std::move(other);
    other.clear();
    return;
  }
  const auto base = static_cast<uint32_t>(blocks_.size());
  ReserveToAppend(spans_, other.spans_.size());
  for (Span s : other.spans_) {
    if (s.length > 0 && s.block != kInFile) s.block += base;
    spans_.push_back(s);
  }
  if (!other.blocks_.empty()) {
    // Later texts go into `other`'s last block, where it left off.
    for (auto& block : other.blocks_) blocks_.push_back(std::move(block));
    block_sizes_.insert(block_sizes_.end(), other.block_sizes_.begin(), other.block_sizes_.end());
    used_ = other.used_;
  }
  other.clear();
}

std::string_view RawTexts::operator[](size_t i) const {
  const Span& s = spans_[i];
  if (s.length == 0 || s.block == kInFile) return {};
  return std::string_view(blocks_[s.block].get() + s.offset, s.length);
}

std::vector<std::string> RawTexts::ToStrings() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) {
    if (in_file(i)) {  // shown by what identifies it, so that two lists compare by it too
      out.push_back("(in file: " + std::to_string(in_file_length(i)) + " bytes, digest " +
                    std::to_string(in_file_digest(i)) + ")");
    } else {
      out.emplace_back((*this)[i]);
    }
  }
  return out;
}

void RawTexts::Keep(const std::vector<int64_t>& keep) {
  if (spans_.empty()) return;
  RawTexts kept;
  kept.reserve(keep.size());
  for (int64_t i : keep) {
    if (static_cast<size_t>(i) < spans_.size()) kept.AddFrom(*this, static_cast<size_t>(i));
  }
  *this = std::move(kept);
}

RawTexts RawTexts::TakeFront(size_t n) {
  n = std::min(n, spans_.size());
  RawTexts front;
  if (n == spans_.size()) {
    std::swap(front, *this);
    return front;
  }
  RawTexts back;
  front.reserve(n);
  back.reserve(spans_.size() - n);
  for (size_t i = 0; i < n; ++i) front.AddFrom(*this, i);
  for (size_t i = n; i < spans_.size(); ++i) back.AddFrom(*this, i);
  *this = std::move(back);
  return front;
}

}  // namespace cdclake::change
