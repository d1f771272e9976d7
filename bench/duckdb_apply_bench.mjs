// DuckDB on the apply benchmark's workload (bench/apply_bench.cc --write-csv), applied the way the
// hand-written CDC pattern does it: each batch deduplicated to the newest change per key
// (ROW_NUMBER() OVER (PARTITION BY id ORDER BY seq DESC) = 1), then one MERGE with a sequence
// guard; deletes are soft (a tombstone row with is_deleted, so a replayed or late older change
// can never resurrect a key). Prints one JSON line per measurement, like apply_bench.
//
//   node bench/duckdb_apply_bench.mjs --data DIR --batches B [--mode merge|lake] [--lake DIR]
//        [--check CDCLAKE_TARGET]
//   --mode lake   after each batch, COPY the whole table (tombstones included) to a Parquet file
//                 in --lake, as a pipeline that rewrites its lake table on every MERGE would.
//   --check       afterwards compares the current rows (not deleted) with the Delta table that
//                 cdclake's apply_bench wrote (read through its log and deletion vectors).
// Peak RSS is the whole node process (about 90 MB before DuckDB loads anything, also printed).
// DuckDB runs with its default thread count (one per core), which the output reports.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { deletedPositions, duckType, replayLog } from '../tests/duckdb/delta_log.mjs';

// The npm test tools live in tools/ (installed by scripts/setup).
const toolsRequire = createRequire(new URL('../tools/package.json', import.meta.url));
const { DuckDBInstance } = await import(toolsRequire.resolve('@duckdb/node-api'));

