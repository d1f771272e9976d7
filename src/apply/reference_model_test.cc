// Tests of the reference model itself (testing/reference_model.h): it reproduces the four
// autocdc-docs examples, and one hand case for each consequence SEMANTICS §2-§4 lists.
#include "apply/testing/reference_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace cdclake::apply::testing {
namespace {

using data::DataType;
using data::Value;

// --- the autocdc-docs examples -------------------------------------------------------------

class DocsModelTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DocsModelTest, ModelReproducesExpectedInAnyInputOrder) {
  auto ex = LoadDocsExample(CDCLAKE_SHARED_DIR, GetParam());
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  ModelFlow flow = DocsModelFlow(*ex);
  std::vector<data::Field> fields = ModelTargetFields(flow);
  ASSERT_EQ(fields.size(), ex->expected_fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(fields[i].name, ex->expected_fields[i].name);
    EXPECT_TRUE(fields[i].type->Equals(*ex->expected_fields[i].type)) << fields[i].name;
  }
  std::vector<ModelEvent> events = DocsModelEvents(*ex, flow);
  ASSERT_EQ(events.size(), ex->input_rows.size());
  std::vector<ModelRow> got = ReferenceApply(flow, events);
  EXPECT_TRUE(SameModelRows(got, ex->expected_rows, fields))
      << "model:\n"
      << FormatModelRows(got, fields) << "expected:\n"
      << FormatModelRows(ex->expected_rows, fields);
  // §1: the order of arrival does not matter, duplicates count once.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<ModelEvent> shuffled = events;
    if (round % 2 == 1) shuffled.insert(shuffled.end(), events.begin(), events.end());
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    ASSERT_TRUE(SameModelRows(ReferenceApply(flow, shuffled), ex->expected_rows, fields))
        << "round " << round;
  }
}

INSTANTIATE_TEST_SUITE_P(AutoCdcDocs, DocsModelTest,
                         ::testing::Values("scd1-users", "scd1-users-truncate", "scd2-users",
                                           "scd2-users-track-history-except-city"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The examples must also tell the flows apart: without the truncate the truncate example's
// result is the plain one, and SCD2 without TRACK HISTORY keeps the city versions.
TEST(DocsModelTest, ExamplesDifferFromEachOther) {
  auto plain = LoadDocsExample(CDCLAKE_SHARED_DIR, "scd1-users");
  auto trunc = LoadDocsExample(CDCLAKE_SHARED_DIR, "scd1-users-truncate");
  ASSERT_TRUE(plain.ok() && trunc.ok());
  ModelFlow flow = DocsModelFlow(*trunc);
  std::vector<ModelEvent> events = DocsModelEvents(*trunc, flow);
  ASSERT_EQ(events.back().kind, EventKind::kTruncate);
  events.pop_back();
  EXPECT_TRUE(
      SameModelRows(ReferenceApply(flow, events), plain->expected_rows, ModelTargetFields(flow)));
  EXPECT_FALSE(SameModelRows(plain->expected_rows, trunc->expected_rows, ModelTargetFields(flow)));
}

// --- hand cases ------------------------------------------------------------------------------

Value S(const char* s) {
  return s == nullptr ? Value::Null() : Value::Bytes(s);
}
Value I(int64_t v) {
  return Value::Int(v);
}
const Value kNull = Value::Null();

// id bigint, name string, city string; key id; sequence bigint.
ModelFlow PeopleFlow(int scd_type) {
  ModelFlow flow;
  flow.columns = {{"id", DataType::Int64(), false},
                  {"name", DataType::String(), true},
                  {"city", DataType::String(), true}};
  flow.keys = {"id"};
  flow.sequence_type = DataType::Int64();
  flow.scd_type = scd_type;
  return flow;
}

ModelEvent U(int64_t seq, int64_t id, const char* name, const char* city) {
  return {EventKind::kUpsert, I(seq), {I(id), S(name), S(city)}};
}
ModelEvent D(int64_t seq, int64_t id) {
  return {EventKind::kDelete, I(seq), {I(id), kNull, kNull}};
}
ModelEvent T(int64_t seq) {
  return {EventKind::kTruncate, I(seq), {kNull, kNull, kNull}};
}

ModelRow R(int64_t id, const char* name, const char* city) {
  return {I(id), S(name), S(city)};
}
// An SCD2 version; end < 0 means current (NULL __END_AT).
ModelRow V(int64_t id, const char* name, const char* city, int64_t start, int64_t end) {
  return {I(id), S(name), S(city), I(start), end < 0 ? kNull : I(end)};
}

// Applies `events` in every order (all permutations when few, else shuffles) and checks that
// each gives `expected`.
void ExpectModel(const ModelFlow& flow, const std::vector<ModelEvent>& events,
                 const std::vector<ModelRow>& expected) {
  const std::vector<data::Field> fields = ModelTargetFields(flow);
  std::vector<ModelRow> got = ReferenceApply(flow, events);
  ASSERT_TRUE(SameModelRows(got, expected, fields)) << "model:\n"
                                                    << FormatModelRows(got, fields) << "expected:\n"
                                                    << FormatModelRows(expected, fields);
  std::vector<size_t> order(events.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  int rounds = 0;
  do {
    std::vector<ModelEvent> permuted;
    for (size_t i : order) permuted.push_back(events[i]);
    ASSERT_TRUE(SameModelRows(ReferenceApply(flow, permuted), expected, fields))
        << "order " << rounds << " differs";
  } while (std::next_permutation(order.begin(), order.end()) && ++rounds < 5040);
}

// §3 upsert: the row becomes the event's values.
TEST(ReferenceModelScd1Test, UpsertReplacesTheRow) {
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), U(2, 1, "b", "y"), U(1, 2, "c", nullptr)},
              {R(1, "b", "y"), R(2, "c", nullptr)});
}

