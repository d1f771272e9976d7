// The CDC apply benchmark of issue 7: for each table size, one workload (bench/cdc_workload.cc)
// applied by every engine in turn, each final table checked, every figure collected.
//
//   node bench/cdc_bench.mjs --sizes 1000000,10000000 --batches B --batch N --late F
//        --duplicate D --out RESULTS.jsonl [--engines E,...] [--keep DIR] [--build DIR]
//        [--seed S] [--batch-rows R]
//
//   --sizes     initial table sizes (keys), run in this order
//   --batches, --batch, --late, --duplicate, --seed: the generator's options
//   --engines   any of cdclake-apply, cdclake-apply-scd2 (the same table keeping history), cdclake-run, duckdb-merge, duckdb-lake, postgres (default
//               all); one at a time, never two at once
//   --keep DIR  work in DIR and leave the workloads and tables there (default: a temp folder,
//               each size's files removed before the next size)
//   --build DIR the build folder holding cdclake and bench/cdc_workload (default build)
//   --batch-rows R  passed to bench/cdc_cdclake.mjs (rows per commit of the load)
//
// RESULTS.jsonl gets: one "machine" record (CPU, cores, RAM, kernel, versions, git commit), per
// size one "workload" record (the generator's parameters, its per-batch counts, its own figures
// and its wall time), every JSON line the engines print (tagged with keys_initial), one line per
// comparison (bench/cdc_compare.mjs: each engine's final table against the correct one computed
// from the workload, and each other engine's against cdclake-apply's), and "skipped" / "error"
// records. Engines that are not installed are skipped with a message. Exits 1 when a comparison
// found differences or an engine failed, after writing everything.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const ENGINES = ['cdclake-apply', 'cdclake-apply-scd2', 'cdclake-run', 'duckdb-memory', 'duckdb-merge', 'duckdb-lake', 'postgres'];
// Engines whose final table keeps history (SCD type 2): not compared with the expected current
// table; their batches are measured against cdclake-apply's (SCD type 1).
const HISTORY_ENGINES = new Set(['cdclake-apply-scd2']);
// DuckDB's in-memory table takes about this much per row (measured: ~460 MB per million rows).
const DUCKDB_MEMORY_BYTES_PER_ROW = 480;
const USAGE =
  'usage: cdc_bench.mjs --sizes K[,K...] --batches B --batch N --late F --duplicate D --out RESULTS.jsonl\n' +
  `       [--engines ${ENGINES.join(',')}] [--keep DIR] [--build DIR] [--seed S] [--batch-rows R]`;

