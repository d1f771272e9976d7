// Expectations: each condition evaluated over the batch, rows dropped into rejected records or
// the batch refused.
#include "pipeline/expectations.h"

#include <algorithm>

#include "change/row_text.h"
#include "data/expression.h"
#include "data/value_format.h"

namespace cdclake::pipeline {
namespace {

// The row for people: its raw input when the source gives it, else its columns.
std::string RowForPeople(const change::ChangeBatch& batch, int64_t row) {
  std::string text = change::RowText(batch, static_cast<size_t>(row));
  if (!text.empty()) return text;
  const data::RecordBatch& rows = batch.rows;
  for (size_t c = 0; c < rows.num_columns(); ++c) {
    const data::Column& column = rows.column(c);
    text += (c ? ", " : "") + rows.schema().field(c).name + "=" +
            (column.IsNull(row) ? std::string("NULL")
                                : data::FormatValueText(column.GetValue(row), *column.type()));
  }
  return text;
}

std::string Where(const change::ChangeBatch& batch, int64_t row) {
  const auto r = static_cast<size_t>(row);
  if (r >= batch.positions.size() || batch.positions.file(r).empty()) return "";
  const change::SourcePosition p = batch.positions[r];
  return " (" + p.file + (p.line > 0 ? ", line " + std::to_string(p.line) : "") + ")";
}

}  // namespace

void AddExpectationCounts(const std::vector<ExpectationCount>& more,
                          std::vector<ExpectationCount>* totals) {
  for (const ExpectationCount& m : more) {
    auto it = std::find_if(totals->begin(), totals->end(), [&](const ExpectationCount& t) {
      return t.name == m.name && t.dataset == m.dataset;
    });
    if (it == totals->end()) {
      totals->push_back(m);
      continue;
    }
    it->passed += m.passed;
    it->failed += m.failed;
  }
}

Result<change::ChangeBatch> ApplyExpectations(const FlowPlan& flow, change::ChangeBatch batch,
                                              std::vector<ExpectationCount>* counts) {
  return ApplyExpectations(flow, flow.expectations, flow.target, std::move(batch), counts);
}

Result<change::ChangeBatch> ApplyExpectations(const FlowPlan& flow,
                                              const std::vector<sql::Expectation>& expectations,
                                              const std::string& dataset, change::ChangeBatch batch,
                                              std::vector<ExpectationCount>* counts) {
  if (expectations.empty()) return batch;
  const int64_t n = batch.rows.num_rows();
  // An AUTO CDC flow's deletes and truncates carry no row to check (a delete's other columns
  // are often NULL): checking them would drop deletes, and rows would come back.
  std::vector<uint8_t> exempt(static_cast<size_t>(n), 0);
  if (flow.kind == FlowPlan::Kind::kAutoCdc) {
    for (const auto* when : {&flow.flow.delete_when, &flow.flow.truncate_when}) {
      if (!*when) continue;
      // Through a view, the condition may read columns a later step makes: no exemption then.
      auto hit = data::EvaluatePredicate(**when, batch.rows);
      if (!hit.ok()) continue;
      for (size_t r = 0; r < hit->size() && r < exempt.size(); ++r) exempt[r] |= (*hit)[r];
    }
  }
  // Per row, the DROP ROW expectations it failed.
  std::vector<std::string> dropped_by(static_cast<size_t>(n));
  std::vector<ExpectationCount> seen;
  for (const sql::Expectation& e : expectations) {
    const std::string what = "expectation " + e.name +
                             (dataset == flow.target ? "" : " of " + dataset) + " (" + e.text + ")";
    Status valid = data::ValidatePredicate(*e.condition, batch.rows.schema());
    if (!valid.ok()) return Status::InvalidArgument(what + ": " + valid.message());
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<uint8_t> pass,
                             data::EvaluatePredicate(*e.condition, batch.rows));
    // A cell an update leaves as it is (an unchanged TOAST value, a NULL under IGNORE NULL
    // UPDATES) is not the row's value: an expectation reading it is not checked on that row.
    std::vector<uint8_t> partial(static_cast<size_t>(n), 0);
    if (flow.kind == FlowPlan::Kind::kAutoCdc) {
      for (const std::string& name : data::ReferencedColumns(*e.condition)) {
        const int c = batch.rows.schema().FieldIndex(name);
        if (c < 0) continue;
        const auto column = static_cast<size_t>(c);
        const bool ignore_null = flow.flow.ignore_null_updates.has_value() &&
                                 flow.flow.ignore_null_updates->Selects(name);
        for (int64_t r = 0; r < n; ++r) {
          const auto i = static_cast<size_t>(r);
          if (column < batch.unchanged.size() && i < batch.unchanged[column].size() &&
              batch.unchanged[column][i] != 0) {
            partial[i] = 1;
          }
          if (ignore_null && batch.rows.column(column).IsNull(r)) partial[i] = 1;
        }
      }
    }
    ExpectationCount count{e.name, dataset, e.action, 0, 0};
    for (int64_t r = 0; r < n; ++r) {
      if (exempt[static_cast<size_t>(r)] != 0 || partial[static_cast<size_t>(r)] != 0) continue;
      if (pass[static_cast<size_t>(r)] != 0) {
        ++count.passed;
        continue;
      }
      ++count.failed;
      if (e.action == sql::Expectation::Action::kFailUpdate) {
        return Status::InvalidArgument(what + " failed on the row" + Where(batch, r) + " " +
                                       RowForPeople(batch, r) +
                                       "; ON VIOLATION FAIL UPDATE: nothing of this batch is "
                                       "committed");
      }
      if (e.action == sql::Expectation::Action::kDropRow) {
        std::string& names = dropped_by[static_cast<size_t>(r)];
        names += (names.empty() ? "" : ", ") + e.name + " (" + e.text + ")";
      }
    }
    seen.push_back(count);
  }
  AddExpectationCounts(seen, counts);
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    const std::string& names = dropped_by[static_cast<size_t>(r)];
    if (names.empty()) {
      keep.push_back(r);
      continue;
    }
    const auto i = static_cast<size_t>(r);
    batch.rejected.push_back(change::RejectedRecord{
        RowForPeople(batch, r),
        i < batch.positions.size() ? batch.positions[i] : change::SourcePosition{},
        "dropped by expectation " + names});
  }
  if (static_cast<int64_t>(keep.size()) < n) change::KeepRows(keep, &batch);
  return batch;
}

json::Json DataQualityJson(const std::string& dataset, const std::vector<ExpectationCount>& counts,
                           int64_t dropped) {
  if (counts.empty()) return json::Json();
  json::Json out = json::Json::object();
  json::Json list = json::Json::array();
  for (const ExpectationCount& c : counts) {
    json::Json e = json::Json::object();
    e["name"] = c.name;
    e["dataset"] = c.dataset.empty() ? dataset : c.dataset;
    e["passed_records"] = c.passed;
    e["failed_records"] = c.failed;
    list.push_back(std::move(e));
  }
  out["dropped_records"] = dropped;
  out["expectations"] = std::move(list);
  return out;
}

}  // namespace cdclake::pipeline
