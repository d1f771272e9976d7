// Declared columns applied to batches: casts by column, then the rows that did not fit.
#include "apply/declared_columns.h"

#include <algorithm>

#include "apply/target_layout.h"
#include "change/row_text.h"
#include "data/expression.h"
#include "data/value_format.h"
#include "json/json.h"

namespace cdclake::apply {

change::RejectedRecord Rejected(const change::ChangeBatch& batch, int64_t r, std::string reason,
                                std::string misfit_column) {
  change::RejectedRecord record;
  record.raw = change::RowTextOrJson(batch, static_cast<size_t>(r));
  if (static_cast<size_t>(r) < batch.positions.size()) record.position = batch.positions[r];
  record.reason = std::move(reason);
  record.misfit_column = std::move(misfit_column);
  return record;
}

namespace {

// Moves the rows of `batch` with a reason to its rejected records.
void RejectRows(std::vector<std::string> reasons, change::ChangeBatch* batch) {
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < static_cast<int64_t>(reasons.size()); ++r) {
    if (reasons[r].empty()) {
      keep.push_back(r);
    } else {
      batch->rejected.push_back(Rejected(*batch, r, std::move(reasons[r])));
    }
  }
  if (keep.size() != reasons.size()) change::KeepRows(keep, batch);
}

}  // namespace

bool IsHistoryBound(const std::string& name) {
  return name == "__START_AT" || name == "__END_AT";
}

Result<change::ChangeBatch> ConformToDeclared(change::ChangeBatch batch,
                                              const data::Schema& declared, bool keep_undeclared,
                                              ConformReport* report,
                                              const std::string& rescue_column) {
  const data::Schema& source = batch.rows.schema();
  const int64_t n = batch.rows.num_rows();
  for (const data::Field& f : source.fields()) {
    if (declared.FieldIndex(f.name) < 0 && !IsHistoryBound(f.name)) {
      report->undeclared.push_back(f.name);
    }
  }
  // Casts, column by column; a reason for each row holding a value that did not cast.
  std::vector<data::Field> fields;
  std::vector<data::Column> columns;
  std::vector<std::vector<uint8_t>> unchanged;
  std::vector<std::string> reasons;
  std::vector<std::string> misfits;  // the column each reason is about
  // With a rescue column: per row, the values that did not cast (column -> value).
  const bool rescue =
      !rescue_column.empty() && source.FieldIndex(rescue_column) >= 0 &&
      declared.FieldIndex(rescue_column) >= 0 &&
      declared.field(static_cast<size_t>(declared.FieldIndex(rescue_column))).type->id() ==
          data::TypeId::kString;
  std::vector<json::Json> rescued;
  auto keep_source = [&](size_t c) {
    fields.push_back(source.field(c));
    columns.push_back(batch.rows.column(c));
    if (!batch.unchanged.empty()) unchanged.push_back(batch.unchanged[c]);
  };
  if (keep_undeclared) {
    for (size_t c = 0; c < source.num_fields(); ++c) keep_source(c);
  }
  for (const data::Field& d : declared.fields()) {
    if (IsHistoryBound(d.name)) continue;
    const int s = source.FieldIndex(d.name);
    if (s < 0) {
      fields.push_back({d.name, d.type, true});
      columns.push_back(data::Column::Repeat(d.type, data::Value::Null(), n));
      if (!batch.unchanged.empty()) unchanged.emplace_back();
      continue;
    }
    const data::Column& have = batch.rows.column(static_cast<size_t>(s));
    data::Column cast = have;
    if (!have.type()->Equals(*d.type)) {
      auto converted = data::CastColumnAs(have, d.type);
      if (!converted.ok()) {
        return Status::InvalidArgument(
            "column '" + d.name + "' is declared " + d.type->ToString() + " but the source holds " +
            have.type()->ToString() + ", which has no CAST to it; " + "declare it as " +
            have.type()->ToString() + " or convert it in the flow's query");
      }
      cast = std::move(*converted);
      if (cast.null_count() > have.null_count()) {
        if (reasons.empty()) {
          reasons.resize(static_cast<size_t>(n));
          misfits.resize(static_cast<size_t>(n));
        }
        for (int64_t r = 0; r < n; ++r) {
          if (have.IsNull(r) || cast.IsValid(r) || !reasons[r].empty()) continue;
          std::string value = data::FormatValueText(have.GetValue(r), *have.type());
          if (rescue) {
            if (rescued.empty()) rescued.resize(static_cast<size_t>(n));
            rescued[static_cast<size_t>(r)][d.name] = std::move(value);
            continue;
          }
          reasons[r] = "column '" + d.name + "': value '" + value + "' cannot be cast to " +
                       d.type->ToString();
          misfits[r] = d.name;
        }
      }
    }
    if (keep_undeclared) {
      fields[static_cast<size_t>(s)].type = d.type;
      columns[static_cast<size_t>(s)] = std::move(cast);
      continue;
    }
    fields.push_back({d.name, d.type, d.nullable});
    columns.push_back(std::move(cast));
    if (!batch.unchanged.empty()) unchanged.push_back(batch.unchanged[static_cast<size_t>(s)]);
  }
  if (!rescued.empty()) {
    // The rescue column again, each row's values merged into what it held.
    for (size_t c = 0; c < fields.size(); ++c) {
      if (fields[c].name != rescue_column) continue;
      data::Column merged(fields[c].type);
      for (int64_t r = 0; r < n; ++r) {
        json::Json& more = rescued[static_cast<size_t>(r)];
        if (more.is_null()) {
          merged.AppendFrom(columns[c], r);
          continue;
        }
        json::Json all = json::Json::object();
        if (columns[c].IsValid(r)) {
          auto had = json::Parse(columns[c].StringAt(r));
          if (had.ok() && had->is_object()) all = std::move(*had);
        }
        for (auto& [key, value] : more.items()) all[key] = value;
        const auto row = static_cast<size_t>(r);
        if (!all.contains("_file_path") && row < batch.positions.size() &&
            !batch.positions.file(row).empty()) {
          all["_file_path"] = std::string(batch.positions.file(row));
        }
        merged.AppendBytes(json::Dump(all));
      }
      columns[c] = std::move(merged);
    }
  }
  data::RecordBatch original = std::move(batch.rows);
  batch.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  batch.rows.set_num_rows(n);
  batch.unchanged = std::move(unchanged);
  if (!reasons.empty()) {
    // Rejected records show the row as the source had it.
    data::RecordBatch conformed = std::move(batch.rows);
    batch.rows = std::move(original);
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < n; ++r) {
      if (reasons[r].empty()) {
        keep.push_back(r);
      } else {
        batch.rejected.push_back(Rejected(batch, r, std::move(reasons[r]), std::move(misfits[r])));
      }
    }
    batch.rows = std::move(conformed);
    change::KeepRows(keep, &batch);
  }
  return batch;
}

