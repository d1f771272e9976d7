// ChangeSpool: the changes of one PostgreSQL transaction, in the order they came, held in
// memory up to a budget and beyond it in a temporary file, so that a transaction of millions of
// rows (or several streamed at once) costs disk, not memory, until it commits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
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

class SpillFile;

/// Where and when a spool writes its changes to disk.
struct SpillOptions {
  /// Bytes of changes a spool holds in memory before it writes them to disk (about: the cells'
  /// bytes and the containers around them). 0: every change goes to disk as it comes.
  int64_t memory_bytes = int64_t{64} << 20;
  /// The folder of the temporary files (created when missing); empty: $TMPDIR, else /var/tmp.
  /// A file has no name (O_TMPFILE where the file system has it, else unlinked as soon as it
  /// is made): it goes with the process, also when the process is killed.
  std::string folder;
  /// The one file the spools made with these options append to (MakeSpillFile; an assembler's,
  /// a shared slot pass's), so that any number of transactions take one file descriptor; its
  /// space is taken back whenever no spool holds changes in it. Null: a spool makes its own
  /// file when it first spills.
  std::shared_ptr<SpillFile> file;
};

/// A file for the spools of one owner (`folder` as SpillOptions::folder), opened when first
/// written to.
std::shared_ptr<SpillFile> MakeSpillFile(std::string folder);

class ChangeSpool {
 public:
  ChangeSpool() = default;
  explicit ChangeSpool(const SpillOptions& options);
  ChangeSpool(const ChangeSpool&) = default;
  ChangeSpool& operator=(const ChangeSpool&) = default;
  ChangeSpool(ChangeSpool&& other) noexcept;
  ChangeSpool& operator=(ChangeSpool&& other) noexcept;
  ~ChangeSpool();

  /// Appends `change`. The changes held in memory go to the file once they pass the budget;
  /// an I/O error names the file's folder.
  Status Add(PgChange change);
  /// How many changes were added (and not cut).
  size_t size() const { return spilled_ + memory_.size(); }
  bool empty() const { return size() == 0; }

  /// The next change added is a place TruncateTo may cut at.
  void MarkNext();
  /// Drops the changes from `count` on. `count` is size() or less, and a place MarkNext made
  /// when it is below the changes on disk (kInternal otherwise).
  Status TruncateTo(size_t count);
  /// Forgets the marks (a committed transaction is cut no more).
  void ClearMarks() { marks_.clear(); }

  /// Each change in order with its index; stops at the first error `visit` returns. Changes
  /// read back from the file are decoded into one change object in turn (valid during the
  /// call only); a read error or a damaged record is kIoError / kCorrupt naming the file.
  Status ForEach(const std::function<Status(const PgChange& change, size_t index)>& visit) const;
  /// Hands each change in order to `take`, to keep (the changes in memory moved, those on disk
  /// read back), and empties the spool (touched() too), also when it stops at the first error
  /// (the changes not yet taken are then dropped).
  Status Drain(const std::function<Status(PgChange&& change)>& take);
  /// Every change, in memory (tests, and small transactions).
  Result<std::vector<PgChange>> Collect() const;

  /// Whether a change of relation `oid` (or a TRUNCATE naming it) was added; a change cut
  /// since still counts (so a reader may end a batch early, never lose a change).
  bool Touches(uint32_t oid) const { return touched_.count(oid) != 0; }
  /// The tables Touches is true of.
  const std::set<uint32_t>& touched() const { return touched_; }
  /// Bytes of this spool's changes on disk (0 when it never spilled).
  int64_t spilled_bytes() const;
  /// Changes on disk.
  size_t spilled() const { return spilled_; }

 private:
  /// A stretch of the file holding this spool's records, [begin, end).
  struct Segment {
    int64_t begin = 0;
    int64_t end = 0;
  };
  /// Keeps `file` counted as holding changes while a spool (or a copy of it) has segments.
  class Hold {
   public:
    Hold() = default;
    explicit Hold(std::shared_ptr<SpillFile> file);
    Hold(const Hold& other);
    Hold& operator=(const Hold& other);
    Hold(Hold&& other) noexcept = default;
    Hold& operator=(Hold&& other) noexcept;
    ~Hold();
    SpillFile* get() const { return file_.get(); }

   private:
    void Release();
    std::shared_ptr<SpillFile> file_;
  };
  Status Spill();
  /// Drops every change (on disk: lets go of the file) and the marks and touched tables.
  void Clear();
  /// ForEach over the changes on disk, each decoded into one object in turn.
  Status ReadSpilled(const std::function<Status(PgChange& change, size_t index)>& visit) const;

  int64_t memory_budget_ = int64_t{64} << 20;
  std::string folder_;
  std::weak_ptr<SpillFile> shared_file_;  // SpillOptions::file
  Hold hold_;                             // the file this spool's segments are in
  std::vector<Segment> segments_;
  size_t spilled_ = 0;
  std::vector<PgChange> memory_;
  int64_t memory_bytes_ = 0;
  /// Cut places in index order: a change's index and its offset once on disk (-1 before).
  std::vector<std::pair<size_t, int64_t>> marks_;
  std::set<uint32_t> touched_;
};

}  // namespace cdclake::sources::postgres
