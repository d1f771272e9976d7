// ChangeSpool: the changes of one PostgreSQL transaction, in the order they came, held in
// memory up to a budget and beyond it in a temporary file, so that a transaction of millions of
// rows (or several streamed at once) costs disk, not memory, until it commits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "sources/postgres/pgoutput_message.h"

namespace cdclake::sources::postgres {

/// A table as its latest Relation message described it.
struct RelationInfo {
  struct Column {
    std::string name;
    uint32_t type_oid = 0;
    int32_t type_modifier = -1;
    bool key = false;
  };
  uint32_t oid = 0;
  std::string schema;
  std::string name;
  char replica_identity = 'd';
  std::vector<Column> columns;
};

/// A tuple's cells, owned: kinds, and each text or binary cell's bytes (empty otherwise).
struct OwnedTuple {
  std::vector<TupleCell::Kind> kinds;
  std::vector<std::string> values;
};

struct PgChange {
  enum class Kind : uint8_t { kInsert, kUpdate, kDelete, kTruncate };
  Kind kind = Kind::kInsert;
  uint32_t relation = 0;  // kTruncate: see `truncated`
  /// The relation as described when the change was sent: a Relation message may come in the
  /// middle of a transaction (after ALTER TABLE), and the tuples follow the shape before it.
  std::shared_ptr<const RelationInfo> shape;
  Lsn lsn = 0;        // the change's own WAL position (0 when the frame did not say)
  char old_kind = 0;  // 'K' (old key), 'O' (old row under REPLICA IDENTITY FULL) or 0
  OwnedTuple old_tuple;
  OwnedTuple new_tuple;
  std::vector<uint32_t> truncated;
  uint8_t truncate_options = 0;
};

/// Where and when a spool writes its changes to disk.
struct SpillOptions {
  /// Bytes of changes a spool holds in memory before it writes them to its file (about: the
  /// cells' bytes and the containers around them).
  int64_t memory_bytes = int64_t{64} << 20;
  /// The folder of the temporary files (created when missing); empty: $TMPDIR, else /var/tmp.
  /// A file has no name (O_TMPFILE where the file system has it, else unlinked at once): it
  /// goes with the process, also when the process is killed.
  std::string folder;
};

class ChangeSpool {
 public:
  ChangeSpool() = default;
  explicit ChangeSpool(SpillOptions options) : options_(std::move(options)) {}

  /// Appends `change`. The changes held in memory go to the file once they pass the budget;
  /// an I/O error names the file's folder. A spool copied since it last spilled is read-only
  /// on disk: adding to it is kInternal.
  Status Add(PgChange change);
  /// How many changes were added (and not cut).
  size_t size() const { return spilled_ + memory_.size(); }
  bool empty() const { return size() == 0; }

  /// The next change added is a place TruncateTo may cut at.
  void MarkNext();
  /// Drops the changes from `count` on. `count` is size() or less, and a place MarkNext made
  /// when it is below the changes on disk (kInternal otherwise).
  Status TruncateTo(size_t count);

  /// Each change in order with its index; stops at the first error `visit` returns. Changes
  /// read back from the file are decoded into one change object in turn (valid during the
  /// call only); a read error or a damaged record is kIoError / kCorrupt naming the file.
  Status ForEach(const std::function<Status(const PgChange& change, size_t index)>& visit) const;
  /// Every change, in memory (tests, and small transactions).
  Result<std::vector<PgChange>> Collect() const;

  /// Whether a change of relation `oid` (or a TRUNCATE naming it) was added; a cut change
  /// may still count.
  bool Touches(uint32_t oid) const { return touched_.count(oid) != 0; }
  /// Bytes written to the file (0 when the spool never spilled).
  int64_t spilled_bytes() const;
  /// Changes on disk.
  size_t spilled() const { return spilled_; }

 private:
  struct File;
  Status Spill();

  SpillOptions options_;
  std::shared_ptr<File> file_;  // shared by copies: written only by a spool alone on it
  size_t spilled_ = 0;
  int64_t file_end_ = 0;  // this spool's end of the file (a cut moves it back)
  std::vector<PgChange> memory_;
  int64_t memory_bytes_ = 0;
  std::map<size_t, int64_t> marks_;  // a change's index -> its offset once on disk (-1 before)
  std::set<uint32_t> touched_;
};

}  // namespace cdclake::sources::postgres
