// SchemaDdl: type names, DDL column lists, plain column lists and SEQUENCE BY expressions.
#include "sql/schema_ddl.h"

#include <utility>

#include "base/strings.h"
#include "sql/token_stream_internal.h"

namespace cdclake::sql {

namespace {

using data::DataType;
using data::Field;
using data::TypePtr;

constexpr int kMaxPrecision = 38;

// Types spelled with one word and no arguments.
TypePtr SimpleType(const Token& t) {
  static const std::pair<std::string_view, TypePtr (*)()> kTypes[] = {
      {"BOOLEAN", DataType::Boolean},
      {"TINYINT", DataType::Int8},
      {"BYTE", DataType::Int8},
      {"SMALLINT", DataType::Int16},
      {"SHORT", DataType::Int16},
      {"INT", DataType::Int32},
      {"INTEGER", DataType::Int32},
      {"BIGINT", DataType::Int64},
      {"LONG", DataType::Int64},
      {"FLOAT", DataType::Float},
      {"REAL", DataType::Float},
      {"DOUBLE", DataType::Double},
      {"STRING", DataType::String},
      {"BINARY", DataType::Binary},
      {"DATE", DataType::Date},
      {"TIMESTAMP", DataType::Timestamp},
      {"TIMESTAMP_LTZ", DataType::Timestamp},
      {"TIMESTAMP_NTZ", DataType::TimestampNtz}};
  for (const auto& [name, make] : kTypes) {
    if (t.IsKeyword(name)) return make();
  }
  return nullptr;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// Names seen so far in one list, to reject a second spelling of one (case-insensitive).
class NameSet {
 public:
  explicit NameSet(std::string_view what) : what_(what) {}

  Status Add(const TokenStream& ts, const Token& token, const std::string& name) {
    std::string lower = ToLower(name);
    for (const auto& [seen, offset] : seen_) {
      if (seen == lower) {
        return ts.ErrorAt(token, what_ + " '" + name + "' appears twice (first at " +
                                     DescribePosition(ts.source(), offset) + ")");
      }
    }
    seen_.emplace_back(lower, token.offset);
    return Status::OK();
  }

 private:
  std::string what_;
  std::vector<std::pair<std::string, size_t>> seen_;
};

class DdlParser {
 public:
  explicit DdlParser(TokenStream* ts) : ts_(*ts) {}

  Result<TypePtr> ParseType() {
    const Token& t = ts_.Peek();
    if (t.kind != TokenKind::kIdentifier) return ts_.Expected("a type name");
    if (TypePtr simple = SimpleType(t)) {
      ts_.Next();
      if (ts_.PeekOperator("(")) {
        return ts_.ErrorAt(ts_.Peek(), "type " + Upper(t.text) + " takes no arguments");
      }
      return simple;
    }
    if (t.IsKeyword("DECIMAL") || t.IsKeyword("DEC") || t.IsKeyword("NUMERIC")) {
      ts_.Next();
      return ParseDecimal();
    }
    if (t.IsKeyword("VARCHAR") || t.IsKeyword("CHAR")) {
      std::string name = Upper(ts_.Next().text);
      if (!ts_.AcceptOperator("(")) return ts_.Expected("'(' and a length after " + name);
      CDCLAKE_ASSIGN_OR_RETURN(int length, ParseWholeNumber("a length", 1, 1 << 30));
      (void)length;  // strings carry no length limit
      if (!ts_.AcceptOperator(")")) return ts_.Expected("')' after the length");
      return DataType::String();
    }
    if (t.IsKeyword("STRUCT")) {
      ts_.Next();
      return ParseStruct();
    }
    if (t.IsKeyword("ARRAY")) {
      ts_.Next();
      if (!ts_.AcceptOperator("<")) return ts_.Expected("'<' after ARRAY");
      CDCLAKE_ASSIGN_OR_RETURN(TypePtr element, ParseType());
      if (!ts_.AcceptOperator(">")) return ts_.Expected("'>' to close ARRAY<");
      return DataType::List(std::move(element));
    }
    if (t.IsKeyword("MAP")) {
      ts_.Next();
      if (!ts_.AcceptOperator("<")) return ts_.Expected("'<' after MAP");
      CDCLAKE_ASSIGN_OR_RETURN(TypePtr key, ParseType());
      if (!ts_.AcceptOperator(",")) return ts_.Expected("',' and the value type in MAP<");
      CDCLAKE_ASSIGN_OR_RETURN(TypePtr value, ParseType());
      if (!ts_.AcceptOperator(">")) return ts_.Expected("'>' to close MAP<");
      return DataType::Map(std::move(key), std::move(value));
    }
    return ts_.ErrorAt(t, "unknown type '" + t.text + "'");
  }

  // name TYPE [NOT NULL] [COMMENT '...']; in a STRUCT a ':' may follow the name.
  Result<Field> ParseField(bool in_struct, NameSet* names) {
    const Token& name_token = ts_.Peek();
    CDCLAKE_ASSIGN_OR_RETURN(std::string name,
                             ts_.ExpectName(in_struct ? "a field name" : "a column name"));
    CDCLAKE_RETURN_IF_ERROR(names->Add(ts_, name_token, name));
    if (in_struct) ts_.AcceptOperator(":");
    CDCLAKE_ASSIGN_OR_RETURN(TypePtr type, ParseType());
    Field field{std::move(name), std::move(type), true};
    while (true) {
      if (ts_.AcceptKeyword("NOT")) {
        if (!ts_.AcceptKeyword("NULL")) return ts_.Expected("NULL after NOT");
        field.nullable = false;
      } else if (ts_.AcceptKeyword("COMMENT")) {
        if (ts_.Peek().kind != TokenKind::kString) return ts_.Expected("a string after COMMENT");
        ts_.Next();
      } else {
        break;
      }
    }
    return field;
  }

 private:
  // DECIMAL[(p[,s])], (10,0) when bare.
  Result<TypePtr> ParseDecimal() {
    int precision = 10, scale = 0;
    if (ts_.AcceptOperator("(")) {
      CDCLAKE_ASSIGN_OR_RETURN(precision, ParseWholeNumber("the precision", 1, kMaxPrecision));
      if (ts_.AcceptOperator(",")) {
        CDCLAKE_ASSIGN_OR_RETURN(scale, ParseWholeNumber("the scale", 0, precision));
      }
      if (!ts_.AcceptOperator(")")) return ts_.Expected("')' to close DECIMAL(");
    }
    return DataType::Decimal(precision, scale);
  }

  Result<int> ParseWholeNumber(std::string_view what, int min, int max) {
    const Token& t = ts_.Peek();
    bool digits =
        t.kind == TokenKind::kNumber && t.text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) return ts_.Expected(std::string(what) + " (a whole number)");
    long long v = t.text.size() > 12 ? (1LL << 40) : std::stoll(t.text);
    if (v < min || v > max) {
      return ts_.ErrorAt(t, std::string(what) + " must be between " + std::to_string(min) +
                                " and " + std::to_string(max) + ", found " + t.text);
    }
    ts_.Next();
    return static_cast<int>(v);
  }

  Result<TypePtr> ParseStruct() {
    if (ts_.AcceptOperator("<>")) return DataType::Struct({});
    if (!ts_.AcceptOperator("<")) return ts_.Expected("'<' after STRUCT");
    std::vector<Field> fields;
    NameSet names("field");
    if (!ts_.AcceptOperator(">")) {
      while (true) {
        CDCLAKE_ASSIGN_OR_RETURN(Field f, ParseField(true, &names));
        fields.push_back(std::move(f));
        if (ts_.AcceptOperator(",")) continue;
        if (ts_.AcceptOperator(">")) break;
        return ts_.Expected("',' or '>' in STRUCT<");
      }
    }
    return DataType::Struct(std::move(fields));
  }

  TokenStream& ts_;
};

// A comma-separated list of names, `what` each.
Result<std::vector<std::string>> ParseNames(TokenStream& ts, std::string_view what) {
  std::vector<std::string> names;
  NameSet seen("column");
  do {
    const Token& t = ts.Peek();
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, ts.ExpectName(what));
    CDCLAKE_RETURN_IF_ERROR(seen.Add(ts, t, name));
    names.push_back(std::move(name));
  } while (ts.AcceptOperator(","));
  return names;
}

}  // namespace

