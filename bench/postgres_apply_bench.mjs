// PostgreSQL on the apply benchmark's workload (bench/apply_bench.cc --write-csv), as a peer of
// bench/duckdb_apply_bench.mjs. It starts its own server (Debian's binaries: initdb into a temp
// folder, pg_ctl on a free loopback port, its unix socket in that folder; fsync on, the default
// config otherwise) and applies each batch the usual way, in one transaction: psql's \copy into
// an UNLOGGED staging table, the newest change per key (DISTINCT ON (id) ORDER BY id, seq DESC),
// then one INSERT ... ON CONFLICT (id) DO UPDATE ... WHERE excluded.seq > target.seq. Deletes are
// soft, as in the DuckDB runner (the row stays with is_deleted, so a replayed or late older change
// cannot resurrect the key), so they are part of the same upsert. Prints one JSON line per
// measurement, like apply_bench.
//
//   node bench/postgres_apply_bench.mjs --data DIR --batches B [--check CDCLAKE_TARGET]
//        [--synchronous-commit on|off] [--bin PG_BIN_DIR]
//   --check   afterwards compares the current rows (not deleted), dumped with COPY TO, with the
//             Delta table that cdclake's apply_bench wrote (read with DuckDB through its log and
//             deletion vectors, as the DuckDB runner does).
// Each batch runs in a fresh psql session; its time is taken inside the session (clock_timestamp
// before BEGIN and after COMMIT), so psql's start and connection are not counted. Peak RSS is the
// session's backend (VmHWM, read by the backend itself; it includes the shared buffers it touched);
// the server's total (the sum over its processes, counting shared memory once per process) is
// printed too. Bytes written: WAL (pg_stat_wal) plus the data pages written by checkpoints, the
// background writer and backends (pg_stat_bgwriter; the unlogged staging table's evicted pages
// count too), with a CHECKPOINT (untimed) before and after, so each page's first change after it
// also logs a full-page image. The no-op replay writes as well: ON CONFLICT DO UPDATE locks the
// rows its WHERE rejects (the lock is written into the row).
// Run as root, the server runs as the user postgres. The server and its folder are removed at the
// end, also on failure.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { deletedPositions, duckType, replayLog } from '../tests/duckdb/delta_log.mjs';

