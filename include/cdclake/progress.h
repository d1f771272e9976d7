// Public API: progress reports of long work (a load, optimize, vacuum), for a progress line.
#pragma once

#include "base/progress.h"  // IWYU pragma: export
