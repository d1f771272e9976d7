// ChangeFlowRunner: one run of an AUTO CDC flow over change files — discover the inputs, find
// where the flow stopped, read what is new, apply it in batches, and record the position in
// each batch's commit so the next run continues exactly there (docs/apply.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apply/applier.h"
#include "apply/flow_definition.h"
#include "base/progress.h"
#include "base/status.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "pipeline/flow_position.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

/// One input of a flow: a file, a folder or a glob (sources/input_discovery.h).
struct FlowInput {
  std::string pattern;
  /// How to read its files; nullopt: each file's extension (sources::SourceFormatFromPath).
  std::optional<sources::SourceFormat> format;
};

struct FlowRunOptions {
  /// Types to read these columns as; the existing target's types hold for the others it has.
  std::optional<data::Schema> schema;
  /// Rows per batch, across files; 0: every row in one batch.
  int64_t batch_size = 0;
  /// Stop after this many batches (0: no limit); the next run continues where this one stopped.
  int64_t max_batches = 0;
  /// Where invalid rows go; default `<target>_quarantine`.
  std::string quarantine_table;
  /// The applier's clock and key-index choice (apply::ApplyOptions).
  std::function<int64_t()> clock;
  bool persistent_index = true;
  /// --reset-position: read the inputs from their start, whatever position the target records.
  bool reset_position = false;
  /// The end of the message for a file whose extension tells no format.
  std::string unknown_format_advice = "name its format";
  /// Hears of the bytes read of the input files, then of the rows of each batch applied.
  ProgressFn progress;
};

struct FlowRunSummary {
  apply::ApplyCounts counts;
  int64_t batches = 0;
  int64_t files_read = 0;         // files opened (the position's file, re-opened, included)
  std::vector<int64_t> versions;  // target versions written
  std::vector<int64_t> quarantine_versions;         // quarantine table versions written
  std::vector<sources::SourceCount> source_counts;  // summed by label, first seen first
  /// Records the files end in that are not whole yet (one at most per file): not read, so a
  /// later run reads them once their writer has finished them.
  std::vector<sources::PendingFile> pending;
  std::string quarantine_table;
  /// Where this run started reading, when it continued an earlier run's position.
  std::optional<FlowPosition> resumed_from;
  /// Where this run stopped: the last batch's position (unset when it applied no batch).
  std::optional<FlowPosition> position;
  /// Lines for the run's output: files that shrank or were rewritten after being read (they are
  /// not read again).
  std::vector<std::string> warnings;
  /// Named files not read, because an earlier run applied them whole and they hold the same
  /// bytes (one line each, naming the file; see FindResumePoint).
  std::vector<std::string> applied_before;
  /// The run stopped at FlowRunOptions::max_batches with input left.
  bool stopped_early = false;
  /// The error (if any) is the flow not fitting the input or an unusable input: bad usage.
  bool usage_error = false;
};

/// Runs `flow` over `inputs`. Every input file is discovered and ordered: when every input is a
/// folder or a glob (a stream of files), the files of all are read in path order (bytewise),
/// continuing after the flow's last recorded position over the same source (FindResumePoint):
/// files its ledger has read whole are skipped, files that grew (or were left part-read) are
/// read on from where they stopped, files it has not seen are new whatever their names sort
/// as; files that shrank or were rewritten are reported in `warnings` and skipped. When an
/// input names one file, every file is read whole, in the order given, except files an earlier
/// run applied whole that hold the same bytes now (`applied_before`).
///
/// Every file to read is opened and checked against the flow before anything is written. Each
/// batch is applied and committed with `txn` (FlowAppId, one more than the last) and the
/// position after its last record; a quarantine commit records it too, and records an earlier
/// run quarantined already are not quarantined again.
///
/// `summary` holds what was done, also when an error stops the run.
Status RunChangeFlow(io::FileSystem& fs, const apply::FlowDefinition& flow,
                     const std::vector<FlowInput>& inputs, const FlowRunOptions& options,
                     FlowRunSummary* summary);

}  // namespace cdclake::pipeline
