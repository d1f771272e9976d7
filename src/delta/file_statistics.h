// Per-file statistics (PROTOCOL.md §Per-file Statistics): the `stats` JSON of an add action,
// computed from the rows of one data file the way Spark writes it, and parsed back to typed bounds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "data/data_type.h"
#include "data/record_batch.h"
#include "data/value.h"

namespace cdclake::delta {

/// Spark's defaults: `delta.dataSkippingNumIndexedCols` and
/// `delta.dataSkippingStringPrefixLength`.
inline constexpr int64_t kDefaultNumIndexedCols = 32;
inline constexpr int kStatsStringPrefixLength = 32;

/// {"numRecords":N,"minValues":{..},"maxValues":{..},"nullCount":{..}} for the rows of `batch`,
/// whose columns are named as the data file names them (physical names under column mapping,
/// partition columns left out). Keys follow the schema order; structs nest as objects.
///
/// Which columns: those named in `stats_columns` (`delta.dataSkippingStatsColumns`: "a", "s.b",
/// "`a.b`.c"; matched ignoring case; a struct means all its fields), else the first
/// `num_indexed_cols` leaves in schema order (a list or map counts as one leaf; negative: all).
///
/// What, per leaf (as Spark's StatisticsCollection does):
/// * nullCount for every selected leaf, lists and maps included (null lists/maps, not null
///   elements). A row whose enclosing struct is null counts as null in every leaf below it.
/// * minValues/maxValues only for numbers, decimals (exact JSON numbers), strings, dates
///   ("YYYY-MM-DD"), timestamps ("2024-01-01T10:00:00.123Z") and timestamp_ntz (no "Z"). None for
///   booleans, binary, lists and maps. A leaf whose values are all null gets no min/max key.
/// * Strings: min is the 32-character prefix; max is the prefix plus U+007F (or U+10FFFF when the
///   next character is >= U+007F) so it stays above every value, with the prefix grown over
///   U+10FFFF characters up to 64; if that still cannot bound the value, max is omitted. Values
///   that are not valid UTF-8 get no min/max.
/// * Timestamps keep milliseconds: min is rounded down, max rounded UP, so both remain true bounds
///   (Spark rounds max down and readers widen it by 999 us; ours is valid either way).
/// * float/double: any NaN drops min and max (NaN sorts above everything in Spark and cannot be
///   written as a JSON number); an infinite min or max is omitted rather than written as text.
/// tightBounds is not written (absent means true).
std::string ComputeStatsJson(const data::RecordBatch& batch,
                             const std::vector<std::string>& stats_columns = {},
                             int64_t num_indexed_cols = kDefaultNumIndexedCols);

/// The stats min of a string: its first `prefix_length` code points.
std::string TruncateStatsMin(std::string_view value, int prefix_length = kStatsStringPrefixLength);
/// The stats max of a string: the value itself when short enough, else a short upper bound
/// (see ComputeStatsJson); nullopt when none exists. REQUIRES: `value` is valid UTF-8.
std::optional<std::string> TruncateStatsMax(std::string_view value,
                                            int prefix_length = kStatsStringPrefixLength);

/// A parsed `stats` string. Absent members are JSON null (objects when present).
struct ParsedStats {
  int64_t num_records = -1;  // -1 when absent
  nlohmann::json min_values;
  nlohmann::json max_values;
  nlohmann::json null_count;
  bool tight_bounds = true;  // absent means true
  /// The literal text of every non-integer number (and integer too large for 64 bits), keyed by
  /// JSON pointer ("/minValues/a/b"), so decimals like -9999999999.9999999999 stay exact.
  std::map<std::string, std::string> number_text;

  /// The bound of the leaf at `path` (names as in the stats, i.e. physical) as a Value of
  /// `type`; NULL when absent. kCorrupt when present but not of that type. Timestamps with an
  /// offset ("...-08:00") are moved to UTC; float/double accept "NaN"/"Infinity" strings.
  Result<data::Value> MinValue(const std::vector<std::string>& path,
                               const data::DataType& type) const;
  Result<data::Value> MaxValue(const std::vector<std::string>& path,
                               const data::DataType& type) const;
  /// The nullCount of the leaf (or list/map) at `path`; -1 when absent.
  int64_t NullCount(const std::vector<std::string>& path) const;
};

/// Parses an add/remove `stats` string. kCorrupt ("stats: ...") on invalid JSON, a non-object,
/// or members of the wrong JSON type.
Result<ParsedStats> ParseStatsJson(std::string_view stats);

}  // namespace cdclake::delta
