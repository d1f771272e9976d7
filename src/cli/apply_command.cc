// `cdclake apply`: the options made into an AUTO CDC flow, run over change files, folders or
// globs by the pipeline's flow runner (or over snapshots by RunSnapshotApply), and a summary of
// what was read, applied and written.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdclake/flow.h"
#include "cdclake/pipeline.h"
#include "cli/commands.h"
#include "cli/progress_line.h"

namespace cdclake::cli {

namespace {

struct ApplyArgs {
  std::string target;
  std::string keys;
  std::string partition_by;
  std::string sequence_by;
  std::string format;
  std::string schema;
  std::string delete_when;
  std::string truncate_when;
  int scd = 1;
  std::string columns;
  std::string except;
  std::string track_history;
  std::string track_history_except;
  bool ignore_null_updates = false;
  bool reset_position = false;
  std::string ignore_null_updates_on;
  std::string ignore_null_updates_except;
  int64_t batch_size = 0;  // 0: every row in one batch
  std::vector<std::string> properties;
  std::string flow_name;
  std::vector<std::string> files;
  std::string from_snapshots;
  std::string snapshot;
  std::string snapshot_version;
};

// The names a list option gives, with the option named in errors.
Result<std::vector<std::string>> ColumnList(const std::string& option, const std::string& text) {
  auto names = sql::ParseColumnList(text);
  if (!names.ok()) return names.status().WithContext(option);
  if (names->empty()) return Status::InvalidArgument(option + ": name at least one column");
  return names;
}

// A condition's expression, with the option named in errors.
Result<std::shared_ptr<const data::Expr>> Condition(const std::string& option,
                                                    const std::string& text) {
  auto expr = sql::ParseCondition(text);
  if (!expr.ok()) return expr.status().WithContext(option);
  return std::shared_ptr<const data::Expr>(std::move(*expr));
}

// An error naming the options out of `names` that were given, when more than one was.
Status AtMostOne(const CLI::App& cmd, const std::vector<std::string>& names) {
  std::vector<std::string> given;
  for (const std::string& n : names) {
    if (cmd.get_option(n)->count() > 0) given.push_back(n);
  }
  if (given.size() <= 1) return Status::OK();
  std::string list;
  for (size_t i = 0; i < given.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
  }
  return Status::InvalidArgument(list + " exclude each other; give one of them");
}

std::string TrimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool Given(const CLI::App& cmd, const std::string& option) {
  return cmd.get_option(option)->count() > 0;
}

// The source formats' names ("csv, jsonl, ... <last_sep> parquet"), from sources: each
// format the enumeration holds, or only those that can hold snapshots (plain rows).
std::string FormatList(bool snapshots, const std::string& last_sep) {
  std::vector<std::string> names;
  for (int i = 0;; ++i) {
    auto f = static_cast<sources::SourceFormat>(i);
    std::string_view name = sources::SourceFormatName(f);
    if (sources::SourceFormatFromName(name) != f) break;  // past the last format
    if (!snapshots || !sources::IsChangeStreamFormat(f)) names.emplace_back(name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? last_sep : ", ") + names[i];
  }
  return out;
}

// --format: nullopt when not given (each file's extension decides).
Result<std::optional<sources::SourceFormat>> FormatOption(const std::string& format) {
  if (format.empty()) return std::optional<sources::SourceFormat>();
  std::optional<sources::SourceFormat> parsed = sources::SourceFormatFromName(format);
  if (!parsed) {
    return Status::InvalidArgument("--format must be " + FormatList(false, " or ") + ", got '" +
                                   format + "'");
  }
  return parsed;
}

Result<apply::FlowDefinition> WithColumnOptions(const CLI::App& cmd, const ApplyArgs& args,
                                                bool stream, apply::FlowDefinition flow);

// The flow the options describe (without a sequence for snapshot input, whose version is
// one). Every error here is bad usage. With a change-stream format
// (Debezium, SQL Server) the sequence, the delete (and for Debezium in SCD 1 the truncate)
// conditions default to the reader's `_seq` and `_op`, and its metadata columns stay out of
// the target unless --columns lists them.
Result<apply::FlowDefinition> FlowFromArgs(const CLI::App& cmd, const ApplyArgs& args,
                                           std::optional<sources::SourceFormat> format,
                                           bool snapshots) {
  const bool stream = format && sources::IsChangeStreamFormat(*format);
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(cmd, {"--columns", "--except"}));
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(cmd, {"--track-history", "--track-history-except"}));
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(
      cmd, {"--ignore-null-updates", "--ignore-null-updates-on", "--ignore-null-updates-except"}));
  if (args.scd != 1 && args.scd != 2) {
    return Status::InvalidArgument("--scd must be 1 or 2, got " + std::to_string(args.scd));
  }
  if (cmd.get_option("--batch-size")->count() > 0 && args.batch_size <= 0) {
    return Status::InvalidArgument("--batch-size must be positive, got " +
                                   std::to_string(args.batch_size));
  }
  apply::FlowDefinition flow;
  flow.target = TrimSlashes(args.target);
  if (flow.target.empty()) return Status::InvalidArgument("--target: give the table's folder");
  if (!args.flow_name.empty()) {
    flow.name = args.flow_name;
  } else {
    size_t slash = flow.target.find_last_of('/');
    flow.name = slash == std::string::npos ? flow.target : flow.target.substr(slash + 1);
  }
  CDCLAKE_ASSIGN_OR_RETURN(flow.keys, ColumnList("--keys", args.keys));
  if (Given(cmd, "--partition-by")) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.partition_columns,
                             ColumnList("--partition-by", args.partition_by));
  }
  flow.scd_type = args.scd == 2 ? apply::ScdType::kType2 : apply::ScdType::kType1;
  if (snapshots) return WithColumnOptions(cmd, args, stream, std::move(flow));
  std::string sequence_by = args.sequence_by;
  if (!Given(cmd, "--sequence-by")) {
    if (!stream) {
      return Status::InvalidArgument(
          "--sequence-by is required (it defaults to _seq only with --format debezium or "
          "sqlserver)");
    }
    sequence_by = "_seq";
  }
  auto sequence = sql::ParseSequenceBy(sequence_by);
  if (!sequence.ok()) return sequence.status().WithContext("--sequence-by");
  flow.sequence_by = sequence->columns;
  flow.sequence_is_struct = sequence->is_struct;
  if (Given(cmd, "--delete-when")) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.delete_when, Condition("--delete-when", args.delete_when));
  } else if (stream) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.delete_when, Condition("--delete-when", "_op = 'd'"));
  }
  if (Given(cmd, "--truncate-when")) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.truncate_when, Condition("--truncate-when", args.truncate_when));
  } else if (format == sources::SourceFormat::kDebezium &&
             flow.scd_type == apply::ScdType::kType1) {
    // SQL Server refuses TRUNCATE on captured tables; SCD 2 keeps history through truncates.
    CDCLAKE_ASSIGN_OR_RETURN(flow.truncate_when, Condition("--truncate-when", "_op = 't'"));
  }
  return WithColumnOptions(cmd, args, stream, std::move(flow));
}

