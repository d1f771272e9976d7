// Turns the results of bench/cdc_bench.mjs into docs/benchmarks.md and its chart.
//
//   node bench/cdc_report.mjs RESULTS.jsonl --md docs/benchmarks.md --svg docs/benchmarks.svg
//
// Every figure comes from RESULTS.jsonl: the machine and workload records, the engines' JSON
// lines (phase load, batch, replay, final) and the comparisons. Per engine and size:
//   events/s          the batches' events over the batches' summed wall time
//   p50 / p99         nearest-rank percentiles of the per-batch wall times
//   peak RSS          the largest peak_rss_mb of the batch and replay lines
//   bytes / changed row  bytes written by the batches (the final line's batches_bytes_written
//                     when the engine reports one, as PostgreSQL does for the pages its batches
//                     left dirty, else the sum of the batch lines) over the rows they changed
// The chart (SVG written here, no library) plots the per-batch p50 against the table size, both
// on log scales, one line per engine.
import fs from 'node:fs';
import path from 'node:path';

const USAGE = 'usage: cdc_report.mjs RESULTS.jsonl --md FILE --svg FILE';
const ORDER = ['cdclake-apply', 'cdclake-apply-scd2', 'cdclake-run', 'duckdb-memory', 'duckdb-merge', 'duckdb-lake', 'postgres'];
const COLORS = {
  'cdclake-apply': '#1f77b4', 'cdclake-apply-scd2': '#9467bd', 'cdclake-run': '#17becf', 'duckdb-memory': '#bcbd22', 'duckdb-merge': '#ff7f0e',
  'duckdb-lake': '#d62728',
  postgres: '#2ca02c',
};
// Goals of issue 14 (the apply engine's speed). "Flat": the p50 at the largest size may be at
// most FLAT_LIMIT times the p50 at the smallest.
const EPS_GOAL_SMALL = 300000;
const EPS_GOAL_LARGE = 250000;
const FLAT_LIMIT = 1.5;
const SCD2_LIMIT = 1.5;
const RSS_GOAL_MB = 1000;

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--md') args.md = argv[++i];
    else if (argv[i] === '--svg') args.svg = argv[++i];
    else if (!args.results && !argv[i].startsWith('--')) args.results = argv[i];
    else throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
  }
  if (!args.results || !args.md || !args.svg) throw new Error(USAGE);
  return args;
}

// ---- numbers

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
/** Nearest-rank percentile (p in (0, 100]) of `xs`. */
function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)];
}
const int = (n) => (n === null || n === undefined || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'));
function fixed(n, digits = 1) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
/** A duration in ms, to three significant digits at most. */
function msText(n) {
  if (n === null || n === undefined) return '–';
  if (n >= 100) return int(n);
  return n >= 10 ? fixed(n, 1) : fixed(n, 2);
}
function sizeText(k) {
  if (k >= 1e6 && k % 1e5 === 0) return `${k / 1e6}M`;
  if (k >= 1e3 && k % 100 === 0) return `${k / 1e3}k`;
  return String(k);
}
const bytesText = (b) => (b >= 1e9 ? `${fixed(b / 1e9, 2)} GB` : b >= 1e6 ? `${fixed(b / 1e6, 1)} MB` : `${fixed(b / 1e3, 1)} kB`);

// ---- results

/** Figures of one engine at one size, from its lines. */
function engineFigures(lines) {
  const batches = lines.filter((l) => l.phase === 'batch');
  if (batches.length === 0) return null;
  const load = lines.find((l) => l.phase === 'load');
  const replay = lines.find((l) => l.phase === 'replay');
  const final = lines.find((l) => l.phase === 'final');
  const ms = batches.map((b) => b.ms);
  const events = sum(batches.map((b) => b.events));
  const changed = sum(batches.map((b) => b.changed_rows ?? 0));
  const written = final && typeof final.batches_bytes_written === 'number'
    ? final.batches_bytes_written : sum(batches.map((b) => b.bytes_written ?? 0));
  const rss = [...batches, replay].filter(Boolean).map((l) => l.peak_rss_mb).filter((x) => typeof x === 'number');
  return {
    batches: batches.length, events, ms_total: sum(ms), eps: events / (sum(ms) / 1000),
    p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms), last_ms: ms.at(-1), changed, written,
    bytes_per_row: changed > 0 ? written / changed : null, peak_rss: rss.length ? Math.max(...rss) : null,
    load_ms: load?.ms ?? null, load_rss: load?.peak_rss_mb ?? null, replay_ms: replay?.ms ?? null,
    replay_changed: replay?.changed_rows ?? null, replay_versions: replay?.versions_written,
    replay_written: replay?.bytes_written ?? null, final,
  };
}

