// RowBitmap over CRoaring, and the checks that keep hostile bytes away from CRoaring: every
// 32-bit bitmap is walked against RoaringFormatSpec (cookies, counts, keys, offsets, container
// contents) before roaring_bitmap_portable_deserialize_safe parses it.
#include "delta/deletion_vector/row_bitmap.h"

#include <roaring/roaring.h>

#include <bit>
#include <cassert>
#include <cstdlib>
#include <type_traits>
#include <utility>

#include "base/bytes.h"

static_assert(std::is_same_v<roaring_bitmap_t, roaring_bitmap_s>,
              "row_bitmap.h forward-declares CRoaring's bitmap as struct roaring_bitmap_s");

namespace cdclake::delta {
namespace {

// RoaringFormatSpec constants.
constexpr uint32_t kCookieNoRuns = 12346;  // the whole 32-bit cookie
constexpr uint32_t kCookieRuns = 12347;    // the low 16 bits; the high 16 are count - 1
constexpr size_t kNoOffsetThreshold = 4;   // with runs, offsets are written from 4 containers
constexpr uint64_t kMaxContainers = 65536;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;
// The smallest bucket: a key and an empty bitmap (cookie and container count).
constexpr size_t kMinBucketBytes = 4 + 8;

Status CorruptAt(size_t offset, const std::string& what) {
  return Status::Corrupt(what + " at byte " + std::to_string(offset));
}

// CRoaring reports allocation failure as nullptr; like a failed `new`, that ends the process.
roaring_bitmap_t* CheckAlloc(roaring_bitmap_t* bitmap) {
  if (bitmap == nullptr) std::abort();
  return bitmap;
}

uint32_t LoadBE32(const char* p) {
  auto b = [p](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(p[i])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

Result<uint32_t> ReadBE32(ByteReader& in) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string_view bytes, in.ReadBytes(4));
  return LoadBE32(bytes.data());
}

// Checks the portable 32-bit Roaring bitmap at the reader's position and moves past it.
// Returns its cardinality. Offsets in errors count from the start of the reader's bytes.
Result<uint64_t> CheckRoaring32(ByteReader& in) {
  const size_t start = in.position();
  CDCLAKE_ASSIGN_OR_RETURN(uint32_t cookie, in.ReadLE<uint32_t>());
  uint64_t count = 0;
  bool has_offsets = true;
  std::string_view run_flags;  // one bit per container, set for run containers
  if (cookie == kCookieNoRuns) {
    CDCLAKE_ASSIGN_OR_RETURN(uint32_t n, in.ReadLE<uint32_t>());
    if (n > kMaxContainers) {
      return CorruptAt(
          start + 4, "Roaring bitmap claims " + std::to_string(n) + " containers (at most 65536)");
    }
    count = n;
  } else if ((cookie & 0xFFFF) == kCookieRuns) {
    count = (cookie >> 16) + uint64_t{1};
    CDCLAKE_ASSIGN_OR_RETURN(run_flags, in.ReadBytes((count + 7) / 8));
    has_offsets = count >= kNoOffsetThreshold;
  } else {
    return CorruptAt(start, "unknown Roaring cookie " + std::to_string(cookie));
  }

  const size_t header_at = in.position();
  CDCLAKE_ASSIGN_OR_RETURN(std::string_view header, in.ReadBytes(count * 4));
  const size_t offsets_at = in.position();
  std::string_view offsets;
  if (has_offsets) {
    CDCLAKE_ASSIGN_OR_RETURN(offsets, in.ReadBytes(count * 4));
  }

  uint64_t total = 0;
  int64_t previous_key = -1;
  for (size_t i = 0; i < count; ++i) {
    const auto key = LoadLE<uint16_t>(header.data() + 4 * i);
    const uint32_t cardinality = LoadLE<uint16_t>(header.data() + 4 * i + 2) + uint32_t{1};
    if (key <= previous_key) {
      return CorruptAt(header_at + 4 * i, "Roaring container keys are not ascending");
    }
    previous_key = key;

    const size_t at = in.position();
    if (has_offsets) {
      const auto offset = LoadLE<uint32_t>(offsets.data() + 4 * i);
      if (offset != at - start) {
        return CorruptAt(offsets_at + 4 * i, "Roaring container " + std::to_string(i) + " offset " +
                                                 std::to_string(offset) +
                                                 " does not match its position " +
                                                 std::to_string(at - start));
      }
    }

    const bool is_run =
        !run_flags.empty() && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    uint64_t actual = 0;
    if (is_run) {
      CDCLAKE_ASSIGN_OR_RETURN(uint16_t runs, in.ReadLE<uint16_t>());
      const size_t runs_at = in.position();
      CDCLAKE_ASSIGN_OR_RETURN(std::string_view data, in.ReadBytes(size_t{runs} * 4));
      int64_t previous_last = -1;
      for (size_t r = 0; r < runs; ++r) {
        const uint32_t first = LoadLE<uint16_t>(data.data() + 4 * r);
        const uint32_t last = first + LoadLE<uint16_t>(data.data() + 4 * r + 2);
        if (last > 0xFFFF) return CorruptAt(runs_at + 4 * r, "Roaring run passes 65535");
        if (static_cast<int64_t>(first) <= previous_last) {
          return CorruptAt(runs_at + 4 * r, "Roaring runs overlap or are out of order");
        }
        previous_last = last;
        actual += last - first + 1;
      }
    } else if (cardinality <= kMaxArrayCardinality) {
      CDCLAKE_ASSIGN_OR_RETURN(std::string_view data, in.ReadBytes(size_t{cardinality} * 2));
      int32_t previous = -1;
      for (size_t v = 0; v < cardinality; ++v) {
        const auto value = LoadLE<uint16_t>(data.data() + 2 * v);
        if (value <= previous) {
          return CorruptAt(at + 2 * v, "Roaring array container values are not ascending");
        }
        previous = value;
      }
      actual = cardinality;
    } else {
      CDCLAKE_ASSIGN_OR_RETURN(std::string_view data, in.ReadBytes(kBitsetBytes));
      for (size_t w = 0; w < kBitsetBytes; w += 8) {
        actual += std::popcount(LoadLE<uint64_t>(data.data() + w));
      }
    }
    if (actual != cardinality) {
      return CorruptAt(at, "Roaring container " + std::to_string(i) + " holds " +
                               std::to_string(actual) + " values but its header says " +
                               std::to_string(cardinality));
    }
    total += cardinality;
  }
  return total;
}

// Parses a bitmap CheckRoaring32 accepted: bytes [start, end) of `data`.
Result<roaring_bitmap_t*> ParseRoaring32(std::string_view data, size_t start, size_t end,
                                         uint64_t cardinality) {
  roaring_bitmap_t* bitmap =
      roaring_bitmap_portable_deserialize_safe(data.data() + start, end - start);
  if (bitmap == nullptr) return CorruptAt(start, "CRoaring rejected the bitmap");
  if (roaring_bitmap_get_cardinality(bitmap) != cardinality) {
    roaring_bitmap_free(bitmap);
    return CorruptAt(start, "CRoaring read a different cardinality than the bitmap's header");
  }
  return bitmap;
}

Status BadMagic(uint32_t magic_le) {
  const uint32_t swapped = (magic_le >> 24) | ((magic_le >> 8) & 0xFF00) |
                           ((magic_le << 8) & 0xFF0000) | (magic_le << 24);
  if (magic_le == RowBitmap::kNativeMagic || swapped == RowBitmap::kNativeMagic) {
    return Status::NotSupported(
        "deletion vector in the legacy native RoaringBitmapArray format (magic 1681511376)");
  }
  return CorruptAt(0, "deletion vector magic " + std::to_string(magic_le) +
                          " is not 1681511377 (portable RoaringBitmapArray)");
}

}  // namespace

void RowBitmap::RoaringDeleter::operator()(roaring_bitmap_s* bitmap) const {
  roaring_bitmap_free(bitmap);
}

RowBitmap::RowBitmap() = default;
RowBitmap::~RowBitmap() = default;
RowBitmap::RowBitmap(RowBitmap&& other) noexcept = default;
RowBitmap& RowBitmap::operator=(RowBitmap&& other) noexcept = default;

RowBitmap::RowBitmap(const RowBitmap& other) {
  for (const auto& [key, bitmap] : other.buckets_) {
    buckets_.emplace_hint(buckets_.end(), key,
                          Bucket(CheckAlloc(roaring_bitmap_copy(bitmap.get()))));
  }
}

RowBitmap& RowBitmap::operator=(const RowBitmap& other) {
  if (this != &other) {
    RowBitmap copy(other);
    buckets_.swap(copy.buckets_);
  }
  return *this;
}

RowBitmap RowBitmap::Of(const std::vector<uint64_t>& rows) {
  RowBitmap out;
  for (uint64_t row : rows) out.Add(row);
  return out;
}

roaring_bitmap_s* RowBitmap::BucketFor(uint32_t key) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    it = buckets_.emplace(key, Bucket(CheckAlloc(roaring_bitmap_create()))).first;
  }
  return it->second.get();
}

