// WAL positions in PostgreSQL's text form ("16/B374D848": the high and low 32 bits in hex).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

/// "16/B374D848".
std::string FormatLsn(Lsn lsn);
/// The inverse of FormatLsn; kInvalidArgument naming the text otherwise.
Result<Lsn> ParseLsn(std::string_view text);

/// Microseconds since 2000-01-01 00:00 UTC (PostgreSQL's epoch) to and from the Unix epoch.
inline constexpr int64_t kPostgresEpochMicros = 946684800LL * 1000000;
inline int64_t PostgresToUnixMicros(int64_t micros) {
  return micros + kPostgresEpochMicros;
}
inline int64_t UnixToPostgresMicros(int64_t micros) {
  return micros - kPostgresEpochMicros;
}

}  // namespace cdclake::sources::postgres
