// Tests of the timeline: the SCD2 shortcut (FindLastVersion, FoldAfter) against Fold itself.
#include "apply/timeline.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>

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

TimelineSettings Settings(std::vector<bool> tracked) {
  TimelineSettings settings;
  settings.scd_type = ScdType::kType2;
  settings.column_types.assign(tracked.size(), DataType::Int64());
  settings.tracked = std::move(tracked);
  settings.ignore_null.assign(settings.tracked.size(), false);
  settings.sequence_type = DataType::Int64();
  return settings;
}

// A random timeline of `n` events at sequences 1..n: upserts of values from a small domain
// (so that runs of equal tracked values occur), some deletes, some upserts with unchanged cells.
// With `key`, column 0 holds it in every upsert (a key column, which the applier's events of
// one key always share).
std::vector<StoredEvent> RandomEvents(std::mt19937_64& rng, const TimelineSettings& settings, int n,
                                      bool partial_allowed, std::optional<int64_t> key = {}) {
  std::vector<StoredEvent> events;
  for (int i = 1; i <= n; ++i) {
    StoredEvent e;
    e.seq = Seq(i);
    if (rng() % 6 == 0) {
      e.kind = EventKind::kDelete;
    } else {
      std::vector<Value> values;
      std::vector<uint8_t> unchanged(settings.column_types.size(), 0);
      for (size_t c = 0; c < settings.column_types.size(); ++c) {
        if (c == 0 && key) {
          values.push_back(Value::Int(*key));
          continue;
        }
        values.push_back(rng() % 5 == 0 ? Value::Null()
                                        : Value::Int(static_cast<int64_t>(rng() % 3)));
        if (partial_allowed && rng() % 8 == 0) unchanged[c] = 1;
      }
      e.partial = std::find(unchanged.begin(), unchanged.end(), 1) != unchanged.end();
      e.values = EncodeValues(values, settings.column_types, e.partial ? &unchanged : nullptr);
    }
    events.push_back(std::move(e));
  }
  return events;
}

// For random timelines cut at a random point: the closed versions of the part before the cut
// are the first rows of the whole fold, and FoldAfter of its open version and the part after
// gives the rest. FindLastVersion's open version is the fold's last row.
// NaNs of different bits are equal values but different encodings: FindLastVersion must
// find the version open since the first of them, as Fold does (it does not tell a change by
// the encodings of a floating-point column).
TEST(Timeline, NaNsOfOtherBitsAreOneVersion) {
  TimelineSettings settings = Settings({true});
  settings.column_types = {DataType::Double()};
  EXPECT_FALSE(settings.TracksEveryChange());
  const double quiet = std::numeric_limits<double>::quiet_NaN();
  const double negative = -quiet;
  ASSERT_NE(std::bit_cast<uint64_t>(quiet), std::bit_cast<uint64_t>(negative));
  KeyState state;
  for (int i = 1; i <= 3; ++i) {
    StoredEvent e;
    e.seq = Seq(i);
    const double v = i == 1 ? 1.5 : (i == 2 ? quiet : negative);
    e.values = EncodeValues({Value::Double(v)}, settings.column_types);
    state.events.push_back(std::move(e));
  }
  auto rows = Fold(settings, state);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);  // 1.5, then one version of NaN
  auto last = FindLastVersion(settings, state.events);
  ASSERT_TRUE(last.ok() && last->known && last->open);
  EXPECT_EQ(last->open->start, Seq(2));
  EXPECT_EQ(*last->open, rows->back());
}

