// The two-halves readers of CSV and JSON Lines: whatever the file (CSV quoted fields across
// lines and across the cut, JSON escapes, bad records, blank lines, CRLF, a last record cut short
// or without its line ending), its rows, rejected records, positions and tail are those of
// reading it front to back, in small chunks and small batches too; and files that can be split
// are.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "io/memory_file_system.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/change_file_test_util_internal.h"
#include "sources/files/csv_split_reader_internal.h"
#include "sources/files/file_halves_internal.h"

namespace cdclake::sources {
namespace {

// Everything a reader gave, batch boundaries aside.
struct Flat {
  std::vector<std::string> rows;
  std::vector<std::string> rejected;
  std::string tail;
  bool split = false;
};

Flat Read(io::FileSystem& fs, const std::string& path, ChangeFileOptions options) {
  Flat out;
  auto reader = ChangeFileReader::Open(fs, path, std::move(options));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  for (;;) {
    auto next = (*reader)->Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    testing::DescribeBatch(**next, &out.rows, &out.rejected);
  }
  out.tail = testing::DescribeTail((*reader)->Pending(), (*reader)->UnterminatedLast());
  out.split = internal::DecodedInHalves(**reader);
  return out;
}

// A random CSV file: good rows, quoted fields with commas, quotes and line endings, rows with
// too few or too many fields, a sequence that is not a number, blank lines, CRLF; its end one
// of: a line ending, a last record without one, a record cut short, a quoted field left open.
std::string RandomCsv(std::mt19937_64& rng, int records) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::string text = "id,name,seq\n";
  for (int i = 0; i < records; ++i) {
    const std::string eol = pick(5) == 0 ? "\r\n" : "\n";
    switch (pick(12)) {
      case 0:
        text += std::to_string(i) + ",\"a, b\nc \"\"q\"\"\"," + std::to_string(pick(9)) + eol;
        break;
      case 1:
        text += std::to_string(i) + ",\"line\r\nbreak\"," + std::to_string(pick(9)) + eol;
        break;
      case 2:
        text += std::to_string(i) + ",short" + eol;
        break;
      case 3:
        text += std::to_string(i) + ",x,1,extra" + eol;
        break;
      case 4:
        text += std::to_string(i) + ",bad,n/a" + eol;
        break;
      case 5:
        text += eol;
        break;
      case 6:
        text += std::to_string(i) + ",\"unclosed" + eol + "goes on" + eol;
        break;
      default:
        text += std::to_string(i) + ",name" + std::to_string(pick(1000)) + "," +
                std::to_string(pick(100)) + eol;
    }
  }
  switch (pick(4)) {
    case 0:
      text += "99,tail,5";  // a whole last record without a line ending
      break;
    case 1:
      text += "99,ta";  // cut short
      break;
    case 2:
      text += "99,\"open";  // a quoted field still open
      break;
    default:
      break;
  }
  return text;
}

// A random JSON Lines file: good lines with members in either order, escaped line endings and
// quotes in strings, lines that are not JSON, not objects, or repeat a member, a sequence that is
// not a number, blank lines, CRLF, sometimes a byte order mark; its end one of: a line ending, a
// last line without one, a line cut short.
std::string RandomJsonLines(std::mt19937_64& rng, int records) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  std::string text = pick(4) == 0 ? "\xEF\xBB\xBF" : "";
  for (int i = 0; i < records; ++i) {
    const std::string eol = pick(5) == 0 ? "\r\n" : "\n";
    const std::string id = std::to_string(i), seq = std::to_string(pick(9));
    switch (pick(12)) {
      case 0:
        text += "{\"id\":" + id + ",\"name\":\"a\\nb \\\"q\\\"\",\"seq\":" + seq + "}" + eol;
        break;
      case 1:
        text += "{\"seq\":" + seq + ",\"id\":" + id + ",\"name\":\"swapped\"}" + eol;
        break;
      case 2:
        text += "{\"id\":" + id + ",\"name\":" + eol;
        break;
      case 3:
        text += "[" + id + "]" + eol;
        break;
      case 4:
        text += "{\"id\":" + id + ",\"name\":\"bad\",\"seq\":\"n/a\"}" + eol;
        break;
      case 5:
        text += eol;
        break;
      case 6:
        text += "{\"id\":" + id + ",\"id\":1,\"seq\":1}" + eol;
        break;
      default:
        text += "{\"id\":" + id + ",\"name\":\"name" + std::to_string(pick(1000)) +
                "\",\"seq\":" + std::to_string(pick(100)) + "}" + eol;
    }
  }
  switch (pick(3)) {
    case 0:
      text += "{\"id\":99,\"name\":\"tail\",\"seq\":5}";  // whole, without a line ending
      break;
    case 1:
      text += "{\"id\":99,\"na";  // cut short
      break;
    default:
      break;
  }
  return text;
}

int Cases() {
  const char* cases = std::getenv("CDCLAKE_SPLIT_READER_CASES");
  return cases != nullptr ? std::atoi(cases) : 300;
}

