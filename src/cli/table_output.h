// TableOutput: prints record batches as an aligned table, CSV (the shared contract: header row,
// NULL empty, "" for an empty string, RFC 4180 quoting) or JSON Lines.
#pragma once

#include <ostream>
#include <string>

#include "cdclake/parquet.h"

namespace cdclake::cli {

enum class OutputFormat { kTable, kCsv, kJsonl };

/// Parses "table", "csv" or "jsonl".
Result<OutputFormat> ParseOutputFormat(const std::string& name);

/// Prints `batch` (at most `limit` rows; -1 for all) to `out`.
void PrintBatch(const data::RecordBatch& batch, OutputFormat format, int64_t limit,
                std::ostream& out);

}  // namespace cdclake::cli
