// Protocol rules for the tables cdclake writes (PROTOCOL.md §Actions, §Table Features,
// §Deletion Vectors, §Add CDC File): every feature combination we produce is written, deleted
// from and updated, then each action of each commit is checked against the spec.
#include <gtest/gtest.h>

#include <set>

#include "base/strings.h"
#include "delta/change_data_writer.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/log_segment.h"
#include "delta/partition_value.h"
#include "delta/row_deleter.h"
#include "delta/schema_json.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "io/memory_file_system.h"
#include "json/json.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Value;
using json::Json;

struct Combo {
  std::string name;
  bool partitioned = false;
  bool dvs = false;
  bool cdf = false;
  bool ntz = false;
  bool partition_by_ntz = false;
};

const std::vector<Combo> kCombos = {
    {"plain"},
    {"partitioned", true},
    {"dvs", false, true},
    {"dvs_partitioned", true, true},
    {"cdf", false, false, true},
    {"cdf_partitioned", true, false, true},
    {"dvs_cdf_partitioned", true, true, true},
    {"ntz", false, false, false, true},
    {"ntz_dvs_partitioned", true, true, false, true},
    {"partitioned_by_ntz", true, false, true, true, true},
};

TableSpec SpecFor(const Combo& c) {
  TableSpec spec;
  std::vector<data::Field> fields = {
      {"id", DataType::Int64(), false}, {"name", DataType::String()}, {"p", DataType::String()}};
  if (c.ntz) fields.push_back({"t", DataType::TimestampNtz()});
  spec.schema = data::Schema(fields);
  if (c.partitioned) spec.partition_columns = {c.partition_by_ntz ? "t" : "p"};
  if (c.dvs) spec.properties["delta.enableDeletionVectors"] = "true";
  if (c.cdf) spec.properties["delta.enableChangeDataFeed"] = "true";
  return spec;
}

data::RecordBatch RowsFor(const Combo& c, int64_t from, int64_t n) {
  // Partition values that need escaping in folder names and in the log's URIs.
  static const char* kP[] = {"a b", "x%y", "é/=:", nullptr, "plain", "#?[]"};
  data::RecordBatch b(SpecFor(c).schema);
  for (int64_t i = from; i < from + n; ++i) {
    std::vector<Value> row = {Value::Int(i), Value::Bytes("name " + std::to_string(i)),
                              kP[i % 6] ? Value::Bytes(kP[i % 6]) : Value::Null()};
    if (c.ntz) row.push_back(Value::Int(1700000000000000 + (i % 3) * 3600000000LL + 123456));
    b.AppendRow(row);
  }
  return b;
}

// Where the rows with these ids are (physical positions, including rows already deleted).
std::map<std::string, std::vector<int64_t>> Positions(const io::FileSystem& fs, const Snapshot& s,
                                                      const std::set<int64_t>& ids) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const Add& add : s.files()) {
    Add whole = add;
    whole.deletion_vector.reset();
    auto rows = ReadDataFile(fs, s, whole);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) continue;
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      if (ids.count(rows->column(0).GetValue(r).int_value())) out[add.path].push_back(r);
    }
  }
  return out;
}

Status Commit(io::FileSystem& fs, const std::string& root, const std::vector<Action>& actions,
              const std::string& operation) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, root));
  Transaction txn(fs, root, snapshot);
  for (const Action& a : actions) txn.Add(a);
  CommitOptions options;
  options.operation = operation;
  return txn.Commit(options).status();
}