void RowBitmap::Add(uint64_t row) {
  assert(row <= kMaxRowIndex);
  roaring_bitmap_add(BucketFor(static_cast<uint32_t>(row >> 32)), static_cast<uint32_t>(row));
}

void RowBitmap::AddRange(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  const uint64_t last = end - 1;
  assert(last <= kMaxRowIndex);
  for (uint64_t key = begin >> 32; key <= last >> 32; ++key) {
    const uint64_t low = key == (begin >> 32) ? (begin & 0xFFFFFFFF) : 0;
    const uint64_t high = key == (last >> 32) ? (last & 0xFFFFFFFF) : 0xFFFFFFFF;
    roaring_bitmap_add_range_closed(BucketFor(static_cast<uint32_t>(key)),
                                    static_cast<uint32_t>(low), static_cast<uint32_t>(high));
  }
}

bool RowBitmap::Contains(uint64_t row) const {
  auto it = buckets_.find(static_cast<uint32_t>(row >> 32));
  if (it == buckets_.end()) return false;
  return roaring_bitmap_contains(it->second.get(), static_cast<uint32_t>(row));
}

uint64_t RowBitmap::Cardinality() const {
  uint64_t total = 0;
  for (const auto& [key, bitmap] : buckets_) total += roaring_bitmap_get_cardinality(bitmap.get());
  return total;
}

