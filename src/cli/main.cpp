// The cdclake executable.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "cli/cli.h"

// jemalloc's settings, read when it starts (the sanitizer builds, which keep their own
// allocator, ignore this): a background thread returns freed memory instead of the thread that
// freed it; on hosts whose page faults are dear, transparent huge pages (below). MALLOC_CONF in
// the environment is read after this and adds to it.
extern "C" const char* malloc_conf;                  // NOLINT(readability-identifier-naming)
const char* malloc_conf = "background_thread:true";  // NOLINT

namespace {

// Microseconds one page fault of fresh anonymous memory costs on this host: 64 pages touched.
double PageFaultMicros() {
  constexpr size_t kPages = 64;
  constexpr size_t kPage = 4096;
  const auto started = std::chrono::steady_clock::now();
  void* mapped =
      ::mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return 0;
  auto* bytes = static_cast<volatile char*>(mapped);
  for (size_t i = 0; i < kPages; ++i) bytes[i * kPage] = 1;
  const double micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  ::munmap(mapped, kPages * kPage);
  return micros / kPages;
}

// Where a page fault costs more than this, jemalloc's memory goes in transparent huge pages.
// Measured (docs/apply.md, "Memory"): a host at about 9 us a fault ran a 1M-row load and a
// 100,000-event batch in half the time with them; a host with cheap faults lost 1.31x on the
// load, zeroing huge pages it barely used.
constexpr double kHugePagesFromMicros = 4.0;

// Runs before any library's initialisers, so before jemalloc's first allocation reads
// malloc_conf: picks huge pages where faults are dear, unless MALLOC_CONF says otherwise.
void ChooseMallocConf(int /*argc*/, char** /*argv*/, char** envp) {
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "MALLOC_CONF=", 12) == 0) return;  // the user's choice
  }
  if (PageFaultMicros() >= kHugePagesFromMicros) {
    malloc_conf = "background_thread:true,thp:always,metadata_thp:auto";
  }
}

[[gnu::section(".preinit_array"),
  gnu::used]] void (*const choose_malloc_conf)(int, char**, char**) = &ChooseMallocConf;

}  // namespace

int main(int argc, char** argv) {
  return cdclake::cli::Main(argc, argv);
}
