// cdclake on a CDC workload folder written by bench/cdc_workload.cc (workload.json, load.csv,
// batch-NNNN.json), run as a user would run the CLI, one process per step:
//
//   node bench/cdc_cdclake.mjs --workload W --engine apply|run --cli PATH/cdclake --dir WORKDIR
//        [--batch-rows N] [--pipeline bench/cdc_pipeline.sql]
//
//   apply  the load: `cdclake apply` of load.csv (sequence STRUCT(commit_lsn, lsn), deletes when
//          _op = 'd'); then one `cdclake apply --format debezium` process per batch file (what a
//          scheduled job does); then the last batch file again (the replay, which must write no
//          table version). The table is WORKDIR/orders.
//   run    `cdclake run --once` of bench/cdc_pipeline.sql: the first run loads load.csv (its
//          AUTO CDC ONCE flow) with an empty landing folder; before each later run the next
//          batch file is hard-linked into the landing folder (WORKDIR/input); the replay links
//          the last batch file again under a later name (replay-NNNN.json), so the stream sees
//          the same events a second time. The table is WORKDIR/warehouse/bench/orders.
//   --scd 2  (apply only) the table keeps history (SCD type 2): the same steps, for the goal that
//          an SCD2 batch takes at most 1.5× an SCD1 batch.
//   --batch-rows N  rows per commit for the load (apply --batch-size, run --batch-rows) and
//          the most rows of one batch file run takes in one commit (default 1000000), so each
//          batch file is one commit for both engines, and a large load is a commit per N rows.
//
// Each step is one process, timed whole (start, reading, applying, committing, exit): wall ms
// around the spawn, peak RSS (/usr/bin/time %M), the bytes the process caused to be written to
// storage (/usr/bin/time %O, 512-byte units: the kernel's write_bytes, RocksDB compactions and
// files written then deleted included), and bytes_written: the files under WORKDIR (table, key
// index, index log, event log) that are new after the step, or that grew (their growth).
// Changed rows are the CLI's target rows inserted + updated + deleted.
// Prints one JSON line per step, as the peers do: phase load, batch, replay, final. Exits 1 if
// a step fails or the replay wrote a table version.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readWorkload } from './cdc_common.mjs';

const USAGE =
  'usage: cdc_cdclake.mjs --workload W --engine apply|run --cli PATH --dir WORKDIR [--batch-rows N] [--pipeline FILE] [--scd 1|2]';
const TIME = '/usr/bin/time';

function parseArgs(argv) {
  const args = {
    batchRows: 1000000,
    scd: 1,
    pipeline: path.join(path.dirname(new URL(import.meta.url).pathname), 'cdc_pipeline.sql'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value\n${USAGE}`);
    if (k === '--workload') args.workload = path.resolve(v);
    else if (k === '--engine') args.engine = v;
    else if (k === '--cli') args.cli = path.resolve(v);
    else if (k === '--dir') args.dir = path.resolve(v);
    else if (k === '--batch-rows') args.batchRows = Number(v);
    else if (k === '--pipeline') args.pipeline = path.resolve(v);
    else if (k === '--scd') args.scd = Number(v);
    else throw new Error(`unknown option ${k}\n${USAGE}`);
  }
  if (!args.workload || !args.cli || !args.dir) throw new Error(USAGE);
  if (args.engine !== 'apply' && args.engine !== 'run') throw new Error(`--engine ${args.engine}\n${USAGE}`);
  if (!(Number.isInteger(args.batchRows) && args.batchRows > 0)) throw new Error('--batch-rows: a positive integer');
  if (args.scd !== 1 && args.scd !== 2) throw new Error(`--scd ${args.scd}: 1 or 2\n${USAGE}`);
  if (args.scd === 2 && args.engine !== 'apply') throw new Error('--scd 2: with --engine apply only');
  return args;
}

/** Every regular file under `dir`: path -> size. */
function listFiles(dir, out = new Map()) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (e.code === 'ENOENT') return out;
    throw e;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) listFiles(p, out);
    else if (e.isFile()) {
      try {
        out.set(p, fs.statSync(p).size);
      } catch (err) {
        if (err.code !== 'ENOENT') throw err; // removed meanwhile (RocksDB)
      }
    }
  }
  return out;
}

/** Bytes of the files that are new in `after`, plus the growth of those that grew. */
function writtenBetween(before, after) {
  let bytes = 0;
  for (const [p, size] of after) {
    const old = before.get(p);
    if (old === undefined) bytes += size;
    else if (size > old) bytes += size - old;
  }
  return bytes;
}

const sumSizes = (files) => [...files.values()].reduce((a, b) => a + b, 0);

/**
 * Runs `cli args` under /usr/bin/time; returns wall ms, peak RSS MB, storage write bytes and
 * stdout. Fails with the process's stderr when it exits non-zero.
 */
function timed(cli, cliArgs, scratch) {
  const timeFile = path.join(scratch, 'time.txt');
  const t0 = performance.now();
  const r = spawnSync(TIME, ['-f', '%M %O', '-o', timeFile, cli, ...cliArgs], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${path.basename(cli)} ${cliArgs.join(' ')} exited ${r.status}:\n${r.stderr}${r.stdout}`);
  }
  // /usr/bin/time may write a "Command exited ..." line first; the figures are the last line.
  const fields = fs.readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, peakRssMb: fields[0] / 1024, ioWriteBytes: fields[1] * 512, stdout: r.stdout, stderr: r.stderr };
}