// §3: an event older than what was applied for its key changes nothing.
TEST(ReferenceModelScd1Test, OlderEventChangesNothing) {
  ExpectModel(PeopleFlow(1), {U(5, 1, "new", "x"), U(3, 1, "old", "y")}, {R(1, "new", "x")});
}

// §3: an upsert older than a delete never resurrects the row.
TEST(ReferenceModelScd1Test, UpsertOlderThanDeleteDoesNotResurrect) {
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), D(5, 1), U(3, 1, "late", "y")}, {});
  // Also for a key never seen before the delete's arrival.
  ExpectModel(PeopleFlow(1), {D(5, 1), U(3, 1, "late", "y")}, {});
}

// §3: an upsert newer than a delete brings the row back.
TEST(ReferenceModelScd1Test, UpsertNewerThanDeleteBringsRowBack) {
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), D(5, 1), U(7, 1, "back", "z")},
              {R(1, "back", "z")});
}

// §3: a truncate at s removes rows whose last event is older than s and keeps those changed
// after s, whatever the arrival order (ExpectModel tries them all).
TEST(ReferenceModelScd1Test, TruncateRemovesOlderRowsAndKeepsNewerOnes) {
  ExpectModel(PeopleFlow(1),
              {U(1, 1, "a", "x"), U(2, 2, "b", "y"), U(5, 2, "b2", "y2"), U(4, 3, "c", "z"), T(3)},
              {R(2, "b2", "y2"), R(3, "c", "z")});
}

// A truncate at the same sequence as an upsert wins like a delete; a later upsert survives.
TEST(ReferenceModelScd1Test, TruncateBeatsUpsertAtSameSequence) {
  ExpectModel(PeopleFlow(1), {U(3, 1, "a", "x"), T(3), U(3, 2, "b", "y"), U(4, 2, "b4", "y4")},
              {R(2, "b4", "y4")});
}

// An upsert older than a truncate never brings its row back, even for a new key.
TEST(ReferenceModelScd1Test, UpsertOlderThanTruncateDoesNotResurrect) {
  ExpectModel(PeopleFlow(1), {T(5), U(2, 1, "a", "x"), U(6, 2, "b", "y")}, {R(2, "b", "y")});
}

// §2 ties: a delete and an upsert at the same sequence: the delete wins.
TEST(ReferenceModelScd1Test, DeleteBeatsUpsertAtSameSequence) {
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), U(4, 1, "b", "y"), D(4, 1)}, {});
}

// §2 ties: of two different upserts the one whose encoding sorts last wins, compared column
// by column in target order, NULL first.
TEST(ReferenceModelScd1Test, DifferentUpsertsAtSameSequenceLastEncodingWins) {
  ExpectModel(PeopleFlow(1), {U(2, 1, "b", "a"), U(2, 1, "a", "z")}, {R(1, "b", "a")});
  ExpectModel(PeopleFlow(1), {U(2, 1, nullptr, "z"), U(2, 1, "", "a")}, {R(1, "", "a")});
  ExpectModel(PeopleFlow(1), {U(2, 1, "a", nullptr), U(2, 1, "a", "")}, {R(1, "a", "")});
  ExpectModel(PeopleFlow(1), {U(2, 1, "ab", "x"), U(2, 1, "b", "x"), U(2, 1, "a", "y")},
              {R(1, "b", "x")});
}

