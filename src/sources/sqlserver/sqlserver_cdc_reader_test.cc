// Tests for SqlServerCdcReader: each operation, before images, LSN forms and `_seq` order,
// update masks as unchanged marks, the bad-input catalogue, Open errors, CSV and JSON Lines.
#include "sources/sqlserver/sqlserver_cdc_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "change/ordered_encoding.h"
#include "change/row_text.h"
#include "data/value.h"
#include "io/memory_file_system.h"

namespace cdclake::sources {
namespace {

using data::DataType;
using data::Schema;
using data::Value;

constexpr char kPath[] = "in/dbo_orders_CT.csv";

// Everything a reader returned, batches flattened.
struct Outcome {
  Schema schema;
  std::vector<std::vector<Value>> rows;
  std::vector<std::vector<bool>> unchanged;  // [row][column]
  std::vector<std::string> seq_keys;         // ordered encoding of `_seq`, per row
  std::vector<change::SourcePosition> positions;
  std::vector<std::string> raw;
  std::vector<change::RejectedRecord> rejected;
  std::vector<int64_t> batch_sizes;
  SqlServerCdcCounts counts;

  Value Get(size_t row, const std::string& column) const {
    int c = schema.FieldIndex(column);
    EXPECT_GE(c, 0) << column;
    return c < 0 ? Value() : rows[row][static_cast<size_t>(c)];
  }
  bool Unchanged(size_t row, const std::string& column) const {
    int c = schema.FieldIndex(column);
    EXPECT_GE(c, 0) << column;
    return c >= 0 && unchanged[row][static_cast<size_t>(c)];
  }
  std::vector<std::string> UnchangedColumns(size_t row) const {
    std::vector<std::string> out;
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      if (unchanged[row][c]) out.push_back(schema.field(c).name);
    }
    return out;
  }
};

Result<Outcome> ReadCdc(std::string_view text, SqlServerCdcOptions options,
                        const std::string& path = kPath) {
  io::MemoryFileSystem fs;
  CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(path, text));
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<SqlServerCdcReader> reader,
                           SqlServerCdcReader::Open(fs, path, std::move(options)));
  Outcome out;
  for (;;) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, reader->Next());
    if (!batch.has_value()) break;
    const data::RecordBatch& rows = batch->rows;
    if (out.batch_sizes.empty()) {
      out.schema = rows.schema();
    } else {
      EXPECT_EQ(rows.schema(), out.schema);
    }
    EXPECT_TRUE(rows.num_rows() > 0 || !batch->rejected.empty()) << "an empty batch";
    EXPECT_EQ(batch->positions.size(), static_cast<size_t>(rows.num_rows()));
    EXPECT_EQ(batch->raw.size(), static_cast<size_t>(rows.num_rows()));
    if (!batch->unchanged.empty()) {
      EXPECT_EQ(batch->unchanged.size(), rows.num_columns());
    }
    out.batch_sizes.push_back(rows.num_rows());
    int seq = rows.schema().FieldIndex("_seq");
    EXPECT_GE(seq, 0);
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      out.rows.push_back(rows.GetRow(r));
      std::vector<bool> marks(rows.num_columns(), false);
      for (size_t c = 0; c < batch->unchanged.size(); ++c) {
        marks[c] = batch->unchanged[c][static_cast<size_t>(r)] != 0;
      }
      out.unchanged.push_back(std::move(marks));
      std::string key;
      if (seq >= 0) {
        const data::Column& column = rows.column(static_cast<size_t>(seq));
        change::AppendOrderedCell(column, r, *column.type(), &key);
      }
      out.seq_keys.push_back(std::move(key));
    }
    for (size_t i = 0; i < batch->positions.size(); ++i)
      out.positions.push_back(batch->positions[i]);
    for (size_t i = 0; i < batch->raw.size(); ++i) out.raw.push_back(change::RowText(*batch, i));
    out.rejected.insert(out.rejected.end(), batch->rejected.begin(), batch->rejected.end());
  }
  out.counts = reader->counts();
  return out;
}

