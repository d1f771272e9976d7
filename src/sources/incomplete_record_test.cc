// Tests of records a file's writer has not finished, through ChangeSource for every text format:
// a cut last record is pending (neither row nor rejected), a whole one without a line ending is
// read and its span reported, and bytes appended to it later are quarantined with both versions.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/memory_file_system.h"
#include "sources/change_source.h"

namespace cdclake::sources {
namespace {

constexpr char kPath[] = "land/f.dat";

// Everything one open of `text` returned, and what the source says about the file's end.
struct Read {
  int64_t rows = 0;
  std::vector<change::SourcePosition> positions;
  std::vector<change::RejectedRecord> rejected;
  std::optional<PendingRecord> pending;
  std::optional<RecordSpan> unterminated_last;
};

Read ReadOnce(const std::string& text, SourceFormat format,
              std::optional<RecordSpan> unterminated_last = std::nullopt,
              FileFormat file_format = FileFormat::kCsv) {
  io::MemoryFileSystem fs;
  EXPECT_TRUE(fs.WriteFile(kPath, text).ok());
  ChangeSourceOptions options;
  options.file_format = file_format;
  options.unterminated_last = unterminated_last;
  options.batch_rows = 2;  // the end of the file falls in a later batch than its start
  auto source = OpenChangeSource(fs, kPath, format, options);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  Read out;
  if (!source.ok()) return out;
  for (;;) {
    auto batch = (*source)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !batch->has_value()) break;
    out.rows += (*batch)->rows.num_rows();
    for (const auto& p : (*batch)->positions) out.positions.push_back(p);
    for (const auto& r : (*batch)->rejected) out.rejected.push_back(r);
  }
  out.pending = (*source)->Pending();
  out.unterminated_last = (*source)->UnterminatedLast();
  return out;
}

int64_t Size(const std::string& s) {
  return static_cast<int64_t>(s.size());
}

// --- CSV ---

TEST(IncompleteRecords, CsvShortLastRecordIsPendingNotRejected) {
  const std::string head = "id,v,seq\n1,a,1\n";
  Read read = ReadOnce(head + "3,c", SourceFormat::kCsv);
  EXPECT_EQ(read.rows, 1);
  EXPECT_TRUE(read.rejected.empty()) << read.rejected[0].reason;
  ASSERT_TRUE(read.pending.has_value());
  EXPECT_EQ(read.pending->line, 3);
  EXPECT_EQ(read.pending->byte_offset, Size(head));
  EXPECT_EQ(read.pending->bytes, 3);
  EXPECT_FALSE(read.unterminated_last.has_value());
  // Every record's end: just past its line ending.
  ASSERT_EQ(read.positions.size(), 1u);
  EXPECT_EQ(read.positions[0].byte_offset, 9);
  EXPECT_EQ(read.positions[0].byte_end, Size(head));

  // Once whole, it is a row like any other.
  Read later = ReadOnce(head + "3,c,1\n", SourceFormat::kCsv);
  EXPECT_EQ(later.rows, 2);
  EXPECT_FALSE(later.pending.has_value());
}

TEST(IncompleteRecords, CsvOpenQuoteAtTheEndIsPending) {
  const std::string head = "id,v\n1,a\n";
  Read read = ReadOnce(head + "2,\"a field\nover lines", SourceFormat::kCsv);
  EXPECT_EQ(read.rows, 1);
  EXPECT_TRUE(read.rejected.empty());
  ASSERT_TRUE(read.pending.has_value());
  EXPECT_EQ(read.pending->line, 3);
  EXPECT_EQ(read.pending->byte_offset, Size(head));
}

TEST(IncompleteRecords, CsvLastFieldThatDoesNotConvertYetIsPending) {
  // "2026-01-0" may be the start of a timestamp still being written.
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile(kPath, "id,ts\n1,2026-01-01\n2,2026-01-0").ok());
  ChangeSourceOptions options;
  options.schema = data::Schema({{"ts", data::DataType::Timestamp(), true}});
  auto source = OpenChangeSource(fs, kPath, SourceFormat::kCsv, options);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto batch = (*source)->Next();
  ASSERT_TRUE(batch.ok() && batch->has_value());
  EXPECT_EQ((*batch)->rows.num_rows(), 1);
  EXPECT_TRUE((*batch)->rejected.empty());
  ASSERT_TRUE((*source)->Next().ok());
  ASSERT_TRUE((*source)->Pending().has_value());
  EXPECT_EQ((*source)->Pending()->line, 3);
}

