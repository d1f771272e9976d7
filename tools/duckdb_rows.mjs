#!/usr/bin/env node
// duckdb_rows.mjs: DuckDB's side of the Parquet cross-check. Reads a Parquet file with DuckDB and
// prints each row as one JSON line in cdclake's JSON contract (src/data/value_format.cc), and
// writes a fixed table of every type cdclake has as Parquet with DuckDB, with a chosen codec.
//
//   node tools/duckdb_rows.mjs FILE.parquet [--sql "SELECT ... FROM t"] [--schema]
//       One JSON object per row. The file is the view `t`; --sql replaces "SELECT * FROM t".
//       --schema first prints each column as "name type", in cdclake's type spelling.
//   node tools/duckdb_rows.mjs write OUT.parquet --codec snappy|zstd|gzip|lz4|uncompressed
//       [--v2] [--rows N] [--table rich|unsigned]
//       Writes the rich table (N rows, default 5000; or the table of unsigned integers) with
//       DuckDB in row groups of 2048 rows; --v2 writes PARQUET_VERSION V2 (data page v2 and the
//       DELTA encodings). Prints the file's row groups, codecs and encodings as JSON.
//
// Used as a module too: tests/duckdb/crosscheck.test.mjs imports the functions exported here.
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';
import { pathToFileURL } from 'node:url';

export { DuckDBTypeId };

