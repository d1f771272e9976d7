// Byte coding: little-endian loads and stores, ULEB128 varints, zigzag, and a bounds-checked
// cursor over a byte view. Bytes travel as std::string (owned) and std::string_view (borrowed).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/result.h"

namespace cdclake {

template <typename T>
inline T LoadLE(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;  // every target we build for is little endian (checked in bytes.cc)
}

template <typename T>
inline void StoreLE(void* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
inline void AppendLE(std::string* out, T v) {
  char buf[sizeof(T)];
  StoreLE(buf, v);
  out->append(buf, sizeof(T));
}

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

/// Appends `v` as an unsigned LEB128 varint.
void AppendVarint(std::string* out, uint64_t v);

/// A read cursor over borrowed bytes. Every read checks bounds and returns kCorrupt past the end,
/// naming `what` was being read and the offset.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool AtEnd() const { return pos_ >= data_.size(); }
  std::string_view data() const { return data_; }

  Result<uint8_t> ReadByte();
  Result<uint64_t> ReadVarint();  // at most 10 bytes
  Result<std::string_view> ReadBytes(size_t n);
  Status Skip(size_t n);

  template <typename T>
  Result<T> ReadLE() {
    if (remaining() < sizeof(T)) return Truncated(sizeof(T));
    T v = LoadLE<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }

 private:
  Status Truncated(size_t wanted) const;

  std::string_view data_;
  size_t pos_ = 0;
};

/// Hex of bytes, lower case ("0a1b").
std::string HexEncode(std::string_view bytes);
/// The bytes of hex digits (either case, an even count); nullopt if `hex` is not that.
std::optional<std::string> HexDecode(std::string_view hex);

/// The `n` bytes at `p` (n <= 8) as a big-endian (network order) unsigned integer.
inline uint64_t LoadBigEndian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
/// `v` as 8 big-endian bytes at `p`.
inline void StoreBigEndian64(uint64_t v, char* p) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

/// CRC-32 (IEEE 802.3, as zlib computes it).
uint32_t Crc32(std::string_view bytes, uint32_t seed = 0);

}  // namespace cdclake