// Reads Cases() random files (`random_text`, 5 to 124 records) of `format` in two halves and
// front to back, with random batch and chunk sizes, half of them with a declared schema; every
// reading must agree. Returns how many were split.
int ExpectHalvesAgree(FileFormat format, std::string (*random_text)(std::mt19937_64&, int),
                      uint64_t seed) {
  const int cases = Cases();
  std::mt19937_64 rng(seed);
  int split = 0;
  for (int k = 0; k < cases; ++k) {
    io::MemoryFileSystem fs;
    const std::string text = random_text(rng, 5 + static_cast<int>(rng() % 120));
    EXPECT_TRUE(fs.WriteFile("f", text).ok());
    ChangeFileOptions options;
    options.format = format;
    options.batch_rows = 1 + static_cast<int64_t>(rng() % 40);
    options.read_chunk_bytes = 16 + static_cast<int64_t>(rng() % 300);
    options.sequence_columns = {"seq"};
    if (k % 2 == 0) {
      options.schema = data::Schema({{"id", data::DataType::Int64(), true},
                                     {"name", data::DataType::String(), true},
                                     {"seq", data::DataType::Int64(), true}});
    }
    ChangeFileOptions whole_options = options;
    whole_options.split_from_bytes = 0;
    options.split_from_bytes = 1;
    const Flat halves = Read(fs, "f", options);
    const Flat whole = Read(fs, "f", whole_options);
    EXPECT_FALSE(whole.split);
    EXPECT_EQ(halves.rows, whole.rows) << "case " << k << ":\n" << text;
    EXPECT_EQ(halves.rejected, whole.rejected) << "case " << k << ":\n" << text;
    EXPECT_EQ(halves.tail, whole.tail) << "case " << k << ":\n" << text;
    if (::testing::Test::HasFailure()) return split;
    split += halves.split ? 1 : 0;
  }
  return split;
}

TEST(JsonLinesSplitReaderTest, HalvesGiveWhatFrontToBackGives) {
  const int split = ExpectHalvesAgree(FileFormat::kJsonLines, RandomJsonLines, 20261203);
  // Every line ending is a record boundary: the halves join up unless the middle falls in the
  // last line.
  EXPECT_GT(split, Cases() * 9 / 10);
}

TEST(CsvSplitReaderTest, HalvesGiveWhatFrontToBackGives) {
  const int split = ExpectHalvesAgree(FileFormat::kCsv, RandomCsv, 20261202);
  // Most cuts land on a record boundary; some inside a quoted field (read front to back).
  EXPECT_GT(split, Cases() / 2);
  EXPECT_LT(split, Cases());
}

// A file whose middle falls inside a quoted field spanning lines is read front to back, the
// same; files below the threshold are never split.
TEST(CsvSplitReaderTest, ACutInsideAQuotedFieldFallsBackAndSmallFilesStayWhole) {
  io::MemoryFileSystem fs;
  std::string quoted(400, 'q');
  for (size_t i = 0; i < quoted.size(); i += 20) quoted[i] = '\n';
  const std::string text = "id,name,seq\n1,a,1\n2,\"" + quoted + "\",2\n3,c,3\n";
  ASSERT_TRUE(fs.WriteFile("q.csv", text).ok());
  ChangeFileOptions options;
  options.format = FileFormat::kCsv;
  options.split_from_bytes = 1;
  const Flat halves = Read(fs, "q.csv", options);
  EXPECT_FALSE(halves.split);
  ASSERT_EQ(halves.rows.size(), 3u);
  EXPECT_TRUE(halves.rejected.empty());
  options.split_from_bytes = static_cast<int64_t>(text.size()) + 1;
  EXPECT_FALSE(Read(fs, "q.csv", options).split);

  std::string rows = "id,name,seq\n";
  for (int i = 0; i < 200; ++i) rows += std::to_string(i) + ",n,1\n";
  ASSERT_TRUE(fs.WriteFile("r.csv", rows).ok());
  options.split_from_bytes = 1;
  const Flat split = Read(fs, "r.csv", options);
  EXPECT_TRUE(split.split);
  ASSERT_EQ(split.rows.size(), 200u);
  EXPECT_NE(split.rows[150].find("@152:"), std::string::npos) << split.rows[150];
}

// An earlier run's unterminated last record that has had bytes appended since, with the file
// grown so far that it now lies in the first half: rejected as appended either way.
TEST(CsvSplitReaderTest, AnAppendedEarlierLastRecordInTheFirstHalf) {
  io::MemoryFileSystem fs;
  std::string text = "id,name,seq\n";
  for (int i = 0; i < 20; ++i) text += std::to_string(i) + ",n,1\n";
  const int64_t at = static_cast<int64_t>(text.size());
  text += "20,appended,1\n";  // an earlier run saw "20,append" end the file
  for (int i = 21; i < 200; ++i) text += std::to_string(i) + ",n,1\n";
  ASSERT_TRUE(fs.WriteFile("g.csv", text).ok());
  ChangeFileOptions options;
  options.format = FileFormat::kCsv;
  options.unterminated_last = RecordSpan{at, at + 9};
  ChangeFileOptions whole_options = options;
  whole_options.split_from_bytes = 0;
  options.split_from_bytes = 1;
  const Flat halves = Read(fs, "g.csv", options);
  const Flat whole = Read(fs, "g.csv", whole_options);
  EXPECT_TRUE(halves.split);
  ASSERT_EQ(whole.rejected.size(), 1u);
  EXPECT_EQ(halves.rejected, whole.rejected);
  EXPECT_EQ(halves.rows, whole.rows);
  EXPECT_EQ(halves.tail, whole.tail);
}

}  // namespace
}  // namespace cdclake::sources