// Writes the table: two appends, a small delete, an update with change data when the change
// data feed is on, and a large scattered delete.
Status WriteTable(io::FileSystem& fs, const std::string& root, const Combo& c) {
  CDCLAKE_RETURN_IF_ERROR(CreateTable(fs, root, SpecFor(c)).status());
  CDCLAKE_RETURN_IF_ERROR(AppendRows(fs, root, RowsFor(c, 0, 60)).status());
  CDCLAKE_RETURN_IF_ERROR(AppendRows(fs, root, RowsFor(c, 60, 20)).status());
  CDCLAKE_ASSIGN_OR_RETURN(auto s, Snapshot::Load(fs, root));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Action> small,
                           DeleteRows(fs, *s, Positions(fs, *s, {1, 2, 61})));
  CDCLAKE_RETURN_IF_ERROR(Commit(fs, root, small, "DELETE"));
  if (c.cdf) {
    CDCLAKE_ASSIGN_OR_RETURN(s, Snapshot::Load(fs, root));
    DeleteRowsOptions options;
    options.collect_deleted_rows = true;
    options.write_change_data = false;
    CDCLAKE_ASSIGN_OR_RETURN(RowDeletion update,
                             DeleteRows(fs, *s, Positions(fs, *s, {10, 11}), options));
    data::RecordBatch post = RowsFor(c, 10, 2);
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Add> adds, WriteDataFiles(fs, *s, post));
    data::RecordBatch changes = WithChangeType(update.deleted_rows, kChangeUpdatePreimage);
    data::RecordBatch post_changes = WithChangeType(post, kChangeUpdatePostimage);
    for (size_t i = 0; i < changes.num_columns(); ++i)
      changes.mutable_column(i).AppendColumn(post_changes.column(i));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<AddCdc> cdc, WriteChangeDataFiles(fs, *s, changes));
    std::vector<Action> actions = update.actions;
    for (const Add& a : adds) actions.push_back(a);
    for (const AddCdc& a : cdc) actions.push_back(a);
    CDCLAKE_RETURN_IF_ERROR(Commit(fs, root, actions, "UPDATE"));
  }
  CDCLAKE_ASSIGN_OR_RETURN(s, Snapshot::Load(fs, root));
  std::set<int64_t> many;
  for (int64_t i = 0; i < 60; i += 2) many.insert(i);
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<Action> big, DeleteRows(fs, *s, Positions(fs, *s, many)));
  return Commit(fs, root, big, "DELETE");
}

const std::set<std::string> kReaderWriterFeatures = {
    "columnMapping",  "deletionVectors", "timestampNtz", "v2Checkpoint",    "vacuumProtocolCheck",
    "catalogManaged", "typeWidening",    "variantType",  "variantShredding"};
const std::set<std::string> kWriterOnlyFeatures = {
    "appendOnly",          "invariants",      "checkConstraints", "generatedColumns",
    "allowColumnDefaults", "changeDataFeed",  "identityColumns",  "rowTracking",
    "domainMetadata",      "icebergCompatV1", "icebergCompatV2",  "clustering",
    "inCommitTimestamp"};

std::set<std::string> Strings(const Json& array) {
  std::set<std::string> out;
  for (const Json& e : array) {
    EXPECT_TRUE(e.is_string()) << e.dump();
    if (e.is_string()) out.insert(e.get<std::string>());
  }
  return out;
}

