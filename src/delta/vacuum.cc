// Vacuum: the referenced set (live adds, tombstones within retention, their deletion-vector
// files), a walk of the table folder that skips hidden and log folders, and the deletes.
#include "delta/vacuum.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include "base/strings.h"
#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/schema_json.h"
#include "delta/table_scan.h"

namespace cdclake::delta {

namespace {

constexpr int64_t kMsPerHour = 3600LL * 1000;

// Writer features whose files vacuum knows how to find: none of them puts data or deletion
// vectors anywhere but live adds, tombstones, `_delta_log` and `_change_data`.
bool IsKnownWriterFeature(const std::string& f) {
  static const std::set<std::string> kKnown = {"appendOnly",
                                               "invariants",
                                               "checkConstraints",
                                               "generatedColumns",
                                               "allowColumnDefaults",
                                               "changeDataFeed",
                                               "identityColumns",
                                               "columnMapping",
                                               "deletionVectors",
                                               "timestampNtz",
                                               "v2Checkpoint",
                                               "vacuumProtocolCheck",
                                               "domainMetadata",
                                               "rowTracking",
                                               "icebergCompatV1",
                                               "icebergCompatV2",
                                               "clustering",
                                               "inCommitTimestamp",
                                               "typeWidening",
                                               "typeWidening-preview",
                                               "variantType",
                                               "variantType-preview",
                                               "variantShredding-preview"};
  return kKnown.count(f) > 0;
}

Status CheckVacuumable(const Protocol& p) {
  if (p.min_writer_version > 7) {
    return Status::NotSupported("not supported: vacuum of a table at writer version " +
                                std::to_string(p.min_writer_version));
  }
  for (const std::string& f : p.writer_features.value_or(std::vector<std::string>{})) {
    if (!IsKnownWriterFeature(f)) {
      return Status::NotSupported("not supported: vacuum of a table with writer feature " + f);
    }
  }
  return Status::OK();
}

// Milliseconds per unit; 0 for an unknown unit. Sub-millisecond units are handled by the caller.
int64_t UnitMs(const std::string& unit) {
  std::string u = unit;
  if (u.size() > 1 && u.back() == 's' && u != "ms" && u != "us" && u != "ns") u.pop_back();
  if (u == "week") return 7 * 24 * kMsPerHour;
  if (u == "day") return 24 * kMsPerHour;
  if (u == "hour") return kMsPerHour;
  if (u == "minute" || u == "min") return 60 * 1000;
  if (u == "second" || u == "sec") return 1000;
  if (u == "millisecond" || u == "ms") return 1;
  return 0;
}

// Divisor turning a sub-millisecond count into milliseconds; 0 when not such a unit.
int64_t SubMsDivisor(const std::string& unit) {
  std::string u = unit;
  if (u.size() > 2 && u.back() == 's') u.pop_back();
  if (u == "microsecond" || u == "us") return 1000;
  if (u == "nanosecond" || u == "ns") return 1000 * 1000;
  return 0;
}

// A normalized path for comparing: no repeated '/', no "." parts, ".." applied.
std::string NormalizePath(std::string_view path) {
  bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string> parts;
  for (std::string& part : Split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
      continue;
    }
    parts.push_back(std::move(part));
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out;
}

class Vacuumer {
 public:
  Vacuumer(io::FileSystem& fs, const Snapshot& snapshot, int64_t cutoff_ms, VacuumResult* result)
      : fs_(fs), snapshot_(snapshot), cutoff_ms_(cutoff_ms), result_(result) {}

  Status CollectReferences() {
    const std::string& root = snapshot_.table_root();
    for (const Add& a : snapshot_.files()) {
      CDCLAKE_RETURN_IF_ERROR(Reference(root, a.path, a.deletion_vector));
    }
    for (const Remove& r : snapshot_.tombstones()) {
      if (r.deletion_timestamp.value_or(0) <= cutoff_ms_) continue;  // expired
      CDCLAKE_RETURN_IF_ERROR(Reference(root, r.path, r.deletion_vector));
    }
    // Partition folders may start with '_' when their column does; under column mapping they
    // carry the physical name.
    for (const std::string& p : snapshot_.metadata().partition_columns) {
      partition_prefixes_.push_back(p + "=");
      auto info = ColumnMappingOf(snapshot_.delta_schema(), FieldPath({p}));
      if (info.ok() && !info->physical_name.empty()) {
        partition_prefixes_.push_back(info->physical_name + "=");
      }
    }
    return Status::OK();
  }

  // Lists `dir` (the root at depth 0) and its walkable subfolders, collecting candidates.
  Status Walk(const std::string& dir, int depth) {
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> entries, fs_.List(dir));
    for (const io::FileInfo& e : entries) {
      std::string name = e.path.substr(e.path.rfind('/') + 1);
      if (e.is_directory) {
        if (WalkFolder(name, depth)) CDCLAKE_RETURN_IF_ERROR(Walk(e.path, depth + 1));
        continue;
      }
      if (name.empty() || name[0] == '.' || name[0] == '_') continue;
      ++result_->files_scanned;
      if (referenced_.count(NormalizePath(e.path))) continue;
      if (e.modification_time_ms >= cutoff_ms_) continue;  // too young: maybe a commit in flight
      result_->files.push_back({e.path, static_cast<int64_t>(e.size), e.modification_time_ms});
      result_->bytes += static_cast<int64_t>(e.size);
    }
    return Status::OK();
  }

