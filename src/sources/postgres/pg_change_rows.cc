// PgChangeRows: PgChange (owned tuples) into ChangeBatch rows of one table.
#include "sources/postgres/pg_change_rows.h"

#include <algorithm>
#include <vector>

#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_type_map.h"

namespace cdclake::sources::postgres {
namespace {

using Kind = TupleCell::Kind;

data::TypePtr SequenceType() {
  static const data::TypePtr type =
      data::DataType::Struct({{"commit_lsn", data::DataType::Int64(), true},
                              {"lsn", data::DataType::Int64(), true},
                              {"ordinal", data::DataType::Int64(), true}});
  return type;
}

// One row about to be appended: each table column's cell, and whether it is unchanged.
struct RowCells {
  std::vector<const std::string*> values;  // nullptr: NULL
  std::vector<uint8_t> unchanged;
};

constexpr size_t kAbsent = static_cast<size_t>(-1);

// For each of `target`'s columns, its place in `shape` (by name), or kAbsent: a column the
// change's shape lacks (added since) is NULL, one the target lacks is left out.
std::vector<size_t> PlacesIn(const RelationInfo& shape, const RelationInfo& target) {
  std::vector<size_t> places(target.columns.size(), kAbsent);
  for (size_t c = 0; c < places.size(); ++c) {
    for (size_t i = 0; i < shape.columns.size(); ++i) {
      if (shape.columns[i].name == target.columns[c].name) places[c] = i;
    }
  }
  return places;
}

// The cells of `tuple` in the target's columns, `places` saying where each is in the tuple.
RowCells CellsOf(const OwnedTuple& tuple, const std::vector<size_t>& places) {
  const size_t n = places.size();
  RowCells row{std::vector<const std::string*>(n, nullptr), std::vector<uint8_t>(n, 0)};
  for (size_t c = 0; c < n; ++c) {
    const size_t from = places[c];
    if (from >= tuple.kinds.size()) continue;
    if (tuple.kinds[from] == Kind::kText || tuple.kinds[from] == Kind::kBinary) {
      row.values[c] = &tuple.values[from];
    } else if (tuple.kinds[from] == Kind::kUnchanged) {
      row.unchanged[c] = 1;
    }
  }
  return row;
}

class RowWriter {
 public:
  RowWriter(const PgTransaction& t, const RelationInfo& r, const std::string& database,
            change::ChangeBatch* batch)
      : transaction_(t), relation_(r), batch_(batch) {
    source_table_ = database + "." + r.schema + "." + r.name;
    const auto end = static_cast<int64_t>(t.end_lsn);
    position_ = change::SourcePosition{"postgres:" + source_table_, 0, end, end};
    for (const auto& c : r.columns) types_.push_back(PgColumnTypeOf(c.type_oid, c.type_modifier));
  }

  // Appends one row, or a rejected record when a value does not convert.
  Status Append(const char* op, const RowCells& row, const PgChange& change, int64_t ordinal) {
    data::RecordBatch& rows = batch_->rows;
    const size_t n = relation_.columns.size();
    const int64_t r = rows.num_rows();
    for (size_t c = 0; c < n; ++c) {
      data::Column& column = rows.mutable_column(c);
      if (row.values[c] == nullptr) {
        column.AppendNull();
        continue;
      }
      Status s = AppendPgText(types_[c], *row.values[c], &column);
      if (!s.ok()) {
        // The batch's columns as they were before this row.
        for (size_t d = 0; d <= c; ++d) rows.mutable_column(d).Truncate(r);
        Reject(op, row, change, "column " + relation_.columns[c].name + ": " + s.message());
        return Status::OK();
      }
    }
    rows.mutable_column(n).AppendBytes(op);
    data::Column& seq = rows.mutable_column(n + 1);
    seq.mutable_child(0).Append<int64_t>(static_cast<int64_t>(transaction_.commit_lsn));
    seq.mutable_child(1).Append<int64_t>(static_cast<int64_t>(change.lsn));
    seq.mutable_child(2).Append<int64_t>(ordinal);
    seq.AppendStructSlot();
    rows.mutable_column(n + 2).Append<int64_t>(PostgresToUnixMicros(transaction_.commit_time_us) /
                                               1000);
    rows.mutable_column(n + 3).AppendBytes(source_table_);
    batch_->positions.push_back(position_);
    batch_->raw.emplace_back();
    for (size_t c = 0; c < n; ++c) {
      if (row.unchanged[c] == 0) continue;
      if (batch_->unchanged.empty()) batch_->unchanged.resize(rows.num_columns());
      auto& marks = batch_->unchanged[c];
      marks.resize(static_cast<size_t>(r + 1), 0);
      marks[static_cast<size_t>(r)] = 1;
    }
    return Status::OK();
  }

