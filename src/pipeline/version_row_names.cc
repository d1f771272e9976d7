// "<table>@v<version>" row names.
#include "pipeline/version_row_names.h"

#include <algorithm>
#include <cstdio>

namespace cdclake::pipeline {

void NameRowsByVersion(const std::string& table, const std::vector<int64_t>& versions,
                       change::ChangeBatch* batch) {
  const size_t n = std::min(versions.size(), static_cast<size_t>(batch->rows.num_rows()));
  if (batch->positions.size() < n) batch->positions.resize(n);
  int64_t current = -1;
  int64_t ordinal = 0;
  for (size_t r = 0; r < n; ++r) {
    const int64_t v = versions[r];
    ordinal = v == current ? ordinal + 1 : 0;
    current = v;
    const change::PositionList& positions = batch->positions;
    if (!positions.file(r).empty() || positions.byte_offset(r) != 0 || positions.line(r) != 0) {
      continue;  // its own
    }
    char padded[32];
    std::snprintf(padded, sizeof padded, "%020lld", static_cast<long long>(v));
    batch->positions.Set(r, change::SourcePosition{table + "@v" + padded, 0, ordinal, 0});
  }
}

}  // namespace cdclake::pipeline
