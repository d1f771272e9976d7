// Decimal text conversion and limits.
#include "data/decimal.h"

#include <algorithm>
#include <array>

namespace cdclake::data {

std::string Int128ToString(Int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  // Work on the magnitude as unsigned so INT128_MIN is safe.
  unsigned __int128 mag =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (mag > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string FormatDecimal(Int128 unscaled, int scale) {
  std::string digits = Int128ToString(unscaled);
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      size_t pad = static_cast<size_t>(scale) + 1 - digits.size();
      digits.insert(0, pad, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

Int128 PowerOfTen(int n) {
  // 10^0 .. 10^38, computed once (every decimal parsed checks its precision against one).
  static const auto kPowers = [] {
    std::array<Int128, 39> powers{};
    powers[0] = 1;
    for (size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1] * 10;
    return powers;
  }();
  if (n >= 0 && n < static_cast<int>(kPowers.size())) return kPowers[static_cast<size_t>(n)];
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

bool FitsPrecision(Int128 v, int precision) {
  Int128 limit = PowerOfTen(precision);
  return v < limit && v > -limit;
}

int DecimalByteWidth(int precision) {
  for (int bytes = 1; bytes <= 16; ++bytes) {
    // Largest magnitude in `bytes` two's complement bytes is 2^(8*bytes-1) - 1.
    unsigned __int128 max_mag = (static_cast<unsigned __int128>(1) << (8 * bytes - 1)) - 1;
    if (static_cast<unsigned __int128>(PowerOfTen(precision) - 1) <= max_mag) return bytes;
  }
  return 16;
}

Result<Int128> ParseDecimal(std::string_view text, int precision, int scale) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("cannot read '" + std::string(text) + "' as decimal(" +
                                   std::to_string(precision) + "," + std::to_string(scale) +
                                   "): " + why);
  };
  auto is_digit = [&](size_t at) { return at < text.size() && text[at] >= '0' && text[at] <= '9'; };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  // The digits are read in place: [int_begin, int_end) before the point, [frac_begin,
  // frac_end) after it.
  const size_t int_begin = i;
  while (is_digit(i)) ++i;
  const size_t int_end = i;
  size_t frac_begin = i;
  size_t frac_end = i;
  if (i < text.size() && text[i] == '.') {
    frac_begin = ++i;
    while (is_digit(i)) ++i;
    frac_end = i;
  }
  const int int_count = static_cast<int>(int_end - int_begin);
  const int total = int_count + static_cast<int>(frac_end - frac_begin);
  if (total == 0) return bad("not a number");
  int exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= text.size()) return bad("missing exponent");
    while (is_digit(i)) {
      exponent = exponent * 10 + (text[i++] - '0');
      if (exponent > 1000) return bad("exponent out of range");
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return bad("unexpected character");
  // The k-th digit of the integer digits followed by the fractional ones; 0 past them.
  auto digit = [&](int k) -> int {
    if (k >= total) return 0;
    return k < int_count ? text[int_begin + static_cast<size_t>(k)] - '0'
                         : text[frac_begin + static_cast<size_t>(k - int_count)] - '0';
  };
  // Shift the decimal point by the exponent: the digits up to `scale` places after it are the
  // unscaled value; the rest must be zeros.
  const int point = int_count + exponent;  // digits before the point
  const int wanted = std::max(point + scale, 0);
  for (int k = wanted; k < total; ++k) {
    if (digit(k) != 0) return bad("more fractional digits than the scale allows");
  }
  // Up to 18 digits fit an unsigned 64-bit integer; further ones are added in 128 bits, each
  // checked: v * 10 + d stays below 10^38 exactly when v < 10^37 (whatever d).
  int k = 0;
  uint64_t small = 0;
  for (; k < wanted && k < 18; ++k) small = small * 10 + static_cast<uint64_t>(digit(k));
  Int128 v = static_cast<Int128>(small);
  static const Int128 kLastBeforeOverflow = PowerOfTen(37) - 1;
  for (; k < wanted; ++k) {
    if (v > kLastBeforeOverflow) return bad("too many digits");
    v = v * 10 + digit(k);
  }
  if (!FitsPrecision(v, precision)) return bad("too many digits for the precision");
  return negative ? -v : v;
}

}  // namespace cdclake::data
