// Shredder: splits the rows of one top-level column into the definition levels, repetition
// levels and non-null values of each of its leaves (the Dremel record shredding).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

struct ShreddedLeaf {
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  const data::Column* values = nullptr;  // the leaf's column inside the top-level column
  std::vector<int64_t> indices;          // the non-null values, in order
};

/// Shreds rows [begin, end) of `column` (the top-level column for `field`) into one
/// ShreddedLeaf per leaf under `field`, in leaf order. kInvalidArgument when a non-nullable
/// field holds a null.
Status Shred(const SchemaNode& field, const data::Column& column, int64_t begin, int64_t end,
             std::vector<ShreddedLeaf>* out);

}  // namespace cdclake::parquet