TEST(IncompleteRecords, CsvWhatCanNeverBeWholeIsStillRejected) {
  // More fields than the header: appending can only add more.
  Read read = ReadOnce("id,v,seq\n1,a,1\n3,c,1,x", SourceFormat::kCsv);
  EXPECT_EQ(read.rows, 1);
  ASSERT_EQ(read.rejected.size(), 1u);
  EXPECT_EQ(read.rejected[0].reason, "expected 3 fields, found 4");
  EXPECT_EQ(read.rejected[0].position.byte_end, Size("id,v,seq\n1,a,1\n3,c,1,x"));
  EXPECT_FALSE(read.pending.has_value());
  // A short record with its line ending is rejected as before.
  Read terminated = ReadOnce("id,v,seq\n1,a,1\n3,c\n", SourceFormat::kCsv);
  ASSERT_EQ(terminated.rejected.size(), 1u);
  EXPECT_FALSE(terminated.pending.has_value());
}

TEST(IncompleteRecords, CsvWholeLastRecordIsReadAndAppendedBytesAreQuarantined) {
  const std::string head = "id,v,seq\n1,a,1\n";
  Read read = ReadOnce(head + "3,c,1", SourceFormat::kCsv);
  EXPECT_EQ(read.rows, 2);
  EXPECT_FALSE(read.pending.has_value());
  ASSERT_TRUE(read.unterminated_last.has_value());
  EXPECT_EQ(read.unterminated_last->byte_offset, Size(head));
  EXPECT_EQ(read.unterminated_last->byte_end, Size(head) + 5);
  EXPECT_EQ(read.positions[1].byte_end, Size(head) + 5);

  // Its line ending arrives: the same record, read as before (the caller drops it as read).
  Read ended = ReadOnce(head + "3,c,1\n4,d,1\n", SourceFormat::kCsv, read.unterminated_last);
  EXPECT_EQ(ended.rows, 3);
  EXPECT_TRUE(ended.rejected.empty());
  EXPECT_FALSE(ended.unterminated_last.has_value());

  // Bytes appended to it: quarantined with both versions, at an offset past the record's start
  // (so a caller dropping what starts before its position keeps it), the others read on.
  Read grown = ReadOnce(head + "3,c,12\n4,d,1\n", SourceFormat::kCsv, read.unterminated_last);
  EXPECT_EQ(grown.rows, 2);
  ASSERT_EQ(grown.rejected.size(), 1u);
  const change::RejectedRecord& r = grown.rejected[0];
  EXPECT_EQ(r.raw, "was: 3,c,1\nnow: 3,c,12");
  EXPECT_NE(r.reason.find("BYTES APPENDED TO A RECORD ALREADY READ"), std::string::npos)
      << r.reason;
  EXPECT_EQ(r.position.line, 3);
  EXPECT_EQ(r.position.byte_offset, Size(head) + 5);
  EXPECT_GT(r.position.byte_offset, read.positions[1].byte_offset);
}

// --- JSON Lines ---