Outcome MustRead(std::string_view text, SqlServerCdcOptions options = {}) {
  Result<Outcome> out = ReadCdc(text, std::move(options));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(out).value() : Outcome();
}

SqlServerCdcOptions Jsonl() {
  SqlServerCdcOptions options;
  options.format = FileFormat::kJsonLines;
  return options;
}

Value Str(const char* s) {
  return Value::Bytes(s);
}

Value Seq(const char* start_lsn, int64_t command_id, const char* seqval, int64_t operation) {
  return Value::Nested({Value::Bytes(start_lsn), Value::Int(command_id), Value::Bytes(seqval),
                        Value::Int(operation)});
}

// The lines of `text` (without terminators) and the byte offset of each.
struct Lines {
  std::vector<std::string> text;
  std::vector<int64_t> offset;
};

Lines SplitLines(std::string_view text) {
  Lines lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    lines.text.emplace_back(text.substr(at, end - at));
    lines.offset.push_back(static_cast<int64_t>(at));
    at = end + 1;
  }
  return lines;
}

TEST(SqlServerCdcReader, EachOperationFromCsv) {
  std::string text =
      "__$start_lsn,__$end_lsn,__$seqval,__$operation,__$update_mask,id,name,qty,__$command_id\n"
      "0x0000002A000000F00003,,0x0000002A000000F00002,2,0x07,1,ann,5,1\n"
      "0x0000002B000000100004,,0x0000002B000000100002,3,0x04,1,ann,5,1\n"
      "0x0000002B000000100004,,0x0000002B000000100002,4,0x04,1,ann,6,1\n"
      "0x0000002C000000200005,,0x0000002C000000200002,1,0x07,1,ann,6,1\n";
  Outcome out = MustRead(text);
  Schema expected({{"id", DataType::Int64()},
                   {"name", DataType::String()},
                   {"qty", DataType::Int64()},
                   {"_op", DataType::String()},
                   {"_seq", DataType::Struct({{"start_lsn", DataType::String()},
                                              {"command_id", DataType::Int64()},
                                              {"seqval", DataType::String()},
                                              {"operation", DataType::Int32()}})}});
  EXPECT_EQ(out.schema, expected) << out.schema.ToString();
  EXPECT_TRUE(out.rejected.empty());
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_EQ(out.rows[0],
            (std::vector<Value>{Value::Int(1), Str("ann"), Value::Int(5), Str("c"),
                                Seq("0000002a000000f00003", 1, "0000002a000000f00002", 2)}));
  EXPECT_EQ(out.rows[1],
            (std::vector<Value>{Value::Int(1), Str("ann"), Value::Int(6), Str("u"),
                                Seq("0000002b000000100004", 1, "0000002b000000100002", 4)}));
  EXPECT_EQ(out.rows[2],
            (std::vector<Value>{Value::Int(1), Str("ann"), Value::Int(6), Str("d"),
                                Seq("0000002c000000200005", 1, "0000002c000000200002", 1)}));
  EXPECT_EQ(out.counts.before_images, 1);

  Lines lines = SplitLines(text);
  const size_t line_of_row[] = {2, 4, 5};
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(out.positions[r].file, kPath);
    EXPECT_EQ(out.positions[r].line, static_cast<int64_t>(line_of_row[r]));
    EXPECT_EQ(out.positions[r].byte_offset, lines.offset[line_of_row[r] - 1]);
    EXPECT_EQ(out.raw[r], lines.text[line_of_row[r] - 1]);
  }
  // The update (mask 0x04: only qty) marks id and name; insert and delete mark nothing.
  EXPECT_EQ(out.UnchangedColumns(0), std::vector<std::string>());
  EXPECT_EQ(out.UnchangedColumns(1), (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(out.UnchangedColumns(2), std::vector<std::string>());
}

TEST(SqlServerCdcReader, BeforeImagesAreCountedAcrossBatches) {
  std::string text =
      "__$start_lsn,__$seqval,__$operation,__$update_mask,id\n"
      "00000010000000200001,00000010000000200001,2,0x01,1\n"
      "00000011000000200001,00000011000000200001,3,0x01,1\n"
      "00000012000000200001,00000012000000200001,3,0x01,1\n"
      "00000012000000200001,00000012000000200001,4,0x01,1\n"
      "00000013000000200001,00000013000000200001,3,0x01,1\n"
      "00000013000000200001,00000013000000200001,3,0x01,1\n"
      "00000014000000200001,00000014000000200001,1,0x01,1\n";
  SqlServerCdcOptions options;
  options.batch_rows = 2;
  Outcome out = MustRead(text, options);
  EXPECT_TRUE(out.rejected.empty());
  EXPECT_EQ(out.counts.before_images, 4);
  // Inner batches of two rows; the one holding only before images is not returned.
  EXPECT_EQ(out.batch_sizes, (std::vector<int64_t>{1, 1, 1}));
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_EQ(out.Get(0, "_op"), Str("c"));
  EXPECT_EQ(out.Get(1, "_op"), Str("u"));
  EXPECT_EQ(out.Get(2, "_op"), Str("d"));
  EXPECT_EQ(out.positions[2].line, 8);
  // No command id column: 0.
  EXPECT_EQ(out.Get(2, "_seq"), Seq("00000014000000200001", 0, "00000014000000200001", 1));
}

TEST(SqlServerCdcReader, LsnFormsNormalise) {
  std::string text =
      "__$start_lsn,__$seqval,__$operation,id\n"
      "0x0000002A000000F00003,0X0000002A000000F0000B,2,1\n"
      "0000002a000000f00003,0000002A000000F0000B,2,2\n"
      "0X0000002A000000f00003,0x0000002a000000f0000b,2,3\n";
  Outcome out = MustRead(text);
  ASSERT_EQ(out.rows.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(out.Get(r, "_seq"), Seq("0000002a000000f00003", 0, "0000002a000000f0000b", 2)) << r;
  }
  EXPECT_EQ(out.seq_keys[0], out.seq_keys[1]);
  EXPECT_EQ(out.seq_keys[0], out.seq_keys[2]);
}

// Rows sorted by the ordered encoding of `_seq` follow start_lsn, then command_id (as a
// number), then seqval, then operation — whatever case or prefix the LSNs were written in.
TEST(SqlServerCdcReader, SequenceOrdersByStartLsnCommandIdSeqvalOperation) {
  // id = the row's rank. Written out of order; the comments say what each row checks.
  std::string text =
      "__$start_lsn,__$seqval,__$operation,__$command_id,id\n"
      // 9 after 8: c > b although 'C' < 'b' as text.
      "0x0000001C000000000000,0x0000001C000000000001,2,1,9\n"
      // 4 before 5: same transaction, command 10 > 2 (as text "10" < "2"), delete before insert.
      "0x0000000F000000100001,0x0000000F000000050001,1,10,4\n"
      // 1: command 1 comes first although its seqval is the largest of the transaction.
      "0x0000000F000000100001,0x0000000F000000F00001,2,1,1\n"
      // 7 after 6: the plain form is not compared as text against the 0x form.
      "0000001A000000000002,0000001A000000000001,2,1,7\n"
      // 3 after 2: same command, larger seqval.
      "0X0000000F000000100001,0x0000000F000000090001,4,2,3\n"
      "0x0000001A000000000001,0x0000001A000000000001,2,1,6\n"
      "0000000f000000100001,0000000f000000070001,4,2,2\n"
      "0x0000001b000000000000,0x0000001b000000000001,2,1,8\n"
      "0x0000000F000000100001,0x0000000F000000050001,2,10,5\n";
  Outcome out = MustRead(text);
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  ASSERT_EQ(out.rows.size(), 9u);
  std::vector<size_t> order(out.rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return out.seq_keys[a] < out.seq_keys[b]; });
  std::vector<int64_t> ids;
  for (size_t r : order) ids.push_back(out.Get(r, "id").int_value());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  for (size_t i = 1; i < order.size(); ++i) {
    EXPECT_LT(out.seq_keys[order[i - 1]], out.seq_keys[order[i]]) << "ties at rank " << i;
  }
  // The row whose command id orders it before larger seqvals.
  size_t first = order[0];
  EXPECT_EQ(out.Get(first, "_seq"), Seq("0000000f000000100001", 1, "0000000f000000f00001", 2));
}

