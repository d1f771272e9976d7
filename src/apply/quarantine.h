// Quarantine: a Delta table beside the target (`<target>_quarantine`) holding what a flow
// could not apply — raw record, reason, where it came from and when.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::apply {

/// The quarantine table's columns: raw STRING, reason STRING, source_file STRING,
/// source_line BIGINT, source_offset BIGINT, flow STRING, quarantined_at TIMESTAMP.
data::Schema QuarantineSchema();

/// Appends `records` to the quarantine table at `table_root` (created when missing) in one
/// commit whose commitInfo carries `operation_parameters` (pipelines record the flow's source
/// position there); returns its version, or nullopt when `records` is empty.
Result<std::optional<int64_t>> WriteQuarantine(
    io::FileSystem& fs, const std::string& table_root, const std::string& flow,
    const std::vector<change::RejectedRecord>& records, int64_t now_ms,
    const json::Json& operation_parameters = json::Json::object());

/// What tells one quarantined record from another: its file, byte offset, reason and raw text.
std::string QuarantineIdentity(const change::RejectedRecord& record);

/// The identities of the records `flow` wrote to the quarantine table at `table_root` (none
/// when there is no such table): a flow of named files reads them whole each run, so a record
/// it meets again is counted as quarantined but not written again (§8: a replay changes
/// nothing).
Result<std::set<std::string>> QuarantinedIdentities(const io::FileSystem& fs,
                                                    const std::string& table_root,
                                                    const std::string& flow);

/// Whether input at `a` was read before input at `b` when files are read in path order: the
/// file path bytewise, then the byte offset.
bool SortsBefore(const change::SourcePosition& a, const change::SourcePosition& b);

}  // namespace cdclake::apply
