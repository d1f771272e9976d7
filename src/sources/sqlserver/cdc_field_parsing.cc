// Parsing of SQL Server change-table metadata cells: hex LSNs and masks, operation codes and
// command ids.
#include "sources/sqlserver/cdc_field_parsing_internal.h"

#include <charconv>
#include <limits>

namespace cdclake::sources::internal {

namespace {

constexpr size_t kLsnHexDigits = 20;   // binary(10)
constexpr size_t kMaxMaskBytes = 128;  // varbinary(128)

// The value of hex digit `c`, or -1.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view WithoutHexPrefix(std::string_view text) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return text.substr(2);
  }
  return text;
}

}  // namespace

bool NormalizeLsn(std::string_view text, std::string* out) {
  std::string_view digits = WithoutHexPrefix(text);
  if (digits.size() != kLsnHexDigits) return false;
  out->clear();
  out->reserve(kLsnHexDigits);
  for (char c : digits) {
    int v = HexValue(c);
    if (v < 0) return false;
    out->push_back("0123456789abcdef"[v]);
  }
  return true;
}

bool ParseOperation(std::string_view text, int* out) {
  if (text.size() != 1 || text[0] < '1' || text[0] > '4') return false;
  *out = text[0] - '0';
  return true;
}

bool ParseCommandId(std::string_view text, int64_t* out) {
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (text.empty() || text[0] < '0' || text[0] > '9') return false;  // "+-1", "+"
  }
  if (text.empty()) return false;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *out = value;
  return true;
}

bool ParseUpdateMask(std::string_view text, std::vector<uint8_t>* out) {
  std::string_view digits = WithoutHexPrefix(text);
  if (digits.empty() || digits.size() % 2 != 0 || digits.size() / 2 > kMaxMaskBytes) {
    return false;
  }
  out->clear();
  out->reserve(digits.size() / 2);
  for (size_t i = 0; i < digits.size(); i += 2) {
    int high = HexValue(digits[i]);
    int low = HexValue(digits[i + 1]);
    if (high < 0 || low < 0) return false;
    out->push_back(static_cast<uint8_t>(high * 16 + low));
  }
  return true;
}

bool IsUpdateMaskBitSet(const std::vector<uint8_t>& mask, int64_t ordinal) {
  if (ordinal < 1) return false;
  uint64_t bit = static_cast<uint64_t>(ordinal - 1);
  uint64_t from_end = bit / 8;
  if (from_end >= mask.size()) return false;
  return ((mask[mask.size() - 1 - from_end] >> (bit % 8)) & 1) != 0;
}

}  // namespace cdclake::sources::internal