 private:
  Status Reference(const std::string& root, const std::string& log_path,
                   const std::optional<DeletionVectorDescriptor>& dv) {
    auto path = ResolvePath(root, log_path);
    if (!path.ok()) return path.status().WithContext("vacuum: file '" + log_path + "'");
    referenced_.insert(NormalizePath(*path));
    if (dv && dv->storage_type != kDvStorageInline) {
      auto dv_path = AbsoluteDvPath(*dv, root);
      if (!dv_path.ok()) {
        return dv_path.status().WithContext("vacuum: deletion vector of '" + log_path + "'");
      }
      referenced_.insert(NormalizePath(*dv_path));
    }
    return Status::OK();
  }

  bool WalkFolder(const std::string& name, int depth) const {
    if (name.empty() || name[0] == '.') return false;
    if (name[0] != '_') return true;
    if (depth == 0 && name == "_change_data") return true;
    if (depth == 0 && name == "_delta_log") return false;
    for (const std::string& prefix : partition_prefixes_) {
      if (StartsWith(name, prefix)) return true;
    }
    return false;
  }

  io::FileSystem& fs_;
  const Snapshot& snapshot_;
  int64_t cutoff_ms_;
  VacuumResult* result_;
  std::set<std::string> referenced_;
  std::vector<std::string> partition_prefixes_;
};

}  // namespace

Result<int64_t> ParseIntervalMs(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("interval '" + std::string(text) + "': " + why);
  };
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(ToLower(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(ToLower(word));
  size_t i = 0;
  if (i < words.size() && words[i] == "interval") ++i;
  if (i == words.size()) return bad("no amount");
  if ((words.size() - i) % 2 != 0) return bad("expected pairs of <number> <unit>");
  int64_t total = 0;
  for (; i < words.size(); i += 2) {
    const std::string& number = words[i];
    const std::string& unit = words[i + 1];
    if (number.empty() || number.size() > 18 ||
        !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return bad("'" + number + "' is not a non-negative integer");
    }
    int64_t n = std::stoll(number);
    int64_t ms = 0;
    if (int64_t per = UnitMs(unit); per > 0) {
      if (n > std::numeric_limits<int64_t>::max() / per) return bad("too large");
      ms = n * per;
    } else if (int64_t div = SubMsDivisor(unit); div > 0) {
      ms = n / div;
    } else if (unit == "month" || unit == "months" || unit == "year" || unit == "years") {
      return bad("months and years have no fixed length; use days or weeks");
    } else {
      return bad("unknown unit '" + unit + "'");
    }
    if (total > std::numeric_limits<int64_t>::max() - ms) return bad("too large");
    total += ms;
  }
  return total;
}

Result<int64_t> DeletedFileRetentionMs(const Snapshot& snapshot) {
  std::string value = snapshot.Property("delta.deletedFileRetentionDuration",
                                        std::string(kDefaultDeletedFileRetention));
  auto ms = ParseIntervalMs(value);
  if (!ms.ok()) return ms.status().WithContext("delta.deletedFileRetentionDuration");
  return ms;
}

Result<VacuumResult> Vacuum(io::FileSystem& fs, const std::string& table_root,
                            std::optional<double> retain_hours, bool dry_run, int64_t now_ms,
                            const ProgressFn& progress) {
  if (retain_hours && (!std::isfinite(*retain_hours) || *retain_hours < 0)) {
    return Status::InvalidArgument("vacuum: the retention must be a non-negative number of hours");
  }
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, table_root));
  CDCLAKE_RETURN_IF_ERROR(CheckVacuumable(snapshot->protocol()).WithContext(table_root));
  VacuumResult result;
  result.version = snapshot->version();
  result.dry_run = dry_run;
  if (retain_hours) {
    double ms = *retain_hours * static_cast<double>(kMsPerHour);
    if (ms > static_cast<double>(std::numeric_limits<int64_t>::max() / 2)) {
      return Status::InvalidArgument("vacuum: the retention is too long");
    }
    result.retention_ms = static_cast<int64_t>(ms);
  } else {
    CDCLAKE_ASSIGN_OR_RETURN(result.retention_ms, DeletedFileRetentionMs(*snapshot));
  }
  result.cutoff_ms = now_ms - result.retention_ms;

  Vacuumer vacuumer(fs, *snapshot, result.cutoff_ms, &result);
  CDCLAKE_RETURN_IF_ERROR(vacuumer.CollectReferences());
  CDCLAKE_RETURN_IF_ERROR(vacuumer.Walk(table_root, 0));
  std::sort(result.files.begin(), result.files.end(),
            [](const VacuumFile& a, const VacuumFile& b) { return a.path < b.path; });
  if (dry_run) return result;
  const auto total = static_cast<int64_t>(result.files.size());
  for (size_t i = 0; i < result.files.size(); ++i) {
    Report(progress, "vacuum", "files", static_cast<int64_t>(i), total);
    Status deleted = fs.Delete(result.files[i].path);
    if (!deleted.ok()) {
      return deleted.WithContext("vacuum: after deleting " + std::to_string(i) + " of " +
                                 std::to_string(result.files.size()) + " files");
    }
  }
  Report(progress, "vacuum", "files", total, total);
  return result;
}

}  // namespace cdclake::delta
