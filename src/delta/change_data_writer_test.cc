// Tests for writing change data files: layout under _change_data/, the cdc actions, what the
// files hold, and the checks on the input.
#include "delta/change_data_writer.h"

#include <gtest/gtest.h>

#include "delta/change_feed.h"
#include "delta/change_test_util.h"
#include "delta/table_scan.h"
#include "io/memory_file_system.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;
using testing::CommitActions;
using testing::PeopleRows;
using testing::PeopleSpec;
using testing::RowSet;

const std::map<std::string, std::string> kCdf = {{"delta.enableChangeDataFeed", "true"}};

// Rows of PeopleRows with _change_type cycling through the four kinds.
data::RecordBatch Changes(int64_t n) {
  data::RecordBatch rows = PeopleRows(0, n);
  static const char* kKinds[] = {"insert", "delete", "update_preimage", "update_postimage"};
  data::Column types(DataType::String());
  for (int64_t i = 0; i < n; ++i) types.AppendBytes(kKinds[i % 4]);
  std::vector<data::Field> fields = rows.schema().fields();
  fields.push_back({"_change_type", DataType::String()});
  std::vector<data::Column> columns = rows.columns();
  columns.push_back(std::move(types));
  return data::RecordBatch(data::Schema(fields), std::move(columns));
}

TEST(ChangeDataWriterTest, PartitionedFilesUnderChangeData) {
  io::MemoryFileSystem fs;
  auto snapshot = CreateTable(fs, "/t", PeopleSpec(true, kCdf));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_TRUE(ChangeDataFeedEnabled(**snapshot));
  data::RecordBatch changes = Changes(20);
  auto cdc = WriteChangeDataFiles(fs, **snapshot, changes);
  ASSERT_TRUE(cdc.ok()) << cdc.status().ToString();
  ASSERT_EQ(cdc->size(), 3u);  // two days and NULL
  int64_t rows = 0;
  for (const AddCdc& c : *cdc) {
    EXPECT_FALSE(c.data_change);
    ASSERT_EQ(c.partition_values.size(), 1u);
    const std::optional<std::string>& day = c.partition_values.at("day");
    std::string folder =
        "_change_data/day=" + (day ? *day : "__HIVE_DEFAULT_PARTITION__") + "/cdc-";
    EXPECT_EQ(c.path.rfind(folder, 0), 0u) << c.path;
    auto path = ResolvePath("/t", c.path);
    ASSERT_TRUE(path.ok());
    auto info = fs.Stat(*path);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(static_cast<int64_t>(info->size), c.size);
    // The file holds the data columns and _change_type, not the partition column.
    auto reader = parquet::FileReader::Open(fs, *path);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->schema().ToString(),
              "id bigint\nname string\namount decimal(20,2)\n_change_type string\n");
    rows += (*reader)->num_rows();
  }
  EXPECT_EQ(rows, 20);
  // Committed, the change feed returns exactly these rows.
  std::vector<Action> actions(cdc->begin(), cdc->end());
  ASSERT_EQ(*CommitActions(fs, "/t", actions, "UPDATE"), 1);
  auto feed = ReadChanges(fs, "/t", 1, 1);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  EXPECT_EQ(RowSet(*feed, 5), RowSet(changes));
}

TEST(ChangeDataWriterTest, UnpartitionedAndEscapedPartitionFolders) {
  io::MemoryFileSystem fs;
  auto plain = CreateTable(fs, "/plain", PeopleSpec(false, kCdf));
  ASSERT_TRUE(plain.ok());
  auto cdc = WriteChangeDataFiles(fs, **plain, Changes(3));
  ASSERT_TRUE(cdc.ok());
  ASSERT_EQ(cdc->size(), 1u);
  EXPECT_EQ((*cdc)[0].path.rfind("_change_data/cdc-00000-", 0), 0u);
  EXPECT_TRUE((*cdc)[0].partition_values.empty());

  TableSpec spec;
  spec.schema = data::Schema({{"k", DataType::Int32()}, {"p", DataType::String()}});
  spec.partition_columns = {"p"};
  spec.properties = kCdf;
  auto odd = CreateTable(fs, "/odd", spec);
  ASSERT_TRUE(odd.ok());
  data::RecordBatch rows(data::Schema(
      {{"k", DataType::Int32()}, {"p", DataType::String()}, {"_change_type", DataType::String()}}));
  rows.AppendRow({Value::Int(1), Value::Bytes("a b%c/d=é"), Value::Bytes("insert")});
  cdc = WriteChangeDataFiles(fs, **odd, rows);
  ASSERT_TRUE(cdc.ok()) << cdc.status().ToString();
  ASSERT_EQ(cdc->size(), 1u);
  EXPECT_EQ((*cdc)[0].partition_values.at("p"), std::optional<std::string>("a b%c/d=é"));
  // Hive-escaped folder, then percent-encoded for the log.
  EXPECT_EQ((*cdc)[0].path.rfind("_change_data/p=a%20b%2525c%252Fd%253D%C3%A9/cdc-", 0), 0u)
      << (*cdc)[0].path;
  auto path = ResolvePath("/odd", (*cdc)[0].path);
  ASSERT_TRUE(path.ok());
  EXPECT_TRUE(*fs.Exists(*path)) << *path;
  ASSERT_TRUE(CommitActions(fs, "/odd", {(*cdc)[0]}, "MERGE").ok());
  auto feed = ReadChanges(fs, "/odd", 1);
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  ASSERT_EQ(feed->num_rows(), 1);
  EXPECT_EQ(feed->column(1).GetValue(0).bytes(), "a b%c/d=é");
}