// §2: identical events are one event.
TEST(ReferenceModelScd1Test, DuplicatesAreOneEvent) {
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), U(1, 1, "a", "x"), D(2, 1), D(2, 1)}, {});
}

ModelFlow IgnoreNulls(ModelFlow flow, std::set<std::string> columns = {"name", "city"}) {
  flow.ignore_null = std::move(columns);
  return flow;
}

// §3 IGNORE NULL UPDATES: a NULL keeps the current value when a row exists.
TEST(ReferenceModelScd1Test, IgnoreNullUpdatesKeepsCurrentValue) {
  ExpectModel(IgnoreNulls(PeopleFlow(1)), {U(1, 1, "a", "x"), U(2, 1, nullptr, "y")},
              {R(1, "a", "y")});
  // Without the setting the NULL is stored.
  ExpectModel(PeopleFlow(1), {U(1, 1, "a", "x"), U(2, 1, nullptr, "y")}, {R(1, nullptr, "y")});
  // Only the listed columns keep their value.
  ExpectModel(IgnoreNulls(PeopleFlow(1), {"name"}), {U(1, 1, "a", "x"), U(2, 1, nullptr, nullptr)},
              {R(1, "a", nullptr)});
}

// §3: the first upsert after no row stores NULLs as given (first ever, after a delete, after
// a truncate).
TEST(ReferenceModelScd1Test, IgnoreNullUpdatesFirstUpsertStoresNulls) {
  ModelFlow flow = IgnoreNulls(PeopleFlow(1));
  ExpectModel(flow, {U(1, 1, nullptr, "x")}, {R(1, nullptr, "x")});
  ExpectModel(flow, {U(1, 1, "a", "x"), D(2, 1), U(3, 1, nullptr, "y")}, {R(1, nullptr, "y")});
  ExpectModel(flow, {U(1, 1, "a", "x"), T(2), U(3, 1, "b", nullptr)}, {R(1, "b", nullptr)});
}

// §1 with IGNORE NULL UPDATES: a late older event fills the NULLs that later events left alone,
// because the result is the events applied in sequence order.
TEST(ReferenceModelScd1Test, IgnoreNullUpdatesLateEventInSequenceOrder) {
  ModelFlow flow = IgnoreNulls(PeopleFlow(1));
  ExpectModel(flow, {U(2, 1, nullptr, "y"), U(1, 1, "a", "x")}, {R(1, "a", "y")});
  ExpectModel(flow, {U(3, 1, "c", nullptr), U(2, 1, nullptr, "y"), U(1, 1, "a", "x")},
              {R(1, "c", "y")});
}

// §2 with IGNORE NULL UPDATES: the losing upsert of a tie is discarded, not merged.
TEST(ReferenceModelScd1Test, IgnoreNullUpdatesTieLoserIsNotMerged) {
  ExpectModel(IgnoreNulls(PeopleFlow(1)),
              {U(1, 1, "a", "x"), U(2, 1, nullptr, "y"), U(2, 1, "b", nullptr)}, {R(1, "b", "x")});
}

ModelFlow Tracked(ModelFlow flow, std::set<std::string> columns) {
  flow.tracked = std::move(columns);
  return flow;
}

// §4: an upsert with no open version opens one at its sequence, __END_AT NULL.
TEST(ReferenceModelScd2Test, FirstUpsertOpensVersion) {
  ExpectModel(PeopleFlow(2), {U(3, 1, "a", "x")}, {V(1, "a", "x", 3, -1)});
}

// §4: tracked columns differ: close the open version at this sequence and open a new one.
TEST(ReferenceModelScd2Test, TrackedChangeClosesAndOpens) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(3, 1, "a", "y")},
              {V(1, "a", "x", 1, 3), V(1, "a", "y", 3, -1)});
}

// §4: only untracked columns differ: the open version changes in place, keeping __START_AT.
TEST(ReferenceModelScd2Test, UntrackedChangeUpdatesInPlace) {
  ModelFlow flow = Tracked(PeopleFlow(2), {"name"});
  ExpectModel(flow, {U(1, 1, "a", "x"), U(3, 1, "a", "y")}, {V(1, "a", "y", 1, -1)});
  ExpectModel(flow, {U(1, 1, "a", "x"), U(3, 1, "a", "y"), U(4, 1, "b", "y")},
              {V(1, "a", "y", 1, 4), V(1, "b", "y", 4, -1)});
}