/** `label   value` lines of `cdclake apply`'s summary as numbers (the value's first word). */
function applySummary(stdout) {
  const m = new Map();
  for (const line of stdout.split('\n')) {
    const hit = /^([a-z][a-z ]*?)\s{2,}(\S+)/.exec(line);
    if (hit) m.set(hit[1], hit[2]);
  }
  const num = (label) => {
    if (!m.has(label)) throw new Error(`cdclake apply printed no "${label}":\n${stdout}`);
    return Number(m.get(label));
  };
  return {
    events: num('rows read'),
    applied: num('rows applied'),
    discarded: num('rows discarded'),
    quarantined: num('rows quarantined'),
    changed: num('target rows inserted') + num('target rows updated') + num('target rows deleted'),
    versions: m.get('versions written') === 'none' ? 0 : stdout.match(/^versions written\s+(.*)$/m)[1].split(',').length,
  };
}

/** The batch lines of `cdclake run --log-format json`, summed. */
function runSummary(stdout) {
  const s = { events: 0, applied: 0, discarded: 0, quarantined: 0, changed: 0, versions: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line);
    if (j.event === 'summary' && j.failed) throw new Error(`cdclake run failed:\n${stdout}`);
    if (j.event !== 'batch') continue;
    s.events += j.rows_read;
    s.applied += j.rows_applied;
    s.discarded += j.rows_discarded;
    s.quarantined += j.rows_quarantined;
    s.changed += j.rows_inserted + j.rows_updated + j.rows_deleted;
    if (j.table_version !== null && j.table_version !== undefined) s.versions += 1;
  }
  return s;
}

/** The newest version in a Delta table's log (-1 without one). */
function latestVersion(table) {
  const log = path.join(table, '_delta_log');
  if (!fs.existsSync(log)) return -1;
  let v = -1;
  for (const name of fs.readdirSync(log)) {
    const m = /^(\d{20})\.json$/.exec(name);
    if (m) v = Math.max(v, Number(m[1]));
  }
  return v;
}