Result<data::TypePtr> ParseTypeName(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream ts, TokenStream::Open(text));
  DdlParser parser(&ts);
  CDCLAKE_ASSIGN_OR_RETURN(TypePtr type, parser.ParseType());
  if (!ts.AtEnd()) return ts.Expected("the end of the type");
  return type;
}

Result<data::Schema> ParseSchemaDdl(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream ts, TokenStream::Open(text));
  DdlParser parser(&ts);
  std::vector<Field> fields;
  NameSet names("column");
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(Field f, parser.ParseField(false, &names));
    fields.push_back(std::move(f));
    if (ts.AcceptOperator(",")) continue;
    if (ts.AtEnd()) break;
    return ts.Expected("',', NOT NULL, COMMENT or the end of the columns");
  }
  return data::Schema(std::move(fields));
}

Result<std::vector<std::string>> ParseColumnList(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream ts, TokenStream::Open(text));
  bool parenthesized = ts.AcceptOperator("(");
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<std::string> names, ParseNames(ts, "a column name"));
  if (parenthesized && !ts.AcceptOperator(")")) return ts.Expected("',' or ')'");
  if (!ts.AtEnd()) return ts.Expected(parenthesized ? "the end of the list" : "',' or the end");
  return names;
}

Result<SequenceSpec> ParseSequenceBy(std::string_view text) {
  CDCLAKE_ASSIGN_OR_RETURN(TokenStream ts, TokenStream::Open(text));
  SequenceSpec spec;
  if (ts.PeekKeyword("STRUCT") && ts.PeekOperator("(", 1)) {
    ts.Next();
    ts.Next();
    spec.is_struct = true;
    CDCLAKE_ASSIGN_OR_RETURN(spec.columns, ParseNames(ts, "a column name"));
    if (!ts.AcceptOperator(")")) return ts.Expected("',' or ')' to close STRUCT(");
  } else {
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, ts.ExpectName("a column name or STRUCT(...)"));
    spec.columns.push_back(std::move(name));
  }
  if (!ts.AtEnd()) {
    if (ts.PeekOperator(".")) {
      return ts.ErrorAt(ts.Peek(), "SEQUENCE BY takes top-level columns, not nested fields");
    }
    return ts.Expected("the end of the SEQUENCE BY expression");
  }
  return spec;
}

}  // namespace cdclake::sql