TEST(ChangeDataWriterTest, RejectsRowsThatAreNotTheTablesChanges) {
  io::MemoryFileSystem fs;
  auto snapshot = CreateTable(fs, "/t", PeopleSpec(false, kCdf));
  ASSERT_TRUE(snapshot.ok());
  auto code = [&](const data::RecordBatch& rows) {
    return WriteChangeDataFiles(fs, **snapshot, rows).status().code();
  };
  EXPECT_EQ(code(PeopleRows(0, 2)), StatusCode::kInvalidArgument);  // no _change_type
  data::RecordBatch changes = Changes(4);
  std::vector<data::Field> fields = changes.schema().fields();
  fields[4].type = DataType::Int32();
  data::Column ints(DataType::Int32());
  for (int i = 0; i < 4; ++i) ints.Append<int32_t>(i);
  std::vector<data::Column> columns = changes.columns();
  columns[4] = ints;
  EXPECT_EQ(code(data::RecordBatch(data::Schema(fields), columns)), StatusCode::kInvalidArgument);
  fields = changes.schema().fields();
  fields[1].name = "nom";
  EXPECT_EQ(code(data::RecordBatch(data::Schema(fields), changes.columns())),
            StatusCode::kInvalidArgument);
  for (Value bad : {Value::Null(), Value::Bytes("upsert")}) {
    data::RecordBatch one(changes.schema());
    one.AppendRow({Value::Int(1), Value::Null(), Value::Null(), Value::Null(), bad});
    EXPECT_EQ(code(one), StatusCode::kInvalidArgument);
  }
  auto none = WriteChangeDataFiles(fs, **snapshot, Changes(0));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(*fs.Exists("/t/_change_data"));
}

TEST(ChangeDataWriterTest, WithChangeTypeAppendsTheColumn) {
  data::RecordBatch rows = WithChangeType(PeopleRows(0, 3), kChangeDelete);
  ASSERT_EQ(rows.num_columns(), 5u);
  EXPECT_EQ(rows.schema().field(4).name, "_change_type");
  for (int64_t r = 0; r < 3; ++r) EXPECT_EQ(rows.column(4).GetValue(r).bytes(), "delete");
  EXPECT_TRUE(IsChangeType("update_postimage"));
  EXPECT_FALSE(IsChangeType("update"));
}

TEST(ChangeDataWriterTest, ChangeDataFeedEnabledFollowsTheProtocol) {
  io::MemoryFileSystem fs;
  auto off = CreateTable(fs, "/off", PeopleSpec(false));
  auto legacy = CreateTable(fs, "/legacy", PeopleSpec(false, kCdf));  // (1, 4)
  auto features =
      CreateTable(fs, "/features",
                  PeopleSpec(false, {{"delta.enableChangeDataFeed", "true"},
                                     {"delta.enableDeletionVectors", "true"}}));  // (3, 7)
  ASSERT_TRUE(off.ok() && legacy.ok() && features.ok());
  EXPECT_FALSE(ChangeDataFeedEnabled(**off));
  EXPECT_EQ((*legacy)->protocol().min_writer_version, 4);
  EXPECT_TRUE(ChangeDataFeedEnabled(**legacy));
  EXPECT_EQ((*features)->protocol().min_writer_version, 7);
  EXPECT_TRUE(ChangeDataFeedEnabled(**features));
}

}  // namespace
}  // namespace cdclake::delta
