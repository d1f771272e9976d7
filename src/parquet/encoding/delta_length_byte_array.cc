// DELTA_LENGTH_BYTE_ARRAY: lengths through the delta codec, bytes copied in one piece.
#include "parquet/encoding/delta_length_byte_array.h"

#include <cassert>
#include <string>

#include "parquet/encoding/delta_binary_packed.h"

namespace cdclake::parquet {

void EncodeDeltaLengthByteArray(const std::vector<std::string_view>& values, std::string* out) {
  DeltaBinaryPackedEncoder<int32_t> lengths;
  size_t total = 0;
  for (std::string_view v : values) {
    assert(v.size() <= static_cast<size_t>(INT32_MAX));
    lengths.Put(static_cast<int32_t>(v.size()));
    total += v.size();
  }
  out->append(lengths.Finish());
  out->reserve(out->size() + total);
  for (std::string_view v : values) out->append(v);
}

Result<size_t> DecodeDeltaLengths(std::string_view data, size_t n, std::vector<int32_t>* lengths) {
  DeltaBinaryPackedDecoder<int32_t> decoder(data);
  CDCLAKE_RETURN_IF_ERROR(decoder.Init());
  if (decoder.total_values() < n) {
    return Status::Corrupt("length stream holds " + std::to_string(decoder.total_values()) +
                           " lengths, " + std::to_string(n) + " expected");
  }
  lengths->resize(n);
  CDCLAKE_RETURN_IF_ERROR(decoder.Decode(lengths->data(), n));
  for (size_t i = 0; i < n; ++i) {
    if ((*lengths)[i] < 0) {
      return Status::Corrupt("negative length " + std::to_string((*lengths)[i]) + " for value " +
                             std::to_string(i) + " in the length stream");
    }
  }
  CDCLAKE_RETURN_IF_ERROR(decoder.Skip(decoder.values_remaining()));
  return decoder.bytes_consumed();
}

Status DecodeDeltaLengthByteArray(std::string_view data, size_t n, std::string* bytes,
                                  std::vector<int64_t>* offsets) {
  if (offsets->empty() || offsets->back() != static_cast<int64_t>(bytes->size())) {
    return Status::InvalidArgument("DecodeDeltaLengthByteArray: offsets must end at bytes->size()");
  }
  std::vector<int32_t> lengths;
  Result<size_t> start = DecodeDeltaLengths(data, n, &lengths);
  if (!start.ok()) return start.status().WithContext("DELTA_LENGTH_BYTE_ARRAY lengths");
  const size_t available = data.size() - *start;
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    total += static_cast<size_t>(lengths[i]);  // each < 2^31 and total <= available: no overflow
    if (total > available) {
      return Status::Corrupt("DELTA_LENGTH_BYTE_ARRAY: the first " + std::to_string(i + 1) +
                             " values need " + std::to_string(total) + " bytes at offset " +
                             std::to_string(*start) + ", only " + std::to_string(available) +
                             " remain");
    }
  }
  int64_t end = static_cast<int64_t>(bytes->size());
  bytes->append(data.data() + *start, total);
  offsets->reserve(offsets->size() + n);
  for (size_t i = 0; i < n; ++i) {
    end += lengths[i];
    offsets->push_back(end);
  }
  return Status::OK();
}

}  // namespace cdclake::parquet
