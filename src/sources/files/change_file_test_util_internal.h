// Test helpers for the file readers: write a file into a MemoryFileSystem, open it and read
// every batch into plain vectors.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "change/change_batch.h"
#include "change/row_text.h"
#include "data/value.h"
#include "data/value_format.h"
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
    for (size_t i = 0; i < batch->positions.size(); ++i)
      out.positions.push_back(batch->positions[i]);
    for (size_t i = 0; i < batch->raw.size(); ++i) out.raw.push_back(change::RowText(*batch, i));
    out.rejected.insert(out.rejected.end(), batch->rejected.begin(), batch->rejected.end());
  }
  return out;
}

/// A batch as text lines, for comparing two readings of one file batch boundaries aside: one per
/// row (schema, values with "(u)" after unchanged cells, "@line:offset-end", the file, the raw
/// text) into `rows`, one per rejected record into `rejected`.
inline void DescribeBatch(const change::ChangeBatch& b, std::vector<std::string>* rows,
                          std::vector<std::string>* rejected) {
  const data::Schema& schema = b.rows.schema();
  for (int64_t r = 0; r < b.rows.num_rows(); ++r) {
    const auto i = static_cast<size_t>(r);
    std::string line = schema.ToString() + " |";
    for (size_t c = 0; c < b.rows.num_columns(); ++c) {
      line += ' ';
      data::AppendValueJson(b.rows.column(c).GetValue(r), *schema.field(c).type, &line);
      if (!b.unchanged.empty() && b.unchanged[c][i] != 0) line += "(u)";
    }
    const change::SourcePosition& p = b.positions[i];
    line += " @" + std::to_string(p.line) + ":" + std::to_string(p.byte_offset) + "-" +
            std::to_string(p.byte_end) + " " + p.file;
    if (i < b.raw.size()) line += " " + change::RowText(b, i);
    rows->push_back(std::move(line));
  }
  for (const change::RejectedRecord& j : b.rejected) {
    rejected->push_back(j.position.file + ":" + std::to_string(j.position.line) + ":" +
                        std::to_string(j.position.byte_offset) + "-" +
                        std::to_string(j.position.byte_end) + " " + j.reason + " " + j.raw);
  }
}

/// A reader's tail (its pending record and unterminated last record) as text.
inline std::string DescribeTail(const std::optional<PendingRecord>& pending,
                                const std::optional<RecordSpan>& unterminated) {
  std::string out;
  if (pending) {
    out += " pending " + std::to_string(pending->line) + ":" +
           std::to_string(pending->byte_offset) + "+" + std::to_string(pending->bytes);
  }
  if (unterminated) {
    out += " unterminated " + std::to_string(unterminated->byte_offset) + "-" +
           std::to_string(unterminated->byte_end);
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
