// DuckDB cross-check of tables read_postgres fills (node --test): a real PostgreSQL (started by
// tests/pipeline/postgres_server.sh) holds a table of many types — integers, numeric, float,
// boolean, text, uuid, json and jsonb, date, timestamp, timestamptz, time, bytea, arrays, an
// enum, money — with NULLs and edge values; `cdclake run` copies it, then streams updates and
// deletes. For bronze and the SCD1 silver, DuckDB reads the live Parquet files through the log
// (delta_log.mjs) and must return what `cdclake show` prints; then each value DuckDB reads from
// the silver table is compared with the same value as PostgreSQL computes it (epoch
// microseconds, days, hex, element counts, text), not through cdclake's reader.
//
// Environment: CDCLAKE_BIN. By hand:
//   CDCLAKE_BIN=build/cdclake node --test tests/duckdb/postgres_tables.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck, root } from './harness.mjs';
import { assertSameRows, deletedPositions, duckRows, replayLog, run } from './delta_log.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');
const helper = path.join(root, 'tests', 'pipeline', 'postgres_server.sh');

let work;
let server; // { pgdir, port, pgbin }
let db;
let connection;

function shell(script) {
  return execFileSync('bash', ['-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function psql(sql) {
  return execFileSync(
    path.join(server.pgbin, 'psql'),
    ['-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', server.port, '-U', 'cdclake', '-d', 'postgres', '-c', sql],
    { encoding: 'utf8' },
  );
}

const conninfo = () => `host=127.0.0.1 port=${server.port} user=cdclake dbname=postgres`;

function runPipeline() {
  run(cdclakeBin, 'run', path.join(work, 'p.sql'), '--warehouse', path.join(work, 'lake'), '--var', `pg=${conninfo()}`, '--batch-rows', '7');
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-pg-duckdb-'));
  const out = shell(`. ${JSON.stringify(helper)} && pg_server_start "-c fsync=off" >&2 && echo "$pgdir $port $pgbin"`);
  const [pgdir, port, pgbin] = out.trim().split(' ');
  server = { pgdir, port, pgbin };
  psql(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
        CREATE TABLE typed (
          id bigint PRIMARY KEY, s smallint, i integer, n numeric(12,3), big numeric, f double precision,
          r real, b boolean, t text, v varchar(20), u uuid, j json, jb jsonb, d date, ts timestamp,
          tz timestamptz, tm time, bytes bytea, ia integer[], ta text[], m mood, money money);
        INSERT INTO typed SELECT g, (g % 300)::smallint, g * 1000, g * 1.125, (10::numeric ^ 30) + g,
          g / 7.0, g / 3.0, g % 2 = 0, 'text ' || g || ' é ✓', 'v' || g, md5(g::text)::uuid,
          json_build_object('g', g), jsonb_build_object('k', g, 'a', jsonb_build_array(g, 'x')),
          date '1999-12-31' + g, timestamp '2024-02-29 12:34:56.789012' + g * interval '1 hour',
          timestamptz '1970-01-01 00:00:00+00' + g * interval '1 day 1 second', time '00:00:01' + g * interval '1 minute',
          decode(lpad(to_hex(g), 8, '0'), 'hex'), ARRAY[g, g + 1, NULL], ARRAY['a' || g, NULL, ''],
          (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::mood, (g * 1.5)::money
        FROM generate_series(1, 40) g;
        INSERT INTO typed (id) VALUES (1000);
        INSERT INTO typed (id, n, f, d, ts, tz, ia, ta, t) VALUES (1001, -0.001, 'NaN', date '0001-01-01',
          timestamp '1900-01-01 00:00:00', timestamptz '2262-04-11 23:47:16+00', '{}', '{}', '');
        CREATE PUBLICATION cdclake FOR TABLE typed;`);
  fs.writeFileSync(
    path.join(work, 'p.sql'),
    `CREATE OR REFRESH STREAMING TABLE pg.bronze
AS SELECT * FROM STREAM(read_postgres(connection => '\${pg}', publication => 'cdclake',
                                      slot => 'duck', table => 'public.typed'));
CREATE OR REFRESH STREAMING TABLE pg.typed;
CREATE FLOW typed AS AUTO CDC INTO pg.typed
FROM STREAM(pg.bronze)
KEYS (id)
APPLY AS DELETE WHEN _op = 'd'
SEQUENCE BY _seq
COLUMNS * EXCEPT (_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at)
STORED AS SCD TYPE 1;
`,
  );
  runPipeline(); // the copy
  psql(`UPDATE typed SET t = 'updated', tz = tz + interval '1 microsecond', ia = ARRAY[7] WHERE id % 5 = 0;
        DELETE FROM typed WHERE id % 9 = 0;
        UPDATE typed SET n = NULL, jb = '{"z": null}' WHERE id = 1;`);
  runPipeline(); // the stream
  db = await duck.openDuckDB();
  connection = db.connection;
});

after(() => {
  if (db) db.close();
  if (server) shell(`. ${JSON.stringify(helper)}; pgdir=${JSON.stringify(server.pgdir)}; pg_server_stop`);
  if (work && !process.env.POSTGRES_TABLES_KEEP) fs.rmSync(work, { recursive: true, force: true });
});

async function duckTableRows(tableRoot) {
  const { metadata, adds } = replayLog(tableRoot);
  const rows = [];
  for (const add of adds) rows.push(...(await duckRows(connection, tableRoot, metadata, add, deletedPositions(tableRoot, add.deletionVector))));
  return rows;
}

test('DuckDB reads bronze and the SCD1 table as cdclake shows them', async () => {
  for (const table of ['bronze', 'typed']) {
    const tableRoot = path.join(work, 'lake', 'pg', table);
    const ours = run(cdclakeBin, 'show', tableRoot, '--format', 'jsonl').split('\n');
    assert.equal(ours.pop(), '');
    const theirs = await duckTableRows(tableRoot);
    assertSameRows(ours, theirs, `pg.${table}`);
    assert.ok(theirs.length > 30, `pg.${table}: ${theirs.length} rows`);
  }
});

test("the SCD1 table's values, read by DuckDB, are PostgreSQL's", async () => {
  const tableRoot = path.join(work, 'lake', 'pg', 'typed');
  const { adds } = replayLog(tableRoot);
  const parts = adds.map((add) => {
    const file = duck.sqlString(path.join(tableRoot, decodeURIComponent(add.path)));
    const deleted = deletedPositions(tableRoot, add.deletionVector);
    const where = deleted.length > 0 ? ` WHERE file_row_number NOT IN (${deleted.join(', ')})` : '';
    return `SELECT * EXCLUDE (file_row_number) FROM read_parquet(${file}, file_row_number = true)${where}`;
  });
  await connection.run(`CREATE OR REPLACE VIEW typed AS ${parts.join(' UNION ALL BY NAME ')}`);
  // Each column as text both systems can produce without each other's formatting rules.
  const columns = [
    ['s', 's::text', 'CAST(s AS VARCHAR)'],
    ['i', 'i::text', 'CAST(i AS VARCHAR)'],
    ['n', 'n::text', 'CAST(n AS VARCHAR)'],
    ['big', 'big::text', 'big'],
    ['f', "CASE WHEN f = 'NaN' THEN 'nan' ELSE round(f::numeric, 9)::text END", "CASE WHEN isnan(f) THEN 'nan' ELSE CAST(round(f, 9)::DECIMAL(30,9) AS VARCHAR) END"],
    ['b', 'b::text', 'CAST(b AS VARCHAR)'],
    ['t', 't', 't'],
    ['v', 'v', 'v'],
    ['u', 'u::text', 'u'],
    ['jb', "jb->>'k'", "json_extract_string(jb, '$.k')"],
    ['d', "(d - date '1970-01-01')::text", "CAST(date_diff('day', DATE '1970-01-01', d) AS VARCHAR)"],
    ['ts', "(extract(epoch from ts) * 1000000)::bigint::text", 'CAST(epoch_us(ts) AS VARCHAR)'],
    ['tz', "(extract(epoch from tz) * 1000000)::bigint::text", 'CAST(epoch_us(tz) AS VARCHAR)'],
    ['tm', "(extract(epoch from tm) * 1000000)::bigint::text", 'CAST(tm AS VARCHAR)'],
    ['bytes', "encode(bytes, 'hex')", 'lower(hex(bytes))'],
    ['ia', "array_to_string(ia, ',', 'NULL') || '#' || coalesce(cardinality(ia), -1)", "array_to_string(list_transform(ia, x -> coalesce(CAST(x AS VARCHAR), 'NULL')), ',') || '#' || coalesce(len(ia), -1)"],
    ['ta', "array_to_string(ta, ',', 'NULL') || '#' || coalesce(cardinality(ta), -1)", "array_to_string(list_transform(ta, x -> coalesce(x, 'NULL')), ',') || '#' || coalesce(len(ta), -1)"],
    ['m', 'm::text', 'm'],
    ['money', "(money::numeric)::text", 'CAST(money AS VARCHAR)'],
  ];
  const pgSql = `SELECT id, ${columns.map(([, pg]) => `coalesce((${pg}), '<null>')`).join(', ')} FROM typed ORDER BY id`;
  const pgRows = psql(pgSql).trim().split('\n');
  const reader = await connection.runAndReadAll(
    `SELECT CAST(id AS VARCHAR) AS id, ${columns.map(([name, , dk]) => `coalesce((${dk}), '<null>') AS ${name}`).join(', ')} FROM typed ORDER BY typed.id`,
  );
  const duckLines = reader.getRows().map((row) => row.map(String).join('\t'));
  assert.equal(duckLines.length, pgRows.length, 'row counts');
  const differences = [];
  for (let i = 0; i < pgRows.length; ++i) {
    if (pgRows[i] !== duckLines[i]) differences.push(`PostgreSQL ${pgRows[i]}\n    DuckDB     ${duckLines[i]}`);
  }
  assert.deepEqual(differences.slice(0, 5), [], `${differences.length} rows differ`);
});