TEST(IncompleteRecords, JsonLinesCutLastLineIsPending) {
  const std::string head = "{\"id\":1,\"v\":\"a\"}\n";
  for (std::string cut : {"{\"id\":3,\"v\"", "{\"id\":3,\"v\":\"c", "{\"id\":3,\"v\":tr",
                          "{\"id\":3", "{\"id\":3.", "{"}) {
    Read read = ReadOnce(head + cut, SourceFormat::kJsonLines);
    EXPECT_EQ(read.rows, 1) << cut;
    EXPECT_TRUE(read.rejected.empty()) << cut << ": " << read.rejected[0].reason;
    ASSERT_TRUE(read.pending.has_value()) << cut;
    EXPECT_EQ(read.pending->line, 2);
    EXPECT_EQ(read.pending->byte_offset, Size(head));
    EXPECT_EQ(read.pending->bytes, Size(cut));
  }
  // Invalid before its end, or cut but with its line ending: never whole, rejected.
  for (std::string bad : {"{\"id\":3,,", "{\"id\":3,\"v\"\n"}) {
    Read read = ReadOnce(head + bad, SourceFormat::kJsonLines);
    EXPECT_EQ(read.rejected.size(), 1u) << bad;
    EXPECT_FALSE(read.pending.has_value()) << bad;
  }
}

TEST(IncompleteRecords, JsonLinesAppendedToAWholeLastLine) {
  const std::string head = "{\"id\":1,\"v\":\"a\"}\n";
  const std::string last = "{\"id\":3,\"v\":\"c\"}";
  Read read = ReadOnce(head + last, SourceFormat::kJsonLines);
  EXPECT_EQ(read.rows, 2);
  ASSERT_TRUE(read.unterminated_last.has_value());
  EXPECT_EQ(read.unterminated_last->byte_offset, Size(head));
  EXPECT_EQ(read.unterminated_last->byte_end, Size(head + last));
  EXPECT_EQ(read.positions[0].byte_end, Size(head));

  Read ended = ReadOnce(head + last + "\n", SourceFormat::kJsonLines, read.unterminated_last);
  EXPECT_EQ(ended.rows, 2);
  EXPECT_TRUE(ended.rejected.empty());

  Read grown =
      ReadOnce(head + last + "{\"id\":4}\n", SourceFormat::kJsonLines, read.unterminated_last);
  ASSERT_EQ(grown.rejected.size(), 1u);
  EXPECT_EQ(grown.rejected[0].raw, "was: " + last + "\nnow: " + last + "{\"id\":4}");
  EXPECT_NE(grown.rejected[0].reason.find("BYTES APPENDED"), std::string::npos);
  EXPECT_EQ(grown.rejected[0].position.byte_offset, Size(head + last));
}

// --- Debezium ---

std::string Event(int id) {
  return "{\"before\":null,\"after\":{\"id\":" + std::to_string(id) +
         "},\"source\":{\"connector\":\"postgresql\",\"db\":\"d\",\"schema\":\"s\",\"table\":"
         "\"t\",\"ts_ms\":5,\"lsn\":" +
         std::to_string(10 + id) + ",\"sequence\":null},\"op\":\"c\",\"ts_ms\":99}";
}

