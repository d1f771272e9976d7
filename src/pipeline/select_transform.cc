// SelectTransform: WHERE as a row filter, then the SELECT list evaluated column by column.
#include "pipeline/select_transform.h"

#include <algorithm>
#include <set>

#include "base/strings.h"
#include "data/expression.h"

namespace cdclake::pipeline {

namespace {

// One output column: a source column passed through, or an expression to evaluate.
struct OutputColumn {
  std::string name;
  int source = -1;                   // >= 0: the input column passed through
  const data::Expr* expr = nullptr;  // else: evaluated
  std::vector<std::string> reads;    // input columns an expression reads
};

std::string NameOf(const sql::SelectItem& item) {
  if (!item.alias.empty()) return item.alias;
  const data::Expr& e = *item.expression;
  if (e.kind == data::ExprKind::kColumn && !e.path.empty()) return e.path.back();
  return e.ToString();
}

Result<std::vector<OutputColumn>> Outputs(const sql::SelectQuery& query, const data::Schema& input,
                                          const std::vector<std::string>& hidden) {
  std::vector<OutputColumn> out;
  for (const sql::SelectItem& item : query.items) {
    if (item.kind == sql::SelectItem::Kind::kStar) {
      // Names match ignoring case, as Spark's do (and as Delta's columns must differ).
      std::set<std::string> excepted;
      for (const std::string& name : item.except) {
        excepted.insert(ToLower(name));
        // A column left out and defined again by the same SELECT is replaced (Python's
        // withColumn): the source need not have it.
        const bool redefined =
            std::any_of(query.items.begin(), query.items.end(), [&](const sql::SelectItem& other) {
              return other.kind != sql::SelectItem::Kind::kStar &&
                     ToLower(NameOf(other)) == ToLower(name);
            });
        const bool present =
            std::any_of(input.fields().begin(), input.fields().end(),
                        [&](const data::Field& f) { return ToLower(f.name) == ToLower(name); });
        if (!present && !redefined) {
          return Status::InvalidArgument("SELECT * EXCEPT: no column '" + name +
                                         "' in the source (" + input.ToString() + ")");
        }
      }
      for (size_t i = 0; i < input.num_fields(); ++i) {
        const std::string& name = input.field(i).name;
        if (excepted.count(ToLower(name)) > 0) continue;
        if (std::find(hidden.begin(), hidden.end(), name) != hidden.end()) continue;
        out.push_back({name, static_cast<int>(i), nullptr, {}});
      }
      continue;
    }
    OutputColumn col{NameOf(item), -1, item.expression.get(), {}};
    const data::Expr& e = *item.expression;
    if (e.kind == data::ExprKind::kColumn && e.path.size() == 1) {
      col.source = input.FieldIndex(e.path[0]);
      if (col.source < 0) {
        return Status::InvalidArgument("SELECT: no column '" + e.path[0] + "' in the source (" +
                                       input.ToString() + ")");
      }
      col.expr = nullptr;
    } else {
      col.reads = data::ReferencedColumns(e);
    }
    out.push_back(std::move(col));
  }
  std::set<std::string> seen;
  for (const OutputColumn& c : out) {
    if (!seen.insert(ToLower(c.name)).second) {
      return Status::InvalidArgument("SELECT yields two columns named '" + c.name +
                                     "' (names differ only ignoring case at most); name one of "
                                     "them with AS");
    }
  }
  return out;
}

// `e` with column references qualified by the source (`s.id` in `FROM src s`, or `src.id`)
// unqualified; a first name that is a column of `input` stays (a nested field).
std::unique_ptr<data::Expr> Unqualified(const data::Expr& e, const std::vector<std::string>& names,
                                        const data::Schema& input) {
  std::unique_ptr<data::Expr> copy = e.Clone();
  std::vector<data::Expr*> todo = {copy.get()};
  while (!todo.empty()) {
    data::Expr* x = todo.back();
    todo.pop_back();
    if (x->kind == data::ExprKind::kColumn && x->path.size() > 1 &&
        input.FieldIndex(x->path[0]) < 0 &&
        std::any_of(names.begin(), names.end(),
                    [&](const std::string& n) { return ToLower(n) == ToLower(x->path[0]); })) {
      x->path.erase(x->path.begin());
    }
    for (auto& child : x->children) todo.push_back(child.get());
  }
  return copy;
}

// `query` with its expressions unqualified (see above) against `input`.
sql::SelectQuery Resolved(const sql::SelectQuery& query, const data::Schema& input) {
  std::vector<std::string> names;
  if (!query.from_alias.empty()) names.push_back(query.from_alias);
  if (query.from.kind == sql::SourceRef::Kind::kTable && !query.from.table.parts.empty()) {
    names.push_back(query.from.table.parts.back());
  }
  sql::SelectQuery out = query;
  if (names.empty()) return out;
  for (sql::SelectItem& item : out.items) {
    if (item.expression) item.expression = Unqualified(*item.expression, names, input);
  }
  if (out.where) out.where = Unqualified(*out.where, names, input);
  return out;
}

}  // namespace

Result<data::Schema> SelectSchema(const sql::SelectQuery& written, const data::Schema& input,
                                  const std::vector<std::string>& hidden) {
  const sql::SelectQuery query = Resolved(written, input);
  if (query.where) CDCLAKE_RETURN_IF_ERROR(data::ValidatePredicate(*query.where, input));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<OutputColumn> outputs, Outputs(query, input, hidden));
  std::vector<data::Field> fields;
  for (const OutputColumn& c : outputs) {
    if (c.source >= 0) {
      fields.push_back({c.name, input.field(static_cast<size_t>(c.source)).type, true});
      continue;
    }
    CDCLAKE_ASSIGN_OR_RETURN(data::TypePtr type, data::ResultType(*c.expr, input));
    fields.push_back({c.name, type ? type : data::DataType::String(), true});
  }
  return data::Schema(std::move(fields));
}