std::optional<uint64_t> RowBitmap::Max() const {
  if (buckets_.empty()) return std::nullopt;
  const auto& [key, bitmap] = *buckets_.rbegin();
  return (uint64_t{key} << 32) | roaring_bitmap_maximum(bitmap.get());
}

void RowBitmap::Union(const RowBitmap& other) {
  if (this == &other) return;
  for (const auto& [key, bitmap] : other.buckets_) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
      buckets_.emplace(key, Bucket(CheckAlloc(roaring_bitmap_copy(bitmap.get()))));
    } else {
      roaring_bitmap_or_inplace(it->second.get(), bitmap.get());
    }
  }
}

void RowBitmap::ForEachImpl(void (*fn)(void* ctx, uint64_t row), void* ctx) const {
  struct Visit {
    void (*fn)(void*, uint64_t);
    void* ctx;
  } visit{fn, ctx};
  auto step = [](uint64_t row, void* param) {
    auto* v = static_cast<Visit*>(param);
    v->fn(v->ctx, row);
    return true;
  };
  for (const auto& [key, bitmap] : buckets_) {
    roaring_iterate64(bitmap.get(), step, uint64_t{key} << 32, &visit);
  }
}

std::vector<uint64_t> RowBitmap::ToVector() const {
  std::vector<uint64_t> out;
  out.reserve(Cardinality());
  std::vector<uint32_t> low;
  for (const auto& [key, bitmap] : buckets_) {
    low.resize(roaring_bitmap_get_cardinality(bitmap.get()));
    roaring_bitmap_to_uint32_array(bitmap.get(), low.data());
    for (uint32_t v : low) out.push_back((uint64_t{key} << 32) | v);
  }
  return out;
}

bool RowBitmap::operator==(const RowBitmap& other) const {
  if (buckets_.size() != other.buckets_.size()) return false;
  for (auto a = buckets_.begin(), b = other.buckets_.begin(); a != buckets_.end(); ++a, ++b) {
    if (a->first != b->first || !roaring_bitmap_equals(a->second.get(), b->second.get())) {
      return false;
    }
  }
  return true;
}

