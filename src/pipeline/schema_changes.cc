// SchemaChanges: the target's schema before and after, compared by column name.
#include "pipeline/schema_changes.h"

#include "apply/declared_columns.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "pipeline/flow_checkpoint.h"

namespace cdclake::pipeline {
namespace {

const data::Field* Find(const data::Schema& schema, const std::string& name) {
  const int i = schema.FieldIndex(name);
  return i < 0 ? nullptr : &schema.field(static_cast<size_t>(i));
}

}  // namespace

std::string SchemaChange::Text() const {
  if (action == "added") return "column " + column + " added to " + table + " (" + new_type + ")";
  if (action == "no longer sent") {
    return "column " + column + " of " + table + " (" + old_type +
           ") is no longer in what the source sends: its rows get NULL there";
  }
  if (action == "blocked") {
    const std::string by = by_declaration
                               ? ": blocked by " + table + "'s declared column list"
                               : std::string(": blocked by cdclake.schemaPolicy = 'block'");
    if (old_type.empty()) return "column " + column + " (" + new_type + ") is not in " + table + by;
    if (by_declaration && !new_type.empty()) {
      return "column " + column + " of " + table + " (" + old_type +
             "): " + (new_type == old_type ? "" : "the source sends " + new_type + " and ") +
             "none of its " + std::to_string(rows) + (rows == 1 ? " value fits" : " values fit") +
             by;
    }
    if (rows > 0) {
      return "column " + column + " of " + table + " (" + old_type + "): " + std::to_string(rows) +
             (rows == 1 ? " row holds a value that does not fit it"
                        : " rows hold values that do not fit it") +
             by;
    }
    if (new_type.empty()) {
      return "column " + column + " of " + table + " (" + old_type + ") is no longer sent" + by;
    }
    return "column " + column + " of " + table + " is " + old_type + ", the source sends " +
           new_type + by;
  }
  if (action == "refused") {
    const std::string n = std::to_string(rows) + (rows == 1 ? " row" : " rows");
    if (old_type.empty()) {
      return "column " + column + " refused by " + table + ", which does not have it: " + n +
             " quarantined";
    }
    return "column " + column + " of " + table + " (" + old_type +
           "): values that do not fit it refused: " + n + " quarantined";
  }
  return "column " + column + " of " + table + " changed from " + old_type + " to " + new_type;
}

json::Json SchemaChange::ToJson() const {
  json::Json out = json::Json::object();
  out["table"] = table;
  out["column"] = column;
  out["old_type"] = old_type.empty() ? json::Json() : json::Json(old_type);
  out["new_type"] = new_type.empty() ? json::Json() : json::Json(new_type);
  out["action"] = action;
  if (action == "refused" || (action == "blocked" && rows > 0)) out["rows"] = rows;
  if (by_declaration) out["policy"] = "declared columns";
  return out;
}

Result<SchemaWatch> SchemaWatch::Open(const io::FileSystem& fs, std::string table,
                                      std::string folder, const std::string& flow,
                                      bool committed_before, bool declared) {
  SchemaWatch out;
  out.declared_flow_ = declared;
  out.table_ = std::move(table);
  out.folder_ = std::move(folder);
  out.committed_before_ = committed_before;
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, out.folder_));
  if (!exists) return out;
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, out.folder_));
  out.known_ = snapshot->schema();
  out.table_id_ = snapshot->metadata().id;
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FlowCommit> last,
                           FindFlowCommit(fs, out.folder_, flow, snapshot.get()));
  const char* key = declared ? kSourceReadKey : kSourceColumnsKey;
  if (last && last->position.is_object() && last->position.contains(key) &&
      last->position[key].is_string()) {
    auto sent = delta::ParseSchemaJson(last->position[key].get<std::string>());
    if (sent.ok()) out.last_sent_ = std::move(*sent);
  }
  return out;
}

