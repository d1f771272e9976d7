// TableScan: reads the rows of a snapshot — each live file's Parquet data mapped to the logical
// schema (column mapping by name or id, columns missing from older files as NULL, partition
// values as constant columns) minus the rows its deletion vector marks (§Deletion Vectors).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "data/record_batch.h"
#include "delta/snapshot.h"
#include "io/file_system.h"

namespace cdclake::delta {

struct ScanOptions {
  /// Logical top-level columns to read, in this order; empty reads every column.
  std::vector<std::string> columns;
};

/// Every live row of `snapshot`, file by file in path order.
Result<data::RecordBatch> ReadTable(const io::FileSystem& fs, const Snapshot& snapshot,
                                    const ScanOptions& options = {});

/// The rows of one data file (an add of `snapshot`) with its deletion vector applied.
Result<data::RecordBatch> ReadDataFile(const io::FileSystem& fs, const Snapshot& snapshot,
                                       const Add& add, const ScanOptions& options = {});

/// The file-system path of a file named in the log (percent-decoded, relative to the root).
Result<std::string> ResolvePath(const std::string& table_root, const std::string& log_path);

}  // namespace cdclake::delta
