// Deletion vector descriptors: the derived id and file path, and reading and writing the bytes
// they point at (inline Z85, or a DV file: version byte, then size / bitmap / CRC-32 blocks).
#include "delta/deletion_vector/deletion_vector_descriptor.h"

#include <cassert>
#include <cctype>
#include <cstdint>
#include <exception>
#include <memory>
#include <random>

#include "base/bytes.h"
#include "base/strings.h"
#include "base/uuid.h"
#include "delta/deletion_vector/z85.h"
#include "io/file_system.h"

namespace cdclake::delta {
namespace {

constexpr uint8_t kDvFileVersion = 1;
constexpr size_t kEncodedUuidLength = 20;  // Z85 of 16 bytes

uint32_t LoadBE32(const char* p) {
  auto b = [p](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(p[i])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

void AppendBE32(std::string* out, uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(bytes, 4);
}

// The URI scheme of `text` (lower case), or "" when it has none (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.', then ':').
std::string SchemeOf(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return "";
  for (size_t i = 1; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ':') {
      std::string scheme(text.substr(0, i));
      for (char& s : scheme) s = static_cast<char>(std::tolower(static_cast<unsigned char>(s)));
      return scheme;
    }
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return "";
}

// "p" storage: a plain absolute path or a file: URI ("file:/a", "file:///a",
// "file://localhost/a"), percent-decoded.
Result<std::string> ResolveAbsolutePath(const std::string& text) {
  std::string_view path = text;
  const std::string scheme = SchemeOf(text);
  if (!scheme.empty()) {
    if (scheme != "file") {
      return Status::NotSupported("deletion vector storage scheme '" + scheme + "' in '" + text +
                                  "': only local paths and file: URIs are read");
    }
    path.remove_prefix(scheme.size() + 1);
    if (path.starts_with("//")) {
      path.remove_prefix(2);
      const size_t slash = path.find('/');
      const std::string_view host = path.substr(0, slash);
      if (!host.empty() && host != "localhost") {
        return Status::NotSupported("deletion vector on host '" + std::string(host) + "' in '" +
                                    text + "'");
      }
      path.remove_prefix(host.size());
    }
  }
  if (!path.starts_with("/")) {
    return Status::Corrupt("deletion vector path '" + text + "' is not absolute");
  }
  return PercentDecode(path);
}

// The random prefix of a "u" DV names a folder below the table root; it must stay below it.
Status CheckPrefix(std::string_view prefix, const std::string& whole) {
  if (prefix.starts_with("/")) {
    return Status::Corrupt("deletion vector prefix of '" + whole + "' starts with '/'");
  }
  size_t start = 0;
  while (start <= prefix.size()) {
    size_t end = prefix.find('/', start);
    if (end == std::string_view::npos) end = prefix.size();
    if (prefix.substr(start, end - start) == "..") {
      return Status::Corrupt("deletion vector prefix of '" + whole + "' leaves the table");
    }
    start = end + 1;
  }
  return Status::OK();
}

Status CheckCardinality(const RowBitmap& bitmap, const DeletionVectorDescriptor& dv) {
  const uint64_t actual = bitmap.Cardinality();
  if (dv.cardinality < 0 || actual != static_cast<uint64_t>(dv.cardinality)) {
    return Status::Corrupt("holds " + std::to_string(actual) + " rows but its descriptor says " +
                           std::to_string(dv.cardinality));
  }
  return Status::OK();
}

Result<RowBitmap> LoadInline(const DeletionVectorDescriptor& dv) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string bytes, Z85Decode(dv.path_or_inline_dv));
  // Z85 covers whole 4-byte groups: the text holds the bitmap plus up to 3 padding bytes.
  if (dv.size_in_bytes < 0 || static_cast<size_t>(dv.size_in_bytes) > bytes.size() ||
      bytes.size() - static_cast<size_t>(dv.size_in_bytes) >= 4) {
    return Status::Corrupt("sizeInBytes " + std::to_string(dv.size_in_bytes) +
                           " does not match the " + std::to_string(bytes.size()) +
                           " bytes of its Z85 text");
  }
  bytes.resize(static_cast<size_t>(dv.size_in_bytes));
  CDCLAKE_ASSIGN_OR_RETURN(RowBitmap bitmap, RowBitmap::Deserialize(bytes));
  CDCLAKE_RETURN_IF_ERROR(CheckCardinality(bitmap, dv));
  return bitmap;
}

Result<RowBitmap> LoadFromFile(const io::FileSystem& fs, const std::string& path,
                               const DeletionVectorDescriptor& dv) {
  const int64_t offset = dv.offset.value_or(0);
  if (offset < 0) return Status::Corrupt("negative offset " + std::to_string(offset));
  if (dv.size_in_bytes < 0) {
    return Status::Corrupt("negative sizeInBytes " + std::to_string(dv.size_in_bytes));
  }
  const uint64_t size = static_cast<uint64_t>(dv.size_in_bytes);
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t file_size, file->Size());