// §4: an upsert identical to the open version does nothing.
TEST(ReferenceModelScd2Test, IdenticalUpsertDoesNothing) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(3, 1, "a", "x"), U(3, 1, "a", "x")},
              {V(1, "a", "x", 1, -1)});
}

// §4: a delete closes the open version and adds no row; with no open version it does nothing.
TEST(ReferenceModelScd2Test, DeleteClosesOpenVersion) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), D(4, 1)}, {V(1, "a", "x", 1, 4)});
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), D(4, 1), D(6, 1)}, {V(1, "a", "x", 1, 4)});
  ExpectModel(PeopleFlow(2), {D(1, 1)}, {});
  ExpectModel(PeopleFlow(2), {D(1, 1), U(2, 1, "a", "x")}, {V(1, "a", "x", 2, -1)});
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), D(3, 1), U(5, 1, "a", "x")},
              {V(1, "a", "x", 1, 3), V(1, "a", "x", 5, -1)});
}

// §4: a late event lands where sequence order puts it, splitting the version it falls into.
TEST(ReferenceModelScd2Test, LateEventSplitsVersion) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(5, 1, "c", "x"), U(3, 1, "b", "x")},
              {V(1, "a", "x", 1, 3), V(1, "b", "x", 3, 5), V(1, "c", "x", 5, -1)});
  // A late delete inside the history closes the version early; the next upsert reopens.
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(5, 1, "c", "x"), D(3, 1)},
              {V(1, "a", "x", 1, 3), V(1, "c", "x", 5, -1)});
}

// §4: versions after a late event are recomputed when they depended on it (IGNORE NULL
// UPDATES overlays, in-place changes).
TEST(ReferenceModelScd2Test, LateEventRecomputesLaterVersions) {
  ModelFlow flow = IgnoreNulls(Tracked(PeopleFlow(2), {"name"}));
  // @1 (a,x); @5 (NULL,y) is an in-place change to (a,y). The late @3 (b,NULL) becomes (b,x)
  // and opens a version, so @5 now updates that one in place to (b,y).
  ExpectModel(flow, {U(1, 1, "a", "x"), U(5, 1, nullptr, "y"), U(3, 1, "b", nullptr)},
              {V(1, "a", "x", 1, 3), V(1, "b", "y", 3, -1)});
}

// §4 with IGNORE NULL UPDATES: the candidate is the open version overlaid with the event's
// non-NULL values; with no open version the event's values as given.
TEST(ReferenceModelScd2Test, IgnoreNullUpdatesOverlaysOpenVersion) {
  ModelFlow flow = IgnoreNulls(PeopleFlow(2));
  ExpectModel(flow, {U(1, 1, "a", "x"), U(2, 1, nullptr, "y"), U(3, 1, "a", nullptr)},
              {V(1, "a", "x", 1, 2), V(1, "a", "y", 2, -1)});
  ExpectModel(flow, {U(1, 1, "a", "x"), D(2, 1), U(3, 1, nullptr, "y")},
              {V(1, "a", "x", 1, 2), V(1, nullptr, "y", 3, -1)});
}

// §4: nothing in a batch is collapsed away: three changes are three versions.
TEST(ReferenceModelScd2Test, ThreeChangesAreThreeVersions) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(2, 1, "b", "x"), U(3, 1, "c", "x")},
              {V(1, "a", "x", 1, 2), V(1, "b", "x", 2, 3), V(1, "c", "x", 3, -1)});
}

// §2 ties in SCD2: the delete beats the upsert; the larger upsert wins.
TEST(ReferenceModelScd2Test, TiesResolveAsInScd1) {
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(3, 1, "b", "x"), D(3, 1)},
              {V(1, "a", "x", 1, 3)});
  ExpectModel(PeopleFlow(2), {U(1, 1, "a", "x"), U(3, 1, "b", "x"), U(3, 1, "c", nullptr)},
              {V(1, "a", "x", 1, 3), V(1, "c", nullptr, 3, -1)});
}

