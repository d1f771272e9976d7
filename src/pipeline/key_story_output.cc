// A key's story as text (sections row, index, horizon, events) and as JSON.
#include <algorithm>

#include "data/value_format.h"
#include "json/json.h"
#include "pipeline/key_story.h"

namespace cdclake::pipeline {
namespace {

std::string Time(int64_t ms) {
  return data::FormatTimestamp(ms * 1000, /*utc=*/true);
}

std::string KeyText(const KeyStory& story) {
  std::string out;
  for (const auto& [name, value] : story.key) {
    if (!out.empty()) out += ',';
    out.append(name).append("=").append(value);
  }
  return out;
}

std::string Cell(const data::RecordBatch& rows, size_t c, int64_t r) {
  const data::Value v = rows.column(c).GetValue(r);
  return v.is_null() ? "NULL" : data::FormatValueText(v, *rows.schema().field(c).type);
}

// Lines of cells, each column as wide as its widest cell, indented by two spaces.
std::string Aligned(const std::vector<std::vector<std::string>>& lines) {
  std::vector<size_t> width;
  for (const auto& line : lines) {
    if (width.size() < line.size()) width.resize(line.size(), 0);
    for (size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text = "  ";
    for (size_t i = 0; i < line.size(); ++i) {
      text += line[i];
      if (i + 1 < line.size()) text += std::string(width[i] - line[i].size() + 2, ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

std::string RowSection(const KeyStory& story) {
  std::string out = "row\n";
  const data::RecordBatch& rows = story.rows;
  if (rows.num_rows() == 0) {
    return out + "  none: the key has no row in the table" +
           (story.scd_type == 2 ? " (no version of it)" : "") + "\n";
  }
  std::vector<std::vector<std::string>> lines(1);
  for (const data::Field& f : rows.schema().fields()) lines[0].push_back(f.name);
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    std::vector<std::string> line;
    for (size_t c = 0; c < rows.num_columns(); ++c) line.push_back(Cell(rows, c, r));
    lines.push_back(std::move(line));
  }
  return out + Aligned(lines);
}

std::string IndexSection(const KeyStory& story) {
  const KeyIndexState& index = story.index;
  std::string out = "index\n";
  std::vector<std::vector<std::string>> lines;
  if (!index.source.empty()) lines.push_back({"read from", index.source});
  if (!index.problem.empty())
    lines.push_back({index.available ? "note" : "unavailable", index.problem});
  if (!index.available) return out + Aligned(lines);
  if (index.events.empty()) {
    lines.push_back({"state",
                     "none: the index holds nothing for the key (never applied, or its "
                     "tombstone was purged)"});
    return out + Aligned(lines);
  }
  for (size_t i = 0; i < index.events.size(); ++i) {
    const KeyIndexState::Event& e = index.events[i];
    std::string text = e.kind + " at " + e.sequence;
    if (e.processed_ms) text += " (applied " + Time(*e.processed_ms) + ")";
    if (i == 0 && index.tombstone) text.insert(0, "tombstone: ");
    lines.push_back({i == 0 ? "state" : "", text});
  }
  for (const KeyIndexState::Event& e : index.events) {
    if (!e.expires_ms) continue;
    lines.push_back({"expires", Time(*e.expires_ms) + " (" +
                                    std::to_string(story.horizon.tombstone_seconds) +
                                    " s after the delete): purged by the first batch after it"});
  }
  lines.push_back({"last sequence", index.last_sequence});
  if (index.locations.empty()) lines.push_back({"location", "none (no row)"});
  for (size_t i = 0; i < index.locations.size(); ++i) {
    lines.push_back({i == 0 ? "location" : "",
                     index.locations[i].file + " row " + std::to_string(index.locations[i].row)});
  }
  return out + Aligned(lines);
}

std::string HorizonSection(const KeyStory& story) {
  const KeyHorizon& h = story.horizon;
  std::vector<std::vector<std::string>> lines;
  if (story.scd_type == 1) {
    lines.push_back({"purge horizon",
                     h.purge_horizon ? *h.purge_horizon : "none (no tombstone has been purged)"});
    const std::string policy = h.late_events_quarantined
                                   ? "quarantined (cdclake.lateEventPolicy = 'quarantine')"
                                   : "applied as new (cdclake.lateEventPolicy is not 'quarantine')";
    lines.push_back({"late events", "for a key without state, at or below the horizon: " + policy});
    lines.push_back(
        {"truncate", h.truncate ? *h.truncate + ": events at or below it are discarded" : "none"});
  } else {
    lines.push_back({"purge horizon", "none: SCD type 2 keeps its history, nothing expires"});
  }
  if (h.max_sequence)
    lines.push_back({"max sequence", *h.max_sequence + " (applied to the table)"});
  if (!story.index.available)
    lines.push_back({"note", "read from the index, which is unavailable"});
  return "horizon\n" + Aligned(lines);
}

std::string EventsSection(const KeyStory& story) {
  std::string out = "events";
  if (!story.flow.empty()) out += " (flow " + story.flow;
  if (!story.bronze.empty()) out += ", from " + story.bronze + " at " + story.bronze_folder;
  if (!story.flow.empty()) out += ")";
  out += "\n";
  if (!story.events_note.empty()) out += "  " + story.events_note + "\n";
  if (story.events.empty()) {
    if (!story.bronze.empty() && story.events_note.empty()) {
      out += "  none: the bronze table holds no event of the key\n";
    }
  } else {
    std::vector<std::vector<std::string>> lines = {
        {"sequence", "op", "bronze", "decision", "target", "detail"}};
    for (const KeyEvent& e : story.events) {
      std::string target = e.target_version ? "v" + std::to_string(*e.target_version) : "-";
      std::string detail;
      if (e.quarantine_version) {
        detail = "quarantine v" + std::to_string(*e.quarantine_version);
        if (!e.detail.empty()) detail += ": ";
      }
      detail += e.detail;
      lines.push_back({e.sequence, e.op, "v" + std::to_string(e.bronze_version),
                       std::string(DecisionName(e.decision)), target, detail});
    }
    out += Aligned(lines);
  }
  for (const std::string& note : story.notes) out += "  note: " + note + "\n";
  return out;
}

json::Json OptionalText(const std::optional<std::string>& text) {
  return text ? json::Json(*text) : json::Json();
}

json::Json RowsJson(const data::RecordBatch& rows) {
  json::Json out = json::Json::array();
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    std::string text = "{";
    for (size_t c = 0; c < rows.num_columns(); ++c) {
      if (c > 0) text += ",";
      data::AppendJsonString(rows.schema().field(c).name, &text);
      text += ":";
      data::AppendValueJson(rows.column(c).GetValue(r), *rows.schema().field(c).type, &text);
    }
    text += "}";
    auto parsed = json::Parse(text);
    out.push_back(parsed.ok() ? *parsed : json::Json(text));
  }
  return out;
}

}  // namespace

std::string KeyStoryText(const KeyStory& story) {
  std::string out = "table " + story.table + " (version " + std::to_string(story.version) +
                    ", SCD type " + std::to_string(story.scd_type) + ")\nkey   " + KeyText(story) +
                    "\n\n";
  out += RowSection(story) + "\n" + IndexSection(story) + "\n" + HorizonSection(story) + "\n" +
         EventsSection(story);
  return out;
}

std::string KeyStoryJson(const KeyStory& story) {
  json::Json out = json::Json::object();
  out["table"] = story.table;
  out["version"] = story.version;
  out["scd_type"] = story.scd_type;
  json::Json key = json::Json::object();
  for (const auto& [name, value] : story.key) key[name] = value;
  out["key"] = std::move(key);
  out["rows"] = RowsJson(story.rows);

  const KeyIndexState& index = story.index;
  json::Json idx = json::Json::object();
  idx["available"] = index.available;
  idx["source"] = index.source;
  idx["problem"] = index.problem.empty() ? json::Json() : json::Json(index.problem);
  idx["tombstone"] = index.tombstone;
  idx["last_sequence"] = index.events.empty() ? json::Json() : json::Json(index.last_sequence);
  json::Json events = json::Json::array();
  for (const KeyIndexState::Event& e : index.events) {
    json::Json event{{"sequence", e.sequence}, {"kind", e.kind}};
    event["processed_at"] = e.processed_ms ? json::Json(Time(*e.processed_ms)) : json::Json();
    event["expires_at"] = e.expires_ms ? json::Json(Time(*e.expires_ms)) : json::Json();
    events.push_back(std::move(event));
  }
  idx["events"] = std::move(events);
  json::Json locations = json::Json::array();
  for (const KeyIndexState::Location& l : index.locations) {
    locations.push_back(json::Json{{"file", l.file}, {"row", l.row}});
  }
  idx["locations"] = std::move(locations);
  out["index"] = std::move(idx);

  const KeyHorizon& h = story.horizon;
  out["horizon"] =
      json::Json{{"purge_horizon", OptionalText(h.purge_horizon)},
                 {"late_event_policy", h.late_events_quarantined ? "quarantine" : "apply"},
                 {"truncate", OptionalText(h.truncate)},
                 {"max_sequence", OptionalText(h.max_sequence)},
                 {"tombstone_seconds", h.tombstone_seconds}};

  json::Json list = json::Json::array();
  for (const KeyEvent& e : story.events) {
    json::Json event{{"sequence", e.sequence},
                     {"op", e.op},
                     {"bronze_version", e.bronze_version},
                     {"source", e.source},
                     {"decision", std::string(DecisionName(e.decision))},
                     {"detail", e.detail}};
    event["target_version"] = e.target_version ? json::Json(*e.target_version) : json::Json();
    event["quarantine_version"] =
        e.quarantine_version ? json::Json(*e.quarantine_version) : json::Json();
    list.push_back(std::move(event));
  }
  out["events"] =
      json::Json{{"flow", story.flow.empty() ? json::Json() : json::Json(story.flow)},
                 {"bronze", story.bronze.empty() ? json::Json() : json::Json(story.bronze)},
                 {"note", story.events_note.empty() ? json::Json() : json::Json(story.events_note)},
                 {"list", std::move(list)}};
  json::Json notes = json::Json::array();
  for (const std::string& n : story.notes) notes.push_back(n);
  out["notes"] = std::move(notes);
  return json::Dump(out) + "\n";
}

}  // namespace cdclake::pipeline