  // A row that cannot be applied, kept as a rejected record with `reason`.
  void Reject(const char* op, const RowCells& row, const PgChange& change,
              const std::string& reason) {
    batch_->rejected.push_back(
        change::RejectedRecord{Describe(op, row), position_,
                               source_table_ + " at LSN " + FormatLsn(change.lsn) + ": " + reason});
  }

  // Unchanged marks sized to every row.
  void Finish() {
    for (auto& marks : batch_->unchanged) {
      marks.resize(static_cast<size_t>(batch_->rows.num_rows()), 0);
    }
  }

 private:
  std::string Describe(const char* op, const RowCells& row) const {
    std::string text = std::string(op) + " " + source_table_ + " (";
    for (size_t c = 0; c < row.values.size(); ++c) {
      text += (c ? ", " : "") + relation_.columns[c].name + "=" +
              (row.values[c]      ? *row.values[c]
               : row.unchanged[c] ? "<unchanged>"
                                  : "NULL");
    }
    return text + ")";
  }

  const PgTransaction& transaction_;
  const RelationInfo& relation_;
  change::ChangeBatch* batch_;
  std::string source_table_;
  // Every row's: the transaction's end, what a restart confirms. A change's own LSN is never
  // enough to resume from (the server would send its transaction again); it is in _seq.
  change::SourcePosition position_;
  std::vector<PgColumnType> types_;
};

bool SameKey(const RowCells& a, const RowCells& b, const std::vector<bool>& key) {
  for (size_t c = 0; c < key.size(); ++c) {
    if (!key[c]) continue;
    if ((a.values[c] == nullptr) != (b.values[c] == nullptr)) return false;
    if (a.values[c] != nullptr && *a.values[c] != *b.values[c]) return false;
  }
  return true;
}

Result<std::vector<bool>> KeyColumns(const RelationInfo& relation,
                                     const std::vector<std::string>& keys) {
  std::vector<bool> key(relation.columns.size(), false);
  if (keys.empty()) {
    if (relation.replica_identity == 'f') {
      return Status::InvalidArgument(relation.schema + "." + relation.name +
                                     " has REPLICA IDENTITY FULL, which marks every column as "
                                     "key: its key columns must be named");
    }
    for (size_t c = 0; c < key.size(); ++c) key[c] = relation.columns[c].key;
    return key;
  }
  for (const std::string& name : keys) {
    bool found = false;
    for (size_t c = 0; c < key.size(); ++c) {
      if (relation.columns[c].name == name) key[c] = found = true;
    }
    if (!found) {
      return Status::InvalidArgument("key column " + name + " is not a column of " +
                                     relation.schema + "." + relation.name);
    }
  }
  return key;
}

}  // namespace

data::Schema PgChangeSchema(const RelationInfo& relation) {
  std::vector<data::Field> fields;
  for (const auto& c : relation.columns) {
    fields.push_back({c.name, PgColumnTypeOf(c.type_oid, c.type_modifier).type, true});
  }
  fields.push_back({"_op", data::DataType::String(), true});
  fields.push_back({"_seq", SequenceType(), true});
  fields.push_back({"_source_ts_ms", data::DataType::Int64(), true});
  fields.push_back({"_source_table", data::DataType::String(), true});
  return data::Schema(std::move(fields));
}

Status AppendPgChanges(const PgTransaction& transaction, const RelationInfo& relation,
                       const std::vector<std::string>& keys, const std::string& database,
                       change::ChangeBatch* batch, const FillUnchanged& fill,
                       const std::function<Status()>& tick) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<bool> key, KeyColumns(relation, keys));
  if (batch->rows.num_columns() == 0) batch->rows = data::RecordBatch(PgChangeSchema(relation));
  RowWriter writer(transaction, relation, database, batch);
  const size_t n = relation.columns.size();
  // Where the target's columns are in each change's shape, worked out once per shape.
  const RelationInfo* mapped = nullptr;
  std::vector<size_t> places;
  auto cells = [&](const OwnedTuple& tuple, const PgChange& change) {
    const RelationInfo* shape = change.shape ? change.shape.get() : &relation;
    if (shape != mapped) {
      places = PlacesIn(*shape, relation);
      mapped = shape;
    }
    return CellsOf(tuple, places);
  };
  const std::vector<size_t> none(n, kAbsent);
  PgChange filled;  // a moved row's change, its unchanged cells filled in
  CDCLAKE_RETURN_IF_ERROR(transaction.changes.ForEach([&](const PgChange& given,
                                                          size_t i) -> Status {
    if (tick && i % 65536 == 65535) CDCLAKE_RETURN_IF_ERROR(tick());
    const PgChange* moved = nullptr;
    if (fill && given.kind == PgChange::Kind::kUpdate && given.old_kind == 'K' &&
        given.relation == relation.oid &&
        std::find(given.new_tuple.kinds.begin(), given.new_tuple.kinds.end(),
                  TupleCell::Kind::kUnchanged) != given.new_tuple.kinds.end()) {
      filled = given;
      CDCLAKE_RETURN_IF_ERROR(fill(&filled));
      moved = &filled;
    }
    const PgChange& change = moved != nullptr ? *moved : given;
    const int64_t ordinal = transaction.first_ordinal + static_cast<int64_t>(i);
    switch (change.kind) {
      case PgChange::Kind::kInsert:
        if (change.relation == relation.oid) {
          CDCLAKE_RETURN_IF_ERROR(writer.Append(transaction.snapshot ? "r" : "c",
                                                cells(change.new_tuple, change), change, ordinal));
        }
        break;
      case PgChange::Kind::kUpdate: {
        if (change.relation != relation.oid) break;
        RowCells row = cells(change.new_tuple, change);
        if (change.old_kind != 0) {
          RowCells old = cells(change.old_tuple, change);
          if (change.old_kind == 'O') {
            // The whole old row: an unchanged TOAST value is the old one.
            for (size_t c = 0; c < n; ++c) {
              if (row.unchanged[c] && old.values[c] != nullptr) {
                row.values[c] = old.values[c];
                row.unchanged[c] = 0;
              }
            }
          }
          if (!SameKey(old, row, key)) {
            RowCells gone = CellsOf(OwnedTuple{}, none);
            for (size_t c = 0; c < n; ++c) {
              if (key[c] || change.old_kind == 'O') gone.values[c] = old.values[c];
            }
            CDCLAKE_RETURN_IF_ERROR(writer.Append("d", gone, change, ordinal));
          }
        }
        // A key column left unchanged with no old key sent cannot be identified (its value is
        // in neither tuple).
        bool unidentified = false;
        for (size_t c = 0; c < n; ++c) unidentified |= key[c] && row.unchanged[c] != 0;
        if (unidentified) {
          writer.Reject("u", row, change,
                        "a key column came as an unchanged TOASTed value without the old key: "
                        "the row cannot be identified");
          break;
        }
        CDCLAKE_RETURN_IF_ERROR(writer.Append("u", row, change, ordinal));
        break;
      }
      case PgChange::Kind::kDelete: {
        if (change.relation != relation.oid) break;
        RowCells old = cells(change.old_tuple, change);
        if (change.old_kind != 'O') {
          for (size_t c = 0; c < n; ++c) {
            if (!key[c]) old.values[c] = nullptr;  // 'n': not in the identity
          }
        }
        CDCLAKE_RETURN_IF_ERROR(writer.Append("d", old, change, ordinal));
        break;
      }
      case PgChange::Kind::kTruncate:
        for (uint32_t oid : change.truncated) {
          if (oid == relation.oid) {
            CDCLAKE_RETURN_IF_ERROR(
                writer.Append("t", CellsOf(OwnedTuple{}, none), change, ordinal));
          }
        }
        break;
    }
    return Status::OK();
  }));
  writer.Finish();
  return Status::OK();
}

