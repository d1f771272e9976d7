// RowBitmap: a set of 64-bit row indexes, the RoaringBitmapArray of Delta deletion vectors
// (PROTOCOL.md §Deletion Vector Format): 32-bit Roaring bitmaps keyed by the high 32 bits, and
// the little-endian "portable" serialization with Delta's magic number in front.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/result.h"

// CRoaring's bitmap type (roaring_bitmap_t), kept out of this header; row_bitmap.cc checks the
// name against <roaring/roaring.h>.
struct roaring_bitmap_s;

namespace cdclake::delta {

/// A set of row indexes (0-based physical positions in a data file). Copyable and movable;
/// every 32-bit bucket is an owned CRoaring bitmap, and no bucket is ever empty.
class RowBitmap {
 public:
  /// Delta requires the top bit of every bucket key to be 0, so row indexes fit in an int64.
  static constexpr uint64_t kMaxRowIndex = (uint64_t{1} << 63) - 1;
  /// The magic number in front of the portable serialization, the one Delta writes.
  static constexpr uint32_t kPortableMagic = 1681511377;
  /// The magic number of the legacy "native" serialization (big-endian header integers).
  static constexpr uint32_t kNativeMagic = 1681511376;

  RowBitmap();
  ~RowBitmap();
  RowBitmap(const RowBitmap& other);
  RowBitmap& operator=(const RowBitmap& other);
  RowBitmap(RowBitmap&& other) noexcept;
  RowBitmap& operator=(RowBitmap&& other) noexcept;

  /// A bitmap holding `rows` (in any order, duplicates allowed).
  /// REQUIRES: every row <= kMaxRowIndex.
  static RowBitmap Of(const std::vector<uint64_t>& rows);

  /// REQUIRES: row <= kMaxRowIndex.
  void Add(uint64_t row);
  /// Adds every row in [begin, end); nothing when begin >= end.
  /// REQUIRES: end - 1 <= kMaxRowIndex when begin < end.
  void AddRange(uint64_t begin, uint64_t end);
  bool Contains(uint64_t row) const;
  uint64_t Cardinality() const;
  bool IsEmpty() const { return buckets_.empty(); }
  /// The largest row index, or nullopt when empty.
  std::optional<uint64_t> Max() const;
  /// Adds every row of `other` (set union, in place).
  void Union(const RowBitmap& other);

  /// Calls fn(uint64_t row) for every row, in ascending order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    using F = std::remove_reference_t<Fn>;
    ForEachImpl([](void* ctx, uint64_t row) { (*static_cast<F*>(ctx))(row); },
                const_cast<void*>(static_cast<const void*>(&fn)));
  }
  /// Every row, ascending.
  std::vector<uint64_t> ToVector() const;

  bool operator==(const RowBitmap& other) const;

  /// Reads the portable RoaringBitmapArray serialization: magic 1681511377 (little endian),
  /// uint64 bucket count, then per bucket a uint32 key and a portable 32-bit Roaring bitmap,
  /// keys ascending with the top bit 0. Every byte is checked before CRoaring sees it; kCorrupt
  /// (naming the byte offset) for anything malformed, trailing bytes included, and
  /// kNotSupported for the legacy native format.
  static Result<RowBitmap> DeserializePortable(std::string_view bytes);
  /// Like DeserializePortable, and also reads the legacy native format (magic 1681511376,
  /// big-endian counts and sizes, one bitmap per bucket from key 0 up), as in the spec's inline
  /// example.
  static Result<RowBitmap> Deserialize(std::string_view bytes);
  /// The portable serialization, magic included (run containers where they are smaller).
  std::string SerializePortable() const;

 private:
  struct RoaringDeleter {
    void operator()(roaring_bitmap_s* bitmap) const;
  };
  using Bucket = std::unique_ptr<roaring_bitmap_s, RoaringDeleter>;

  roaring_bitmap_s* BucketFor(uint32_t key);  // creates it when missing
  void ForEachImpl(void (*fn)(void* ctx, uint64_t row), void* ctx) const;
  static Result<RowBitmap> DeserializeNative(std::string_view bytes);

  std::map<uint32_t, Bucket> buckets_;  // by the high 32 bits of the row index
};

}  // namespace cdclake::delta
