// AUTO CDC / APPLY CHANGES flow bodies. Each clause is recognized by its first words, so that a
// clause out of the documented order is reported as such rather than as an unexpected word.
#include "sql/pipeline_flow_parser_internal.h"

#include <array>

#include "sql/expression_parser_internal.h"
#include "sql/pipeline_parse_helpers_internal.h"
#include "sql/pipeline_select_parser_internal.h"

namespace cdclake::sql {

namespace {

// The clauses of a change-feed flow in the documented order.
enum Clause {
  kKeys,
  kIgnoreNullUpdates,
  kApplyAsDelete,
  kApplyAsTruncate,
  kSequenceBy,
  kSystemSequenceBy,
  kColumns,
  kStoredAs,
  kTrackHistory,
  kColumnsToUpdate,
  kClauseCount,
};

constexpr std::array<std::string_view, kClauseCount> kClauseNames = {"KEYS",
                                                                     "IGNORE NULL UPDATES",
                                                                     "APPLY AS DELETE WHEN",
                                                                     "APPLY AS TRUNCATE WHEN",
                                                                     "SEQUENCE BY",
                                                                     "SYSTEM SEQUENCE BY",
                                                                     "COLUMNS",
                                                                     "STORED AS",
                                                                     "TRACK HISTORY ON",
                                                                     "COLUMNS TO UPDATE"};

class FlowParser {
 public:
  FlowParser(TokenStream* tokens, FlowHeader header) : ts_(*tokens), header_(std::move(header)) {}

  Result<PipelineStatement::Body> Parse() {
    CDCLAKE_ASSIGN_OR_RETURN(TableName target, ParseTableName(ts_, "the target table after INTO"));
    if (!ts_.AcceptKeyword("FROM")) return ts_.Expected("FROM and the source after the target");
    if (ts_.PeekKeyword("SNAPSHOT") &&
        (ts_.PeekOperator("(", 1) || ts_.Peek(1).kind == TokenKind::kIdentifier ||
         ts_.Peek(1).kind == TokenKind::kQuotedIdentifier)) {
      return ParseSnapshot(std::move(target));
    }
    AutoCdcFlow flow;
    flow.flow_name = header_.flow_name;
    flow.comment = header_.comment;
    flow.spelling = header_.spelling;
    flow.once = header_.once;
    flow.target = std::move(target);
    CDCLAKE_ASSIGN_OR_RETURN(flow.source, ParseSourceRef(ts_));
    if (!ts_.PeekKeyword("KEYS")) {
      if (ClauseAt() >= 0) {
        return ts_.Expected("KEYS (...) right after the source; it is the first clause");
      }
      return ts_.Expected("KEYS (...) after the source");
    }
    std::array<bool, kClauseCount> seen{};
    int last = -1;
    while (true) {
      int clause = ClauseAt();
      if (clause < 0) break;
      const Token& start = ts_.Peek();
      if (seen[clause]) {
        return ts_.ErrorAt(start, std::string(kClauseNames[clause]) + " appears twice");
      }
      if (clause < last) {
        return ts_.ErrorAt(start, std::string(kClauseNames[clause]) + " must come before " +
                                      std::string(kClauseNames[last]) +
                                      " (AUTO CDC clauses follow a fixed order)");
      }
      if (clause > kSequenceBy && !seen[kSequenceBy]) {
        return ts_.Expected("SEQUENCE BY before " + std::string(kClauseNames[clause]));
      }
      seen[clause] = true;
      last = clause;
      CDCLAKE_RETURN_IF_ERROR(ParseClause(static_cast<Clause>(clause), &flow));
    }
    if (!seen[kSequenceBy]) {
      return ts_.Expected("SEQUENCE BY (AUTO CDC needs the column that orders the changes)");
    }
    return PipelineStatement::Body(std::move(flow));
  }

 private:
  // The clause whose first words are at the cursor, or -1.
  int ClauseAt() const {
    const Token& t = ts_.Peek();
    if (t.IsKeyword("KEYS")) return kKeys;
    if (t.IsKeyword("IGNORE")) return kIgnoreNullUpdates;
    if (t.IsKeyword("APPLY") && ts_.PeekKeyword("AS", 1)) {
      return ts_.PeekKeyword("TRUNCATE", 2) ? kApplyAsTruncate : kApplyAsDelete;
    }
    if (t.IsKeyword("SEQUENCE")) return kSequenceBy;
    if (t.IsKeyword("SYSTEM") && ts_.PeekKeyword("SEQUENCE", 1)) return kSystemSequenceBy;
    if (t.IsKeyword("COLUMNS")) return ts_.PeekKeyword("TO", 1) ? kColumnsToUpdate : kColumns;
    if (t.IsKeyword("STORED")) return kStoredAs;
    if (t.IsKeyword("TRACK")) return kTrackHistory;
    return -1;
  }

