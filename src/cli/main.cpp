// The cdclake executable.
#include "cli/cli.h"

// jemalloc's settings, read when it starts (the sanitizer builds, which keep their own
// allocator, ignore this): a background thread returns freed memory instead of the thread that
// freed it. Transparent huge pages (thp:always) were measured and dropped: a 1M-row load took
// 1.31x the wall time on them, and a 100,000-event batch gained nothing (docs/apply.md, "Memory").
extern "C" const char* malloc_conf;                  // NOLINT(readability-identifier-naming)
const char* malloc_conf = "background_thread:true";  // NOLINT

int main(int argc, char** argv) {
  return cdclake::cli::Main(argc, argv);
}
