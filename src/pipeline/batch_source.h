// BatchSource: what a flow reads, as batches of change rows that each end at a position the flow
// can record and later resume after — files read from a byte position, or a table's commits
// read after a version.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apply/flow_definition.h"
#include "base/result.h"
#include "change/change_batch.h"
#include "json/json.h"
#include "pipeline/pipeline_plan.h"
#include "sources/change_source.h"
#include "sources/postgres/shared_slot.h"

namespace cdclake::pipeline {

/// A batch and the position just past it.
struct InputBatch {
  change::ChangeBatch rows;
  json::Json end;          // the position to record with this batch's commit
  std::string end_text;    // the same for people: "a.json@1024", "shop.bronze@v12"
  int64_t files_done = 0;  // files finished with this batch
  /// When the newest input in the batch was written (ms since the epoch; a file's modification
  /// time, a table commit's timestamp), for the lag operators watch; 0 when unknown.
  int64_t written_ms = 0;
  /// A `txn` action (application id, version) the commit of this batch also carries: the
  /// source's own growing position, when it has one (read_postgres).
  std::optional<std::pair<std::string, int64_t>> source_txn;
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;

  /// Where reading starts, for people: "start", "a.json@1024", "shop.bronze@v12".
  virtual std::string StartText() const = 0;

  /// The next batch (at most about `batch_rows` rows, never splitting a table commit), or
  /// nullopt when everything there now has been read.
  virtual Result<std::optional<InputBatch>> Next() = 0;

  /// Input an earlier run quarantined already (apply::CommitExtras::quarantined_before), when
  /// the source knows it from where it resumed; nullopt otherwise.
  virtual std::optional<change::SourcePosition> QuarantinedBefore() const { return std::nullopt; }

  /// Lines to tell the user about where reading starts (an upstream that was refreshed and is
  /// read again from its start); empty when there is nothing to say.
  virtual std::vector<std::string> Notices() const { return {}; }

  /// Counts of records that are not rows (Debezium tombstones, SQL Server before-images), so
  /// far; empty for tables.
  virtual std::vector<sources::SourceCount> Counts() const { return {}; }

  /// Records the files read so far end in that are not whole yet (ChangeSource::Pending);
  /// empty for tables.
  virtual std::vector<sources::PendingFile> Pending() const { return {}; }

  /// The batch that ended at `end` (InputBatch::end) is durable: committed to the target, or
  /// recorded beside it when it changed nothing. A source that must tell its upstream how far
  /// it may let go (a PostgreSQL slot) does so now, never earlier. May be called while Next
  /// runs on another thread.
  virtual void Committed(const json::Json& end) {}

  /// Once Next() has returned nullopt: how far the source's upstream is ahead of what the flow
  /// read, for people and the event log ("slot s: 0 B of WAL after its confirmed position, 24 kB
  /// retained"; "0 messages behind the high watermarks"); nullopt for files and tables. A
  /// source that holds a connection upstream may close it first.
  virtual std::optional<std::string> Lag() { return std::nullopt; }
};

/// `inner`, with each next batch read on a thread of its own while the caller works on the
/// current one (one batch ahead). Counts() and the other queries wait for a read in progress.
std::unique_ptr<BatchSource> ReadingAhead(std::unique_ptr<BatchSource> inner);

/// A table read as a stream from just after the version `position` records ({"table": name,
/// "version": v, "tableId": its metaData.id}; null: from the start). When the table's id is not
/// the recorded one, or its version is below the recorded one (it was refreshed), it is read
/// from its start and Notices() says so (an AUTO CDC flow's sequence guards make the rows read
/// twice harmless). A table that does not exist yet has nothing to read.
/// With `skip_change_commits`, commits that removed or rewrote rows are passed over.
/// An append flow cannot read a refreshed upstream again without appending its rows twice: with
/// `OnRefreshedUpstream::kRefuse` that is kConflict, naming the refresh that mends it (of
/// `reader_target`, the table the flow writes).
enum class OnRefreshedUpstream { kReadAgain, kRefuse };
Result<std::unique_ptr<BatchSource>> OpenTableSource(
    const io::FileSystem& fs, const std::string& table, const std::string& folder,
    const json::Json& position, int64_t batch_rows, bool skip_change_commits = false,
    OnRefreshedUpstream on_refreshed = OnRefreshedUpstream::kReadAgain,
    const std::string& reader_target = "");

/// table_changes('t', start): the change data feed of `source.table` (a table with
/// delta.enableChangeDataFeed = true; otherwise kInvalidArgument saying so) from just after
/// `position` ({"table", "version", "tableId", "changes": true}; null: from source.changes_from,
/// or the first version committed at or after source.changes_from_ms), version by version up
/// to the table's version now, each batch whole versions. Rows have the table's columns and
/// _change_type, _commit_version, _commit_timestamp; `drop_preimages` (AUTO CDC flows) leaves
/// out update_preimage rows. A refreshed table (another table id) is read from the start again.
Result<std::unique_ptr<BatchSource>> OpenTableChangesSource(const io::FileSystem& fs,
                                                            const SourcePlan& source,
                                                            const json::Json& position,
                                                            int64_t batch_rows,
                                                            bool drop_preimages);

/// A PostgreSQL table's changes (read_postgres) from just after `position` (a PgPosition's
/// JSON, as a commit of the flow recorded it; null: the first run, which copies the table
/// first). Errors name the server and say what to do (create the publication, refresh the table
/// when the slot is gone or ahead of the position). `shared`: the slot is read for other flows
/// too this pass (PgTableReader::Open); nullptr: the flow's alone.
Result<std::unique_ptr<BatchSource>> OpenPostgresSource(const SourcePlan& source,
                                                        const json::Json& position,
                                                        int64_t batch_rows,
                                                        sources::postgres::SharedSlot* shared);

/// Kafka topics (read_kafka) from just after `position` (a KafkaPosition's JSON, as a commit of
/// the flow recorded it; null: the first run, from startingOffsets). Offsets reach the consumer
/// group `group_id` (unless the source sets kafka.group.id) once each batch is durable.
Result<std::unique_ptr<BatchSource>> OpenKafkaSource(const SourcePlan& source,
                                                     const json::Json& position, int64_t batch_rows,
                                                     const std::string& group_id);

/// Where a file source's flow records its position.
struct FileSourceTarget {
  std::string folder;            // the target table's
  std::string quarantine_table;  // its quarantine table's folder
  std::string flow;
  std::string table;   // the target's name, for messages
  bool reset = false;  // --reset-position: read from the start
  /// Only looking (planning's check of the first rows): batches record no file ledger.
  bool peek = false;
};

/// The files of `source` (read_files: a file, a folder or a glob), read as a stream in path
/// order from just after the flow's last position recorded in its target (or quarantine table,
/// see FindResumePoint), in batches of about `batch_rows` rows. Columns are read with `source`'s
/// schema, then the target's types (`cdc_flow` maps an SCD2 target's __START_AT back to the
/// sequence; nullptr for appends), then earlier files'. kInvalidArgument for a file arriving out
/// of name order or of unknown format.
Result<std::unique_ptr<BatchSource>> OpenFileSource(io::FileSystem& fs, const SourcePlan& source,
                                                    const FileSourceTarget& target,
                                                    const apply::FlowDefinition* cdc_flow,
                                                    int64_t batch_rows);

}  // namespace cdclake::pipeline
