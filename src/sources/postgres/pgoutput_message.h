// The messages of PostgreSQL's pgoutput plugin (logical replication protocol versions 1 and 2,
// PostgreSQL 15), as PgOutputDecoder gives them. docs/postgres.md says which fields cdclake uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace cdclake::sources::postgres {

/// A WAL position, compared as an unsigned integer ("0/16B3748" is 0x16B3748).
using Lsn = uint64_t;

/// One column of a tuple. `bytes` views the message: valid while the message's bytes are.
struct TupleCell {
  enum class Kind : uint8_t {
    kNull,       // 'n'; in a K tuple also "not part of the replica identity"
    kUnchanged,  // 'u': a TOASTed value the update did not change; no bytes are sent
    kText,       // 't': the type's text output
    kBinary,     // 'b': the type's binary output (only with the binary option)
  };
  Kind kind = Kind::kNull;
  std::string_view bytes;
};

using Tuple = std::vector<TupleCell>;

/// B: a transaction starts. `final_lsn` is its commit record's LSN.
struct Begin {
  Lsn final_lsn = 0;
  int64_t commit_time_us = 0;  // microseconds since 2000-01-01 00:00 UTC
  uint32_t xid = 0;
};

/// C: a transaction ends. `end_lsn` (just past the commit record) is what a client confirms.
struct Commit {
  uint8_t flags = 0;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;
  int64_t commit_time_us = 0;
};

/// O: the transaction came from another node's replication origin.
struct Origin {
  Lsn origin_lsn = 0;
  std::string_view name;
};

struct RelationColumn {
  bool key = false;  // part of the replica identity (every column under REPLICA IDENTITY FULL)
  std::string_view name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
};

/// R: a table's shape, sent before its first change and again after it changes.
struct Relation {
  std::optional<uint32_t> xid;  // inside a streamed transaction
  uint32_t oid = 0;
  std::string_view schema;  // empty for pg_catalog
  std::string_view name;
  char replica_identity = 'd';  // d default, n nothing, f full, i index
  std::vector<RelationColumn> columns;
};

/// Y: a non-built-in type a relation uses.
struct Type {
  std::optional<uint32_t> xid;
  uint32_t oid = 0;
  std::string_view schema;
  std::string_view name;
};

/// I: a new row.
struct Insert {
  std::optional<uint32_t> xid;
  uint32_t relation = 0;
  Tuple new_tuple;
};

/// U: an update. `old_kind` is 'K' (the old key: the key changed), 'O' (the whole old row:
/// REPLICA IDENTITY FULL) or 0 (neither was sent).
struct Update {
  std::optional<uint32_t> xid;
  uint32_t relation = 0;
  char old_kind = 0;
  Tuple old_tuple;
  Tuple new_tuple;
};

/// D: a deleted row: its key ('K') or whole row ('O').
struct Delete {
  std::optional<uint32_t> xid;
  uint32_t relation = 0;
  char old_kind = 'K';
  Tuple old_tuple;
};

/// T: TRUNCATE of one or more tables.
struct Truncate {
  static constexpr uint8_t kCascade = 1;
  static constexpr uint8_t kRestartIdentity = 2;
  std::optional<uint32_t> xid;
  uint8_t options = 0;
  std::vector<uint32_t> relations;
};

/// M: a message written with pg_logical_emit_message.
struct LogicalMessage {
  std::optional<uint32_t> xid;
  bool transactional = false;
  Lsn lsn = 0;
  std::string_view prefix;
  std::string_view content;
};

/// S: a block of an in-progress transaction's changes follows (protocol version 2).
struct StreamStart {
  uint32_t xid = 0;
  bool first_segment = false;
};

/// E: the block ends.
struct StreamStop {};

/// c: a streamed transaction committed.
struct StreamCommit {
  uint32_t xid = 0;
  uint8_t flags = 0;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;
  int64_t commit_time_us = 0;
};

/// A: a streamed transaction, or one of its subtransactions (`subxid` != `xid`), aborted.
struct StreamAbort {
  uint32_t xid = 0;
  uint32_t subxid = 0;
};

using PgOutputMessage =
    std::variant<Begin, Commit, Origin, Relation, Type, Insert, Update, Delete, Truncate,
                 LogicalMessage, StreamStart, StreamStop, StreamCommit, StreamAbort>;

}  // namespace cdclake::sources::postgres
