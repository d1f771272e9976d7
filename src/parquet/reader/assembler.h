// Assembler: rebuilds a top-level column, nested or flat, from the levels and dense values of
// its leaves (the inverse of the Shredder).
#pragma once

#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "parquet/reader/column_chunk_reader.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

/// `leaves[i]` holds the data of the i-th leaf under `field` (in leaf order); they are consumed.
/// kCorrupt when the leaves disagree with each other or with `num_rows`.
Result<data::Column> AssembleColumn(const SchemaNode& field, std::vector<LeafData*> leaves,
                                    int64_t num_rows);

}  // namespace cdclake::parquet
