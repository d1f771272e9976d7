// The two-halves Debezium reader: whatever the file, its rows, rejected records, positions,
// counts and tail are those of reading it front to back; and a file that can be split is.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "data/value_format.h"
#include "sources/debezium/debezium_range_internal.h"
#include "sources/debezium/debezium_test_util_internal.h"
#include "sources/files/change_file_test_util_internal.h"

namespace cdclake::sources {
namespace {

using testing::DebeziumFixture;
using testing::FixtureText;

// Everything a reader gave, batch boundaries aside: one line per row (schema, values,
// position, raw text, unchanged cells), one per rejected record, the counts and the tail.
struct Flat {
  std::vector<std::string> rows;
  std::vector<std::string> rejected;
  std::string tail;
  bool split = false;
};

Flat Read(io::FileSystem& fs, const std::string& path, int64_t split_from, int64_t batch_rows) {
  DebeziumOptions options;
  options.split_from_bytes = split_from;
  options.batch_rows = batch_rows;
  Flat out;
  auto reader = DebeziumReader::Open(fs, path, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  for (;;) {
    auto next = (*reader)->Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    testing::DescribeBatch(**next, &out.rows, &out.rejected);
  }
  const DebeziumCounts& n = (*reader)->counts();
  out.tail = std::to_string(n.tombstones) + "/" + std::to_string(n.messages) + "/" +
             std::to_string(n.transaction_records) + "/" + std::to_string(n.schema_changes);
  out.tail += testing::DescribeTail((*reader)->Pending(), (*reader)->UnterminatedLast());
  out.split = internal::DecodedInHalves(**reader);
  return out;
}

void ExpectSame(const Flat& split, const Flat& whole) {
  ASSERT_EQ(split.rows.size(), whole.rows.size());
  for (size_t i = 0; i < whole.rows.size(); ++i) ASSERT_EQ(split.rows[i], whole.rows[i]) << i;
  EXPECT_EQ(split.rejected, whole.rejected);
  EXPECT_EQ(split.tail, whole.tail);
}

std::string Event(int64_t id, int64_t lsn, const std::string& extra) {
  return R"({"before":null,"after":{"id":)" + std::to_string(id) + R"(,"name":"n)" +
         std::to_string(id) + "\"" + extra + R"(},"source":{"connector":"postgresql","db":"d",)" +
         R"("schema":"public","table":"t","lsn":)" + std::to_string(lsn) +
         R"(,"ts_ms":1},"op":"u","ts_ms":2})";
}

TEST(SplitReader, OneRecordPerLineIsDecodedInHalvesWithTheSameResult) {
  io::MemoryFileSystem fs;
  std::string text;
  for (int i = 0; i < 3000; ++i) text += Event(i % 700, i + 1, "") + "\n";
  ASSERT_TRUE(fs.WriteFile("e.json", text).ok());
  for (int64_t batch_rows : {100, 1 << 16}) {
    Flat whole = Read(fs, "e.json", 0, batch_rows);
    Flat split = Read(fs, "e.json", 1, batch_rows);
    EXPECT_FALSE(whole.split);
    EXPECT_TRUE(split.split);
    EXPECT_EQ(whole.rows.size(), 3000u);
    ExpectSame(split, whole);
  }
  // Below the size it is read front to back.
  EXPECT_FALSE(Read(fs, "e.json", static_cast<int64_t>(text.size()) + 1, 100).split);
}

// Random files of good and bad lines, pretty-printed records, tombstones, a column that appears
// late, CRLF endings and an unterminated or unfinished last record: split or not, the same.
TEST(SplitReader, RandomFilesReadAsFrontToBack) {
  const int cases = 60;
  int split_cases = 0;
  for (int seed = 1; seed <= cases; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    const bool crlf = pick(4) == 0;
    const bool late_column = pick(3) == 0;
    const std::string nl = crlf ? "\r\n" : "\n";
    std::string text;
    const int lines = 200 + pick(400);
    for (int i = 0; i < lines; ++i) {
      std::string extra;
      if (late_column && i > lines * 2 / 3) extra = R"(,"added":)" + std::to_string(i);
      switch (pick(12)) {
        case 0:
          text += R"({"before":null,"after":{"id":)" + std::to_string(i) + "}" + nl;  // cut short
          break;
        case 1:
          text += "not json at all" + nl;
          break;
        case 2:
          text += "null" + nl;  // a tombstone
          break;
        case 3: {
          // Pretty-printed over several lines.
          std::string e = Event(i, i + 1, extra);
          std::string pretty;
          for (char c : e) {
            pretty += c;
            if (c == ',') pretty += nl + "  ";
          }
          text += pretty + nl;
          break;
        }
        case 4:
          text += R"({"after":{"id":1},"op":"x","source":{"lsn":1}})" + nl;  // unknown op
          break;
        default:
          text += Event(pick(50), i + 1, extra) + nl;
      }
    }
    switch (pick(3)) {
      case 0:
        text += Event(1, 99999, "");  // no line ending
        break;
      case 1:
        text += R"({"before":null,"after":{"id":)";  // its writer is not done
        break;
      default:
        break;
    }
    io::MemoryFileSystem fs;
    ASSERT_TRUE(fs.WriteFile("r.json", text).ok());
    const int64_t batch_rows = 1 + pick(300);
    Flat whole = Read(fs, "r.json", 0, batch_rows);
    Flat split = Read(fs, "r.json", 1, batch_rows);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectSame(split, whole);
    split_cases += split.split ? 1 : 0;
  }
  // Both ways are exercised: files that join up, and files read front to back after all.
  EXPECT_GT(split_cases, 0);
  EXPECT_LT(split_cases, cases);
  std::printf("split %d of %d random files\n", split_cases, cases);
}

// Real connectors' events, pretty-printed and one after another, many times over.
TEST(SplitReader, FixturesRepeatedReadAsFrontToBack) {
  for (const char* fixture :
       {"mysql/dbz-test-serde-update.json", "mysql/docs-update-payload.json",
        "postgresql/blog-toast-placeholder-update.json", "mysql/dbz-test-serde-with-schema.json"}) {
    std::string one = FixtureText(fixture);
    while (!one.empty() && (one.back() == '\n' || one.back() == ' ')) one.pop_back();
    std::string text;
    for (int i = 0; i < 200; ++i) text += one + "\n";
    io::MemoryFileSystem fs;
    ASSERT_TRUE(fs.WriteFile("f.json", text).ok());
    Flat whole = Read(fs, "f.json", 0, 64);
    Flat split = Read(fs, "f.json", 1, 64);
    SCOPED_TRACE(fixture);
    EXPECT_EQ(whole.rows.size(), 200u);
    EXPECT_EQ(split.split, one.front() == '{');
    ExpectSame(split, whole);
  }
}

}  // namespace
}  // namespace cdclake::sources
