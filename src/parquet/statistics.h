// Column statistics: min, max and null count in each type's logical order (signed integers,
// unsigned bytewise strings, numeric decimals, floats without NaN and with -0.0 < +0.0 at the
// bounds), and their physical PLAIN encoding in the footer.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "data/column.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

/// Orders two non-null values of the primitive `type`: <0, 0, >0.
int CompareValues(const data::Value& a, const data::Value& b, const data::DataType& type);

/// Collects the statistics of one column chunk.
class StatisticsCollector {
 public:
  explicit StatisticsCollector(const SchemaNode& leaf) : leaf_(&leaf) {}

  /// Folds in the non-null values `column[indices[i]]`.
  void Update(const data::Column& column, const int64_t* indices, size_t n);
  void AddNulls(int64_t n) { null_count_ += n; }

  /// The footer form; min and max left out when longer than `max_bytes` or when no value
  /// was seen.
  format::Statistics Finish(int64_t max_bytes) const;

 private:
  void Consider(const data::Value& v);

  const SchemaNode* leaf_;
  int64_t null_count_ = 0;
  std::optional<data::Value> min_;
  std::optional<data::Value> max_;
};

/// The PLAIN physical bytes of a non-null value for `leaf` (as statistics store it).
std::string EncodeStatisticValue(const data::Value& v, const SchemaNode& leaf);
/// The inverse; kCorrupt when the bytes do not fit the physical type.
Result<data::Value> DecodeStatisticValue(std::string_view bytes, const SchemaNode& leaf);

}  // namespace cdclake::parquet
