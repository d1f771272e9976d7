// Progress: how far a long piece of work has come, reported as it goes, for a progress line on
// a terminal (cli/progress_line.h). Work that takes a ProgressFn calls it now and then; an
// empty one costs a test of emptiness.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace cdclake {

struct ProgressTick {
  std::string_view what;  // the work: "reading", "applying", "optimize", "vacuum", "repair"
  std::string_view unit;  // what `done` and `total` count: "bytes", "rows", "files", "commits"
  int64_t done = 0;
  int64_t total = -1;  // -1: not known (a rate, no ETA)
};

using ProgressFn = std::function<void(const ProgressTick&)>;

/// Calls `progress` when it is set.
inline void Report(const ProgressFn& progress, std::string_view what, std::string_view unit,
                   int64_t done, int64_t total = -1) {
  if (progress) progress(ProgressTick{what, unit, done, total});
}

}  // namespace cdclake
