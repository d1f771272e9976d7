// Tests of KeyState's stored form: round trips with and without digests of the values.
#include "apply/key_state.h"

#include <gtest/gtest.h>

#include <optional>

#include "apply/timeline.h"
#include "data/data_type.h"
#include "data/value.h"

namespace cdclake::apply {
namespace {

using data::DataType;
using data::Value;

std::string Values(int64_t id, const std::string& name) {
  return EncodeValues({Value::Int(id), Value::Bytes(name)},
                      {DataType::Int64(), DataType::String()});
}

KeyState OneUpsert(std::string values) {
  KeyState state;
  StoredEvent e;
  e.seq = "\x01\x02";
  e.values = std::move(values);
  state.events.push_back(e);
  state.locations.push_back({7, 42});
  return state;
}

TEST(KeyStateTest, OneWholeUpsertIsStoredAsADigest) {
  const KeyState state = OneUpsert(Values(1, std::string(200, 'x')));
  const std::string full = SerializeKeyState(state);
  const std::string digest = SerializeKeyState(state, /*digest_values=*/true);
  EXPECT_LT(digest.size(), 40u);
  EXPECT_GT(full.size(), 200u);
  auto parsed = ParseKeyState(digest);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->events.size(), 1u);
  const StoredEvent& e = parsed->events[0];
  EXPECT_TRUE(e.digest);
  EXPECT_EQ(e.values, ValuesDigest(state.events[0].values));
  EXPECT_EQ(parsed->locations, state.locations);
  // The digest keeps the column count in front, as the encoding does.
  EXPECT_EQ(e.values[0], 2);
  // A digest event is the same event as its full form, and as itself; not as other values.
  EXPECT_TRUE(e.SameEvent(state.events[0]));
  EXPECT_TRUE(state.events[0].SameEvent(e));
  EXPECT_TRUE(parsed->events == ParseKeyState(digest)->events);
  EXPECT_FALSE(e.SameEvent(OneUpsert(Values(1, "y")).events[0]));
  // A digest is stored again as it is (not digested twice).
  EXPECT_EQ(SerializeKeyState(*parsed, true), digest);
  EXPECT_EQ(SerializeKeyState(*parsed), digest);
  // Without the flag the full form round-trips.
  auto again = ParseKeyState(full);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->events[0].digest);
  EXPECT_EQ(*again, state);
}

TEST(KeyStateTest, OnlyOneWholeUpsertWithOneRowBecomesADigest) {
  KeyState partial = OneUpsert(Values(1, "a"));
  partial.events[0].partial = true;
  KeyState two = OneUpsert(Values(1, "a"));
  StoredEvent later = two.events[0];
  later.seq = "\x01\x03";
  later.partial = true;
  two.events.push_back(later);
  KeyState tombstone;
  tombstone.events.push_back({"\x01\x05", EventKind::kDelete, "", 123, false});
  for (const KeyState* state : {&partial, &two, &tombstone}) {
    EXPECT_FALSE(DigestEligible(*state));
    EXPECT_EQ(SerializeKeyState(*state, true), SerializeKeyState(*state));
    auto parsed = ParseKeyState(SerializeKeyState(*state, true));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, *state);
  }
}

TEST(KeyStateTest, DigestsDifferWhenTheValuesDo) {
  EXPECT_EQ(ValuesDigest(Values(1, "a")), ValuesDigest(Values(1, "a")));
  EXPECT_NE(ValuesDigest(Values(1, "a")), ValuesDigest(Values(1, "b")));
  EXPECT_NE(ValuesDigest(Values(1, "a")), ValuesDigest(Values(2, "a")));
  // A digest is the column count and 16 bytes.
  EXPECT_EQ(ValuesDigest(Values(1, "a")).size(), 17u);
}

TEST(KeyStateTest, FoldingADigestIsRefused) {
  KeyState state = OneUpsert(Values(1, "a"));
  auto parsed = ParseKeyState(SerializeKeyState(state, true));
  ASSERT_TRUE(parsed.ok());
  TimelineSettings settings;
  settings.column_types = {DataType::Int64(), DataType::String()};
  settings.tracked = {false, true};
  settings.ignore_null = {false, false};
  settings.sequence_type = DataType::Int64();
  auto folded = Fold(settings, *parsed);
  EXPECT_FALSE(folded.ok());
  EXPECT_EQ(Fold(settings, state)->size(), 1u);
}

// Encodings of different widths compare as if the narrower had NULLs in the columns it lacks.
TEST(KeyStateTest, ValuesCompareAsIfPaddedWithNulls) {
  const std::vector<data::TypePtr> two = {DataType::Int64(), DataType::String()};
  const std::vector<data::TypePtr> three = {DataType::Int64(), DataType::String(),
                                            DataType::String()};
  auto enc2 = [&](const std::string& name) {
    return EncodeValues({Value::Int(1), Value::Bytes(name)}, two);
  };
  auto enc3 = [&](const std::string& name, std::optional<std::string> city) {
    return EncodeValues(
        {Value::Int(1), Value::Bytes(name), city ? Value::Bytes(*city) : Value::Null()}, three);
  };
  EXPECT_EQ(CompareValues(enc2("zz"), enc3("zz", std::nullopt)), 0);
  EXPECT_EQ(CompareValues(enc3("zz", std::nullopt), enc2("zz")), 0);
  EXPECT_GT(CompareValues(enc2("zz"), enc3("aa", std::nullopt)), 0);
  EXPECT_LT(CompareValues(enc3("aa", std::nullopt), enc2("zz")), 0);
  // A value where the narrower has none sorts after its NULL.
  EXPECT_LT(CompareValues(enc2("zz"), enc3("zz", "Oslo")), 0);
  EXPECT_GT(CompareValues(enc3("zz", "Oslo"), enc2("zz")), 0);
  // A longer cell in the narrower against the wider's shorter one.
  EXPECT_GT(CompareValues(enc2("zzz"), enc3("zz", "Oslo")), 0);
  // The same width: as the bytes.
  EXPECT_LT(CompareValues(enc2("a"), enc2("b")), 0);
  StoredEvent narrow, wide;
  narrow.seq = wide.seq = "s";
  narrow.values = enc2("zz");
  wide.values = enc3("zz", std::nullopt);
  EXPECT_TRUE(narrow.SameEvent(wide));
  EXPECT_FALSE(narrow < wide);
  EXPECT_FALSE(wide < narrow);
}

}  // namespace
}  // namespace cdclake::apply
