// DuckDB as a peer of cdclake on a CDC workload folder written by bench/cdc_workload.cc
// (workload.json, load.csv, batch-NNNN.csv): the hand-written pattern. The initial table is
// loaded from load.csv into a DuckDB table with the change's sequence columns and an is_deleted
// flag; then each batch file is read with explicit column types, reduced to the newest change per
// key (ROW_NUMBER() OVER (PARTITION BY id ORDER BY lsn DESC) = 1) and applied with ONE MERGE
// whose guard (s.lsn > t.lsn) drops changes older than the row's. Deletes are soft (the row stays
// as a tombstone), so a late or duplicated older change can never bring a deleted key back.
//
//   node bench/cdc_peer_duckdb.mjs --workload W --mode merge|lake [--lake DIR] [--dump FILE]
//        [--threads N] [--db FILE]
//   --mode lake  after each batch that changed rows, COPY the whole table (tombstones included:
//                it is the pipeline's state as well as its output) to a new Parquet file in
//                --lake (DuckDB's default codec), as a lake table rewritten on every MERGE; the
//                rewrite is part of the batch's time. Without --lake a temp folder is used and
//                removed at the end.
//   --dump FILE  the final current table (deleted keys absent) as CSV with a header: the
//                workload's columns in order, by id.
//   --threads N  DuckDB's thread count (default: its own, one per core).
//   --db FILE    a database file instead of the default in-memory database; bytes written are
//                then what the process wrote to storage (/proc/self/io write_bytes).
// After the last batch it applies the last batch file again, which must change nothing.
// Prints one JSON line per measurement: phase load, batch (one per file), replay, final. Peak RSS
// is the whole node process; after the load the peak is reset (Linux clear_refs), so the batches'
// peak_rss_mb is the peak since the load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { duckType, headerLine, lit, quoteId, readWorkload } from './cdc_common.mjs';

// The npm tools live in tools/ (installed by scripts/setup).
const toolsRequire = createRequire(new URL('../tools/package.json', import.meta.url));
const { DuckDBInstance } = await import(toolsRequire.resolve('@duckdb/node-api'));

const USAGE = 'usage: cdc_peer_duckdb.mjs --workload W --mode merge|lake [--lake DIR] [--dump FILE] [--threads N] [--db FILE]';