TEST(IncompleteRecords, DebeziumEventCutInHalfIsPending) {
  const std::string head = Event(1) + "\n";
  const std::string half = Event(2).substr(0, Event(2).size() / 2);
  Read read = ReadOnce(head + half, SourceFormat::kDebezium);
  EXPECT_EQ(read.rows, 1);
  EXPECT_TRUE(read.rejected.empty()) << read.rejected[0].reason;
  ASSERT_TRUE(read.pending.has_value());
  EXPECT_EQ(read.pending->line, 2);
  EXPECT_EQ(read.pending->byte_offset, Size(head));
  EXPECT_EQ(read.pending->bytes, Size(half));
  EXPECT_EQ(read.positions[0].byte_end, Size(head));

  // Pretty-printed, cut after a line ending: pending too (records span lines).
  const std::string pretty = "{\n  \"op\": \"c\",\n  \"after\": {\"id\": 3}\n";
  Read cut = ReadOnce(head + pretty, SourceFormat::kDebezium);
  EXPECT_EQ(cut.rows, 1);
  EXPECT_TRUE(cut.rejected.empty());
  ASSERT_TRUE(cut.pending.has_value());
  EXPECT_EQ(cut.pending->bytes, Size(pretty));

  // A truncated record another one follows is bad input, as before, wherever it was cut (even
  // where the next record could continue it as JSON: `"db":` then `{...}`).
  const std::string e2 = Event(2);
  for (const std::string& cut : {half, e2.substr(0, e2.find("\"db\":") + 5)}) {
    Read middle = ReadOnce(head + cut + "\n" + Event(3) + "\n", SourceFormat::kDebezium);
    EXPECT_EQ(middle.rows, 2) << cut;
    EXPECT_EQ(middle.rejected.size(), 1u) << cut;
    EXPECT_FALSE(middle.pending.has_value()) << cut;
  }

  Read whole = ReadOnce(head + Event(2) + "\n", SourceFormat::kDebezium);
  EXPECT_EQ(whole.rows, 2);
  EXPECT_FALSE(whole.pending.has_value());
}

TEST(IncompleteRecords, DebeziumWholeLastEventWithoutLineEnding) {
  const std::string head = Event(1) + "\n";
  Read read = ReadOnce(head + Event(2), SourceFormat::kDebezium);
  EXPECT_EQ(read.rows, 2);
  ASSERT_TRUE(read.unterminated_last.has_value());
  EXPECT_EQ(read.unterminated_last->byte_offset, Size(head));
  EXPECT_EQ(read.unterminated_last->byte_end, Size(head + Event(2)));
  // An event appended without a line ending between is a record of its own: the earlier one
  // reads the same.
  Read next =
      ReadOnce(head + Event(2) + Event(3) + "\n", SourceFormat::kDebezium, read.unterminated_last);
  EXPECT_EQ(next.rows, 3);
  EXPECT_TRUE(next.rejected.empty());
  EXPECT_FALSE(next.unterminated_last.has_value());
}

// --- SQL Server exports ---

constexpr char kExportHeader[] =
    "__$start_lsn,__$end_lsn,__$seqval,__$operation,__$update_mask,id,name\n";
constexpr char kExportRow[] = "0x0000002A000000F00003,,0x0000002A000000F00002,2,0x03,1,ann\n";

TEST(IncompleteRecords, SqlServerExportCutLastRowIsPending) {
  const std::string head = std::string(kExportHeader) + kExportRow;
  Read read = ReadOnce(head + "0x0000002B000000F00003,,0x00000", SourceFormat::kSqlServer);
  EXPECT_EQ(read.rows, 1);
  EXPECT_TRUE(read.rejected.empty()) << read.rejected[0].reason;
  ASSERT_TRUE(read.pending.has_value());
  EXPECT_EQ(read.pending->line, 3);
  EXPECT_EQ(read.pending->byte_offset, Size(head));
  ASSERT_EQ(read.positions.size(), 1u);
  EXPECT_EQ(read.positions[0].byte_end, Size(head));

  const std::string last = "0x0000002B000000F00003,,0x0000002B000000F00002,2,0x03,2,bob";
  Read whole = ReadOnce(head + last, SourceFormat::kSqlServer);
  EXPECT_EQ(whole.rows, 2);
  ASSERT_TRUE(whole.unterminated_last.has_value());
  EXPECT_EQ(whole.unterminated_last->byte_end, Size(head + last));
  Read grown = ReadOnce(head + last + "by\n", SourceFormat::kSqlServer, whole.unterminated_last);
  EXPECT_EQ(grown.rows, 1);
  ASSERT_EQ(grown.rejected.size(), 1u);
  EXPECT_NE(grown.rejected[0].reason.find("BYTES APPENDED"), std::string::npos);
}

}  // namespace
}  // namespace cdclake::sources
