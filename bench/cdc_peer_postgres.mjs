// PostgreSQL as a peer of cdclake on a CDC workload folder written by bench/cdc_workload.cc
// (workload.json, load.csv, batch-NNNN.csv). It starts its own server (Debian's binaries: initdb into a temp folder,
// pg_ctl on a free loopback port, its unix socket in that folder; fsync on, the default config
// otherwise), loads load.csv with COPY, and applies each batch file the usual way, in one
// transaction: COPY into an UNLOGGED staging table, the newest change per key
// (DISTINCT ON (id) ORDER BY id, lsn DESC), then one INSERT ... ON CONFLICT (id) DO UPDATE ...
// WHERE excluded.lsn > target.lsn. Deletes are soft (the row stays with is_deleted, so a late or
// duplicated older change cannot bring the key back), so they are part of the same upsert. After
// the last batch it applies the last batch file again, which must change nothing.
//
//   node bench/cdc_peer_postgres.mjs --workload W [--dump FILE] [--bin PG_BIN_DIR]
//   --dump FILE  the final current table (deleted keys absent) as CSV with a header: the
//                workload's columns in order, by id.
// Prints one JSON line per measurement: phase load, batch (one per file), replay, final.
// Each batch runs in a fresh psql session; its time is taken inside the session (clock_timestamp
// before BEGIN and after COMMIT), so psql's start and connection are not counted; COPY is psql's
// \copy (the file is read by the client and streamed to the server). Peak RSS is the session's
// backend (VmHWM, read by the backend itself; it includes the shared buffers it touched), the
// running maximum over the sessions since the load; the server's total is in the final line.
// Bytes written: WAL (the advance of the insert position) plus the data pages written by
// checkpoints, the background writer and backends (pg_stat_bgwriter, 8 kB each; evicted pages of
// the unlogged staging table count too), as the sum over all batches between a CHECKPOINT
// (untimed) after the load and one after the last batch, so each page's first change after the
// first also logs a full-page image. A batch's line has what was written between the end of the
// one before and its own end (its WAL, and the pages written meanwhile); the pages the batches
// left dirty are written by the CHECKPOINT after them, reported in the final line (flush_bytes;
// batches_bytes_written is the whole sum). The replay is measured alone, between that CHECKPOINT
// and one after it. It writes as well: ON CONFLICT DO UPDATE locks the rows its WHERE rejects
// (the lock is written into the row).
// Run as root, the server runs as the user postgres. The server and its folder are removed at the
// end, also on failure.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { lit, quoteId, readWorkload } from './cdc_common.mjs';

const USAGE = 'usage: cdc_peer_postgres.mjs --workload W [--dump FILE] [--bin PG_BIN_DIR]';

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value\n${USAGE}`);
    if (k === '--workload') args.workload = path.resolve(v);
    else if (k === '--dump') args.dump = path.resolve(v);
    else if (k === '--bin') args.bin = v;
    else throw new Error(`unknown option ${k}\n${USAGE}`);
  }
  if (!args.workload) throw new Error(USAGE);
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

const round1 = (x) => Math.round(x * 10) / 10;

/** The workload's SQL type names as PostgreSQL's (TIMESTAMP stays without a time zone). */
function pgType(sql) {
  const t = sql.trim().toUpperCase();
  if (t === 'STRING' || t === 'VARCHAR') return 'text';
  if (t === 'INT') return 'integer';
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (decimal) return `numeric(${decimal[1]},${decimal[2]})`;
  return t.toLowerCase();
}

/** psql's script for one batch: stage, dedupe and upsert in one transaction, timed inside the
 *  session; prints one JSON object. HEADER MATCH checks the file's header against the columns. */
function batchScript(file, names) {
  const data = names.slice(1);
  return `
SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset
BEGIN;
TRUNCATE staging;
\\copy staging FROM ${lit(file)} WITH (FORMAT csv, HEADER match)
SELECT extract(epoch FROM clock_timestamp()) AS t1 \\gset
WITH latest AS (
  SELECT DISTINCT ON (id) * FROM staging ORDER BY id, lsn DESC
), changed AS (
  INSERT INTO target AS t (${names.join(', ')}, commit_lsn, lsn, is_deleted)
  SELECT ${names.join(', ')}, commit_lsn, lsn, _op = 'd' FROM latest
  ON CONFLICT (id) DO UPDATE SET
    ${data.map((n) => `${n} = excluded.${n}`).join(', ')},
    commit_lsn = excluded.commit_lsn, lsn = excluded.lsn, is_deleted = excluded.is_deleted
  WHERE excluded.lsn > t.lsn
  RETURNING 1
)
SELECT count(*) AS changed FROM changed \\gset
SELECT extract(epoch FROM clock_timestamp()) AS t2 \\gset
COMMIT;
SELECT extract(epoch FROM clock_timestamp()) AS t3 \\gset
SELECT json_build_object(
  'events', (SELECT count(*) FROM staging), 'changed', :changed,
  'ms', (:t3 - :t0) * 1000, 'read_ms', (:t1 - :t0) * 1000, 'merge_ms', (:t2 - :t1) * 1000,
  'commit_ms', (:t3 - :t2) * 1000,
  'backend_peak_kb', substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::bigint);
`;
}

/** The load: the rows staged with \\copy, inserted into the target, then the primary key built and
 *  the table vacuumed and analysed (as a bulk load is done); the times of each step. */
function loadScript(file, names) {
  return `
SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset
BEGIN;
\\copy staging FROM ${lit(file)} WITH (FORMAT csv, HEADER match)
SELECT extract(epoch FROM clock_timestamp()) AS t1 \\gset
INSERT INTO target SELECT ${names.join(', ')}, commit_lsn, lsn, _op = 'd' FROM staging;
TRUNCATE staging;
SELECT extract(epoch FROM clock_timestamp()) AS t2 \\gset
ALTER TABLE target ADD PRIMARY KEY (id);
COMMIT;
SELECT extract(epoch FROM clock_timestamp()) AS t3 \\gset
VACUUM ANALYZE target;
SELECT extract(epoch FROM clock_timestamp()) AS t4 \\gset
SELECT json_build_object(
  'rows', (SELECT count(*) FROM target), 'ms', (:t4 - :t0) * 1000, 'read_ms', (:t1 - :t0) * 1000,
  'insert_ms', (:t2 - :t1) * 1000, 'index_ms', (:t3 - :t2) * 1000, 'vacuum_ms', (:t4 - :t3) * 1000,
  'backend_peak_kb', substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::bigint);
