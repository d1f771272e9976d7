// Decoding a Debezium file in two halves at once: a reader of a byte range of the file, and the
// reader that splits a file in two, decodes both halves on two threads and hands out their
// batches in file order, or reads the file front to back when the halves do not join up.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "io/file_system.h"
#include "sources/debezium/debezium_reader.h"

namespace cdclake::sources::internal {

/// The first pass over a file (the types of columns no schema names), run once for the
/// readers of its two halves, by whichever needs it first.
class ObservationPass;
std::shared_ptr<ObservationPass> NewObservationPass();

/// A reader of the bytes [begin, end) of `path` only, as if the file held only them; `begin` is
/// the start of line `first_line`. Positions are the file's. The first pass that infers column
/// types still reads the whole file, so both halves infer the types the whole file gives;
/// readers given one `pass` run it once between them.
Result<std::unique_ptr<DebeziumReader>> OpenDebeziumRange(
    io::FileSystem& fs, std::string path, DebeziumOptions options, uint64_t begin, uint64_t end,
    int64_t first_line, std::shared_ptr<ObservationPass> pass = nullptr);

/// The two-halves reader of `path`, or nullptr when the file is not one to split (smaller than
/// options.split_from_bytes or larger than kSplitUpToBytes, not one record per line, or without
/// a record boundary near its middle).
Result<std::unique_ptr<DebeziumReader>> OpenSplitDebeziumReader(io::FileSystem& fs,
                                                                const std::string& path,
                                                                const DebeziumOptions& options);

/// Whether `reader` is a two-halves reader whose halves joined up (after its first Next).
bool DecodedInHalves(const DebeziumReader& reader);

}  // namespace cdclake::sources::internal
