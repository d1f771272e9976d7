// PositionList and RawTexts: where each row of a change batch came from and its raw text,
// packed per batch (one copy of each file name, the texts in shared blocks) instead of a string
// or two per row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cdclake::change {

/// Where a row or a rejected record came from.
struct SourcePosition {
  std::string file;
  int64_t line = 0;         // 1-based line (or record number) in `file`; 0 when unknown
  int64_t byte_offset = 0;  // offset of the record's first byte in `file`
  int64_t byte_end = 0;     // offset just past the record, its terminator included; 0: unknown
};

/// The positions of a batch's rows, in row order. Entries are values: operator[] returns a copy
/// (a const one, so that assigning to its members does not compile); change one with Set.
class PositionList {
 public:
  PositionList() = default;
  PositionList(std::initializer_list<SourcePosition> positions);
  PositionList(const PositionList& other);
  PositionList& operator=(const PositionList& other);
  PositionList(PositionList&&) noexcept = default;
  PositionList& operator=(PositionList&&) noexcept = default;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void reserve(size_t n) { entries_.reserve(n); }
  void clear();

  /// Appends a position; the file name is stored once however many rows name it.
  void push_back(const SourcePosition& p) { Add(p.file, p.line, p.byte_offset, p.byte_end); }
  void Add(std::string_view file, int64_t line, int64_t byte_offset, int64_t byte_end);
  /// Appends entry `i` of `other`.
  void AddFrom(const PositionList& other, size_t i);
  /// Appends every entry of `other`.
  void Append(const PositionList& other);
  /// Grows (unknown positions: no file, zeros) or shrinks to `n` entries.
  void resize(size_t n);
  /// Replaces entry `i`.
  void Set(size_t i, const SourcePosition& p);

  const SourcePosition operator[](size_t i) const;
  const SourcePosition back() const { return (*this)[size() - 1]; }
  std::string_view file(size_t i) const { return files_[entries_[i].file]; }
  int64_t line(size_t i) const { return entries_[i].line; }
  int64_t byte_offset(size_t i) const { return entries_[i].byte_offset; }
  int64_t byte_end(size_t i) const { return entries_[i].byte_end; }

  /// Keeps entries `keep` (ascending indices; those past the end are skipped).
  void Keep(const std::vector<int64_t>& keep);
  /// Removes and returns the first `n` entries.
  PositionList TakeFront(size_t n);

  /// Iteration by value, for range-for over the positions.
  class Iterator {
   public:
    Iterator(const PositionList* list, size_t i) : list_(list), i_(i) {}
    const SourcePosition operator*() const { return (*list_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const PositionList* list_;
    size_t i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  struct Entry {
    uint32_t file = 0;
    int64_t line = 0;
    int64_t byte_offset = 0;
    int64_t byte_end = 0;
  };
  uint32_t FileId(std::string_view file);
  // Entries [begin, end) in a list of their own, holding only the files they name.
  PositionList Slice(size_t begin, size_t end) const;

  std::vector<std::string> files_;  // files_[0] is "" (no file) once any entry exists
  std::unordered_map<std::string_view, uint32_t> file_ids_;  // of files_, once there are many
  std::vector<Entry> entries_;
};

/// The raw texts of a batch's rows, in row order, in blocks shared by many rows. Rows may have
/// no text (empty), or have it *in their file*: a reader of a file that can be read again keeps
/// only the text's length and digest, and the text is read back from the row's position when
/// someone needs it (change/row_text.h: RowText). operator[] gives such a row no text.
class RawTexts {
 public:
  RawTexts() = default;
  RawTexts(std::initializer_list<std::string_view> texts);
  RawTexts(const RawTexts& other) { Append(other); }
  RawTexts& operator=(const RawTexts& other);
  RawTexts(RawTexts&&) noexcept = default;
  RawTexts& operator=(RawTexts&&) noexcept = default;

  size_t size() const { return spans_.size(); }
  bool empty() const { return spans_.empty(); }
  void reserve(size_t n) { spans_.reserve(n); }
  void clear();

  void push_back(std::string_view text);
  void emplace_back(std::string_view text = {}) { push_back(text); }
  /// Appends `n` empty texts.
  void AddEmpty(size_t n);
  /// Appends a text left in its file: `length` bytes from the row's position's byte_offset,
  /// whose XXH3-64 is `digest`.
  void AddInFile(uint64_t length, uint64_t digest);
  /// Appends entry `i` of `other` (its text, or where it is in its file); no text when `other`
  /// has no entry `i`.
  void AddFrom(const RawTexts& other, size_t i);
  void Append(const RawTexts& other);
  /// Appends `other`'s texts by taking its blocks over (nothing copied) and leaves it empty;
  /// appending a list to itself copies.
  void Append(RawTexts&& other);

  std::string_view operator[](size_t i) const;
  /// Whether entry `i` is a text left in its file, and then its length and digest.
  bool in_file(size_t i) const { return spans_[i].block == kInFile; }
  uint64_t in_file_length(size_t i) const { return spans_[i].length; }
  uint64_t in_file_digest(size_t i) const { return spans_[i].offset; }

  void Keep(const std::vector<int64_t>& keep);
  RawTexts TakeFront(size_t n);

  /// The texts as strings (for tests and messages); a text left in its file shows as its length
  /// and digest.
  std::vector<std::string> ToStrings() const;
  friend bool operator==(const RawTexts& a, const RawTexts& b) {
    return a.ToStrings() == b.ToStrings();
  }
  friend bool operator==(const RawTexts& a, const std::vector<std::string>& b) {
    return a.ToStrings() == b;
  }

 private:
  struct Span {
    uint64_t offset = 0;  // in the block; the digest when in the file
    uint64_t length = 0;
    uint32_t block = 0;  // kInFile: the text is in the row's file
  };
  static constexpr uint32_t kInFile = 0xFFFFFFFF;
  // Blocks start small (a list of a few short texts stays small) and double up to the most.
  static constexpr size_t kFirstBlockBytes = 4 << 10;
  static constexpr size_t kMostBlockBytes = 1 << 20;

  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<size_t> block_sizes_;  // capacity of each block
  size_t used_ = 0;                  // bytes used in the last block
  std::vector<Span> spans_;
};

}  // namespace cdclake::change