function load(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const machine = lines.find((l) => l.record === 'machine') ?? {};
  const workloads = lines.filter((l) => l.record === 'workload');
  const sizes = [...new Set(workloads.map((w) => w.keys_initial))].sort((a, b) => a - b);
  const engines = new Map(); // engine -> Map(size -> figures)
  for (const l of lines) {
    if (!l.engine || !l.phase) continue;
    if (!engines.has(l.engine)) engines.set(l.engine, new Map());
    const bySize = engines.get(l.engine);
    if (!bySize.has(l.keys_initial)) bySize.set(l.keys_initial, []);
    bySize.get(l.keys_initial).push(l);
  }
  const figures = new Map();
  for (const [e, bySize] of engines) {
    const m = new Map();
    for (const [k, ls] of bySize) {
      const f = engineFigures(ls);
      if (f) m.set(k, f);
    }
    figures.set(e, m);
  }
  const names = [...figures.keys()].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
  return {
    machine, workloads, sizes, figures, names,
    compares: lines.filter((l) => l.compare),
    skipped: lines.filter((l) => l.record === 'skipped'),
    errors: lines.filter((l) => l.record === 'error'),
  };
}

// ---- the chart

/** Tick values 1, 2, 5 × 10^n inside [lo, hi] (powers of ten only when there are many). */
function logTicks(lo, hi) {
  const ticks = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); ++e) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks.length > 8 ? ticks.filter((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9) : ticks;
}
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
function msTick(v) {
  if (v >= 1000) return `${v / 1000} s`;
  return `${v} ms`;
}