// `flow` with the column options: --columns/--except, tracked history, ignored NULLs, and the
// table properties.
Result<apply::FlowDefinition> WithColumnOptions(const CLI::App& cmd, const ApplyArgs& args,
                                                bool stream, apply::FlowDefinition flow) {
  if (Given(cmd, "--columns")) {
    // Metadata columns not listed stay out by themselves.
    CDCLAKE_ASSIGN_OR_RETURN(auto names, ColumnList("--columns", args.columns));
    flow.columns = apply::ColumnSelection::Only(std::move(names));
  } else {
    std::vector<std::string> names;
    if (Given(cmd, "--except")) {
      CDCLAKE_ASSIGN_OR_RETURN(names, ColumnList("--except", args.except));
    }
    if (stream) {
      for (const std::string& meta : sources::ChangeStreamColumns()) {
        if (std::find(names.begin(), names.end(), meta) == names.end()) names.push_back(meta);
      }
    }
    if (!names.empty()) flow.columns = apply::ColumnSelection::Except(std::move(names));
  }
  if (cmd.get_option("--track-history")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names, ColumnList("--track-history", args.track_history));
    flow.track_history = apply::ColumnSelection::Only(std::move(names));
  } else if (cmd.get_option("--track-history-except")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names,
                             ColumnList("--track-history-except", args.track_history_except));
    flow.track_history = apply::ColumnSelection::Except(std::move(names));
  }
  if (args.ignore_null_updates) {
    flow.ignore_null_updates = apply::ColumnSelection::All();
  } else if (cmd.get_option("--ignore-null-updates-on")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names,
                             ColumnList("--ignore-null-updates-on", args.ignore_null_updates_on));
    flow.ignore_null_updates = apply::ColumnSelection::Only(std::move(names));
  } else if (cmd.get_option("--ignore-null-updates-except")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(
        auto names, ColumnList("--ignore-null-updates-except", args.ignore_null_updates_except));
    flow.ignore_null_updates = apply::ColumnSelection::Except(std::move(names));
  }
  for (const std::string& p : args.properties) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--property " + p + ": write it as key=value");
    }
    flow.table_properties[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return flow;
}

