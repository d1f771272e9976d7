// Schema and property changes (§Change Metadata): a new metaData action — with a protocol
// upgrade when the change turns on a feature — committed as its own version.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "data/schema.h"
#include "delta/actions.h"
#include "io/file_system.h"

namespace cdclake::delta {

class Snapshot;

/// `current` with writer feature `feature` (§Table Features): unchanged when it lists it
/// already; otherwise at writer version 7, listing the features its legacy writer version
/// implied, then `feature`. The reader version and features stay as they are.
Protocol WithWriterFeature(const Protocol& current, const std::string& feature);

/// Sets (or replaces) table properties; upgrades the protocol when a property needs a
/// feature the table lacks. Returns the committed version.
Result<int64_t> SetTableProperties(io::FileSystem& fs, const std::string& table_root,
                                   const std::map<std::string, std::string>& properties);

/// Brings the table's properties to `wanted` on the next run (properties `wanted` does not name
/// stay as they are): one SET TBLPROPERTIES commit of the values that differ, with a protocol
/// upgrade when one turns a feature on (deletion vectors, change data feed, ...). nullopt, and
/// no commit, when every value is set already. kInvalidArgument naming the property and why,
/// before anything is written, for a change Delta cannot make in place:
/// `delta.columnMapping.mode` (physical column names would change), `delta.enableDeletionVectors`
/// from true to false (files already carry deletion vectors), and cdclake's own records of how
/// the table was made (`cdclake.keys`, `cdclake.sequenceType`).
/// `snapshot` is the table's latest.
Result<std::optional<int64_t>> UpdateTableProperties(
    io::FileSystem& fs, const std::string& table_root, const Snapshot& snapshot,
    const std::map<std::string, std::string>& wanted);

/// Replaces the table's schema. Only additive changes are accepted: every existing column
/// keeps its name and type (nested structs may gain members) and new columns are nullable.
/// Field metadata of existing columns (type changes, identity, ...) is kept.
Result<int64_t> EvolveSchema(io::FileSystem& fs, const std::string& table_root,
                             const data::Schema& schema);

/// Widens top-level columns to the types in `new_types` (column name -> type) in one commit
/// (§Type Widening): each change must be a widening the spec lists (see IsTypeWidening) —
/// kInvalidArgument naming the column and both types otherwise, kNotFound for an unknown
/// column. The new metaData carries the wider schema, a {"fromType","toType"} entry appended to
/// each widened field's `delta.typeChanges`, and `delta.enableTypeWidening=true`; the protocol
/// gains `typeWidening` (reader and writer; (3, 7)) when it lists neither name, and
/// `timestampNtz` for a date widened to timestamp_ntz. Entries equal to the current type are
/// skipped; when nothing changes, returns the current version without committing.
/// kInvalidArgument when the table sets `delta.enableTypeWidening=false`, or when
/// icebergCompatV1/V2 is on and Iceberg V2 disallows the change.
Result<int64_t> WidenColumns(io::FileSystem& fs, const std::string& table_root,
                             const std::map<std::string, data::TypePtr>& new_types);

}  // namespace cdclake::delta
