// TargetLayout: how a flow's source rows map onto its target — key, sequence and row-column
// encodings, the target's columns, and the checks on the source's column types.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apply/flow_definition.h"
#include "apply/timeline.h"
#include "base/result.h"
#include "data/record_batch.h"

namespace cdclake::apply {

class TargetLayout {
 public:
  TargetLayout() = default;
  /// REQUIRES: ValidateFlow(flow, source) passed; `target` holds every selected source column.
  static Result<TargetLayout> Make(const FlowDefinition& flow, const data::Schema& source,
                                   const data::Schema& target);

  TimelineSettings Settings(const FlowDefinition& flow) const;

  /// The name of a NULL key (or sequence) column of row `r`, if any.
  std::optional<std::string> NullKeyColumn(const data::RecordBatch& rows, int64_t r) const;
  std::optional<std::string> NullSequenceColumn(const data::RecordBatch& rows, int64_t r) const;

  /// Encodings of row `r`'s key (found by column name, so any batch holding the key columns
  /// works), sequence, and row-column values (stored-event form, timeline.h).
  std::string EncodeKey(const data::RecordBatch& rows, int64_t r) const;
  std::string EncodeSequence(const data::RecordBatch& rows, int64_t r) const;
  /// `unchanged` is the batch's ChangeBatch::unchanged (by source column; may be empty);
  /// `*partial` is set when a selected cell of row `r` is marked unchanged.
  std::string EncodeRowValues(const data::RecordBatch& rows,
                              const std::vector<std::vector<uint8_t>>& unchanged, int64_t r,
                              bool* partial) const;
  /// ValuesDigest (key_state.h) of row `r`'s values as EncodeRowValues encodes them without
  /// unchanged cells, made without keeping the encoding.
  std::string EncodeRowDigest(const data::RecordBatch& rows, int64_t r) const;

  /// Appends a folded row to `batch` as the target's values, in the target's column order (a
  /// batch of the target's schema, or one with more columns after those, left to the caller).
  Status AppendTargetRow(const FoldedRow& row, data::RecordBatch* batch) const;

  /// Whether rows of the source can become target rows as they are (Gather): an SCD1 target
  /// whose every column the source has is of the source column's own type.
  bool CanGather() const { return gatherable_; }
  /// Source rows `rows` as target rows, copied column by column (NULL where the source has no
  /// such column): the values EncodeRowValues, Fold and AppendTargetRow make of them.
  /// REQUIRES: CanGather(), and `source` has the schema this layout was made for.
  data::RecordBatch Gather(const data::RecordBatch& source, const std::vector<int64_t>& rows) const;

  const data::Schema& target() const { return target_; }
  const std::vector<data::TypePtr>& row_types() const { return row_types_; }

 private:
  // EncodeRowValues's encoding in a per-thread buffer, valid until the thread's next call.
  const std::string& EncodeIntoScratch(const data::RecordBatch& rows,
                                       const std::vector<std::vector<uint8_t>>& unchanged,
                                       int64_t r, bool* partial) const;

  std::vector<std::string> keys_;
  std::vector<data::TypePtr> key_types_;
  std::vector<int> source_keys_, source_sequence_;
  std::vector<std::string> sequence_names_;
  data::TypePtr sequence_type_;
  bool sequence_members_ = false;  // SEQUENCE BY STRUCT(a, b, ...): encoded member by member
  data::Schema target_;
  std::vector<int> row_to_target_;  // target field of each row column
  std::vector<int> row_to_source_;  // source field of each row column, -1 when absent
  std::vector<bool> row_is_key_;
  std::vector<data::TypePtr> row_types_;
  int start_field_ = -1, end_field_ = -1;
  bool gatherable_ = false;
};

/// Checks the source's column types against the target's: equal, or narrower (an int into a
/// bigint column) is fine; a wider integer, double for float, or a decimal of the same scale
/// and larger precision is returned in `widened` (the target column must widen: Delta type
/// widening); another widening Delta allows is kNotSupported (the engine's stored events keep
/// the old encoding); any other change is kInvalidArgument naming the column, both types and
/// the batch row. Selected source columns the target lacks are returned in `added` (nullable).
Status CheckSourceTypes(const FlowDefinition& flow, const data::Schema& source,
                        const data::Schema& target, int64_t first_row,
                        std::vector<data::Field>* added,
                        std::map<std::string, data::TypePtr>* widened);

}  // namespace cdclake::apply
