// ChangeBatch: the contract between sources and apply — decoded change rows with where each
// came from, and the input that could not be decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "change/row_origins.h"
#include "change/row_text.h"
#include "data/record_batch.h"

namespace cdclake::change {

/// An input record that could not become a row: its raw text, where it was, and why.
struct RejectedRecord {
  std::string raw;
  SourcePosition position;
  std::string reason;
  /// The column whose value did not fit its type, when that is why the record was rejected
  /// (a schema policy counts these, or stops on them); empty otherwise.
  std::string misfit_column = {};
};

/// A batch of decoded change rows. `rows` holds the source's columns (keys, sequence, values,
/// operation columns); `positions[i]` and `raw[i]` describe row i (raw may be empty when the
/// source cannot give it cheaply, or left in its file: read it with RowText). `rejected` holds
/// records that did not decode.
struct ChangeBatch {
  data::RecordBatch rows;
  PositionList positions;
  RawTexts raw;
  /// Where texts left in their files are read back from (null when none are).
  std::shared_ptr<const RowTextSource> text_source;
  std::vector<RejectedRecord> rejected;
  /// Cells the source marks as unchanged (PostgreSQL's TOAST placeholder, columns outside SQL
  /// Server's update mask): when not empty, unchanged[c][r] != 0 means row r leaves column c as
  /// the target has it; the cell's own value (NULL for a placeholder) is used only when the key
  /// has no row yet. Key columns are never treated as unchanged. Empty when nothing is marked.
  std::vector<std::vector<uint8_t>> unchanged;

  /// Records read: rows plus rejected records.
  int64_t num_records() const { return rows.num_rows() + static_cast<int64_t>(rejected.size()); }
};

/// Keeps only rows `keep` (ascending indices) of `batch`, each with its position, raw text and
/// unchanged marks; rejected records stay as they are.
void KeepRows(const std::vector<int64_t>& keep, ChangeBatch* batch);

/// Takes the first `n` rows of `batch`, each with its position, raw text and unchanged marks,
/// and its rejected records, into a batch of their own; `batch` keeps the rows after them.
ChangeBatch TakeFrontRows(int64_t n, ChangeBatch* batch);

/// Appends `from`'s rows (of `into`'s schema), each with its position, raw text and unchanged
/// marks, after `into`'s, and its rejected records after `into`'s. An `into` without columns, or
/// without rows and rejected records, becomes `from` (nothing copied); a `from` without columns
/// gives only its rejected records. Texts left in their files are read through one
/// `text_source`: the two batches must have the same one, or only one of them any.
void AppendRows(ChangeBatch&& from, ChangeBatch* into);

}  // namespace cdclake::change
