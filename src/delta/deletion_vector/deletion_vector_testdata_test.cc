// The real deletion vectors of the conformance tables in ../shared/testdata/delta: every DV that
// a commit or compaction file names loads with its cardinality, the rows the tables' notes give
// are the ones deleted, and every .bin file parses end to end and re-serializes to the same rows
// in no more bytes (byte for byte where the writer chose the same containers).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "io/local_file_system.h"

namespace cdclake::delta {
namespace {

std::string TestdataRoot() {
  return std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
}

struct FoundDv {
  std::string log_file;
  DeletionVectorDescriptor dv;
};

// Every deletionVector of an add or remove in the table's JSON log files, in file order.
std::vector<FoundDv> DvsInLog(const std::string& table_root) {
  io::LocalFileSystem fs;
  std::vector<FoundDv> out;
  Result<std::vector<io::FileInfo>> files = fs.List(table_root + "/_delta_log");
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  if (!files.ok()) return out;
  for (const io::FileInfo& file : *files) {
    if (file.is_directory || !file.path.ends_with(".json")) continue;
    Result<std::string> content = fs.ReadFile(file.path);
    EXPECT_TRUE(content.ok());
    size_t start = 0;
    while (content.ok() && start < content->size()) {
      size_t end = content->find('\n', start);
      if (end == std::string::npos) end = content->size();
      const std::string line = content->substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      const nlohmann::json action = nlohmann::json::parse(line, nullptr, false);
      EXPECT_FALSE(action.is_discarded()) << file.path;
      for (const char* kind : {"add", "remove"}) {
        if (!action.contains(kind) || !action[kind].contains("deletionVector")) continue;
        const nlohmann::json& d = action[kind]["deletionVector"];
        if (d.is_null()) continue;
        DeletionVectorDescriptor dv;
        dv.storage_type = d.at("storageType").get<std::string>();
        dv.path_or_inline_dv = d.at("pathOrInlineDv").get<std::string>();
        if (d.contains("offset")) dv.offset = d.at("offset").get<int32_t>();
        dv.size_in_bytes = d.at("sizeInBytes").get<int32_t>();
        dv.cardinality = d.at("cardinality").get<int64_t>();
        out.push_back({file.path.substr(file.path.rfind('/') + 1), dv});
      }
    }
  }
  return out;
}

std::map<std::string, RowBitmap> LoadAll(const std::string& table_root) {
  io::LocalFileSystem fs;
  std::map<std::string, RowBitmap> out;  // by unique id
  for (const FoundDv& found : DvsInLog(table_root)) {
    Result<RowBitmap> bitmap = LoadDeletionVector(fs, table_root, found.dv);
    EXPECT_TRUE(bitmap.ok()) << found.log_file << ": " << bitmap.status().ToString();
    if (!bitmap.ok()) continue;
    EXPECT_EQ(bitmap->Cardinality(), static_cast<uint64_t>(found.dv.cardinality));
    out.emplace(found.dv.UniqueId(), std::move(bitmap).value());
  }
  return out;
}

using Rows = std::vector<uint64_t>;

TEST(DeletionVectorTestdataTest, EveryLoggedDvLoads) {
  const std::map<std::string, size_t> tables = {
      {"rs-table-with-dv-small", 1},
      {"synthetic-inline-dv", 1},
      {"golden-dv-partitioned-with-checkpoint/delta", 10},
      {"golden-dv-with-columnmapping/delta", 10},
      {"golden-log-replay-dv-key-cases/delta", 3},
      {"kernel-compacted-log-files-table", 10},
  };
  size_t total = 0;
  for (const auto& [table, distinct] : tables) {
    const std::map<std::string, RowBitmap> dvs = LoadAll(TestdataRoot() + "/" + table);
    EXPECT_EQ(dvs.size(), distinct) << table;
    total += dvs.size();
  }
  std::cout << "[ testdata ] " << total << " distinct deletion vectors loaded\n";
}

TEST(DeletionVectorTestdataTest, RowsOfKnownTables) {
  // 10 rows (values 0..9); the DV deletes row indexes 0 and 9, leaving values 1..8.
  for (const char* table : {"rs-table-with-dv-small", "synthetic-inline-dv"}) {
    const std::map<std::string, RowBitmap> dvs = LoadAll(TestdataRoot() + "/" + table);
    ASSERT_EQ(dvs.size(), 1u) << table;
    EXPECT_EQ(dvs.begin()->second.ToVector(), (Rows{0, 9})) << table;
  }

  // One file of ids 0..49; DELETEs of id 0, then 7, then 14 each replace the DV.
  const std::string root = TestdataRoot() + "/golden-log-replay-dv-key-cases/delta";
  io::LocalFileSystem fs;
  std::map<std::string, Rows> added;  // by log file
  for (const FoundDv& found : DvsInLog(root)) {
    Result<RowBitmap> bitmap = LoadDeletionVector(fs, root, found.dv);
    ASSERT_TRUE(bitmap.ok()) << bitmap.status().ToString();
    if (found.dv.cardinality == static_cast<int64_t>(bitmap->Cardinality())) {
      added[found.log_file + "#" + std::to_string(found.dv.cardinality)] = bitmap->ToVector();
    }
  }
  EXPECT_EQ(added["00000000000000000001.json#1"], (Rows{0}));
  EXPECT_EQ(added["00000000000000000002.json#2"], (Rows{0, 7}));
  EXPECT_EQ(added["00000000000000000003.json#3"], (Rows{0, 7, 14}));
}

TEST(DeletionVectorTestdataTest, TwoDvsInOneDatabricksFile) {
  // kernel-compacted-log-files-table v16: two DVs in one file, at offsets 1 and 43.
  const std::string root = TestdataRoot() + "/kernel-compacted-log-files-table";
  io::LocalFileSystem fs;
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = "F0u+Uo^@EuVa@tFk))2D";
  dv.size_in_bytes = 34;
  dv.cardinality = 1;
  for (int32_t offset : {1, 43}) {
    dv.offset = offset;
    Result<RowBitmap> bitmap = LoadDeletionVector(fs, root, dv);
    ASSERT_TRUE(bitmap.ok()) << bitmap.status().ToString();
    EXPECT_EQ(bitmap->Cardinality(), 1u);
  }
  // v24: a run container (cookie 12347) written by Databricks: rows 0..4 and 6.
  dv.path_or_inline_dv = "Xq<G^UbT+TGkmx<+7Y=5";
  dv.offset = 1;
  dv.size_in_bytes = 35;
  dv.cardinality = 6;
  Result<RowBitmap> runs = LoadDeletionVector(fs, root, dv);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  EXPECT_EQ(runs->ToVector(), (Rows{0, 1, 2, 3, 4, 6}));
}

uint32_t LoadBE32(const char* p) {
  return (uint32_t{static_cast<uint8_t>(p[0])} << 24) |
         (uint32_t{static_cast<uint8_t>(p[1])} << 16) |
         (uint32_t{static_cast<uint8_t>(p[2])} << 8) | uint32_t{static_cast<uint8_t>(p[3])};
}

// Every deletion_vector_*.bin below `dir`, parsed block by block.
struct BinCounts {
  size_t files = 0;
  size_t dvs = 0;
  size_t identical = 0;  // re-serialized byte for byte
};

void CheckBinFiles(const io::FileSystem& fs, const std::string& dir, BinCounts* counts) {
  Result<std::vector<io::FileInfo>> entries = fs.List(dir);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  for (const io::FileInfo& entry : *entries) {
    const std::string name = entry.path.substr(entry.path.rfind('/') + 1);
    if (entry.is_directory) {
      if (name != "_delta_log") CheckBinFiles(fs, entry.path, counts);
      continue;
    }
    if (!name.starts_with("deletion_vector_") || !name.ends_with(".bin")) continue;
    Result<std::string> data = fs.ReadFile(entry.path);
    ASSERT_TRUE(data.ok());
    ASSERT_GE(data->size(), 1u);
    EXPECT_EQ((*data)[0], '\x01') << entry.path;
    ++counts->files;
    size_t at = 1;
    while (at < data->size()) {
      ASSERT_LE(at + 4, data->size()) << entry.path;
      const uint32_t size = LoadBE32(data->data() + at);
      ASSERT_LE(at + 4 + size + 4, data->size()) << entry.path;
      const std::string_view bitmap_bytes = std::string_view(*data).substr(at + 4, size);
      EXPECT_EQ(LoadBE32(data->data() + at + 4 + size), Crc32(bitmap_bytes)) << entry.path;
      Result<RowBitmap> bitmap = RowBitmap::DeserializePortable(bitmap_bytes);
      ASSERT_TRUE(bitmap.ok()) << entry.path << " at " << at << ": " << bitmap.status().ToString();
      // CRoaring picks run containers where Spark kept arrays (e.g. rows {0, 1, 2}): the same
      // rows, never more bytes.
      const std::string ours = bitmap->SerializePortable();
      EXPECT_LE(ours.size(), bitmap_bytes.size()) << entry.path << " at " << at;
      Result<RowBitmap> again = RowBitmap::DeserializePortable(ours);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(*again, *bitmap);
      if (ours == bitmap_bytes) ++counts->identical;
      ++counts->dvs;
      at += 4 + size + 4;
    }
  }
}

TEST(DeletionVectorTestdataTest, EveryBinFileParsesAndReserializes) {
  io::LocalFileSystem fs;
  BinCounts counts;
  CheckBinFiles(fs, TestdataRoot(), &counts);
  EXPECT_GE(counts.files, 40u);
  EXPECT_GE(counts.identical, counts.dvs / 2);
  std::cout << "[ testdata ] " << counts.files << " deletion vector files, " << counts.dvs
            << " deletion vectors, " << counts.identical << " re-serialized byte for byte\n";
}

}  // namespace
}  // namespace cdclake::delta
