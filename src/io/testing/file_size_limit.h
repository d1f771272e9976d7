// FileSizeLimit: for a test's scope, writes past `bytes` fail with EFBIG (RLIMIT_FSIZE, with
// SIGXFSZ ignored so the process is not killed); the limit and the signal's handler as they
// were come back when it goes. A way to make a real write fail half way.
#pragma once

#include <sys/resource.h>

#include <csignal>
#include <cstdint>

namespace cdclake::io::testing {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(uint64_t bytes) {
    if (::getrlimit(RLIMIT_FSIZE, &before_) != 0) return;
    // Only lower a limit, and only where the hard limit allows it.
    if (before_.rlim_cur != RLIM_INFINITY && before_.rlim_cur <= bytes) return;
    if (before_.rlim_max != RLIM_INFINITY && before_.rlim_max < bytes) return;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    if (::sigaction(SIGXFSZ, &ignore, &old_action_) != 0) return;
    struct rlimit lowered = before_;
    lowered.rlim_cur = bytes;
    if (::setrlimit(RLIMIT_FSIZE, &lowered) != 0) {
      ::sigaction(SIGXFSZ, &old_action_, nullptr);
      return;
    }
    set_ = true;
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    if (!set_) return;
    ::setrlimit(RLIMIT_FSIZE, &before_);
    ::sigaction(SIGXFSZ, &old_action_, nullptr);
  }

  /// Whether the limit holds (false: the process's own limit was lower already, or the
  /// calls failed; the test should skip).
  bool set() const { return set_; }

 private:
  struct rlimit before_ {};
  struct sigaction old_action_ {};
  bool set_ = false;
};

}  // namespace cdclake::io::testing