std::string VersionList(const std::vector<int64_t>& versions) {
  if (versions.empty()) return "none";
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void PrintSummary(const pipeline::FlowRunSummary& t, std::ostream& out) {
  const apply::ApplyCounts& c = t.counts;
  std::vector<std::pair<std::string, std::string>> lines = {
      {"batches", std::to_string(t.batches)},
      {"files read", std::to_string(t.files_read)},
  };
  if (t.resumed_from) lines.emplace_back("resumed from", t.resumed_from->ToString());
  lines.emplace_back("rows read", std::to_string(c.read));
  // Records the readers did not turn into rows (Debezium tombstones, SQL Server before-images).
  for (const sources::SourceCount& s : t.source_counts) {
    lines.emplace_back(s.label, std::to_string(s.value));
  }
  std::string quarantined = std::to_string(c.quarantined);
  if (c.quarantined > c.already_quarantined) {
    quarantined +=
        "  (in " + t.quarantine_table + ", versions " + VersionList(t.quarantine_versions) + ")";
  }
  if (c.already_quarantined > 0) {
    quarantined += "  (" + std::to_string(c.already_quarantined) + " already in " +
                   t.quarantine_table + " from an earlier run)";
  }
  std::vector<std::pair<std::string, std::string>> rest = {
      {"rows applied", std::to_string(c.applied)},
      {"rows discarded", std::to_string(c.discarded) + "  (older than the key's state, or "
                                                       "duplicates)"},
      {"rows quarantined", quarantined},
      {"sequence conflicts", std::to_string(c.sequence_conflicts)},
      {"target rows inserted", std::to_string(c.inserted)},
      {"target rows updated", std::to_string(c.updated)},
      {"target rows deleted", std::to_string(c.deleted)},
      {"tombstones purged", std::to_string(c.tombstones_purged)},
      {"versions written", VersionList(t.versions)},
  };
  lines.insert(lines.end(), rest.begin(), rest.end());
  size_t width = 0;
  for (const auto& [label, value] : lines) width = std::max(width, label.size());
  for (const auto& [label, value] : lines) {
    out << label << std::string(width + 2 - label.size(), ' ') << value << "\n";
  }
  for (const sources::PendingFile& p : t.pending) out << sources::DescribePending(p) << "\n";
}

// Snapshot input (--from-snapshots, --snapshot): the flow's keys, SCD type and columns, no
// sequence (the snapshot version is one), handed to RunSnapshotApply.
int RunSnapshots(const CLI::App& cmd, const ApplyArgs& args,
                 std::optional<sources::SourceFormat> format) {
  Status one = AtMostOne(cmd, {"--from-snapshots", "--snapshot"});
  if (!one.ok()) return UsageFail(one);
  for (const char* option : {"--sequence-by", "--delete-when", "--truncate-when"}) {
    if (Given(cmd, option)) {
      return UsageFail(Status::InvalidArgument(
          std::string(option) +
          " does not apply to snapshot input: the snapshot's version orders the changes and a "
          "key missing from a snapshot is a delete"));
    }
  }
  if (!args.files.empty()) {
    return UsageFail(Status::InvalidArgument(
        "change files and snapshot input exclude each other; give the snapshots with "
        "--from-snapshots DIR or --snapshot FILE"));
  }
  if (Given(cmd, "--snapshot-version") && !Given(cmd, "--snapshot")) {
    return UsageFail(
        Status::InvalidArgument("--snapshot-version is the version of --snapshot FILE"));
  }
  if (format && sources::IsChangeStreamFormat(*format)) {
    return UsageFail(Status::InvalidArgument("--format " + args.format +
                                             " holds changes, not snapshots; snapshots are " +
                                             FormatList(/*snapshots=*/true, " or ")));
  }
  auto flow = FlowFromArgs(cmd, args, format, /*snapshots=*/true);
  if (!flow.ok()) return UsageFail(flow.status());
  SnapshotApplyArgs snapshot_args;
  snapshot_args.from_snapshots = args.from_snapshots;
  snapshot_args.snapshot = args.snapshot;
  snapshot_args.snapshot_version = args.snapshot_version;
  snapshot_args.format = args.format;
  snapshot_args.schema = args.schema;
  return RunSnapshotApply(*flow, snapshot_args);
}

int RunApply(const CLI::App& cmd, const ApplyArgs& args) {
  auto format_or = FormatOption(args.format);
  if (!format_or.ok()) return UsageFail(format_or.status());
  const std::optional<sources::SourceFormat> format = *format_or;
  if (Given(cmd, "--from-snapshots") || Given(cmd, "--snapshot")) {
    return RunSnapshots(cmd, args, format);
  }
  if (args.files.empty()) {
    return UsageFail(Status::InvalidArgument(
        "give the change files (files, folders or globs), or snapshots with --from-snapshots "
        "or --snapshot"));
  }
  auto flow_or = FlowFromArgs(cmd, args, format, /*snapshots=*/false);
  if (!flow_or.ok()) return UsageFail(flow_or.status());
  const apply::FlowDefinition flow = std::move(flow_or).value();
  pipeline::FlowRunOptions options;
  if (!args.schema.empty()) {
    auto schema = sql::ParseSchemaDdl(args.schema);
    if (!schema.ok()) return UsageFail(schema.status().WithContext("--schema"));
    options.schema = std::move(*schema);
  }
  options.batch_size = args.batch_size;
  options.reset_position = args.reset_position;
  options.unknown_format_advice = "give --format " + FormatList(/*snapshots=*/false, " or ");
  std::vector<pipeline::FlowInput> inputs;
  for (const std::string& file : args.files) inputs.push_back({file, format});

  pipeline::FlowRunSummary summary;
  ProgressLine progress(StderrIsTerminal());
  options.progress = progress.Fn();
  Status run =
      pipeline::RunChangeFlow(*io::LocalFileSystem::Instance(), flow, inputs, options, &summary);
  progress.Clear();
  if (!run.ok()) {
    // Exit code 2 for a flow that does not fit the input, 1 for the rest.
    int code = summary.usage_error ? UsageFail(run) : Fail(run);
    if (!summary.versions.empty()) {
      std::cerr << "cdclake: versions written before the error: " << VersionList(summary.versions)
                << "\n";
    }
    return code;
  }
  if (summary.files_read == 0) {
    // Normal for a stream folder not written yet, and also what a misspelled glob looks like.
    for (const pipeline::FlowInput& input : inputs) {
      if (!sources::HasGlob(input.pattern)) continue;
      auto listing = sources::DiscoverInputs(*io::LocalFileSystem::Instance(), input.pattern);
      if (listing.ok() && listing->files.empty()) {
        std::cerr << "cdclake: warning: '" << input.pattern << "' matches no file\n";
      }
    }
  }
  PrintSummary(summary, std::cout);
  for (const std::string& w : summary.warnings) std::cout << w << "\n";
  for (const std::string& a : summary.applied_before) std::cout << a << "\n";
  return 0;
}

}  // namespace

