// ReferenceModel (tests only): the expected target of an AUTO CDC flow, computed the plain way
// from SEMANTICS.md §2-§6 over the whole set of events at once; shares no code with the engine.
// Also loads the autocdc-docs acceptance examples (testdata/autocdc-docs) as typed rows.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "data/data_type.h"
#include "data/schema.h"
#include "data/value.h"
#include "data/value_compare.h"
#include "io/local_file_system.h"
#include "json/json.h"

namespace cdclake::apply::testing {

/// What an event does (§2): everything that is neither a delete nor a truncate is an upsert.
enum class EventKind { kUpsert, kDelete, kTruncate };

/// One change event as the model sees it.
struct ModelEvent {
  EventKind kind = EventKind::kUpsert;
  /// The SEQUENCE BY value, of ModelFlow::sequence_type (a Nested value for a STRUCT).
  data::Value sequence;
  /// One value per ModelFlow::columns, the key columns included. A truncate's are unused.
  std::vector<data::Value> values;
};

/// The flow settings the model needs.
struct ModelFlow {
  /// The output columns in target order, keys included, without __START_AT/__END_AT.
  std::vector<data::Field> columns;
  std::vector<std::string> keys;
  data::TypePtr sequence_type;
  int scd_type = 1;
  /// SCD2: the columns whose change opens a new version; nullopt means every non-key column.
  std::optional<std::set<std::string>> tracked;
  /// The columns under IGNORE NULL UPDATES; empty when the flow does not ignore NULLs.
  std::set<std::string> ignore_null;
};

/// One target row: a value per target column (SCD2: the output columns, then start and end).
using ModelRow = std::vector<data::Value>;

/// The target's columns: the output columns, plus __START_AT and __END_AT for SCD2.
inline std::vector<data::Field> ModelTargetFields(const ModelFlow& flow) {
  std::vector<data::Field> out = flow.columns;
  if (flow.scd_type == 2) {
    out.push_back({"__START_AT", flow.sequence_type, true});
    out.push_back({"__END_AT", flow.sequence_type, true});
  }
  return out;
}

/// Compares two rows column by column with data::CompareForSort (NULL first).
inline int CompareModelRows(const ModelRow& a, const ModelRow& b,
                            const std::vector<data::Field>& fields) {
  for (size_t i = 0; i < fields.size() && i < a.size() && i < b.size(); ++i) {
    int c = data::CompareForSort(a[i], b[i], *fields[i].type);
    if (c != 0) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

/// `rows` sorted with CompareModelRows: the canonical form of a multiset of rows.
inline std::vector<ModelRow> SortModelRows(std::vector<ModelRow> rows,
                                           const std::vector<data::Field>& fields) {
  std::sort(rows.begin(), rows.end(), [&](const ModelRow& a, const ModelRow& b) {
    return CompareModelRows(a, b, fields) < 0;
  });
  return rows;
}

/// Whether `a` and `b` hold the same rows as multisets.
inline bool SameModelRows(const std::vector<ModelRow>& a, const std::vector<ModelRow>& b,
                          const std::vector<data::Field>& fields) {
  if (a.size() != b.size()) return false;
  std::vector<ModelRow> x = SortModelRows(a, fields), y = SortModelRows(b, fields);
  for (size_t i = 0; i < x.size(); ++i) {
    if (CompareModelRows(x[i], y[i], fields) != 0) return false;
  }
  return true;
}

/// One line per row (sorted), values separated by " | ", after a header line.
inline std::string FormatModelRows(const std::vector<ModelRow>& rows,
                                   const std::vector<data::Field>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? " | " : "  ") + fields[i].name;
  out += "\n";
  for (const ModelRow& r : SortModelRows(rows, fields)) {
    for (size_t i = 0; i < r.size(); ++i) out += (i ? " | " : "  ") + r[i].DebugString();
    out += "\n";
  }
  return out;
}

/// "upsert seq=5 [1 | a | NULL]", for failure messages.
inline std::string FormatModelEvent(const ModelEvent& e) {
  std::string out = e.kind == EventKind::kUpsert   ? "upsert"
                    : e.kind == EventKind::kDelete ? "delete"
                                                   : "truncate";
  out += " seq=" + e.sequence.DebugString() + " [";
  for (size_t i = 0; i < e.values.size(); ++i) out += (i ? " | " : "") + e.values[i].DebugString();
  return out + "]";
}

namespace model_internal {

inline int CompareSeq(const ModelFlow& flow, const data::Value& a, const data::Value& b) {
  return data::CompareForSort(a, b, *flow.sequence_type);
}

inline std::vector<size_t> KeyPositions(const ModelFlow& flow) {
  std::vector<size_t> out;
  for (const std::string& k : flow.keys) {
    for (size_t i = 0; i < flow.columns.size(); ++i) {
      if (flow.columns[i].name == k) out.push_back(i);
    }
  }
  return out;
}

inline ModelRow KeyOf(const ModelEvent& e, const std::vector<size_t>& key_positions) {
  ModelRow key;
  for (size_t p : key_positions) key.push_back(e.values[p]);
  return key;
}

inline std::vector<data::Field> KeyFields(const ModelFlow& flow,
                                          const std::vector<size_t>& key_positions) {
  std::vector<data::Field> out;
  for (size_t p : key_positions) out.push_back(flow.columns[p]);
  return out;
}

/// One step of a key's walk: at `sequence`, either the row goes away (a delete or a truncate)
/// or it becomes `values` (the winning upsert).
struct Step {
  data::Value sequence;
  bool removes = false;
  std::vector<data::Value> values;
};

/// Collapses `events` (one key's upserts and deletes, plus every truncate) into one step per
/// distinct sequence, in ascending sequence order: a delete or truncate beats any upsert at
/// the same sequence; among upserts the one whose values sort last wins (§2, ties).
inline std::vector<Step> Steps(const ModelFlow& flow, std::vector<const ModelEvent*> events) {
  std::stable_sort(events.begin(), events.end(), [&](const ModelEvent* a, const ModelEvent* b) {
    return CompareSeq(flow, a->sequence, b->sequence) < 0;
  });
  std::vector<Step> steps;
  for (const ModelEvent* e : events) {
    if (steps.empty() || CompareSeq(flow, steps.back().sequence, e->sequence) != 0) {
      steps.push_back({e->sequence, e->kind != EventKind::kUpsert, e->values});
      continue;
    }
    Step& s = steps.back();
    if (s.removes) continue;  // a removal at this sequence already won
    if (e->kind != EventKind::kUpsert) {
      s.removes = true;
      continue;
    }
    if (CompareModelRows(e->values, s.values, flow.columns) > 0) s.values = e->values;
  }
  return steps;
}

/// IGNORE NULL UPDATES: `update` with every NULL of an ignored column replaced by `current`'s.
inline std::vector<data::Value> Overlay(const ModelFlow& flow,
                                        const std::vector<data::Value>& current,
                                        std::vector<data::Value> update) {
  for (size_t i = 0; i < flow.columns.size(); ++i) {
    if (flow.ignore_null.count(flow.columns[i].name) && update[i].is_null()) {
      update[i] = current[i];
    }
  }
  return update;
}

inline bool IsTracked(const ModelFlow& flow, const std::string& column) {
  if (std::find(flow.keys.begin(), flow.keys.end(), column) != flow.keys.end()) return false;
  return !flow.tracked.has_value() || flow.tracked->count(column) > 0;
}

/// Whether `a` and `b` differ in a column (only tracked ones when `tracked_only`).
inline bool Differ(const ModelFlow& flow, const std::vector<data::Value>& a,
                   const std::vector<data::Value>& b, bool tracked_only) {
  for (size_t i = 0; i < flow.columns.size(); ++i) {
    if (tracked_only && !IsTracked(flow, flow.columns[i].name)) continue;
    if (data::CompareForSort(a[i], b[i], *flow.columns[i].type) != 0) return true;
  }
  return false;
}

/// §3: walks one key's steps; returns its row, if it has one at the end.
inline void WalkScd1(const ModelFlow& flow, const std::vector<Step>& steps,
                     std::vector<ModelRow>* out) {
  std::optional<std::vector<data::Value>> row;
  for (const Step& s : steps) {
    if (s.removes) {
      row.reset();
    } else if (row.has_value()) {
      row = Overlay(flow, *row, s.values);
    } else {
      row = s.values;  // the first upsert after no row stores NULLs as given
    }
  }
  if (row.has_value()) out->push_back(*row);
}

/// §4: walks one key's steps; appends every version it leaves.
inline void WalkScd2(const ModelFlow& flow, const std::vector<Step>& steps,
                     std::vector<ModelRow>* out) {
  std::optional<std::vector<data::Value>> open;
  data::Value start;
  auto close = [&](const data::Value& end) {
    ModelRow r = *open;
    r.push_back(start);
    r.push_back(end);
    out->push_back(std::move(r));
    open.reset();
  };
  for (const Step& s : steps) {
    if (s.removes) {
      if (open.has_value()) close(s.sequence);  // a delete with no open version: nothing
      continue;
    }
    if (!open.has_value()) {
      open = s.values;
      start = s.sequence;
      continue;
    }
    std::vector<data::Value> candidate = Overlay(flow, *open, s.values);
    if (Differ(flow, *open, candidate, /*tracked_only=*/true)) {
      close(s.sequence);
      open = std::move(candidate);
      start = s.sequence;
    } else if (Differ(flow, *open, candidate, /*tracked_only=*/false)) {
      open = std::move(candidate);  // in place: keeps its __START_AT
    }
  }
  if (open.has_value()) close(data::Value::Null());
}

}  // namespace model_internal

/// The target table after applying the set of `events` one at a time in sequence order
/// (SEMANTICS §1): identical events count once, ties resolve as §2 says, SCD1 per §3, SCD2 per
/// §4 (a truncate, which SCD2 rejects, would close every open version). The order of `events`
/// does not matter. REQUIRES: no event has a NULL key or sequence (those are quarantined).
inline std::vector<ModelRow> ReferenceApply(const ModelFlow& flow,
                                            const std::vector<ModelEvent>& events) {
  using namespace model_internal;
  const std::vector<size_t> key_pos = KeyPositions(flow);
  const std::vector<data::Field> key_fields = KeyFields(flow, key_pos);
  std::vector<const ModelEvent*> truncates;
  std::vector<std::pair<ModelRow, std::vector<const ModelEvent*>>> keys;  // key -> its events
  for (const ModelEvent& e : events) {
    if (e.kind == EventKind::kTruncate) {
      truncates.push_back(&e);
      continue;
    }
    ModelRow key = KeyOf(e, key_pos);
    auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) {
      return CompareModelRows(k.first, key, key_fields) == 0;
    });
    if (it == keys.end()) {
      keys.push_back({std::move(key), {}});
      it = keys.end() - 1;
    }
    it->second.push_back(&e);
  }
  std::vector<ModelRow> out;
  for (auto& [key, key_events] : keys) {
    std::vector<const ModelEvent*> all = key_events;
    all.insert(all.end(), truncates.begin(), truncates.end());
    std::vector<Step> steps = Steps(flow, std::move(all));
    if (flow.scd_type == 2) {
      WalkScd2(flow, steps, &out);
    } else {
      WalkScd1(flow, steps, &out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The autocdc-docs examples (testdata/autocdc-docs/README.md): CSV with a header, no quoting,
// an empty field is NULL; column types from params.json's input_column_types.

/// One example folder, typed.
struct DocsExample {
  std::string name;
  json::Json params;
  data::Schema input_schema;  // input.csv's columns in file order
  std::vector<std::vector<data::Value>> input_rows;
  std::vector<std::string> input_lines;      // the raw CSV line of each input row
  std::vector<data::Field> expected_fields;  // expected.csv's columns
  std::vector<ModelRow> expected_rows;
};

namespace model_internal {

inline std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

inline Result<data::TypePtr> DocsType(const std::string& sql) {
  if (sql == "INT") return data::DataType::Int32();
  if (sql == "BIGINT") return data::DataType::Int64();
  if (sql == "STRING") return data::DataType::String();
  return Status::NotSupported("autocdc-docs type " + sql);
}

inline Result<data::Value> DocsValue(const std::string& text, const data::DataType& type) {
  if (text.empty()) return data::Value::Null();
  if (type.id() == data::TypeId::kString) return data::Value::Bytes(text);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Corrupt("not an integer: " + text);
  }
  return data::Value::Int(v);
}

/// The CSV at `path` as typed rows; `type_of` gives each header column's type.
inline Status ReadDocsCsv(const std::string& path,
                          const std::function<Result<data::TypePtr>(const std::string&)>& type_of,
                          std::vector<data::Field>* fields, std::vector<ModelRow>* rows,
                          std::vector<std::string>* lines) {
  CDCLAKE_ASSIGN_OR_RETURN(std::string text, io::LocalFileSystem::Instance()->ReadFile(path));
  std::vector<std::string> all = SplitLines(text);
  if (all.empty()) return Status::Corrupt(path + ": no header");
  for (const std::string& name : SplitCsvLine(all[0])) {
    CDCLAKE_ASSIGN_OR_RETURN(data::TypePtr t, type_of(name));
    fields->push_back({name, t, true});
  }
  for (size_t i = 1; i < all.size(); ++i) {
    std::vector<std::string> cells = SplitCsvLine(all[i]);
    if (cells.size() != fields->size()) {
      return Status::Corrupt(path + ": line " + std::to_string(i + 1) + " has " +
                             std::to_string(cells.size()) + " fields");
    }
    ModelRow row;
    for (size_t c = 0; c < cells.size(); ++c) {
      CDCLAKE_ASSIGN_OR_RETURN(data::Value v, DocsValue(cells[c], *(*fields)[c].type));
      row.push_back(std::move(v));
    }
    rows->push_back(std::move(row));
    if (lines != nullptr) lines->push_back(all[i]);
  }
  return Status::OK();
}

}  // namespace model_internal

/// Loads `<CDCLAKE_SHARED_DIR>/testdata/autocdc-docs/<name>` (pass the shared folder in).
inline Result<DocsExample> LoadDocsExample(const std::string& shared_dir, const std::string& name) {
  using namespace model_internal;
  DocsExample ex;
  ex.name = name;
  const std::string dir = shared_dir + "/testdata/autocdc-docs/" + name;
  CDCLAKE_ASSIGN_OR_RETURN(std::string params_text,
                           io::LocalFileSystem::Instance()->ReadFile(dir + "/params.json"));
  CDCLAKE_ASSIGN_OR_RETURN(ex.params, json::Parse(params_text));
  const json::Json& types = ex.params["input_column_types"];
  auto input_type = [&](const std::string& column) -> Result<data::TypePtr> {
    if (!types.contains(column)) return Status::NotFound("no type for column " + column);
    return DocsType(types[column].get<std::string>());
  };
  std::vector<data::Field> input_fields;
  CDCLAKE_RETURN_IF_ERROR(
      ReadDocsCsv(dir + "/input.csv", input_type, &input_fields, &ex.input_rows, &ex.input_lines));
  ex.input_schema = data::Schema(input_fields);
  const std::string seq = ex.params["sequence_by"].get<std::string>();
  auto expected_type = [&](const std::string& column) -> Result<data::TypePtr> {
    return input_type(column == "__START_AT" || column == "__END_AT" ? seq : column);
  };
  CDCLAKE_RETURN_IF_ERROR(ReadDocsCsv(dir + "/expected.csv", expected_type, &ex.expected_fields,
                                      &ex.expected_rows, nullptr));
  return ex;
}

/// The model's flow for an example: output columns = input columns narrowed by column_list or
/// except_column_list; tracked columns from track_history_(except_)column_list; IGNORE NULL
/// UPDATES on every column when ignore_null_updates.
inline ModelFlow DocsModelFlow(const DocsExample& ex) {
  const json::Json& p = ex.params;
  auto names = [&](const char* field) {
    std::set<std::string> out;
    if (p.contains(field) && p[field].is_array()) {
      for (const auto& n : p[field]) out.insert(n.get<std::string>());
    }
    return out;
  };
  const bool has_list = p.contains("column_list") && p["column_list"].is_array();
  const std::set<std::string> only = names("column_list"), except = names("except_column_list");
  ModelFlow flow;
  for (const json::Json& k : p["keys"]) flow.keys.push_back(k.get<std::string>());
  for (const data::Field& f : ex.input_schema.fields()) {
    if (f.name == p["sequence_by"].get<std::string>()) flow.sequence_type = f.type;
    bool selected = has_list ? only.count(f.name) > 0 : except.count(f.name) == 0;
    if (selected) flow.columns.push_back(f);
  }
  flow.scd_type = p["stored_as_scd_type"].get<int>();
  if (p.contains("track_history_column_list") && p["track_history_column_list"].is_array()) {
    flow.tracked = names("track_history_column_list");
  } else if (p.contains("track_history_except_column_list") &&
             p["track_history_except_column_list"].is_array()) {
    std::set<std::string> tracked;
    const std::set<std::string> except_tracked = names("track_history_except_column_list");
    for (const data::Field& f : flow.columns) {
      if (!except_tracked.count(f.name)) tracked.insert(f.name);
    }
    flow.tracked = std::move(tracked);
  }
  if (p.value("ignore_null_updates", false)) {
    for (const data::Field& f : flow.columns) flow.ignore_null.insert(f.name);
  }
  return flow;
}

/// The example's input rows as model events: operation 'DELETE' is a delete, 'TRUNCATE' a
/// truncate (when the flow has a truncate condition), anything else an upsert. The docs'
/// conditions are exactly `operation = 'DELETE'` and `operation = 'TRUNCATE'`.
inline std::vector<ModelEvent> DocsModelEvents(const DocsExample& ex, const ModelFlow& flow) {
  const int op = ex.input_schema.FieldIndex("operation");
  const int seq = ex.input_schema.FieldIndex(ex.params["sequence_by"].get<std::string>());
  const bool truncates = ex.params["apply_as_truncates"].is_string();
  std::vector<ModelEvent> out;
  for (const ModelRow& row : ex.input_rows) {
    ModelEvent e;
    const data::Value& o = row[op];
    if (!o.is_null() && o.bytes() == "DELETE") {
      e.kind = EventKind::kDelete;
    } else if (truncates && !o.is_null() && o.bytes() == "TRUNCATE") {
      e.kind = EventKind::kTruncate;
    }
    e.sequence = row[seq];
    for (const data::Field& f : flow.columns)
      e.values.push_back(row[ex.input_schema.FieldIndex(f.name)]);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace cdclake::apply::testing
