// PendingRows: change rows gathered across the files of a flow run until a batch is full, with
// the read order of every row and rejected record so a batch ends at one point of the input.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "change/change_batch.h"
#include "data/schema.h"

namespace cdclake::pipeline {

/// A point in a run's input: the file's place in the run's file order, then the byte offset.
struct ReadPoint {
  int64_t file_index = -1;
  int64_t byte_offset = 0;

  bool operator<(const ReadPoint& o) const {
    return file_index != o.file_index ? file_index < o.file_index : byte_offset < o.byte_offset;
  }
};

/// Rows of a file without one of the columns seen so far get NULL there; the sources'
/// unchanged marks follow their cells. Rows and rejected records must be added in read order.
/// Rows of a reader's batch (change_source.h's batch_rows default).
inline constexpr int64_t kChunkRows = 1 << 16;

class PendingRows {
 public:
  /// Batches are joined while together they hold at most `chunk_rows` rows (tests set it low).
  explicit PendingRows(int64_t chunk_rows = kChunkRows) : chunk_rows_(chunk_rows) {}

  /// Whether a batch with `schema` can join these rows: no column with another type.
  bool Accepts(const data::Schema& schema) const;

  /// Adds the rows and rejected records of `batch`, read from `file`, the run's
  /// `file_index`-th file. kInvalidArgument when a column has another type than in earlier
  /// rows (check Accepts first).
  Status Add(change::ChangeBatch batch, const std::string& file, int64_t file_index);

  int64_t num_rows() const { return rows_; }
  bool empty() const { return rows_ == 0 && rejected_.empty(); }

  /// The first `n` rows (all of them when n <= 0 or n >= num_rows()) and the rejected records
  /// read before the first row left behind (all of them when no row is left).
  change::ChangeBatch Take(int64_t n);

  /// The run's index of the file of the first row or rejected record still held; -1 when none.
  int64_t first_file_index() const;

  /// The read point of the last row or record the latest Take returned (file_index -1 before
  /// any, or when it returned nothing).
  const ReadPoint& last_taken() const { return last_taken_; }

 private:
  // One added batch (or several small ones), its columns in the order of `fields_` as they were
  // when it came (a later field is NULL in it), kept whole until a Take: concatenating once
  // into a batch of known size copies each byte once, where appending batch after batch regrew
  // every column (a 1M-row load spent a sixth of its CPU time, page faults included, in those
  // copies).
  struct Chunk {
    std::vector<data::Column> columns;
    std::vector<std::vector<uint8_t>> unchanged;  // per column; empty: no cell marked
    change::PositionList positions;
    change::RawTexts raw;
    std::vector<ReadPoint> points;  // one per row
    int64_t rows = 0;
  };

  int Find(const std::string& name) const;
  // Splits chunks_[at] after its first `n` rows (0 < n < its rows) into two chunks.
  void SplitChunk(size_t at, int64_t n);

  int64_t chunk_rows_;
  std::vector<data::Field> fields_;
  std::deque<Chunk> chunks_;
  int64_t rows_ = 0;
  std::vector<change::RejectedRecord> rejected_;
  std::vector<ReadPoint> rejected_points_;
  ReadPoint last_taken_;
  // Reads back texts left in their files: the first added batch's (a flow's files are all read
  // through one file system, and any source reads any of its files).
  std::shared_ptr<const change::RowTextSource> text_source_;
};

}  // namespace cdclake::pipeline
