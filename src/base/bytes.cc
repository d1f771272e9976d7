// Byte coding helpers.
#include "base/bytes.h"

#include <bit>
#include <string>

#include <zlib.h>

namespace cdclake {

static_assert(std::endian::native == std::endian::little, "cdclake assumes a little-endian host");

void AppendVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

Result<uint8_t> ByteReader::ReadByte() {
  if (pos_ >= data_.size()) return Truncated(1);
  return static_cast<uint8_t>(data_[pos_++]);
}

Result<uint64_t> ByteReader::ReadVarint() {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) return Truncated(1);
    auto byte = static_cast<uint8_t>(data_[pos_++]);
    if (shift == 63 && byte > 1) {
      return Status::Corrupt("varint overflows 64 bits at offset " + std::to_string(pos_ - 1));
    }
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return result;
  }
  return Status::Corrupt("varint longer than 10 bytes at offset " + std::to_string(pos_));
}

Result<std::string_view> ByteReader::ReadBytes(size_t n) {
  if (remaining() < n) return Truncated(n);
  std::string_view out = data_.substr(pos_, n);
  pos_ += n;
  return out;
}

Status ByteReader::Skip(size_t n) {
  if (remaining() < n) return Truncated(n);
  pos_ += n;
  return Status::OK();
}

Status ByteReader::Truncated(size_t wanted) const {
  return Status::Corrupt("truncated: wanted " + std::to_string(wanted) + " bytes at offset " +
                         std::to_string(pos_) + " of " + std::to_string(data_.size()));
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

uint32_t Crc32(std::string_view bytes, uint32_t seed) {
  uLong crc = seed;
  // zlib takes uInt lengths; feed large inputs in pieces.
  while (!bytes.empty()) {
    size_t n = std::min<size_t>(bytes.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n));
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace cdclake
