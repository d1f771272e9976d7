// Reconcile: both tables' rows as key text -> row hash, compared.
#include "pipeline/reconcile.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "data/value_format.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "parquet/writer/dictionary_builder.h"
#include "pipeline/flow_checkpoint.h"
#include "sources/postgres/lsn.h"
#include "sources/postgres/pg_catalog.h"
#include "sources/postgres/pg_table_reader.h"
#include "sources/postgres/pg_type_map.h"
#include "sources/postgres/replication_stream.h"

namespace cdclake::pipeline {

namespace {

using sources::postgres::Lsn;
using sources::postgres::PgConnection;
using sources::postgres::PgPosition;
using sources::postgres::PgRows;
using sources::postgres::QuoteIdentifier;
using sources::postgres::QuoteLiteral;

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

using RowVisitor = std::function<void(std::string key, uint64_t hash)>;

// The PostgreSQL position of the one flow that writes the table from read_postgres (a whole
// copy), and the flow's name; nullopt with the reason otherwise.
struct TablePosition {
  std::optional<PgPosition> position;
  std::string why_not;
};
Result<TablePosition> PositionOf(const io::FileSystem& fs, const std::string& table_root,
                                 const delta::Snapshot& snapshot) {
  TablePosition out;
  int found = 0;
  for (const auto& [name, domain] : snapshot.domains()) {
    if (domain.removed || name.rfind("cdclake.flow.", 0) != 0) continue;
    auto configuration = json::Parse(domain.configuration);
    if (!configuration.ok() || !configuration->contains("position")) continue;
    auto position = PgPosition::FromJson((*configuration)["position"]);
    if (!position.ok() || !*position) continue;
    ++found;
    out.position = **position;
    // A later batch that changed nothing keeps its position beside the table (and the slot
    // has been told of it).
    const json::Json& flow = (*configuration)["flow"];
    if (!flow.is_string()) continue;
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<json::Json> unchanged,
                             FindUnchangedPosition(fs, table_root, table_root + "_quarantine",
                                                   flow.get<std::string>(), &snapshot));
    if (!unchanged) continue;
    auto later = PgPosition::FromJson(*unchanged);
    if (later.ok() && *later && (*later)->lsn > out.position->lsn) out.position = **later;
  }
  if (found == 0) {
    out.why_not = "the table is not written from read_postgres directly";
  } else if (found > 1) {
    out.why_not = "several flows write the table from read_postgres";
    out.position.reset();
  } else if (out.position->snapshot_rows >= 0) {
    out.why_not = "the table's first copy is not whole yet";
    out.position.reset();
  }
  return out;
}

// The changes the table's slot holds after the table's position up to `until`, folded by key:
// the row each key has at `until` (its cells' text), or nullopt when deleted; `truncated` when
// a TRUNCATE came, so that keys not named are gone. Cells marked unchanged (TOAST) keep the
// earlier value: `unchanged` lists them until the table's row fills them in.
struct Overlay {
  struct Row {
    std::optional<std::vector<std::string>> cells;
    std::vector<uint8_t> unchanged;
  };
  std::unordered_map<std::string, Row> rows;
  bool truncated = false;
  int64_t changes = 0;
};

// The changes of `source` after the table's `position` up to `until`, read from the table's
// slot without moving it, folded into an Overlay of the `read` columns.
Result<Overlay> ChangesUpTo(PgConnection& sql, const ReconcileOptions& options,
                            const sources::postgres::PgTable& source, const PgPosition& position,
                            Lsn until, const std::vector<std::string>& read,
                            const RowShape& shape) {
  // The oldest publication of the table: pgoutput reads publications with the catalog as it
  // was at the slot's position, where a newer one does not exist yet.
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows publications,
      sql.Query("SELECT p.pubname FROM pg_publication p JOIN pg_publication_tables t ON "
                "t.pubname = p.pubname WHERE t.schemaname = " +
                QuoteLiteral(source.relation.schema) +
                " AND t.tablename = " + QuoteLiteral(source.relation.name) + " ORDER BY p.oid"));
  const std::string fallback = " (--not-exact compares the table as it is now instead)";
  if (publications.rows.empty() || !publications.rows[0][0]) {
    return Status::InvalidArgument("no publication publishes " + source.qualified +
                                   ", so its changes after the table's position cannot be read" +
                                   fallback);
  }
  sources::postgres::PgTableSpec spec;
  spec.connection = options.connection;
  spec.publication = *publications.rows[0][0];
  spec.slot = position.slot;
  spec.table = source.qualified;
  spec.stop_at = until;
  spec.read_only = true;
  auto opened = sources::postgres::PgTableReader::Open(spec, position);
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  "reading the table's changes up to " + sources::postgres::FormatLsn(until) +
                      " from slot " + position.slot + ": " + opened.status().message() + fallback);
  }
  Overlay out;
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<sources::postgres::PgBatch> batch, (*opened)->Next());
    if (!batch) break;
    const change::ChangeBatch& changes = batch->rows;
    const data::RecordBatch& rows = changes.rows;
    const int64_t n = rows.num_rows();
    // The read columns in this batch (a column the batch's shape lacks is NULL).
    std::vector<data::Column> absent;
    absent.reserve(read.size());
    std::vector<const data::Column*> view(read.size(), nullptr);
    std::vector<int> place(read.size(), -1);
    for (size_t c = 0; c < read.size(); ++c) {
      place[c] = rows.schema().FieldIndex(read[c]);
      if (place[c] >= 0) {
        view[c] = &rows.column(static_cast<size_t>(place[c]));
        continue;
      }
      absent.emplace_back(data::DataType::String());
      for (int64_t r = 0; r < n; ++r) absent.back().AppendNull();
      view[c] = &absent.back();
    }
    const data::Column& op = rows.column(static_cast<size_t>(rows.schema().FieldIndex("_op")));
    for (int64_t r = 0; r < n; ++r) {
      ++out.changes;
      const std::string_view kind = op.StringAt(r);
      if (kind == "t") {
        out.truncated = true;
        out.rows.clear();
        continue;
      }
      std::string key = KeyText(view, shape, r);
      if (kind == "d") {
        out.rows[key] = Overlay::Row{};
        continue;
      }
      Overlay::Row row;
      row.cells.emplace();
      row.unchanged.assign(read.size(), 0);
      auto before = out.rows.find(key);
      for (size_t c = 0; c < read.size(); ++c) {
        const auto at = static_cast<size_t>(place[c]);
        const bool unchanged = place[c] >= 0 && at < changes.unchanged.size() &&
                               static_cast<size_t>(r) < changes.unchanged[at].size() &&
                               changes.unchanged[at][static_cast<size_t>(r)] != 0;
        if (!unchanged) {
          row.cells->push_back(CellText(*view[c], r));
        } else if (before != out.rows.end() && before->second.cells) {
          // The value the last change of the key gave (or that it too left to the table).
          row.cells->push_back((*before->second.cells)[c]);
          row.unchanged[c] = before->second.unchanged.empty() ? 0 : before->second.unchanged[c];
        } else {
          row.cells->emplace_back();
          row.unchanged[c] = 1;  // the table's row has it
        }
      }
      out.rows[std::move(key)] = std::move(row);
    }
  }
  return out;
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

  // The exact point: a temporary slot's snapshot, at LSN C, and the table brought to C by the
  // changes its own slot holds after the table's position (read, never confirmed).
  CDCLAKE_ASSIGN_OR_RETURN(TablePosition at, PositionOf(fs, table_root, *snapshot));
  std::unique_ptr<PgConnection> reader = std::move(sql);
  std::optional<Lsn> point;
  if (at.position && options.exact) {
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> replication,
                             PgConnection::Connect(options.connection, {true}));
    CDCLAKE_RETURN_IF_ERROR(
        replication->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    CDCLAKE_ASSIGN_OR_RETURN(sources::postgres::CreatedSlot slot,
                             sources::postgres::CreateReplicationSlot(
                                 *replication, "cdclake_reconcile_" + std::to_string(getpid()),
                                 sources::postgres::SnapshotAction::kUse, /*temporary=*/true));
    point = slot.consistent_point;
    report.source_lsn = sources::postgres::FormatLsn(*point);
    sql = std::move(reader);
    reader = std::move(replication);
  } else {
    report.not_exact = at.position ? "--not-exact" : at.why_not;
    CDCLAKE_RETURN_IF_ERROR(reader->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    CDCLAKE_ASSIGN_OR_RETURN(PgRows lsn, reader->Query("SELECT pg_current_wal_lsn()"));
    report.source_lsn = sources::postgres::FirstCell(lsn);
  }
  // The source's columns, read in the snapshot `reader` holds (once, or twice: see below).
  std::vector<sources::postgres::PgColumnType> types;
  std::string select;
  for (const std::string& name : read) {
    for (const auto& c : source.relation.columns) {
      if (c.name == name)
        types.push_back(sources::postgres::PgColumnTypeOf(c.type_oid, c.type_modifier));
    }
    select += (select.empty() ? "" : ", ") + QuoteIdentifier(name);
  }
  select = "SELECT " + select + " FROM " + QuoteIdentifier(source.relation.schema) + "." +
           QuoteIdentifier(source.relation.name);
  int cursors = 0;
  auto scan_source = [&](const RowVisitor& visit) -> Status {
    const std::string cursor = "cdclake_reconcile_" + std::to_string(++cursors);
    CDCLAKE_RETURN_IF_ERROR(
        reader->Execute("DECLARE " + cursor + " NO SCROLL CURSOR FOR " + select));
    while (true) {
      CDCLAKE_ASSIGN_OR_RETURN(
          PgRows rows,
          reader->Query("FETCH FORWARD " + std::to_string(kFetchRows) + " FROM " + cursor));
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
        visit(KeyText(view, shape, row),
              RowHash(view, shape, row) ^ (unreadable[r] ? 0x9e3779b97f4a7c15ULL : 0));
      }
    }
    return reader->Execute("CLOSE " + cursor);
  };

  Overlay overlay;
  if (point) {
    CDCLAKE_ASSIGN_OR_RETURN(overlay,
                             ChangesUpTo(*sql, options, source, *at.position, *point, read, shape));
    report.point =
        "LSN " + report.source_lsn + ": table version " + std::to_string(report.table_version) +
        " (its position " + sources::postgres::FormatLsn(at.position->lsn) + ") and " +
        std::to_string(overlay.changes) + " changes after it read from slot " + at.position->slot;
  }

  // The table's current rows (and the overlay's), file by file.
  delta::ScanOptions scan;
  scan.columns = read;
  const bool history = schema.FieldIndex("__END_AT") >= 0;
  if (history) scan.columns.push_back("__END_AT");
  auto scan_table = [&](const RowVisitor& visit) -> Status {
    for (const delta::Add& add : snapshot->files()) {
      CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch table,
                               delta::ReadDataFile(fs, *snapshot, add, scan));
      std::vector<const data::Column*> view;
      for (size_t c = 0; c < read.size(); ++c) view.push_back(&table.column(c));
      const data::Column* end_at = history ? &table.column(read.size()) : nullptr;
      for (int64_t r = 0; r < table.num_rows(); ++r) {
        if (end_at != nullptr && !end_at->IsNull(r)) continue;
        std::string key = KeyText(view, shape, r);
        auto changed = overlay.rows.find(key);
        if (changed != overlay.rows.end()) {
          Overlay::Row& row = changed->second;
          for (size_t c = 0; c < row.unchanged.size(); ++c) {
            if (row.unchanged[c] && row.cells) (*row.cells)[c] = CellText(*view[c], r);
          }
          row.unchanged.clear();
          continue;  // visited below, with the rows the table did not have
        }
        if (overlay.truncated) continue;
        visit(std::move(key), RowHash(view, shape, r));
      }
    }
    for (const auto& [key, row] : overlay.rows) {
      if (!row.cells) continue;  // deleted by the point
      std::string text;
      for (size_t i : shape.compared) {
        text += (*row.cells)[i];
        text += kSeparator;
      }
      visit(key, parquet::HashBytes(text));
    }
    return Status::OK();
  };

  // First pass: each side's count and sum of row digests per bucket of keys. Only the keys of
  // buckets that differ are then held, in a second pass over both sides (the same snapshot,
  // the same table version), so a table whose keys do not fit in memory is compared as long
  // as its differences do.
  const auto buckets = static_cast<uint64_t>(std::max<int64_t>(1, options.buckets));
  struct Bucket {
    int64_t source = 0;
    int64_t table = 0;
    uint64_t source_sum = 0;
    uint64_t table_sum = 0;
  };
  std::vector<Bucket> summary(buckets);
  auto bucket_of = [&](const std::string& key) { return parquet::HashBytes(key) % buckets; };
  auto digest = [](const std::string& key, uint64_t hash) {
    return parquet::HashBytes(key) * 0x9e3779b97f4a7c15ULL ^ hash;
  };
  CDCLAKE_RETURN_IF_ERROR(scan_source([&](std::string key, uint64_t hash) {
    Bucket& b = summary[bucket_of(key)];
    ++b.source;
    b.source_sum += digest(key, hash);
    ++report.source_rows;
  }));
  CDCLAKE_RETURN_IF_ERROR(scan_table([&](std::string key, uint64_t hash) {
    Bucket& b = summary[bucket_of(key)];
    ++b.table;
    b.table_sum += digest(key, hash);
    ++report.table_rows;
  }));
  std::vector<uint8_t> differs(buckets, 0);
  for (uint64_t i = 0; i < buckets; ++i) {
    const Bucket& b = summary[i];
    if (b.source != b.table || b.source_sum != b.table_sum) {
      differs[i] = 1;
      ++report.differing_buckets;
    } else {
      report.matching += b.source;
    }
  }
  report.buckets = static_cast<int64_t>(buckets);
  if (report.differing_buckets > 0) {
    std::unordered_map<std::string, uint64_t> source_rows;
    CDCLAKE_RETURN_IF_ERROR(scan_source([&](std::string key, uint64_t hash) {
      if (differs[bucket_of(key)]) source_rows[std::move(key)] = hash;
    }));
    CDCLAKE_RETURN_IF_ERROR(scan_table([&](std::string key, uint64_t hash) {
      if (!differs[bucket_of(key)]) return;
      auto it = source_rows.find(key);
      if (it == source_rows.end()) {
        ++report.extra;
        Keep(&report.extra_keys, std::move(key), options.examples);
        return;
      }
      if (it->second == hash) {
        ++report.matching;
      } else {
        ++report.changed;
        Keep(&report.changed_keys, std::move(key), options.examples);
      }
      source_rows.erase(it);  // a key there twice is extra the second time
    }));
    for (auto& [key, hash] : source_rows) {
      ++report.missing;
      Keep(&report.missing_keys, key, options.examples);
    }
  }
  CDCLAKE_RETURN_IF_ERROR(reader->Execute("COMMIT"));
  return report;
}

}  // namespace cdclake::pipeline
