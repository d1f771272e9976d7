// PgOutputDecoder: pgoutput's message formats (PostgreSQL's "Logical Replication Message
// Formats"): network byte order integers, NUL-terminated strings, TupleData.
#include "sources/postgres/pgoutput_decoder.h"

#include <string>
#include <utility>

#include "base/bytes.h"

namespace cdclake::sources::postgres {
namespace {

// Reads one message front to back; each read names what it wanted when the bytes run out.
class MessageReader {
 public:
  explicit MessageReader(std::string_view bytes) : bytes_(bytes) {}

  char kind() const { return bytes_.empty() ? '\0' : bytes_[0]; }
  size_t position() const { return pos_; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

  template <typename T>
  Result<T> Int(const char* what) {
    if (bytes_.size() - pos_ < sizeof(T)) return Short(what, sizeof(T));
    uint64_t v = LoadBigEndian(bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return static_cast<T>(v);
  }

  Result<std::string_view> String(const char* what) {
    size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) return Bad(std::string(what) + " has no terminating NUL");
    std::string_view s = bytes_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }

  Result<std::string_view> Bytes(size_t n, const char* what) {
    if (bytes_.size() - pos_ < n) return Short(what, n);
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  Status Bad(const std::string& what) const {
    return Status::Corrupt("pgoutput '" + std::string(1, kind()) + "' message (" +
                           std::to_string(bytes_.size()) + " bytes): " + what + " at byte " +
                           std::to_string(pos_));
  }

 private:
  Status Short(const char* what, size_t n) const {
    return Bad(std::string(what) + ": " + std::to_string(n) + " bytes wanted, " +
               std::to_string(bytes_.size() - pos_) + " left");
  }

  std::string_view bytes_;
  size_t pos_ = 1;  // past the kind byte
};

Result<Tuple> ReadTuple(MessageReader& in) {
  CDCLAKE_ASSIGN_OR_RETURN(int16_t count, in.Int<int16_t>("tuple column count"));
  if (count < 0) return in.Bad("negative tuple column count " + std::to_string(count));
  Tuple tuple(static_cast<size_t>(count));
  for (TupleCell& cell : tuple) {
    CDCLAKE_ASSIGN_OR_RETURN(uint8_t kind, in.Int<uint8_t>("tuple cell kind"));
    switch (kind) {
      case 'n':
        cell.kind = TupleCell::Kind::kNull;
        break;
      case 'u':
        cell.kind = TupleCell::Kind::kUnchanged;
        break;
      case 't':
      case 'b': {
        cell.kind = kind == 't' ? TupleCell::Kind::kText : TupleCell::Kind::kBinary;
        CDCLAKE_ASSIGN_OR_RETURN(int32_t length, in.Int<int32_t>("tuple cell length"));
        if (length < 0) return in.Bad("negative tuple cell length " + std::to_string(length));
        CDCLAKE_ASSIGN_OR_RETURN(cell.bytes, in.Bytes(static_cast<size_t>(length), "tuple cell"));
        break;
      }
      default:
        return in.Bad("tuple cell kind '" + std::string(1, static_cast<char>(kind)) +
                      "' (n, u, t or b expected)");
    }
  }
  return tuple;
}

// The transaction id that R, Y, I, U, D, T and M carry inside a stream block.
Result<std::optional<uint32_t>> StreamXid(MessageReader& in, bool in_stream) {
  if (!in_stream) return std::optional<uint32_t>();
  CDCLAKE_ASSIGN_OR_RETURN(uint32_t xid, in.Int<uint32_t>("transaction id"));
  return std::optional<uint32_t>(xid);
}

Result<PgOutputMessage> ReadRelation(MessageReader& in, bool in_stream) {
  Relation r;
  CDCLAKE_ASSIGN_OR_RETURN(r.xid, StreamXid(in, in_stream));
  CDCLAKE_ASSIGN_OR_RETURN(r.oid, in.Int<uint32_t>("relation id"));
  CDCLAKE_ASSIGN_OR_RETURN(r.schema, in.String("schema name"));
  CDCLAKE_ASSIGN_OR_RETURN(r.name, in.String("relation name"));
  CDCLAKE_ASSIGN_OR_RETURN(uint8_t identity, in.Int<uint8_t>("replica identity"));
  r.replica_identity = static_cast<char>(identity);
  CDCLAKE_ASSIGN_OR_RETURN(int16_t count, in.Int<int16_t>("column count"));
  if (count < 0) return in.Bad("negative column count " + std::to_string(count));
  r.columns.resize(static_cast<size_t>(count));
  for (RelationColumn& c : r.columns) {
    CDCLAKE_ASSIGN_OR_RETURN(uint8_t flags, in.Int<uint8_t>("column flags"));
    c.key = (flags & 1) != 0;
    CDCLAKE_ASSIGN_OR_RETURN(c.name, in.String("column name"));
    CDCLAKE_ASSIGN_OR_RETURN(c.type_oid, in.Int<uint32_t>("column type"));
    CDCLAKE_ASSIGN_OR_RETURN(c.type_modifier, in.Int<int32_t>("column type modifier"));
  }
  return PgOutputMessage(std::move(r));
}

Result<PgOutputMessage> ReadUpdate(MessageReader& in, bool in_stream) {
  Update u;
  CDCLAKE_ASSIGN_OR_RETURN(u.xid, StreamXid(in, in_stream));
  CDCLAKE_ASSIGN_OR_RETURN(u.relation, in.Int<uint32_t>("relation id"));
  CDCLAKE_ASSIGN_OR_RETURN(uint8_t tag, in.Int<uint8_t>("tuple tag"));
  if (tag == 'K' || tag == 'O') {
    u.old_kind = static_cast<char>(tag);
    CDCLAKE_ASSIGN_OR_RETURN(u.old_tuple, ReadTuple(in));
    CDCLAKE_ASSIGN_OR_RETURN(tag, in.Int<uint8_t>("tuple tag"));
  }
  if (tag != 'N')
    return in.Bad("tuple tag '" + std::string(1, static_cast<char>(tag)) + "' (N expected)");
  CDCLAKE_ASSIGN_OR_RETURN(u.new_tuple, ReadTuple(in));
  return PgOutputMessage(std::move(u));
}

Result<PgOutputMessage> ReadChange(MessageReader& in, bool in_stream) {
  switch (in.kind()) {
    case 'I': {
      Insert m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, StreamXid(in, in_stream));
      CDCLAKE_ASSIGN_OR_RETURN(m.relation, in.Int<uint32_t>("relation id"));
      CDCLAKE_ASSIGN_OR_RETURN(uint8_t tag, in.Int<uint8_t>("tuple tag"));
      if (tag != 'N')
        return in.Bad("tuple tag '" + std::string(1, static_cast<char>(tag)) + "' (N expected)");
      CDCLAKE_ASSIGN_OR_RETURN(m.new_tuple, ReadTuple(in));
      return PgOutputMessage(std::move(m));
    }
    case 'U':
      return ReadUpdate(in, in_stream);
    case 'D': {
      Delete m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, StreamXid(in, in_stream));
      CDCLAKE_ASSIGN_OR_RETURN(m.relation, in.Int<uint32_t>("relation id"));
      CDCLAKE_ASSIGN_OR_RETURN(uint8_t tag, in.Int<uint8_t>("tuple tag"));
      if (tag != 'K' && tag != 'O') {
        return in.Bad("tuple tag '" + std::string(1, static_cast<char>(tag)) +
                      "' (K or O expected)");
      }
      m.old_kind = static_cast<char>(tag);
      CDCLAKE_ASSIGN_OR_RETURN(m.old_tuple, ReadTuple(in));
      return PgOutputMessage(std::move(m));
    }
    default: {  // 'T'
      Truncate m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, StreamXid(in, in_stream));
      CDCLAKE_ASSIGN_OR_RETURN(int32_t count, in.Int<int32_t>("relation count"));
      if (count < 0) return in.Bad("negative relation count " + std::to_string(count));
      CDCLAKE_ASSIGN_OR_RETURN(m.options, in.Int<uint8_t>("truncate options"));
      m.relations.resize(static_cast<size_t>(count));
      for (uint32_t& oid : m.relations) {
        CDCLAKE_ASSIGN_OR_RETURN(oid, in.Int<uint32_t>("relation id"));
      }
      return PgOutputMessage(std::move(m));
    }
  }
}

Result<PgOutputMessage> ReadTransactionMark(MessageReader& in) {
  switch (in.kind()) {
    case 'B': {
      Begin m;
      CDCLAKE_ASSIGN_OR_RETURN(m.final_lsn, in.Int<uint64_t>("final LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.commit_time_us, in.Int<int64_t>("commit time"));
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, in.Int<uint32_t>("transaction id"));
      return PgOutputMessage(m);
    }
    case 'C': {
      Commit m;
      CDCLAKE_ASSIGN_OR_RETURN(m.flags, in.Int<uint8_t>("flags"));
      CDCLAKE_ASSIGN_OR_RETURN(m.commit_lsn, in.Int<uint64_t>("commit LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.end_lsn, in.Int<uint64_t>("end LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.commit_time_us, in.Int<int64_t>("commit time"));
      return PgOutputMessage(m);
    }
    case 'O': {
      Origin m;
      CDCLAKE_ASSIGN_OR_RETURN(m.origin_lsn, in.Int<uint64_t>("origin LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.name, in.String("origin name"));
      return PgOutputMessage(m);
    }
    case 'S': {
      StreamStart m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, in.Int<uint32_t>("transaction id"));
      CDCLAKE_ASSIGN_OR_RETURN(uint8_t first, in.Int<uint8_t>("first segment"));
      m.first_segment = first == 1;
      return PgOutputMessage(m);
    }
    case 'E':
      return PgOutputMessage(StreamStop{});
    case 'c': {
      StreamCommit m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, in.Int<uint32_t>("transaction id"));
      CDCLAKE_ASSIGN_OR_RETURN(m.flags, in.Int<uint8_t>("flags"));
      CDCLAKE_ASSIGN_OR_RETURN(m.commit_lsn, in.Int<uint64_t>("commit LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.end_lsn, in.Int<uint64_t>("end LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.commit_time_us, in.Int<int64_t>("commit time"));
      return PgOutputMessage(m);
    }
    default: {  // 'A'
      StreamAbort m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, in.Int<uint32_t>("transaction id"));
      CDCLAKE_ASSIGN_OR_RETURN(m.subxid, in.Int<uint32_t>("subtransaction id"));
      return PgOutputMessage(m);
    }
  }
}

}  // namespace

Result<PgOutputMessage> PgOutputDecoder::Decode(std::string_view message) {
  if (message.empty()) return Status::Corrupt("pgoutput: an empty message");
  MessageReader in(message);
  Result<PgOutputMessage> out = Status::Internal("unset");
  switch (in.kind()) {
    case 'B':
    case 'C':
    case 'O':
    case 'c':
      out = ReadTransactionMark(in);
      break;
    case 'S':
      if (in_stream_) return in.Bad("a stream start inside a stream block");
      out = ReadTransactionMark(in);
      break;
    case 'E':
      if (!in_stream_) return in.Bad("a stream stop outside a stream block");
      out = ReadTransactionMark(in);
      break;
    case 'A':
      // PostgreSQL 16's parallel apply adds the abort LSN and time: not asked for here.
      out = ReadTransactionMark(in);
      break;
    case 'R':
      out = ReadRelation(in, in_stream_);
      break;
    case 'Y': {
      Type m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, StreamXid(in, in_stream_));
      CDCLAKE_ASSIGN_OR_RETURN(m.oid, in.Int<uint32_t>("type id"));
      CDCLAKE_ASSIGN_OR_RETURN(m.schema, in.String("schema name"));
      CDCLAKE_ASSIGN_OR_RETURN(m.name, in.String("type name"));
      out = PgOutputMessage(m);
      break;
    }
    case 'I':
    case 'U':
    case 'D':
    case 'T':
      out = ReadChange(in, in_stream_);
      break;
    case 'M': {
      LogicalMessage m;
      CDCLAKE_ASSIGN_OR_RETURN(m.xid, StreamXid(in, in_stream_));
      CDCLAKE_ASSIGN_OR_RETURN(uint8_t flags, in.Int<uint8_t>("flags"));
      m.transactional = (flags & 1) != 0;
      CDCLAKE_ASSIGN_OR_RETURN(m.lsn, in.Int<uint64_t>("message LSN"));
      CDCLAKE_ASSIGN_OR_RETURN(m.prefix, in.String("prefix"));
      CDCLAKE_ASSIGN_OR_RETURN(int32_t length, in.Int<int32_t>("content length"));
      if (length < 0) return in.Bad("negative content length " + std::to_string(length));
      CDCLAKE_ASSIGN_OR_RETURN(m.content, in.Bytes(static_cast<size_t>(length), "content"));
      out = PgOutputMessage(m);
      break;
    }
    case 'b':
    case 'P':
    case 'K':
    case 'r':
    case 'p':
      return Status::NotSupported(std::string("pgoutput '") + in.kind() +
                                  "' message: two-phase commit messages are not asked for "
                                  "(cdclake starts replication without two_phase)");
    default:
      return Status::Corrupt(std::string("pgoutput: unknown message kind '") + in.kind() + "' (" +
                             std::to_string(message.size()) + " bytes)");
  }
  if (!out.ok()) return out;
  if (!in.AtEnd()) {
    return in.Bad(std::to_string(message.size() - in.position()) + " bytes after the message");
  }
  if (in.kind() == 'S') in_stream_ = true;
  if (in.kind() == 'E') in_stream_ = false;
  return out;
}

}  // namespace cdclake::sources::postgres
