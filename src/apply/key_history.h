// KeyHistory: an SCD2 key's long history, its first events archived in chunk entries of the
// key index so that a change near the end of the history reads and writes only its tail
// (docs/apply.md, "Long histories").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apply/key_index.h"
#include "apply/key_state.h"
#include "apply/timeline.h"
#include "base/result.h"

namespace cdclake::apply {

/// The index entry of chunk `n` of `key`'s archived events: 'h', the key, then n (4 bytes,
/// big-endian). A chunk is a KeyState of archived events and the rows they closed.
std::string HistoryChunkKey(std::string_view key, uint32_t n);

/// Whether an event at `seq` for the key of `state` lands among its archived events (or ties
/// the last of them): the whole history is needed to apply it.
bool ReachesArchive(const KeyState& state, std::string_view seq);

/// Makes archived states whole: each state's chunks, read from `index` in one look-up, are put
/// in front of its events and locations, and its ArchivedHistory is cleared. A missing or
/// damaged chunk is kCorrupt naming the key's entry.
Status ReadWholeHistories(KeyIndex& index, std::span<const std::string> keys,
                          std::span<KeyState* const> states);

/// The version a state's archived events leave open (nullopt when they leave none, or when
/// nothing is archived).
Result<std::optional<FoldedRow>> ArchivedOpenVersion(const TimelineSettings& settings,
                                                     const KeyState& state);

/// The version open after `events`, which follow events that left `before` open (nullopt:
/// none open, or no events before them). From the events at their end when FindLastVersion
/// can tell; else by folding `events` (a bounded tail).
Result<std::optional<FoldedRow>> OpenVersionAfter(const TimelineSettings& settings,
                                                  std::optional<FoldedRow> before,
                                                  std::span<const StoredEvent> events);

/// Rows of archived versions moved to another place (copy-on-write, OPTIMIZE): a key's chunks
/// are read on the first row not in its entry, changed in place and written back once, so a
/// long history is not read whole for a move.
class ArchivedRowMoves {
 public:
  /// Points `key`'s row at `from` (the key's entry `state`) to `to`: in the entry's locations,
  /// else in its chunks. False when neither holds the row.
  Result<bool> Move(KeyIndex& index, const std::string& key, KeyState& state, RowLocation from,
                    RowLocation to);
  /// Puts the chunks Move changed in `batch`.
  void Write(IndexWriteBatch* batch) const;

 private:
  struct Chunks {
    std::vector<KeyState> chunks;
    std::vector<bool> changed;
  };
  std::map<std::string, Chunks> keys_;
};

/// How much of a history stays in the key's entry.
struct HistoryTail {
  /// The newest events kept in the entry: at least this many, and every event from the
  /// batch's oldest one for the key on (so that the next batch's late events and repeats,
  /// as far back as this batch's reached, land in the entry, not the archive).
  size_t keep = 4;
  /// Events are archived only when at least this many would go in one chunk.
  size_t min_chunk = 8;
};

/// SCD2, after a batch changed `state` (the key `key`; `batch_first_seq` the sequence of its
/// oldest event in the batch, empty when it had none): when at least `tail.min_chunk` events
/// come before the ones kept (HistoryTail::keep), they and the rows they closed go to a new
/// chunk (put in `batch`), and the state keeps the rest with the version they leave open.
/// `replaced_chunks`: chunks the key had in the index that `state` no longer refers to (it
/// was made whole); those not overwritten are deleted in `batch`.
Status ArchiveHistory(const TimelineSettings& settings, std::string_view key,
                      const HistoryTail& tail, std::string_view batch_first_seq,
                      uint32_t replaced_chunks, KeyState* state, IndexWriteBatch* batch);

}  // namespace cdclake::apply
