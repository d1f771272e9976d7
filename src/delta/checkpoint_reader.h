// Reading checkpoints (§Checkpoints): classic single-file and multi-part Parquet checkpoints,
// and v2 checkpoints in JSON or Parquet with their sidecar files. Each Parquet row carries one
// action in the column named after its kind; rows become actions through their JSON form.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "data/data_type.h"
#include "data/value.h"
#include "delta/actions.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::delta {

/// The actions of a checkpoint made of `files` (the parts of one checkpoint, or one v2 file);
/// sidecars named by a v2 checkpoint are read too (from `<log>/_sidecars/`).
Result<std::vector<Action>> ReadCheckpoint(const io::FileSystem& fs, const std::string& table_root,
                                           const std::vector<std::string>& files);

/// A value as JSON, with struct members named and maps as objects keyed by the key's text.
json::Json ValueToJson(const data::Value& value, const data::DataType& type);

}  // namespace cdclake::delta
