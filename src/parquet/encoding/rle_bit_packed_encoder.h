// RleBitPackedEncoder: writes the RLE/bit-packed hybrid (Parquet encoding RLE = 3) used for
// definition and repetition levels, dictionary indices and RLE booleans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cdclake::parquet {

/// Encodes unsigned values of a fixed bit width as runs: repeats of 8 or more become RLE runs,
/// everything else bit-packed groups of 8 (the last group padded with zeros). The output has no
/// 4-byte length prefix; callers that need one (v1 page levels) add it.
class RleBitPackedEncoder {
 public:
  /// REQUIRES: 0 <= bit_width <= 32.
  explicit RleBitPackedEncoder(int bit_width);

  /// REQUIRES: value < 2^bit_width (higher bits are dropped).
  void Put(uint32_t value);
  void PutRepeated(uint32_t value, size_t count);

  /// The encoded runs. Resets the encoder for a new stream of the same bit width.
  std::string Finish();

  int bit_width() const { return bit_width_; }

  /// The bit width that holds every value up to `max_value` (0 for 0).
  static int BitWidth(uint64_t max_value);

 private:
  // Longest bit-packed run we emit: 63 groups keep its header a single byte.
  static constexpr size_t kMaxLiteralValues = 63 * 8;
  // Longest run the format allows.
  static constexpr uint64_t kMaxRunLength = (uint64_t{1} << 31) - 1;

  void CommitRun();
  void AppendLiterals(uint32_t value, size_t count);
  void FlushLiterals();
  void WriteRleRuns(uint32_t value, uint64_t count);

  int bit_width_;
  uint32_t mask_;
  size_t value_bytes_;  // bytes of the value in an RLE run
  std::string out_;
  std::vector<uint32_t> literals_;  // values waiting for a bit-packed run
  uint32_t run_value_ = 0;          // the trailing repeat, not yet placed
  uint64_t run_count_ = 0;
};

}  // namespace cdclake::parquet
