// FileInput: the parts of reading a flow's change files that `cdclake apply` and pipelines share
// — the run's file list, where an earlier run stopped in it, opened files with rows before that
// point dropped, and the position after a batch.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "apply/flow_definition.h"
#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "pipeline/change_flow_runner.h"
#include "pipeline/file_ledger.h"
#include "pipeline/flow_position.h"
#include "pipeline/pending_rows.h"
#include "sources/change_source.h"

namespace cdclake::pipeline {

/// A file of the run and how to read it.
struct RunFile {
  std::string path;
  sources::SourceFormat format = sources::SourceFormat::kCsv;
  sources::FileFormat file_format = sources::FileFormat::kCsv;  // for SQL Server exports
  /// Records starting before this byte offset were consumed by earlier runs (the ledger's).
  int64_t drop_before = 0;
  /// Its last consumed record ended it without a terminator (ChangeSourceOptions).
  std::optional<sources::RecordSpan> unterminated_last;
};

/// The run's files and whether they form a stream (every input a folder or a glob), read in
/// path order from a recorded position.
struct RunFiles {
  std::vector<RunFile> files;         // paths under the canonical inputs
  std::vector<std::string> patterns;  // the inputs as given
  std::vector<std::string> source;    // the same, canonical (io::FileSystem::Canonical)
  bool stream = false;
};

/// Discovers `inputs` (sources/input_discovery.h), each canonical first so that the files' paths
/// (and the positions in them) are the same however the input is spelled: for a stream every
/// file once in path order,
/// else the files in the order given. kInvalidArgument ending with `unknown_format_advice` for
/// a file whose format its input does not give and its extension does not tell.
/// A file named alone keeps the spelling given unless `named_file_streams` (read_files: one file
/// is a stream too, with a position).
Result<RunFiles> ListRunFiles(const io::FileSystem& fs, const std::vector<FlowInput>& inputs,
                              const std::string& unknown_format_advice,
                              bool named_file_streams = false);

/// Where a run starts: the files left to read (RunFile::drop_before says from where) and what
/// it knows of the files read before.
struct ResumePoint {
  std::optional<change::SourcePosition> quarantined_before;  // see apply::CommitExtras
  std::optional<FlowPosition> resumed_from;                  // when an earlier run recorded one
  FileLedger ledger;                                         // the files earlier runs read
  /// Entries to add to the ledger with the first batch (from a position older than the ledger).
  std::unordered_map<std::string, LedgerEntry> seed;
  /// Lines for the run's output: files that shrank or were rewritten after being read.
  std::vector<std::string> warnings;
  /// Named files left out because the flow applied them whole already (FindResumePoint).
  std::vector<std::string> applied_before;
  /// Resumed from a position kept for batches that changed nothing (FindUnchangedPosition):
  /// the ledger's older generations are then kept, since the committed position, which the
  /// next run falls back to if that position lapses, may name one of them.
  bool keep_old_generations = false;
};

/// Which flow resumes where, and what to call its table in messages.
struct ResumeRequest {
  std::string target;            // the table folder
  std::string quarantine_table;  // its quarantine table's folder
  std::string flow;
  std::string table_name;  // for messages ("shop.bronze"); the folder when empty
  bool reset = false;      // --reset-position: start from nothing, whatever is recorded
  /// The target ignores input it applied already (an AUTO CDC flow's sequence guards): a lost
  /// ledger then means reading every file again, with a warning, instead of an error.
  bool rereading_is_harmless = false;
  /// The target's latest snapshot when the caller has it loaded (not loaded again); nullptr
  /// otherwise, or when there is no target yet.
  std::shared_ptr<const delta::Snapshot> target_snapshot;
};

/// Where a stream resumes after the flow's last recorded position in its target (or in the
/// quarantine table, when a batch there only quarantined), as Auto Loader does: `run`'s files
/// are narrowed to those to read — new ones (in the ledger or not, whatever their names sort
/// as), and ones that grew or were left part-read (from where they were left). Files read
/// whole and unchanged are dropped; files that shrank or were rewritten under what was read
/// are dropped with a warning. The start when there is no position, or when resetting.
/// kInvalidArgument when the position is over another source (CheckSameSource).
///
/// When `run` is not a stream (named files, read whole each run) the files are kept as given,
/// except those the ledger of the flow's last target commit has read whole with the same size
/// and digest (io::FileDigest): reading them again could only discard every row once more (or,
/// past the tombstone retention, bring a deleted key back). They are left out and named in
/// `applied_before`; the ledger then carries on from that commit's.
Result<ResumePoint> FindResumePoint(const io::FileSystem& fs, RunFiles* run,
                                    const ResumeRequest& request);

/// The position just past read point `end` of `run`, naming the ledger after it.
FlowPosition PositionAfter(const RunFiles& run, const ReadPoint& end,
                           const std::optional<LedgerRef>& ledger);

/// Named files larger than this get no digest (LedgerEntry::digest), so a later run reads them
/// whole again instead of leaving them out.
inline constexpr uint64_t kDigestUpToBytes = uint64_t{1} << 30;

/// What a run has read of each file it opened, turned into ledger entries as batches end.
/// Indexes are into the run's (narrowed) file list.
class LedgerTracker {
 public:
  /// `digests`: each file's digest is taken when it is opened (runs of named files).
  LedgerTracker(FileLedger ledger, std::unordered_map<std::string, LedgerEntry> seed,
                bool digests = false);

  /// `file` was opened (its size and modification time are taken now, and its digest).
  void Opened(int64_t index, const RunFile& file, const io::FileSystem& fs);
  /// A batch of the file was read (it may not be in a committed batch yet).
  void Saw(int64_t index, const change::ChangeBatch& batch);
  /// The file's source reached its end (Pending, UnterminatedLast).
  void Ended(int64_t index, const sources::ChangeSource& source);

  /// Records the ledger after a batch ending at `end`: files before it and the file of `end`
  /// when it ended and none of its rows wait for a later batch (`first_waiting`: the file index
  /// of the first row left over, -1 when none) are done; the file of `end` otherwise consumed
  /// up to it. Returns the ledger's ref for the batch's position.
  Result<LedgerRef> Record(io::FileSystem& fs, const std::vector<RunFile>& files,
                           const ReadPoint& end, int64_t first_waiting);

 private:
  struct Progress {
    int64_t size = 0;
    int64_t mtime_ms = 0;
    int64_t read_to = 0;  // one past the start of the last record seen
    bool ended = false;
    bool pending = false;
    int64_t pending_at = 0;
    std::optional<sources::RecordSpan> unterminated_last;
    std::string digest;
  };
  FileLedger ledger_;
  std::unordered_map<std::string, LedgerEntry> seed_;
  std::map<int64_t, Progress> open_;  // opened and not yet recorded done
  bool digests_;
};

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
