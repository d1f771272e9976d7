// Decimal text conversion and limits.
#include "data/decimal.h"

#include <algorithm>

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
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string int_digits, frac_digits;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') int_digits.push_back(text[i++]);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') frac_digits.push_back(text[i++]);
  }
  if (int_digits.empty() && frac_digits.empty()) return bad("not a number");
  int exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= text.size()) return bad("missing exponent");
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      exponent = exponent * 10 + (text[i++] - '0');
      if (exponent > 1000) return bad("exponent out of range");
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return bad("unexpected character");
  // Shift the decimal point by the exponent.
  std::string all = int_digits + frac_digits;
  int point = static_cast<int>(int_digits.size()) + exponent;  // digits before the point
  // We need the digits up to `scale` places after the point; the rest must be zeros.
  int wanted = point + scale;
  if (wanted < 0) wanted = 0;
  for (int k = wanted; k < static_cast<int>(all.size()); ++k) {
    if (all[k] != '0') return bad("more fractional digits than the scale allows");
  }
  Int128 v = 0;
  for (int k = 0; k < wanted; ++k) {
    int d = k < static_cast<int>(all.size()) && k >= 0 ? all[k] - '0' : 0;
    if (k < 0) continue;
    if (v > (PowerOfTen(38) - 1 - d) / 10) return bad("too many digits");
    v = v * 10 + d;
  }
  if (!FitsPrecision(v, precision)) return bad("too many digits for the precision");
  return negative ? -v : v;
}

}  // namespace cdclake::data
