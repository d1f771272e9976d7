// ResidentBytes: how much memory the process holds in RAM now (for diagnostics and traces).
#pragma once

#include <cstdint>

namespace cdclake::io {

/// The process's resident set in bytes, from /proc/self/statm; 0 where that cannot be read.
int64_t ResidentBytes();

}  // namespace cdclake::io
