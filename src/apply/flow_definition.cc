// Flow definition checks and the target schema they imply.
#include "apply/flow_definition.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "change/ordered_encoding.h"

namespace cdclake::apply {
namespace {

using data::DataType;
using data::Field;
using data::Schema;

std::string ToLowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

std::string SourceColumns(const Schema& schema) {
  std::vector<std::string> names;
  for (const auto& f : schema.fields()) names.push_back(f.name);
  return Quoted(names);
}

// Edit distance between `a` and `b` (insertions, deletions, substitutions, and swaps of two
// neighbours: "_sqe" is one from "_seq").
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The source column closest to `name`, when one is close enough to be a misspelling.
std::optional<std::string> ClosestColumn(const std::string& name, const Schema& schema) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(1, std::min<size_t>(2, name.size() / 3));
  for (const auto& f : schema.fields()) {
    size_t d = EditDistance(ToLowerAscii(name), ToLowerAscii(f.name));
    if (d <= best_distance && (!best || d < best_distance)) {
      best = f.name;
      best_distance = d;
    }
  }
  return best;
}

Status CheckColumnsExist(const std::vector<std::string>& names, const Schema& schema,
                         const std::string& clause) {
  for (const auto& name : names) {
    if (schema.FieldIndex(name) >= 0 || IsHiddenSourceColumn(name)) continue;
    std::string hint;
    if (auto close = ClosestColumn(name, schema)) hint = "did you mean '" + *close + "'? ";
    return Status::InvalidArgument(clause + " names column '" + name +
                                   "', which the source does not have (" + hint +
                                   "source columns: " + SourceColumns(schema) + ")");
  }
  return Status::OK();
}

// The clause a column list is written as, for messages.
std::string ListClause(const ColumnSelection& s, const std::string& clause) {
  return s.mode == ColumnSelection::Mode::kExcept ? clause + " * EXCEPT" : clause;
}

Status CheckCondition(const std::shared_ptr<const data::Expr>& expr, const Schema& schema,
                      const std::string& clause) {
  if (!expr) return Status::OK();
  Status s = data::ValidatePredicate(*expr, schema);
  if (!s.ok()) {
    return Status::InvalidArgument(clause + " " + expr->ToString() + ": " + s.message());
  }
  return Status::OK();
}

}  // namespace

bool IsHiddenSourceColumn(const std::string& name) {
  // Databricks' hidden columns, and the control columns cdclake's readers and bronze tables
  // add only when the source has them (a SQL Server export has no _source_ts_ms, a flow over
  // files no _source_file): a list written for one source stays valid for another.
  static const char* const kHidden[] = {"_metadata",     "_rescued_data",     "_source_ts_ms",
                                        "_source_table", "_source_file",      "_source_offset",
                                        "_ingested_at",  "_unchanged_columns"};
  return std::find(std::begin(kHidden), std::end(kHidden), name) != std::end(kHidden);
}

bool ColumnSelection::Selects(const std::string& name) const {
  bool listed = std::find(columns.begin(), columns.end(), name) != columns.end();
  switch (mode) {
    case Mode::kAll:
      return true;
    case Mode::kOnly:
      return listed;
    case Mode::kExcept:
      return !listed;
  }
  return true;
}

Status ValidateFlowShape(const FlowDefinition& flow) {
  if (flow.keys.empty()) return Status::InvalidArgument("the flow has no KEYS; name at least one");
  if (flow.sequence_by.empty()) {
    return Status::InvalidArgument("the flow has no SEQUENCE BY; name a column or STRUCT(...)");
  }
  std::set<std::string> seen;
  for (const auto& k : flow.keys) {
    if (!seen.insert(k).second) {
      return Status::InvalidArgument("KEYS lists '" + k + "' twice; list each key column once");
    }
  }
  for (const auto& k : flow.keys) {
    if (!flow.columns.Selects(k)) {
      return Status::InvalidArgument("key column '" + k +
                                     "' is left out by the COLUMNS list; keys must stay in the "
                                     "target, so remove it from * EXCEPT or add it to COLUMNS");
    }
  }
  if (flow.scd_type == ScdType::kType2 && flow.truncate_when) {
    return Status::InvalidArgument(
        "APPLY AS TRUNCATE WHEN is not allowed with SCD TYPE 2 (a truncate would erase "
        "history); remove it or use SCD TYPE 1");
  }
  if (flow.scd_type == ScdType::kType1 && flow.track_history) {
    return Status::InvalidArgument(
        "TRACK HISTORY applies to SCD TYPE 2 only; remove it or add STORED AS SCD TYPE 2");
  }
  return Status::OK();
}

