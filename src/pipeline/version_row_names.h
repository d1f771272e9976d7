// Row names for rows read from a Delta table that have no position of their own (no bronze
// columns): the version each came from and its place in it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "change/change_batch.h"

namespace cdclake::pipeline {

/// Gives each row of `batch` without a position of its own (all of it empty) the name
/// "<table>@v<version in 20 digits>" and, as its byte offset, its ordinal among the rows of that
/// version; `versions[r]` is row r's version, rows of one version together and in the order a
/// reading of the version always gives. So a row is known again when a run reads its version a
/// second time (the quarantine's guard against setting a row aside twice after a crash).
void NameRowsByVersion(const std::string& table, const std::vector<int64_t>& versions,
                       change::ChangeBatch* batch);

}  // namespace cdclake::pipeline
