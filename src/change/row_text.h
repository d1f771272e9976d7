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
  /// bytes there are not the row's (the file was rewritten) or cannot be read. The file read
  /// last stays open and a window of it in memory, so many rows of one file (a batch that fails
  /// whole) cost one read per window, not one per row; a file removed or replaced after it was
  /// opened here still gives its bytes from then, which the digest shows to be the row's.
  std::string Read(std::string_view file, int64_t offset, uint64_t length, uint64_t digest) const;

 private:
  static constexpr uint64_t kWindowBytes = 64 << 10;

  const io::FileSystem& fs_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<io::RandomAccessFile> last_;  // the file read last, kept open
  mutable uint64_t window_offset_ = 0;                  // where window_ starts in last_
  mutable std::string window_;
};

/// The XXH3-64 of a text, as RawTexts::AddInFile wants it.
uint64_t RowTextDigest(std::string_view text);

/// Row `row`'s raw text: the one kept in `batch.raw`, or the one left in its file and read back
/// through `batch.text_source`; empty when there is none.
std::string RowText(const ChangeBatch& batch, size_t row);

/// RowText, or when there is none the row's values as a JSON object (for quarantine records:
/// never empty, so nothing is lost).
std::string RowTextOrJson(const ChangeBatch& batch, size_t row);

}  // namespace cdclake::change
