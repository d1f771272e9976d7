// Collecting one batch's row changes and turning them into record batches.
#include "apply/target_rows.h"

namespace cdclake::apply {

void TargetRows::Append(FoldedRow row, RowLocation* location) {
  appended_.push_back(std::move(row));
  appended_locations_.push_back(location);
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

Result<data::RecordBatch> TargetRows::AppendedBatch() const {
  data::RecordBatch batch(layout_.target());
  for (const FoldedRow& row : appended_) {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<data::Value> values, layout_.TargetValues(row));
    batch.AppendRow(values);
  }
  return batch;
}

void TargetRows::SetAppendedFiles(const std::vector<uint32_t>& file_ids,
                                  const std::vector<delta::RowPlacement>& placement) {
  for (size_t i = 0; i < appended_locations_.size(); ++i) {
    *appended_locations_[i] = RowLocation{file_ids[placement[i].file], placement[i].row};
  }
}

Result<data::RecordBatch> TargetRows::ChangeDataBatch() const {
  std::vector<data::Field> fields = layout_.target().fields();
  fields.push_back({"_change_type", data::DataType::String(), false});
  data::RecordBatch batch{data::Schema(fields)};
  for (const auto& [row, type] : changes_) {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<data::Value> values, layout_.TargetValues(row));
    values.push_back(data::Value::Bytes(type));
    batch.AppendRow(values);
  }
  return batch;
}

}  // namespace cdclake::apply
