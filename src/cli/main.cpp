// The cdclake executable.
#include "cli/cli.h"

// jemalloc's settings, read when it starts (the sanitizer builds, which keep their own
// allocator, ignore this). A batch touches hundreds of megabytes of fresh memory once: on
// transparent huge pages that is a thirtieth of the page faults and about a tenth of a one-batch
// process's wall time (docs/apply.md, "Memory"), and a background thread returns freed memory
// instead of the thread that freed it.
extern "C" const char* malloc_conf;  // NOLINT(readability-identifier-naming)
const char* malloc_conf = "thp:always,background_thread:true";  // NOLINT

int main(int argc, char** argv) {
  return cdclake::cli::Main(argc, argv);
}
