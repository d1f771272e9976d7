// DictionaryBuilder: the distinct values of a column chunk in first-seen order, kept in their
// PLAIN encoding (which is the dictionary page's body), with an open-addressing hash index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cdclake::parquet {

class DictionaryBuilder {
 public:
  /// `fixed_width` > 0: values are that many bytes each; 0: byte arrays (length-prefixed).
  explicit DictionaryBuilder(int fixed_width);

  /// The index of `value`, adding it when new.
  uint32_t Insert(std::string_view value);
  size_t size() const { return count_; }
  /// Bytes of the PLAIN-encoded dictionary page body so far.
  size_t encoded_bytes() const { return plain_.size(); }
  const std::string& plain() const { return plain_; }
  void Clear();

 private:
  std::string_view EntryAt(uint32_t index) const;
  void Grow();

  int fixed_width_;
  size_t count_ = 0;
  std::string plain_;
  std::vector<uint32_t> starts_;  // byte arrays: where each entry's bytes begin in plain_
  std::vector<uint64_t> hashes_;  // per entry
  std::vector<uint32_t> slots_;   // entry index + 1; 0 is empty
  uint64_t mask_ = 0;
};

/// A fast 64-bit hash of bytes (not cryptographic).
uint64_t HashBytes(std::string_view bytes);

}  // namespace cdclake::parquet
