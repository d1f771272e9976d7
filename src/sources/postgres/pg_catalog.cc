// PgCatalog: pg_class, pg_attribute and pg_index read for one table.
#include "sources/postgres/pg_catalog.h"

namespace cdclake::sources::postgres {

std::string FirstCell(const PgRows& rows, size_t column) {
  if (rows.rows.empty() || column >= rows.rows[0].size() || !rows.rows[0][column]) return "";
  return *rows.rows[0][column];
}

std::string ReadableIdentifier(const std::string& name) {
  bool plain = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  return plain ? name : QuoteIdentifier(name);
}

Result<PgTable> DescribePgTable(PgConnection& sql, const std::string& table) {
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows found,
      sql.Query("SELECT c.oid, n.nspname, c.relname, c.relreplident, c.relkind FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(" +
                QuoteLiteral(table) + ")"));
  if (found.rows.empty() || (FirstCell(found, 4) != "r" && FirstCell(found, 4) != "p")) {
    return Status::NotFound("PostgreSQL " + sql.Describe() + ": table '" + table +
                            "' is not a table there");
  }
  PgTable out;
  RelationInfo& relation = out.relation;
  relation.oid = static_cast<uint32_t>(std::stoul(FirstCell(found, 0)));
  relation.schema = FirstCell(found, 1);
  relation.name = FirstCell(found, 2);
  relation.replica_identity = FirstCell(found, 3).empty() ? 'd' : FirstCell(found, 3)[0];
  out.qualified = ReadableIdentifier(relation.schema) + "." + ReadableIdentifier(relation.name);
  const std::string oid = std::to_string(relation.oid);
  CDCLAKE_ASSIGN_OR_RETURN(
      PgRows columns,
      sql.Query("SELECT attname, atttypid, atttypmod FROM pg_attribute WHERE attrelid = " + oid +
                " AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum"));
  for (const auto& row : columns.rows) {
    RelationInfo::Column c;
    c.name = row[0].value_or("");
    c.type_oid = static_cast<uint32_t>(std::stoul(row[1].value_or("0")));
    c.type_modifier = std::stoi(row[2].value_or("-1"));
    relation.columns.push_back(std::move(c));
  }
  for (const char* which : {"indisprimary", "indisreplident"}) {
    CDCLAKE_ASSIGN_OR_RETURN(
        PgRows key,
        sql.Query("SELECT a.attname FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH "
                  "ORDINALITY AS k(attnum, place) JOIN pg_attribute a ON a.attrelid = "
                  "i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = " +
                  oid + " AND i." + which + " ORDER BY k.place"));
    for (const auto& row : key.rows) out.keys.push_back(row[0].value_or(""));
    if (!out.keys.empty()) break;
  }
  for (RelationInfo::Column& c : relation.columns) {
    for (const std::string& k : out.keys) c.key = c.key || c.name == k;
  }
  return out;
}

}  // namespace cdclake::sources::postgres
