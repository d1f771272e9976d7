// ColumnChunkReader: reads the pages of one column chunk (dictionary, data page v1 and v2,
// every codec) into its definition levels, repetition levels and dense non-null values.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

struct LeafData {
  std::vector<int16_t> def;  // empty when the leaf's max_def is 0
  std::vector<int16_t> rep;  // empty when the leaf's max_rep is 0
  data::Column values;       // the non-null values, in order
  int64_t num_levels = 0;
};

/// The largest number of values one page may claim; more is taken as corruption.
inline constexpr int64_t kMaxPageValues = 1 << 24;

/// Decodes `chunk_bytes` (the chunk's bytes from its first page) for `leaf`.
Status ReadColumnChunk(const SchemaNode& leaf, const format::ColumnMetaData& meta,
                       std::string_view chunk_bytes, LeafData* out);

}  // namespace cdclake::parquet