/** `cdclake describe`'s figures of the final table. */
function describe(cli, table) {
  const r = spawnSync(cli, ['describe', table], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cdclake describe ${table}: ${r.stderr}`);
  const field = (name) => {
    const m = new RegExp(`^${name}: (\\d+)`, 'm').exec(r.stdout);
    return m ? Number(m[1]) : null;
  };
  // "rows" counts the live rows; the deletion vectors' rows are counted apart.
  return {
    version: field('version'), files: field('files'), live_rows: field('rows'),
    deleted_rows: field('deleted rows \\(deletion vectors\\)') ?? 0, data_bytes: field('bytes'),
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(TIME)) throw new Error(`${TIME} is missing: install the Debian package time (scripts/setup)`);
  const w = readWorkload(args.workload);
  const engine = `cdclake-${args.engine}`;
  const print = (o) => process.stdout.write(`${JSON.stringify({ engine, keys_initial: w.keys_initial, ...o })}\n`);

  // The work folder holds only what this run writes: start from an empty one.
  fs.mkdirSync(args.dir, { recursive: true });
  if (fs.readdirSync(args.dir).length > 0) throw new Error(`--dir ${args.dir} is not empty`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-cdclake-'));
  const schema = w.cdclake_schema;
  const loadCsv = path.join(args.workload, w.load.csv);
  const input = path.join(args.dir, 'input');
  const warehouse = path.join(args.dir, 'warehouse');
  const table = args.engine === 'apply' ? path.join(args.dir, 'orders') : path.join(warehouse, 'bench', 'orders');
  // Everything cdclake keeps durable for this table: with run, the warehouse (event log too).
  const stateDir = args.engine === 'apply' ? table : warehouse;
  if (args.engine === 'run') fs.mkdirSync(input);

  const applyArgs = ['apply', '--target', table, '--keys', 'id', ...(args.scd === 2 ? ['--scd', '2'] : [])];
  const runArgs = ['run', args.pipeline, '--once', '--warehouse', warehouse, '--log-format', 'json',
    '--batch-rows', String(args.batchRows), '--var', `load=${loadCsv}`, '--var', `input=${input}`,
    '--var', `schema=${schema}`];

  /** One step: its process, timed, with the table's growth and the CLI's counts. */
  const step = (cliArgs) => {
    const before = listFiles(stateDir);
    const versionBefore = latestVersion(table);
    const t = timed(args.cli, cliArgs, scratch);
    const after = listFiles(stateDir);
    const counts = args.engine === 'apply' ? applySummary(t.stdout) : runSummary(t.stdout);
    return {
      events: counts.events, ms: Math.round(t.ms * 10) / 10, bytes_written: writtenBetween(before, after),
      io_write_bytes: t.ioWriteBytes, state_bytes: sumSizes(after), changed_rows: counts.changed,
      applied: counts.applied, discarded: counts.discarded, quarantined: counts.quarantined,
      versions_written: latestVersion(table) - versionBefore, peak_rss_mb: Math.round(t.peakRssMb * 10) / 10,
    };
  };

  let failed = false;
  try {
    // ---- load
    const load = step(args.engine === 'apply'
      ? [...applyArgs, '--sequence-by', 'STRUCT(commit_lsn, lsn)', '--delete-when', "_op = 'd'",
        '--except', '_op,commit_lsn,lsn', '--schema', `${schema}, _op STRING, commit_lsn BIGINT, lsn BIGINT`,
        '--batch-size', String(args.batchRows), loadCsv]
      : runArgs);
    print({ phase: 'load', rows: load.events, ...load });

    // ---- batches
    const batchArgs = (file) => [...applyArgs, '--format', 'debezium', '--schema', schema, file];
    let events = 0;
    let ms = 0;
    let peak = load.peak_rss_mb;
    let last = null;
    for (const bf of w.batch_files) {
      last = path.join(args.workload, bf.debezium);
      if (args.engine === 'run') fs.linkSync(last, path.join(input, bf.debezium));
      const r = step(args.engine === 'apply' ? batchArgs(last) : runArgs);
      events += r.events;
      ms += r.ms;
      peak = Math.max(peak, r.peak_rss_mb);
      print({ phase: 'batch', batch: bf.batch, ...r, events_per_s: Math.round(r.events / (r.ms / 1000)) });
    }

    // ---- replay: the last batch's events again; nothing may change, no version may be written.
    const lastBatch = w.batch_files.at(-1).batch;
    if (args.engine === 'run') {
      fs.linkSync(last, path.join(input, `replay-${String(lastBatch).padStart(4, '0')}.json`));
    }
    const replay = step(args.engine === 'apply' ? batchArgs(last) : runArgs);
    peak = Math.max(peak, replay.peak_rss_mb);
    print({ phase: 'replay', batch: lastBatch, ...replay });
    if (replay.changed_rows !== 0 || replay.versions_written !== 0) {
      process.stderr.write(`cdc_cdclake: the replay changed ${replay.changed_rows} rows and wrote ${replay.versions_written} versions\n`);
      failed = true;
    }

    // ---- final: the table as it is now.
    const d = describe(args.cli, table);
    print({
      phase: 'final', table, live_rows: d.live_rows, dv_deleted_rows: d.deleted_rows, table_version: d.version, data_files: d.files,
      data_bytes: d.data_bytes, table_bytes: sumSizes(listFiles(stateDir)), events, batches: w.batch_files.length,
      batches_ms: Math.round(ms), peak_rss_mb: peak,
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

try {
  main();
} catch (e) {
  process.stderr.write(`cdc_cdclake: ${e.stack ?? e.message}\n`);
  process.exit(1);
}
