// Log listing and segment selection.
#include "delta/log_segment.h"

#include <cstdio>
#include <map>

namespace cdclake::delta {

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int64_t ToInt(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

enum class Kind { kCommit, kClassicCheckpoint, kPartCheckpoint, kV2Checkpoint, kOther };

struct Parsed {
  Kind kind = Kind::kOther;
  int64_t version = 0;
  int64_t part = 0;
  int64_t parts = 0;
};

// Names: 00000000000000000010.json, 00000000000000000010.checkpoint.parquet,
// 00000000000000000010.checkpoint.0000000001.0000000003.parquet,
// 00000000000000000010.checkpoint.<uuid>.json|parquet.
Parsed ParseName(std::string_view name) {
  Parsed p;
  if (name.size() < 21 || !AllDigits(name.substr(0, 20)) || name[20] != '.') return p;
  p.version = ToInt(name.substr(0, 20));
  std::string_view rest = name.substr(21);
  if (rest == "json") {
    p.kind = Kind::kCommit;
    return p;
  }
  if (rest.substr(0, 11) != "checkpoint.") return p;
  rest = rest.substr(11);
  if (rest == "parquet") {
    p.kind = Kind::kClassicCheckpoint;
    return p;
  }
  if (rest.size() == 10 + 1 + 10 + 8 && AllDigits(rest.substr(0, 10)) && rest[10] == '.' &&
      AllDigits(rest.substr(11, 10)) && rest.substr(21) == ".parquet") {
    p.kind = Kind::kPartCheckpoint;
    p.part = ToInt(rest.substr(0, 10));
    p.parts = ToInt(rest.substr(11, 10));
    return p;
  }
  size_t dot = rest.rfind('.');
  if (dot != std::string_view::npos && dot > 0 &&
      (rest.substr(dot) == ".json" || rest.substr(dot) == ".parquet")) {
    p.kind = Kind::kV2Checkpoint;
  }
  return p;
}

}  // namespace

std::string LogDir(const std::string& table_root) {
  return io::JoinPath(table_root, "_delta_log");
}

std::string CommitPath(const std::string& table_root, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  return io::JoinPath(LogDir(table_root), name);
}

Result<std::vector<LogFile>> ListCommits(const io::FileSystem& fs, const std::string& table_root) {
  auto listing = fs.List(LogDir(table_root));
  if (!listing.ok()) {
    if (listing.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(table_root + ": not a Delta table (no _delta_log folder)");
    }
    return listing.status();
  }
  std::vector<LogFile> commits;
  for (const io::FileInfo& f : *listing) {
    std::string name = f.path.substr(f.path.rfind('/') + 1);
    Parsed p = ParseName(name);
    if (p.kind == Kind::kCommit) commits.push_back({p.version, f.path, f.modification_time_ms});
  }
  return commits;
}

Result<bool> TableExists(const io::FileSystem& fs, const std::string& table_root) {
  auto listing = fs.List(LogDir(table_root));
  if (!listing.ok()) {
    if (listing.status().code() == StatusCode::kNotFound) return false;
    return listing.status();
  }
  for (const io::FileInfo& f : *listing) {
    Parsed p = ParseName(f.path.substr(f.path.rfind('/') + 1));
    if (p.kind != Kind::kOther) return true;
  }
  return false;
}

Result<LogSegment> ListLogSegment(const io::FileSystem& fs, const std::string& table_root,
                                  std::optional<int64_t> version) {
  auto listing = fs.List(LogDir(table_root));
  if (!listing.ok()) {
    if (listing.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(table_root + ": not a Delta table (no _delta_log folder)");
    }
    return listing.status();
  }
  std::map<int64_t, LogFile> commits;
  std::map<std::string, int64_t> mtimes;
  // Checkpoints by version: classic single, parts (part -> path), v2.
  std::map<int64_t, std::vector<std::string>> singles;
  std::map<int64_t, std::map<int64_t, std::map<int64_t, std::string>>>
      multi;  // version -> parts -> part -> path
  for (const io::FileInfo& f : *listing) {
    std::string name = f.path.substr(f.path.rfind('/') + 1);
    Parsed p = ParseName(name);
    mtimes[f.path] = f.modification_time_ms;
    switch (p.kind) {
      case Kind::kCommit:
        commits[p.version] = {p.version, f.path, f.modification_time_ms};
        break;
      case Kind::kClassicCheckpoint:
      case Kind::kV2Checkpoint:
        singles[p.version].push_back(f.path);
        break;
      case Kind::kPartCheckpoint:
        multi[p.version][p.parts][p.part] = f.path;
        break;
      case Kind::kOther:
        break;
    }
  }
  LogSegment seg;
  int64_t latest = commits.empty() ? -1 : commits.rbegin()->first;
  for (const auto& [v, _] : singles) latest = std::max(latest, v);
  for (const auto& [v, _] : multi) latest = std::max(latest, v);
  if (latest < 0)
    return Status::NotFound(table_root + ": not a Delta table (the log has no commits)");
  seg.latest_version = latest;
  int64_t target = version.value_or(latest);
  if (target < 0 || target > latest) {
    return Status::NotFound(table_root + ": version " + std::to_string(target) +
                            " does not exist (latest is " + std::to_string(latest) + ")");
  }
  seg.version = target;
  // The newest complete checkpoint at or before the target.
  for (int64_t v = target; v >= 0; --v) {
    auto s = singles.find(v);
    if (s != singles.end()) {
      seg.checkpoint_version = v;
      seg.checkpoint_files = {s->second.front()};
      break;
    }
    auto m = multi.find(v);
    if (m != multi.end()) {
      bool found = false;
      for (const auto& [parts, by_part] : m->second) {
        if (static_cast<int64_t>(by_part.size()) == parts) {
          seg.checkpoint_version = v;
          for (const auto& [_, path] : by_part) seg.checkpoint_files.push_back(path);
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (singles.empty() && multi.empty()) break;
  }
  if (!seg.checkpoint_files.empty())
    seg.checkpoint_modification_time_ms = mtimes[seg.checkpoint_files.front()];
  for (int64_t v = seg.checkpoint_version + 1; v <= target; ++v) {
    auto c = commits.find(v);
    if (c == commits.end()) {
      return Status::Corrupt(
          table_root + ": the log lacks commit " + std::to_string(v) +
          (seg.checkpoint_version < 0 ? " and has no checkpoint before it" : ""));
    }
    seg.commits.push_back(c->second);
  }
  return seg;
}

}  // namespace cdclake::delta
