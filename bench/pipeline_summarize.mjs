// Turns the outputs of bench/pipeline_bench.sh into results: one JSON line per run, and markdown
// tables over repeated runs (each figure as min–max when runs differ).
//
//   node bench/pipeline_summarize.mjs throughput --label L --pipeline P --events N --batch-rows B
//        --log RUN.jsonl --time TIME.txt --warehouse DIR
//     `cdclake run --log-format json` batch lines and `/usr/bin/time -v` output: wall time,
//     events/s, CPU, peak RSS, per-flow batches and summed duration_ms, bytes under each table.
//   node bench/pipeline_summarize.mjs latency --label L --pipeline P --interval I --writer W.tsv
//        --warehouse DIR
//     For each file the writer renamed into place (name, rename ms, offset of its last line):
//     the first commit of each table whose cdclake.position has read past the file's last
//     line, minus the rename time. Commit times are commitInfo.timestamp from the Delta log.
//   node bench/pipeline_summarize.mjs table FILE.jsonl...
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

const TABLES = ['shop/bronze_orders', 'shop/orders', 'shop/orders_history'];

function options(argv) {
  const o = {};
  for (let i = 0; i + 1 < argv.length; i += 2) o[argv[i].replace(/^--/, '')] = argv[i + 1];
  return o;
}

/** Bytes under a folder: [all files, Parquet data files, _delta_log]. */
function folderBytes(dir) {
  let all = 0;
  let data = 0;
  let log = 0;
  const walk = (d, inLog) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        walk(p, inLog || e.name === '_delta_log');
      } else {
        const n = statSync(p).size;
        all += n;
        if (inLog) log += n;
        else if (e.name.startsWith('part-') && e.name.endsWith('.parquet')) data += n;
      }
    }
  };
  walk(dir, false);
  return { all, data, log };
}

/** The commits of a table, oldest first: version, timestamp, operation and parsed position. */
function commits(table) {
  const logDir = join(table, '_delta_log');
  const out = [];
  for (const name of readdirSync(logDir).filter((n) => /^\d{20}\.json$/.test(n)).sort()) {
    for (const line of readFileSync(join(logDir, name), 'utf8').split('\n')) {
      if (!line.includes('"commitInfo"')) continue;
      const info = JSON.parse(line).commitInfo;
      const text = info.operationParameters?.['cdclake.position'];
      out.push({
        version: Number(name.slice(0, 20)),
        timestamp: info.timestamp,
        operation: info.operation,
        position: text ? JSON.parse(text) : null,
      });
    }
  }
  return out;
}

/** The 1-minute load average now (the machine may be shared: a busy one stretches every figure). */
function load1() {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

function throughput(o) {
  const events = Number(o.events);
  const time = readFileSync(o.time, 'utf8');
  const field = (label) => {
    const line = time.split('\n').find((l) => l.trim().startsWith(label));
    return line ? line.slice(line.lastIndexOf(': ') + 2).trim() : null;
  };
  const elapsed = field('Elapsed (wall clock) time')
    .split(':')
    .reduce((acc, part) => acc * 60 + Number(part), 0);
  const flows = {};
  for (const line of readFileSync(o.log, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const r = JSON.parse(line);
    if (r.event !== 'batch') continue;
    const f = (flows[r.flow] ??= { batches: 0, duration_ms: 0, rows_read: 0, max_batch_ms: 0 });
    f.batches += 1;
    f.duration_ms += r.duration_ms;
    f.rows_read += r.rows_read;
    f.max_batch_ms = Math.max(f.max_batch_ms, r.duration_ms);
  }
  const bytes = {};
  for (const t of TABLES) {
    if (existsSync(join(o.warehouse, t))) bytes[t] = folderBytes(join(o.warehouse, t));
  }
  return {
    kind: 'throughput',
    label: o.label,
    pipeline: o.pipeline ?? 'pipeline_orders',
    load1: load1(),
    events,
    batch_rows: o['batch-rows'],
    wall_s: elapsed,
    events_per_s: Math.round(events / elapsed),
    user_s: Number(field('User time')),
    sys_s: Number(field('System time')),
    max_rss_mb: Math.round(Number(field('Maximum resident set size')) / 1024),
    flows,
    bytes,
  };
}

function latency(o) {
  const landed = readFileSync(o.writer, 'utf8')
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => {
      const [name, renamed, lastLine] = l.split('\t');
      return { name, renamed: Number(renamed), lastLine: Number(lastLine) };
    });
  const result = {
    kind: 'latency',
    label: o.label,
    pipeline: o.pipeline ?? 'pipeline_orders',
    load1: load1(),
    interval: o.interval,
    files: landed.length,
    tables: {},
  };
  for (const t of TABLES) {
    if (!existsSync(join(o.warehouse, t, '_delta_log'))) continue;  // a pipeline without it
    const list = commits(join(o.warehouse, t)).filter((c) => c.position?.last_row);
    const latencies = [];
    let missing = 0;
    let c = 0;
    for (const f of landed) {
      // Commits and files both advance in name order, so one forward scan pairs them.
      const past = (x) => {
        const file = basename(x.position.last_row.file);
        return file > f.name || (file === f.name && x.position.last_row.offset >= f.lastLine);
      };
      while (c < list.length && !past(list[c])) c++;
      if (c === list.length) {
        missing++;
        continue;
      }
      latencies.push(list[c].timestamp - f.renamed);
    }
    // Latency drifts as the tables grow: the first and the last third of the files on their own.
    const third = Math.floor(latencies.length / 3);
    const firstThird = latencies.slice(0, third).sort((a, b) => a - b);
    const lastThird = latencies.slice(latencies.length - third).sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);
    result.tables[t] = {
      commits: list.length,
      missing,
      p50_ms: quantile(latencies, 0.5),
      p99_ms: quantile(latencies, 0.99),
      max_ms: latencies.length ? latencies[latencies.length - 1] : null,
      min_ms: latencies.length ? latencies[0] : null,
      p99_first_third_ms: quantile(firstThird, 0.99),
      p99_last_third_ms: quantile(lastThird, 0.99),
    };
  }
  if (landed.length > 1) {
    const span = (landed[landed.length - 1].renamed - landed[0].renamed) / 1000;
    result.writer_files_per_s = Math.round(((landed.length - 1) / span) * 10) / 10;
  }
  return result;
}