Action AddApplyCommand(CLI::App& app) {
  auto args = std::make_shared<ApplyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Apply change files (CSV, JSONL, Parquet, Debezium events, SQL Server CDC exports) or "
      "snapshots to a Delta table as one AUTO CDC flow (SCD type 1 or 2)");
  cmd->add_option("--target", args->target, "the target table's folder (created on first use)")
      ->required();
  cmd->add_option("--keys", args->keys, "a[,b]: the key columns")->required();
  cmd->add_option("--sequence-by", args->sequence_by,
                  "COL or \"STRUCT(a, b)\": the column(s) that order a key's changes (default "
                  "for debezium and sqlserver: _seq)");
  cmd->add_option(
      "--format", args->format,
      FormatList(/*snapshots=*/false, " or ") +
          " (default: from each file's extension: .csv, .jsonl, .json, .parquet). "
          "Debezium and SQL Server rows carry _op, _seq, _source_ts_ms "
          "and _source_table, left out of the target unless --columns lists them; a SQL "
          "Server export is JSON Lines when named .jsonl or .json, else CSV");
  cmd->add_option("--schema", args->schema,
                  "\"userId INT, name STRING, ...\": types to read these columns as (others "
                  "are inferred, or the existing target's)");
  cmd->add_option("--delete-when", args->delete_when,
                  "a SQL condition marking a row as a delete, e.g. \"operation = 'DELETE'\" "
                  "(default for debezium and sqlserver: \"_op = 'd'\")");
  cmd->add_option("--truncate-when", args->truncate_when,
                  "a SQL condition marking a row as a truncate (SCD 1 only; default for "
                  "debezium: \"_op = 't'\")");
  cmd->add_option("--partition-by", args->partition_by,
                  "a[,b]: partition a new target by these columns (an existing one keeps its "
                  "own)");
  cmd->add_option("--scd", args->scd, "1 (current state) or 2 (history)")->capture_default_str();
  cmd->add_option("--columns", args->columns, "a,b: only these source columns in the target");
  cmd->add_option("--except", args->except,
                  "a,b: every source column but these (and, for debezium and sqlserver, the _ "
                  "metadata columns)");
  cmd->add_option("--track-history", args->track_history,
                  "a,b: SCD 2 opens a new version only when these change");
  cmd->add_option("--track-history-except", args->track_history_except,
                  "a,b: SCD 2 opens a new version when any column but these changes");
  cmd->add_flag("--ignore-null-updates", args->ignore_null_updates,
                "an update's NULL leaves the target's value as it is");
  cmd->add_option("--ignore-null-updates-on", args->ignore_null_updates_on,
                  "a,b: the same, for these columns only");
  cmd->add_option("--ignore-null-updates-except", args->ignore_null_updates_except,
                  "a,b: the same, for every column but these");
  cmd->add_option("--batch-size", args->batch_size,
                  "N: apply N rows at a time, across files (default: all in one batch)");
  cmd->add_option(
         "--property", args->properties,
         "k=v: a table property (repeatable); a changed value is committed to an existing target")
      ->expected(1)
      ->allow_extra_args(false)  // one value per --property: the files follow as positionals
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--reset-position", args->reset_position,
                "forget where the flow stopped: read the inputs from their start (after the "
                "inputs changed), named files applied whole before included");
  cmd->add_option("--flow-name", args->flow_name,
                  "the flow's name in commits and quarantine records (default: the target "
                  "folder's name)");
  cmd->add_option("--from-snapshots", args->from_snapshots,
                  "DIR: full snapshots of the source, one file per version, applied as the "
                  "changes between them (no --sequence-by, --delete-when or files)");
  cmd->add_option("--snapshot", args->snapshot,
                  "FILE: a full snapshot of the source, re-read on each run and applied as the "
                  "changes since the last");
  cmd->add_option("--snapshot-version", args->snapshot_version,
                  "V: the version of --snapshot FILE (default: the run's time)");
  cmd->add_option("files", args->files,
                  "the change files: files (read whole, in this order), or folders and globs "
                  "(*, ?, [...], ** for any depth) read in path order, each run continuing "
                  "where the last stopped");
  return [cmd, args]() -> int { return RunApply(*cmd, *args); };
}

}  // namespace cdclake::cli
