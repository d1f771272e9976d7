// Tests of SCD2 history archiving: a state archived in chunks folds to the same rows and reads
// back whole, byte for byte; the open version after archived events is the fold's.
#include "apply/key_history.h"

#include <gtest/gtest.h>

#include <random>

#include "change/ordered_encoding.h"

namespace cdclake::apply {
namespace {

using data::DataType;
using data::Value;

std::string Seq(int64_t s) {
  std::string out;
  change::AppendOrdered(Value::Int(s), *DataType::Int64(), &out);
  return out;
}

TimelineSettings Settings(std::vector<bool> tracked, bool ignore_null) {
  TimelineSettings settings;
  settings.scd_type = ScdType::kType2;
  settings.column_types.assign(tracked.size(), DataType::Int64());
  settings.tracked = std::move(tracked);
  settings.ignore_null.assign(settings.tracked.size(), ignore_null);
  settings.sequence_type = DataType::Int64();
  return settings;
}

// `n` events at sequences 1..n: upserts from a small domain (runs of equal tracked values,
// in-place changes), some deletes, some with unchanged cells; one location per folded row.
KeyState RandomState(std::mt19937_64& rng, const TimelineSettings& settings, int n) {
  KeyState state;
  for (int i = 1; i <= n; ++i) {
    StoredEvent e;
    e.seq = Seq(i);
    if (rng() % 6 == 0) {
      e.kind = EventKind::kDelete;
      e.processed_ms = i;
    } else {
      std::vector<Value> values;
      std::vector<uint8_t> unchanged(settings.column_types.size(), 0);
      for (size_t c = 0; c < settings.column_types.size(); ++c) {
        values.push_back(rng() % 5 == 0 ? Value::Null()
                                        : Value::Int(static_cast<int64_t>(rng() % 3)));
        if (rng() % 10 == 0) unchanged[c] = 1;
      }
      e.partial = std::find(unchanged.begin(), unchanged.end(), 1) != unchanged.end();
      e.values = EncodeValues(values, settings.column_types, e.partial ? &unchanged : nullptr);
    }
    state.events.push_back(std::move(e));
  }
  auto rows = Fold(settings, state);
  EXPECT_TRUE(rows.ok());
  for (size_t r = 0; r < rows->size(); ++r) {
    state.locations.push_back({static_cast<uint32_t>(r % 3), static_cast<int64_t>(100 + r)});
  }
  return state;
}

// The rows FoldAfter makes of an archived state: its open version, then its events'.
std::vector<FoldedRow> FoldTail(const TimelineSettings& settings, const KeyState& state) {
  auto open = ArchivedOpenVersion(settings, state);
  EXPECT_TRUE(open.ok());
  auto rows = FoldAfter(settings, *open, state.events);
  EXPECT_TRUE(rows.ok());
  return *rows;
}

void Apply(KeyIndex& index, const IndexWriteBatch& batch) {
  ASSERT_TRUE(index.Write(batch).ok());
}

// Random histories archived once or twice at random points: the state keeps the last events
// and as many locations as FoldAfter makes rows of them; those rows are the whole fold's last
// ones; the chunks and the state read back whole are the original state exactly.
TEST(KeyHistoryTest, ArchivedHistoriesFoldAndReadBackAsTheWhole) {
  std::mt19937_64 rng(11);
  int archived_twice = 0, open_after = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<bool> tracked = {rng() % 2 == 0, rng() % 2 == 0, true};
    const TimelineSettings settings = Settings(tracked, round % 4 == 0);
    const int n = 4 + static_cast<int>(rng() % 40);
    const KeyState whole = RandomState(rng, settings, n);
    auto all_rows = Fold(settings, whole);
    ASSERT_TRUE(all_rows.ok());
    auto index = NewMemoryKeyIndex();
    KeyState state = whole;
    const HistoryTail tail{1 + rng() % 4, 1 + rng() % 4};
    // The batch's oldest event for the key: anywhere, or none (a key whose rows moved).
    for (int pass = 0; pass < 2; ++pass) {
      const std::string first_seq = rng() % 3 == 0 ? "" : Seq(1 + static_cast<int64_t>(rng() % n));
      IndexWriteBatch batch;
      const size_t before = state.events.size();
      const bool in_entry = first_seq.empty() || first_seq >= state.events.front().seq;
      ASSERT_TRUE(ArchiveHistory(settings, "key", tail, first_seq, 0, &state, &batch).ok());
      Apply(*index, batch);
      if (state.events.size() == before) {
        EXPECT_TRUE(batch.empty());
        continue;
      }
      ASSERT_EQ(batch.puts.size(), 1u);
      EXPECT_EQ(batch.puts[0].first, HistoryChunkKey("key", state.archived->chunks - 1));
      // Kept: at least tail.keep, and every event from first_seq on.
      EXPECT_GE(state.events.size(), tail.keep);
      EXPECT_GE(before - state.events.size(), tail.min_chunk);
      if (in_entry && !first_seq.empty()) {
        EXPECT_LE(state.events.front().seq, first_seq);
      }
      EXPECT_EQ(state.archived->last_seq,
                whole.events[whole.events.size() - state.events.size() - 1].seq);
      // The stored form round-trips with its archive.
      auto parsed = ParseKeyState(SerializeKeyState(state));
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
      EXPECT_EQ(*parsed, state);
      archived_twice += pass == 1;
    }
    if (state.archived->chunks == 0) continue;
    open_after += state.archived->open_values.has_value();
    // The tail's rows are the whole fold's last rows, one location each.
    std::vector<FoldedRow> rows = FoldTail(settings, state);
    ASSERT_EQ(rows.size(), state.locations.size());
    ASSERT_LE(rows.size(), all_rows->size());
    const size_t skip = all_rows->size() - rows.size();
    for (size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(rows[r], (*all_rows)[skip + r]) << round;
    // OpenVersionAfter of the archive and the tail's first events: the fold's open version.
    const size_t cut = rng() % (state.events.size() + 1);
    auto open = ArchivedOpenVersion(settings, state);
    ASSERT_TRUE(open.ok());
    auto after = OpenVersionAfter(settings, *open, std::span(state.events).first(cut));
    ASSERT_TRUE(after.ok());
    KeyState prefix;
    prefix.events.assign(
        whole.events.begin(),
        whole.events.begin() +
            static_cast<std::ptrdiff_t>(whole.events.size() - state.events.size() + cut));
    auto prefix_rows = Fold(settings, prefix);
    ASSERT_TRUE(prefix_rows.ok());
    std::optional<FoldedRow> want;
    if (!prefix_rows->empty() && !prefix_rows->back().end) want = prefix_rows->back();
    EXPECT_EQ(*after, want) << round;
    // Read back whole.
    KeyState read = state;
    const std::string keys[] = {"key"};
    KeyState* const states[] = {&read};
    ASSERT_TRUE(ReadWholeHistories(*index, keys, states).ok());
    EXPECT_EQ(read, whole) << round;
  }
  EXPECT_GT(archived_twice, 100);
  EXPECT_GT(open_after, 100);
}

// A state made whole (its chunks replaced) is archived into chunk 0 again, and the chunks past
// the new ones are deleted; one too short to archive deletes them all.
TEST(KeyHistoryTest, ReplacedChunksAreOverwrittenOrDeleted) {
  const TimelineSettings settings = Settings({true, true, true}, false);
  std::mt19937_64 rng(3);
  KeyState state = RandomState(rng, settings, 30);
  IndexWriteBatch batch;
  ASSERT_TRUE(ArchiveHistory(settings, "k1", HistoryTail{4, 8}, "", 5, &state, &batch).ok());
  ASSERT_EQ(batch.puts.size(), 1u);
  EXPECT_EQ(batch.puts[0].first, HistoryChunkKey("k1", 0));
  EXPECT_EQ(batch.deletes,
            (std::vector<std::string>{HistoryChunkKey("k1", 1), HistoryChunkKey("k1", 2),
                                      HistoryChunkKey("k1", 3), HistoryChunkKey("k1", 4)}));
  EXPECT_EQ(state.events.size(), 4u);
  EXPECT_EQ(state.archived->chunks, 1u);

  KeyState short_state = RandomState(rng, settings, 5);
  IndexWriteBatch none;
  ASSERT_TRUE(ArchiveHistory(settings, "k2", HistoryTail{4, 8}, "", 2, &short_state, &none).ok());
  EXPECT_TRUE(none.puts.empty());
  EXPECT_EQ(none.deletes,
            (std::vector<std::string>{HistoryChunkKey("k2", 0), HistoryChunkKey("k2", 1)}));
  EXPECT_EQ(short_state.archived->chunks, 0u);
}

TEST(KeyHistoryTest, ChunkEntriesSortByKeyThenNumber) {
  EXPECT_EQ(HistoryChunkKey("ab", 258), std::string("hab\0\0\x01\x02", 7));
  EXPECT_LT(HistoryChunkKey("ab", 255), HistoryChunkKey("ab", 256));
  KeyState state;
  state.archived.mut().chunks = 1;
  state.archived.mut().last_seq = Seq(5);
  EXPECT_TRUE(ReachesArchive(state, Seq(5)));  // a tie with the last archived event
  EXPECT_TRUE(ReachesArchive(state, Seq(1)));
  EXPECT_FALSE(ReachesArchive(state, Seq(6)));
  state.archived.mut().chunks = 0;
  EXPECT_FALSE(ReachesArchive(state, Seq(1)));
}

TEST(KeyHistoryTest, AMissingChunkIsCorrupt) {
  const TimelineSettings settings = Settings({true, false, true}, false);
  std::mt19937_64 rng(5);
  KeyState state = RandomState(rng, settings, 40);
  auto index = NewMemoryKeyIndex();
  for (size_t keep : {20, 4}) {
    IndexWriteBatch batch;
    ASSERT_TRUE(ArchiveHistory(settings, "k", HistoryTail{keep, 8}, "", 0, &state, &batch).ok());
    Apply(*index, batch);
  }
  ASSERT_EQ(state.archived->chunks, 2u);
  Apply(*index, IndexWriteBatch{{}, {HistoryChunkKey("k", 1)}});
  const std::string keys[] = {"k"};
  KeyState* const states[] = {&state};
  Status read = ReadWholeHistories(*index, keys, states);
  EXPECT_EQ(read.code(), StatusCode::kCorrupt);
  EXPECT_NE(read.message().find("chunk 1 of an SCD2 key's 2 archived chunks is missing"),
            std::string::npos)
      << read.ToString();
}

}  // namespace
}  // namespace cdclake::apply