TEST(Timeline, FoldAfterTheLastVersionEqualsFoldingEverything) {
  std::mt19937_64 rng(7);
  int known = 0, open = 0, by_encodings = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<bool> tracked;
    tracked.reserve(3);
    for (int c = 0; c < 3; ++c) tracked.push_back(rng() % 3 != 0);
    // Half the rounds have a key in column 0, untracked as the applier's keys are.
    const bool with_key = rng() % 2 == 0;
    if (with_key) tracked[0] = false;
    TimelineSettings settings = Settings(tracked);
    if (with_key) settings.key = {true, false, false};
    by_encodings += settings.TracksEveryChange() ? 1 : 0;
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<StoredEvent> events = RandomEvents(
        rng, settings, n, round % 2 == 0, with_key ? std::optional<int64_t>(7) : std::nullopt);
    const size_t cut = 1 + rng() % static_cast<size_t>(n);
    KeyState before, whole;
    before.events.assign(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(cut));
    whole.events = events;
    auto old_rows = Fold(settings, before);
    auto all_rows = Fold(settings, whole);
    ASSERT_TRUE(old_rows.ok() && all_rows.ok());
    auto last = FindLastVersion(settings, before.events);
    ASSERT_TRUE(last.ok());
    if (!last->known) continue;
    ++known;
    const bool last_is_open = before.events.back().kind == EventKind::kUpsert;
    ASSERT_EQ(last->open.has_value(), last_is_open) << "round " << round;
    const size_t closed = old_rows->size() - (last->open ? 1 : 0);
    if (last->open) {
      ++open;
      ASSERT_EQ(*last->open, old_rows->back()) << "round " << round;
    }
    auto after = FoldAfter(settings, last->open, std::span<const StoredEvent>(events).subspan(cut));
    ASSERT_TRUE(after.ok());
    std::vector<FoldedRow> joined(old_rows->begin(),
                                  old_rows->begin() + static_cast<std::ptrdiff_t>(closed));
    joined.insert(joined.end(), after->begin(), after->end());
    ASSERT_EQ(joined, *all_rows) << "round " << round << ", cut " << cut << " of " << n;
  }
  // The shortcut is taken often enough for the comparison to mean something.
  EXPECT_GT(known, 1000);
  EXPECT_GT(open, 500);
  EXPECT_GT(by_encodings, 500);  // FindLastVersion compares encodings in these
}

TEST(Timeline, LastVersionIsNotKnownWhereFoldingEverythingIsNeeded) {
  TimelineSettings settings = Settings({true, false});
  KeyState state;
  StoredEvent e;
  e.seq = Seq(1);
  e.values = EncodeValues({Value::Int(1), Value::Int(2)}, settings.column_types);
  state.events.push_back(e);
  EXPECT_TRUE(FindLastVersion(settings, state.events)->known);
  TimelineSettings ignore_null = settings;
  ignore_null.ignore_null[1] = true;
  EXPECT_FALSE(FindLastVersion(ignore_null, state.events)->known);
  TimelineSettings type1 = settings;
  type1.scd_type = ScdType::kType1;
  EXPECT_FALSE(FindLastVersion(type1, state.events)->known);
  std::vector<uint8_t> unchanged = {0, 1};
  e.seq = Seq(2);
  e.partial = true;
  e.values = EncodeValues({Value::Int(1), Value::Int(2)}, settings.column_types, &unchanged);
  state.events.push_back(e);
  EXPECT_FALSE(FindLastVersion(settings, state.events)->known);
}

// A version that began several events back (untracked changes since) starts at its first event.
TEST(Timeline, LastVersionStartsAtItsFirstEvent) {
  TimelineSettings settings = Settings({true, false});
  KeyState state;
  int64_t seq = 1;
  for (auto [tracked, untracked] : {std::pair{1, 1}, {2, 1}, {2, 5}, {2, 6}}) {
    StoredEvent e;
    e.seq = Seq(seq++);
    e.values = EncodeValues({Value::Int(tracked), Value::Int(untracked)}, settings.column_types);
    state.events.push_back(e);
  }
  auto last = FindLastVersion(settings, state.events);
  ASSERT_TRUE(last.ok() && last->known && last->open);
  EXPECT_EQ(last->open->start, Seq(2));
  EXPECT_EQ(last->open->values, (std::vector<Value>{Value::Int(2), Value::Int(6)}));
}

// The first columns of stored values, when those after them are NULL (a row written before
// columns were added holds them as NULL).
TEST(Timeline, FirstColumnsOfValuesNeedNullsAfterThem) {
  const std::vector<data::TypePtr> types = {DataType::Int64(), DataType::String(),
                                            DataType::String(), DataType::Int64()};
  const std::string values =
      EncodeValues({Value::Int(1), Value::Bytes("a"), Value::Null(), Value::Null()}, types);
  auto two = FirstColumnsOfValues(values, 2, types);
  ASSERT_TRUE(two.ok() && two->has_value());
  EXPECT_EQ(**two,
            EncodeValues({Value::Int(1), Value::Bytes("a")}, {types.begin(), types.begin() + 2}));
  auto four = FirstColumnsOfValues(values, 4, types);
  ASSERT_TRUE(four.ok() && four->has_value());
  EXPECT_EQ(**four, values);
  auto one = FirstColumnsOfValues(values, 1, types);  // "a" is not NULL
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->has_value());
  auto five = FirstColumnsOfValues(values, 5, types);  // more than it holds
  ASSERT_TRUE(five.ok());
  EXPECT_FALSE(five->has_value());
}

}  // namespace
}  // namespace cdclake::apply