// §2: a STRUCT sequence compares field by field; __START_AT/__END_AT are structs.
TEST(ReferenceModelScd2Test, StructSequenceOrdersFieldByField) {
  ModelFlow flow = PeopleFlow(2);
  flow.sequence_type = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::Int32()}});
  auto seq = [](int64_t a, int64_t b) { return Value::Nested({I(a), I(b)}); };
  std::vector<ModelEvent> events = {{EventKind::kUpsert, seq(2, 0), {I(1), S("c"), S("x")}},
                                    {EventKind::kUpsert, seq(1, 9), {I(1), S("b"), S("x")}},
                                    {EventKind::kUpsert, seq(1, 5), {I(1), S("a"), S("x")}}};
  ExpectModel(flow, events,
              {{I(1), S("a"), S("x"), seq(1, 5), seq(1, 9)},
               {I(1), S("b"), S("x"), seq(1, 9), seq(2, 0)},
               {I(1), S("c"), S("x"), seq(2, 0), kNull}});
}

// A string sequence compares bytewise: "10" < "9", "" < "a".
TEST(ReferenceModelScd1Test, StringSequenceOrdersBytewise) {
  ModelFlow flow = PeopleFlow(1);
  flow.sequence_type = DataType::String();
  ExpectModel(flow,
              {{EventKind::kUpsert, S("9"), {I(1), S("nine"), kNull}},
               {EventKind::kUpsert, S("10"), {I(1), S("ten"), kNull}},
               {EventKind::kUpsert, S(""), {I(2), S("empty"), kNull}},
               {EventKind::kUpsert, S("a"), {I(2), S("a"), kNull}}},
              {R(1, "nine", nullptr), R(2, "a", nullptr)});
}

// Composite keys: rows are per key tuple.
TEST(ReferenceModelScd1Test, CompositeKeys) {
  ModelFlow flow;
  flow.columns = {{"a", DataType::Int32(), false},
                  {"b", DataType::String(), false},
                  {"v", DataType::Int64(), true}};
  flow.keys = {"a", "b"};
  flow.sequence_type = DataType::Int64();
  ExpectModel(flow,
              {{EventKind::kUpsert, I(1), {I(1), S("x"), I(10)}},
               {EventKind::kUpsert, I(1), {I(1), S("y"), I(20)}},
               {EventKind::kUpsert, I(2), {I(1), S("x"), I(11)}},
               {EventKind::kDelete, I(3), {I(1), S("y"), kNull}}},
              {{I(1), S("x"), I(11)}});
}

// §4 invariants on random histories: per key no overlapping versions, no NULL __START_AT,
// __START_AT < __END_AT, at most one current version and it is the last; and the model does
// not depend on the order of its input.
TEST(ReferenceModelScd2Test, RandomHistoriesAreWellFormed) {
  std::mt19937_64 rng(11);
  const char* names[] = {nullptr, "a", "b"};
  for (int round = 0; round < 500; ++round) {
    ModelFlow flow = PeopleFlow(2);
    if (round % 3 == 1) flow = Tracked(flow, {"name"});
    if (round % 2 == 1) flow = IgnoreNulls(flow);
    std::vector<ModelEvent> events;
    int n = 1 + static_cast<int>(rng() % 10);
    for (int i = 0; i < n; ++i) {
      int64_t seq = static_cast<int64_t>(rng() % 6), id = static_cast<int64_t>(rng() % 2);
      if (rng() % 4 == 0) {
        events.push_back(D(seq, id));
      } else {
        events.push_back(U(seq, id, names[rng() % 3], names[rng() % 3]));
      }
    }
    std::vector<data::Field> fields = ModelTargetFields(flow);
    std::vector<ModelRow> rows = SortModelRows(ReferenceApply(flow, events), fields);
    for (const ModelRow& r : rows) {
      ASSERT_FALSE(r[3].is_null());
      if (!r[4].is_null()) {
        ASSERT_LT(r[3].int_value(), r[4].int_value());
      }
    }
    for (int64_t id = 0; id < 2; ++id) {
      std::vector<std::pair<int64_t, int64_t>> spans;  // start, end (INT64_MAX when current)
      for (const ModelRow& r : rows) {
        if (r[0].int_value() != id) continue;
        spans.push_back({r[3].int_value(), r[4].is_null() ? INT64_MAX : r[4].int_value()});
      }
      std::sort(spans.begin(), spans.end());
      for (size_t i = 1; i < spans.size(); ++i) {
        ASSERT_LE(spans[i - 1].second, spans[i].first) << "round " << round;
      }
    }
    std::vector<ModelEvent> shuffled = events;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    ASSERT_TRUE(SameModelRows(ReferenceApply(flow, shuffled), rows, fields)) << "round " << round;
  }
}

}  // namespace
}  // namespace cdclake::apply::testing