Result<change::ChangeBatch> ApplySelect(const sql::SelectQuery& written, change::ChangeBatch batch,
                                        const std::vector<std::string>& hidden) {
  const sql::SelectQuery query = Resolved(written, batch.rows.schema());
  if (query.where) {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<uint8_t> keep,
                             data::EvaluatePredicate(*query.where, batch.rows));
    if (std::find(keep.begin(), keep.end(), 0) != keep.end()) {
      std::vector<int64_t> rows;
      for (size_t r = 0; r < keep.size(); ++r) {
        if (keep[r] != 0) rows.push_back(static_cast<int64_t>(r));
      }
      change::KeepRows(rows, &batch);
    }
  }
  const data::Schema& input = batch.rows.schema();
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<OutputColumn> outputs, Outputs(query, input, hidden));
  const int64_t n = batch.rows.num_rows();
  const bool marked = !batch.unchanged.empty();
  // The computed columns first, while every input column is in place; then the input columns
  // passed through, each moved at its last use rather than copied (SELECT * copies nothing).
  std::vector<data::Column> computed(outputs.size());
  std::vector<std::vector<uint8_t>> computed_marks(outputs.size());
  std::vector<int> uses(input.num_fields(), 0);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputColumn& c = outputs[i];
    if (c.source >= 0) {
      ++uses[static_cast<size_t>(c.source)];
      continue;
    }
    CDCLAKE_ASSIGN_OR_RETURN(computed[i], data::EvaluateValue(*c.expr, batch.rows));
    if (!marked) continue;
    std::vector<uint8_t> marks(static_cast<size_t>(n), 0);
    for (const std::string& name : c.reads) {
      int at = input.FieldIndex(name);
      if (at < 0) continue;
      const std::vector<uint8_t>& from = batch.unchanged[static_cast<size_t>(at)];
      for (size_t r = 0; r < marks.size() && r < from.size(); ++r) marks[r] |= from[r];
    }
    computed_marks[i] = std::move(marks);
  }
  std::vector<data::Field> fields;
  std::vector<data::Column> columns;
  std::vector<std::vector<uint8_t>> unchanged;
  std::vector<data::Column> given = batch.rows.ReleaseColumns();  // the schema stays
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputColumn& c = outputs[i];
    if (c.source < 0) {
      fields.push_back({c.name, computed[i].type(), true});
      columns.push_back(std::move(computed[i]));
      if (marked) unchanged.push_back(std::move(computed_marks[i]));
      continue;
    }
    auto s = static_cast<size_t>(c.source);
    const bool last = --uses[s] == 0;
    fields.push_back({c.name, input.field(s).type, true});
    columns.push_back(last ? std::move(given[s]) : given[s]);
    if (marked) unchanged.push_back(last ? std::move(batch.unchanged[s]) : batch.unchanged[s]);
  }
  batch.rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  batch.rows.set_num_rows(n);
  batch.unchanged = std::move(unchanged);
  return batch;
}

}  // namespace cdclake::pipeline
