// Archiving an SCD2 key's first events into chunk entries, and reading them back.
#include "apply/key_history.h"

#include <algorithm>

namespace cdclake::apply {

std::string HistoryChunkKey(std::string_view key, uint32_t n) {
  std::string out(1, 'h');
  out.append(key);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
  return out;
}

bool ReachesArchive(const KeyState& state, std::string_view seq) {
  return state.archived->chunks > 0 && seq <= std::string_view(state.archived->last_seq);
}

namespace {

// The `chunks` archived chunks of one key, parsed from their entries as MultiGet found them; a
// missing, damaged or out-of-order one is kCorrupt naming its number.
Result<std::vector<KeyState>> ParseChunks(std::span<const std::optional<std::string>> found,
                                          uint32_t chunks) {
  std::vector<KeyState> out;
  for (uint32_t n = 0; n < chunks; ++n) {
    auto damaged = [&](const std::string& why) {
      return Status::Corrupt("key index: chunk " + std::to_string(n) + " of an SCD2 key's " +
                             std::to_string(chunks) + " archived chunks is " + why +
                             " (`cdclake repair` rebuilds it)");
    };
    if (!found[n]) return damaged("missing");
    Result<KeyState> chunk = ParseKeyState(*found[n]);
    if (!chunk.ok()) return damaged("damaged: " + chunk.status().message());
    if (chunk->archived->chunks != 0 || chunk->events.empty() ||
        (!out.empty() && !(out.back().events.back() < chunk->events.front()))) {
      return damaged("out of order");
    }
    out.push_back(std::move(*chunk));
  }
  return out;
}

// The entries of `key`'s chunks 0 .. chunks-1, appended to `entries`.
void AppendChunkKeys(std::string_view key, uint32_t chunks, std::vector<std::string>* entries) {
  for (uint32_t n = 0; n < chunks; ++n) entries->push_back(HistoryChunkKey(key, n));
}

}  // namespace

Status ReadWholeHistories(KeyIndex& index, std::span<const std::string> keys,
                          std::span<KeyState* const> states) {
  std::vector<std::string> entries;
  for (size_t i = 0; i < keys.size(); ++i) {
    AppendChunkKeys(keys[i], states[i]->archived->chunks, &entries);
  }
  if (entries.empty()) return Status::OK();
  std::vector<std::optional<std::string>> found;
  CDCLAKE_RETURN_IF_ERROR(index.MultiGet(entries, &found));
  std::span<const std::optional<std::string>> rest(found);
  for (size_t i = 0; i < keys.size(); ++i) {
    KeyState& state = *states[i];
    const uint32_t chunks = state.archived->chunks;
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<KeyState> parsed, ParseChunks(rest, chunks));
    rest = rest.subspan(chunks);
    if (chunks == 0) continue;
    if (parsed.back().events.back().seq != state.archived->last_seq) {
      return Status::Corrupt(
          "key index: an SCD2 key's archived chunks end at another event than its entry says "
          "(`cdclake repair` rebuilds it)");
    }
    KeyState whole;
    for (KeyState& chunk : parsed) {
      std::move(chunk.events.begin(), chunk.events.end(), std::back_inserter(whole.events));
      std::move(chunk.locations.begin(), chunk.locations.end(),
                std::back_inserter(whole.locations));
    }
    std::move(state.events.begin(), state.events.end(), std::back_inserter(whole.events));
    std::move(state.locations.begin(), state.locations.end(), std::back_inserter(whole.locations));
    state = std::move(whole);
  }
  return Status::OK();
}

Result<bool> ArchivedRowMoves::Move(KeyIndex& index, const std::string& key, KeyState& state,
                                    RowLocation from, RowLocation to) {
  for (RowLocation& loc : state.locations) {
    if (loc == from) {
      loc = to;
      return true;
    }
  }
  if (state.archived->chunks == 0) return false;
  auto [it, fresh] = keys_.try_emplace(key);
  Chunks& archive = it->second;
  if (fresh) {
    std::vector<std::string> entries;
    AppendChunkKeys(key, state.archived->chunks, &entries);
    std::vector<std::optional<std::string>> found;
    CDCLAKE_RETURN_IF_ERROR(index.MultiGet(entries, &found));
    CDCLAKE_ASSIGN_OR_RETURN(archive.chunks, ParseChunks(found, state.archived->chunks));
    archive.changed.assign(archive.chunks.size(), false);
  }
  for (size_t n = 0; n < archive.chunks.size(); ++n) {
    for (RowLocation& loc : archive.chunks[n].locations) {
      if (loc == from) {
        loc = to;
        archive.changed[n] = true;
        return true;
      }
    }
  }
  return false;
}

