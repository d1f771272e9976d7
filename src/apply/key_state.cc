// KeyState's stored form: varint-prefixed fields, versioned by a leading byte.
#include "apply/key_state.h"

#include <xxhash.h>

#include "base/bytes.h"

namespace cdclake::apply {
namespace {

constexpr uint8_t kFormatVersion = 2;
// The same, followed by the archived history's fields (ArchivedHistory).
constexpr uint8_t kArchivedFormatVersion = 3;
constexpr uint8_t kPartialBit = 0x10;
constexpr uint8_t kDigestBit = 0x20;

void AppendString(std::string* out, std::string_view s) {
  AppendVarint(out, s.size());
  out->append(s);
}

Result<std::string> ReadString(ByteReader* in) {
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t n, in->ReadVarint());
  CDCLAKE_ASSIGN_OR_RETURN(std::string_view s, in->ReadBytes(n));
  return std::string(s);
}

}  // namespace

int CompareValues(std::string_view a, std::string_view b) {
  ByteReader ra(a), rb(b);
  Result<uint64_t> na = ra.ReadVarint(), nb = rb.ReadVarint();
  if (!na.ok() || !nb.ok() || *na == *nb) return a.compare(b);
  // Pad the narrower with NULL cells (one kNull byte each) and compare the cells.
  const bool a_narrower = *na < *nb;
  std::string_view narrow = a_narrower ? a.substr(ra.position()) : b.substr(rb.position());
  std::string_view wide = a_narrower ? b.substr(rb.position()) : a.substr(ra.position());
  const uint64_t pad = a_narrower ? *nb - *na : *na - *nb;
  int c = narrow.substr(0, wide.size()).compare(wide.substr(0, narrow.size()));
  if (c == 0) {
    if (narrow.size() > wide.size()) {
      c = 1;  // the narrower's cells go on past the wider's end
    } else {
      // The narrower's padding against the rest of the wider.
      std::string_view rest = wide.substr(narrow.size());
      for (size_t i = 0; c == 0 && i < rest.size(); ++i) {
        c = i < pad ? -static_cast<int>(static_cast<uint8_t>(rest[i]) != 0) : -1;
      }
      if (c == 0 && rest.size() < pad) c = 1;
    }
  }
  c = c < 0 ? -1 : (c > 0 ? 1 : 0);
  return a_narrower ? c : -c;
}

bool StoredEvent::operator<(const StoredEvent& o) const {
  if (int c = seq.compare(o.seq); c != 0) return c < 0;
  if (kind != o.kind) return kind < o.kind;
  return CompareValues(values, o.values) < 0;
}

bool StoredEvent::SameValues(const StoredEvent& o) const {
  if (!digest && !o.digest) return CompareValues(values, o.values) == 0;
  if (digest == o.digest) return values == o.values;
  return digest ? values == ValuesDigest(o.values) : ValuesDigest(values) == o.values;
}

std::string ValuesDigest(std::string_view values) {
  ByteReader in(values);
  Result<uint64_t> count = in.ReadVarint();
  std::string out;
  AppendVarint(&out, count.ok() ? *count : 0);
  const XXH128_hash_t h = XXH3_128bits(values.data(), values.size());
  for (uint64_t part : {h.high64, h.low64}) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(part >> shift));
  }
  return out;
}

bool DigestEligible(const KeyState& state) {
  return state.events.size() == 1 && state.events[0].kind == EventKind::kUpsert &&
         !state.events[0].partial && state.locations.size() == 1;
}