`;
}

// What the server has written so far: the WAL insert position (bytes since the cluster began) and
// the data pages written by checkpoints, the background writer and backends.
const WRITES_SQL = `SELECT pg_stat_clear_snapshot();
SELECT json_build_object('wal_lsn', pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0'),
  'pages', (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
  'block_size', current_setting('block_size')::int,
  'target_bytes', pg_total_relation_size('target'));`;
// The same after a CHECKPOINT that writes the dirty pages. The checkpointer publishes its counts
// only after it has woken the waiting session, so a second CHECKPOINT (which it handles after
// publishing) is waited for too.
const CHECKPOINT_WRITES_SQL = `CHECKPOINT;
CHECKPOINT;
${WRITES_SQL}`;

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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const w = readWorkload(args.workload);
  if (!Array.isArray(w.columns) || w.columns[0]?.name !== 'id') throw new Error(`${args.workload}/workload.json: columns must start with id`);
  if (!Array.isArray(w.batch_files) || w.batch_files.length === 0) throw new Error(`${args.workload}/workload.json: no batch_files`);
  const names = w.columns.map((c) => quoteId(c.name));
  const columnDefs = w.columns.map((c, i) => `${quoteId(c.name)} ${pgType(c.sql)}${i === 0 ? ' NOT NULL' : ''}`).join(', ');

  const bin = binDir(args.bin);
  const version = runAs(null, path.join(bin, 'postgres'), ['--version']).trim();
  const user = process.getuid?.() === 0 ? 'postgres' : null; // initdb refuses to run as root
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-pg-'));
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
      port, listen_addresses: '127.0.0.1', unix_socket_directories: tmp, fsync: 'on', TimeZone: 'UTC', DateStyle: 'ISO,YMD',
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
    const base = { engine: 'postgres', keys_initial: w.keys_initial, threads: 1 };
    const print = (o) => console.log(JSON.stringify({ ...base, ...o }, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? round1(v) : v)));
    const written = (from, to) => to.wal_lsn - from.wal_lsn + (to.pages - from.pages) * to.block_size;
    const parts = (from, to) => ({ wal_bytes: to.wal_lsn - from.wal_lsn, page_bytes: (to.pages - from.pages) * to.block_size });

    psql(`CREATE UNLOGGED TABLE staging (${columnDefs}, _op text, commit_lsn bigint, lsn bigint);
      CREATE TABLE target (${columnDefs}, commit_lsn bigint NOT NULL, lsn bigint NOT NULL, is_deleted boolean NOT NULL);`);
    const beforeLoad = json(CHECKPOINT_WRITES_SQL);
    const dirBefore = dirBytes(dataDir);
    const load = json(loadScript(path.join(args.workload, w.load.csv), names));
    const afterLoad = json(CHECKPOINT_WRITES_SQL);
    print({
      phase: 'load', rows: load.rows, ms: load.ms, read_ms: load.read_ms, insert_ms: load.insert_ms, index_ms: load.index_ms,
      vacuum_ms: load.vacuum_ms, bytes_written: written(beforeLoad, afterLoad), ...parts(beforeLoad, afterLoad),
      peak_rss_mb: load.backend_peak_kb / 1024, data_dir_growth_bytes: dirBytes(dataDir) - dirBefore,
      table_bytes: afterLoad.target_bytes, version: version.replace(/^postgres \(PostgreSQL\) /, ''),
      settings: {
        fsync: config.fsync, synchronous_commit: config.synchronous_commit, shared_buffers: `${config.shared_buffers * 8 / 1024} MB`,
        work_mem: `${config.work_mem / 1024} MB`, max_wal_size: `${config.max_wal_size} MB`, wal_level: config.wal_level,
        full_page_writes: config.full_page_writes,
      },
    });

    // Each batch runs in its own session, so the backends' peaks are the batches' own.
    let peakKb = 0;
    let events = 0;
    let writes = afterLoad;
    const applyBatch = (file, writesSql) => {
      const r = json(batchScript(file, names));
      const after = json(writesSql);
      peakKb = Math.max(peakKb, r.backend_peak_kb);
      const out = {
        events: r.events, ms: r.ms, read_ms: r.read_ms, merge_ms: r.merge_ms, commit_ms: r.commit_ms, changed_rows: r.changed,
        bytes_written: written(writes, after), ...parts(writes, after), peak_rss_mb: peakKb / 1024,
      };
      writes = after;
      return out;
    };
    let last = null;
    for (const bf of w.batch_files) {
      last = path.join(args.workload, bf.csv);
      const r = applyBatch(last, WRITES_SQL);
      events += r.events;
      print({ phase: 'batch', batch: bf.batch, ...r, events_per_s: Math.round(r.events / (r.ms / 1000)) });
    }
    const afterBatches = json(CHECKPOINT_WRITES_SQL);
    const flush = { bytes: written(writes, afterBatches), total: written(afterLoad, afterBatches), ...parts(afterLoad, afterBatches) };
    writes = afterBatches;
    // The last batch again: the guard (excluded.lsn > t.lsn) fails for every key.
    const replay = applyBatch(last, CHECKPOINT_WRITES_SQL);
    print({ phase: 'replay', batch: w.batch_files.at(-1).batch, ...replay });
    if (replay.changed_rows !== 0) {
      process.stderr.write(`cdc_peer_postgres: the replay of the last batch changed ${replay.changed_rows} rows\n`);
      process.exitCode = 1;
    }

    const counts = json(`SELECT json_build_object('live', count(*) FILTER (WHERE NOT is_deleted),
      'tombstones', count(*) FILTER (WHERE is_deleted), 'table_bytes', pg_total_relation_size('target')) FROM target`);
    const server = serverPeakMb(dataDir);
    print({
      phase: 'final', live_rows: counts.live, tombstones: counts.tombstones, table_bytes: counts.table_bytes,
      data_dir_bytes: dirBytes(dataDir), events, batches: w.batch_files.length, batches_bytes_written: flush.total,
      batches_wal_bytes: flush.wal_bytes, batches_page_bytes: flush.page_bytes, flush_bytes: flush.bytes, peak_rss_mb: peakKb / 1024,
      server_peak_rss_sum_mb: server.mb, server_processes: server.processes,
    });

    if (args.dump) {
      psql(`\\copy (SELECT ${names.join(', ')} FROM target WHERE NOT is_deleted ORDER BY id) TO ${lit(args.dump)} WITH (FORMAT csv, HEADER true)`);
    }
  } finally {
    stop();
  }
}

main().catch((e) => {
  process.stderr.write(`cdc_peer_postgres: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
