// ColumnChunkWriter: turns one leaf's levels and values into the pages of a column chunk —
// RLE_DICTIONARY first, PLAIN after the dictionary outgrows its limit — with statistics,
// compression and the chunk's ColumnMetaData.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/column.h"
#include "io/file_system.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"
#include "parquet/statistics.h"
#include "parquet/writer/dictionary_builder.h"
#include "parquet/writer/writer_options.h"

namespace cdclake::parquet {

class ColumnChunkWriter {
 public:
  ColumnChunkWriter(const SchemaNode& leaf, const WriterOptions& options);

  /// Adds `num_levels` level pairs (rep may be null when the leaf is not repeated; def may be
  /// null when the leaf is required and unnested) and the non-null values
  /// `values[indices[0..num_values)]`. The first level of a call starts a row.
  Status Add(const int16_t* def, const int16_t* rep, size_t num_levels, const data::Column& values,
             const int64_t* indices, size_t num_values);
  /// Closes the pending page when it has reached the page size. Call at row boundaries.
  Status MaybeFlushPage();

  /// Bytes buffered for the current row group (encoded, before compression).
  int64_t buffered_bytes() const { return buffered_uncompressed_ + PendingBytes(); }

  /// Encodes and compresses what is still pending (the last data page, the dictionary page), so
  /// that Finish only writes. Chunks of one row group may be sealed on different threads.
  Status Seal();
  /// Ends the chunk (sealing it first if needed): writes its bytes (dictionary page, then data
  /// pages) to `out`, which stands at file offset `file_offset`, and returns its metadata. Resets
  /// the writer for the next row group.
  Result<format::ColumnChunk> Finish(int64_t file_offset, io::OutputStream* out);

 private:
  int64_t PendingBytes() const;
  Status FlushPage();
  Status FallBackToPlain();
  void AppendPlain(const data::Column& values, const int64_t* indices, size_t n);
  void AppendDictionaryIndices(const data::Column& values, const int64_t* indices, size_t n);
  Status AddPage(format::PageType type, const std::string& body, int32_t num_values,
                 format::Encoding encoding);

  const SchemaNode& leaf_;
  const WriterOptions& options_;
  int width_;  // PhysicalWidth(leaf)
  bool use_dictionary_;
  // The dictionary's first values, to give it up early when it would not pay off (see Add).
  int64_t dictionary_values_ = 0;
  int64_t dictionary_plain_bytes_ = 0;  // what those values take PLAIN-encoded
  DictionaryBuilder dictionary_;
  StatisticsCollector statistics_;

  // The pending page.
  std::vector<int16_t> def_;
  std::vector<int16_t> rep_;
  std::vector<uint32_t> indices_;  // dictionary mode
  std::string plain_;              // plain mode (fixed, byte arrays)
  std::vector<uint8_t> booleans_;  // plain mode, booleans
  int64_t pending_levels_ = 0;

  // The chunk so far.
  std::vector<std::string> pages_;  // data pages, compressed, each behind its header
  std::string dictionary_page_;     // likewise, once the chunk ends
  std::string body_;                // reused page buffers
  std::string compressed_;
  int64_t buffered_uncompressed_ = 0;
  int64_t total_uncompressed_ = 0;
  int64_t num_values_ = 0;
  int32_t dict_data_pages_ = 0;
  int32_t plain_data_pages_ = 0;
  bool sealed_ = false;  // Seal() ran for the current row group
  std::string scratch_;
};

}  // namespace cdclake::parquet