function parseArgs(argv) {
  const args = { mode: 'merge' };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value\n${USAGE}`);
    if (k === '--workload') args.workload = path.resolve(v);
    else if (k === '--mode') args.mode = v;
    else if (k === '--lake') args.lake = path.resolve(v);
    else if (k === '--dump') args.dump = path.resolve(v);
    else if (k === '--threads') args.threads = Number(v);
    else if (k === '--db') args.db = path.resolve(v);
    else throw new Error(`unknown option ${k}\n${USAGE}`);
  }
  if (!args.workload) throw new Error(USAGE);
  if (args.mode !== 'merge' && args.mode !== 'lake') throw new Error(`--mode ${args.mode}\n${USAGE}`);
  if (args.threads !== undefined && !(Number.isInteger(args.threads) && args.threads > 0)) {
    throw new Error('--threads: a positive integer');
  }
  return args;
}

// Peak RSS (VmHWM) and RSS of this process in MB, and the reset of the peak to the current RSS.
function statusMb(field) {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  } catch {
    return field === 'VmHWM' ? process.resourceUsage().maxRSS / 1024 : -1;
  }
}
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
/** Bytes this process has had written to storage so far (Linux); null where unknown. */
function storageWrites() {
  try {
    return Number(/^write_bytes:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1]);
  } catch {
    return null;
  }
}

const ms = (since) => performance.now() - since;
const round1 = (x) => Math.round(x * 10) / 10;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const w = readWorkload(args.workload);
  const columns = w.columns.map((c) => ({ name: c.name, type: duckType(c.sql) }));
  const names = columns.map((c) => quoteId(c.name));
  const dataNames = names.slice(1);
  const csvHeader = [...columns.map((c) => c.name), '_op', 'commit_lsn', 'lsn'].join(',');
  const csvTypes = [...columns, { name: '_op', type: 'VARCHAR' }, { name: 'commit_lsn', type: 'BIGINT' }, { name: 'lsn', type: 'BIGINT' }];
  const csvColumns = `{${csvTypes.map((c) => `${lit(c.name)}: ${lit(c.type)}`).join(', ')}}`;
  // RFC 4180 as the workload writes it: NULL is an empty unquoted field, "" an empty string.
  const readCsv = (file) => {
    const header = headerLine(file);
    if (header !== csvHeader) throw new Error(`${file}: header ${header}, expected ${csvHeader}`);
    return `read_csv(${lit(file)}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
      allow_quoted_nulls = false, columns = ${csvColumns})`;
  };

  // MERGE into a table in a database file, or in memory (DuckDB's best case, nothing durable).
  const engine = args.mode === 'lake' ? 'duckdb-lake' : args.db ? 'duckdb-merge' : 'duckdb-memory';
  if (args.db && fs.existsSync(args.db)) throw new Error(`--db ${args.db}: already exists (a fresh database is needed)`);
  const db = await DuckDBInstance.create(args.db ?? ':memory:');
  const c = await db.connect();
  if (args.threads) await c.run(`SET threads = ${args.threads}`);
  const one = async (sql) => (await c.runAndReadAll(sql)).getRows()[0][0];
  const threads = Number(await one("SELECT current_setting('threads')"));
  const version = await one('SELECT version()');

  let lakeDir = null;
  if (args.mode === 'lake') {
    lakeDir = args.lake ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-duckdb-lake-'));
    fs.mkdirSync(lakeDir, { recursive: true });
    // A temp lake folder goes at exit, also on failure.
    if (!args.lake) process.on('exit', () => fs.rmSync(lakeDir, { recursive: true, force: true }));
  }
  const base = { engine, keys_initial: w.keys_initial, in_memory: !args.db, threads };
  const print = (o) => console.log(JSON.stringify({ ...base, ...o }, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? round1(v) : v)));

  // The target: the workload's columns, the change's sequence and the soft-delete flag. No primary
  // key: MERGE joins on id either way, and an index would only slow the load.
  const columnDefs = columns.map((c) => `${quoteId(c.name)} ${c.type}`).join(', ');
  await c.run(`CREATE TABLE target (${columnDefs}, commit_lsn BIGINT, lsn BIGINT, is_deleted BOOLEAN)`);
  await c.run(`CREATE TEMP TABLE changes (${columnDefs}, _op VARCHAR, commit_lsn BIGINT, lsn BIGINT)`);

  // The batch staged in `changes`, newest change per key only, merged with the sequence guard.
  const mergeSql = `
MERGE INTO target AS t
USING (
  SELECT * EXCLUDE (rn) FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY lsn DESC) AS rn FROM changes
  ) WHERE rn = 1
) AS s
ON t.id = s.id
WHEN MATCHED AND s.lsn > t.lsn THEN UPDATE SET
  ${dataNames.map((n) => `${n} = s.${n}`).join(', ')},
  commit_lsn = s.commit_lsn, lsn = s.lsn, is_deleted = (s._op = 'd')