TEST(SqlServerCdcReader, UpdateMaskOfThreeColumns) {
  std::string text =
      "__$start_lsn,__$seqval,__$operation,__$update_mask,a,b,c\n"
      "0x00000020000000100001,0x00000020000000100001,4,0x01,1,x,10\n"
      "0x00000020000000100001,0x00000020000000100002,4,0x02,2,y,20\n"
      "0x00000020000000100001,0x00000020000000100003,4,0x04,3,z,30\n"
      "0x00000020000000100001,0x00000020000000100004,4,0x07,4,w,40\n"
      "0x00000020000000100001,0x00000020000000100005,2,0x01,5,v,50\n"
      "0x00000020000000100001,0x00000020000000100006,1,0x01,6,u,60\n";
  Outcome out = MustRead(text);
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  ASSERT_EQ(out.rows.size(), 6u);
  using Names = std::vector<std::string>;
  EXPECT_EQ(out.UnchangedColumns(0), (Names{"b", "c"}));  // 0x01: a changed
  EXPECT_EQ(out.UnchangedColumns(1), (Names{"a", "c"}));  // 0x02: b changed
  EXPECT_EQ(out.UnchangedColumns(2), (Names{"a", "b"}));  // 0x04: c changed
  EXPECT_EQ(out.UnchangedColumns(3), Names{});            // 0x07: all changed
  EXPECT_EQ(out.UnchangedColumns(4), Names{});            // inserts are whole rows
  EXPECT_EQ(out.UnchangedColumns(5), Names{});            // so are deletes
  // Marked cells keep the exported value (the key in particular).
  EXPECT_EQ(out.Get(0, "b"), Str("x"));
  EXPECT_EQ(out.Get(1, "a"), Value::Int(2));
  EXPECT_EQ(out.Get(2, "a"), Value::Int(3));
}

