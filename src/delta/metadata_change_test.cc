// Tests for schema and property changes.
#include "delta/metadata_change.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "io/memory_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;

TEST(MetadataChangeTest, AddedColumnReadsNullForOlderFiles) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64(), false}, {"name", DataType::String()}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  data::RecordBatch rows(spec.schema);
  rows.AppendRow({Value::Int(1), Value::Bytes("a")});
  ASSERT_TRUE(AppendRows(fs, "/t", rows).ok());

  data::Schema wider({{"id", DataType::Int64(), false},
                      {"name", DataType::String()},
                      {"city", DataType::String()}});
  auto v = EvolveSchema(fs, "/t", wider);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  data::RecordBatch more(wider);
  more.AppendRow({Value::Int(2), Value::Bytes("b"), Value::Bytes("Oslo")});
  ASSERT_TRUE(AppendRows(fs, "/t", more).ok());

  auto snap = *Snapshot::Load(fs, "/t");
  EXPECT_TRUE(snap->schema() == wider);
  auto read = ReadTable(fs, *snap);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->num_rows(), 2);
  std::set<std::string> got;
  for (int64_t r = 0; r < read->num_rows(); ++r) {
    std::string row;
    for (const Value& val : read->GetRow(r)) row += val.DebugString() + "|";
    got.insert(row);
  }
  EXPECT_EQ(got, (std::set<std::string>{"1|'a'|NULL|", "2|'b'|'Oslo'|"}));
}

TEST(MetadataChangeTest, RejectsDropsTypeChangesAndRequiredNewColumns) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64(), false}, {"name", DataType::String()}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  EXPECT_EQ(
      EvolveSchema(fs, "/t", data::Schema({{"id", DataType::Int64(), false}})).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      EvolveSchema(fs, "/t",
                   data::Schema({{"id", DataType::String(), false}, {"name", DataType::String()}}))
          .status()
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(EvolveSchema(fs, "/t",
                         data::Schema({{"id", DataType::Int64(), false},
                                       {"name", DataType::String()},
                                       {"x", DataType::Int32(), false}}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ((*Snapshot::Load(fs, "/t"))->version(), 0);
}

TEST(MetadataChangeTest, PropertiesUpgradeTheProtocolWhenAFeatureIsTurnedOn) {
  io::MemoryFileSystem fs;
  TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64(), false}});
  ASSERT_TRUE(CreateTable(fs, "/t", spec).ok());
  ASSERT_TRUE(SetTableProperties(fs, "/t", {{"delta.appendOnly", "false"}}).ok());
  auto plain = *Snapshot::Load(fs, "/t");
  EXPECT_EQ(plain->protocol().min_reader_version, 1);
  EXPECT_EQ(plain->Property("delta.appendOnly"), "false");
  ASSERT_TRUE(SetTableProperties(fs, "/t", {{"delta.enableDeletionVectors", "true"}}).ok());
  auto dv = *Snapshot::Load(fs, "/t");
  EXPECT_EQ(dv->protocol().min_reader_version, 3);
  EXPECT_EQ(dv->protocol().min_writer_version, 7);
  ASSERT_TRUE(dv->protocol().reader_features.has_value());
  EXPECT_NE(std::find(dv->protocol().reader_features->begin(),
                      dv->protocol().reader_features->end(), "deletionVectors"),
            dv->protocol().reader_features->end());
}

}  // namespace
}  // namespace cdclake::delta
