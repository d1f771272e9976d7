// CrashPoint: SIGKILL at the step CDCLAKE_CRASH_AT names.
#include "base/crash_point.h"

#include <csignal>
#include <cstdlib>

namespace cdclake {

void CrashPoint(std::string_view name) {
  const char* at = std::getenv("CDCLAKE_CRASH_AT");
  if (at != nullptr && name == at) std::raise(SIGKILL);
}

}  // namespace cdclake
