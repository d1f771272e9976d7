// Collecting one batch's row changes and turning them into record batches.
#include "apply/target_rows.h"

namespace cdclake::apply {

void TargetRows::Append(const FoldedRow& row, RowLocation* location) {
  if (append_status_.ok()) append_status_ = layout_.AppendTargetRow(row, &appended_);
  appended_locations_.push_back(location);
}

void TargetRows::AppendSourceRow(const data::RecordBatch& source, int64_t source_row,
                                 RowLocation* location) {
  source_ = &source;
  source_rows_.push_back(source_row);
  source_locations_.push_back(location);
}

void TargetRows::Delete(const RowLocation& location) {
  deleted_[location.file].push_back(location.row);
}

void TargetRows::AddChange(const FoldedRow& before, const FoldedRow& after) {
  if (!collect_changes_) return;
  changes_.emplace_back(before, "update_preimage");
  changes_.emplace_back(after, "update_postimage");
}

void TargetRows::AddDeleted(const FoldedRow& row) {
  if (collect_changes_) changes_.emplace_back(row, "delete");
}

void TargetRows::AddInserted(const FoldedRow& row) {
  if (collect_changes_) changes_.emplace_back(row, "insert");
}

Result<data::RecordBatch> TargetRows::TakeAppendedBatch() {
  CDCLAKE_RETURN_IF_ERROR(append_status_);
  data::RecordBatch batch = std::move(appended_);
  if (source_rows_.empty()) return batch;
  data::RecordBatch gathered = layout_.Gather(*source_, source_rows_);
  if (appended_locations_.empty()) return gathered;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    batch.mutable_column(c).AppendColumn(gathered.column(c));
  }
  return batch;
}

void TargetRows::SetAppendedFiles(const std::vector<uint32_t>& file_ids,
                                  const std::vector<delta::RowPlacement>& placement) {
  for (size_t i = 0; i < appended_locations_.size(); ++i) {
    *appended_locations_[i] = RowLocation{file_ids[placement[i].file], placement[i].row};
  }
  const size_t first = appended_locations_.size();
  for (size_t i = 0; i < source_locations_.size(); ++i) {
    const delta::RowPlacement& p = placement[first + i];
    *source_locations_[i] = RowLocation{file_ids[p.file], p.row};
  }
}

Result<data::RecordBatch> TargetRows::ChangeDataBatch() const {
  std::vector<data::Field> fields = layout_.target().fields();
  fields.push_back({"_change_type", data::DataType::String(), false});
  data::RecordBatch batch{data::Schema(fields)};
  const size_t type_column = fields.size() - 1;
  for (const auto& [row, type] : changes_) {
    CDCLAKE_RETURN_IF_ERROR(layout_.AppendTargetRow(row, &batch));
    batch.mutable_column(type_column).AppendBytes(type);
  }
  return batch;
}

}  // namespace cdclake::apply