function chart(r) {
  const W = 760;
  const H = 440;
  const m = { left: 78, right: 190, top: 48, bottom: 62 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const series = r.names.map((e) => ({
    engine: e,
    points: r.sizes.filter((k) => r.figures.get(e).has(k)).map((k) => [k, r.figures.get(e).get(k).p50]),
  })).filter((s) => s.points.length > 0);
  const xs = r.sizes.length ? r.sizes : [1];
  const ys = series.flatMap((s) => s.points.map((p) => p[1])).filter((y) => y > 0);
  // Log ranges padded to whole 1-2-5 steps; a single size gets a decade around it.
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  if (x0 === x1) [x0, x1] = [x0 / 3, x1 * 3];
  else [x0, x1] = [x0 / 1.5, x1 * 1.5];
  let [y0, y1] = ys.length ? [Math.min(...ys), Math.max(...ys)] : [1, 10];
  y0 = 10 ** Math.floor(Math.log10(y0));
  y1 = 10 ** Math.ceil(Math.log10(y1 * 1.05));
  const X = (v) => m.left + ((Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * pw;
  const Y = (v) => m.top + ph - ((Math.log10(v) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * ph;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`);
  const batch = r.workloads[0]?.batch_events;
  out.push(`<text x="${m.left}" y="22" font-size="15" font-weight="bold">Per-batch time (p50) against table size</text>`);
  out.push(`<text x="${m.left}" y="38" fill="#555">${esc(`batches of ${batch ? int(batch) : '?'} change events; both axes logarithmic`)}</text>`);
  // Grid and ticks.
  for (const v of logTicks(y0, y1)) {
    const y = Y(v).toFixed(1);
    out.push(`<line x1="${m.left}" y1="${y}" x2="${m.left + pw}" y2="${y}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${m.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${esc(msTick(v))}</text>`);
  }
  for (const v of xs) {
    const x = X(v).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.top}" x2="${x}" y2="${m.top + ph}" stroke="#e3e3e3"/>`);
    out.push(`<line x1="${x}" y1="${m.top + ph}" x2="${x}" y2="${m.top + ph + 5}" stroke="#333"/>`);
    out.push(`<text x="${x}" y="${m.top + ph + 19}" text-anchor="middle">${esc(sizeText(v))}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${H - 18}" text-anchor="middle">table size (keys in the initial table)</text>`);
  out.push(`<text transform="translate(18 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">per-batch wall time, p50</text>`);
  // Series.
  for (const s of series) {
    const c = COLORS[s.engine] ?? '#777';
    const pts = s.points.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
    if (s.points.length > 1) out.push(`<polyline points="${pts}" fill="none" stroke="${c}" stroke-width="2"/>`);
    for (const [x, y] of s.points) {
      out.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="4" fill="${c}"><title>${esc(`${s.engine}, ${sizeText(x)} keys: ${msText(y)} ms`)}</title></circle>`);
    }
  }
  // Legend.
  series.forEach((s, i) => {
    const c = COLORS[s.engine] ?? '#777';
    const y = m.top + 10 + i * 22;
    const x = m.left + pw + 18;
    out.push(`<line x1="${x}" y1="${y}" x2="${x + 24}" y2="${y}" stroke="${c}" stroke-width="2"/>`);
    out.push(`<circle cx="${x + 12}" cy="${y}" r="4" fill="${c}"/>`);
    out.push(`<text x="${x + 32}" y="${y}" dominant-baseline="middle">${esc(s.engine)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

// ---- the page

function compareText(r, size, engine) {
  const own = r.compares.find((c) => c.keys_initial === size && c.compare === `${engine} vs expected`);
  const ref = r.compares.find((c) => c.keys_initial === size && c.compare === `cdclake-apply vs ${engine}`);
  // A comparison that could not finish (an error record, no count) is not a difference.
  const verdict = (c, same) => {
    if (!c) return 'not compared';
    if (typeof c.differences !== 'number') return '**comparison failed** (see the errors below)';
    return c.differences === 0 ? same : `**${int(c.differences)} differences**`;
  };
  const one = (c) => verdict(c, c ? `same (${int(c.left_rows)} rows)` : '');
  return engine === 'cdclake-apply' ? one(own) : `${one(own)}; vs cdclake-apply: ${verdict(ref, 'same')}`;
}

function goals(r) {
  const f = (e, k) => r.figures.get(e)?.get(k);
  const rows = [];
  const sizes = r.sizes.filter((k) => f('cdclake-apply', k));
  const verdict = (ok, measured) => (!measured ? 'not measured' : ok ? 'met' : 'missed');
  const apply = (k) => f('cdclake-apply', k);
  // Events/s against each peer, at every size both ran (or only `at`).
  for (const [peer, factor, at] of [['postgres', 2], ['duckdb-memory', 1.5], ['duckdb-lake', 10, 10000000]]) {
    const both = sizes.filter((k) => f(peer, k) && (!at || k === at));
    const parts = both.map((k) => `${sizeText(k)}: ×${fixed(apply(k).eps / f(peer, k).eps, 2)}`);
    const ok = both.every((k) => apply(k).eps / f(peer, k).eps >= factor);
    rows.push([`cdclake-apply events/s ≥ ${factor}× ${peer}${at ? ` at ${sizeText(at)}` : ''}`, parts.join('; ') || '–', verdict(ok, both.length > 0)]);
  }
  {
    const both = sizes.filter((k) => f('cdclake-run', k));
    const parts = both.map((k) => `${sizeText(k)}: ×${fixed(f('cdclake-run', k).eps / apply(k).eps, 2)}`);
    const ok = both.every((k) => f('cdclake-run', k).eps >= 0.9 * apply(k).eps);
    rows.push(['cdclake-run within 10% of cdclake-apply (events/s ratio)', parts.join('; ') || '–', verdict(ok, both.length > 0)]);
  }
  {
    const measured = sizes.length >= 2;
    let text = sizes.length === 1 ? `one size only (${sizeText(sizes[0])})` : '–';
    let ok = false;
    if (measured) {
      const [a, b] = [apply(sizes[0]), apply(sizes.at(-1))];
      ok = b.p50 / a.p50 <= FLAT_LIMIT;
      text = `p50 ${msText(a.p50)} ms at ${sizeText(sizes[0])}, ${msText(b.p50)} ms at ${sizeText(sizes.at(-1))}: ×${fixed(b.p50 / a.p50, 2)}`;
    }
    rows.push([`per-batch p50 at the largest size ≤ ${FLAT_LIMIT}× the smallest`, text, verdict(ok, measured)]);
  }
  for (const [peer, factor] of [['duckdb-memory', 1], ['postgres', 5]]) {
    const both = sizes.filter((k) => f(peer, k)?.load_ms && apply(k).load_ms);
    const parts = both.map((k) => `${sizeText(k)}: ${msText(apply(k).load_ms)} against ${msText(f(peer, k).load_ms)} ms (×${fixed(f(peer, k).load_ms / apply(k).load_ms, 2)})`);
    const ok = both.every((k) => f(peer, k).load_ms / apply(k).load_ms >= factor);
    rows.push([`load ${factor === 1 ? 'at least as fast as' : `≥ ${factor}× as fast as`} ${peer}'s`, parts.join('; ') || '–', verdict(ok, both.length > 0)]);
  }
  {
    const with_ = sizes.filter((k) => apply(k).replay_ms != null);
    const parts = with_.map((k) => `${sizeText(k)}: ${msText(apply(k).replay_ms)} ms, ${fixed((100 * apply(k).replay_ms) / apply(k).last_ms, 0)}% of the last batch`);
    const ok = with_.every((k) => apply(k).replay_ms <= 0.2 * apply(k).last_ms);
    rows.push(['replay of the last batch ≤ 20% of its time', parts.join('; ') || '–', verdict(ok, with_.length > 0)]);
  }
  {
    const goal = (k) => (k <= 1000000 ? EPS_GOAL_SMALL : EPS_GOAL_LARGE);
    const parts = sizes.map((k) => `${sizeText(k)}: ${int(apply(k).eps)} (goal ${int(goal(k))})`);
    const ok = sizes.every((k) => apply(k).eps >= goal(k));
    rows.push([`cdclake-apply ≥ ${int(EPS_GOAL_SMALL)} events/s at 1M, ≥ ${int(EPS_GOAL_LARGE)} above`, parts.join('; ') || '–', verdict(ok, sizes.length > 0)]);
  }
  {
    const parts = sizes.map((k) => `${sizeText(k)}: ${int(apply(k).peak_rss)} MB (load ${int(apply(k).load_rss)} MB)`);
    const ok = sizes.every((k) => apply(k).peak_rss <= RSS_GOAL_MB);
    rows.push([`cdclake-apply batch peak RSS ≤ ${int(RSS_GOAL_MB)} MB`, parts.join('; ') || '–', verdict(ok, sizes.length > 0)]);
  }
  {
    // The same workload applied as history (cdclake-apply-scd2) against the current state.
    const both = sizes.filter((k) => f('cdclake-apply-scd2', k));
    const parts = both.map((k) => `${sizeText(k)}: p50 ${msText(f('cdclake-apply-scd2', k).p50)} against ${msText(apply(k).p50)} ms (×${fixed(f('cdclake-apply-scd2', k).p50 / apply(k).p50, 2)})`);
    const ok = both.every((k) => f('cdclake-apply-scd2', k).p50 <= SCD2_LIMIT * apply(k).p50);
    rows.push([`SCD2 batch ≤ ${SCD2_LIMIT}× the SCD1 batch (p50)`, parts.join('; ') || '–', verdict(ok, both.length > 0)]);
  }
  return rows;
}

function page(r, svgName, resultsName) {
  const mc = r.machine;
  const L = [];
  L.push('# Benchmarks: applying change streams, side by side with DuckDB and PostgreSQL', '');
  L.push(`Generated by \`bench/cdc_report.mjs\` from \`${resultsName}\` (written by \`bench/cdc_bench.mjs\`, run by`);
  L.push('`make bench` or `make bench-full`); do not edit by hand. Every figure below was measured in that run.', '');

  L.push('## Setup', '');
  L.push('| | |', '|---|---|');
  L.push(`| run | ${esc(mc.date ?? '–')} |`);
  L.push(`| machine | ${mc.nproc ?? '–'} cores (${esc(mc.cpu_model ?? '?')}), ${mc.ram_bytes ? fixed(mc.ram_bytes / 2 ** 30, 1) : '–'} GiB RAM, ${esc(mc.kernel ?? '?')} |`);
  L.push(`| cdclake | commit \`${(mc.git_commit ?? '?').slice(0, 12)}\`${mc.git_changed ? ` with ${mc.git_changed} files changed in the working tree` : ''}, ${esc(mc.build_type ?? 'unknown')} build |`);
  L.push(`| DuckDB | ${esc(mc.duckdb ?? 'not installed')} (\`@duckdb/node-api\`) |`);
  L.push(`| PostgreSQL | ${esc(mc.postgres ?? 'not installed')} |`);
  L.push(`| Node.js | ${esc(mc.node ?? '–')} |`, '');
  for (const s of r.skipped) L.push(`- ${s.engine} was skipped${s.keys_initial ? ` at ${sizeText(s.keys_initial)}` : ''}: ${esc(s.reason)}`);
  if (r.skipped.length) L.push('');

  L.push('### Workload', '');
  L.push('`bench/cdc_workload` writes one deterministic workload per table size: a 12-column `orders`');
  L.push('table (integers, decimals, strings, timestamps) loaded from CSV, then batches of change events, each');
  L.push('batch once as CSV (what the peers read) and once as Debezium PostgreSQL-connector JSON (what cdclake');
  L.push('reads). Updates and deletes pick existing keys with Zipf skew; late events arrive in the next batch;');
  L.push('duplicates arrive twice. The correct final table (each key\'s highest-LSN event, deleted keys absent)');
  L.push('is computed from the workload by `bench/cdc_compare.mjs`, and every engine\'s final table is compared');
  L.push('with it row for row; two tables that both equal it equal each other, and are compared with each');
  L.push('other directly only when one of them does not (to show where they part).', '');
  L.push('| keys | batches × events | mix update/insert/delete | late | duplicate | Zipf | seed | load.csv | batch CSV | batch Debezium | generated in |');
  L.push('|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const w of r.workloads) {
    const mix = w.mix ? `${w.mix.update}/${w.mix.insert}/${w.mix.delete}` : '–';
    const ev = w.batch_files ? sum(w.batch_files.map((b) => b.events)) : null;
    L.push(`| ${sizeText(w.keys_initial)} | ${w.batches} × ${int(w.batch_events)} (${int(ev)} delivered) | ${mix} | ${w.late} | ${w.duplicate} | ${w.zipf} | ${w.seed} | ${bytesText(w.load_csv_bytes)} | ${bytesText(w.batch_csv_bytes)} | ${bytesText(w.debezium_bytes)} | ${fixed(w.ms / 1000, 1)} s |`);
  }
  L.push('');

  L.push('### Engines', '');
  L.push('Engines run one at a time on the same workload. Each applies the load, then every batch, then the last');
  L.push('batch again (the replay, which must change nothing). cdclake-apply names the same file again, which the');
  L.push('flow has applied whole with the same bytes (its ledger holds the digest), so it is left out unread;');
  L.push('cdclake-run sees the same bytes under a new name in its stream, which it reads and discards event by event.', '');
  L.push('| engine | how it applies a batch | what is timed | what it keeps durable |', '|---|---|---|---|');
  L.push('| cdclake-apply | `cdclake apply --format debezium` of the batch\'s Debezium file into an SCD1 Delta table (keys `id`, sequence the connector\'s commit LSN and LSN, deletes on `op = d`); one process per batch, as a scheduled job runs it | the whole process: start, decode, apply, commit, exit | the Delta table (Parquet data files, deletion vectors, log) and the key index (RocksDB) with its index log; bytes are the files new or grown under the table folder |');
  L.push('| cdclake-run | `cdclake run --once` of `bench/cdc_pipeline.sql`: one AUTO CDC flow reading the landing folder\'s Debezium files into the same kind of table (the load by an AUTO CDC ONCE flow); the next batch file is linked into the folder before each run | the whole process | as cdclake-apply, plus the pipeline\'s event log table |');
  L.push('| duckdb-memory | as duckdb-merge, into an in-memory DuckDB table: DuckDB\'s best case, run only where the table fits in half the memory | the statements, inside the process | nothing: the table lives in memory |');
  L.push('| duckdb-merge | the batch CSV read into a staging table, newest change per key (ROW_NUMBER), one MERGE with the sequence guard and soft deletes into a table in a DuckDB database file (not in memory: a 50M-row table would not fit in this machine\'s RAM), in one long-running process | the statements, inside the process | the database file; bytes are what the process wrote to storage (/proc/self/io) |');
  L.push('| duckdb-lake | as duckdb-merge, then the whole table copied to a new Parquet file (a lake table rewritten on every MERGE) | the statements and the Parquet copy | the database file and one Parquet file per batch, replacing the last; bytes are what the process wrote to storage |');
  L.push('| postgres | psql session per batch: COPY into an unlogged staging table, DISTINCT ON dedupe, INSERT … ON CONFLICT DO UPDATE … WHERE newer, soft deletes, one transaction | inside the session, BEGIN to COMMIT (not the psql start) | the table and its WAL (fsync on); bytes are WAL plus data pages written, those the batches left dirty included |');
  L.push('');
  const ratios = r.workloads.filter((w) => w.batch_csv_bytes > 0).map((w) => w.debezium_bytes / w.batch_csv_bytes);
  const ratio = ratios.length ? ` (${fixed(Math.min(...ratios), 1)}× here)` : '';
  L.push(`cdclake reads the Debezium JSON files, more bytes than the CSV files the peers read${ratio}, and is timed`);
  L.push('as a whole process per batch; the peers are timed inside a process that is already running.', '');

  L.push('## Results', '');
  L.push('events/s: a size\'s batch events over the batches\' summed wall time. p50 / p99: nearest-rank over the');
  L.push('per-batch wall times (with few batches p99 is the slowest batch). Peak RSS: the largest over the batches');
  L.push('and the replay (cdclake: the process; DuckDB: the Node process since the load; PostgreSQL: the session\'s');
  L.push('backend). Bytes per changed row: what the batches wrote over the target rows they inserted, updated or');
  L.push('deleted. The load (the initial table) is measured apart, with its own peak RSS.', '');
  for (const k of r.sizes) {
    L.push(`### ${sizeText(k)} keys`, '');
    L.push('| engine | events/s | batch p50 ms | batch p99 ms | peak RSS MB | bytes / changed row | load ms (peak RSS MB) | replay ms | final table |');
    L.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const e of r.names) {
      const f = r.figures.get(e).get(k);
      if (!f) continue;
      L.push(`| ${e} | ${int(f.eps)} | ${msText(f.p50)} | ${msText(f.p99)} | ${int(f.peak_rss)} | ${f.bytes_per_row === null ? '–' : int(f.bytes_per_row)} | ${msText(f.load_ms)} (${int(f.load_rss)}) | ${msText(f.replay_ms)}${f.replay_changed ? ` (changed ${int(f.replay_changed)} rows!)` : ''} | ${compareText(r, k, e)} |`);
    }
    L.push('');
  }
  for (const e of r.errors) L.push(`- **error**: ${esc(e.engine ?? e.compare ?? '?')} at ${sizeText(e.keys_initial)} keys: ${esc(e.message)}`);
  if (r.errors.length) L.push('');

  L.push('## Per-batch cost against table size', '');
  L.push(`![per-batch p50 against table size](${svgName})`, '');
  L.push(`| engine | ${r.sizes.map(sizeText).join(' | ')} |`);
  L.push(`|---|${r.sizes.map(() => '---:').join('|')}|`);
  for (const e of r.names) {
    L.push(`| ${e} | ${r.sizes.map((k) => (r.figures.get(e).get(k) ? `${msText(r.figures.get(e).get(k).p50)} ms` : '–')).join(' | ')} |`);
  }
  L.push('');

  L.push('## Goals of issue 14', '');
  L.push('Reported, never asserted in tests. Ratios are cdclake-apply\'s figure over the peer\'s at the same size');
  L.push('(for the load, the peer\'s time over cdclake-apply\'s).', '');
  L.push('| goal | measured | |', '|---|---|---|');
  for (const [g, m, v] of goals(r)) L.push(`| ${g} | ${m} | ${v} |`);
  L.push('');
  return `${L.join('\n')}`;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const r = load(args.results);
  if (r.sizes.length === 0) throw new Error(`${args.results} holds no workload record`);
  fs.mkdirSync(path.dirname(path.resolve(args.svg)), { recursive: true });
  fs.writeFileSync(args.svg, chart(r));
  const svgRel = path.relative(path.dirname(path.resolve(args.md)), path.resolve(args.svg));
  // The sources' benchmarks (their own scripts, run by hand) are kept beside the page, written
  // by people, and carried into it on every run.
  const sources = path.join(path.dirname(path.resolve(args.md)), 'benchmarks-sources.md');
  const kept = fs.existsSync(sources) ? `\n${fs.readFileSync(sources, 'utf8')}` : '';
  fs.writeFileSync(args.md, page(r, svgRel, path.basename(args.results)) + kept);
}

try {
  main();
} catch (e) {
  process.stderr.write(`cdc_report: ${e.stack ?? e.message}\n`);
  process.exit(1);
}
