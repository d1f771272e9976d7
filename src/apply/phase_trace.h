// PhaseTrace: with CDCLAKE_APPLY_TRACE set, one stderr line per batch with how long each phase
// of the apply took and the process's resident memory after it.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/resident_memory.h"

namespace cdclake::apply {

class PhaseTrace {
 public:
  PhaseTrace() : on_(std::getenv("CDCLAKE_APPLY_TRACE") != nullptr) {
    if (on_) line_ = "apply: (" + std::to_string(ResidentMiB()) + "MiB)";
  }
  /// Ends the phase named `phase` (the time since the last mark).
  void Mark(const char* phase) {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    line_ += std::string(" ") + phase + "=" +
             std::to_string(std::chrono::duration<double, std::milli>(now - last_).count()) +
             "ms(" + std::to_string(ResidentMiB()) + "MiB)";
    last_ = now;
  }
  ~PhaseTrace() {
    Mark("free");
    if (on_ && !line_.empty()) std::fprintf(stderr, "%s\n", line_.c_str());
  }
  PhaseTrace(const PhaseTrace&) = delete;
  PhaseTrace& operator=(const PhaseTrace&) = delete;

 private:
  static int64_t ResidentMiB() { return io::ResidentBytes() >> 20; }

  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string line_;
};

}  // namespace cdclake::apply
