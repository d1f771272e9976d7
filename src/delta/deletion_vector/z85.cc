// Z85 encoding and decoding (ZeroMQ RFC 32): the 85-character alphabet and its inverse.
#include "delta/deletion_vector/z85.h"

#include <array>
#include <cassert>
#include <cstdint>

namespace cdclake::delta {
namespace {

constexpr std::string_view kAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
static_assert(kAlphabet.size() == 85);

constexpr uint8_t kInvalid = 0xFF;

// The digit value of each byte, or kInvalid.
constexpr std::array<uint8_t, 256> MakeDigitTable() {
  std::array<uint8_t, 256> table{};
  for (auto& entry : table) entry = kInvalid;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<uint8_t>(i);
  }
  return table;
}

constexpr std::array<uint8_t, 256> kDigits = MakeDigitTable();

std::string HexByte(uint8_t b) {
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[b >> 4] + kHex[b & 0xF];
}

}  // namespace

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Corrupt("Z85 text of " + std::to_string(text.size()) +
                           " characters: the length must be a multiple of 5");
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t group = 0; group < text.size(); group += 5) {
    uint64_t value = 0;
    for (size_t i = group; i < group + 5; ++i) {
      auto c = static_cast<uint8_t>(text[i]);
      uint8_t digit = kDigits[c];
      if (digit == kInvalid) {
        return Status::Corrupt("invalid Z85 character " + HexByte(c) + " at offset " +
                               std::to_string(i));
      }
      value = value * 85 + digit;
    }
    if (value > UINT32_MAX) {
      return Status::Corrupt("Z85 group at offset " + std::to_string(group) +
                             " does not fit in 32 bits");
    }
    out.push_back(static_cast<char>(value >> 24));
    out.push_back(static_cast<char>(value >> 16));
    out.push_back(static_cast<char>(value >> 8));
    out.push_back(static_cast<char>(value));
  }
  return out;
}

std::string Z85Encode(std::string_view bytes) {
  assert(bytes.size() % 4 == 0 && "Z85Encode needs a multiple of 4 bytes");
  std::string out;
  out.reserve((bytes.size() + 3) / 4 * 5);
  for (size_t group = 0; group < bytes.size(); group += 4) {
    uint32_t value = 0;
    for (size_t i = group; i < group + 4; ++i) {
      // Past the end (only when the precondition is broken) reads as zero padding.
      uint8_t b = i < bytes.size() ? static_cast<uint8_t>(bytes[i]) : 0;
      value = (value << 8) | b;
    }
    char chars[5];
    for (int i = 4; i >= 0; --i) {
      chars[i] = kAlphabet[value % 85];
      value /= 85;
    }
    out.append(chars, 5);
  }
  return out;
}

}  // namespace cdclake::delta