std::vector<std::string> NotNullViolations(
    const data::RecordBatch& rows, const data::Schema& declared,
    const std::vector<std::vector<uint8_t>>& unchanged,
    const std::function<bool(const std::string&)>& keeps_on_null) {
  std::vector<std::string> reasons;
  const int64_t n = rows.num_rows();
  for (const data::Field& d : declared.fields()) {
    if (d.nullable || IsHistoryBound(d.name)) continue;
    if (keeps_on_null && keeps_on_null(d.name)) continue;
    const int c = rows.schema().FieldIndex(d.name);
    if (c >= 0 && !rows.column(static_cast<size_t>(c)).has_nulls()) continue;
    const std::vector<uint8_t>* marks = nullptr;
    if (c >= 0 && static_cast<size_t>(c) < unchanged.size() &&
        !unchanged[static_cast<size_t>(c)].empty()) {
      marks = &unchanged[static_cast<size_t>(c)];
    }
    if (reasons.empty()) reasons.resize(static_cast<size_t>(n));
    const std::string reason = "column '" + d.name + "' is declared " + d.type->ToString() +
                               " NOT NULL but the value is NULL";
    for (int64_t r = 0; r < n; ++r) {
      if (marks != nullptr && static_cast<size_t>(r) < marks->size() && (*marks)[r] != 0) continue;
      if (reasons[r].empty() && (c < 0 || rows.column(static_cast<size_t>(c)).IsNull(r))) {
        reasons[r] = reason;
      }
    }
  }
  bool any = false;
  for (const std::string& r : reasons) any = any || !r.empty();
  if (!any) reasons.clear();
  return reasons;
}

void RejectNotNullViolations(const data::Schema& declared, change::ChangeBatch* batch) {
  std::vector<std::string> reasons = NotNullViolations(batch->rows, declared);
  if (!reasons.empty()) RejectRows(std::move(reasons), batch);
}

}  // namespace cdclake::apply