Status ValidateFlow(const FlowDefinition& flow, const Schema& source, bool check_column_lists) {
  CDCLAKE_RETURN_IF_ERROR(ValidateFlowShape(flow));
  CDCLAKE_RETURN_IF_ERROR(CheckColumnsExist(flow.keys, source, "KEYS"));
  CDCLAKE_RETURN_IF_ERROR(CheckColumnsExist(flow.sequence_by, source, "SEQUENCE BY"));
  for (const auto& s : flow.sequence_by) {
    const auto& type = source.field(source.FieldIndex(s)).type;
    if (!change::IsOrderable(*type)) {
      return Status::InvalidArgument("SEQUENCE BY column '" + s + "' has type " + type->ToString() +
                                     ", which has no order; use an integer, decimal, string, "
                                     "date or timestamp column, or a STRUCT of them");
    }
  }
  if (check_column_lists) {
    CDCLAKE_RETURN_IF_ERROR(
        CheckColumnsExist(flow.columns.columns, source, ListClause(flow.columns, "COLUMNS")));
  }
  if (flow.scd_type == ScdType::kType2) {
    for (const char* reserved : {"__START_AT", "__END_AT"}) {
      if (source.FieldIndex(reserved) >= 0 && flow.columns.Selects(reserved)) {
        return Status::InvalidArgument(std::string("the source has a column named ") + reserved +
                                       ", which SCD TYPE 2 adds itself; leave it out with "
                                       "* EXCEPT (" +
                                       reserved + ")");
      }
    }
  }
  if (flow.track_history && check_column_lists) {
    CDCLAKE_RETURN_IF_ERROR(CheckColumnsExist(flow.track_history->columns, source,
                                              ListClause(*flow.track_history, "TRACK HISTORY ON")));
  }
  if (flow.ignore_null_updates && check_column_lists) {
    CDCLAKE_RETURN_IF_ERROR(CheckColumnsExist(
        flow.ignore_null_updates->columns, source,
        ListClause(*flow.ignore_null_updates, "IGNORE NULL UPDATES") +
            (flow.ignore_null_updates->mode == ColumnSelection::Mode::kOnly ? " ON" : "")));
  }
  CDCLAKE_RETURN_IF_ERROR(CheckCondition(flow.delete_when, source, "APPLY AS DELETE WHEN"));
  CDCLAKE_RETURN_IF_ERROR(CheckCondition(flow.truncate_when, source, "APPLY AS TRUNCATE WHEN"));
  return Status::OK();
}

data::TypePtr SequenceType(const FlowDefinition& flow, const Schema& source) {
  if (flow.sequence_by.size() == 1 && !flow.sequence_is_struct) {
    return source.field(source.FieldIndex(flow.sequence_by[0])).type;
  }
  std::vector<Field> members;
  for (const auto& s : flow.sequence_by) {
    members.push_back({s, source.field(source.FieldIndex(s)).type, true});
  }
  return DataType::Struct(std::move(members));
}

Status CheckDeclaredHistoryBounds(const FlowDefinition& flow, const Schema& source) {
  if (!flow.declared_schema || flow.scd_type != ScdType::kType2) return Status::OK();
  data::TypePtr seq = SequenceType(flow, source);
  for (const char* bound : {"__START_AT", "__END_AT"}) {
    int i = flow.declared_schema->FieldIndex(bound);
    if (i < 0) continue;
    const data::DataType& declared = *flow.declared_schema->field(i).type;
    if (declared.Equals(*seq)) continue;
    int rd = data::IntegerRank(declared.id()), rs = data::IntegerRank(seq->id());
    if (rd && rs && rd >= rs) continue;
    return Status::InvalidArgument(std::string(bound) + " is declared " + declared.ToString() +
                                   ", which cannot hold the sequence (" + seq->ToString() +
                                   "); declare it " + seq->ToString() + " or leave it out");
  }
  return Status::OK();
}

Schema TargetSchema(const FlowDefinition& flow, const Schema& source) {
  std::vector<Field> fields;
  if (flow.declared_schema) {
    const Schema& declared = *flow.declared_schema;
    const bool scd2 = flow.scd_type == ScdType::kType2;
    for (const auto& f : declared.fields()) {
      const bool bound = f.name == "__START_AT" || f.name == "__END_AT";
      if (bound && !scd2) continue;
      // An open version has no end: __END_AT stays nullable whatever the declaration says.
      fields.push_back({f.name, f.type, f.name == "__END_AT" || f.nullable});
    }
    if (scd2) {
      data::TypePtr seq = SequenceType(flow, source);
      for (const char* bound : {"__START_AT", "__END_AT"}) {
        if (declared.FieldIndex(bound) < 0) fields.push_back({bound, seq, true});
      }
    }
    return Schema(std::move(fields));
  }
  for (const auto& f : source.fields()) {
    bool is_key = std::find(flow.keys.begin(), flow.keys.end(), f.name) != flow.keys.end();
    if (!is_key && !flow.columns.Selects(f.name)) continue;
    fields.push_back({f.name, f.type, true});
  }
  if (flow.scd_type == ScdType::kType2) {
    data::TypePtr seq = SequenceType(flow, source);
    fields.push_back({"__START_AT", seq, true});
    fields.push_back({"__END_AT", seq, true});
  }
  return Schema(std::move(fields));
}

Status CheckPartitionColumns(const FlowDefinition& flow, const Schema& target) {
  std::set<std::string> seen;
  for (const std::string& name : flow.partition_columns) {
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("PARTITIONED BY names column '" + name + "' twice");
    }
    int i = target.FieldIndex(name);
    if (i < 0) {
      std::string hint;
      if (auto close = ClosestColumn(name, target)) hint = "did you mean '" + *close + "'? ";
      return Status::InvalidArgument("PARTITIONED BY names column '" + name +
                                     "', which the target does not have (" + hint +
                                     "target columns: " + SourceColumns(target) + ")");
    }
    const data::TypeId id = target.field(i).type->id();
    if (id == data::TypeId::kStruct || id == data::TypeId::kList || id == data::TypeId::kMap) {
      return Status::InvalidArgument("PARTITIONED BY column '" + name + "' is " +
                                     target.field(i).type->ToString() +
                                     "; Delta partitions only by columns of primitive types");
    }
  }
  if (!flow.partition_columns.empty() && seen.size() == target.num_fields()) {
    return Status::InvalidArgument(
        "PARTITIONED BY names every column of the target; Delta needs at least one column that "
        "is not a partition column");
  }
  return Status::OK();
}

}  // namespace cdclake::apply
