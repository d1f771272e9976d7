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
#include "delta/table_writer.h"

namespace cdclake::apply {

class TargetRows {
 public:
  TargetRows(const TargetLayout& layout, bool collect_changes)
      : layout_(layout), collect_changes_(collect_changes), appended_(layout.target()) {}

  /// Queues `row` for the new data files; `*location` is filled by SetAppendedFiles.
  /// REQUIRES: `location` stays valid until then.
  void Append(const FoldedRow& row, RowLocation* location);
  /// Queues row `source_row` of `source` as it is (TargetLayout::Gather); `*location` as for
  /// Append. REQUIRES: layout.CanGather(), and one `source` for every call.
  void AppendSourceRow(const data::RecordBatch& source, int64_t source_row, RowLocation* location);
  /// Queues the deletion of an existing row.
  void Delete(const RowLocation& location);

  /// Change data (when collecting): a row replaced, removed, or added.
  void AddChange(const FoldedRow& before, const FoldedRow& after);
  void AddDeleted(const FoldedRow& row);
  void AddInserted(const FoldedRow& row);

  /// The queued rows in the target's columns: the Append ones, then the AppendSourceRow ones.
  /// Called once: the Append ones are moved out.
  Result<data::RecordBatch> TakeAppendedBatch();
  /// Fills the queued locations: `placement` says where each row of TakeAppendedBatch went (an
  /// index into `file_ids`, the ids of the new files, and the row in that file).
  void SetAppendedFiles(const std::vector<uint32_t>& file_ids,
                        const std::vector<delta::RowPlacement>& placement);

  /// Row positions to delete, by file id.
  const std::map<uint32_t, std::vector<int64_t>>& deleted_locations() const { return deleted_; }

  /// The change data rows: the target's columns plus `_change_type`.
  Result<data::RecordBatch> ChangeDataBatch() const;

 private:
  const TargetLayout& layout_;
  bool collect_changes_;
  // Appended rows go into columns at once, so that their decoded values are freed and their
  // memory reused by the next key's (kept as FoldedRows, an SCD2 batch at 1M keys touched
  // 100 MiB more of fresh memory, which this host zeroes at about 0.4 GB/s).
  data::RecordBatch appended_;
  Status append_status_;
  std::vector<RowLocation*> appended_locations_;
  const data::RecordBatch* source_ = nullptr;
  std::vector<int64_t> source_rows_;
  std::vector<RowLocation*> source_locations_;
  std::map<uint32_t, std::vector<int64_t>> deleted_;
  std::vector<std::pair<FoldedRow, const char*>> changes_;
};

}  // namespace cdclake::apply
