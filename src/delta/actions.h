// The actions of the Delta log (PROTOCOL.md §Actions): their fields, and their JSON form in
// commit files and checkpoints. Unknown action kinds and unknown fields are ignored on read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/result.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "json/json.h"

namespace cdclake::delta {

using PartitionValues = std::map<std::string, std::optional<std::string>>;
using Tags = std::map<std::string, std::optional<std::string>>;

/// §Protocol Evolution.
struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::optional<std::vector<std::string>> reader_features;  // present at reader version 3
  std::optional<std::vector<std::string>> writer_features;  // present at writer version 7
};

/// §Change Metadata.
struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::string format_provider = "parquet";
  std::map<std::string, std::string> format_options;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  std::optional<int64_t> created_time;
};

/// §Add File and Remove File.
struct Add {
  std::string path;  // a relative or absolute URI, percent-encoded
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;
  std::optional<Tags> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
};

struct Remove {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<Tags> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
};

/// The remove action for `add`'s file at `now_ms`, carrying what the add said of the file
/// (partition values, size, stats, tags, deletion vector, row tracking).
Remove RemoveOf(const Add& add, int64_t now_ms, bool data_change = true);

/// §Add CDC File.
struct AddCdc {
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  bool data_change = false;
  std::optional<Tags> tags;
};

/// §Transaction Identifiers.
struct Txn {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
};

/// §Commit Provenance Information: kept whole; a few fields are read out.
struct CommitInfo {
  json::Json value = json::Json::object();
  std::optional<int64_t> in_commit_timestamp;
  std::optional<int64_t> timestamp;
  std::optional<std::string> operation;
};

/// §Domain Metadata.
struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
};

/// §Sidecar File Information (v2 checkpoints).
struct Sidecar {
  std::string path;
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
};

/// §Checkpoint Metadata (v2 checkpoints).
struct CheckpointMetadata {
  int64_t version = 0;
};

using Action = std::variant<Protocol, Metadata, Add, Remove, AddCdc, Txn, CommitInfo,
                            DomainMetadata, Sidecar, CheckpointMetadata>;

/// Parses one action object ({"add": {...}}); nullopt for an action kind this reader does not
/// know (the protocol lets readers ignore those).
Result<std::optional<Action>> ParseAction(const json::Json& line);
/// The action's JSON object, as it appears on a line of a commit file.
json::Json ActionToJson(const Action& action);

/// Every action of a commit file (newline-delimited JSON); errors name the line.
Result<std::vector<Action>> ParseActions(std::string_view content);
/// A commit file's content: one line per action, each ending in '\n'.
std::string ActionsToJsonLines(const std::vector<Action>& actions);

/// The DV-aware key of a file in log replay (§Action Reconciliation): path plus the deletion
/// vector's unique id, if any.
std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv);

}  // namespace cdclake::delta
