// Timeline: a key's events in sequence order — adding one (ties, duplicates, what SCD type 1
// can forget) and folding them into the key's rows (SEMANTICS §3, §4).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apply/flow_definition.h"
#include "apply/key_state.h"
#include "base/result.h"
#include "data/data_type.h"
#include "data/record_batch.h"
#include "data/value.h"

namespace cdclake::apply {

struct TimelineSettings {
  ScdType scd_type = ScdType::kType1;
  /// The row columns (the target's columns without __START_AT / __END_AT).
  std::vector<data::TypePtr> column_types;
  std::vector<bool> tracked;      // SCD2: a change here opens a new version
  std::vector<bool> ignore_null;  // IGNORE NULL UPDATES: a NULL here keeps the current value
  /// The key's columns (never tracked): the same in every event of a key. May be empty.
  std::vector<bool> key;
  data::TypePtr sequence_type;

  bool AnyIgnoreNull() const;
  /// Whether every column but the key's is tracked and holds no floating-point numbers (two
  /// NaNs are equal values of different encodings): then two of a key's events differ in a
  /// tracked value exactly when their encodings differ.
  bool TracksEveryChange() const;
};

/// What adding an event did.
struct InsertOutcome {
  bool changed = false;    // the state changed (the event was applied)
  bool duplicate = false;  // the same event was already there
  bool conflict = false;   // a tie of two different upserts (counted as sequence_conflict)
};

/// Adds `event` to `state->events`: a duplicate changes nothing; at an existing sequence the
/// later event in the total order wins (a delete beats an upsert); then SCD type 1 forgets
/// what can no longer matter: everything before the last delete, and (without IGNORE NULL
/// UPDATES) everything but the last event; with it, upserts all of whose values are
/// overwritten by later upserts. `state->locations` is left alone.
InsertOutcome InsertEvent(const TimelineSettings& settings, StoredEvent event, KeyState* state);

/// Removes the events at or before `truncate_seq` (a truncate at that sequence). Returns
/// whether anything was removed.
bool DropThrough(std::string_view truncate_seq, KeyState* state);

/// One row of a key: its values (row columns) and, for SCD2, its version's bounds.
struct FoldedRow {
  std::vector<data::Value> values;
  std::string start;               // ordered encoding of __START_AT
  std::optional<std::string> end;  // of __END_AT; nullopt for the current version

  bool operator==(const FoldedRow& o) const {
    return values == o.values && start == o.start && end == o.end;
  }
};

/// The key's rows: for SCD1 at most one; for SCD2 its versions in order.
Result<std::vector<FoldedRow>> Fold(const TimelineSettings& settings, const KeyState& state);

/// SCD2: the last version Fold makes of `events` (a key's timeline, or its first events),
/// found from the events at their end only (a long history is not decoded). `known` is false
/// where that cannot be told without folding everything (SCD1, IGNORE NULL UPDATES, unchanged
/// cells in the last version): call Fold then.
struct LastVersion {
  bool known = false;
  std::optional<FoldedRow> open;  // the open version; nullopt when the last event is a delete
};
Result<LastVersion> FindLastVersion(const TimelineSettings& settings,
                                    std::span<const StoredEvent> events);

/// The rows Fold makes of events that all sort after some first events of a timeline, given
/// the open version of those (LastVersion::open): the open version as they leave it (first,
/// when given), then the versions they open. The versions those first events closed are not
/// changed by the events after them.
Result<std::vector<FoldedRow>> FoldAfter(const TimelineSettings& settings,
                                         std::optional<FoldedRow> open_row,
                                         std::span<const StoredEvent> later_events);

/// The stored form of a row's values (varint count, then the ordered encoding of each; a
/// column in `unchanged` (when given, one flag per column) is preceded by the byte
/// kUnchangedCell: the source said it keeps the target's current value, and the value given
/// is used only when the key has no row).
std::string EncodeValues(const std::vector<data::Value>& values,
                         const std::vector<data::TypePtr>& types,
                         const std::vector<uint8_t>* unchanged = nullptr);
inline constexpr char kUnchangedCell = 0x02;
/// The EncodeValues form of row `r`'s cells in `fields` of `rows` (a table's rows as read), each
/// in its column's type: what a whole upsert that wrote that row stored.
std::string EncodeTableRow(const data::RecordBatch& rows, int64_t r, std::span<const int> fields);
/// The EncodeValues form of the first `columns` of whole (not partial) `values`, when every
/// column after those is NULL (the values a row of that many columns holds), else nullopt.
Result<std::optional<std::string>> FirstColumnsOfValues(std::string_view values, size_t columns,
                                                        const std::vector<data::TypePtr>& types);
/// Reads values stored by EncodeValues; columns added since are NULL. Unchanged cells are
/// flagged in `unchanged` when given (one flag per column).
Result<std::vector<data::Value>> DecodeValues(std::string_view bytes,
                                              const std::vector<data::TypePtr>& types,
                                              std::vector<uint8_t>* unchanged = nullptr);

}  // namespace cdclake::apply