WHEN NOT MATCHED THEN INSERT (${names.join(', ')}, commit_lsn, lsn, is_deleted)
  VALUES (${names.map((n) => `s.${n}`).join(', ')}, s.commit_lsn, s.lsn, s._op = 'd')`;

  /** The lake copy: the whole table as a new Parquet file; its size. */
  const writeLake = async (name) => {
    const file = path.join(lakeDir, `target-${name}.parquet`);
    await c.run(`COPY target TO ${lit(file)} (FORMAT parquet)`);
    return { file, bytes: fs.statSync(file).size };
  };
  let lakeFile = null;

  // ---- load
  const rssBeforeLoad = statusMb('VmRSS');
  let io0 = storageWrites();
  let t0 = performance.now();
  const loaded = await c.run(`INSERT INTO target SELECT ${names.join(', ')}, commit_lsn, lsn, _op = 'd'
    FROM ${readCsv(path.join(args.workload, w.load.csv))}`);
  if (args.db) await c.run('CHECKPOINT');
  const insertMs = ms(t0);
  let copyMs = 0;
  if (lakeDir) {
    const t1 = performance.now();
    lakeFile = await writeLake('load');
    copyMs = ms(t1);
  }
  const loadMs = ms(t0);
  // In memory, only the lake file reaches storage; with --db, whatever the process wrote.
  const loadBytes = args.db ? storageWrites() - io0 : (lakeFile?.bytes ?? 0);
  const rows = Number(loaded.rowsChanged);
  print({
    phase: 'load', rows, ms: loadMs, insert_ms: insertMs, copy_ms: copyMs, bytes_written: loadBytes,
    peak_rss_mb: statusMb('VmHWM'), rss_before_load_mb: rssBeforeLoad, rss_after_load_mb: statusMb('VmRSS'),
    version, database: args.db ?? ':memory:',
  });
  const peakReset = resetPeakRss();

  /** One batch file: staged, deduplicated and merged; in lake mode the Parquet rewrite too. */
  const applyBatch = async (file, lakeName) => {
    io0 = storageWrites();
    t0 = performance.now();
    await c.run('DELETE FROM changes');
    const staged = await c.run(`INSERT INTO changes SELECT * FROM ${readCsv(file)}`);
    const readMs = ms(t0);
    const t1 = performance.now();
    const merged = await c.run(mergeSql);
    const mergeMs = ms(t1);
    const changed = Number(merged.rowsChanged);
    let rewriteMs = 0;
    let rewritten = null;
    // Nothing changed: the lake table stays as it is (no new file).
    if (lakeDir && changed > 0) {
      const t2 = performance.now();
      rewritten = await writeLake(lakeName);
      // The new file replaces the table's old one, as an overwrite of a lake table does (and
      // a 50M-row table's copies would not fit on the disk otherwise).
      if (lakeFile) fs.rmSync(lakeFile.file, { force: true });
      lakeFile = rewritten;
      rewriteMs = ms(t2);
    }
    const batchMs = ms(t0);
    const bytes = args.db ? storageWrites() - io0 : (rewritten?.bytes ?? 0);
    return {
      events: Number(staged.rowsChanged), ms: batchMs, read_ms: readMs, merge_ms: mergeMs, rewrite_ms: rewriteMs,
      changed_rows: changed, bytes_written: bytes,
    };
  };

  let eventsTotal = 0;
  let last = null;
  for (const bf of w.batch_files) {
    last = path.join(args.workload, bf.csv);
    const r = await applyBatch(last, String(bf.batch).padStart(4, '0'));
    eventsTotal += r.events;
    print({ phase: 'batch', batch: bf.batch, ...r, events_per_s: Math.round(r.events / (r.ms / 1000)), peak_rss_mb: statusMb('VmHWM') });
  }
  // The last batch again: the guard (s.lsn > t.lsn) fails for every key, nothing may change.
  const replay = await applyBatch(last, 'replay');
  print({ phase: 'replay', batch: w.batch_files.at(-1).batch, ...replay, peak_rss_mb: statusMb('VmHWM') });
  if (replay.changed_rows !== 0) {
    process.stderr.write(`cdc_peer_duckdb: the replay of the last batch changed ${replay.changed_rows} rows\n`);
    process.exitCode = 1;
  }

  const live = Number(await one('SELECT count(*) FROM target WHERE NOT is_deleted'));
  const tombstones = Number(await one('SELECT count(*) FROM target WHERE is_deleted'));
  const memoryBytes = Number(await one('SELECT sum(memory_usage_bytes) FROM duckdb_memory()'));
  let tableBytes = null;
  if (lakeFile) tableBytes = lakeFile.bytes;
  else if (args.db) {
    await c.run('CHECKPOINT');
    tableBytes = fs.statSync(args.db).size;
  }
  let codec = null;
  if (lakeFile) codec = await one(`SELECT any_value(compression) FROM parquet_metadata(${lit(lakeFile.file)})`);
  print({
    phase: 'final', live_rows: live, tombstones, table_bytes: tableBytes, db_memory_bytes: memoryBytes,
    parquet_codec: codec, events: eventsTotal, batches: w.batch_files.length, peak_rss_mb: statusMb('VmHWM'),
    peak_since_load: peakReset,
  });

  if (args.dump) {
    const cols = names.join(', ');
    await c.run(`COPY (SELECT ${cols} FROM target WHERE NOT is_deleted ORDER BY id) TO ${lit(args.dump)} (FORMAT csv, HEADER true)`);
  }
  c.closeSync();
  db.closeSync();
}

main().catch((e) => {
  process.stderr.write(`cdc_peer_duckdb: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
