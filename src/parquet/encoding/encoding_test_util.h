// Helpers shared by the encoding tests: exact-size heap copies of inputs (so AddressSanitizer
// catches any read past the end), hex literals, and the value counts every round trip covers.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cdclake::parquet::testing {

/// A heap copy of some bytes with no slack after them.
class ExactBytes {
 public:
  explicit ExactBytes(std::string_view bytes)
      : size_(bytes.size()), data_(std::make_unique<char[]>(bytes.size())) {
    if (size_ > 0) std::memcpy(data_.get(), bytes.data(), size_);
  }
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  size_t size_;
  std::unique_ptr<char[]> data_;
};

/// Bytes from hex digits; spaces are ignored ("80 01 04").
inline std::string FromHex(std::string_view hex) {
  auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out;
  int pending = -1;
  for (char c : hex) {
    if (c == ' ') continue;
    if (pending < 0) {
      pending = digit(c);
    } else {
      out.push_back(static_cast<char>(pending * 16 + digit(c)));
      pending = -1;
    }
  }
  return out;
}

/// The value counts the round-trip tests use.
inline const std::vector<size_t>& TestCounts() {
  static const std::vector<size_t> kCounts = {0, 1, 7, 8, 9, 127, 128, 129, 1000, 100000};
  return kCounts;
}

}  // namespace cdclake::parquet::testing
