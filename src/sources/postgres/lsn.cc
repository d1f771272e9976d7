// LSN text form, as pg_lsn prints it.
#include "sources/postgres/lsn.h"

#include <charconv>
#include <cstdio>

namespace cdclake::sources::postgres {

std::string FormatLsn(Lsn lsn) {
  char text[20];
  std::snprintf(text, sizeof(text), "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xffffffffu));
  return text;
}

Result<Lsn> ParseLsn(std::string_view text) {
  size_t slash = text.find('/');
  uint32_t high = 0, low = 0;
  auto bad = [&] {
    return Status::InvalidArgument("'" + std::string(text) + "' is not an LSN (like 16/B374D848)");
  };
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) return bad();
  auto [h_end, h_ec] = std::from_chars(text.data(), text.data() + slash, high, 16);
  auto [l_end, l_ec] = std::from_chars(text.data() + slash + 1, text.data() + text.size(), low, 16);
  if (h_ec != std::errc() || l_ec != std::errc() || h_end != text.data() + slash ||
      l_end != text.data() + text.size()) {
    return bad();
  }
  return (static_cast<Lsn>(high) << 32) | low;
}

}  // namespace cdclake::sources::postgres