  std::string version;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(0, 1, &version));
  if (static_cast<uint8_t>(version[0]) != kDvFileVersion) {
    return Status::Corrupt("file format version " +
                           std::to_string(static_cast<uint8_t>(version[0])) + " is not 1");
  }
  // The block: 4-byte size, the bitmap, 4-byte CRC-32.
  const uint64_t block_size = 4 + size + 4;
  if (static_cast<uint64_t>(offset) > file_size || block_size > file_size - offset) {
    return Status::Corrupt(std::to_string(block_size) + " bytes at offset " +
                           std::to_string(offset) + " overrun the file of " +
                           std::to_string(file_size) + " bytes");
  }
  std::string block;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(static_cast<uint64_t>(offset), block_size, &block));
  const uint32_t stored_size = LoadBE32(block.data());
  if (stored_size != size) {
    return Status::Corrupt("stored size " + std::to_string(stored_size) +
                           " does not match sizeInBytes " + std::to_string(size));
  }
  const std::string_view bitmap_bytes = std::string_view(block).substr(4, size);
  const uint32_t stored_crc = LoadBE32(block.data() + 4 + size);
  const uint32_t crc = Crc32(bitmap_bytes);
  if (stored_crc != crc) {
    return Status::Corrupt("CRC-32 mismatch: stored " + std::to_string(stored_crc) + ", computed " +
                           std::to_string(crc));
  }
  CDCLAKE_ASSIGN_OR_RETURN(RowBitmap bitmap, RowBitmap::Deserialize(bitmap_bytes));
  CDCLAKE_RETURN_IF_ERROR(CheckCardinality(bitmap, dv));
  return bitmap;
}

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

Result<std::string> AbsoluteDvPath(const DeletionVectorDescriptor& dv,
                                   const std::string& table_root) {
  const std::string& text = dv.path_or_inline_dv;
  if (dv.storage_type == kDvStorageUuid) {
    if (text.size() < kEncodedUuidLength) {
      return Status::Corrupt("deletion vector path '" + text +
                             "' is shorter than a 20-character Z85 UUID");
    }
    const std::string_view prefix =
        std::string_view(text).substr(0, text.size() - kEncodedUuidLength);
    CDCLAKE_RETURN_IF_ERROR(CheckPrefix(prefix, text));
    Result<std::string> uuid = Z85Decode(std::string_view(text).substr(prefix.size()));
    if (!uuid.ok()) return uuid.status().WithContext("deletion vector UUID in '" + text + "'");
    const std::string name = "deletion_vector_" + UuidText(*uuid) + ".bin";
    return io::JoinPath(io::JoinPath(table_root, prefix), name);
  }
  if (dv.storage_type == kDvStorageAbsolute) return ResolveAbsolutePath(text);
  if (dv.storage_type == kDvStorageInline) {
    return Status::InvalidArgument("an inline deletion vector has no file");
  }
  return Status::NotSupported("deletion vector storage type '" + dv.storage_type + "'");
}

Result<RowBitmap> LoadDeletionVector(const io::FileSystem& fs, const std::string& table_root,
                                     const DeletionVectorDescriptor& dv) {
  if (dv.storage_type == kDvStorageInline) {
    Result<RowBitmap> bitmap = LoadInline(dv);
    if (!bitmap.ok()) return bitmap.status().WithContext("inline deletion vector");
    return bitmap;
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::string path, AbsoluteDvPath(dv, table_root));
  Result<RowBitmap> bitmap = LoadFromFile(fs, path, dv);
  if (!bitmap.ok()) {
    return bitmap.status().WithContext("deletion vector " + path + " at offset " +
                                       std::to_string(dv.offset.value_or(0)));
  }
  return bitmap;
}

Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectorFile(
    io::FileSystem& fs, const std::string& table_root,
    const std::vector<const RowBitmap*>& bitmaps) {
  if (bitmaps.empty()) return Status::InvalidArgument("no deletion vectors to write");
  CDCLAKE_ASSIGN_OR_RETURN(std::string uuid, NewUuidBytes());
  const std::string encoded_uuid = Z85Encode(uuid);
  const std::string path = io::JoinPath(table_root, "deletion_vector_" + UuidText(uuid) + ".bin");

  std::string file(1, static_cast<char>(kDvFileVersion));
  std::vector<DeletionVectorDescriptor> out;
  out.reserve(bitmaps.size());
  for (const RowBitmap* bitmap : bitmaps) {
    if (bitmap == nullptr) return Status::InvalidArgument("null deletion vector bitmap");
    const std::string data = bitmap->SerializePortable();
    if (data.size() > INT32_MAX || file.size() > INT32_MAX) {
      return Status::OutOfRange("deletion vector file " + path + " would pass 2 GiB");
    }
    DeletionVectorDescriptor dv;
    dv.storage_type = std::string(kDvStorageUuid);
    dv.path_or_inline_dv = encoded_uuid;
    dv.offset = static_cast<int32_t>(file.size());
    dv.size_in_bytes = static_cast<int32_t>(data.size());
    dv.cardinality = static_cast<int64_t>(bitmap->Cardinality());
    AppendBE32(&file, static_cast<uint32_t>(data.size()));
    file += data;
    AppendBE32(&file, Crc32(data));
    out.push_back(std::move(dv));
  }
  CDCLAKE_RETURN_IF_ERROR(fs.PutIfAbsent(path, file));
  return out;
}

Result<DeletionVectorDescriptor> WriteDeletionVectorFile(io::FileSystem& fs,
                                                         const std::string& table_root,
                                                         const RowBitmap& bitmap) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<DeletionVectorDescriptor> dvs,
                           WriteDeletionVectorFile(fs, table_root, {&bitmap}));
  return std::move(dvs.front());
}

DeletionVectorDescriptor InlineDeletionVector(const RowBitmap& bitmap) {
  std::string data = bitmap.SerializePortable();
  assert(data.size() <= INT32_MAX);
  DeletionVectorDescriptor dv;
  dv.storage_type = std::string(kDvStorageInline);
  dv.size_in_bytes = static_cast<int32_t>(data.size());
  dv.cardinality = static_cast<int64_t>(bitmap.Cardinality());
  data.resize((data.size() + 3) / 4 * 4, '\0');
  dv.path_or_inline_dv = Z85Encode(data);
  return dv;
}

}  // namespace cdclake::delta