  Status ParseClause(Clause clause, AutoCdcFlow* flow) {
    const Token& start = ts_.Peek();
    switch (clause) {
      case kKeys: {
        ts_.Next();
        CDCLAKE_ASSIGN_OR_RETURN(flow->keys, ParseParenthesizedNames(ts_, "KEYS"));
        return Status::OK();
      }
      case kIgnoreNullUpdates: {
        ts_.Next();
        if (!ts_.AcceptKeyword("NULL") || !ts_.AcceptKeyword("UPDATES")) {
          return ts_.Expected("NULL UPDATES after IGNORE");
        }
        flow->ignore_null_updates = true;
        if (ts_.AcceptKeyword("ON")) {
          CDCLAKE_ASSIGN_OR_RETURN(flow->ignore_null_updates_columns,
                                   ParseColumnSelection(ts_, "IGNORE NULL UPDATES ON"));
        }
        return Status::OK();
      }
      case kApplyAsDelete:
      case kApplyAsTruncate: {
        ts_.Next();  // APPLY
        ts_.Next();  // AS
        bool truncate = clause == kApplyAsTruncate;
        if (!ts_.AcceptKeyword(truncate ? "TRUNCATE" : "DELETE")) {
          return ts_.Expected("DELETE WHEN or TRUNCATE WHEN after APPLY AS");
        }
        if (!ts_.AcceptKeyword("WHEN")) {
          return ts_.Expected(std::string("WHEN and a condition after APPLY AS ") +
                              (truncate ? "TRUNCATE" : "DELETE"));
        }
        CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<data::Expr> condition, ParseExpression(ts_));
        (truncate ? flow->apply_as_truncate : flow->apply_as_delete) = std::move(condition);
        return Status::OK();
      }
      case kSequenceBy:
        return ParseSequenceBy(flow);
      case kSystemSequenceBy:
        return NotSupported(ts_, start, "SYSTEM SEQUENCE BY");
      case kColumns: {
        ts_.Next();
        CDCLAKE_ASSIGN_OR_RETURN(flow->columns, ParseColumnSelection(ts_, "COLUMNS"));
        return Status::OK();
      }
      case kStoredAs: {
        CDCLAKE_ASSIGN_OR_RETURN(flow->scd_type, ParseStoredAs());
        return Status::OK();
      }
      case kTrackHistory: {
        CDCLAKE_ASSIGN_OR_RETURN(flow->track_history, ParseTrackHistory(flow->scd_type));
        return Status::OK();
      }
      case kColumnsToUpdate:
        return NotSupported(ts_, start, "COLUMNS TO UPDATE");
      case kClauseCount:
        break;
    }
    return ts_.ErrorAt(start, "unknown AUTO CDC clause");
  }

  Status ParseSequenceBy(AutoCdcFlow* flow) {
    ts_.Next();  // SEQUENCE
    if (!ts_.AcceptKeyword("BY")) return ts_.Expected("BY after SEQUENCE");
    flow->sequence_by_position = PositionOf(ts_, ts_.Peek());
    if (ts_.PeekKeyword("STRUCT") && ts_.PeekOperator("(", 1)) {
      ts_.Next();
      CDCLAKE_ASSIGN_OR_RETURN(flow->sequence_by,
                               ParseParenthesizedNames(ts_, "SEQUENCE BY STRUCT"));
      flow->sequence_by_struct = true;
      return Status::OK();
    }
    const Token& t = ts_.Peek();
    CDCLAKE_ASSIGN_OR_RETURN(std::string column,
                             ts_.ExpectName("a column or STRUCT(...) after SEQUENCE BY"));
    if (ts_.PeekOperator("(")) {
      return NotSupported(ts_, t, "an expression in SEQUENCE BY",
                          "use a column or STRUCT(columns), computed upstream if needed");
    }
    if (ts_.PeekOperator(".")) {
      return ts_.ErrorAt(ts_.Peek(), "SEQUENCE BY takes top-level columns, not nested fields");
    }
    flow->sequence_by.push_back(std::move(column));
    return Status::OK();
  }

