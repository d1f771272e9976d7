// PgCopyOut and SplitCopyLine: COPY's text format split into cells, escapes undone, NULL told
// from an empty string and from the text "\N"; against a real PostgreSQL, every cell of a COPY
// equals the same value's text from a SELECT.
#include "sources/postgres/pg_copy.h"

#include <gtest/gtest.h>

#include "sources/postgres/pg_connection.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

std::vector<std::optional<std::string>> Split(std::string_view line) {
  std::vector<std::string> cells;
  std::vector<const std::string*> row;
  SplitCopyLine(line, &cells, &row);
  std::vector<std::optional<std::string>> out;
  for (const std::string* cell : row) {
    out.push_back(cell != nullptr ? std::optional<std::string>(*cell) : std::nullopt);
  }
  return out;
}

TEST(SplitCopyLine, CellsNullsAndEscapes) {
  using V = std::vector<std::optional<std::string>>;
  EXPECT_EQ(Split("1\tabc\t\\N"), (V{"1", "abc", std::nullopt}));
  EXPECT_EQ(Split(""), (V{""}));
  EXPECT_EQ(Split("\t"), (V{"", ""}));
  EXPECT_EQ(Split("a\\tb\tc\\nd\\\\N\t\\\\x00ff"), (V{"a\tb", "c\nd\\N", "\\x00ff"}));
  EXPECT_EQ(Split("\\b\\f\\r\\v"), (V{"\b\f\r\v"}));
  // Many cells: the strings they are kept in move while the line is split.
  std::string line;
  V want;
  for (int i = 0; i < 40; ++i) {
    const std::string cell = "a value longer than the small-string buffer " + std::to_string(i);
    line += (i ? "\t" : "") + cell;
    want.push_back(cell);
  }
  EXPECT_EQ(Split(line), want);
}

TEST(PgCopyOut, EveryCellEqualsTheValuesTextFromASelect) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  const std::string select =
      "SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE 'tab\tnew\nline back\\slash ' || g END, "
      "CASE WHEN g % 7 = 0 THEN '' WHEN g % 7 = 1 THEN '\\N' ELSE repeat('x', g) END, "
      "decode(md5(g::text), 'hex'), ARRAY[g, NULL], now()::date + g "
      "FROM generate_series(1, 300) g ORDER BY g";
  auto want = db->Query(select);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(db->Execute("SET bytea_output = hex").ok());
  auto copy = PgCopyOut::Start(*db, "COPY (" + select + ") TO STDOUT");
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  size_t rows = 0;
  while (true) {
    auto row = (*copy)->Next();
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    if (*row == nullptr) break;
    ASSERT_LT(rows, want->rows.size());
    const auto& expected = want->rows[rows];
    ASSERT_EQ((*row)->size(), expected.size());
    for (size_t c = 0; c < expected.size(); ++c) {
      const std::string* got = (**row)[c];
      ASSERT_EQ(got != nullptr, expected[c].has_value()) << "row " << rows << " cell " << c;
      if (got != nullptr) {
        EXPECT_EQ(*got, *expected[c]) << "row " << rows << " cell " << c;
      }
    }
    ++rows;
  }
  EXPECT_EQ(rows, 300u);
  // The connection is usable again once the COPY has ended.
  EXPECT_TRUE(db->Query("SELECT 1").ok());
  // A statement that is not a COPY is an error naming it.
  auto wrong = PgCopyOut::Start(*db, "SELECT 1");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("did not start a COPY"), std::string::npos);
}

}  // namespace
}  // namespace cdclake::sources::postgres
