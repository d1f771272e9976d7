// ScratchArena: bump allocation of short-lived bytes (unescaped CSV fields and JSON strings)
// that must stay put until the record they belong to has been appended to its batch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace cdclake::sources::internal {

/// Hands out byte ranges that stay valid until the next Reset(); never moves what it gave out.
class ScratchArena {
 public:
  /// `n` writable bytes.
  char* Allocate(size_t n) {
    if (blocks_.empty() || blocks_[current_].size - used_ < n) NextBlock(n);
    char* out = blocks_[current_].data.get() + used_;
    used_ += n;
    return out;
  }

  /// Makes every byte handed out so far reusable.
  void Reset() {
    current_ = 0;
    used_ = 0;
  }

 private:
  static constexpr size_t kMinBlockBytes = 64 * 1024;

  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };

  void NextBlock(size_t n) {
    // Reuse the following blocks when they are big enough; otherwise add one.
    while (!blocks_.empty() && current_ + 1 < blocks_.size()) {
      ++current_;
      used_ = 0;
      if (blocks_[current_].size >= n) return;
    }
    size_t size = std::max(kMinBlockBytes, n);
    blocks_.push_back(Block{std::make_unique<char[]>(size), size});
    current_ = blocks_.size() - 1;
    used_ = 0;
  }

  std::vector<Block> blocks_;
  size_t current_ = 0;
  size_t used_ = 0;
};

}  // namespace cdclake::sources::internal
