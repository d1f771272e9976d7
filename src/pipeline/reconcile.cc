// Reconcile: both tables' rows as key text -> row hash, compared.
#include "pipeline/reconcile.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "data/value_format.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "parquet/writer/dictionary_builder.h"
#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_type_map.h"

namespace cdclake::pipeline {

namespace {

using sources::postgres::PgConnection;
using sources::postgres::PgRows;
using sources::postgres::QuoteIdentifier;

constexpr int64_t kFetchRows = 10000;
constexpr char kSeparator = '\x1f';

std::string CellText(const data::Column& column, int64_t row) {
  if (column.IsNull(row)) return std::string(1, '\0');
  return data::FormatValueText(column.GetValue(row), *column.type());
}

// A row's key text ("id=5") and hash, from columns placed as `keys` and `compared` say.
struct RowShape {
  std::vector<std::string> key_names;
  std::vector<size_t> keys;      // indexes into the batch's columns
  std::vector<size_t> compared;  // the same
};

std::string KeyText(const std::vector<const data::Column*>& columns, const RowShape& shape,
                    int64_t row) {
  std::string text;
  for (size_t k = 0; k < shape.keys.size(); ++k) {
    const data::Column& c = *columns[shape.keys[k]];
    text += (k ? ", " : "") + shape.key_names[k] + "=" +
            (c.IsNull(row) ? std::string("NULL") : CellText(c, row));
  }
  return text;
}

uint64_t RowHash(const std::vector<const data::Column*>& columns, const RowShape& shape,
                 int64_t row) {
  std::string text;
  for (size_t i : shape.compared) {
    text += CellText(*columns[i], row);
    text += kSeparator;
  }
  return parquet::HashBytes(text);
}

void Keep(std::vector<std::string>* examples, std::string key, int64_t limit) {
  examples->push_back(std::move(key));
  // Kept sorted and short: the smallest keys are listed.
  std::sort(examples->begin(), examples->end());
  if (static_cast<int64_t>(examples->size()) > limit) examples->pop_back();
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Result<ReconcileReport> ReconcileWithPostgres(const io::FileSystem& fs,
                                              const std::string& table_root,
                                              const ReconcileOptions& options) {
  ReconcileReport report;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> sql,
                           PgConnection::Connect(options.connection));
  CDCLAKE_ASSIGN_OR_RETURN(sources::postgres::PgTable source,
                           sources::postgres::DescribePgTable(*sql, options.source_table));
  report.source = sql->Describe() + " " + source.qualified;
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  report.table_version = snapshot->version();
  const data::Schema& schema = snapshot->schema();

  report.keys = options.keys.empty() ? source.keys : options.keys;
  if (report.keys.empty()) {
    return Status::InvalidArgument(source.qualified +
                                   " has no primary key: name the key columns with --keys");
  }
  std::vector<std::string> source_names;
  for (const auto& c : source.relation.columns) source_names.push_back(c.name);
  if (options.columns.empty()) {
    for (const std::string& name : source_names) {
      if (schema.FieldIndex(name) >= 0) report.columns.push_back(name);
    }
  } else {
    report.columns = options.columns;
  }
  for (const auto* names : {&report.keys, &report.columns}) {
    for (const std::string& name : *names) {
      if (!Contains(source_names, name)) {
        return Status::InvalidArgument("column '" + name + "' is not in " + report.source);
      }
      if (schema.FieldIndex(name) < 0) {
        std::string message = "column '" + name;
        message += "' is not in the table at " + table_root;
        return Status::InvalidArgument(message);
      }
    }
  }
  // Both sides read the same columns in the same order: the compared ones, then keys not
  // compared.
  std::vector<std::string> read = report.columns;
  for (const std::string& k : report.keys) {
    if (!Contains(read, k)) read.push_back(k);
  }
  RowShape shape;
  shape.key_names = report.keys;
  for (const std::string& k : report.keys) {
    shape.keys.push_back(
        static_cast<size_t>(std::find(read.begin(), read.end(), k) - read.begin()));
  }
  for (size_t i = 0; i < report.columns.size(); ++i) shape.compared.push_back(i);

  // The source, in one snapshot.
  std::vector<sources::postgres::PgColumnType> types;
  std::string select;
  for (const std::string& name : read) {
    for (const auto& c : source.relation.columns) {
      if (c.name == name)
        types.push_back(sources::postgres::PgColumnTypeOf(c.type_oid, c.type_modifier));
    }
    select += (select.empty() ? "" : ", ") + QuoteIdentifier(name);
  }
  CDCLAKE_RETURN_IF_ERROR(sql->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  CDCLAKE_ASSIGN_OR_RETURN(PgRows lsn, sql->Query("SELECT pg_current_wal_lsn()"));
  report.source_lsn = sources::postgres::FirstCell(lsn);
  CDCLAKE_RETURN_IF_ERROR(sql->Execute("DECLARE cdclake_reconcile NO SCROLL CURSOR FOR SELECT " +
                                       select + " FROM " + QuoteIdentifier(source.relation.schema) +
                                       "." + QuoteIdentifier(source.relation.name)));
  std::unordered_map<std::string, uint64_t> source_rows;
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(PgRows rows, sql->Query("FETCH FORWARD " + std::to_string(kFetchRows) +
                                                     " FROM cdclake_reconcile"));
    if (rows.rows.empty()) break;
    std::vector<data::Column> columns;
    std::vector<uint8_t> unreadable(rows.rows.size(), 0);
    for (size_t c = 0; c < read.size(); ++c) {
      columns.emplace_back(types[c].type);
      for (size_t r = 0; r < rows.rows.size(); ++r) {
        const auto& cell = rows.rows[r][c];
        if (!cell) {
          columns.back().AppendNull();
        } else if (!sources::postgres::AppendPgText(types[c], *cell, &columns.back()).ok()) {
          // A value the table's type cannot hold (read_postgres quarantines its row).
          columns.back().AppendNull();
          unreadable[r] = 1;
        }
      }
    }
    std::vector<const data::Column*> view;
    view.reserve(columns.size());
    for (const data::Column& c : columns) view.push_back(&c);
    for (size_t r = 0; r < rows.rows.size(); ++r) {
      const auto row = static_cast<int64_t>(r);
      const uint64_t hash = RowHash(view, shape, row) ^ (unreadable[r] ? 0x9e3779b97f4a7c15ULL : 0);
      source_rows[KeyText(view, shape, row)] = hash;
      ++report.source_rows;
    }
  }
  CDCLAKE_RETURN_IF_ERROR(sql->Execute("COMMIT"));

  // The table's current rows.
  delta::ScanOptions scan;
  scan.columns = read;
  const bool history = schema.FieldIndex("__END_AT") >= 0;
  if (history) scan.columns.push_back("__END_AT");
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch table, delta::ReadTable(fs, *snapshot, scan));
  std::vector<const data::Column*> view;
  for (size_t c = 0; c < read.size(); ++c) view.push_back(&table.column(c));
  const data::Column* end_at = history ? &table.column(read.size()) : nullptr;
  for (int64_t r = 0; r < table.num_rows(); ++r) {
    if (end_at != nullptr && !end_at->IsNull(r)) continue;
    ++report.table_rows;
    std::string key = KeyText(view, shape, r);
    auto it = source_rows.find(key);
    if (it == source_rows.end()) {
      ++report.extra;
      Keep(&report.extra_keys, std::move(key), options.examples);
      continue;
    }
    if (it->second == RowHash(view, shape, r)) {
      ++report.matching;
    } else {
      ++report.changed;
      Keep(&report.changed_keys, std::move(key), options.examples);
    }
    source_rows.erase(it);  // a key there twice is extra the second time
  }
  for (auto& [key, hash] : source_rows) {
    ++report.missing;
    Keep(&report.missing_keys, key, options.examples);
  }
  return report;
}

}  // namespace cdclake::pipeline
