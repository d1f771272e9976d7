// cdclake.schemaPolicy on a batch: block on misfits, quarantine what does not fit, count what
// was refused.
#include "pipeline/schema_policy.h"

#include <map>

#include "apply/declared_columns.h"
#include "apply/quarantine.h"
#include "data/expression.h"
#include "data/value_format.h"

namespace cdclake::pipeline {
namespace {

constexpr const char* kQuarantineNote = " (cdclake.schemaPolicy = 'quarantine')";

std::string Where(const change::SourcePosition& p) {
  if (p.file.empty()) return "";
  if (p.line > 0) return " (" + p.file + " line " + std::to_string(p.line) + ")";
  return " (" + p.file + " at byte " + std::to_string(p.byte_offset) + ")";
}

// The rows with a reason, as rejected records naming their misfit column, appended to
// `batch->rejected` with the text of the row as it arrived; the others' indices in `keep`.
void RejectRows(const std::vector<std::string>& reasons, const std::vector<std::string>& columns,
                change::ChangeBatch* batch, std::vector<int64_t>* keep) {
  for (size_t r = 0; r < reasons.size(); ++r) {
    if (reasons[r].empty()) {
      keep->push_back(static_cast<int64_t>(r));
      continue;
    }
    batch->rejected.push_back(
        apply::Rejected(*batch, static_cast<int64_t>(r), reasons[r], columns[r]));
  }
}

bool IsNumber(data::TypeId id) {
  switch (id) {
    case data::TypeId::kInt8:
    case data::TypeId::kInt16:
    case data::TypeId::kInt32:
    case data::TypeId::kInt64:
    case data::TypeId::kFloat:
    case data::TypeId::kDouble:
    case data::TypeId::kDecimal:
      return true;
    default:
      return false;
  }
}

// Whether row r's cell of column c leaves the target's value as it is (TOAST, update masks).
bool Unchanged(const change::ChangeBatch& batch, size_t c, int64_t r) {
  return c < batch.unchanged.size() && static_cast<size_t>(r) < batch.unchanged[c].size() &&
         batch.unchanged[c][static_cast<size_t>(r)] != 0;
}

}  // namespace

Result<SchemaPolicy> ParseSchemaPolicy(const std::string& table,
                                       const std::optional<std::string>& value, bool declared) {
  if (!value) return declared ? SchemaPolicy::kDeclared : SchemaPolicy::kEvolve;
  if (*value == "evolve") return SchemaPolicy::kEvolve;
  if (*value == "block") return SchemaPolicy::kBlock;
  if (*value == "quarantine") return SchemaPolicy::kQuarantine;
  return Status::InvalidArgument("table " + table + ": cdclake.schemaPolicy '" + *value +
                                 "' is not one cdclake knows (evolve, block, quarantine)");
}

Status CheckNoMisfits(const change::ChangeBatch& rows, const std::string& table,
                      const std::optional<data::Schema>& target,
                      std::vector<SchemaChange>* blocked) {
  for (const change::RejectedRecord& r : rows.rejected) {
    if (r.misfit_column.empty()) continue;
    for (SchemaChange& c : RefusedChanges(rows, std::nullopt, table, target)) {
      c.action = "blocked";
      blocked->push_back(std::move(c));
    }
    return Status::InvalidArgument(
        "cdclake.schemaPolicy = 'block' on " + table + ": a value of column " + r.misfit_column +
        " does not fit its type: " + r.reason + Where(r.position) +
        "; nothing of this batch is committed (fix the input, or set the policy to 'evolve' or "
        "'quarantine' to set such rows aside)");
  }
  return Status::OK();
}

Status CheckDeclaredContract(const change::ChangeBatch& rows, const data::Schema& read,
                             const std::map<std::string, int64_t>& values_sent,
                             const data::Schema* read_before, const data::Schema& declared,
                             const std::function<bool(const std::string&)>& writes,
                             const std::string& table, std::vector<SchemaChange>* blocked) {
  std::map<std::string, int64_t> misfits;
  for (const change::RejectedRecord& r : rows.rejected) {
    if (!r.misfit_column.empty()) ++misfits[r.misfit_column];
  }
  std::string differences;
  for (const data::Field& d : declared.fields()) {
    if (!writes(d.name) || apply::IsHistoryBound(d.name)) continue;
    const int now = read.FieldIndex(d.name);
    if (now < 0) {
      const int before = read_before != nullptr ? read_before->FieldIndex(d.name) : -1;
      if (before < 0) continue;  // never sent, or not since: the declared column is NULL
      const data::TypePtr& was = read_before->field(static_cast<size_t>(before)).type;
      differences += "; column " + d.name + " (" + was->ToString() + ") is no longer sent";
      SchemaChange change{table, d.name, d.type->ToString(), "", "blocked"};
      change.by_declaration = true;
      blocked->push_back(std::move(change));
      continue;
    }
    const auto refused = misfits.find(d.name);
    if (refused == misfits.end() || refused->second < 2) continue;  // none, or one bad row
    // Some of its values fit (they are in the cast rows, or in rows set aside for another
    // reason, such as NOT NULL): the others are bad rows, not a retyped column.
    const int at = rows.rows.schema().FieldIndex(d.name);
    if (at >= 0 && rows.rows.column(static_cast<size_t>(at)).null_count() < rows.rows.num_rows()) {
      continue;
    }
    const auto given = values_sent.find(d.name);
    if (given != values_sent.end() && given->second > refused->second) continue;
    const std::string is = read.field(static_cast<size_t>(now)).type->ToString();
    const std::string declared_type = d.type->ToString();
    differences += "; none of the " + std::to_string(refused->second) + " values of column " +
                   d.name + (is == declared_type ? "" : " (" + is + " in the source)") +
                   " fits its declared type " + declared_type;
    SchemaChange change{table, d.name, d.type->ToString(), is, "blocked"};
    change.by_declaration = true;
    change.rows = refused->second;
    blocked->push_back(std::move(change));
  }
  if (differences.empty()) return Status::OK();
  return Status::InvalidArgument(
      table + " declares its columns, and the source changed one the flow writes" + differences +
      "; nothing of this batch is committed (fix the source or the declaration, or set "
      "TBLPROPERTIES ('cdclake.schemaPolicy' = 'evolve') to fill such a column with NULL and "
      "set aside values that do not fit)");
}

Status CheckSnapshotPolicy(SchemaPolicy policy, const std::string& table_name) {
  if (policy != SchemaPolicy::kQuarantine) return Status::OK();
  return Status::NotSupported(
      "cdclake.schemaPolicy = 'quarantine' on " + table_name +
      ", the target of a FROM SNAPSHOT flow: a row set aside from a snapshot would read as a "
      "deleted key; use 'block' or 'evolve'");
}

Status CheckSnapshotColumns(SchemaPolicy policy, const data::Schema& columns,
                            const data::Schema* previous, const data::Schema* table,
                            bool cast_to_table,
                            const std::function<bool(const std::string&)>& writes,
                            const std::string& table_name, const std::string& path,
                            std::vector<SchemaChange>* blocked) {
  CDCLAKE_RETURN_IF_ERROR(CheckSnapshotPolicy(policy, table_name));
  if (table == nullptr || policy == SchemaPolicy::kEvolve) return Status::OK();
  std::string differences;
  auto stop = [&](const std::string& text, SchemaChange change) {
    differences += "; " + text;
    change.by_declaration = policy == SchemaPolicy::kDeclared;
    blocked->push_back(std::move(change));
  };
  if (policy == SchemaPolicy::kBlock) {
    for (const data::Field& f : columns.fields()) {
      if (!writes(f.name)) continue;
      const int t = table->FieldIndex(f.name);
      if (t < 0) {
        stop("column " + f.name + " (" + f.type->ToString() + ") is not in the table",
             {table_name, f.name, "", f.type->ToString(), "blocked"});
        continue;
      }
      const data::TypePtr& had = table->field(static_cast<size_t>(t)).type;
      if (!cast_to_table && !had->Equals(*f.type)) {
        stop("column " + f.name + " is " + f.type->ToString() + " in the snapshot, " +
                 had->ToString() + " in the table",
             {table_name, f.name, had->ToString(), f.type->ToString(), "blocked"});
      }
    }
  }
  for (const data::Field& f : table->fields()) {
    if (!writes(f.name) || apply::IsHistoryBound(f.name) || columns.FieldIndex(f.name) >= 0) {
      continue;
    }
    if (policy == SchemaPolicy::kDeclared &&
        (previous == nullptr || previous->FieldIndex(f.name) < 0)) {
      continue;  // never sent, or not since: the declared column is NULL
    }
    stop("column " + f.name + " (" + f.type->ToString() + ") is not in the snapshot",
         {table_name, f.name, f.type->ToString(), "", "blocked"});
  }
  if (differences.empty()) return Status::OK();
  const std::string rule = policy == SchemaPolicy::kBlock
                               ? "cdclake.schemaPolicy = 'block' on " + table_name
                               : table_name + " declares its columns";
  return Status::InvalidArgument(
      path + ": " + rule + ", and the snapshot's columns differ" + differences +
      "; nothing of this snapshot is applied (fix the snapshot or the table, or set "
      "TBLPROPERTIES ('cdclake.schemaPolicy' = 'evolve') to go on)");
}

Result<change::ChangeBatch> QuarantineMisfits(change::ChangeBatch rows, const data::Schema& target,
                                              const std::function<bool(const std::string&)>& writes,
                                              const std::string& table) {
  const int64_t n = rows.rows.num_rows();
  // Per row, the first column that does not fit, and why.
  std::vector<std::string> reasons(static_cast<size_t>(n));
  std::vector<std::string> columns(static_cast<size_t>(n));
  std::vector<bool> dropped(rows.rows.num_columns(), false);
  std::vector<std::optional<data::Column>> casts(rows.rows.num_columns());
  auto note = [&](int64_t r, const std::string& column, std::string reason) {
    const auto i = static_cast<size_t>(r);
    if (!reasons[i].empty()) return;
    reasons[i] = std::move(reason) + kQuarantineNote;
    columns[i] = column;
  };
  for (size_t c = 0; c < rows.rows.num_columns(); ++c) {
    const data::Field& f = rows.rows.schema().field(c);
    if (!writes(f.name) || apply::IsHistoryBound(f.name)) continue;
    const data::Column& have = rows.rows.column(c);
    const int t = target.FieldIndex(f.name);
    if (t < 0) {
      // A column the table lacks: rows with a value there do not fit; the column goes.
      dropped[c] = true;
      for (int64_t r = 0; r < n; ++r) {
        if (have.IsValid(r) && !Unchanged(rows, c, r)) {
          note(r, f.name,
               "column '" + f.name + "' (" + f.type->ToString() + ") is not in " + table);
        }
      }
      continue;
    }
    const data::TypePtr& to = target.field(static_cast<size_t>(t)).type;
    if (have.type()->Equals(*to)) continue;
    // Another type: each value must cast to the table's type, and without loss: 4.5 does not
    // fit a BIGINT column, as a number or as text ('042' does, as 42).
    auto cast = data::CastColumnAs(have, to);
    std::optional<data::Column> back;   // the cast value, cast back for comparing
    std::optional<data::Column> given;  // the value compared with it
    const bool text = have.type()->id() == data::TypeId::kString;
    if (cast.ok() && !text) {
      auto again = data::CastColumnAs(*cast, have.type());
      if (again.ok()) back = std::move(*again);
      given = have;
    } else if (cast.ok() && IsNumber(to->id())) {
      // Text into a number: compared as doubles (Spark's CAST truncates '4.5' to 4).
      auto as_double = data::CastColumnAs(have, data::DataType::Double());
      auto again = data::CastColumnAs(*cast, data::DataType::Double());
      if (as_double.ok() && again.ok()) {
        given = std::move(*as_double);
        back = std::move(*again);
      }
    }
    const bool compare = !text || IsNumber(to->id());
    for (int64_t r = 0; r < n; ++r) {
      if (have.IsNull(r) || Unchanged(rows, c, r)) continue;
      bool fits = cast.ok() && cast->IsValid(r);
      if (fits && compare) {
        fits = back && given && back->IsValid(r) && given->IsValid(r) &&
               back->GetValue(r) == given->GetValue(r);
      }
      if (fits) continue;
      note(r, f.name,
           "column '" + f.name + "': value '" +
               data::FormatValueText(have.GetValue(r), *have.type()) + "' (" +
               have.type()->ToString() + ") does not fit " + table + "'s " + to->ToString() +
               " column");
    }
    if (cast.ok()) {
      casts[c] = std::move(*cast);
    } else {
      dropped[c] = true;  // every value was refused above
    }
  }
  // Rejected records first, from the rows as they arrived (the refused values still there).
  std::vector<int64_t> keep;
  RejectRows(reasons, columns, &rows, &keep);
  // The cast columns take the table's types in the batch's schema too.
  std::vector<data::Field> fields;
  std::vector<data::Column> kept;
  std::vector<std::vector<uint8_t>> unchanged;
  std::vector<data::Column> all = rows.rows.ReleaseColumns();
  const data::Schema source = rows.rows.schema();
  for (size_t c = 0; c < all.size(); ++c) {
    if (dropped[c]) continue;
    data::Field f = source.field(c);
    data::Column column = casts[c] ? std::move(*casts[c]) : std::move(all[c]);
    f.type = column.type();
    fields.push_back(std::move(f));
    kept.push_back(std::move(column));
    if (!rows.unchanged.empty()) unchanged.push_back(std::move(rows.unchanged[c]));
  }
  rows.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(kept));
  rows.rows.set_num_rows(n);
  rows.unchanged = std::move(unchanged);
  if (keep.size() != static_cast<size_t>(n)) change::KeepRows(keep, &rows);
  return rows;
}

std::vector<SchemaChange> RefusedChanges(
    const change::ChangeBatch& rows,
    const std::optional<change::SourcePosition>& quarantined_before, const std::string& table,
    const std::optional<data::Schema>& target) {
  std::map<std::string, int64_t> counts;
  for (const change::RejectedRecord& r : rows.rejected) {
    if (r.misfit_column.empty()) continue;
    if (quarantined_before && apply::SortsBefore(r.position, *quarantined_before)) continue;
    ++counts[r.misfit_column];
  }
  std::vector<SchemaChange> out;
  for (const auto& [column, count] : counts) {
    SchemaChange change;
    change.table = table;
    change.column = column;
    if (target) {
      const int t = target->FieldIndex(column);
      if (t >= 0) change.old_type = target->field(static_cast<size_t>(t)).type->ToString();
    }
    change.action = "refused";
    change.rows = count;
    out.push_back(std::move(change));
  }
  return out;
}

}  // namespace cdclake::pipeline
