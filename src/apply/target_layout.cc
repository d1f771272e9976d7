// Mapping source rows to the target: encodings by column, type checks, folded rows as values.
#include "apply/target_layout.h"

#include <algorithm>

#include "apply/key_state.h"
#include "base/bytes.h"
#include "change/ordered_encoding.h"
#include "data/value_format.h"
#include "delta/type_widening.h"

namespace cdclake::apply {
namespace {

using data::TypeId;
using data::Value;

bool IsKey(const FlowDefinition& flow, const std::string& name) {
  return std::find(flow.keys.begin(), flow.keys.end(), name) != flow.keys.end();
}

// Whether a value of `from` fits a column of `to` unchanged in its Value form.
bool FitsIn(const data::DataType& from, const data::DataType& to) {
  if (from.Equals(to)) return true;
  int rf = data::IntegerRank(from.id()), rt = data::IntegerRank(to.id());
  if (rf && rt) return rf <= rt;
  if (from.id() == TypeId::kFloat && to.id() == TypeId::kDouble) return true;
  if (from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal) {
    return from.scale() == to.scale() && from.precision() <= to.precision();
  }
  return false;
}

}  // namespace

Result<TargetLayout> TargetLayout::Make(const FlowDefinition& flow, const data::Schema& source,
                                        const data::Schema& target) {
  TargetLayout l;
  l.keys_ = flow.keys;
  for (const auto& k : flow.keys) {
    int i = source.FieldIndex(k);
    l.source_keys_.push_back(i);
    int t = target.FieldIndex(k);
    if (t < 0) return Status::InvalidArgument("the target has no key column '" + k + "'");
    l.key_types_.push_back(target.field(t).type);
  }
  for (const auto& s : flow.sequence_by) l.source_sequence_.push_back(source.FieldIndex(s));
  l.sequence_names_ = flow.sequence_by;
  l.sequence_members_ = flow.sequence_is_struct || flow.sequence_by.size() > 1;
  l.sequence_type_ = SequenceType(flow, source);
  l.target_ = target;
  for (size_t t = 0; t < target.num_fields(); ++t) {
    const auto& f = target.field(t);
    if (flow.scd_type == ScdType::kType2 && f.name == "__START_AT") {
      l.start_field_ = static_cast<int>(t);
      continue;
    }
    if (flow.scd_type == ScdType::kType2 && f.name == "__END_AT") {
      l.end_field_ = static_cast<int>(t);
      continue;
    }
    l.row_to_target_.push_back(static_cast<int>(t));
    int s = source.FieldIndex(f.name);
    if (s >= 0 && !IsKey(flow, f.name) && !flow.columns.Selects(f.name)) s = -1;
    l.row_to_source_.push_back(s);
    l.row_is_key_.push_back(IsKey(flow, f.name));
    l.row_types_.push_back(f.type);
  }
  if (flow.scd_type == ScdType::kType2 && (l.start_field_ < 0 || l.end_field_ < 0)) {
    return Status::InvalidArgument(
        "the target has no __START_AT / __END_AT columns; it was not created as SCD TYPE 2");
  }
  if (flow.scd_type == ScdType::kType2 &&
      !target.field(l.start_field_).type->Equals(*l.sequence_type_) &&
      !(data::IntegerRank(target.field(l.start_field_).type->id()) &&
        data::IntegerRank(l.sequence_type_->id()))) {
    return Status::InvalidArgument("the target's __START_AT is " +
                                   target.field(l.start_field_).type->ToString() +
                                   " but the sequence is " + l.sequence_type_->ToString());
  }
  l.gatherable_ = flow.scd_type == ScdType::kType1;
  for (size_t i = 0; i < l.row_to_source_.size(); ++i) {
    const int s = l.row_to_source_[i];
    if (s >= 0 && !source.field(static_cast<size_t>(s)).type->Equals(*l.row_types_[i])) {
      l.gatherable_ = false;
    }
  }
  return l;
}

data::RecordBatch TargetLayout::Gather(const data::RecordBatch& source,
                                       const std::vector<int64_t>& rows) const {
  std::vector<data::Column> columns(target_.num_fields());
  for (size_t i = 0; i < row_to_target_.size(); ++i) {
    const int s = row_to_source_[i];
    columns[static_cast<size_t>(row_to_target_[i])] =
        s >= 0
            ? source.column(static_cast<size_t>(s)).Take(rows)
            : data::Column::Repeat(row_types_[i], Value::Null(), static_cast<int64_t>(rows.size()));
  }
  data::RecordBatch out(target_, std::move(columns));
  out.set_num_rows(static_cast<int64_t>(rows.size()));
  return out;
}

TimelineSettings TargetLayout::Settings(const FlowDefinition& flow) const {
  TimelineSettings s;
  s.scd_type = flow.scd_type;
  s.column_types = row_types_;
  s.sequence_type = sequence_type_;
  for (int t : row_to_target_) {
    const std::string& name = target_.field(t).name;
    bool key = IsKey(flow, name);
    s.tracked.push_back(!key && (!flow.track_history || flow.track_history->Selects(name)));
    s.key.push_back(key);
    s.ignore_null.push_back(!key && flow.ignore_null_updates &&
                            flow.ignore_null_updates->Selects(name));
  }
  return s;
}

std::optional<std::string> TargetLayout::NullKeyColumn(const data::RecordBatch& rows,
                                                       int64_t r) const {
  for (size_t i = 0; i < source_keys_.size(); ++i) {
    if (rows.column(source_keys_[i]).IsNull(r)) return keys_[i];
  }
  return std::nullopt;
}

std::optional<std::string> TargetLayout::NullSequenceColumn(const data::RecordBatch& rows,
                                                            int64_t r) const {
  for (size_t i = 0; i < source_sequence_.size(); ++i) {
    const data::Column& column = rows.column(source_sequence_[i]);
    if (column.IsNull(r)) return sequence_names_[i];
    // A STRUCT column as the sequence (a source's position): every member must be set.
    if (column.type()->id() == TypeId::kStruct) {
      for (size_t m = 0; m < column.num_children(); ++m) {
        if (column.child(m).IsNull(r)) {
          return sequence_names_[i] + "." + column.type()->fields()[m].name;
        }
      }
    }
  }
  return std::nullopt;
}

std::string TargetLayout::EncodeKey(const data::RecordBatch& rows, int64_t r) const {
  std::string out;
  for (size_t i = 0; i < keys_.size(); ++i) {
    int c = rows.schema().FieldIndex(keys_[i]);
    change::AppendOrderedCell(rows.column(c), r, *key_types_[i], &out);
  }
  return out;
}

std::string TargetLayout::EncodeSequence(const data::RecordBatch& rows, int64_t r) const {
  std::string out;
  if (sequence_members_) {
    out.push_back(0x01);  // a non-NULL struct, as AppendOrdered spells it
    for (size_t i = 0; i < source_sequence_.size(); ++i) {
      change::AppendOrderedCell(rows.column(source_sequence_[i]), r,
                                *sequence_type_->fields()[i].type, &out);
    }
    return out;
  }
  change::AppendOrderedCell(rows.column(source_sequence_[0]), r, *sequence_type_, &out);
  return out;
}

// The EncodeValues form, written cell by cell straight from the columns into a buffer that
// keeps its room from row to row (grown cell by cell, a 12-column row's string was reallocated
// and copied about four times: 3% of a 100,000-event batch's CPU time).
const std::string& TargetLayout::EncodeIntoScratch(
    const data::RecordBatch& rows, const std::vector<std::vector<uint8_t>>& unchanged, int64_t r,
    bool* partial) const {
  thread_local std::string scratch;
  std::string& out = scratch;
  out.clear();
  AppendVarint(&out, row_types_.size());
  *partial = false;
  for (size_t i = 0; i < row_types_.size(); ++i) {
    int s = row_to_source_[i];
    if (s < 0) {
      change::AppendOrdered(Value::Null(), *row_types_[i], &out);
      continue;
    }
    // A key is never "unchanged": it names the row.
    if (!row_is_key_[i] && static_cast<size_t>(s) < unchanged.size() && !unchanged[s].empty() &&
        unchanged[s][r]) {
      out.push_back(kUnchangedCell);
      *partial = true;
    }
    change::AppendOrderedCell(rows.column(s), r, *row_types_[i], &out);
  }
  return out;
}

std::string TargetLayout::EncodeRowValues(const data::RecordBatch& rows,
                                          const std::vector<std::vector<uint8_t>>& unchanged,
                                          int64_t r, bool* partial) const {
  return EncodeIntoScratch(rows, unchanged, r, partial);  // copied once, at its size
}

std::string TargetLayout::EncodeRowDigest(const data::RecordBatch& rows, int64_t r) const {
  bool partial = false;
  return ValuesDigest(EncodeIntoScratch(rows, {}, r, &partial));
}

Status TargetLayout::AppendTargetRow(const FoldedRow& row, data::RecordBatch* batch) const {
  // Every target column is a row column, __START_AT or __END_AT (Make).
  for (size_t i = 0; i < row_to_target_.size(); ++i) {
    batch->mutable_column(static_cast<size_t>(row_to_target_[i]))
        .AppendValue(i < row.values.size() ? row.values[i] : Value::Null());
  }
  if (start_field_ < 0) return Status::OK();
  std::string_view in = row.start;
  CDCLAKE_ASSIGN_OR_RETURN(Value start, change::ReadOrdered(&in, *sequence_type_));
  batch->mutable_column(static_cast<size_t>(start_field_)).AppendValue(start);
  Value end;
  if (row.end) {
    std::string_view at = *row.end;
    CDCLAKE_ASSIGN_OR_RETURN(end, change::ReadOrdered(&at, *sequence_type_));
  }
  batch->mutable_column(static_cast<size_t>(end_field_)).AppendValue(end);
  return Status::OK();
}

Status CheckSourceTypes(const FlowDefinition& flow, const data::Schema& source,
                        const data::Schema& target, int64_t first_row,
                        std::vector<data::Field>* added,
                        std::map<std::string, data::TypePtr>* widened) {
  for (const auto& f : source.fields()) {
    if (!IsKey(flow, f.name) && !flow.columns.Selects(f.name)) continue;
    // A declared column list is the schema: undeclared source columns are not written.
    if (flow.declared_schema && flow.declared_schema->FieldIndex(f.name) < 0) continue;
    int t = target.FieldIndex(f.name);
    if (t < 0) {
      added->push_back({f.name, f.type, true});
      continue;
    }
    const data::DataType& to = *target.field(t).type;
    if (FitsIn(*f.type, to)) continue;
    std::string where = " (batch row " + std::to_string(first_row + 1) + ")";
    if (FitsIn(to, *f.type)) {
      widened->emplace(f.name, f.type);
      continue;
    }
    if (delta::IsTypeWidening(to, *f.type)) {
      return Status::NotSupported(
          "column '" + f.name + "' widens from " + to.ToString() + " in the target to " +
          f.type->ToString() + " in the source" + where +
          "; Delta allows it, but the engine keeps earlier events in the old type's encoding, "
          "so it widens only integers, float to double and decimals of the same scale");
    }
    return Status::InvalidArgument("column '" + f.name + "' changes type from " + to.ToString() +
                                   " in the target to " + f.type->ToString() + " in the source" +
                                   where + "; only new columns and widening are allowed");
  }
  return Status::OK();
}

}  // namespace cdclake::apply
