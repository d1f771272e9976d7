// ResidentBytes: Linux's /proc/self/statm (size and resident pages).
#include "io/resident_memory.h"

#include <unistd.h>

#include <cstdio>

namespace cdclake::io {

int64_t ResidentBytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

}  // namespace cdclake::io