TEST(SqlServerCdcReader, UpdateMaskOfMoreThanEightColumns) {
  std::string header = "__$start_lsn,__$seqval,__$operation,__$update_mask";
  for (int c = 1; c <= 10; ++c) header += ",c" + std::to_string(c);
  auto line = [](const char* mask) {
    return std::string("0x00000020000000100001,0x00000020000000100001,4,") + mask +
           ",1,2,3,4,5,6,7,8,9,10\n";
  };
  std::string text = header + "\n" + line("0x0100") + line("0x0201") + line("0x03FF") +
                     line("0x01") + line("0x000004") + line("0xFFFF");
  Outcome out = MustRead(text);
  ASSERT_TRUE(out.rejected.empty()) << out.rejected[0].reason;
  ASSERT_EQ(out.rows.size(), 6u);
  auto all_but = [](std::vector<int> changed) {
    std::vector<std::string> names;
    for (int c = 1; c <= 10; ++c) {
      if (std::find(changed.begin(), changed.end(), c) == changed.end()) {
        names.push_back("c" + std::to_string(c));
      }
    }
    return names;
  };
  EXPECT_EQ(out.UnchangedColumns(0), all_but({9}));      // first byte's low bit: ordinal 9
  EXPECT_EQ(out.UnchangedColumns(1), all_but({1, 10}));  // 0x02 in the first byte: ordinal 10
  EXPECT_EQ(out.UnchangedColumns(2), all_but({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(out.UnchangedColumns(3), all_but({1}));  // a short mask: ordinals 9, 10 clear
  EXPECT_EQ(out.UnchangedColumns(4), all_but({3}));  // a long mask
  EXPECT_EQ(out.UnchangedColumns(5), all_but({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  for (size_t r = 0; r < out.rows.size(); ++r) EXPECT_EQ(out.Get(r, "c9"), Value::Int(9));
}

TEST(SqlServerCdcReader, NoMarksWithoutAMask) {
  std::string with_null_mask =
      "__$start_lsn,__$seqval,__$operation,__$update_mask,a,b\n"
      "0x00000020000000100001,0x00000020000000100001,4,,1,x\n";
  Outcome out = MustRead(with_null_mask);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.UnchangedColumns(0), std::vector<std::string>());

  std::string without_mask_column =
      "__$start_lsn,__$seqval,__$operation,a,b\n"
      "0x00000020000000100001,0x00000020000000100001,4,1,x\n";
  out = MustRead(without_mask_column);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.Get(0, "_op"), Str("u"));
  EXPECT_EQ(out.UnchangedColumns(0), std::vector<std::string>());
}

TEST(SqlServerCdcReader, BadInputCatalogue) {
  const std::string lsn = "0x0000002A000000F00003";
  std::string text = "__$start_lsn,__$seqval,__$operation,__$update_mask,__$command_id,id\n" + lsn +
                     "," + lsn + ",2,0x03,1,1\n" +                       // 2: good
                     lsn + "," + lsn + ",7,0x03,1,2\n" +                 // 3: unknown operation
                     lsn + "," + lsn + ",,0x03,1,3\n" +                  // 4: NULL operation
                     lsn + "," + lsn + ",x,0x03,1,4\n" +                 // 5: not a number
                     "AAAAKgAAAPAAAw==," + lsn + ",2,0x03,1,5\n" +       // 6: base64 LSN
                     "0x0000002A000000F0003," + lsn + ",2,0x03,1,6\n" +  // 7: 19 digits
                     lsn + ",,2,0x03,1,7\n" +                            // 8: NULL seqval
                     lsn + ",0xZZ00002A000000F00003,2,0x03,1,8\n" +      // 9: not hex
                     lsn + "," + lsn + ",4,0x7,1,9\n" +                  // 10: odd mask
                     lsn + "," + lsn + ",4,0xg1,1,10\n" +                // 11: non-hex mask
                     lsn + "," + lsn + ",4,0x,1,11\n" +                  // 12: empty mask
                     lsn + "," + lsn + ",2,0x03,abc,12\n" +              // 13: bad command id
                     lsn + "," + lsn + ",2,0x03\n" +                     // 14: too few fields
                     lsn + "," + lsn + ",5,0x03,1,14\n" +     // 15: net changes' merge op
                     lsn + "," + lsn + ",3,garbage,1,15\n" +  // 16: before image: counted
                     lsn + "," + lsn + ",1,0x03,1,16\n";      // 17: good
  Outcome out = MustRead(text);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.Get(0, "id"), Value::Int(1));
  EXPECT_EQ(out.Get(1, "id"), Value::Int(16));
  EXPECT_EQ(out.counts.before_images, 1);

  struct Expected {
    int64_t line;
    const char* reason;  // a part of it
  };
  const Expected expected[] = {
      {3, "unknown __$operation '7'"},
      {4, "__$operation is NULL"},
      {5, "unknown __$operation 'x'"},
      {6, "__$start_lsn 'AAAAKgAAAPAAAw==' is not a binary(10) LSN"},
      {7, "__$start_lsn '0x0000002A000000F0003' is not a binary(10) LSN"},
      {8, "__$seqval is NULL"},
      {9, "__$seqval '0xZZ00002A000000F00003' is not a binary(10) LSN"},
      {10, "__$update_mask '0x7' is not a varbinary(128) mask"},
      {11, "__$update_mask '0xg1' is not a varbinary(128) mask"},
      {12, "__$update_mask '0x' is not a varbinary(128) mask"},
      {13, "__$command_id 'abc' is not an int"},
      {14, ""},  // the file reader's own reason
      {15, "unknown __$operation '5'"},
  };
  Lines lines = SplitLines(text);
  ASSERT_EQ(out.rejected.size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    const change::RejectedRecord& r = out.rejected[i];
    size_t at = static_cast<size_t>(expected[i].line - 1);
    EXPECT_EQ(r.position.line, expected[i].line) << i;
    EXPECT_EQ(r.position.file, kPath);
    EXPECT_EQ(r.position.byte_offset, lines.offset[at]) << i;
    EXPECT_EQ(r.raw, lines.text[at]) << i;
    EXPECT_NE(r.reason.find(expected[i].reason), std::string::npos) << r.reason;
    EXPECT_FALSE(r.reason.empty());
  }
}

TEST(SqlServerCdcReader, OpenErrors) {
  Result<Outcome> no_op = ReadCdc("__$start_lsn,__$seqval,id\n0x00,0x00,1\n", {});
  ASSERT_FALSE(no_op.ok());
  EXPECT_NE(no_op.status().message().find("__$operation"), std::string::npos)
      << no_op.status().ToString();

  Result<Outcome> no_seqval = ReadCdc("__$start_lsn,__$operation,id\n0x00,2,1\n", {});
  ASSERT_FALSE(no_seqval.ok());
  EXPECT_NE(no_seqval.status().message().find("__$seqval"), std::string::npos);

  Result<Outcome> no_start = ReadCdc("__$seqval,__$operation,id\n0x00,2,1\n", {});
  ASSERT_FALSE(no_start.ok());
  EXPECT_NE(no_start.status().message().find("__$start_lsn"), std::string::npos);

  Result<Outcome> json_no_op = ReadCdc(R"({"__$start_lsn":"0x00","__$seqval":"0x00","id":1})"
                                       "\n",
                                       Jsonl());
  ASSERT_FALSE(json_no_op.ok());
  EXPECT_NE(json_no_op.status().message().find("__$operation"), std::string::npos);

  Result<Outcome> collision =
      ReadCdc("__$start_lsn,__$seqval,__$operation,_OP\n0x00,0x00,2,1\n", {});
  ASSERT_FALSE(collision.ok());
  EXPECT_NE(collision.status().message().find("_OP"), std::string::npos);

  SqlServerCdcOptions zero_rows;
  zero_rows.batch_rows = 0;
  EXPECT_FALSE(ReadCdc("__$start_lsn,__$seqval,__$operation\n", zero_rows).ok());
}

TEST(SqlServerCdcReader, JsonLines) {
  std::string text =
      R"({"__$start_lsn":"0x0000002A000000F00003","__$seqval":"0x0000002A000000F00002",)"
      R"("__$operation":2,"__$update_mask":"0x03","__$command_id":1,"__$source_table":"dbo.t",)"
      R"("id":1,"name":"ann"})"
      "\n"
      R"({"__$start_lsn":"0000002A000000F00004","__$seqval":"0000002A000000F00004",)"
      R"("__$operation":3,"__$update_mask":"0x02","__$command_id":1,"__$source_table":"dbo.t",)"
      R"("id":1,"name":"ann"})"
      "\n"
      R"({"__$start_lsn":"0000002A000000F00004","__$seqval":"0000002A000000F00004",)"
      R"("__$operation":"4","__$update_mask":"0x02","__$command_id":1,"__$source_table":"dbo.t",)"
      R"("id":1,"name":"bob"})"
      "\n"
      R"({"__$start_lsn":"AAAAKgAAAPAAAw==","__$seqval":"0x0000002A000000F00005",)"
      R"("__$operation":1,"__$source_table":"dbo.t","id":1,"name":"bob"})"
      "\n"
      "{not json\n"
      R"({"__$start_lsn":"0x0000002A000000F00006","__$seqval":"0x0000002A000000F00006",)"
      R"("__$operation":1,"__$command_id":null,"__$source_table":"dbo.t","id":1,"name":"bob"})"
      "\n";
  Outcome out = MustRead(text, Jsonl());
  Schema expected({{"id", DataType::Int64()},
                   {"name", DataType::String()},
                   {"_op", DataType::String()},
                   {"_seq", DataType::Struct({{"start_lsn", DataType::String()},
                                              {"command_id", DataType::Int64()},
                                              {"seqval", DataType::String()},
                                              {"operation", DataType::Int32()}})},
                   {"_source_table", DataType::String()}});
  EXPECT_EQ(out.schema, expected) << out.schema.ToString();
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_EQ(out.rows[0],
            (std::vector<Value>{Value::Int(1), Str("ann"), Str("c"),
                                Seq("0000002a000000f00003", 1, "0000002a000000f00002", 2),
                                Str("dbo.t")}));
  EXPECT_EQ(out.rows[1],
            (std::vector<Value>{Value::Int(1), Str("bob"), Str("u"),
                                Seq("0000002a000000f00004", 1, "0000002a000000f00004", 4),
                                Str("dbo.t")}));
  EXPECT_EQ(out.rows[2],
            (std::vector<Value>{Value::Int(1), Str("bob"), Str("d"),
                                Seq("0000002a000000f00006", 0, "0000002a000000f00006", 1),
                                Str("dbo.t")}));
  EXPECT_EQ(out.counts.before_images, 1);
  // 0x02: name changed, id (ordinal 1) did not.
  EXPECT_EQ(out.UnchangedColumns(1), (std::vector<std::string>{"id"}));
  EXPECT_EQ(out.UnchangedColumns(0), std::vector<std::string>());

  Lines lines = SplitLines(text);
  ASSERT_EQ(out.rejected.size(), 2u);
  EXPECT_EQ(out.rejected[0].position.line, 4);
  EXPECT_EQ(out.rejected[0].raw, lines.text[3]);
  EXPECT_EQ(out.rejected[0].position.byte_offset, lines.offset[3]);
  EXPECT_NE(out.rejected[0].reason.find("AAAAKgAAAPAAAw=="), std::string::npos);
  EXPECT_EQ(out.rejected[1].position.line, 5);
  EXPECT_EQ(out.rejected[1].raw, "{not json");
  EXPECT_EQ(out.positions[2].line, 6);
  EXPECT_EQ(out.raw[2], lines.text[5]);
}

TEST(SqlServerCdcReader, SchemaTypesTheCapturedColumns) {
  std::string text =
      "__$start_lsn,__$seqval,__$operation,id,amount,note\n"
      "0x0000002A000000F00003,0x0000002A000000F00003,2,7,1.50,hi\n"
      "0x0000002A000000F00003,0x0000002A000000F00004,7,8,2.00,x\n"
      "0x0000002A000000F00003,0x0000002A000000F00005,2,nine,2.00,x\n";
  SqlServerCdcOptions options;
  // A type the schema gives a `__$` column is not used: those are read as text.
  options.schema = Schema({{"id", DataType::Int32()},
                           {"amount", DataType::Decimal(10, 2)},
                           {"__$operation", DataType::Int64()}});
  Outcome out = MustRead(text, options);
  ASSERT_GE(out.schema.num_fields(), 3u);
  EXPECT_EQ(out.schema.field(0), (data::Field{"id", DataType::Int32(), true}));
  EXPECT_EQ(out.schema.field(1), (data::Field{"amount", DataType::Decimal(10, 2), true}));
  EXPECT_EQ(out.schema.field(2), (data::Field{"note", DataType::String(), true}));
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.Get(0, "id"), Value::Int(7));
  EXPECT_EQ(out.Get(0, "amount"), Value::Decimal(150));
  ASSERT_EQ(out.rejected.size(), 2u);
  EXPECT_NE(out.rejected[0].reason.find("unknown __$operation '7'"), std::string::npos);
  EXPECT_NE(out.rejected[1].reason.find("'nine'"), std::string::npos) << out.rejected[1].reason;
}

}  // namespace
}  // namespace cdclake::sources
