// KeyState: what the engine keeps per key — the applied events that can still change the
// key's rows (see docs/apply.md) and where each of the key's rows lives in the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/heap_value.h"
#include "base/result.h"

namespace cdclake::apply {

/// Upsert sorts before delete so that, at one sequence, the delete is the last event and wins.
enum class EventKind : uint8_t { kUpsert = 0, kDelete = 1 };

struct StoredEvent {
  std::string seq;  // ordered encoding of the sequence value (change/ordered_encoding.h)
  EventKind kind = EventKind::kUpsert;
  std::string values;        // upserts: varint column count + ordered encoding of the columns
  int64_t processed_ms = 0;  // deletes: processing time of the tombstone (for expiry)
  bool partial = false;      // upserts: some cells are unchanged (kUnchangedCell in `values`)
  /// Upserts: `values` holds ValuesDigest(the encoding) instead of the encoding itself; the
  /// values are the key's row in the table (SCD1), read back when they are needed.
  bool digest = false;

  /// The engine's total order of a key's events: sequence, then kind, then content.
  bool operator<(const StoredEvent& o) const;
  bool SameEvent(const StoredEvent& o) const {
    return seq == o.seq && kind == o.kind && SameValues(o);
  }
  /// Whether the two hold the same values, each in its encoding or its digest.
  bool SameValues(const StoredEvent& o) const;
  bool operator==(const StoredEvent& o) const {
    return SameEvent(o) && processed_ms == o.processed_ms;
  }
};

/// A row of the table: a data file (its id in the FileDictionary) and a 0-based row position.
struct RowLocation {
  uint32_t file = 0;
  int64_t row = 0;
  bool operator==(const RowLocation& o) const { return file == o.file && row == o.row; }
};

/// SCD2: the first events of a long history, moved out of the key's entry into chunk entries
/// of the index (key_history.h), so that a change after them reads and writes only the rest.
struct ArchivedHistory {
  uint32_t chunks = 0;   // the chunk entries 0 .. chunks-1; 0: the state holds every event
  std::string last_seq;  // the sequence of the last archived event
  /// The version those events leave open (EncodeValues of its values, and its __START_AT),
  /// when they leave one; the state's first location is that version's row.
  std::optional<std::string> open_values;
  std::string open_start;

  bool operator==(const ArchivedHistory& o) const {
    return chunks == o.chunks && last_seq == o.last_seq && open_values == o.open_values &&
           open_start == o.open_start;
  }
};

struct KeyState {
  /// Sorted by StoredEvent::operator<, one event per sequence value (the tie's winner).
  std::vector<StoredEvent> events;
  /// One per row that Fold (timeline.h) makes of `events`, in the same order; with an
  /// archived history, one per row FoldAfter makes of `events` from its open version.
  std::vector<RowLocation> locations;
  /// SCD2: the events before `events`, when some were archived. On the heap: few states have
  /// one, and every key of a batch holds two states (a 1M-row load touched 200 MB less).
  HeapValue<ArchivedHistory> archived;

  bool operator==(const KeyState& o) const {
    return events == o.events && locations == o.locations && archived == o.archived;
  }
  /// SCD1: the key has no row, only the delete that removed it.
  bool IsTombstone() const { return events.size() == 1 && events[0].kind == EventKind::kDelete; }
};

/// Compares two EncodeValues encodings (timeline.h) as if the one of fewer columns had NULL in
/// the columns it lacks (columns added to the target since it was written): <0, 0 or >0. The
/// engine's order of two upserts at one sequence, and their identity, so that a tie is settled
/// alike whether the two were encoded before or after a column was added.
int CompareValues(std::string_view a, std::string_view b);

/// The digest form of an EncodeValues encoding (timeline.h): its column count (varint) and
/// XXH3-128 of the whole encoding; equal digests mean equal encodings.
std::string ValuesDigest(std::string_view values);

/// Whether `state` may be stored with its values as a digest: one whole upsert (SCD1 without
/// IGNORE NULL UPDATES or a change data feed keeps no more; the caller knows the flow).
bool DigestEligible(const KeyState& state);

/// The stored form. With `digest_values`, a DigestEligible state's upsert is stored as
/// ValuesDigest of its values (about 20 bytes instead of the row's encoding).
std::string SerializeKeyState(const KeyState& state, bool digest_values = false);
Result<KeyState> ParseKeyState(std::string_view bytes);

}  // namespace cdclake::apply
