// Applier: applies change batches of one flow to its Delta target (SEMANTICS.md §2-§6), one
// Delta commit per batch that changes something, with the key index kept beside the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apply/flow_definition.h"
#include "base/result.h"
#include "change/change_batch.h"
#include "delta/snapshot.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::apply {

struct ApplyOptions {
  /// Processing time in milliseconds since the epoch (tombstone expiry, quarantine times).
  /// Default: the wall clock.
  std::function<int64_t()> clock;
  /// Keep the key index in RocksDB under `<target>/_cdclake/index` (local file systems only);
  /// false keeps it in memory, rebuilt from the table when the applier opens.
  bool persistent_index = true;
  /// Where invalid events go; default `<target>_quarantine`.
  std::string quarantine_table;
  /// Told one line when opening had to rebuild a missing or damaged `_cdclake/` (what was
  /// wrong, what was rebuilt, the purge horizon); default: printed to stderr.
  std::function<void(const std::string&)> notice;
  /// The target's latest snapshot when the caller has just loaded it (spares Open a second
  /// read of the log); ignored when it is of another table. A commit made since is found at
  /// the first commit, as any concurrent writer's is.
  std::shared_ptr<const delta::Snapshot> snapshot;
  /// Keep SCD1 key states' row values in the key index instead of a digest of them (which is
  /// read back from the table when a batch needs the values): for tests that compare the two.
  bool full_states = false;
  /// A batch of at least this many rows first checks whether the key index holds any state;
  /// when it holds none (a load, a snapshot), the batch skips the look-ups, and an SCD1 flow's
  /// events keep only digests of their values. Tests lower it to reach that path with small
  /// batches.
  int64_t bulk_from = 65536;
  /// SCD2: how many of a key's newest events stay in its index entry at least (twice as many
  /// older ones at least go to a chunk; key_history.h, HistoryTail). Tests lower it to reach
  /// the archive with few events.
  size_t history_tail_events = 4;
};

/// The numbers of one Apply call (SEMANTICS §8: read = applied + discarded + quarantined).
struct ApplyCounts {
  int64_t read = 0;
  int64_t applied = 0;
  int64_t discarded = 0;  // older than the key's state, or a duplicate
  int64_t quarantined = 0;
  int64_t sequence_conflicts = 0;  // ties of two different upserts (the loser is discarded)
  int64_t inserted = 0;            // target rows added (SCD2: versions opened)
  int64_t updated = 0;             // target rows replaced (SCD2: versions closed or changed)
  int64_t deleted = 0;             // target rows removed
  int64_t tombstones_purged = 0;
  int64_t already_quarantined = 0;  // of `quarantined`: put there by an earlier run, not again

  ApplyCounts& operator+=(const ApplyCounts& o);
};

/// Extra content for the batch's commit (pipelines record their source position with it).
struct CommitExtras {
  std::optional<std::string> txn_app_id;
  int64_t txn_version = 0;
  /// The `txn_app_id` version the batch follows (a pipeline flow's previous batch, 0 for none):
  /// when the table holds another, a writer of the same flow committed meanwhile and this batch,
  /// read from an older position, fails with kConflict before anything is written. nullopt: no
  /// such check (snapshot flows, whose versions are the snapshots').
  std::optional<int64_t> txn_after;
  /// Further `txn` actions (application id, version) in the target commit: the source's own
  /// position where it has one that grows (read_postgres: "pg:<system>/<database>/<slot>" at the
  /// batch's end LSN), for tools that read Delta's transaction identifiers.
  std::vector<std::pair<std::string, int64_t>> source_txns = {};
  /// Goes into the target commit's commitInfo, and into the quarantine commit's, which also
  /// gets "cdclake.targetCommit": "true" when a target commit follows it, "false" when not.
  json::Json operation_parameters = json::Json::object();
  /// Input an earlier run quarantined already: a record whose position sorts before this one
  /// (see SortsBefore in apply/quarantine.h) counts as quarantined but is not written again.
  std::optional<change::SourcePosition> quarantined_before;
  /// Records an earlier run quarantined already, by QuarantineIdentity (apply/quarantine.h):
  /// for flows of named files, read whole each run. Counted as quarantined, not written again.
  std::shared_ptr<const std::set<std::string>> quarantined;
};

struct ApplyResult {
  ApplyCounts counts;
  std::optional<int64_t> version;             // the target's new version, if one was written
  std::optional<int64_t> quarantine_version;  // the quarantine table's, if rows went there
  std::optional<int64_t> optimize_version;    // a compaction that followed (autoOptimize)
  /// Things the run should say once (source columns a declared schema leaves out, ...).
  std::vector<std::string> warnings;
};

/// What Applier::Apply refuses before anything is written when `batch` is the first batch of
/// a target that does not exist yet: the flow against the batch's columns, column lists
/// included (after the cast to a declared column list, as Apply does). Planning (and
/// --dry-run) calls it on a source's first rows, so that both refuse with the same message.
Status CheckFirstBatchColumns(const FlowDefinition& flow, const change::ChangeBatch& batch);

class Applier {
 public:
  /// Opens the flow's target (creating nothing yet: the table is created by the first batch
  /// that applies something). The key index is opened, caught up with the table's log, or
  /// rebuilt from the table when missing.
  static Result<std::unique_ptr<Applier>> Open(io::FileSystem& fs, FlowDefinition flow,
                                               ApplyOptions options = {});
  virtual ~Applier() = default;

  /// Applies one batch: validates the flow against the batch's columns, quarantines invalid
  /// rows (and the batch's rejected records), applies the rest in sequence order and commits.
  /// No commit when nothing changed. A schema change other than a new column or a widening
  /// fails with kInvalidArgument naming the column, both types and the first row, before
  /// anything is written.
  virtual Result<ApplyResult> Apply(const change::ChangeBatch& batch,
                                    const CommitExtras& extras = {}) = 0;

  /// The table version the applier has applied up to (-1 before the table exists).
  virtual int64_t version() const = 0;
};

}  // namespace cdclake::apply
