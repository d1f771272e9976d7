// BronzeColumns: the metadata columns ingest adds, and change rows rebuilt from them (positions
// and unchanged marks), directly and through a Delta table.
#include "pipeline/bronze_columns.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "io/local_file_system.h"

namespace cdclake::pipeline {
namespace {

using data::DataType;
using data::Value;
using Names = std::vector<std::string>;

// Rows (1, 'a'), (2, 'b'), (3, NULL) from a.json@0, a.json@7, b.json@0; in row 1 `name` is
// unchanged, in row 2 both columns are.
change::ChangeBatch Marked() {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(
      data::Schema({{"id", DataType::Int64(), true}, {"name", DataType::String(), true}}));
  batch.rows.AppendRow({Value::Int(1), Value::Bytes("a")});
  batch.rows.AppendRow({Value::Int(2), Value::Bytes("b")});
  batch.rows.AppendRow({Value::Int(3), Value::Null()});
  batch.positions = {{"a.json", 1, 0}, {"a.json", 2, 7}, {"b.json", 1, 0}};
  batch.unchanged = {{0, 0, 1}, {0, 1, 1}};
  return batch;
}

Names FieldNames(const data::Schema& schema) {
  Names out;
  for (const data::Field& f : schema.fields()) out.push_back(f.name);
  return out;
}

TEST(BronzeColumnsTest, AddsFourColumnsAndMovesTheMarksIntoText) {
  change::ChangeBatch out = AddBronzeColumns(Marked(), 1234);
  EXPECT_EQ(FieldNames(out.rows.schema()), (Names{"id", "name", "_source_file", "_source_offset",
                                                  "_ingested_at", "_unchanged_columns"}));
  EXPECT_EQ(*out.rows.schema().field(3).type, *DataType::Int64());
  EXPECT_EQ(*out.rows.schema().field(4).type, *DataType::Timestamp());
  ASSERT_EQ(out.rows.num_rows(), 3);
  EXPECT_TRUE(out.unchanged.empty());
  EXPECT_EQ(out.positions.size(), 3u);  // kept
  const data::RecordBatch& rows = out.rows;
  EXPECT_EQ(rows.column(2).StringAt(1), "a.json");
  EXPECT_EQ(rows.column(2).StringAt(2), "b.json");
  EXPECT_EQ(rows.column(3).GetValue(1), Value::Int(7));
  for (int64_t r = 0; r < 3; ++r) EXPECT_EQ(rows.column(4).GetValue(r), Value::Int(1234));
  EXPECT_TRUE(rows.column(5).IsNull(0));
  EXPECT_EQ(rows.column(5).StringAt(1), "name");
  EXPECT_EQ(rows.column(5).StringAt(2), "id,name");
}

TEST(BronzeColumnsTest, RowsWithoutPositionsGetNullSourceColumns) {
  change::ChangeBatch batch = Marked();
  batch.positions.clear();
  batch.unchanged.clear();
  change::ChangeBatch out = AddBronzeColumns(std::move(batch), 5);
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_TRUE(out.rows.column(2).IsNull(r));
    EXPECT_TRUE(out.rows.column(3).IsNull(r));
    EXPECT_TRUE(out.rows.column(5).IsNull(r));
  }
}

TEST(BronzeColumnsTest, ChangeRowsFromTableRoundTripsPositionsAndMarks) {
  auto back = ChangeRowsFromTable(AddBronzeColumns(Marked(), 99).rows);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(FieldNames(back->rows.schema()),
            (Names{"id", "name", "_source_file", "_source_offset", "_ingested_at"}));
  ASSERT_EQ(back->rows.num_rows(), 3);
  EXPECT_EQ(back->rows.GetRow(2)[0], Value::Int(3));
  ASSERT_EQ(back->positions.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(back->positions[r].file, Marked().positions[r].file) << r;
    EXPECT_EQ(back->positions[r].byte_offset, Marked().positions[r].byte_offset) << r;
  }
  ASSERT_EQ(back->unchanged.size(), 5u);  // one per remaining column
  EXPECT_EQ(back->unchanged[0], (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(back->unchanged[1], (std::vector<uint8_t>{0, 1, 1}));
  for (size_t c = 2; c < 5; ++c) EXPECT_EQ(back->unchanged[c], (std::vector<uint8_t>{0, 0, 0}));
}

TEST(BronzeColumnsTest, NoMarksAndNoBronzeColumnsGiveEmptyMarksAndPositions) {
  change::ChangeBatch unmarked = Marked();
  unmarked.unchanged.clear();
  auto back = ChangeRowsFromTable(AddBronzeColumns(std::move(unmarked), 1).rows);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->unchanged.empty());
  EXPECT_EQ(back->positions.size(), 3u);

  auto plain = ChangeRowsFromTable(Marked().rows);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->positions.empty());
  EXPECT_TRUE(plain->unchanged.empty());
  EXPECT_EQ(FieldNames(plain->rows.schema()), (Names{"id", "name"}));
}

TEST(BronzeColumnsTest, AMarkNamingAMissingColumnIsCorrupt) {
  const std::pair<const char*, const char*> cases[] = {
      {"nope", "'nope'"}, {"id,nope", "'nope'"}, {"_unchanged_columns", "'_unchanged_columns'"}};
  for (const auto& [bad, named] : cases) {
    data::RecordBatch rows(data::Schema(
        {{"id", DataType::Int64(), true}, {"_unchanged_columns", DataType::String(), true}}));
    rows.AppendRow({Value::Int(1), Value::Null()});
    rows.AppendRow({Value::Int(2), Value::Bytes(bad)});
    auto back = ChangeRowsFromTable(std::move(rows));
    ASSERT_FALSE(back.ok()) << bad;
    EXPECT_EQ(back.status().code(), StatusCode::kCorrupt) << back.status().ToString();
    EXPECT_NE(back.status().message().find(named), std::string::npos) << back.status().ToString();
  }
}

TEST(BronzeColumnsTest, RoundTripThroughADeltaTable) {
  const std::string root = (std::filesystem::temp_directory_path() /
                            ("cdclake_bronze_columns_" + std::to_string(::getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                               .string();
  std::filesystem::remove_all(root);
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  change::ChangeBatch bronze = AddBronzeColumns(Marked(), 1700000000000000);
  delta::TableSpec spec;
  spec.schema = bronze.rows.schema();
  ASSERT_TRUE(delta::CreateTable(fs, root, spec).ok());
  auto appended = delta::AppendRows(fs, root, bronze.rows);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  auto snapshot = delta::Snapshot::Load(fs, root);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  auto rows = delta::ReadTable(fs, **snapshot);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  auto back = ChangeRowsFromTable(std::move(*rows));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->rows.num_rows(), 3);
  ASSERT_EQ(back->positions.size(), 3u);
  EXPECT_EQ(back->positions[1].file, "a.json");
  EXPECT_EQ(back->positions[1].byte_offset, 7);
  ASSERT_EQ(back->unchanged.size(), 5u);
  EXPECT_EQ(back->unchanged[1], (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(back->rows.column(4).GetValue(0), Value::Int(1700000000000000));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace cdclake::pipeline