function parseArgs(argv) {
  const args = { batches: 5, synchronousCommit: 'on' };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value`);
    if (k === '--data') args.data = path.resolve(v);
    else if (k === '--batches') args.batches = Number(v);
    else if (k === '--check') args.check = path.resolve(v);
    else if (k === '--synchronous-commit') args.synchronousCommit = v;
    else if (k === '--bin') args.bin = v;
    else throw new Error(`unknown option ${k}`);
  }
  if (!args.data) throw new Error('usage: postgres_apply_bench.mjs --data DIR --batches B [...]');
  if (!['on', 'off'].includes(args.synchronousCommit)) throw new Error(`--synchronous-commit ${args.synchronousCommit}`);
  return args;
}

/** The server binaries: --bin, else the newest /usr/lib/postgresql/N/bin, else pg_config's. */
function binDir(given) {
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return path.join(root, versions[0], 'bin');
  return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
}

/** A port nobody listens on at the moment (the server takes it right after). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Runs a command, as `user` if given; its stdout, or an error with its stderr. */
function runAs(user, bin, args, input) {
  const [cmd, full] = user ? ['runuser', ['-u', user, '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, full, { encoding: 'utf8', input, maxBuffer: 1 << 28 });
  if (r.status !== 0) {
    throw new Error(`${path.basename(bin)} ${args.slice(0, 3).join(' ')}... failed (${r.error?.message ?? `exit ${r.status}`}): ${String(r.stderr).trim()}`);
  }
  return r.stdout;
}

const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const quoteId = (name) => `"${name.replaceAll('"', '""')}"`;
const round1 = (x) => Math.round(x * 10) / 10;
const DATA_COLUMNS = ['id', 'amount', 'qty', 'name', 'updated_at'];

// The change files' columns (apply_bench's SourceSchema) and the target's: the data columns, the
// sequence and the soft-delete flag.
const STAGING = `CREATE UNLOGGED TABLE staging (id bigint, amount numeric(12,2), qty integer, name text,
  updated_at timestamptz, op text, seq bigint)`;
const TARGET = `CREATE TABLE target (id bigint NOT NULL, amount numeric(12,2), qty integer, name text,
  updated_at timestamptz, seq bigint NOT NULL, is_deleted boolean NOT NULL)`;

/** psql's script for one batch: stage, dedupe and upsert in one transaction, timed inside the
 *  session; prints one JSON object. */
function batchScript(file) {
  return `
SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset
BEGIN;
TRUNCATE staging;
\\copy staging FROM ${lit(file)} WITH (FORMAT csv, HEADER true)
SELECT extract(epoch FROM clock_timestamp()) AS t1 \\gset
WITH latest AS (
  SELECT DISTINCT ON (id) * FROM staging ORDER BY id, seq DESC
), changed AS (
  INSERT INTO target AS t (id, amount, qty, name, updated_at, seq, is_deleted)
  SELECT id, amount, qty, name, updated_at, seq, op = 'd' FROM latest
  ON CONFLICT (id) DO UPDATE SET
    amount = excluded.amount, qty = excluded.qty, name = excluded.name,
    updated_at = excluded.updated_at, seq = excluded.seq, is_deleted = excluded.is_deleted
  WHERE excluded.seq > t.seq
  RETURNING 1
)
SELECT count(*) AS changed FROM changed \\gset
SELECT extract(epoch FROM clock_timestamp()) AS t2 \\gset
COMMIT;
SELECT extract(epoch FROM clock_timestamp()) AS t3 \\gset
SELECT json_build_object(
  'events', (SELECT count(*) FROM staging), 'changed', :changed,
  'ms', (:t3 - :t0) * 1000, 'copy_ms', (:t1 - :t0) * 1000, 'merge_ms', (:t2 - :t1) * 1000,
  'commit_ms', (:t3 - :t2) * 1000,
  'backend_peak_kb', substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::bigint);
`;
}

/** The load: the rows staged with \\copy, inserted into the target, then the primary key built and
 *  the table vacuumed and analysed (as a bulk load is done); the times of each step. */
function loadScript(file) {
  return `
SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset
BEGIN;
\\copy staging FROM ${lit(file)} WITH (FORMAT csv, HEADER true)
SELECT extract(epoch FROM clock_timestamp()) AS t1 \\gset
INSERT INTO target SELECT id, amount, qty, name, updated_at, seq, op = 'd' FROM staging;
TRUNCATE staging;
SELECT extract(epoch FROM clock_timestamp()) AS t2 \\gset
ALTER TABLE target ADD PRIMARY KEY (id);
COMMIT;
SELECT extract(epoch FROM clock_timestamp()) AS t3 \\gset
VACUUM ANALYZE target;
SELECT extract(epoch FROM clock_timestamp()) AS t4 \\gset
SELECT json_build_object(
  'rows', (SELECT count(*) FROM target), 'ms', (:t4 - :t0) * 1000, 'copy_ms', (:t1 - :t0) * 1000,
  'insert_ms', (:t2 - :t1) * 1000, 'index_ms', (:t3 - :t2) * 1000, 'vacuum_ms', (:t4 - :t3) * 1000,
  'backend_peak_kb', substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::bigint);
`;
}

// What the server has written so far: WAL bytes and data pages (8 kB) written by checkpoints, the
// background writer and backends; and the data folder's size.
const WRITES_SQL = `CHECKPOINT;
SELECT json_build_object('wal_bytes', (SELECT wal_bytes FROM pg_stat_wal),
  'pages', (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
  'block_size', current_setting('block_size')::int,
  'target_bytes', pg_total_relation_size('target'));`;

function dirBytes(dir) {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    try {
      if (e.isDirectory()) total += dirBytes(p);
      else if (e.isFile()) total += fs.statSync(p).size;
    } catch {
      // A file removed while we walk (the server's temporary files).
    }
  }
  return total;
}

/** The sum of the peak RSS (VmHWM) of the server's processes, in MB: the postmaster and its
 *  children. Shared memory is counted once per process that touched it, so this overstates. */
function serverPeakMb(dataDir) {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
      if (ppid === postmaster) pids.push(Number(p));
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    } catch {
      // Gone meanwhile.
    }
  }
  return { mb: kb / 1024, processes: pids.length };
}

/** cdclake's table at its latest version as DuckDB's temp table `lake_rows`: the live files' rows
 *  without the positions their deletion vectors mark. */