struct PgSnapshotRows::State {
  State(const RelationInfo& relation, const std::string& database, PgTransaction t,
        change::ChangeBatch* batch)
      : transaction(std::move(t)), writer(transaction, relation, database, batch) {}
  PgTransaction transaction;  // the copy, as one transaction at the consistent point
  PgChange change;            // every row's: no LSN of its own
  RowWriter writer;
  RowCells row;
  size_t width = 0;
};

PgSnapshotRows::PgSnapshotRows(const RelationInfo& relation, const std::string& database,
                               Lsn consistent_point, int64_t commit_time_us,
                               change::ChangeBatch* batch) {
  if (batch->rows.num_columns() == 0) batch->rows = data::RecordBatch(PgChangeSchema(relation));
  PgTransaction t;
  t.snapshot = true;
  t.commit_lsn = consistent_point;
  t.end_lsn = consistent_point;
  t.commit_time_us = commit_time_us;
  state_ = std::make_unique<State>(relation, database, std::move(t), batch);
  state_->change.relation = relation.oid;
  state_->width = relation.columns.size();
}

PgSnapshotRows::~PgSnapshotRows() = default;

Status PgSnapshotRows::Append(const std::vector<const std::string*>& cells, int64_t ordinal) {
  if (cells.size() != state_->width) {
    return Status::Corrupt("a copied row has " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(state_->width) + " columns");
  }
  RowCells& row = state_->row;
  row.values.assign(cells.begin(), cells.end());
  row.unchanged.assign(cells.size(), 0);
  return state_->writer.Append("r", row, state_->change, ordinal);
}

void PgSnapshotRows::Finish() {
  state_->writer.Finish();
}

}  // namespace cdclake::sources::postgres
