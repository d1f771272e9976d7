// RleBitPackedEncoder: chooses between RLE runs and bit-packed groups and writes their headers.
#include "parquet/encoding/rle_bit_packed_encoder.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "base/bytes.h"
#include "parquet/encoding/bit_packing.h"

namespace cdclake::parquet {

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width)
    : bit_width_(std::clamp(bit_width, 0, 32)),
      mask_(bit_width_ >= 32 ? ~uint32_t{0} : (uint32_t{1} << bit_width_) - 1),
      value_bytes_((static_cast<size_t>(bit_width_) + 7) / 8) {
  assert(bit_width >= 0 && bit_width <= 32);
  literals_.reserve(kMaxLiteralValues);
}

int RleBitPackedEncoder::BitWidth(uint64_t max_value) {
  return std::bit_width(max_value);
}

void RleBitPackedEncoder::Put(uint32_t value) {
  assert((value & ~mask_) == 0);
  value &= mask_;
  if (value == run_value_ && run_count_ > 0) {
    ++run_count_;
    return;
  }
  CommitRun();
  run_value_ = value;
  run_count_ = 1;
}

void RleBitPackedEncoder::PutRepeated(uint32_t value, size_t count) {
  assert((value & ~mask_) == 0);
  if (count == 0) return;
  value &= mask_;
  if (value != run_value_ || run_count_ == 0) {
    CommitRun();
    run_value_ = value;
  }
  run_count_ += count;
}

std::string RleBitPackedEncoder::Finish() {
  CommitRun();
  FlushLiterals();
  std::string out = std::move(out_);
  out_.clear();
  return out;
}

// Places the trailing repeat: as an RLE run when, after topping the pending literals up to a
// whole group, at least 8 repeats remain; otherwise as literals.
void RleBitPackedEncoder::CommitRun() {
  if (run_count_ == 0) return;
  size_t fill = (8 - literals_.size() % 8) % 8;
  if (run_count_ >= fill + 8) {
    AppendLiterals(run_value_, fill);
    FlushLiterals();
    WriteRleRuns(run_value_, run_count_ - fill);
  } else {
    AppendLiterals(run_value_, static_cast<size_t>(run_count_));
  }
  run_count_ = 0;
}

void RleBitPackedEncoder::AppendLiterals(uint32_t value, size_t count) {
  while (count > 0) {
    size_t k = std::min(count, kMaxLiteralValues - literals_.size());
    literals_.insert(literals_.end(), k, value);
    count -= k;
    if (literals_.size() == kMaxLiteralValues) FlushLiterals();
  }
}

void RleBitPackedEncoder::FlushLiterals() {
  if (literals_.empty()) return;
  literals_.resize((literals_.size() + 7) / 8 * 8, 0);
  size_t groups = literals_.size() / 8;
  AppendVarint(&out_, (uint64_t{groups} << 1) | 1);
  PackBits(literals_.data(), literals_.size(), bit_width_, &out_);
  literals_.clear();
}

void RleBitPackedEncoder::WriteRleRuns(uint32_t value, uint64_t count) {
  while (count > 0) {
    uint64_t k = std::min(count, kMaxRunLength);
    AppendVarint(&out_, k << 1);
    for (size_t b = 0; b < value_bytes_; ++b) out_.push_back(static_cast<char>(value >> (8 * b)));
    count -= k;
  }
}

}  // namespace cdclake::parquet