std::string SerializeKeyState(const KeyState& state, bool digest_values) {
  digest_values = digest_values && DigestEligible(state) && !state.events[0].digest;
  // The values' digest is made first, so that the reservation is the entry's size: reserving
  // room for the whole values was ~200 unused bytes per SCD1 entry, whose first touch was 5% of
  // a 1M-row load's CPU in page faults.
  const std::string digest_of = digest_values ? ValuesDigest(state.events[0].values) : "";
  size_t size = 12 + 12 * state.locations.size();
  for (const auto& e : state.events) {
    size += e.seq.size() + (digest_values ? digest_of.size() : e.values.size()) + 32;
  }
  const ArchivedHistory& archived = *state.archived;
  if (archived.chunks > 0) {
    size += 16 + archived.last_seq.size() + archived.open_start.size() +
            archived.open_values.value_or("").size();
  }
  std::string out;
  out.reserve(size);
  out.push_back(static_cast<char>(archived.chunks > 0 ? kArchivedFormatVersion : kFormatVersion));
  AppendVarint(&out, state.events.size());
  for (const auto& e : state.events) {
    AppendString(&out, e.seq);
    const bool digest = e.digest || digest_values;
    out.push_back(static_cast<char>(static_cast<uint8_t>(e.kind) | (e.partial ? kPartialBit : 0) |
                                    (digest ? kDigestBit : 0)));
    AppendString(&out, digest_values ? digest_of : e.values);
    AppendVarint(&out, static_cast<uint64_t>(e.processed_ms));
  }
  AppendVarint(&out, state.locations.size());
  for (const auto& l : state.locations) {
    AppendVarint(&out, l.file);
    AppendVarint(&out, static_cast<uint64_t>(l.row));
  }
  if (archived.chunks > 0) {
    AppendVarint(&out, archived.chunks);
    AppendString(&out, archived.last_seq);
    out.push_back(archived.open_values ? 1 : 0);
    if (archived.open_values) {
      AppendString(&out, *archived.open_values);
      AppendString(&out, archived.open_start);
    }
  }
  return out;
}

Result<KeyState> ParseKeyState(std::string_view bytes) {
  ByteReader in(bytes);
  CDCLAKE_ASSIGN_OR_RETURN(uint8_t version, in.ReadByte());
  if (version != kFormatVersion && version != kArchivedFormatVersion) {
    return Status::Corrupt("key index entry has format " + std::to_string(version) + ", expected " +
                           std::to_string(kFormatVersion) + " or " +
                           std::to_string(kArchivedFormatVersion));
  }
  KeyState state;
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t num_events, in.ReadVarint());
  if (num_events > bytes.size()) return Status::Corrupt("key index entry: bad event count");
  state.events.resize(num_events);
  for (auto& e : state.events) {
    CDCLAKE_ASSIGN_OR_RETURN(e.seq, ReadString(&in));
    CDCLAKE_ASSIGN_OR_RETURN(uint8_t kind, in.ReadByte());
    e.partial = (kind & kPartialBit) != 0;
    e.digest = (kind & kDigestBit) != 0;
    kind &= static_cast<uint8_t>(~(kPartialBit | kDigestBit));
    if (kind > 1) return Status::Corrupt("key index entry: bad event kind");
    e.kind = static_cast<EventKind>(kind);
    CDCLAKE_ASSIGN_OR_RETURN(e.values, ReadString(&in));
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t ms, in.ReadVarint());
    e.processed_ms = static_cast<int64_t>(ms);
  }
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t num_locations, in.ReadVarint());
  if (num_locations > bytes.size()) return Status::Corrupt("key index entry: bad row count");
  state.locations.resize(num_locations);
  for (auto& l : state.locations) {
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t file, in.ReadVarint());
    if (file > UINT32_MAX) return Status::Corrupt("key index entry: bad file id");
    l.file = static_cast<uint32_t>(file);
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t row, in.ReadVarint());
    l.row = static_cast<int64_t>(row);
  }
  if (version == kArchivedFormatVersion) {
    ArchivedHistory& archived = state.archived.mut();
    CDCLAKE_ASSIGN_OR_RETURN(uint64_t chunks, in.ReadVarint());
    if (chunks == 0 || chunks > UINT32_MAX) {
      return Status::Corrupt("key index entry: bad chunk count");
    }
    archived.chunks = static_cast<uint32_t>(chunks);
    CDCLAKE_ASSIGN_OR_RETURN(archived.last_seq, ReadString(&in));
    CDCLAKE_ASSIGN_OR_RETURN(uint8_t has_open, in.ReadByte());
    if (has_open > 1) return Status::Corrupt("key index entry: bad open-version flag");
    if (has_open == 1) {
      CDCLAKE_ASSIGN_OR_RETURN(archived.open_values, ReadString(&in));
      CDCLAKE_ASSIGN_OR_RETURN(archived.open_start, ReadString(&in));
    }
  }
  if (!in.AtEnd()) return Status::Corrupt("key index entry: trailing bytes");
  return state;
}

}  // namespace cdclake::apply
