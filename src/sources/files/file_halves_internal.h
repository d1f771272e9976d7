// What the two-halves readers (CSV, JSON Lines, Debezium) share: decoding two byte ranges of a
// file at once, the line a byte offset falls on, and (for line-based files) where to cut and a
// reader that hands the halves out in file order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "io/file_system.h"
#include "sources/files/change_file_reader.h"

namespace cdclake::sources::internal {

/// Every batch a half's reader gave, or the first error.
struct DecodedHalf {
  Status status;
  std::vector<change::ChangeBatch> batches;
};

/// Reads `reader` (any reader whose Next gives Result<std::optional<change::ChangeBatch>>) to
/// its end or first error.
template <typename Reader>
void ReadHalf(Reader& reader, DecodedHalf* out) {
  for (;;) {
    Result<std::optional<change::ChangeBatch>> next = reader.Next();
    if (!next.ok()) {
      out->status = next.status();
      return;
    }
    if (!next->has_value()) return;
    out->batches.push_back(std::move(**next));
  }
}

/// Decodes `first` on a thread of its own while the caller decodes `second`.
template <typename Reader>
void ReadBothHalves(Reader& first, Reader& second, DecodedHalf* a, DecodedHalf* b) {
  std::thread helper([&] { ReadHalf(first, a); });
  ReadHalf(second, b);
  helper.join();
}

/// The 1-based line of `file` that byte `offset` starts: one past the line endings ('\n')
/// before it, counted in chunks of a few MiB.
Result<int64_t> LineAtOffset(io::RandomAccessFile& file, uint64_t offset);

/// Where a file is cut in two: just after the first line ending past its middle.
struct FileCut {
  uint64_t offset = 0;
  int64_t line = 1;  // the 1-based line that starts at `offset`
};

/// Where the file `path` of `size` bytes is cut, or nullopt when it is not one to split: smaller
/// than `split_from_bytes` (0: never) or larger than kSplitUpToBytes, or without a line ending
/// in the few MiB after its middle.
Result<std::optional<uint64_t>> FindCutOffset(const io::FileSystem& fs, const std::string& path,
                                              uint64_t size, int64_t split_from_bytes);

/// FindCutOffset with the line there (LineAtOffset), for a reader that has not counted lines.
Result<std::optional<FileCut>> FindFileCut(const io::FileSystem& fs, const std::string& path,
                                           uint64_t size, int64_t split_from_bytes);

/// Opens a reader of the bytes [begin, end) of a file: its first part (after any header) when
/// `begin` is 0, else from line `first_line` on, `begin` being the start of a line.
using OpenFilePart = std::function<Result<std::unique_ptr<ChangeFileReader>>(
    uint64_t begin, uint64_t end, int64_t first_line)>;

/// A reader of a file cut at `cut` whose parts `open` gives. At its first Next both halves are
/// decoded at once; they join up when neither failed and the first ended cleanly at the cut
/// (no record left pending or without its line ending there): the first half was then read by
/// the same reader over the same bytes as a front-to-back one, so the rows, rejected records,
/// positions and tail are the same (batch ends aside). Otherwise the file is read front to back
/// after all (an error then shows where it is).
std::unique_ptr<ChangeFileReader> NewTwoHalvesReader(data::Schema schema, OpenFilePart open,
                                                     FileCut cut);

/// Whether `reader` is a two-halves reader whose halves joined up (after its first Next).
bool DecodedInHalves(const ChangeFileReader& reader);

}  // namespace cdclake::sources::internal
