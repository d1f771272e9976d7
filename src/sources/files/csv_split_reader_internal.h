// The two-halves CSV reader: a large CSV file decoded as two byte ranges on two threads, handed
// out in file order, or front to back when the halves do not join up.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/change_file_reader.h"

namespace cdclake::sources::internal {

/// CSV files larger than this are read front to back: a split reader holds every batch of the
/// file at once.
inline constexpr int64_t kCsvSplitUpToBytes = int64_t{256} << 20;

/// The two-halves reader of the CSV file `path` of `size` bytes whose columns are `schema` (its
/// header and types settled by CsvChangeReader::Open), or nullptr when the file is not one to
/// split: smaller than options.split_from_bytes (0: never) or larger than kCsvSplitUpToBytes, or
/// without a line ending in the few MiB after its middle. The second half starts after the first
/// line ending past the middle. At the first Next both halves are decoded at once; they join up
/// when neither failed and the first ended cleanly at the cut (no quoted field left open there,
/// its last record ended by a line ending): the first half was then read by the same state
/// machine over the same bytes as a front-to-back reader, so the cut is a record boundary and
/// the rows, rejected records, positions and tail are the same (batch ends aside). Otherwise the
/// file is read front to back after all.
Result<std::unique_ptr<ChangeFileReader>> OpenSplitCsvReader(io::FileSystem& fs,
                                                             const std::string& path,
                                                             const data::Schema& schema,
                                                             const ChangeFileOptions& options,
                                                             bool last_is_required, uint64_t size);

/// Whether `reader` is a two-halves CSV reader whose halves joined up (after its first Next).
bool DecodedCsvInHalves(const ChangeFileReader& reader);

}  // namespace cdclake::sources::internal
