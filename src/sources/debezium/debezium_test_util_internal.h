// Test helpers for the Debezium reader: read a fixture or a text through DebeziumReader and look
// at the rows of every batch by column name.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "change/change_batch.h"
#include "change/row_text.h"
#include "data/value.h"
#include "io/local_file_system.h"
#include "io/memory_file_system.h"
#include "sources/debezium/debezium_reader.h"

namespace cdclake::sources::testing {

/// Every batch a reader returned, and its counts.
struct DebeziumRead {
  std::vector<change::ChangeBatch> batches;
  DebeziumCounts counts;

  int64_t num_rows() const {
    int64_t n = 0;
    for (const change::ChangeBatch& b : batches) n += b.rows.num_rows();
    return n;
  }
  std::vector<change::RejectedRecord> rejected() const {
    std::vector<change::RejectedRecord> out;
    for (const change::ChangeBatch& b : batches) {
      out.insert(out.end(), b.rejected.begin(), b.rejected.end());
    }
    return out;
  }
  /// The batch holding row `row` (counted across batches) and the row's index in it.
  std::pair<const change::ChangeBatch*, int64_t> Locate(int64_t row) const {
    for (const change::ChangeBatch& b : batches) {
      if (row < b.rows.num_rows()) return {&b, row};
      row -= b.rows.num_rows();
    }
    return {nullptr, 0};
  }
  /// The value of `column` in row `row`; a test failure (and NULL) when either is missing.
  data::Value Get(int64_t row, std::string_view column) const {
    auto [batch, i] = Locate(row);
    if (batch == nullptr) {
      ADD_FAILURE() << "no row " << row;
      return data::Value::Null();
    }
    int c = batch->rows.schema().FieldIndex(column);
    if (c < 0) {
      ADD_FAILURE() << "no column " << column << " in " << batch->rows.schema().ToString();
      return data::Value::Null();
    }
    return batch->rows.column(static_cast<size_t>(c)).GetValue(i);
  }
  /// The type of `column` in the batch of row `row` (nullptr when missing).
  data::TypePtr TypeOf(int64_t row, std::string_view column) const {
    auto [batch, i] = Locate(row);
    if (batch == nullptr) return nullptr;
    int c = batch->rows.schema().FieldIndex(column);
    return c < 0 ? nullptr : batch->rows.schema().field(static_cast<size_t>(c)).type;
  }
  bool HasColumn(int64_t row, std::string_view column) const {
    return TypeOf(row, column) != nullptr;
  }
  /// Whether the batch marks `column` of row `row` unchanged.
  bool Unchanged(int64_t row, std::string_view column) const {
    auto [batch, i] = Locate(row);
    if (batch == nullptr || batch->unchanged.empty()) return false;
    int c = batch->rows.schema().FieldIndex(column);
    return c >= 0 && batch->unchanged[static_cast<size_t>(c)][static_cast<size_t>(i)] != 0;
  }
};

inline Result<DebeziumRead> ReadAll(DebeziumReader& reader) {
  DebeziumRead out;
  for (;;) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, reader.Next());
    if (!batch.has_value()) break;
    EXPECT_EQ(batch->positions.size(), static_cast<size_t>(batch->rows.num_rows()));
    EXPECT_EQ(batch->raw.size(), static_cast<size_t>(batch->rows.num_rows()));
    // The texts read back now, while the file system the reader read is still there.
    change::RawTexts texts;
    for (size_t i = 0; i < batch->raw.size(); ++i) texts.push_back(change::RowText(*batch, i));
    batch->raw = std::move(texts);
    batch->text_source = nullptr;
    out.batches.push_back(std::move(*batch));
  }
  out.counts = reader.counts();
  return out;
}

/// Reads `text` written to `path` of a fresh in-memory file system.
inline Result<DebeziumRead> ReadDebeziumText(std::string_view text, DebeziumOptions options = {},
                                             const std::string& path = "in/events.json") {
  io::MemoryFileSystem fs;
  CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(path, text));
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<DebeziumReader> reader,
                           DebeziumReader::Open(fs, path, std::move(options)));
  return ReadAll(*reader);
}

/// The path of a fixture under the shared testdata/sources/debezium/.
inline std::string DebeziumFixture(std::string_view relative) {
  return std::string(CDCLAKE_SHARED_DIR) + "/testdata/sources/debezium/" + std::string(relative);
}

/// Reads a fixture file from the shared test data.
inline Result<DebeziumRead> ReadDebeziumFixture(std::string_view relative,
                                                DebeziumOptions options = {}) {
  io::FileSystem& fs = *io::LocalFileSystem::Instance();
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<DebeziumReader> reader,
                           DebeziumReader::Open(fs, DebeziumFixture(relative), std::move(options)));
  return ReadAll(*reader);
}

/// The text of a fixture file.
inline std::string FixtureText(std::string_view relative) {
  Result<std::string> text = io::LocalFileSystem::Instance()->ReadFile(DebeziumFixture(relative));
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : std::string();
}

inline data::Value Str(std::string s) {
  return data::Value::Bytes(std::move(s));
}
inline data::Value Int(int64_t v) {
  return data::Value::Int(v);
}
inline data::Value Struct(std::vector<data::Value> children) {
  return data::Value::Nested(std::move(children));
}

}  // namespace cdclake::sources::testing