void ArchivedRowMoves::Write(IndexWriteBatch* batch) const {
  for (const auto& [key, archive] : keys_) {
    for (size_t n = 0; n < archive.chunks.size(); ++n) {
      if (archive.changed[n]) {
        batch->puts.emplace_back(HistoryChunkKey(key, static_cast<uint32_t>(n)),
                                 SerializeKeyState(archive.chunks[n]));
      }
    }
  }
}

Result<std::optional<FoldedRow>> ArchivedOpenVersion(const TimelineSettings& settings,
                                                     const KeyState& state) {
  if (state.archived->chunks == 0 || !state.archived->open_values) {
    return std::optional<FoldedRow>();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<data::Value> values,
                           DecodeValues(*state.archived->open_values, settings.column_types));
  return std::optional<FoldedRow>(
      FoldedRow{std::move(values), state.archived->open_start, std::nullopt});
}

Result<std::optional<FoldedRow>> OpenVersionAfter(const TimelineSettings& settings,
                                                  std::optional<FoldedRow> before,
                                                  std::span<const StoredEvent> events) {
  if (events.empty()) return before;
  CDCLAKE_ASSIGN_OR_RETURN(LastVersion last, FindLastVersion(settings, events));
  if (last.known) {
    // FindLastVersion starts the open version at the first event when no delete or tracked
    // change came after it; that event continues `before` when its tracked values are the same.
    if (last.open && before && last.open->start == events.front().seq) {
      CDCLAKE_ASSIGN_OR_RETURN(std::vector<data::Value> first,
                               DecodeValues(events.front().values, settings.column_types));
      bool tracked_change = false;
      for (size_t c = 0; c < first.size(); ++c) {
        if (settings.tracked[c] && !(first[c] == before->values[c])) tracked_change = true;
      }
      if (!tracked_change) last.open->start = before->start;
    }
    return std::move(last.open);
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> rows,
                           FoldAfter(settings, std::move(before), events));
  if (rows.empty() || rows.back().end) return std::optional<FoldedRow>();
  return std::optional<FoldedRow>(std::move(rows.back()));
}

Status ArchiveHistory(const TimelineSettings& settings, std::string_view key,
                      const HistoryTail& tail, std::string_view batch_first_seq,
                      uint32_t replaced_chunks, KeyState* state, IndexWriteBatch* batch) {
  const uint32_t next = state->archived->chunks;
  const size_t n = state->events.size();
  size_t keep = std::max(tail.keep, size_t{1});
  if (!batch_first_seq.empty()) {
    auto from = std::lower_bound(
        state->events.begin(), state->events.end(), batch_first_seq,
        [](const StoredEvent& e, std::string_view s) { return std::string_view(e.seq) < s; });
    keep = std::max(keep, static_cast<size_t>(state->events.end() - from));
  }
  if (n < keep + std::max(tail.min_chunk, size_t{1})) {
    for (uint32_t c = 0; c < replaced_chunks; ++c) {
      batch->deletes.push_back(HistoryChunkKey(key, c));
    }
    return Status::OK();
  }
  const size_t sealed = n - keep;
  const std::span<const StoredEvent> first(state->events.data(), sealed);
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FoldedRow> before, ArchivedOpenVersion(settings, *state));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<FoldedRow> rows,
                           FoldAfter(settings, std::move(before), first));
  std::optional<FoldedRow> open;
  if (!rows.empty() && !rows.back().end) open = std::move(rows.back());
  const size_t closed = rows.size() - (open ? 1 : 0);
  if (state->locations.size() < closed + (open ? 1 : 0)) {
    return Status::Corrupt("key index: an SCD2 key's entry holds " +
                           std::to_string(state->locations.size()) + " row locations for " +
                           std::to_string(rows.size()) + " versions of its first events");
  }
  KeyState chunk;
  chunk.events.assign(
      std::make_move_iterator(state->events.begin()),
      std::make_move_iterator(state->events.begin() + static_cast<ptrdiff_t>(sealed)));
  chunk.locations.assign(state->locations.begin(),
                         state->locations.begin() + static_cast<ptrdiff_t>(closed));
  batch->puts.emplace_back(HistoryChunkKey(key, next), SerializeKeyState(chunk));
  for (uint32_t c = next + 1; c < replaced_chunks; ++c) {
    batch->deletes.push_back(HistoryChunkKey(key, c));
  }
  state->events.erase(state->events.begin(),
                      state->events.begin() + static_cast<ptrdiff_t>(sealed));
  state->locations.erase(state->locations.begin(),
                         state->locations.begin() + static_cast<ptrdiff_t>(closed));
  ArchivedHistory& archived = state->archived.mut();
  archived.chunks = next + 1;
  archived.last_seq = chunk.events.back().seq;
  archived.open_values.reset();
  archived.open_start.clear();
  if (open) {
    archived.open_values = EncodeValues(open->values, settings.column_types);
    archived.open_start = std::move(open->start);
  }
  return Status::OK();
}

}  // namespace cdclake::apply
