// `cdclake apply --from-snapshots DIR | --snapshot FILE`: full snapshots diffed against the
// previous one and applied as changes (SEMANTICS §7), with a summary of what each became.
#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cdclake/parquet.h"
#include "cdclake/snapshots.h"
#include "cli/commands.h"
#include "cli/progress_line.h"

namespace cdclake::cli {

namespace {

std::string VersionList(const std::vector<int64_t>& versions) {
  if (versions.empty()) return "none";
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void PrintSummary(const pipeline::SnapshotRunResult& r, std::ostream& out) {
  std::vector<std::string> applied, skipped;
  for (const pipeline::SnapshotOutcome& s : r.snapshots) {
    (s.applied ? applied : skipped).push_back(s.version.text);
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string text = std::to_string(v.size());
    if (v.empty()) return text;
    text += "  (";
    for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + v[i];
    return text + ")";
  };
  sources::snapshot::SnapshotDiffCounts diff;
  for (const pipeline::SnapshotOutcome& s : r.snapshots) {
    diff.rows += s.diff.rows;
    diff.inserted += s.diff.inserted;
    diff.updated += s.diff.updated;
    diff.unchanged += s.diff.unchanged;
    diff.deleted += s.diff.deleted;
    diff.spilled_runs += s.diff.spilled_runs;
  }
  const apply::ApplyCounts& c = r.counts;
  std::vector<std::pair<std::string, std::string>> lines = {
      {"snapshots applied", list(applied)},
      {"snapshots skipped", list(skipped)},
      {"last applied version", r.last_applied ? r.last_applied->text : "none"},
      {"snapshot rows read", std::to_string(diff.rows)},
      {"keys new", std::to_string(diff.inserted)},
      {"keys changed", std::to_string(diff.updated)},
      {"keys unchanged", std::to_string(diff.unchanged)},
      {"keys gone", std::to_string(diff.deleted)},
      {"sort runs spilled", std::to_string(diff.spilled_runs)},
      {"changes applied", std::to_string(c.applied)},
      {"changes discarded", std::to_string(c.discarded)},
      {"target rows inserted", std::to_string(c.inserted)},
      {"target rows updated", std::to_string(c.updated)},
      {"target rows deleted", std::to_string(c.deleted)},
      {"versions written", VersionList(r.table_versions)},
  };
  if (r.state_rebuilt) lines.emplace_back("snapshot state", "rebuilt from the target's rows");
  size_t width = 0;
  for (const auto& [label, value] : lines) width = std::max(width, label.size());
  for (const auto& [label, value] : lines) {
    out << label << std::string(width + 2 - label.size(), ' ') << value << "\n";
  }
}

}  // namespace

int RunSnapshotApply(const apply::FlowDefinition& flow, const SnapshotApplyArgs& args) {
  pipeline::SnapshotFlowOptions options;
  if (!args.format.empty()) {
    std::optional<sources::SourceFormat> format = sources::SourceFormatFromName(args.format);
    if (!format || sources::IsChangeStreamFormat(*format)) {
      std::cerr << "cdclake: --format " << args.format
                << " cannot hold snapshots (csv, jsonl or parquet)\n";
      return 2;
    }
    options.format = format;
  }
  if (!args.schema.empty()) {
    auto schema = sql::ParseSchemaDdl(args.schema);
    if (!schema.ok()) {
      std::cerr << "cdclake: --schema: " << schema.status().message() << "\n";
      return 2;
    }
    options.schema = *schema;
  }
  io::FileSystem& fs = *io::LocalFileSystem::Instance();
  ProgressLine progress(StderrIsTerminal());
  options.progress = progress.Fn();
  Result<pipeline::SnapshotRunResult> result = Status::Internal("no snapshot input");
  if (!args.from_snapshots.empty()) {
    result = pipeline::ApplySnapshotFolder(fs, flow, args.from_snapshots, options);
  } else if (!args.snapshot.empty()) {
    std::optional<pipeline::SnapshotVersion> version;
    if (!args.snapshot_version.empty()) {
      auto v = pipeline::ParseSnapshotVersion(args.snapshot_version);
      if (!v.ok()) {
        std::cerr << "cdclake: --snapshot-version: " << v.status().message() << "\n";
        return 2;
      }
      version = *v;
    }
    result = pipeline::ApplyPeriodicSnapshot(fs, flow, args.snapshot, version, options);
  } else {
    std::cerr << "cdclake: give --from-snapshots DIR or --snapshot FILE\n";
    return 2;
  }
  progress.Clear();
  if (!result.ok()) return Fail(result.status());
  for (const pipeline::SnapshotOutcome& s : result->snapshots) {
    if (!s.applied) {
      std::cerr << "cdclake: skipped snapshot " << s.path << ": " << s.reason << "\n";
    }
  }
  PrintSummary(*result, std::cout);
  return 0;
}

}  // namespace cdclake::cli