/// An in-memory DuckDB and a connection. DuckDB keeps insertion order by default, so a scan
/// returns a file's rows in file order whatever the thread count.
export async function openDuckDB() {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  return {
    instance,
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/// A SQL string literal.
export function sqlString(s) {
  return `'${String(s).replaceAll("'", "''")}'`;
}

// ---- cdclake's type spelling (data::DataType::ToString) -------------------------------------

/// The cdclake type that DuckDB's type stands for, spelled as `cdclake schema` prints it
/// (without "not null"); "duckdb:<TYPE>" for types cdclake does not have.
export function cdclakeTypeName(type) {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return 'boolean';
    case DuckDBTypeId.TINYINT:
      return 'tinyint';
    case DuckDBTypeId.SMALLINT:
      return 'smallint';
    case DuckDBTypeId.INTEGER:
      return 'int';
    case DuckDBTypeId.BIGINT:
      return 'bigint';
    case DuckDBTypeId.FLOAT:
      return 'float';
    case DuckDBTypeId.DOUBLE:
      return 'double';
    case DuckDBTypeId.DECIMAL:
      return `decimal(${type.width},${type.scale})`;
    case DuckDBTypeId.VARCHAR:
      return 'string';
    case DuckDBTypeId.BLOB:
      return 'binary';
    case DuckDBTypeId.DATE:
      return 'date';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'timestamp';
    case DuckDBTypeId.TIMESTAMP:
      return 'timestamp_ntz';
    // cdclake reads timestamps of every unit as microseconds (nanoseconds floored) and widens
    // unsigned integers to the next signed type (docs/parquet.md).
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'timestamp_ntz';
    case DuckDBTypeId.UTINYINT:
      return 'smallint';
    case DuckDBTypeId.USMALLINT:
      return 'int';
    case DuckDBTypeId.UINTEGER:
      return 'bigint';
    case DuckDBTypeId.UBIGINT:
      return 'decimal(20,0)';
    case DuckDBTypeId.STRUCT:
      return `struct<${type.entryNames
        .map((n, i) => `${n}:${cdclakeTypeName(type.entryTypes[i])}`)
        .join(',')}>`;
    case DuckDBTypeId.LIST:
      return `array<${cdclakeTypeName(type.valueType)}>`;
    case DuckDBTypeId.MAP:
      return `map<${cdclakeTypeName(type.keyType)},${cdclakeTypeName(type.valueType)}>`;
    default:
      return `duckdb:${type.toString()}`;
  }
}

// ---- text forms (data::FormatValueText) -----------------------------------------------------

function floorDiv(a, b) {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

// Days since 1970-01-01 to a proleptic Gregorian date, by 400-year eras of 146097 days.
function civilFromDays(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const pad = (n, width) => String(n).padStart(width, '0');

/// Days since the epoch as YYYY-MM-DD (years outside 0..9999 get a sign and at least 4 digits).
export function formatDate(days) {
  const { year, month, day } = civilFromDays(Number(days));
  const y = year >= 0 && year <= 9999 ? pad(year, 4) : (year < 0 ? '-' : '+') + pad(Math.abs(year), 4);
  return `${y}-${pad(month, 2)}-${pad(day, 2)}`;
}

/// Microseconds since the epoch (a bigint) as YYYY-MM-DD HH:MM:SS.ffffff, plus Z when `utc`.
export function formatTimestamp(micros, utc) {
  const perDay = 86400n * 1000000n;
  const days = floorDiv(micros, perDay);
  const rem = micros - days * perDay;
  const secs = rem / 1000000n;
  const frac = rem % 1000000n;
  const time = `${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}.${pad(frac, 6)}`;
  return `${formatDate(Number(days))} ${time}${utc ? 'Z' : ''}`;
}

/// An unscaled decimal (bigint) with `scale` digits after the point, every one of them kept.
export function formatDecimal(unscaled, scale) {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

// C's "%.<p>g" for a finite double, rounding the exact binary value half to even as glibc does
// (JavaScript's toExponential and toFixed round exact ties away from zero instead).
function formatG(d, p) {
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  // 101 significant digits: the exact value of every double that can land on a tie.
  const [mantissa, exp] = Math.abs(d).toExponential(100).split('e');
  const all = mantissa.replace('.', '');
  let x = Number(exp);
  let head = all.slice(0, p);
  const rest = all.slice(p);
  const up =
    rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || Number(head[p - 1]) % 2 === 1));
  if (up) {
    head = (BigInt(head) + 1n).toString();
    if (head.length > p) {
      head = head.slice(0, p);
      x += 1;
    }
  }
  const sign = d < 0 ? '-' : '';
  const stripped = (intPart, frac) => {
    const f = frac.replace(/0+$/, '');
    return f ? `${intPart}.${f}` : intPart;
  };
  if (x < -4 || x >= p) {
    return `${sign}${stripped(head[0], head.slice(1))}e${x < 0 ? '-' : '+'}${pad(Math.abs(x), 2)}`;
  }
  if (x >= 0) return sign + stripped(head.slice(0, x + 1), head.slice(x + 1));
  return sign + stripped('0', '0'.repeat(-x - 1) + head);
}

/// The shortest %g text (6 to 9 digits for float, 15 to 17 for double) that reads back to the
/// same value; NaN, Infinity and -Infinity by name.
export function formatFloating(d, isFloat) {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  const last = isFloat ? 9 : 17;
  let text = '';
  for (let p = isFloat ? 6 : 15; p <= last; ++p) {
    text = formatG(d, p);
    const back = Number(text);
    if (isFloat ? Math.fround(back) === Math.fround(d) : back === d) break;
  }
  return text;
}

function hex(bytes) {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function timestampMicros(v, typeId) {
  switch (typeId) {
    case DuckDBTypeId.TIMESTAMP_S:
      return v.seconds * 1000000n;
    case DuckDBTypeId.TIMESTAMP_MS:
      return v.millis * 1000n;
    case DuckDBTypeId.TIMESTAMP_NS:
      return floorDiv(v.nanos, 1000n);
    default:
      return v.micros;
  }
}

/// The text of a non-null value, as a CSV field would hold it (nested values are JSON).
export function valueText(v, type) {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return v ? 'true' : 'false';
    case DuckDBTypeId.FLOAT:
      return formatFloating(v, true);
    case DuckDBTypeId.DOUBLE:
      return formatFloating(v, false);
    case DuckDBTypeId.DECIMAL:
      return formatDecimal(v.value, type.scale);
    case DuckDBTypeId.VARCHAR:
      return v;
    case DuckDBTypeId.BLOB:
      return hex(v.bytes);
    case DuckDBTypeId.DATE:
      return formatDate(v.days);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return formatTimestamp(v.micros, true);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return formatTimestamp(timestampMicros(v, type.typeId), false);
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.MAP:
      return valueJson(v, type);
    default:
      // Integers of every width (numbers or bigints) and anything cdclake has no type for.
      return String(v);
  }
}

/// The value as JSON in cdclake's contract (data::AppendValueJson).
export function valueJson(v, type) {
  if (v === null || v === undefined) return 'null';
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.DECIMAL:
      return valueText(v, type);
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return Number.isFinite(v) ? valueText(v, type) : JSON.stringify(valueText(v, type));
    case DuckDBTypeId.STRUCT:
      return `{${type.entryNames
        .map((name, i) => `${JSON.stringify(name)}:${valueJson(v.entries[name], type.entryTypes[i])}`)
        .join(',')}}`;
    case DuckDBTypeId.LIST:
      return `[${v.items.map((item) => valueJson(item, type.valueType)).join(',')}]`;
    case DuckDBTypeId.MAP:
      // JSON objects need string keys: the key's text, as cdclake writes it.
      return `{${v.entries
        .map(({ key, value }) => {
          const keyText = key === null ? 'null' : valueText(key, type.keyType);
          return `${JSON.stringify(keyText)}:${valueJson(value, type.valueType)}`;
        })
        .join(',')}}`;
    default:
      return JSON.stringify(valueText(v, type));
  }
}

/// DuckDB's reading of a Parquet file: { columns: [{name, type, typeName}], lines: [json] },
/// where `type` is DuckDB's type and `typeName` cdclake's spelling of it. `sql` may query the
/// file as the view `t`.
export async function readCanonical(connection, path, sql = 'SELECT * FROM t') {
  await connection.run(`CREATE OR REPLACE TEMP VIEW t AS SELECT * FROM read_parquet(${sqlString(path)})`);
  const reader = await connection.runAndReadAll(sql);
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const columns = names.map((name, i) => ({ name, type: types[i], typeName: cdclakeTypeName(types[i]) }));
  const prefixes = names.map((name, i) => `${i > 0 ? ',' : ''}${JSON.stringify(name)}:`);
  const lines = reader.getRows().map(
    (row) => `{${row.map((v, i) => prefixes[i] + valueJson(v, types[i])).join('')}}`,
  );
  return { columns, lines };
}

// ---- the rich table DuckDB writes ------------------------------------------------------------

export const CODECS = ['snappy', 'zstd', 'gzip', 'lz4', 'uncompressed'];

/// The SELECT that makes the rich table: every DuckDB type that maps onto a cdclake type, with
/// NULLs, extremes, empty and unicode strings, empty lists and maps, null elements; low- and
/// high-cardinality columns so that both dictionary-encoded and plain chunks happen. (DuckDB cuts
/// a data page only past 100 MB, so each column chunk holds one data page.)
export function richTableSql(rows) {
  // h(k): a deterministic pseudo-random UBIGINT per row (DuckDB's hash of a number).
  const h = (k) => `hash(i * 7 + ${k})`;
  return `
SELECT
  i::INTEGER AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
  CASE WHEN i % 11 = 0 THEN NULL WHEN i = 1 THEN -128 WHEN i = 2 THEN 127
       ELSE (${h(1)} % 256)::INTEGER - 128 END::TINYINT AS i8,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i = 1 THEN -32768 WHEN i = 2 THEN 32767
       ELSE (${h(2)} % 65536)::INTEGER - 32768 END::SMALLINT AS i16,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i = 1 THEN -2147483648 WHEN i = 2 THEN 2147483647
       WHEN i % 2 = 0 THEN i % 50
       ELSE (${h(3)} % 4294967296)::BIGINT - 2147483648 END::INTEGER AS i32,
  CASE WHEN i % 9 = 0 THEN NULL WHEN i = 1 THEN -9223372036854775808
       WHEN i = 2 THEN 9223372036854775807 WHEN i % 2 = 0 THEN i * 1000
       ELSE (${h(4)}::HUGEINT - 9223372036854775808)::BIGINT END AS i64,
  CASE WHEN i % 17 = 0 THEN NULL WHEN i % 50 = 1 THEN 'NaN'::FLOAT
       WHEN i % 50 = 2 THEN 'Infinity'::FLOAT WHEN i % 50 = 3 THEN '-Infinity'::FLOAT
       WHEN i % 50 = 4 THEN '-0.0'::FLOAT WHEN i % 50 = 5 THEN 3.4028235e38::FLOAT
       WHEN i % 50 = 6 THEN 1.4e-45::FLOAT
       ELSE ((${h(5)} % 2000001)::DOUBLE / 1000.0 - 1000.0)::FLOAT END AS f32,
  CASE WHEN i % 19 = 0 THEN NULL WHEN i % 50 = 1 THEN 'NaN'::DOUBLE
       WHEN i % 50 = 2 THEN 'Infinity'::DOUBLE WHEN i % 50 = 3 THEN '-Infinity'::DOUBLE
       WHEN i % 50 = 4 THEN '-0.0'::DOUBLE WHEN i % 50 = 5 THEN 1.7976931348623157e308
       WHEN i % 50 = 6 THEN 5e-324 WHEN i % 50 = 7 THEN 0.1
       ELSE (${h(6)} % 1000000007)::DOUBLE / 997.0 - 500000.0 END AS f64,
  CASE WHEN i % 23 = 0 THEN NULL WHEN i = 1 THEN -99.99 WHEN i = 2 THEN 99.99
       ELSE (((${h(7)} % 19999)::INTEGER - 9999)::DOUBLE / 100)::DECIMAL(4,2) END::DECIMAL(4,2) AS d4,
  CASE WHEN i % 29 = 0 THEN NULL WHEN i = 1 THEN '-999999999999.999999'::DECIMAL(18,6)
       WHEN i = 2 THEN '999999999999.999999'::DECIMAL(18,6)
       ELSE ((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || (${h(8)} % 1000000000000)::VARCHAR || '.'
             || lpad((${h(9)} % 1000000)::VARCHAR, 6, '0'))::DECIMAL(18,6) END AS d18,
  CASE WHEN i % 31 = 0 THEN NULL WHEN i = 1 THEN '-9999999999999999999999999999.9999999999'::DECIMAL(38,10)
       WHEN i = 2 THEN '9999999999999999999999999999.9999999999'::DECIMAL(38,10)
       WHEN i = 3 THEN '0.0000000001'::DECIMAL(38,10)
       ELSE ((CASE WHEN i % 2 = 1 THEN '-' ELSE '' END)
             || left((${h(10)} % 10000000000000000000)::VARCHAR || lpad((${h(11)} % 1000000000000)::VARCHAR, 12, '0'),
                     1 + (i % 28)::INTEGER)
             || '.' || lpad((${h(12)} % 10000000000)::VARCHAR, 10, '0'))::DECIMAL(38,10) END AS d38,
  CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'Zürich ☃ 東京 🦆'
       WHEN 3 THEN 'say "hi", it''s' || chr(10) || 'tab' || chr(9) || 'bell' || chr(7) || '\\'
       WHEN 4 THEN repeat('long', 300) ELSE 'v' || (i % 200)::VARCHAR END AS str,
  CASE WHEN i % 37 = 0 THEN NULL ELSE 'row-' || i::VARCHAR || '-' || (${h(13)} % 1000000)::VARCHAR END AS str_unique,
  CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN ''::BLOB WHEN 2 THEN '\\x00\\xFF\\x80'::BLOB
       ELSE unhex(printf('%02x00ff%08x', i % 256, ${h(14)} % 4294967296)) END AS bin,
  CASE WHEN i % 41 = 0 THEN NULL WHEN i = 1 THEN DATE '0001-01-01' WHEN i = 2 THEN DATE '9999-12-31'
       WHEN i = 3 THEN DATE '1969-12-31' WHEN i = 4 THEN DATE '1970-01-01'
       ELSE DATE '1970-01-01' + ((${h(15)} % 2700000)::INTEGER - 700000) END AS dt,
  CASE WHEN i % 43 = 0 THEN NULL WHEN i = 1 THEN make_timestamp(-1)
       WHEN i = 2 THEN TIMESTAMP '0001-01-01 00:00:00' WHEN i = 3 THEN TIMESTAMP '9999-12-31 23:59:59.999999'
       ELSE make_timestamp((${h(16)} % 200000000000000000)::BIGINT - 60000000000000000) END AS ts,
  CASE WHEN i % 53 = 0 THEN NULL WHEN i = 1 THEN make_timestamp(-1000)::TIMESTAMP_MS
       ELSE make_timestamp((${h(18)} % 4000000000000000)::BIGINT - 2000000000000000)::TIMESTAMP_MS END AS ts_ms,
  CASE WHEN i % 59 = 0 THEN NULL
       ELSE make_timestamp((${h(19)} % 4000000000000000)::BIGINT - 2000000000000000)::TIMESTAMP_S END AS ts_s,
  CASE WHEN i % 61 = 0 THEN NULL WHEN i = 1 THEN make_timestamp_ns(-1)
       ELSE make_timestamp_ns((${h(20)} % 8000000000000000000)::BIGINT - 4000000000000000000) END AS ts_ns,
  CASE WHEN i % 47 = 0 THEN NULL WHEN i = 1 THEN make_timestamp(-1)::TIMESTAMPTZ
       WHEN i = 2 THEN TIMESTAMPTZ '2024-03-31 01:30:00.5+00'
       ELSE make_timestamp((${h(17)} % 4000000000000000)::BIGINT)::TIMESTAMPTZ END AS tstz,
  CASE WHEN i % 19 = 0 THEN NULL
       ELSE {'a': i::INTEGER, 'name': CASE WHEN i % 4 = 0 THEN NULL ELSE 'n' || (i % 10)::VARCHAR END,
             'inner': CASE WHEN i % 6 = 0 THEN NULL
                      ELSE {'x': (i * 0.25)::DOUBLE, 'd': (i % 1000)::DECIMAL(9,3) / 8} END} END AS st,
  CASE i % 10 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] WHEN 2 THEN [NULL]::INTEGER[]
       WHEN 3 THEN [1, NULL, 3]::INTEGER[] ELSE range((i % 7)::BIGINT)::INTEGER[] END AS ints,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN ['', NULL, 'é']
       ELSE ['a' || (i % 3)::VARCHAR, 'b'] END AS strs,
  CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[][] WHEN 2 THEN [NULL, []]::INTEGER[][]
       ELSE [[i::INTEGER], [NULL, 2]] END AS nested,
  CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN []
       ELSE [{'k': (i % 100)::BIGINT, 'v': 'x' || (i % 4)::VARCHAR}, NULL] END AS structs,
  CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN MAP([]::VARCHAR[], []::INTEGER[])
       WHEN 2 THEN MAP(['a', 'b'], [1, NULL]::INTEGER[])
       ELSE MAP(['k' || (i % 5)::VARCHAR], [i::INTEGER]) END AS m,
  CASE i % 4 WHEN 0 THEN NULL
       ELSE MAP([i::BIGINT, -i::BIGINT - 1], [['x'], []::VARCHAR[]]) END AS m_list,
  CASE i % 3 WHEN 0 THEN NULL ELSE MAP([DATE '2024-01-01' + (i % 30)::INTEGER], [(i % 2) = 0]) END AS m_date,
  CASE WHEN i % 5 = 0 THEN NULL
       ELSE {'l': CASE WHEN i % 7 = 0 THEN NULL
                  ELSE [CASE WHEN i % 3 = 0 THEN NULL
                         ELSE MAP(['k' || (i % 4)::VARCHAR, 'z'],
                                  [{'a': i::INTEGER, 'b': [i::INTEGER, NULL]}, NULL]) END,
                        MAP([]::VARCHAR[], []::STRUCT(a INTEGER, b INTEGER[])[])] END} END AS deep,
  NULL::INTEGER AS all_null
FROM range(0, ${Number(rows)}) AS r(i)
ORDER BY i`;
}

/// Unsigned integers, which cdclake widens to the next signed type: DuckDB stores UINTEGER as
/// INT32 and UBIGINT as INT64 (with the unsigned INT logical type). Row 0 holds each maximum, so
/// every row group's first value is one too.
export function unsignedTableSql(rows) {
  const h = (k) => `hash(i * 7 + ${k})`;
  return `
SELECT
  i::INTEGER AS id,
  CASE WHEN i % 2048 = 0 THEN 255 WHEN i % 67 = 1 THEN NULL ELSE i % 256 END::UTINYINT AS u8,
  CASE WHEN i % 2048 = 0 THEN 65535 WHEN i % 67 = 2 THEN NULL ELSE ${h(1)} % 65536 END::USMALLINT AS u16,
  CASE WHEN i % 2048 = 0 THEN 4294967295 WHEN i % 67 = 3 THEN NULL ELSE ${h(2)} % 4294967296 END::UINTEGER AS u32,
  CASE WHEN i % 2048 = 0 THEN 18446744073709551615 WHEN i % 67 = 4 THEN NULL ELSE ${h(3)} END::UBIGINT AS u64
FROM range(0, ${Number(rows)}) AS r(i)
ORDER BY i`;
}

/// The tables `write` can make, by name.
export const TABLES = { rich: richTableSql, unsigned: unsignedTableSql };

/// Writes a table (one of TABLES, default the rich one) to `path` with `codec` (one of CODECS)
/// as Parquet V1 or V2, in row groups of 2048 rows.
export async function writeTable(connection, path, { table = 'rich', codec, v2 = false, rows = 5000 }) {
  if (!CODECS.includes(codec)) throw new Error(`unknown codec '${codec}' (use ${CODECS.join(', ')})`);
  if (!(table in TABLES)) throw new Error(`unknown table '${table}' (use ${Object.keys(TABLES).join(', ')})`);
  await connection.run("SET TimeZone = 'UTC'");
  const options = [
    'FORMAT parquet',
    `COMPRESSION ${codec}`,
    'ROW_GROUP_SIZE 2048',
    `PARQUET_VERSION ${v2 ? 'V2' : 'V1'}`,
  ];
  await connection.run(`COPY (${TABLES[table](rows)}) TO ${sqlString(path)} (${options.join(', ')})`);
}

/// What a Parquet file holds per column chunk, by DuckDB's parquet_metadata(): the row groups,
/// and the distinct codecs and encodings.
export async function describeFile(connection, path) {
  const reader = await connection.runAndReadAll(
    `SELECT count(DISTINCT row_group_id)::INTEGER, list(DISTINCT compression ORDER BY compression),
            list(DISTINCT encodings ORDER BY encodings)
     FROM parquet_metadata(${sqlString(path)})`,
  );
  const [rowGroups, codecs, encodings] = reader.getRows()[0];
  const split = new Set(encodings.items.flatMap((e) => e.split(',').map((s) => s.trim())));
  return { rowGroups, codecs: [...codecs.items], encodings: [...split].sort() };
}

// ---- command line ------------------------------------------------------------------------------

function usage() {
  process.stderr.write(
    'usage: node tools/duckdb_rows.mjs FILE.parquet [--sql SQL] [--schema]\n' +
      `       node tools/duckdb_rows.mjs write OUT.parquet --codec ${CODECS.join('|')} [--v2] [--rows N]\n` +
      `           [--table ${Object.keys(TABLES).join('|')}]\n`,
  );
  process.exit(2);
}

async function main(argv) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--v2' || a === '--schema') flags[a.slice(2)] = true;
    else if (a === '--sql' || a === '--codec' || a === '--rows' || a === '--table') {
      if (i + 1 >= argv.length) usage();
      flags[a.slice(2)] = argv[++i];
    } else if (a.startsWith('--')) usage();
    else positional.push(a);
  }
  const db = await openDuckDB();
  try {
    if (positional[0] === 'write') {
      if (positional.length !== 2 || !flags.codec) usage();
      const rows = flags.rows === undefined ? 5000 : Number(flags.rows);
      if (!Number.isInteger(rows) || rows < 0) usage();
      const options = { table: flags.table, codec: flags.codec, v2: !!flags.v2, rows };
      await writeTable(db.connection, positional[1], options);
      const info = await describeFile(db.connection, positional[1]);
      process.stdout.write(`${JSON.stringify({ path: positional[1], rows, ...info })}\n`);
      return;
    }
    if (positional.length !== 1) usage();
    const { columns, lines } = await readCanonical(db.connection, positional[0], flags.sql);
    const out = [];
    if (flags.schema) for (const c of columns) out.push(`${c.name} ${c.typeName}`);
    out.push(...lines);
    process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
  } finally {
    db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A closed pipe (`| head`) ends the output quietly.
  process.stdout.on('error', (e) => process.exit(e.code === 'EPIPE' ? 0 : 1));
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`duckdb_rows: ${e.message}\n`);
    process.exit(1);
  });
}
