// Schema and property changes (§Change Metadata): a new metaData action — with a protocol
// upgrade when the change turns on a feature — committed as its own version.
#pragma once

#include <map>
#include <string>

#include "base/result.h"
#include "data/schema.h"
#include "io/file_system.h"

namespace cdclake::delta {

/// Sets (or replaces) table properties; upgrades the protocol when a property needs a
/// feature the table lacks. Returns the committed version.
Result<int64_t> SetTableProperties(io::FileSystem& fs, const std::string& table_root,
                                   const std::map<std::string, std::string>& properties);

/// Replaces the table's schema. Only additive changes are accepted: every existing column
/// keeps its name and type (nested structs may gain members) and new columns are nullable.
Result<int64_t> EvolveSchema(io::FileSystem& fs, const std::string& table_root,
                             const data::Schema& schema);

}  // namespace cdclake::delta