async function loadCdclakeRows(c, tableRoot) {
  const { metadata, adds } = replayLog(tableRoot);
  if (metadata.partitionColumns.length > 0) throw new Error('--check: partitioned targets are not handled');
  const mapping = metadata.configuration?.['delta.columnMapping.mode'];
  const fields = JSON.parse(metadata.schemaString).fields;
  if (fields.map((f) => f.name).join(',') !== DATA_COLUMNS.join(',')) {
    throw new Error(`--check: cdclake's table has columns ${fields.map((f) => f.name).join(', ')}`);
  }
  const columns = fields.map((f) => {
    const physical = mapping && mapping !== 'none' ? f.metadata['delta.columnMapping.physicalName'] : f.name;
    return `CAST(${quoteId(physical)} AS ${duckType(f.type)}) AS ${quoteId(f.name)}`;
  });
  await c.run('CREATE TEMP TABLE dv (file VARCHAR, pos BIGINT)');
  const appender = await c.createAppender('dv');
  const files = adds.map((add) => {
    const file = path.resolve(tableRoot, decodeURIComponent(add.path));
    for (const pos of deletedPositions(tableRoot, add.deletionVector)) {
      appender.appendVarchar(file);
      appender.appendBigInt(BigInt(pos));
      appender.endRow();
    }
    return file;
  });
  appender.closeSync();
  const from = files.length
    ? `read_parquet([${files.map(lit).join(', ')}], filename = true, file_row_number = true) r
       ANTI JOIN dv ON dv.file = r.filename AND dv.pos = r.file_row_number`
    : `pg_rows WHERE false`;
  await c.run(`CREATE TEMP TABLE lake_rows AS SELECT ${files.length ? columns.join(', ') : '*'} FROM ${from}`);
  return files.length;
}

