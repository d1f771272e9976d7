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

/// The two-halves reader of the CSV file `path` of `size` bytes whose columns are `schema` (its
/// header and types settled by CsvChangeReader::Open), or nullptr when the file is not one to
/// split (FindFileCut). A NewTwoHalvesReader (file_halves_internal.h): a quoted field open at the
/// cut leaves the first half's last record pending, and the file is then read front to back.
Result<std::unique_ptr<ChangeFileReader>> OpenSplitCsvReader(io::FileSystem& fs,
                                                             const std::string& path,
                                                             const data::Schema& schema,
                                                             const ChangeFileOptions& options,
                                                             bool last_is_required, uint64_t size);

}  // namespace cdclake::sources::internal
