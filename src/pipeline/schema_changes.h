// SchemaChanges: what changed in a target's columns as a flow wrote it (a column added, a type
// widened) and what its source stopped sending, for the event log and the run's output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "json/json.h"

namespace cdclake::pipeline {

/// The key of a flow's position that holds the columns its batch sent (Delta schema JSON).
inline constexpr const char* kSourceColumnsKey = "sourceColumns";
/// The key that holds, for a flow whose target declares its columns, the columns as the source
/// sent them (before the cast to the declared ones, which kSourceColumnsKey holds).
inline constexpr const char* kSourceReadKey = "sourceRead";

struct SchemaChange {
  std::string table;
  std::string column;
  std::string old_type;  // empty for an added column
  std::string new_type;  // empty for a column no longer sent
  std::string action;    // "added", "type changed", "no longer sent", "refused"
  int64_t rows = 0;      // "refused": the rows set aside (quarantined) for it
  /// "blocked": by the table's declared column list (the default there), not by 'block'.
  bool by_declaration = false;

  /// "column tier added to shop.customers (STRING)".
  std::string Text() const;
  /// {"table", "column", "old_type", "new_type", "action"}.
  json::Json ToJson() const;
};

/// Follows one flow's target through a run.
class SchemaWatch {
 public:
  /// The target's columns now (none when it does not exist yet) and what `flow`'s last
  /// committed batch sent, from one read of its log. `committed_before`: the flow committed to
  /// the target before. A column is "no longer sent" when the flow's previous batch had it (its
  /// position's kSourceColumnsKey). Without that record, a flow that committed before compares
  /// with the target's columns (positions written before records were kept); one that never
  /// committed compares with nothing, so a flow writing some of a table's columns (another flow
  /// writes the rest) is not told the others are missing. `declared`: the target declares its
  /// columns; then the batches' columns are as the source sent them (kSourceReadKey), and with
  /// no record there is nothing to compare with.
  static Result<SchemaWatch> Open(const io::FileSystem& fs, std::string table, std::string folder,
                                  const std::string& flow, bool committed_before,
                                  bool declared = false);

  /// The declared columns a table about to be created gets: what CheckBlocked compares with
  /// before the table exists.
  void HoldTo(data::Schema declared) { declared_ = std::move(declared); }

  /// The columns the flow's previous batch sent, as Open found them or the last AfterCommit
  /// was given (null when not known).
  const data::Schema* PreviouslySent() const;

  /// After a batch with columns `sent` was committed: the target's columns added or retyped
  /// since (the table is read again only when `sent` has a column the target did not have,
  /// or another type), and the target's columns `sent` lacks, each said once per run. The
  /// table's own columns (__START_AT, __END_AT) do not count as missing.
  /// `whole_rows`: the batch had a whole row image (not only key-only deletes); without one
  /// nothing is said missing and what the flow sends stays as the last such batch said.
  Result<std::vector<SchemaChange>> AfterCommit(const io::FileSystem& fs, const data::Schema& sent,
                                                bool whole_rows = true);

  /// cdclake.schemaPolicy = 'block': kInvalidArgument, before anything of the batch is
  /// committed, when the columns the flow writes (`writes`: the flow's column selection)
  /// differ from the target's: a column the target lacks, another type, or a target column
  /// the batch does not have; the message names each column and both types. Before the target
  /// exists, compared with the declared columns (HoldTo), or OK without them.
  /// Each difference is also added to `blocked` (action "blocked").
  /// Without `whole_rows` (a batch of key-only deletes) no column counts as no longer sent.
  Status CheckBlocked(const data::Schema& sent,
                      const std::function<bool(const std::string&)>& writes, bool whole_rows,
                      std::vector<SchemaChange>* blocked) const;

  /// The target's columns as last read (none before the table exists).
  const std::optional<data::Schema>& known() const { return known_; }

  /// The target's Delta table id when Open found it (empty when it did not exist).
  const std::string& table_id() const { return table_id_; }

 private:
  std::string table_;
  std::string folder_;
  std::optional<data::Schema> known_;
  std::optional<data::Schema> declared_;
  std::string table_id_;
  bool declared_flow_ = false;

  std::set<std::string> missing_said_;
  std::optional<data::Schema> last_sent_;
  bool committed_before_ = false;
  std::string checked_;  // the columns of the last batch compared with known_
};

}  // namespace cdclake::pipeline