/** Compares PostgreSQL's dumped current rows with cdclake's table in DuckDB. */
async function check(pgCsv, tableRoot) {
  const toolsRequire = createRequire(new URL('../tools/package.json', import.meta.url));
  const { DuckDBInstance } = await import(toolsRequire.resolve('@duckdb/node-api'));
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`CREATE TEMP TABLE pg_rows AS SELECT * FROM read_csv(${lit(pgCsv)}, header = true,
      auto_detect = false, columns = {'id': 'BIGINT', 'amount': 'DECIMAL(12,2)', 'qty': 'INTEGER',
      'name': 'VARCHAR', 'updated_at': 'TIMESTAMPTZ'})`);
    const files = await loadCdclakeRows(c, tableRoot);
    const cols = DATA_COLUMNS.join(', ');
    const diff = `
      SELECT 'postgres only' AS side, * FROM (SELECT ${cols} FROM pg_rows EXCEPT ALL SELECT ${cols} FROM lake_rows)
      UNION ALL
      SELECT 'cdclake only' AS side, * FROM (SELECT ${cols} FROM lake_rows EXCEPT ALL SELECT ${cols} FROM pg_rows)`;
    const count = async (sql) => Number((await c.runAndReadAll(sql)).getRows()[0][0]);
    const differing = await count(`SELECT count(*) FROM (${diff})`);
    if (differing > 0) {
      const text = DATA_COLUMNS.map((n) => `${n}::VARCHAR AS ${n}`).join(', ');
      const sample = await c.runAndReadAll(`SELECT side, ${text} FROM (${diff}) ORDER BY CAST(id AS BIGINT), side LIMIT 20`);
      for (const row of sample.getRowObjects()) process.stderr.write(`differs: ${JSON.stringify(row)}\n`);
    }
    return {
      postgres_rows: await count('SELECT count(*) FROM pg_rows'),
      cdclake_rows: await count('SELECT count(*) FROM lake_rows'),
      cdclake_files: files,
      differing_rows: differing,
    };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const bin = binDir(args.bin);
  const version = runAs(null, path.join(bin, 'postgres'), ['--version']).trim();
  const user = process.getuid?.() === 0 ? 'postgres' : null; // initdb refuses to run as root
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-pg-'));
  const dataDir = path.join(tmp, 'data');
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      spawnSync(user ? 'runuser' : path.join(bin, 'pg_ctl'),
        [...(user ? ['-u', user, '--', path.join(bin, 'pg_ctl')] : []), '-D', dataDir, '-m', 'fast', '-w', 'stop'],
        { stdio: 'ignore' });
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stop();
      process.exit(1);
    });
  }
  try {
    if (user) execFileSync('chown', [user, tmp]);
    runAs(user, path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'bench', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    const port = await freePort();
    const settings = {
      port, listen_addresses: '127.0.0.1', unix_socket_directories: tmp, fsync: 'on',
      synchronous_commit: args.synchronousCommit, TimeZone: 'UTC',
    };
    const opts = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ');
    runAs(user, path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', path.join(tmp, 'server.log'), '-w', '-o', opts, 'start']);
    started = true;
    const psql = (sql) =>
      runAs(null, path.join(bin, 'psql'),
        ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', tmp, '-p', String(port), '-U', 'bench', '-d', 'postgres', '-f', '-'],
        sql);
    const json = (sql) => JSON.parse(psql(sql).trim().split('\n').pop());
    const config = json(`SELECT json_object_agg(name, setting) FROM pg_settings WHERE name IN
      ('shared_buffers', 'work_mem', 'max_wal_size', 'fsync', 'synchronous_commit', 'wal_level', 'full_page_writes')`);
    const base = {
      engine: 'postgres', version: version.replace(/^postgres \(PostgreSQL\) /, ''),
      fsync: config.fsync, synchronous_commit: config.synchronous_commit,
    };
    const print = (o) =>
      console.log(JSON.stringify({ ...base, ...o }, (k, v) => (typeof v === 'number' && k !== 'seconds' ? round1(v) : v)));

    psql(`${STAGING};\n${TARGET};`);
    const dirBefore = dirBytes(dataDir);
    const load = json(loadScript(path.join(args.data, 'load.csv')));
    base.rows = load.rows;
    const afterLoad = json(WRITES_SQL);
    const dirAfterLoad = dirBytes(dataDir);
    print({
      phase: 'load', seconds: Math.round(load.ms) / 1000, copy_ms: load.copy_ms, insert_ms: load.insert_ms,
      index_ms: load.index_ms, vacuum_ms: load.vacuum_ms, rows_per_s: Math.round(load.rows / (load.ms / 1000)),
      peak_rss_mb: load.backend_peak_kb / 1024, data_dir_mb: (dirAfterLoad - dirBefore) / 2 ** 20,
      target_mb: afterLoad.target_bytes / 2 ** 20,
      settings: { shared_buffers: `${config.shared_buffers * 8 / 1024} MB`, work_mem: `${config.work_mem / 1024} MB`,
        max_wal_size: `${config.max_wal_size} MB`, wal_level: config.wal_level, full_page_writes: config.full_page_writes },
    });

    let last = null;
    let batchPeakKb = 0;
    let events = 0;
    for (let b = 0; b < args.batches; ++b) {
      last = path.join(args.data, `batch-${b}.csv`);
      const r = json(batchScript(last));
      batchPeakKb = Math.max(batchPeakKb, r.backend_peak_kb);
      events += r.events;
      print({
        phase: 'batch', batch: b, events: r.events, changed: r.changed, ms: r.ms, read_ms: r.copy_ms,
        merge_ms: r.merge_ms, commit_ms: r.commit_ms, events_per_s: Math.round(r.events / (r.ms / 1000)),
      });
    }
    const afterBatches = json(WRITES_SQL);
    const dirAfterBatches = dirBytes(dataDir);
    const written = (from, to) => to.wal_bytes - from.wal_bytes + (to.pages - from.pages) * to.block_size;
    print({
      phase: 'writes', events, wal_mb: (afterBatches.wal_bytes - afterLoad.wal_bytes) / 2 ** 20,
      data_pages_mb: ((afterBatches.pages - afterLoad.pages) * afterBatches.block_size) / 2 ** 20,
      written_mb: written(afterLoad, afterBatches) / 2 ** 20,
      bytes_per_event: events ? written(afterLoad, afterBatches) / events : 0,
      data_dir_growth_mb: (dirAfterBatches - dirAfterLoad) / 2 ** 20, target_mb: afterBatches.target_bytes / 2 ** 20,
    });
    if (last) {
      // The last batch again: the guard (excluded.seq > t.seq) fails for every key.
      const r = json(batchScript(last));
      batchPeakKb = Math.max(batchPeakKb, r.backend_peak_kb);
      const afterNoop = json(WRITES_SQL);
      print({
        phase: 'noop', ms: r.ms, read_ms: r.copy_ms, merge_ms: r.merge_ms, commit_ms: r.commit_ms, changed: r.changed,
        written_mb: written(afterBatches, afterNoop) / 2 ** 20,
      });
    }
    const tombstones = Number(psql('SELECT count(*) FROM target WHERE is_deleted').trim());
    const server = serverPeakMb(dataDir);
    // Each batch runs in its own session, so the backend's peak is the batches' own.
    print({
      phase: 'memory', peak_rss_mb: batchPeakKb / 1024, load_peak_rss_mb: load.backend_peak_kb / 1024, since_load: true,
      server_peak_rss_sum_mb: server.mb, server_processes: server.processes, tombstones,
    });

    if (args.check) {
      const dump = path.join(tmp, 'current.csv');
      psql(`\\copy (SELECT id, amount, qty, name, to_char(updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at FROM target WHERE NOT is_deleted ORDER BY id) TO ${lit(dump)} WITH (FORMAT csv, HEADER true)`);
      const r = await check(dump, args.check);
      print({ phase: 'check', target: args.check, ...r });
      if (r.differing_rows !== 0 || r.postgres_rows !== r.cdclake_rows) process.exitCode = 1;
    }
  } finally {
    stop();
  }
}

main().catch((e) => {
  process.stderr.write(`postgres_apply_bench: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