function parseArgs(argv) {
  const args = { mode: 'merge', batches: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value`);
    if (k === '--data') args.data = v;
    else if (k === '--batches') args.batches = Number(v);
    else if (k === '--mode') args.mode = v;
    else if (k === '--lake') args.lake = v;
    else if (k === '--check') args.check = v;
    else throw new Error(`unknown option ${k}`);
  }
  if (!args.data) throw new Error('usage: duckdb_apply_bench.mjs --data DIR --batches B [...]');
  if (args.mode !== 'merge' && args.mode !== 'lake') throw new Error(`--mode ${args.mode}`);
  if (args.mode === 'lake' && !args.lake) throw new Error('--mode lake needs --lake DIR');
  return args;
}

const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const quoteId = (name) => `"${name.replaceAll('"', '""')}"`;

// The change files' columns (apply_bench's SourceSchema); the timestamps end in Z (UTC).
const CSV_COLUMNS = `{'id': 'BIGINT', 'amount': 'DECIMAL(12,2)', 'qty': 'INTEGER', 'name': 'VARCHAR',
  'updated_at': 'TIMESTAMPTZ', 'op': 'VARCHAR', 'seq': 'BIGINT'}`;
const readCsv = (file) => `read_csv(${lit(file)}, header = true, auto_detect = false, columns = ${CSV_COLUMNS})`;
const DATA_COLUMNS = ['id', 'amount', 'qty', 'name', 'updated_at'];

// The batch staged in `changes`, newest change per key only, merged with the sequence guard.
const MERGE_SQL = `
MERGE INTO target AS t
USING (
  SELECT * EXCLUDE (rn) FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY seq DESC) AS rn FROM changes
  ) WHERE rn = 1
) AS s
ON t.id = s.id
WHEN MATCHED AND s.seq > t.seq THEN UPDATE SET
  amount = s.amount, qty = s.qty, name = s.name, updated_at = s.updated_at,
  seq = s.seq, is_deleted = (s.op = 'd')
WHEN NOT MATCHED THEN INSERT (id, amount, qty, name, updated_at, seq, is_deleted)
  VALUES (s.id, s.amount, s.qty, s.name, s.updated_at, s.seq, s.op = 'd')`;

const ms = (since) => performance.now() - since;
// The peak RSS (VmHWM; process.resourceUsage().maxRSS where /proc is missing), the RSS, and the
// peak's reset to the current RSS through Linux's clear_refs, so that the batches' peak is apart
// from the load's.
function statusMb(field) {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  } catch {
    return field === 'VmHWM' ? process.resourceUsage().maxRSS / 1024 : -1;
  }
}
const rssMb = () => statusMb('VmHWM');
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
const round1 = (x) => Math.round(x * 10) / 10;

/** Stages one change file, merges it, and in lake mode rewrites the Parquet copy if anything
 *  changed; the times of each step. */
async function applyBatch(c, args, file, lakeFile) {
  const t0 = performance.now();
  await c.run(`CREATE OR REPLACE TEMP TABLE changes AS SELECT * FROM ${readCsv(file)}`);
  const readMs = ms(t0);
  const events = Number((await c.runAndReadAll('SELECT count(*) FROM changes')).getRows()[0][0]);
  const t1 = performance.now();
  const merged = await c.run(MERGE_SQL);
  const mergeMs = ms(t1);
  let copyMs = 0;
  if (lakeFile && merged.rowsChanged > 0) {
    const t2 = performance.now();
    await c.run(`COPY target TO ${lit(lakeFile)} (FORMAT parquet)`);
    copyMs = ms(t2);
  }
  // Counting the staged rows is not part of the pattern: excluded from the total.
  return { events, changed: merged.rowsChanged, readMs, mergeMs, copyMs, ms: readMs + mergeMs + copyMs };
}

/** cdclake's table at its latest version as the temp table `lake_rows`: the live files' rows
 *  without the positions their deletion vectors mark. */
async function loadCdclakeTable(c, tableRoot) {
  const { metadata, adds } = replayLog(tableRoot);
  if (metadata.partitionColumns.length > 0) throw new Error('--check: partitioned targets are not handled');
  const mapping = metadata.configuration?.['delta.columnMapping.mode'];
  const fields = JSON.parse(metadata.schemaString).fields;
  const columns = fields.map((f) => {
    const physical = mapping && mapping !== 'none' ? f.metadata['delta.columnMapping.physicalName'] : f.name;
    return `CAST(${quoteId(physical)} AS ${duckType(f.type)}) AS ${quoteId(f.name)}`;
  });
  await c.run('CREATE OR REPLACE TEMP TABLE dv (file VARCHAR, pos BIGINT)');
  const appender = await c.createAppender('dv');
  const files = [];
  for (const add of adds) {
    const file = path.resolve(tableRoot, decodeURIComponent(add.path));
    files.push(file);
    for (const pos of deletedPositions(tableRoot, add.deletionVector)) {
      appender.appendVarchar(file);
      appender.appendBigInt(BigInt(pos));
      appender.endRow();
    }
  }
  appender.closeSync();
  if (files.length === 0) {
    await c.run(`CREATE OR REPLACE TEMP TABLE lake_rows AS SELECT * FROM target WHERE false`);
  } else {
    await c.run(`CREATE OR REPLACE TEMP TABLE lake_rows AS
      SELECT ${columns.join(', ')}
      FROM read_parquet([${files.map(lit).join(', ')}], filename = true, file_row_number = true) r
      ANTI JOIN dv ON dv.file = r.filename AND dv.pos = r.file_row_number`);
  }
  return { files: files.length, fields: fields.map((f) => f.name) };
}

/** Compares DuckDB's current rows with cdclake's table; the number of rows on one side only. */
async function check(c, tableRoot) {
  const { files, fields } = await loadCdclakeTable(c, tableRoot);
  if (fields.join(',') !== DATA_COLUMNS.join(',')) {
    throw new Error(`--check: cdclake's table has columns ${fields.join(', ')}, expected ${DATA_COLUMNS.join(', ')}`);
  }
  const cols = DATA_COLUMNS.join(', ');
  await c.run(`CREATE OR REPLACE TEMP TABLE current_rows AS SELECT ${cols} FROM target WHERE NOT is_deleted`);
  const diff = `
    SELECT 'duckdb only' AS side, * FROM (SELECT ${cols} FROM current_rows EXCEPT ALL SELECT ${cols} FROM lake_rows)
    UNION ALL
    SELECT 'cdclake only' AS side, * FROM (SELECT ${cols} FROM lake_rows EXCEPT ALL SELECT ${cols} FROM current_rows)`;
  const count = async (sql) => Number((await c.runAndReadAll(sql)).getRows()[0][0]);
  const differing = await count(`SELECT count(*) FROM (${diff})`);
  if (differing > 0) {
    const text = DATA_COLUMNS.map((n) => `${n}::VARCHAR AS ${n}`).join(', ');
    const sample = await c.runAndReadAll(`SELECT side, ${text} FROM (${diff}) ORDER BY CAST(id AS BIGINT), side LIMIT 20`);
    for (const row of sample.getRowObjects()) process.stderr.write(`differs: ${JSON.stringify(row)}\n`);
  }
  return {
    duckdb_rows: await count('SELECT count(*) FROM current_rows'),
    cdclake_rows: await count('SELECT count(*) FROM lake_rows'),
    cdclake_files: files,
    differing_rows: differing,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const threads = Number((await c.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0]);
  const base = { engine: 'duckdb', mode: args.mode, threads };
  const print = (o) =>
    console.log(JSON.stringify({ ...base, ...o }, (k, v) => (typeof v === 'number' && k !== 'seconds' ? round1(v) : v)));
  const startRss = rssMb();
  if (args.lake) fs.mkdirSync(args.lake, { recursive: true });
  const lakeFile = (n) => (args.mode === 'lake' ? path.join(args.lake, `target-${n}.parquet`) : null);

  // No primary key: MERGE joins on id either way, and an index would only slow the load.
  await c.run(`CREATE TABLE target (id BIGINT, amount DECIMAL(12,2), qty INTEGER, name VARCHAR,
    updated_at TIMESTAMPTZ, seq BIGINT, is_deleted BOOLEAN)`);
  let t0 = performance.now();
  await c.run(`INSERT INTO target SELECT id, amount, qty, name, updated_at, seq, op = 'd'
    FROM ${readCsv(path.join(args.data, 'load.csv'))}`);
  let copyMs = 0;
  if (args.mode === 'lake') {
    const t1 = performance.now();
    await c.run(`COPY target TO ${lit(lakeFile('load'))} (FORMAT parquet)`);
    copyMs = ms(t1);
  }
  const loadMs = ms(t0);
  const rows = Number((await c.runAndReadAll('SELECT count(*) FROM target')).getRows()[0][0]);
  base.rows = rows;
  const loadPeak = rssMb();
  const rssAfterLoad = statusMb('VmRSS');
  const peakReset = resetPeakRss();
  print({
    phase: 'load', seconds: Math.round(loadMs) / 1000, copy_ms: copyMs, rows_per_s: Math.round(rows / (loadMs / 1000)),
    peak_rss_mb: loadPeak, rss_after_mb: rssAfterLoad,
  });

  let last = null;
  for (let b = 0; b < args.batches; ++b) {
    last = path.join(args.data, `batch-${b}.csv`);
    const r = await applyBatch(c, args, last, lakeFile(b));
    print({
      phase: 'batch', batch: b, events: r.events, changed: r.changed, ms: r.ms, read_ms: r.readMs,
      merge_ms: r.mergeMs, copy_ms: r.copyMs, events_per_s: Math.round(r.events / (r.ms / 1000)),
    });
  }
  if (last) {
    // The last batch again: the guard (s.seq > t.seq) fails for every key, nothing changes.
    const r = await applyBatch(c, args, last, lakeFile('replay'));
    print({ phase: 'noop', ms: r.ms, read_ms: r.readMs, merge_ms: r.mergeMs, copy_ms: r.copyMs, changed: r.changed });
  }
  const tombstones = Number((await c.runAndReadAll('SELECT count(*) FROM target WHERE is_deleted')).getRows()[0][0]);
  print({
    phase: 'memory', peak_rss_mb: rssMb(), load_peak_rss_mb: loadPeak, since_load: peakReset,
    rss_before_load_mb: startRss, tombstones,
  });

  if (args.check) {
    const r = await check(c, args.check);
    print({ phase: 'check', target: args.check, ...r });
    if (r.differing_rows !== 0 || r.duckdb_rows !== r.cdclake_rows) process.exitCode = 1;
  }
  c.closeSync();
  db.closeSync();
}

main().catch((e) => {
  process.stderr.write(`duckdb_apply_bench: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
