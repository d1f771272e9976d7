// Test helpers for the file readers: write a file into a MemoryFileSystem, open it and read
// every batch into plain vectors.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "change/change_batch.h"
#include "data/value.h"
#include "io/memory_file_system.h"
#include "sources/files/change_file_reader.h"

namespace cdclake::sources::testing {

/// Everything a reader returned, batch boundaries flattened (batch_sizes keeps them).
struct ReadOutcome {
  data::Schema schema;
  std::vector<std::vector<data::Value>> rows;
  std::vector<change::SourcePosition> positions;
  std::vector<std::string> raw;
  std::vector<change::RejectedRecord> rejected;
  std::vector<int64_t> batch_sizes;  // rows per batch
};

inline Result<ReadOutcome> ReadAll(ChangeFileReader& reader) {
  ReadOutcome out;
  out.schema = reader.schema();
  for (;;) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, reader.Next());
    if (!batch.has_value()) break;
    EXPECT_EQ(batch->rows.schema(), out.schema);
    EXPECT_EQ(batch->positions.size(), static_cast<size_t>(batch->rows.num_rows()));
    EXPECT_EQ(batch->raw.size(), static_cast<size_t>(batch->rows.num_rows()));
    out.batch_sizes.push_back(batch->rows.num_rows());
    for (int64_t i = 0; i < batch->rows.num_rows(); ++i) out.rows.push_back(batch->rows.GetRow(i));
    out.positions.insert(out.positions.end(), batch->positions.begin(), batch->positions.end());
    out.raw.insert(out.raw.end(), batch->raw.begin(), batch->raw.end());
    out.rejected.insert(out.rejected.end(), batch->rejected.begin(), batch->rejected.end());
  }
  return out;
}

/// Writes `text` to `path` in a fresh in-memory file system and reads it all.
inline Result<ReadOutcome> ReadText(std::string_view text, ChangeFileOptions options,
                                    const std::string& path = "in/changes.dat") {
  io::MemoryFileSystem fs;
  CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(path, text));
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<ChangeFileReader> reader,
                           ChangeFileReader::Open(fs, path, std::move(options)));
  return ReadAll(*reader);
}

}  // namespace cdclake::sources::testing
