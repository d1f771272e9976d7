// ProgressLine: ticks to a redrawn stderr line.
#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace cdclake::cli {

namespace {

std::string Amount(double n, std::string_view unit) {
  char buf[64];
  if (unit == "bytes") {
    if (n >= 1e9) {
      std::snprintf(buf, sizeof buf, "%.2f GB", n / 1e9);
    } else if (n >= 1e6) {
      std::snprintf(buf, sizeof buf, "%.1f MB", n / 1e6);
    } else if (n >= 1e3) {
      std::snprintf(buf, sizeof buf, "%.1f kB", n / 1e3);
    } else {
      std::snprintf(buf, sizeof buf, "%.0f bytes", n);
    }
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.0f", n);
  std::string digits = buf;
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out + " " + std::string(unit);
}

std::string Seconds(double s) {
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.0f s", s < 1 ? 1 : s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%d min %d s", static_cast<int>(s / 60),
                  static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%d h %d min", static_cast<int>(s / 3600),
                  static_cast<int>(s / 60) % 60);
  }
  return buf;
}

}  // namespace

bool StderrIsTerminal() {
  return ::isatty(STDERR_FILENO) != 0;
}

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled) {}

ProgressLine::~ProgressLine() {
  Clear();
}

ProgressFn ProgressLine::Fn() {
  if (!enabled_) return {};
  return [this](const ProgressTick& tick) { Show(tick); };
}

void ProgressLine::Clear() {
  if (!shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

std::string ProgressLine::Text(const ProgressTick& tick, double seconds) {
  const std::string what = std::string(tick.what) + ": ";
  if (tick.done == 0 && tick.total > 0) {
    // Work that says only how much it is about to do (applying a batch of rows).
    return what + Amount(static_cast<double>(tick.total), tick.unit) + "...";
  }
  // "3 of 10 files", "2.0 MB of 68.3 MB", "5,000 rows"
  const bool counted = tick.total >= 0 && tick.unit != "bytes";
  std::string text = what + (counted ? Amount(static_cast<double>(tick.done), "")
                                     : Amount(static_cast<double>(tick.done), tick.unit));
  if (counted) text.pop_back();  // the space before an empty unit
  if (tick.total >= 0) {
    text += " of " + Amount(static_cast<double>(tick.total), tick.unit);
    if (tick.total > 0) {
      text += " (" + std::to_string(tick.done * 100 / tick.total) + "%)";
    }
  }
  if (seconds >= 0.5 && tick.done > 0) {
    const double rate = static_cast<double>(tick.done) / seconds;
    text += ", " + Amount(rate, tick.unit) + "/s";
    if (tick.total > tick.done) {
      text += ", " + Seconds(static_cast<double>(tick.total - tick.done) / rate) + " left";
    }
  }
  return text;
}

void ProgressLine::Show(const ProgressTick& tick) {
  const auto now = std::chrono::steady_clock::now();
  auto began = began_.find(tick.what);
  if (began == began_.end()) began = began_.emplace(std::string(tick.what), now).first;
  if (tick.what != what_) {
    what_ = std::string(tick.what);
  } else if (now - drawn_ < std::chrono::milliseconds(100) && tick.done != tick.total) {
    return;
  }
  drawn_ = now;
  const double seconds = std::chrono::duration<double>(now - began->second).count();
  std::cerr << "\r\033[K" << Text(tick, seconds) << std::flush;
  shown_ = true;
}

}  // namespace cdclake::cli
