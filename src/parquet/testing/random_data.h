// Random schemas and values for the Parquet tests: every type, nesting, nulls, empty strings and
// lists, extreme values, long strings. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <random>

#include "data/record_batch.h"

namespace cdclake::parquet::testing {

class RandomData {
 public:
  explicit RandomData(uint64_t seed) : rng_(seed) {}

  /// A type drawn from every primitive, and struct/list/map nested up to `depth` levels.
  data::TypePtr Type(int depth);
  data::Schema Schema(int num_fields, int depth);
  /// A value of `type`; NULL with probability `null_rate` when `nullable`.
  data::Value Value(const data::DataType& type, bool nullable, double null_rate = 0.15);
  data::RecordBatch Batch(const data::Schema& schema, int64_t rows);

  std::mt19937_64& rng() { return rng_; }

 private:
  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  std::mt19937_64 rng_;
};

}  // namespace cdclake::parquet::testing
