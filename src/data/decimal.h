// Decimal helpers: 128-bit unscaled values, their text form, and precision limits.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "data/value.h"

namespace cdclake::data {

/// Base-10 digits of a signed 128-bit integer ("-170141183460469231731687303715884105728").
std::string Int128ToString(Int128 v);

/// The exact plain text of unscaled/10^scale: FormatDecimal(1230, 2) == "12.30",
/// FormatDecimal(-5, 3) == "-0.005".
std::string FormatDecimal(Int128 unscaled, int scale);

/// Parses "12.3", "-0.005", "1e3", "+7" into the unscaled value at `scale`; kInvalidArgument if
/// the text is not a number, has more fractional digits than `scale` (no silent rounding), or
/// does not fit `precision` digits.
Result<Int128> ParseDecimal(std::string_view text, int precision, int scale);

/// 10^n for n in [0, 38].
Int128 PowerOfTen(int n);

/// True if |v| < 10^precision.
bool FitsPrecision(Int128 v, int precision);

/// The fewest bytes that hold any decimal of `precision` digits in two's complement (the
/// Parquet FIXED_LEN_BYTE_ARRAY width).
int DecimalByteWidth(int precision);

}  // namespace cdclake::data
