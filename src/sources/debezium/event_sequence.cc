// EventSequence: per-connector source positions read from the source block.
#include "sources/debezium/event_sequence_internal.h"

#include <limits>

#include "data/decimal.h"
#include "sources/debezium/cell_decoder_internal.h"
#include "sources/files/cell_conversion_internal.h"

namespace cdclake::sources::internal {

namespace {

using data::DataType;
using data::TypePtr;

std::string FieldName(SourceFields::Field f) {
  static constexpr const char* kNames[] = {
      "connector",  "ts_ms",           "db",   "schema",     "table", "collection",
      "lsn",        "sequence",        "file", "pos",        "row",   "change_lsn",
      "commit_lsn", "event_serial_no", "scn",  "commit_scn", "ord"};
  return std::string("source.") + kNames[f];
}

// An integer from a number or a numeric string: 1 read, 0 absent (null), -1 wrong shape.
int ReadInt(const SourceFields& source, SourceFields::Field f, int64_t* out, std::string* reason) {
  const JsonValue& v = source[f];
  if (v.kind == JsonKind::kNull) return 0;
  if ((v.kind == JsonKind::kNumber || v.kind == JsonKind::kString) &&
      ParseInteger(v.text, out) == IntParse::kOk) {
    return 1;
  }
  *reason = FieldName(f) + " '" + std::string(v.text) + "' is not an integer that fits BIGINT";
  return -1;
}

// A string field: 1 read, 0 absent, -1 wrong shape.
int ReadText(const SourceFields& source, SourceFields::Field f, std::string_view* out,
             std::string* reason) {
  const JsonValue& v = source[f];
  if (v.kind == JsonKind::kNull) return 0;
  if (v.kind == JsonKind::kString) {
    *out = v.text;
    return 1;
  }
  *reason = FieldName(f) + " is not a string";
  return -1;
}

// PostgreSQL's sequence: "[\"123\",\"456\"]" (either element may be null).
bool ReadPostgresSequence(std::string_view text, ScratchArena* arena, int64_t values[2],
                          bool present[2]) {
  JsonScanner scanner(text, arena);
  if (!scanner.EnterArray()) return false;
  JsonValue element;
  int count = 0;
  for (;;) {
    JsonScanner::Step step = scanner.NextElement();
    if (step == JsonScanner::Step::kEnd) break;
    if (step == JsonScanner::Step::kError || count == 2 || !scanner.ReadValue(&element)) {
      return false;
    }
    if (element.kind == JsonKind::kNull) {
      present[count] = false;
    } else if ((element.kind == JsonKind::kString || element.kind == JsonKind::kNumber) &&
               ParseInteger(element.text, &values[count]) == IntParse::kOk && values[count] >= 0) {
      present[count] = true;
    } else {
      return false;
    }
    ++count;
  }
  return count == 2 && scanner.AtEnd();
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A SQL Server LSN "xxxxxxxx:xxxxxxxx:xxxx", lower-cased into the arena when needed.
bool NormalizeSqlServerLsn(std::string_view text, ScratchArena* arena, std::string_view* out) {
  if (text.size() != 22 || text[8] != ':' || text[17] != ':') return false;
  bool upper = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 17) continue;
    if (!IsHex(text[i])) return false;
    upper = upper || (text[i] >= 'A' && text[i] <= 'F');
  }
  if (!upper) {
    *out = text;
    return true;
  }
  char* dst = arena->Allocate(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    dst[i] = c >= 'A' && c <= 'F' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  *out = std::string_view(dst, text.size());
  return true;
}

// An SCN: 1 read, 0 absent, -1 wrong shape.
int ReadScn(const SourceFields& source, SourceFields::Field f, data::Int128* out,
            std::string* reason) {
  const JsonValue& v = source[f];
  if (v.kind == JsonKind::kNull) return 0;
  if (v.kind == JsonKind::kNumber || v.kind == JsonKind::kString) {
    Result<data::Int128> parsed = data::ParseDecimal(v.text, 38, 0);
    if (parsed.ok() && *parsed >= 0) {
      *out = *parsed;
      return 1;
    }
  }
  *reason = FieldName(f) + " '" + std::string(v.text) + "' is not an SCN (a decimal integer)";
  return -1;
}

}  // namespace

SourceFields::Field SourceFields::FieldOf(std::string_view name) {
  switch (name.size()) {
    case 2:
      if (name == "db") return kDb;
      break;
    case 3:
      if (name == "lsn") return kLsn;
      if (name == "pos") return kPos;
      if (name == "row") return kRow;
      if (name == "scn") return kScn;
      if (name == "ord") return kOrd;
      break;
    case 4:
      if (name == "file") return kFile;
      break;
    case 5:
      if (name == "ts_ms") return kTsMs;
      if (name == "table") return kTable;
      break;
    case 6:
      if (name == "schema") return kSchema;
      break;
    case 8:
      if (name == "sequence") return kSequence;
      break;
    case 9:
      if (name == "connector") return kConnector;
      break;
    case 10:
      if (name == "collection") return kCollection;
      if (name == "change_lsn") return kChangeLsn;
      if (name == "commit_lsn") return kCommitLsn;
      if (name == "commit_scn") return kCommitScn;
      break;
    case 15:
      if (name == "event_serial_no") return kEventSerialNo;
      break;
    default:
      break;
  }
  return kCount;
}

SequenceKind EventSequence::KindOfConnector(std::string_view connector) {
  if (connector == "postgresql") return SequenceKind::kPostgres;
  if (connector == "mysql" || connector == "mariadb") return SequenceKind::kMySql;
  if (connector == "sqlserver") return SequenceKind::kSqlServer;
  if (connector == "oracle") return SequenceKind::kOracle;
  if (connector == "mongodb") return SequenceKind::kMongo;
  return SequenceKind::kNone;
}

SequenceKind EventSequence::GuessKind(const SourceFields& source) {
  if (source.has(SourceFields::kConnector) &&
      source[SourceFields::kConnector].kind == JsonKind::kString) {
    return KindOfConnector(source[SourceFields::kConnector].text);
  }
  if (source.has(SourceFields::kCommitLsn) || source.has(SourceFields::kChangeLsn)) {
    return SequenceKind::kSqlServer;
  }
  if (source.has(SourceFields::kSequence) || source.has(SourceFields::kLsn)) {
    return SequenceKind::kPostgres;
  }
  if (source.has(SourceFields::kFile) && source.has(SourceFields::kPos)) {
    return SequenceKind::kMySql;
  }
  if (source.has(SourceFields::kScn)) return SequenceKind::kOracle;
  if (source.has(SourceFields::kOrd)) return SequenceKind::kMongo;
  return SequenceKind::kNone;
}

TypePtr EventSequence::TypeOf(SequenceKind kind) {
  switch (kind) {
    case SequenceKind::kNone:
      return DataType::Int64();
    case SequenceKind::kPostgres: {
      static const TypePtr type = DataType::Struct(
          {{"commit_lsn", DataType::Int64(), true}, {"lsn", DataType::Int64(), true}});
      return type;
    }
    case SequenceKind::kMySql: {
      static const TypePtr type = DataType::Struct({{"file", DataType::String(), true},
                                                    {"pos", DataType::Int64(), true},
                                                    {"row", DataType::Int32(), true}});
      return type;
    }
    case SequenceKind::kSqlServer: {
      static const TypePtr type = DataType::Struct({{"commit_lsn", DataType::String(), true},
                                                    {"change_lsn", DataType::String(), true},
                                                    {"event_serial_no", DataType::Int64(), true}});
      return type;
    }
    case SequenceKind::kOracle: {
      static const TypePtr type = DataType::Struct({{"commit_scn", DataType::Decimal(38, 0), true},
                                                    {"scn", DataType::Decimal(38, 0), true}});
      return type;
    }
    case SequenceKind::kMongo: {
      static const TypePtr type =
          DataType::Struct({{"ts_ms", DataType::Int64(), true}, {"ord", DataType::Int64(), true}});
      return type;
    }
  }
  return DataType::Int64();
}

bool EventSequence::Read(SequenceKind kind, const SourceFields& source, ScratchArena* arena,
                         std::string* reason) {
  null = true;
  for (bool& f : field_null) f = true;
  switch (kind) {
    case SequenceKind::kNone:
      return true;
    case SequenceKind::kPostgres: {
      int64_t lsn = 0;
      int has_lsn = ReadInt(source, SourceFields::kLsn, &lsn, reason);
      if (has_lsn < 0) return false;
      int64_t seq[2] = {0, 0};
      bool present[2] = {false, false};
      const JsonValue& sequence = source[SourceFields::kSequence];
      if (sequence.kind == JsonKind::kString) {
        if (!ReadPostgresSequence(sequence.text, arena, seq, present)) {
          *reason = "source.sequence '" + std::string(sequence.text) +
                    "' is not a JSON array of two LSNs";
          return false;
        }
      } else if (sequence.kind != JsonKind::kNull) {
        *reason = "source.sequence is not a string";
        return false;
      }
      bool own = has_lsn > 0 || present[1];
      int64_t own_lsn = has_lsn > 0 ? lsn : seq[1];
      if (present[0] || own) {
        field_null[0] = false;
        ints[0] = present[0] ? seq[0] : own_lsn;
      }
      if (present[1] || has_lsn > 0) {
        field_null[1] = false;
        ints[1] = present[1] ? seq[1] : lsn;
      }
      null = field_null[0] && field_null[1];
      return true;
    }
    case SequenceKind::kMySql: {
      int got[3];
      if ((got[0] = ReadText(source, SourceFields::kFile, &texts[0], reason)) < 0) return false;
      if ((got[1] = ReadInt(source, SourceFields::kPos, &ints[1], reason)) < 0) return false;
      if ((got[2] = ReadInt(source, SourceFields::kRow, &ints[2], reason)) < 0) return false;
      if (got[2] > 0 && (ints[2] < std::numeric_limits<int32_t>::min() ||
                         ints[2] > std::numeric_limits<int32_t>::max())) {
        *reason = "source.row is out of range for INT";
        return false;
      }
      for (int i = 0; i < 3; ++i) field_null[i] = got[i] == 0;
      null = got[0] == 0 && got[1] == 0 && got[2] == 0;
      return true;
    }
    case SequenceKind::kSqlServer: {
      static constexpr SourceFields::Field kLsns[2] = {SourceFields::kCommitLsn,
                                                       SourceFields::kChangeLsn};
      int got[3];
      for (int i = 0; i < 2; ++i) {
        std::string_view text;
        if ((got[i] = ReadText(source, kLsns[i], &text, reason)) < 0) return false;
        if (got[i] > 0 && !NormalizeSqlServerLsn(text, arena, &texts[i])) {
          *reason = FieldName(kLsns[i]) + " '" + std::string(text) +
                    "' is not a fixed-width LSN (xxxxxxxx:xxxxxxxx:xxxx)";
          return false;
        }
      }
      if ((got[2] = ReadInt(source, SourceFields::kEventSerialNo, &ints[2], reason)) < 0) {
        return false;
      }
      if (got[0] > 0 && got[1] == 0) {
        // A snapshot row: before every change streamed under the same commit LSN.
        texts[1] = std::string_view();
        got[1] = 1;
        if (got[2] == 0) {
          ints[2] = 0;
          got[2] = 1;
        }
      }
      for (int i = 0; i < 3; ++i) field_null[i] = got[i] == 0;
      null = got[0] == 0 && got[1] == 0 && got[2] == 0;
      return true;
    }
    case SequenceKind::kOracle: {
      int commit = ReadScn(source, SourceFields::kCommitScn, &decimals[0], reason);
      if (commit < 0) return false;
      int scn = ReadScn(source, SourceFields::kScn, &decimals[1], reason);
      if (scn < 0) return false;
      if (commit == 0 && scn > 0) {
        decimals[0] = decimals[1];
        commit = 1;
      }
      field_null[0] = commit == 0;
      field_null[1] = scn == 0;
      null = commit == 0 && scn == 0;
      return true;
    }
    case SequenceKind::kMongo: {
      int got[2];
      if ((got[0] = ReadInt(source, SourceFields::kTsMs, &ints[0], reason)) < 0) return false;
      if ((got[1] = ReadInt(source, SourceFields::kOrd, &ints[1], reason)) < 0) return false;
      field_null[0] = got[0] == 0;
      field_null[1] = got[1] == 0;
      null = got[0] == 0 && got[1] == 0;
      return true;
    }
  }
  return true;
}

void EventSequence::AppendTo(SequenceKind kind, data::Column* column) const {
  if (null) {
    column->AppendNull();
    return;
  }
  auto append_int = [&](size_t child, int i) {
    data::Column& c = column->mutable_child(child);
    if (field_null[i]) {
      c.AppendNull();
    } else if (c.type()->id() == data::TypeId::kInt32) {
      c.Append<int32_t>(static_cast<int32_t>(ints[i]));
    } else {
      c.Append<int64_t>(ints[i]);
    }
  };
  auto append_text = [&](size_t child, int i) {
    data::Column& c = column->mutable_child(child);
    if (field_null[i]) {
      c.AppendNull();
    } else {
      c.AppendBytes(texts[i]);
    }
  };
  switch (kind) {
    case SequenceKind::kNone:
      column->AppendNull();
      return;
    case SequenceKind::kPostgres:
    case SequenceKind::kMongo:
      append_int(0, 0);
      append_int(1, 1);
      break;
    case SequenceKind::kMySql:
      append_text(0, 0);
      append_int(1, 1);
      append_int(2, 2);
      break;
    case SequenceKind::kSqlServer:
      append_text(0, 0);
      append_text(1, 1);
      append_int(2, 2);
      break;
    case SequenceKind::kOracle:
      for (int i = 0; i < 2; ++i) {
        data::Column& c = column->mutable_child(static_cast<size_t>(i));
        if (field_null[i]) {
          c.AppendNull();
        } else {
          c.Append<data::Int128>(decimals[i]);
        }
      }
      break;
  }
  column->AppendStructSlot();
}

}  // namespace cdclake::sources::internal
