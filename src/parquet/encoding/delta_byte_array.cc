// DELTA_BYTE_ARRAY: prefix sharing on write; on read, all lengths are checked before any byte is
// copied, then values are rebuilt in place from the previous value and their suffix.
#include "parquet/encoding/delta_byte_array.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_length_byte_array.h"

namespace cdclake::parquet {
namespace {

// Front coding can expand a small page enormously (every value repeating a long prefix); more
// than this many decoded bytes from one page is treated as corrupt.
constexpr uint64_t kMaxDecodedBytes = (uint64_t{1} << 31) - 1;

}  // namespace

void EncodeDeltaByteArray(const std::vector<std::string_view>& values, std::string* out) {
  DeltaBinaryPackedEncoder<int32_t> prefixes;
  std::vector<std::string_view> suffixes;
  suffixes.reserve(values.size());
  std::string_view previous;
  for (std::string_view v : values) {
    assert(v.size() <= static_cast<size_t>(INT32_MAX));
    size_t limit = std::min(previous.size(), v.size());
    size_t prefix = 0;
    while (prefix < limit && previous[prefix] == v[prefix]) ++prefix;
    prefixes.Put(static_cast<int32_t>(prefix));
    suffixes.push_back(v.substr(prefix));
    previous = v;
  }
  out->append(prefixes.Finish());
  EncodeDeltaLengthByteArray(suffixes, out);
}

Status DecodeDeltaByteArray(std::string_view data, size_t n, std::string* bytes,
                            std::vector<int64_t>* offsets) {
  if (offsets->empty() || offsets->back() != static_cast<int64_t>(bytes->size())) {
    return Status::InvalidArgument("DecodeDeltaByteArray: offsets must end at bytes->size()");
  }
  std::vector<int32_t> prefixes;
  Result<size_t> suffix_start = DecodeDeltaLengths(data, n, &prefixes);
  if (!suffix_start.ok()) {
    return suffix_start.status().WithContext("DELTA_BYTE_ARRAY prefix lengths");
  }
  const std::string_view rest = data.substr(*suffix_start);
  std::vector<int32_t> suffixes;
  Result<size_t> bytes_start = DecodeDeltaLengths(rest, n, &suffixes);
  if (!bytes_start.ok()) {
    return bytes_start.status().WithContext("DELTA_BYTE_ARRAY suffix lengths (stream at offset " +
                                            std::to_string(*suffix_start) + ")");
  }
  const size_t data_offset = *suffix_start + *bytes_start;
  const size_t available = data.size() - data_offset;

  // Check every length before touching the output.
  uint64_t previous = 0;
  uint64_t suffix_total = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto prefix = static_cast<uint64_t>(prefixes[i]);
    const auto suffix = static_cast<uint64_t>(suffixes[i]);
    if (prefix > previous) {
      return Status::Corrupt("DELTA_BYTE_ARRAY: value " + std::to_string(i) +
                             " has prefix length " + std::to_string(prefix) +
                             " but the previous value has " + std::to_string(previous) + " bytes");
    }
    suffix_total += suffix;
    if (suffix_total > available) {
      return Status::Corrupt("DELTA_BYTE_ARRAY: the first " + std::to_string(i + 1) +
                             " suffixes need " + std::to_string(suffix_total) +
                             " bytes at offset " + std::to_string(data_offset) + ", only " +
                             std::to_string(available) + " remain");
    }
    previous = prefix + suffix;
    total += previous;
    if (total > kMaxDecodedBytes) {
      return Status::Corrupt("DELTA_BYTE_ARRAY: values up to " + std::to_string(i) +
                             " decode to more than 2^31 - 1 bytes");
    }
  }

  const size_t base = bytes->size();
  bytes->resize(base + static_cast<size_t>(total));
  char* dst = bytes->data();
  const char* src = data.data() + data_offset;
  size_t pos = base;
  size_t previous_start = base;
  offsets->reserve(offsets->size() + n);
  for (size_t i = 0; i < n; ++i) {
    const auto prefix = static_cast<size_t>(prefixes[i]);
    const auto suffix = static_cast<size_t>(suffixes[i]);
    if (prefix > 0) std::memcpy(dst + pos, dst + previous_start, prefix);  // no overlap: behind us
    if (suffix > 0) std::memcpy(dst + pos + prefix, src, suffix);
    src += suffix;
    previous_start = pos;
    pos += prefix + suffix;
    offsets->push_back(static_cast<int64_t>(pos));
  }
  return Status::OK();
}

}  // namespace cdclake::parquet
