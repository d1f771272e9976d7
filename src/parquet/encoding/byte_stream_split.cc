// BYTE_STREAM_SPLIT: a byte transpose, with fixed-width loops for the 2, 4 and 8 byte types.
#include "parquet/encoding/byte_stream_split.h"

#include <string>

namespace cdclake::parquet {
namespace {

template <size_t W>
void Gather(const uint8_t* in, size_t stride, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < W; ++k) out[i * W + k] = in[k * stride + i];
  }
}

void GatherAny(const uint8_t* in, size_t width, size_t stride, size_t n, uint8_t* out) {
  for (size_t k = 0; k < width; ++k) {
    const uint8_t* stream = in + k * stride;
    for (size_t i = 0; i < n; ++i) out[i * width + k] = stream[i];
  }
}

template <size_t W>
void Scatter(const uint8_t* values, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < W; ++k) out[k * n + i] = values[i * W + k];
  }
}

void ScatterAny(const uint8_t* values, size_t width, size_t n, uint8_t* out) {
  for (size_t k = 0; k < width; ++k) {
    uint8_t* stream = out + k * n;
    for (size_t i = 0; i < n; ++i) stream[i] = values[i * width + k];
  }
}

}  // namespace

void EncodeByteStreamSplit(const uint8_t* values, size_t width, size_t n, std::string* out) {
  const size_t start = out->size();
  out->resize(start + width * n);
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  switch (width) {
    case 2:
      Scatter<2>(values, n, dst);
      break;
    case 4:
      Scatter<4>(values, n, dst);
      break;
    case 8:
      Scatter<8>(values, n, dst);
      break;
    default:
      ScatterAny(values, width, n, dst);
      break;
  }
}

Status DecodeByteStreamSplit(std::string_view data, size_t width, size_t n, uint8_t* out) {
  if (width == 0) return Status::InvalidArgument("BYTE_STREAM_SPLIT value width is 0");
  if (data.size() % width != 0) {
    return Status::Corrupt("BYTE_STREAM_SPLIT: " + std::to_string(data.size()) +
                           " bytes do not split into streams of " + std::to_string(width) +
                           "-byte values (stray bytes at offset " +
                           std::to_string(data.size() - data.size() % width) + ")");
  }
  const size_t stride = data.size() / width;
  if (stride < n) {
    return Status::Corrupt("BYTE_STREAM_SPLIT: " + std::to_string(n) + " values wanted, the " +
                           std::to_string(data.size()) + " bytes hold " + std::to_string(stride) +
                           " (truncated at offset " + std::to_string(data.size()) + ")");
  }
  const auto* in = reinterpret_cast<const uint8_t*>(data.data());
  switch (width) {
    case 2:
      Gather<2>(in, stride, n, out);
      break;
    case 4:
      Gather<4>(in, stride, n, out);
      break;
    case 8:
      Gather<8>(in, stride, n, out);
      break;
    default:
      GatherAny(in, width, stride, n, out);
      break;
  }
  return Status::OK();
}

}  // namespace cdclake::parquet
