// CrashPoint: a named place where the process kills itself (SIGKILL, nothing flushed, as a
// crash or `kill -9` would) when the environment variable CDCLAKE_CRASH_AT names it. Tests use
// it to stop a run at one exact step (tests/pipeline/postgres_source_test.sh: each step of the
// snapshot hand-off); unset, it costs one getenv per call.
#pragma once

#include <string_view>

namespace cdclake {

/// Kills the process with SIGKILL if CDCLAKE_CRASH_AT equals `name`.
void CrashPoint(std::string_view name);

}  // namespace cdclake
