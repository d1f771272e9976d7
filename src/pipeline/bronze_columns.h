// BronzeColumns: the columns an ingest flow adds to every row it reads from files — where the
// row came from, when it arrived, and which of its cells the source marked as unchanged — and
// how rows read back from such a table become change rows again.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/record_batch.h"

namespace cdclake::pipeline {

inline constexpr const char* kSourceFileColumn = "_source_file";      // STRING
inline constexpr const char* kSourceOffsetColumn = "_source_offset";  // BIGINT
inline constexpr const char* kIngestedAtColumn = "_ingested_at";      // TIMESTAMP
/// STRING: the names of the row's cells the source marked unchanged (PostgreSQL TOAST
/// placeholders, columns outside SQL Server's update mask), comma-separated; NULL for none.
/// AUTO CDC flows reading the table turn it back into unchanged marks and leave it out.
inline constexpr const char* kUnchangedColumnsColumn = "_unchanged_columns";
/// The four, in the order AddBronzeColumns appends them.
inline constexpr const char* kBronzeColumns[] = {kSourceFileColumn, kSourceOffsetColumn,
                                                 kIngestedAtColumn, kUnchangedColumnsColumn};

/// `batch` with the four columns above appended after its own (`ingested_at_micros` for every
/// row); its unchanged marks move into `_unchanged_columns` and are cleared.
change::ChangeBatch AddBronzeColumns(change::ChangeBatch batch, int64_t ingested_at_micros);

/// Rows read back from a table: positions from `_source_file` and `_source_offset` when the
/// table has them, unchanged marks from `_unchanged_columns` (which is dropped). kCorrupt for a
/// `_unchanged_columns` naming a column the rows do not have.
Result<change::ChangeBatch> ChangeRowsFromTable(data::RecordBatch rows);

}  // namespace cdclake::pipeline
