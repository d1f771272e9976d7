// ProgressLine: long work shown on one line of a terminal — what, how far, the rate and the time
// left — redrawn at most ten times a second and cleared when done; nothing at all when stderr is
// not a terminal (a pipe, a log file) or the output is JSON.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "cdclake/progress.h"

namespace cdclake::cli {

class ProgressLine {
 public:
  /// `enabled`: stderr is a terminal and the command's output is for people.
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// What to hand the work; empty when disabled (so the work does not even format ticks).
  ProgressFn Fn();
  /// Clears the line (before the command prints its result).
  void Clear();

  /// "reading: 12.5 MB of 58.0 MB (21%), 4.2 MB/s, 11 s left" — `seconds` since this `what`
  /// began; exposed for its test.
  static std::string Text(const ProgressTick& tick, double seconds);

 private:
  void Show(const ProgressTick& tick);

  bool enabled_;
  bool shown_ = false;
  std::string what_;
  /// When each kind of work was first reported: reading and applying alternate batch by
  /// batch, and each one's rate runs from its own start.
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> began_;
  std::chrono::steady_clock::time_point drawn_;
};

/// True when stderr is a terminal.
bool StderrIsTerminal();

}  // namespace cdclake::cli