/** "a" when all values are equal, else "min–max". */
function range(values, digits = 0) {
  const v = values.filter((x) => x !== null && x !== undefined && !Number.isNaN(x));
  if (v.length === 0) return '-';
  const fmt = (x) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
}

function groupBy(rows, key) {
  const m = new Map();
  for (const r of rows) {
    const k = key(r);
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(r);
  }
  return m;
}

function table(files) {
  const rows = files
    .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const mb = (x) => x / 1e6;
  const thr = rows.filter((r) => r.kind === 'throughput');
  if (thr.length) {
    console.log('\n| pipeline | events | --batch-rows | runs | wall s | events/s | CPU s (user+sys) | peak RSS MB |' +
      ' bronze s | SCD1 s | SCD2 s | batches (bronze/SCD1/SCD2) |');
    console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const [, g] of groupBy(thr, (r) => `${r.pipeline}|${r.events}|${r.batch_rows}`)) {
      const flow = (r, name) => r.flows[name] ?? { duration_ms: NaN, batches: NaN };
      const names = ['shop.bronze_orders', 'orders_current', 'orders_history'];
      console.log(`| ${g[0].pipeline} | ${g[0].events.toLocaleString('en-US')} | ${g[0].batch_rows} | ${g.length} | ` +
        `${range(g.map((r) => r.wall_s), 1)} | ${range(g.map((r) => r.events_per_s))} | ` +
        `${range(g.map((r) => r.user_s + r.sys_s), 1)} | ${range(g.map((r) => r.max_rss_mb))} | ` +
        names.map((n) => range(g.map((r) => flow(r, n).duration_ms / 1000), 1)).join(' | ') + ' | ' +
        names.map((n) => range(g.map((r) => flow(r, n).batches))).join(' / ') + ' |');
    }
    console.log('\n| events | --batch-rows | table | data files MB | _delta_log MB | all MB (with key index) |');
    console.log('|---:|---|---|---:|---:|---:|');
    for (const [, g] of groupBy(thr, (r) => `${r.pipeline}|${r.events}|${r.batch_rows}`)) {
      for (const t of TABLES.filter((x) => g[0].bytes[x])) {
        console.log(`| ${g[0].events.toLocaleString('en-US')} | ${g[0].batch_rows} | ${t} | ` +
          `${range(g.map((r) => mb(r.bytes[t].data)), 1)} | ${range(g.map((r) => mb(r.bytes[t].log)), 2)} | ` +
          `${range(g.map((r) => mb(r.bytes[t].all)), 1)} |`);
      }
    }
  }
  const lat = rows.filter((r) => r.kind === 'latency');
  if (lat.length) {
    console.log('\n| pipeline | --interval | runs | files (rate/s) | table | commits | p50 ms | p99 ms | max ms |' +
      ' p99 first / last third | not landed |');
    console.log('|---|---|---:|---|---|---:|---:|---:|---:|---|---:|');
    for (const [, g] of groupBy(lat, (r) => `${r.pipeline}|${r.interval}`)) {
      for (const t of TABLES.filter((x) => g[0].tables[x])) {
        const s = g.map((r) => r.tables[t]);
        console.log(`| ${g[0].pipeline} | ${g[0].interval} | ${g.length} | ${range(g.map((r) => r.files))} ` +
          `(${range(g.map((r) => r.writer_files_per_s), 1)}) | ${t} | ${range(s.map((x) => x.commits))} | ` +
          `${range(s.map((x) => x.p50_ms))} | ${range(s.map((x) => x.p99_ms))} | ` +
          `${range(s.map((x) => x.max_ms))} | ${range(s.map((x) => x.p99_first_third_ms))} / ` +
          `${range(s.map((x) => x.p99_last_third_ms))} | ${range(s.map((x) => x.missing))} |`);
      }
    }
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'throughput') console.log(JSON.stringify(throughput(options(rest))));
else if (mode === 'latency') console.log(JSON.stringify(latency(options(rest))));
else if (mode === 'table') table(rest);
else {
  console.error('usage: node bench/pipeline_summarize.mjs throughput|latency|table ...');
  process.exit(2);
}