function parseArgs(argv) {
  const args = { engines: ENGINES, build: path.join(REPO, 'build'), late: 0.02, duplicate: 0.02, seed: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k}: missing value\n${USAGE}`);
    if (k === '--sizes') args.sizes = v.split(',').map(Number);
    else if (k === '--batches') args.batches = Number(v);
    else if (k === '--batch') args.batch = Number(v);
    else if (k === '--late') args.late = Number(v);
    else if (k === '--duplicate') args.duplicate = Number(v);
    else if (k === '--seed') args.seed = Number(v);
    else if (k === '--out') args.out = path.resolve(v);
    else if (k === '--engines') args.engines = v.split(',').filter(Boolean);
    else if (k === '--keep') args.keep = path.resolve(v);
    else if (k === '--build') args.build = path.resolve(v);
    else if (k === '--batch-rows') args.batchRows = Number(v);
    else throw new Error(`unknown option ${k}\n${USAGE}`);
  }
  const positive = (n) => Number.isInteger(n) && n > 0;
  if (!args.out || !args.sizes || !args.sizes.every(positive) || !positive(args.batches) || !positive(args.batch)) {
    throw new Error(USAGE);
  }
  for (const e of args.engines) if (!ENGINES.includes(e)) throw new Error(`unknown engine ${e}\n${USAGE}`);
  return args;
}

const run = (cmd, cmdArgs, opts = {}) => spawnSync(cmd, cmdArgs, { encoding: 'utf8', ...opts });

/** The first line a command prints, or null when it cannot run. */
function firstLine(cmd, cmdArgs) {
  const r = run(cmd, cmdArgs);
  return r.status === 0 ? r.stdout.split('\n')[0].trim() : null;
}

/** PostgreSQL's server binaries, as bench/cdc_peer_postgres.mjs finds them (newest first). */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/** DuckDB's version through the Node API, or null when the npm tools are not installed. */
async function duckdbVersion() {
  try {
    const req = createRequire(path.join(REPO, 'tools', 'package.json'));
    const { DuckDBInstance } = await import(req.resolve('@duckdb/node-api'));
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const r = await c.runAndReadAll('SELECT version()');
    const v = String(r.getRows()[0][0]);
    c.closeSync();
    db.closeSync();
    return v;
  } catch {
    return null;
  }
}

/** CMAKE_BUILD_TYPE of the build folder, from its CMakeCache.txt. */
function buildType(build) {
  try {
    const m = /^CMAKE_BUILD_TYPE:[A-Z]+=(.*)$/m.exec(fs.readFileSync(path.join(build, 'CMakeCache.txt'), 'utf8'));
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

async function machine(args) {
  const cpus = os.cpus();
  const pg = postgresBin();
  const git = (a) => firstLine('git', ['-C', REPO, ...a]);
  return {
    record: 'machine', date: new Date().toISOString(), hostname: os.hostname(), nproc: cpus.length,
    cpu_model: cpus[0]?.model ?? null, ram_bytes: os.totalmem(), kernel: `${os.type()} ${os.release()}`,
    node: process.version, duckdb: await duckdbVersion(),
    postgres: pg ? firstLine(path.join(pg, 'postgres'), ['--version']) : null,
    git_commit: git(['rev-parse', 'HEAD']),
    // Files changed since that commit (the tree the benchmark ran from), by name.
    git_changed: (run('git', ['-C', REPO, 'status', '--porcelain']).stdout ?? '').split('\n').filter(Boolean).length,
    cdclake: path.join(args.build, 'cdclake'), build_type: buildType(args.build),
    params: { sizes: args.sizes, batches: args.batches, batch: args.batch, late: args.late, duplicate: args.duplicate, seed: args.seed, engines: args.engines },
  };
}

const duckdbInstalled = () => fs.existsSync(path.join(REPO, 'tools', 'node_modules', '@duckdb', 'node-api'));

/** Why an engine cannot run here, or null when it can. */
function missing(engine, args) {
  if (engine.startsWith('cdclake')) {
    const cli = path.join(args.build, 'cdclake');
    if (!fs.existsSync(cli)) return `no ${cli}: build it first`;
    if (!fs.existsSync('/usr/bin/time')) return 'no /usr/bin/time (the Debian package time, in scripts/setup)';
    return null;
  }
  if (engine.startsWith('duckdb') && !duckdbInstalled()) return 'no @duckdb/node-api under tools/ (scripts/setup installs it)';
  if (engine === 'postgres') {
    if (!postgresBin()) return 'no PostgreSQL server under /usr/lib/postgresql (scripts/setup installs it)';
    if (!firstLine('psql', ['--version'])) return 'no psql (scripts/setup installs PostgreSQL)';
  }
  return null;
}

/**
 * Runs `node script args` with its stdout's JSON lines handed to `onLine` as they come (its
 * stderr passes through). Resolves to the exit code.
 */
function runNode(script, scriptArgs, onLine) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'bench', script), ...scriptArgs], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      rest += chunk;
      let nl;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl).trim();
        rest = rest.slice(nl + 1);
        if (line) onLine(line);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (rest.trim()) onLine(rest.trim());
      resolve(code);
    });
  });
}

const rm = (p) => fs.rmSync(p, { recursive: true, force: true });

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const root = args.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-bench-'));
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  const out = fs.openSync(args.out, 'w');
  const record = (o) => {
    const line = JSON.stringify(o);
    fs.writeSync(out, `${line}\n`);
    process.stdout.write(`${line}\n`);
  };
  const note = (msg) => process.stderr.write(`cdc_bench: ${msg}\n`);
  let failed = false;

  record(await machine(args));
  const runnable = [];
  for (const e of args.engines) {
    const why = missing(e, args);
    if (why) {
      note(`skipping ${e}: ${why}`);
      record({ record: 'skipped', engine: e, reason: why });
    } else runnable.push(e);
  }

  // The comparisons run in DuckDB: without it the tables cannot be checked.
  if (!duckdbInstalled()) note('no @duckdb/node-api under tools/: the final tables cannot be compared');
  const generator = path.join(args.build, 'bench', 'cdc_workload');
  if (!fs.existsSync(generator)) throw new Error(`no ${generator}: build the target cdc_workload first`);

  for (const keys of args.sizes) {
    const sizeDir = path.join(root, `k${keys}`);
    rm(sizeDir);
    const w = path.join(sizeDir, 'workload');
    fs.mkdirSync(sizeDir, { recursive: true });

    // ---- the workload
    note(`${keys} keys: generating ${args.batches} batches of ${args.batch} events`);
    const t0 = performance.now();
    const gen = run(generator, ['--out', w, '--keys', String(keys), '--batch', String(args.batch),
      '--batches', String(args.batches), '--late', String(args.late), '--duplicate', String(args.duplicate),
      '--seed', String(args.seed)]);
    const genMs = performance.now() - t0;
    if (gen.status !== 0) throw new Error(`cdc_workload failed:\n${gen.stderr}`);
    const wj = JSON.parse(fs.readFileSync(path.join(w, 'workload.json'), 'utf8'));
    const files = fs.readdirSync(w);
    const bytes = (re) => files.filter((f) => re.test(f)).reduce((a, f) => a + fs.statSync(path.join(w, f)).size, 0);
    record({
      record: 'workload', keys_initial: keys, ms: Math.round(genMs), generator_says: gen.stderr.trim(),
      load_csv_bytes: bytes(/^load\.csv$/), batch_csv_bytes: bytes(/^batch-\d+\.csv$/),
      debezium_bytes: bytes(/^batch-\d+\.json$/),
      ...Object.fromEntries(Object.entries(wj).filter(([k]) => k !== 'columns')),
    });

    // ---- the engines, one at a time; each final table compared as soon as it exists.
    const tables = new Map(); // engine -> compare SPEC of its final table
    const compare = async (left, right, label) => {
      let result = null;
      const code = await runNode('cdc_compare.mjs', ['--workload', w, '--left', left, '--right', right, '--label', label],
        (line) => {
          result = JSON.parse(line);
          record({ keys_initial: keys, ...result });
        });
      if (result) note(`  ${label}: ${result.differences} differences`);
      if (code !== 0) {
        failed = true;
        if (!result) record({ record: 'error', keys_initial: keys, compare: label, message: `cdc_compare exited ${code}` });
      }
      return code === 0 && result ? result.differences : null;
    };
    // Engines whose final table equals the expected one (0 differences); equal to each other too.
    const exact = new Set();
    for (const engine of runnable) {
      const dir = path.join(sizeDir, engine);
      const dump = path.join(sizeDir, `${engine}.csv`);
      let cmd;
      if (engine.startsWith('cdclake')) {
        const scd2 = HISTORY_ENGINES.has(engine);
        cmd = ['cdc_cdclake.mjs', ['--workload', w, '--engine', scd2 ? 'apply' : engine.slice('cdclake-'.length),
          ...(scd2 ? ['--scd', '2'] : []), '--cli', path.join(args.build, 'cdclake'), '--dir', dir,
          ...(args.batchRows ? ['--batch-rows', String(args.batchRows)] : [])]];
      } else if (engine === 'duckdb-memory') {
        // DuckDB's best case: the table in memory, nothing durable.
        cmd = ['cdc_peer_duckdb.mjs', ['--workload', w, '--mode', 'merge', '--dump', dump]];
      } else if (engine === 'duckdb-merge') {
        // A database file, not memory: durable like the other engines' tables, and a 50M-row
        // table would not fit in this machine's memory (about 460 MB per million rows).
        fs.mkdirSync(dir, { recursive: true });
        cmd = ['cdc_peer_duckdb.mjs', ['--workload', w, '--mode', 'merge', '--db', path.join(dir, 'merge.duckdb'),
          '--dump', dump]];
      } else if (engine === 'duckdb-lake') {
        fs.mkdirSync(dir, { recursive: true });
        cmd = ['cdc_peer_duckdb.mjs', ['--workload', w, '--mode', 'lake', '--lake', dir, '--db', path.join(dir, 'lake.duckdb'),
          '--dump', dump]];
      } else {
        cmd = ['cdc_peer_postgres.mjs', ['--workload', w, '--dump', dump]];
      }
      if (engine === 'duckdb-memory' && keys * DUCKDB_MEMORY_BYTES_PER_ROW > os.totalmem() / 2) {
        const reason = `${keys} keys would take about ${Math.round((keys * DUCKDB_MEMORY_BYTES_PER_ROW) / 2 ** 30)} GiB, more than half the memory`;
        note(`skipping ${engine}: ${reason}`);
        record({ record: 'skipped', engine, keys_initial: keys, reason });
        continue;
      }
      note(`${keys} keys: ${engine}`);
      let table = null;
      const t1 = performance.now();
      const code = await runNode(cmd[0], cmd[1], (line) => {
        let o;
        try {
          o = JSON.parse(line);
        } catch {
          process.stderr.write(`${engine}: ${line}\n`); // not a measurement
          return;
        }
        if (o.phase === 'final' && o.table) table = o.table;
        record({ keys_initial: keys, ...o, engine }); // the engine as this run names it (cdclake-apply-scd2 prints apply)
        if (o.phase && o.phase !== 'final') {
          note(`  ${engine} ${o.phase}${o.batch ? ` ${o.batch}` : ''}: ${o.events ?? o.rows} rows in ${Math.round(o.ms)} ms`);
        }
      });
      const ms = Math.round(performance.now() - t1);
      if (code !== 0) {
        failed = true;
        note(`${engine} exited ${code}`);
        record({ record: 'error', engine, keys_initial: keys, message: `exited ${code}`, ms });
      }
      record({ record: 'engine_done', engine, keys_initial: keys, exit_code: code, wall_ms: ms });
      const spec = engine.startsWith('cdclake') ? (table ? `delta:${table}` : null) : fs.existsSync(dump) ? `csv:${dump}` : null;
      if (!spec) continue;
      if (HISTORY_ENGINES.has(engine)) {
        note(`  ${engine}: a history table, not compared with the expected current table`);
        continue;
      }
      // Whatever the engine kept besides its final table is not needed any more.
      if (!engine.startsWith('cdclake') && !args.keep) rm(dir);
      tables.set(engine, spec);
      if ((await compare(spec, 'expected:', `${engine} vs expected`)) === 0) exact.add(engine);
      // Against cdclake-apply's table row for row only when one of the two is not the expected
      // table, to show where they part: otherwise they are equal, and at 50M rows the compare
      // needs about 17 GB of memory.
      const reference = tables.get('cdclake-apply');
      if (engine !== 'cdclake-apply' && reference && (exact.has('cdclake-apply') || fs.existsSync(reference.slice(reference.indexOf(':') + 1)))) {
        if (exact.has(engine) && exact.has('cdclake-apply')) {
          note(`  cdclake-apply vs ${engine}: both equal the expected table`);
          record({ keys_initial: keys, compare: `cdclake-apply vs ${engine}`, differences: 0, via: 'expected' });
        } else {
          await compare(reference, spec, `cdclake-apply vs ${engine}`);
        }
      }
      // Only a cdclake-apply table that differs from the expected one is compared again later;
      // every other table can go now (at 50M keys each cdclake table takes 12 GB of disk, and
      // the compares spill to disk too).
      const keepForLater = engine === 'cdclake-apply' && !exact.has(engine);
      if (!keepForLater && !args.keep) {
        if (engine.startsWith('cdclake')) rm(dir);
        else rm(dump);
      }
    }
    if (!args.keep) rm(sizeDir);
  }
  if (!args.keep) rm(root);
  fs.closeSync(out);
  if (failed) {
    note('a comparison found differences or an engine failed (see above and the results)');
    process.exitCode = 1;
  }
}

main().catch((e) => {
  process.stderr.write(`cdc_bench: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
