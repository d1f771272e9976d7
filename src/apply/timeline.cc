// Adding events to a key's timeline and folding it into rows.
#include "apply/timeline.h"

#include <algorithm>
#include <span>

#include "base/bytes.h"
#include "change/ordered_encoding.h"

namespace cdclake::apply {
namespace {

using data::Value;

// SCD1: drop what can no longer change the key's row.
void CompactType1(const TimelineSettings& settings, KeyState* state) {
  auto& events = state->events;
  // Everything before the last delete is reset by it.
  for (size_t i = events.size(); i-- > 0;) {
    if (events[i].kind == EventKind::kDelete) {
      events.erase(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  if (events.size() <= 1) return;
  if (!settings.AnyIgnoreNull() && !events.back().partial) {
    // The last event writes every column (or is a delete): only it matters.
    events.erase(events.begin(), events.end() - 1);
    return;
  }
  // With IGNORE NULL UPDATES every upsert since the last delete is kept. Forgetting one whose
  // values are all overwritten later would be wrong: a tie's winner may later replace one of
  // the upserts that overwrote it with one that carries NULLs there (see docs/apply.md).
}

// Whether values of `type` hold floating-point numbers: every NaN equals every other as a
// value (data::Value), while their encodings keep their bits and differ.
bool HoldsFloats(const data::DataType& type) {
  if (type.id() == data::TypeId::kFloat || type.id() == data::TypeId::kDouble) return true;
  for (const data::Field& f : type.fields()) {
    if (HoldsFloats(*f.type)) return true;
  }
  return false;
}

}  // namespace

bool TimelineSettings::TracksEveryChange() const {
  for (size_t c = 0; c < tracked.size(); ++c) {
    const bool is_key = c < key.size() && key[c];
    if (is_key) continue;
    if (!tracked[c]) return false;
    if (c < column_types.size() && column_types[c] && HoldsFloats(*column_types[c])) return false;
  }
  return true;
}

bool TimelineSettings::AnyIgnoreNull() const {
  return std::find(ignore_null.begin(), ignore_null.end(), true) != ignore_null.end();
}

InsertOutcome InsertEvent(const TimelineSettings& settings, StoredEvent event, KeyState* state) {
  InsertOutcome out;
  auto& events = state->events;
  if (settings.scd_type == ScdType::kType1 && !settings.AnyIgnoreNull() && events.size() == 1 &&
      !event.partial && !events[0].partial) {
    // The common case: SCD1 keeps one event; the later one in the total order wins.
    StoredEvent& current = events[0];
    if (current.SameEvent(event)) {
      out.duplicate = true;
      return out;
    }
    out.conflict = current.seq == event.seq && current.kind == EventKind::kUpsert &&
                   event.kind == EventKind::kUpsert;
    if (event < current) return out;
    current = std::move(event);
    out.changed = true;
    return out;
  }
  auto it = std::lower_bound(events.begin(), events.end(), event.seq,
                             [](const StoredEvent& e, const std::string& s) { return e.seq < s; });
  if (it != events.end() && it->seq == event.seq) {
    if (it->SameEvent(event)) {
      out.duplicate = true;
      return out;
    }
    out.conflict = it->kind == EventKind::kUpsert && event.kind == EventKind::kUpsert;
    if (event < *it) return out;  // the tie's loser
    *it = std::move(event);
  } else {
    // SCD1 keeps nothing from before its last delete (the first kept event, if a delete):
    // an event older than that delete changes nothing.
    if (settings.scd_type == ScdType::kType1 && !events.empty() &&
        events.front().kind == EventKind::kDelete && event.seq < events.front().seq) {
      return out;
    }
    events.insert(it, std::move(event));
  }
  if (settings.scd_type == ScdType::kType1) CompactType1(settings, state);
  out.changed = true;
  return out;
}

bool DropThrough(std::string_view truncate_seq, KeyState* state) {
  auto& events = state->events;
  auto it = std::upper_bound(
      events.begin(), events.end(), truncate_seq,
      [](std::string_view s, const StoredEvent& e) { return s < std::string_view(e.seq); });
  if (it == events.begin()) return false;
  events.erase(events.begin(), it);
  return true;
}

namespace {

// Fold's loop: folds `events` into `rows`, whose row `*open` (if any) is the open one.
Status FoldInto(const TimelineSettings& settings, std::span<const StoredEvent> events,
                std::vector<FoldedRow>& rows, std::optional<size_t>& open) {
  for (const StoredEvent& e : events) {
    if (e.kind == EventKind::kDelete) {
      if (open) {
        if (settings.scd_type == ScdType::kType1) {
          rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(*open));
        } else {
          rows[*open].end = e.seq;
        }
      }
      open.reset();
      continue;
    }
    if (e.digest) {
      return Status::Internal(
          "a key state holds its values as a digest; the applier reads them back from the "
          "table before folding");
    }
    std::vector<uint8_t> unchanged;
    CDCLAKE_ASSIGN_OR_RETURN(
        std::vector<Value> values,
        DecodeValues(e.values, settings.column_types, e.partial ? &unchanged : nullptr));
    if (!open) {
      // SCD1 rows carry no bounds, so an upsert that changes no value changes no row.
      std::string start = settings.scd_type == ScdType::kType2 ? e.seq : std::string();
      rows.push_back({std::move(values), std::move(start), std::nullopt});
      open = rows.size() - 1;
      continue;
    }
    std::vector<Value>& current = rows[*open].values;
    for (size_t c = 0; c < values.size(); ++c) {
      bool keep = settings.ignore_null[c] && values[c].is_null();
      if (keep || (e.partial && unchanged[c])) values[c] = current[c];
    }
    if (settings.scd_type == ScdType::kType1) {
      current = std::move(values);
      continue;
    }
    bool tracked_change = false;
    for (size_t c = 0; c < values.size(); ++c) {
      if (settings.tracked[c] && !(values[c] == current[c])) tracked_change = true;
    }
    if (tracked_change) {
      rows[*open].end = e.seq;
      rows.push_back({std::move(values), e.seq, std::nullopt});
      open = rows.size() - 1;
    } else if (!(values == current)) {
      current = std::move(values);
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<FoldedRow>> Fold(const TimelineSettings& settings, const KeyState& state) {
  std::vector<FoldedRow> rows;
  std::optional<size_t> open;
  CDCLAKE_RETURN_IF_ERROR(FoldInto(settings, state.events, rows, open));
  return rows;
}

Result<LastVersion> FindLastVersion(const TimelineSettings& settings,
                                    std::span<const StoredEvent> events) {
  LastVersion out;
  if (settings.scd_type != ScdType::kType2 || settings.AnyIgnoreNull() || events.empty()) {
    return out;
  }
  out.known = true;
  if (events.back().kind == EventKind::kDelete) return out;  // every version is closed
  if (events.back().partial || events.back().digest) return LastVersion{};
  // Without IGNORE NULL UPDATES and unchanged cells an upsert sets every value, so the open
  // version holds the last upsert's values and began at the first upsert of the run before it
  // whose tracked values are all the same (Fold opens a version at a tracked change or after a
  // delete).
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Value> last,
                           DecodeValues(events.back().values, settings.column_types));
  size_t first = events.size() - 1;
  if (settings.TracksEveryChange()) {
    // Every column tracked but the key's (equal in all of a key's events): a tracked change is
    // any change, told by the two encodings (CompareValues pads a narrower one as DecodeValues
    // does), decoding neither.
    while (first > 0) {
      const StoredEvent& before = events[first - 1];
      if (before.kind == EventKind::kDelete) break;
      if (before.partial || before.digest) return LastVersion{};
      if (CompareValues(before.values, events[first].values) != 0) break;
      --first;
    }
    out.open = FoldedRow{std::move(last), events[first].seq, std::nullopt};
    return out;
  }
  std::vector<Value> later = last;
  while (first > 0) {
    const StoredEvent& before = events[first - 1];
    if (before.kind == EventKind::kDelete) break;
    if (before.partial || before.digest) return LastVersion{};
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Value> values,
                             DecodeValues(before.values, settings.column_types));
    bool tracked_change = false;
    for (size_t c = 0; c < values.size(); ++c) {
      if (settings.tracked[c] && !(values[c] == later[c])) tracked_change = true;
    }
    if (tracked_change) break;
    later = std::move(values);
    --first;
  }
  out.open = FoldedRow{std::move(last), events[first].seq, std::nullopt};
  return out;
}

Result<std::vector<FoldedRow>> FoldAfter(const TimelineSettings& settings,
                                         std::optional<FoldedRow> open_row,
                                         std::span<const StoredEvent> later_events) {
  std::vector<FoldedRow> rows;
  std::optional<size_t> open;
  if (open_row) {
    rows.push_back(std::move(*open_row));
    open = 0;
  }
  CDCLAKE_RETURN_IF_ERROR(FoldInto(settings, later_events, rows, open));
  return rows;
}

std::string EncodeValues(const std::vector<Value>& values, const std::vector<data::TypePtr>& types,
                         const std::vector<uint8_t>* unchanged) {
  std::string out;
  AppendVarint(&out, values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (unchanged && (*unchanged)[i]) out.push_back(kUnchangedCell);
    change::AppendOrdered(values[i], *types[i], &out);
  }
  return out;
}

std::string EncodeTableRow(const data::RecordBatch& rows, int64_t r, std::span<const int> fields) {
  std::string out;
  AppendVarint(&out, fields.size());
  for (int f : fields) {
    change::AppendOrderedCell(rows.column(f), r, *rows.schema().field(static_cast<size_t>(f)).type,
                              &out);
  }
  return out;
}

Result<std::optional<std::string>> FirstColumnsOfValues(std::string_view values, size_t columns,
                                                        const std::vector<data::TypePtr>& types) {
  ByteReader reader(values);
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t count, reader.ReadVarint());
  if (count < columns || count > types.size()) return std::optional<std::string>();
  std::string_view in = values.substr(reader.position());
  const std::string_view cells = in;
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i == columns) kept = cells.size() - in.size();
    CDCLAKE_ASSIGN_OR_RETURN(Value value, change::ReadOrdered(&in, *types[i]));
    if (i >= columns && !value.is_null()) return std::optional<std::string>();
  }
  if (count == columns) kept = cells.size() - in.size();
  std::string out;
  AppendVarint(&out, columns);
  out.append(cells.substr(0, kept));
  return std::optional<std::string>(std::move(out));
}

Result<std::vector<Value>> DecodeValues(std::string_view bytes,
                                        const std::vector<data::TypePtr>& types,
                                        std::vector<uint8_t>* unchanged) {
  ByteReader reader(bytes);
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t count, reader.ReadVarint());
  if (count > types.size()) {
    return Status::Corrupt("stored event has " + std::to_string(count) + " columns, the table " +
                           std::to_string(types.size()));
  }
  std::string_view in = bytes.substr(reader.position());
  std::vector<Value> values(types.size());
  if (unchanged) unchanged->assign(types.size(), 0);
  for (size_t i = 0; i < count; ++i) {
    if (!in.empty() && in[0] == kUnchangedCell) {
      in.remove_prefix(1);
      if (unchanged) (*unchanged)[i] = 1;
    }
    CDCLAKE_ASSIGN_OR_RETURN(values[i], change::ReadOrdered(&in, *types[i]));
  }
  if (!in.empty()) return Status::Corrupt("stored event: trailing bytes");
  return values;
}

}  // namespace cdclake::apply
