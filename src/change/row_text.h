// RowText: a change row's raw text for people (quarantine, expectations), whether its reader
// kept it or left it in the file it came from (RawTexts::AddInFile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "io/file_system.h"

namespace cdclake::change {

struct ChangeBatch;

/// Reads texts left in their files back through the file system their reader read them from.
/// The file system must outlive every batch that refers to this object. Safe to share between
/// threads.
class RowTextSource {
 public:
  explicit RowTextSource(const io::FileSystem& fs) : fs_(fs) {}

  /// The `length` bytes of `file` at `offset` when their XXH3-64 is `digest`; empty when the
  /// file cannot be read there or holds other bytes now (replaced or rewritten since).
  std::string Read(std::string_view file, int64_t offset, uint64_t length, uint64_t digest) const;

 private:
  const io::FileSystem& fs_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<io::RandomAccessFile> last_;  // the file read last, kept open
};

/// The XXH3-64 of a text, as RawTexts::AddInFile wants it.
uint64_t RowTextDigest(std::string_view text);

/// Row `row`'s raw text: the one kept in `batch.raw`, or the one left in its file and read back
/// through `batch.text_source`; empty when there is none (the caller then shows the row's
/// values instead).
std::string RowText(const ChangeBatch& batch, size_t row);

}  // namespace cdclake::change