bool IsGuid(const std::string& s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Checks that `path` is relative, percent-encoded as the protocol wants (decoding and encoding
// again gives it back) and that ResolvePath finds the file; returns the file's path.
std::string CheckPath(const io::FileSystem& fs, const std::string& root, const std::string& path,
                      const std::string& where) {
  EXPECT_FALSE(path.empty()) << where;
  EXPECT_NE(path[0], '/') << where << ": absolute path " << path;
  EXPECT_EQ(path.find("://"), std::string::npos) << where << ": " << path;
  auto decoded = PercentDecode(path);
  EXPECT_TRUE(decoded.ok()) << where << ": " << path;
  if (decoded.ok()) {
    EXPECT_EQ(PercentEncodePath(*decoded), path) << where << ": not encoded";
  }
  for (char ch : path) {
    EXPECT_TRUE(static_cast<unsigned char>(ch) > 0x20 && static_cast<unsigned char>(ch) < 0x7F &&
                ch != ' ')
        << where << ": raw character in " << path;
  }
  auto resolved = ResolvePath(root, path);
  EXPECT_TRUE(resolved.ok()) << where;
  if (!resolved.ok()) return "";
  auto exists = fs.Exists(*resolved);
  EXPECT_TRUE(exists.ok() && *exists) << where << ": no file at " << *resolved;
  return *resolved;
}

void CheckPartitionValues(const Json& values, const std::vector<std::string>& columns,
                          const data::Schema& schema, const std::string& where) {
  ASSERT_TRUE(values.is_object()) << where;
  std::set<std::string> keys;
  for (auto it = values.begin(); it != values.end(); ++it) {
    keys.insert(it.key());
    ASSERT_TRUE(it->is_string() || it->is_null()) << where << ": " << it->dump();
    int field = schema.FieldIndex(it.key());
    ASSERT_GE(field, 0) << where;
    std::optional<std::string> text;
    if (it->is_string()) text = it->get<std::string>();
    auto parsed = ParsePartitionValue(text, *schema.field(field).type);
    EXPECT_TRUE(parsed.ok()) << where << ": partition value " << it->dump();
  }
  EXPECT_EQ(keys, std::set<std::string>(columns.begin(), columns.end())) << where;
}

// Every action of every commit of the table at `root`.
void CheckLog(const io::FileSystem& fs, const std::string& root, bool expect_dvs_used) {
  auto commits = ListCommits(fs, root);
  ASSERT_TRUE(commits.ok());
  std::optional<Json> protocol, metadata;
  data::Schema schema;
  std::map<std::string, Json> live;  // path -> add
  bool dvs_used = false, cdc_used = false;
  for (const LogFile& commit : *commits) {
    const std::string at = root + " v" + std::to_string(commit.version);
    auto content = fs.ReadFile(commit.path);
    ASSERT_TRUE(content.ok());
    ASSERT_FALSE(content->empty());
    EXPECT_EQ(content->back(), '\n') << at;
    std::set<std::string> added_keys, removed_keys;
    std::vector<Json> actions;
    for (const std::string& line : Split(*content, '\n')) {
      if (line.empty()) continue;
      auto parsed = json::Parse(line);
      ASSERT_TRUE(parsed.ok()) << at << ": " << line;
      ASSERT_TRUE(parsed->is_object() && parsed->size() == 1) << at << ": " << line;
      actions.push_back(*parsed);
    }
    int protocols = 0, metadatas = 0;
    for (const Json& line : actions) {
      const std::string kind = line.begin().key();
      const Json& a = line.begin().value();
      const std::string where = at + " " + kind;
      ASSERT_TRUE(a.is_object()) << where;
      if (kind == "commitInfo") {
        EXPECT_TRUE(a.contains("timestamp") && a["timestamp"].is_number_integer()) << where;
        EXPECT_TRUE(a.contains("operation") && a["operation"].is_string()) << where;
      } else if (kind == "protocol") {
        ++protocols;
        ASSERT_TRUE(a["minReaderVersion"].is_number_integer()) << where;
        ASSERT_TRUE(a["minWriterVersion"].is_number_integer()) << where;
        protocol = a;
      } else if (kind == "metaData") {
        ++metadatas;
        ASSERT_TRUE(a["id"].is_string()) << where;
        EXPECT_TRUE(IsGuid(a["id"].get<std::string>())) << where << ": " << a["id"];
        ASSERT_TRUE(a["format"].is_object()) << where;
        EXPECT_EQ(a["format"]["provider"], "parquet") << where;
        EXPECT_TRUE(a["format"]["options"].is_object()) << where;
        ASSERT_TRUE(a["schemaString"].is_string()) << where;
        auto parsed = ParseSchemaJson(a["schemaString"].get<std::string>());
        ASSERT_TRUE(parsed.ok()) << where;
        schema = *parsed;
        ASSERT_TRUE(a["partitionColumns"].is_array()) << where;
        for (const std::string& p : Strings(a["partitionColumns"]))
          EXPECT_GE(schema.FieldIndex(p), 0) << where;
        ASSERT_TRUE(a["configuration"].is_object()) << where;
        for (const Json& v : a["configuration"]) EXPECT_TRUE(v.is_string()) << where;
        if (a.contains("createdTime")) {
          EXPECT_TRUE(a["createdTime"].is_number_integer());
        }
        metadata = a;
      } else if (kind == "add" || kind == "remove" || kind == "cdc") {
        ASSERT_TRUE(metadata.has_value()) << where << " before any metaData";
        ASSERT_TRUE(a["path"].is_string()) << where;
        const std::string path = a["path"].get<std::string>();
        ASSERT_TRUE(a.contains("dataChange") && a["dataChange"].is_boolean()) << where;
        std::vector<std::string> partition_columns =
            (*metadata)["partitionColumns"].get<std::vector<std::string>>();
        if (kind == "remove") {
          EXPECT_TRUE(a["deletionTimestamp"].is_number_integer()) << where;
          EXPECT_EQ(a.value("extendedFileMetadata", false), true) << where;
          EXPECT_TRUE(a["size"].is_number_integer()) << where;
          CheckPartitionValues(a["partitionValues"], partition_columns, schema, where);
          // The remove names the live file exactly, deletion vector included.
          auto it = live.find(path);
          ASSERT_NE(it, live.end()) << where << ": " << path << " is not live";
          EXPECT_EQ(a.value("deletionVector", Json()), it->second.value("deletionVector", Json()))
              << where;
          EXPECT_EQ(a["size"], it->second["size"]) << where;
          EXPECT_EQ(a["partitionValues"], it->second["partitionValues"]) << where;
          std::string key = path + "@" + a.value("deletionVector", Json()).dump();
          EXPECT_TRUE(removed_keys.insert(key).second) << where << ": removed twice";
          live.erase(it);
          continue;
        }
        const std::string file = CheckPath(fs, root, path, where);
        CheckPartitionValues(a["partitionValues"], partition_columns, schema, where);
        ASSERT_TRUE(a["size"].is_number_integer()) << where;
        auto info = fs.Stat(file);
        ASSERT_TRUE(info.ok()) << where;
        EXPECT_EQ(a["size"].get<int64_t>(), static_cast<int64_t>(info->size)) << where;
        auto reader = parquet::FileReader::Open(fs, file);
        ASSERT_TRUE(reader.ok()) << where << ": " << reader.status().ToString();
        // Partition columns live in the log, not in the files.
        for (const std::string& p : partition_columns)
          EXPECT_LT((*reader)->schema().FieldIndex(p), 0) << where << ": " << p << " in the file";
        if (kind == "cdc") {
          cdc_used = true;
          EXPECT_FALSE(a["dataChange"].get<bool>()) << where;
          EXPECT_EQ(path.rfind("_change_data/", 0), 0u) << where;
          EXPECT_GE((*reader)->schema().FieldIndex("_change_type"), 0) << where;
          continue;
        }
        EXPECT_TRUE(a["modificationTime"].is_number_integer()) << where;
        EXPECT_LT((*reader)->schema().FieldIndex("_change_type"), 0) << where;
        ASSERT_TRUE(a["stats"].is_string()) << where << ": stats must be a JSON string";
        auto stats = json::Parse(a["stats"].get<std::string>());
        ASSERT_TRUE(stats.ok() && stats->is_object()) << where;
        ASSERT_TRUE((*stats)["numRecords"].is_number_integer()) << where << ": no numRecords";
        const int64_t records = (*stats)["numRecords"].get<int64_t>();
        EXPECT_EQ(records, (*reader)->num_rows()) << where;
        EXPECT_GT(records, 0) << where << ": an empty data file";
        if (a.contains("deletionVector") && !a["deletionVector"].is_null()) {
          dvs_used = true;
          const Json& dv = a["deletionVector"];
          const std::string type = dv["storageType"].get<std::string>();
          EXPECT_TRUE(type == "u" || type == "i") << where;
          EXPECT_EQ(dv.contains("offset"), type == "u") << where;
          EXPECT_TRUE(dv["sizeInBytes"].is_number_integer()) << where;
          EXPECT_TRUE(dv["cardinality"].is_number_integer()) << where;
          auto parsed = ParseActions(json::Dump(line));
          ASSERT_TRUE(parsed.ok() && parsed->size() == 1) << where;
          const Add& add = std::get<Add>((*parsed)[0]);
          auto bitmap = LoadDeletionVector(fs, root, *add.deletion_vector);
          ASSERT_TRUE(bitmap.ok()) << where << ": " << bitmap.status().ToString();
          EXPECT_LT(static_cast<int64_t>(bitmap->Cardinality()), records) << where;
          EXPECT_LT(static_cast<int64_t>(*bitmap->Max()), records) << where;
          // min/max were not recomputed for the valid rows.
          if (stats->contains("minValues")) {
            EXPECT_EQ((*stats)["tightBounds"], false) << where;
          }
        }
        std::string key = path + "@" + a.value("deletionVector", Json()).dump();
        EXPECT_TRUE(added_keys.insert(key).second) << where << ": added twice";
        EXPECT_FALSE(removed_keys.count(key)) << where << ": added and removed";
        live[path] = a;
      } else {
        ADD_FAILURE() << where << ": cdclake should not write this action";
      }
    }
    EXPECT_LE(protocols, 1) << at;
    EXPECT_LE(metadatas, 1) << at;
    if (commit.version == 0) {
      EXPECT_EQ(protocols, 1) << at;
      EXPECT_EQ(metadatas, 1) << at;
    }
    // The protocol must fit the table as it is after this commit.
    ASSERT_TRUE(protocol && metadata) << at;
    const Json& p = *protocol;
    const int reader = p["minReaderVersion"].get<int>();
    const int writer = p["minWriterVersion"].get<int>();
    EXPECT_EQ(p.contains("readerFeatures"), reader == 3) << at << ": " << p.dump();
    EXPECT_EQ(p.contains("writerFeatures"), writer == 7) << at << ": " << p.dump();
    if (reader == 3) {
      EXPECT_EQ(writer, 7) << at;
    }
    EXPECT_TRUE(reader >= 1 && reader <= 3 && writer >= 2 && writer <= 7) << at;
    std::set<std::string> rf =
        p.contains("readerFeatures") ? Strings(p["readerFeatures"]) : std::set<std::string>{};
    std::set<std::string> wf =
        p.contains("writerFeatures") ? Strings(p["writerFeatures"]) : std::set<std::string>{};
    for (const std::string& f : rf) {
      EXPECT_TRUE(kReaderWriterFeatures.count(f)) << at << ": reader feature " << f;
      EXPECT_TRUE(wf.count(f)) << at << ": " << f << " not in writerFeatures";
    }
    for (const std::string& f : wf) {
      EXPECT_TRUE(kReaderWriterFeatures.count(f) || kWriterOnlyFeatures.count(f))
          << at << ": " << f;
      if (kReaderWriterFeatures.count(f)) {
        EXPECT_TRUE(rf.count(f)) << at << ": " << f;
      }
    }
    const Json& conf = (*metadata)["configuration"];
    auto on = [&](const char* key) { return conf.value(key, "") == "true"; };
    // The features the table uses, each listed (or implied by a legacy version).
    if (on("delta.enableDeletionVectors") || dvs_used) {
      EXPECT_TRUE(rf.count("deletionVectors") && wf.count("deletionVectors")) << at;
    }
    bool ntz = false, not_null = false;
    for (const data::Field& f : schema.fields()) {
      ntz = ntz || f.type->id() == data::TypeId::kTimestampNtz;
      not_null = not_null || !f.nullable;
    }
    if (ntz) {
      EXPECT_TRUE(rf.count("timestampNtz") && wf.count("timestampNtz")) << at;
    }
    if (on("delta.enableChangeDataFeed") || cdc_used) {
      EXPECT_TRUE(writer == 7 ? wf.count("changeDataFeed") > 0 : writer >= 4) << at;
    }
    if (writer == 7) {
      // Spark requires invariants listed when a column is NOT NULL; appendOnly and invariants
      // are what writer version 2 implied.
      if (not_null) {
        EXPECT_TRUE(wf.count("invariants")) << at;
      }
      EXPECT_TRUE(wf.count("appendOnly")) << at;
    }
    if (!ntz && !on("delta.enableDeletionVectors") && !dvs_used) {
      EXPECT_LT(reader, 3) << at << ": reader features without a need";
    }
  }
  EXPECT_EQ(dvs_used, expect_dvs_used) << root;
}

TEST(ProtocolRulesTest, EveryFeatureCombinationWritesAValidLog) {
  for (const Combo& c : kCombos) {
    SCOPED_TRACE(c.name);
    io::MemoryFileSystem fs;
    const std::string root = "/tables/" + c.name;
    Status written = WriteTable(fs, root, c);
    ASSERT_TRUE(written.ok()) << written.ToString();
    CheckLog(fs, root, c.dvs);
    // And the table reads back.
    auto snapshot = Snapshot::Load(fs, root);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto rows = ReadTable(fs, **snapshot);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->num_rows(), (*snapshot)->num_records());
    EXPECT_EQ(rows->num_rows(), 80 - 3 - 29);  // ids 1, 2, 61, and the even ids below 60 but 2
  }
}

}  // namespace
}  // namespace cdclake::delta