  Result<int> ParseStoredAs() {
    ts_.Next();  // STORED
    if (!ts_.AcceptKeyword("AS")) return ts_.Expected("AS after STORED");
    if (ts_.PeekKeyword("BITEMPORAL")) return NotSupported(ts_, ts_.Peek(), "STORED AS BITEMPORAL");
    if (!ts_.AcceptKeyword("SCD")) return ts_.Expected("SCD TYPE 1 or SCD TYPE 2 after STORED AS");
    if (!ts_.AcceptKeyword("TYPE")) return ts_.Expected("TYPE after SCD");
    const Token& n = ts_.Peek();
    if (n.kind != TokenKind::kNumber || (n.text != "1" && n.text != "2")) {
      return ts_.Expected("1 or 2 after SCD TYPE");
    }
    return ts_.Next().text == "1" ? 1 : 2;
  }

  Result<ColumnSelection> ParseTrackHistory(int scd_type) {
    const Token& track = ts_.Next();
    if (!ts_.AcceptKeyword("HISTORY")) return ts_.Expected("HISTORY after TRACK");
    if (!ts_.AcceptKeyword("ON")) return ts_.Expected("ON after TRACK HISTORY");
    if (scd_type != 2) {
      return ts_.ErrorAt(track, "TRACK HISTORY ON needs STORED AS SCD TYPE 2 before it");
    }
    return ParseColumnSelection(ts_, "TRACK HISTORY ON");
  }

  Result<PipelineStatement::Body> ParseSnapshot(TableName target) {
    const Token& snapshot = ts_.Next();
    if (header_.spelling != AutoCdcFlow::Spelling::kAutoCdc) {
      return ts_.ErrorAt(snapshot, "FROM SNAPSHOT needs AUTO CDC INTO, not APPLY CHANGES INTO");
    }
    if (header_.once) {
      return NotSupported(ts_, *header_.once_token, "AUTO CDC ONCE with FROM SNAPSHOT");
    }
    SnapshotFlow flow;
    flow.flow_name = header_.flow_name;
    flow.comment = header_.comment;
    flow.target = std::move(target);
    bool parenthesized = ts_.AcceptOperator("(");
    if (ts_.PeekKeyword("STREAM")) {
      return ts_.ErrorAt(ts_.Peek(), "a snapshot is read whole; STREAM does not apply to it");
    }
    CDCLAKE_ASSIGN_OR_RETURN(flow.source, ParseSourceRef(ts_));
    if (parenthesized && !ts_.AcceptOperator(")")) return ts_.Expected("')' after the snapshot");
    if (ts_.AcceptKeyword("WITH")) {
      if (!ts_.AcceptKeyword("VERSION")) return ts_.Expected("VERSION after WITH");
      if (!ts_.AcceptOperator("(")) return ts_.Expected("'(' after WITH VERSION");
      CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<data::Expr> version, ParseExpression(ts_));
      flow.version = std::move(version);
      if (!ts_.AcceptOperator(")")) return ts_.Expected("')' to close WITH VERSION (");
    }
    if (!ts_.AcceptKeyword("KEYS")) return ts_.Expected("KEYS (...) after the snapshot source");
    CDCLAKE_ASSIGN_OR_RETURN(flow.keys, ParseParenthesizedNames(ts_, "KEYS"));
    if (ts_.PeekKeyword("STORED")) {
      CDCLAKE_ASSIGN_OR_RETURN(flow.scd_type, ParseStoredAs());
    }
    if (ts_.PeekKeyword("TRACK")) {
      CDCLAKE_ASSIGN_OR_RETURN(flow.track_history, ParseTrackHistory(flow.scd_type));
    }
    int clause = ClauseAt();
    if (clause >= 0) {
      return ts_.ErrorAt(ts_.Peek(), std::string(kClauseNames[clause]) +
                                         " is not allowed here in an AUTO CDC FROM SNAPSHOT flow "
                                         "(it takes KEYS, STORED AS, TRACK HISTORY ON, in order)");
    }
    return PipelineStatement::Body(std::move(flow));
  }

  TokenStream& ts_;
  FlowHeader header_;
};

}  // namespace

Result<PipelineStatement::Body> ParseFlowBody(TokenStream& tokens, FlowHeader header) {
  return FlowParser(&tokens, std::move(header)).Parse();
}

}  // namespace cdclake::sql