Status SchemaWatch::CheckBlocked(const data::Schema& sent,
                                 const std::function<bool(const std::string&)>& writes,
                                 bool whole_rows, std::vector<SchemaChange>* blocked) const {
  const data::Schema* table = known_ ? &*known_ : declared_ ? &*declared_ : nullptr;
  if (table == nullptr) return Status::OK();
  std::string differences;
  auto add = [&](const std::string& text) {
    differences += (differences.empty() ? "" : "; ") + text;
  };
  for (const data::Field& f : sent.fields()) {
    if (!writes(f.name)) continue;
    const data::Field* had = Find(*table, f.name);
    if (had == nullptr) {
      add("column " + f.name + " (" + f.type->ToString() + ") is not in the table");
      blocked->push_back({table_, f.name, "", f.type->ToString(), "blocked"});
    } else if (!(*had->type == *f.type)) {
      add("column " + f.name + " is " + f.type->ToString() + " in the source, " +
          had->type->ToString() + " in the table");
      blocked->push_back({table_, f.name, had->type->ToString(), f.type->ToString(), "blocked"});
    }
  }
  const data::Schema* before = whole_rows ? PreviouslySent() : nullptr;
  for (const data::Field& f : before != nullptr ? before->fields() : std::vector<data::Field>()) {
    if (apply::IsHistoryBound(f.name) || !writes(f.name) || Find(sent, f.name) != nullptr ||
        Find(*table, f.name) == nullptr) {
      continue;
    }
    add("column " + f.name + " (" + f.type->ToString() + ") is no longer sent");
    blocked->push_back({table_, f.name, f.type->ToString(), "", "blocked"});
  }
  if (differences.empty()) return Status::OK();
  return Status::InvalidArgument(
      "cdclake.schemaPolicy = 'block' on " + table_ +
      ": the source's columns differ from the "
      "table's: " +
      differences +
      "; nothing of this batch is committed (change the table, or set the policy to 'evolve', "
      "to go on)");
}

Result<std::vector<SchemaChange>> SchemaWatch::AfterCommit(const io::FileSystem& fs,
                                                           const data::Schema& sent,
                                                           bool whole_rows) {
  std::vector<SchemaChange> out;
  bool differs = !known_;
  // The same columns as a batch checked before: nothing new (a source sending INT to a BIGINT
  // column would otherwise have the table read again after every batch).
  const std::string signature = sent.ToString();
  if (known_ && signature == checked_) differs = false;
  if (known_ && signature != checked_) {
    for (const data::Field& f : sent.fields()) {
      const data::Field* had = Find(*known_, f.name);
      if (had == nullptr || !(*had->type == *f.type)) differs = true;
    }
  }
  if (differs) {
    CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, folder_));
    const data::Schema& now = snapshot->schema();
    if (known_) {
      for (const data::Field& f : now.fields()) {
        const data::Field* had = Find(*known_, f.name);
        if (had == nullptr) {
          out.push_back({table_, f.name, "", f.type->ToString(), "added"});
        } else if (!(*had->type == *f.type)) {
          out.push_back(
              {table_, f.name, had->type->ToString(), f.type->ToString(), "type changed"});
        }
      }
    }
    known_ = now;
  }
  checked_ = signature;
  if (!whole_rows) {  // key-only deletes say nothing of the other columns
    committed_before_ = true;
    return out;
  }
  const data::Schema* before = PreviouslySent();
  for (const data::Field& f : before != nullptr ? before->fields() : std::vector<data::Field>()) {
    const data::Field* in_table = Find(*known_, f.name);
    if (apply::IsHistoryBound(f.name) || in_table == nullptr || Find(sent, f.name) != nullptr ||
        !missing_said_.insert(f.name).second) {
      continue;
    }
    out.push_back({table_, f.name, in_table->type->ToString(), "", "no longer sent"});
  }
  last_sent_ = sent;
  committed_before_ = true;
  return out;
}

const data::Schema* SchemaWatch::PreviouslySent() const {
  if (last_sent_) return &*last_sent_;
  if (committed_before_ && known_ && !declared_flow_) return &*known_;
  return nullptr;
}

}  // namespace cdclake::pipeline
