// PLAIN booleans: eight values per byte in both directions, a multiply to gather and a table to
// spread.
#include "parquet/encoding/plain_boolean.h"

#include <array>
#include <string>

#include "base/bytes.h"

namespace cdclake::parquet {
namespace {

// Byte b spread into eight bytes of 0/1, bit i of b into byte i.
constexpr std::array<uint64_t, 256> MakeSpreadTable() {
  std::array<uint64_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>((b >> i) & 1) << (8 * i);
    table[b] = v;
  }
  return table;
}
constexpr std::array<uint64_t, 256> kSpread = MakeSpreadTable();

// Gathers the low bits of eight bytes into one: bit i of the result is bit 0 of byte i. The
// multiplier moves byte i's bit to bit 56 + i; no two partial products overlap, so no carries.
constexpr uint64_t kGather = 0x0102040810204080ULL;

}  // namespace

void EncodePlainBooleans(const uint8_t* values, size_t n, std::string* out) {
  const size_t start = out->size();
  out->resize(start + (n + 7) / 8);
  char* dst = out->data() + start;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t bits = LoadLE<uint64_t>(values + i) & 0x0101010101010101ULL;
    *dst++ = static_cast<char>((bits * kGather) >> 56);
  }
  if (i < n) {
    uint8_t byte = 0;
    for (size_t j = 0; i + j < n; ++j) byte |= static_cast<uint8_t>((values[i + j] & 1) << j);
    *dst = static_cast<char>(byte);
  }
}

Status DecodePlainBooleans(std::string_view data, size_t n, uint8_t* out) {
  const size_t need = n / 8 + (n % 8 != 0 ? 1 : 0);
  if (data.size() < need) {
    return Status::Corrupt("PLAIN BOOLEAN: " + std::to_string(n) + " values need " +
                           std::to_string(need) + " bytes, only " + std::to_string(data.size()) +
                           " present (truncated at offset " + std::to_string(data.size()) + ")");
  }
  const auto* in = reinterpret_cast<const uint8_t*>(data.data());
  const size_t whole = n / 8;
  for (size_t b = 0; b < whole; ++b) StoreLE(out + 8 * b, kSpread[in[b]]);
  for (size_t i = whole * 8; i < n; ++i) out[i] = (in[whole] >> (i - whole * 8)) & 1;
  return Status::OK();
}

}  // namespace cdclake::parquet
