// TargetRows: the row changes of one batch — rows to append (and where they will land), row
// positions to delete, and the change-data rows describing both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "apply/key_state.h"
#include "apply/target_layout.h"
#include "apply/timeline.h"
#include "data/record_batch.h"

namespace cdclake::apply {

class TargetRows {
 public:
  TargetRows(const TargetLayout& layout, bool collect_changes)
      : layout_(layout), collect_changes_(collect_changes) {}

  /// Queues `row` for the new data file; `*location` is filled by SetAppendedFile.
  /// REQUIRES: `location` stays valid until then.
  void Append(FoldedRow row, RowLocation* location);
  /// Queues the deletion of an existing row.
  void Delete(const RowLocation& location);

  /// Change data (when collecting): a row replaced, removed, or added.
  void AddChange(const FoldedRow& before, const FoldedRow& after);
  void AddDeleted(const FoldedRow& row);
  void AddInserted(const FoldedRow& row);

  /// The queued rows in the target's columns.
  Result<data::RecordBatch> AppendedBatch() const;
  /// The new data file's id: fills the queued locations.
  void SetAppendedFile(uint32_t file_id);

  /// Row positions to delete, by file id.
  const std::map<uint32_t, std::vector<int64_t>>& deleted_locations() const { return deleted_; }

  /// The change data rows: the target's columns plus `_change_type`.
  Result<data::RecordBatch> ChangeDataBatch() const;

 private:
  const TargetLayout& layout_;
  bool collect_changes_;
  std::vector<FoldedRow> appended_;
  std::vector<RowLocation*> appended_locations_;
  std::map<uint32_t, std::vector<int64_t>> deleted_;
  std::vector<std::pair<FoldedRow, const char*>> changes_;
};

}  // namespace cdclake::apply
