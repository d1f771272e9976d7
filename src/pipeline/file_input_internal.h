// FileInput: the parts of reading a flow's change files that `cdclake apply` and pipelines share
// — the run's file list, where an earlier run stopped in it, opened files with rows before that
// point dropped, and the position after a batch.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apply/flow_definition.h"
#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "pipeline/change_flow_runner.h"
#include "pipeline/flow_position.h"
#include "pipeline/pending_rows.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

/// A file of the run and how to read it.
struct RunFile {
  std::string path;
  sources::SourceFormat format = sources::SourceFormat::kCsv;
  sources::FileFormat file_format = sources::FileFormat::kCsv;  // for SQL Server exports
};

/// The run's files and whether they form a stream (every input a folder or a glob), read in
/// path order from a recorded position.
struct RunFiles {
  std::vector<RunFile> files;
  std::vector<std::string> patterns;  // the inputs as given, recorded with positions
  bool stream = false;
};

/// Discovers `inputs` (sources/input_discovery.h): for a stream every file once in path order,
/// else the files in the order given. kInvalidArgument ending with `unknown_format_advice` for
/// a file whose format its input does not give and its extension does not tell.
Result<RunFiles> ListRunFiles(const io::FileSystem& fs, const std::vector<FlowInput>& inputs,
                              const std::string& unknown_format_advice);

/// Where a run over `run` starts.
struct ResumePoint {
  size_t first = 0;         // the first file of run.files to read
  int64_t drop_before = 0;  // in that file, records starting before this offset are done
  std::optional<change::SourcePosition> quarantined_before;  // see apply::CommitExtras
  std::optional<FlowPosition> resumed_from;                  // when an earlier run recorded one
};

/// The point after `flow`'s last recorded position in `target` (or in `quarantine_table`, when a
/// batch there only quarantined), for a stream; the start otherwise. kInvalidArgument when a file
/// that sorts before the position's arrived after it was recorded.
Result<ResumePoint> FindResumePoint(const io::FileSystem& fs, const RunFiles& run,
                                    const std::string& target, const std::string& quarantine_table,
                                    const std::string& flow);

/// The position just past read point `end` of `run`.
FlowPosition PositionAfter(const RunFiles& run, const ReadPoint& end);

/// An opened file, with the batches read ahead to check a flow against (for sources whose
/// columns only their batches tell), and where its new input starts.
struct OpenFile {
  int64_t index = 0;  // in the run's file list
  std::unique_ptr<sources::ChangeSource> source;
  std::deque<change::ChangeBatch> read_ahead;
  int64_t drop_before = 0;  // rows and records starting before this byte offset were consumed
};

/// `s`, naming `file` unless it already does.
Status InFile(const Status& s, const std::string& file);

/// Drops the rows and rejected records of `batch` that start before `offset`.
void DropBefore(int64_t offset, change::ChangeBatch* batch);

/// The next batch of `file`: read ahead, else from its source; nullopt at its end.
Result<std::optional<change::ChangeBatch>> NextBatch(OpenFile& file);

/// Whether `fields` has one named `name`.
bool HasField(const std::vector<data::Field>& fields, const std::string& name);

/// The types to read columns as before any file is opened: `schema`'s, then the existing
/// target's for the columns it has (for an SCD2 `flow`, the sequence's from __START_AT), so a
/// value that no longer parses as the column's type is quarantined instead of changing the
/// type. `flow` is nullptr for a table that is appended to.
std::vector<data::Field> KnownTypes(const apply::FlowDefinition* flow,
                                    const std::optional<data::Schema>& schema,
                                    const delta::Snapshot* target);

/// Adds `counts` to `totals` by label (first seen first).
void AddSourceCounts(const std::vector<sources::SourceCount>& counts,
                     std::vector<sources::SourceCount>* totals);

}  // namespace cdclake::pipeline