Result<RowBitmap> RowBitmap::DeserializePortable(std::string_view bytes) {
  ByteReader in(bytes);
  CDCLAKE_ASSIGN_OR_RETURN(uint32_t magic, in.ReadLE<uint32_t>());
  if (magic != kPortableMagic) return BadMagic(magic);
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t buckets, in.ReadLE<uint64_t>());
  if (buckets > in.remaining() / kMinBucketBytes) {
    return CorruptAt(4, "deletion vector claims " + std::to_string(buckets) + " buckets in " +
                            std::to_string(in.remaining()) + " bytes");
  }
  RowBitmap out;
  int64_t previous_key = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    const size_t key_at = in.position();
    CDCLAKE_ASSIGN_OR_RETURN(uint32_t key, in.ReadLE<uint32_t>());
    if (key > 0x7FFFFFFF) {
      return CorruptAt(
          key_at, "deletion vector bucket key " + std::to_string(key) + " has its top bit set");
    }
    if (static_cast<int64_t>(key) <= previous_key) {
      return CorruptAt(key_at, "deletion vector bucket keys are not ascending");
    }
    previous_key = key;
    const size_t start = in.position();
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t cardinality, CheckRoaring32(in));
    if (cardinality == 0) continue;  // writers with dense bucket arrays write empty ones
    CDCLAKE_ASSIGN_OR_RETURN(roaring_bitmap_t * bitmap,
                             ParseRoaring32(bytes, start, in.position(), cardinality));
    out.buckets_.emplace_hint(out.buckets_.end(), key, Bucket(bitmap));
  }
  if (!in.AtEnd()) {
    return CorruptAt(in.position(), std::to_string(in.remaining()) +
                                        " bytes follow the last deletion vector bucket");
  }
  return out;
}

// The legacy native layout: big-endian magic, bitmap count and, per bitmap, its byte size; the
// bitmaps themselves are portable 32-bit ones, one per key from 0 up.
Result<RowBitmap> RowBitmap::DeserializeNative(std::string_view bytes) {
  ByteReader in(bytes);
  CDCLAKE_RETURN_IF_ERROR(in.Skip(4));  // the magic, checked by the caller
  CDCLAKE_ASSIGN_OR_RETURN(uint32_t count, ReadBE32(in));
  if (count > 0x7FFFFFFF || count > in.remaining() / kMinBucketBytes) {
    return CorruptAt(4, "deletion vector claims " + std::to_string(count) + " bitmaps in " +
                            std::to_string(in.remaining()) + " bytes");
  }
  RowBitmap out;
  for (uint32_t key = 0; key < count; ++key) {
    const size_t size_at = in.position();
    CDCLAKE_ASSIGN_OR_RETURN(uint32_t size, ReadBE32(in));
    if (size > in.remaining()) {
      return CorruptAt(size_at, "deletion vector bitmap of " + std::to_string(size) +
                                    " bytes overruns the " + std::to_string(in.remaining()) +
                                    " that follow");
    }
    const size_t start = in.position();
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t cardinality, CheckRoaring32(in));
    if (in.position() - start != size) {
      return CorruptAt(size_at, "deletion vector bitmap takes " +
                                    std::to_string(in.position() - start) + " bytes, not the " +
                                    std::to_string(size) + " declared");
    }
    if (cardinality == 0) continue;
    CDCLAKE_ASSIGN_OR_RETURN(roaring_bitmap_t * bitmap,
                             ParseRoaring32(bytes, start, in.position(), cardinality));
    out.buckets_.emplace_hint(out.buckets_.end(), key, Bucket(bitmap));
  }
  if (!in.AtEnd()) {
    return CorruptAt(in.position(), std::to_string(in.remaining()) +
                                        " bytes follow the last deletion vector bitmap");
  }
  return out;
}

Result<RowBitmap> RowBitmap::Deserialize(std::string_view bytes) {
  if (bytes.size() >= 4 && LoadBE32(bytes.data()) == kNativeMagic) return DeserializeNative(bytes);
  return DeserializePortable(bytes);
}

std::string RowBitmap::SerializePortable() const {
  std::string out;
  AppendLE<uint32_t>(&out, kPortableMagic);
  AppendLE<uint64_t>(&out, buckets_.size());
  for (const auto& [key, bitmap] : buckets_) {
    AppendLE<uint32_t>(&out, key);
    // Run-optimize a copy: const methods leave the shared bitmaps untouched.
    Bucket compact(CheckAlloc(roaring_bitmap_copy(bitmap.get())));
    roaring_bitmap_run_optimize(compact.get());
    const size_t size = roaring_bitmap_portable_size_in_bytes(compact.get());
    const size_t at = out.size();
    out.resize(at + size);
    [[maybe_unused]] const size_t written =
        roaring_bitmap_portable_serialize(compact.get(), out.data() + at);
    assert(written == size);
  }
  return out;
}

}  // namespace cdclake::delta
