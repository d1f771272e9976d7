// TableCheck: verifies that the files a table's latest snapshot names are there and sound —
// sizes as logged, stats that parse, Parquet footers that open, deletion vectors that decode
// and fit their files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::delta {

struct CheckProblem {
  std::string path;     // the file as the log names it
  std::string message;  // what is wrong with it
};

struct CheckReport {
  int64_t version = -1;
  int64_t files_checked = 0;
  int64_t deletion_vectors_checked = 0;
  std::vector<CheckProblem> problems;  // in the order of the snapshot's files

  bool ok() const { return problems.empty(); }
};

/// Checks every live file of the latest snapshot of `table_root`:
///   * it exists, with the size the log records;
///   * its `stats` JSON, when present, parses (ParseStatsJson), and its numRecords equals the
///     Parquet row count;
///   * its Parquet footer opens;
///   * it has a value for every partition column;
///   * its deletion vector, if any, loads (size, CRC and cardinality checked against the
///     descriptor) and its largest row index is below the file's row count.
/// Problems are collected, not returned as errors; an error means the snapshot itself could not
/// be loaded.
Result<CheckReport> CheckTable(const io::FileSystem& fs, const std::string& table_root);

}  // namespace cdclake::delta
