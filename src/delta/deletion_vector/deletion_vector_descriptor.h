// DeletionVectorDescriptor (PROTOCOL.md §Deletion Vector Descriptor Schema): where a deletion
// vector lives (a UUID-named file, an absolute path, or inline in the log) and how to read and
// write it (§Deletion Vector File Storage Format).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "delta/deletion_vector/row_bitmap.h"

namespace cdclake::io {
class FileSystem;
}  // namespace cdclake::io

namespace cdclake::delta {

/// `storageType` values.
inline constexpr std::string_view kDvStorageUuid = "u";      // file named after a UUID
inline constexpr std::string_view kDvStorageInline = "i";    // Z85 bytes in the log
inline constexpr std::string_view kDvStorageAbsolute = "p";  // file at an absolute path/URI

/// The `deletionVector` field of `add` and `remove` actions.
struct DeletionVectorDescriptor {
  std::string storage_type;  // "u", "i" or "p"
  /// "u": an optional random prefix (a folder) and the 20-character Z85 of the file's UUID;
  /// "i": the Z85 of the serialized bitmap; "p": an absolute path or URI, percent-encoded.
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;  // where the DV starts in its file; absent (read as 0) for "i"
  int32_t size_in_bytes = 0;      // the serialized bitmap's length (before Z85 when inline)
  int64_t cardinality = 0;        // how many rows it deletes

  /// The DV's id in log replay (§Derived Fields): storage_type + path_or_inline_dv, plus "@" and
  /// the offset when one is set.
  std::string UniqueId() const;

  bool operator==(const DeletionVectorDescriptor& other) const = default;
};

/// The file holding a "u" or "p" deletion vector (§Derived Fields): for "u",
/// `<table_root>/<prefix>/deletion_vector_<uuid>.bin`; for "p", the path of a plain absolute
/// path or file: URI, percent-decoded. kNotSupported for other URI schemes, kInvalidArgument for
/// an inline DV, kCorrupt for a malformed UUID, prefix or path.
Result<std::string> AbsoluteDvPath(const DeletionVectorDescriptor& dv,
                                   const std::string& table_root);

/// Reads a deletion vector: inline (Z85, cut to size_in_bytes) or from its file at `offset`
/// (format version byte 1 at the start of the file; at the offset a big-endian size, the bitmap,
/// and a big-endian CRC-32 of the bitmap). Checks the size, the CRC and the cardinality against
/// the descriptor; kCorrupt (naming the DV) when anything disagrees.
Result<RowBitmap> LoadDeletionVector(const io::FileSystem& fs, const std::string& table_root,
                                     const DeletionVectorDescriptor& dv);

/// Writes `bitmaps` one after another into a new file `<table_root>/deletion_vector_<uuid>.bin`
/// (random version-4 UUID; the file is created only if absent) and returns their descriptors,
/// in order: storage "u", the Z85 UUID, each one's offset, size and cardinality.
/// kInvalidArgument when `bitmaps` is empty or holds a nullptr.
Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectorFile(
    io::FileSystem& fs, const std::string& table_root,
    const std::vector<const RowBitmap*>& bitmaps);

/// One bitmap in its own new file (offset 1).
Result<DeletionVectorDescriptor> WriteDeletionVectorFile(io::FileSystem& fs,
                                                         const std::string& table_root,
                                                         const RowBitmap& bitmap);

/// The inline form (storage "i"): the serialized bitmap, zero-padded to a multiple of 4 and
/// Z85-encoded; size_in_bytes is the unpadded length.
/// REQUIRES: the serialized bitmap is smaller than 2 GiB.
DeletionVectorDescriptor InlineDeletionVector(const RowBitmap& bitmap);

}  // namespace cdclake::delta
