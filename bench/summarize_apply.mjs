// Prints the apply benchmark (bench/apply_bench.cc, bench/duckdb_apply_bench.mjs,
// bench/postgres_apply_bench.mjs) as a markdown
// table: one row per table size, engine and variant, with the per-batch latency, throughput,
// the no-op replay of the last batch and the peak RSS (of the load, and of the batches after it,
// where the peak could be reset in between); then each run's cross-check.
//
//   node bench/summarize_apply.mjs FILE.jsonl...
import { readFileSync } from 'node:fs';

const lines = process.argv
  .slice(2)
  .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
  .filter((l) => l.trim().startsWith('{'))
  .map((l) => JSON.parse(l));

/** The run a line belongs to: its size, engine and variant, and the variant's place in the table. */
function variant(r) {
  if (r.engine === 'duckdb') {
    const how = r.mode === 'lake' ? 'MERGE + whole-table Parquet rewrite' : 'MERGE, in-memory table';
    return { name: `${how} (${r.threads} threads)`, rank: r.mode === 'lake' ? 11 : 10 };
  }
  if (r.engine === 'postgres') {
    const commit = r.synchronous_commit === 'off' ? ', synchronous_commit off' : '';
    return { name: `INSERT ... ON CONFLICT, fsync on${commit} (1 backend)`, rank: r.synchronous_commit === 'off' ? 13 : 12 };
  }
  const source = r.source ?? 'memory';
  return { name: `SCD${r.scd}, ${source} source (1 thread)`, rank: r.scd * 3 + ['memory', 'csv', 'jsonl'].indexOf(source) };
}

const runs = new Map();
for (const r of lines) {
  if (!r.engine || !r.phase) continue;
  const { name, rank } = variant(r);
  const key = `${r.rows}\u0000${r.engine}\u0000${name}`;
  if (!runs.has(key)) runs.set(key, { rows: r.rows, engine: r.engine, variant: name, rank, batches: [] });
  const run = runs.get(key);
  if (r.phase === 'batch') run.batches.push(r);
  else run[r.phase] = r;
}

/** The nearest-rank percentile `p` (0..100) of `values`. */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fixed = (x, digits = 0) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));
/** The load's peak RSS and the batches' (or the whole run's, where it could not be reset). */
const peaks = (m) =>
  !m ? '-' : m.since_load ? `${fixed(m.load_peak_rss_mb)} / ${fixed(m.peak_rss_mb)}` : `${fixed(m.peak_rss_mb)} (whole run)`;
const thousands = (x) => (x === undefined || Number.isNaN(x) ? '-' : Math.round(x).toLocaleString('en-US'));

console.log('| rows in table | engine | variant | load s | batch ms p50 | batch ms p99 | batch ms mean | events/s | no-op replay ms | peak RSS MB: load / batches |');
console.log('|---:|---|---|---:|---:|---:|---:|---:|---:|---:|');
const ordered = [...runs.values()].sort(
  (a, b) => a.rows - b.rows || a.rank - b.rank,
);
for (const run of ordered) {
  const times = run.batches.map((b) => b.ms);
  const events = run.batches.reduce((n, b) => n + b.events, 0);
  const seconds = times.reduce((s, t) => s + t, 0) / 1000;
  const mean = times.length ? (seconds * 1000) / times.length : NaN;
  console.log(
    `| ${thousands(run.rows)} | ${run.engine} | ${run.variant} | ${fixed(run.load?.seconds, 2)} | ` +
      `${fixed(times.length ? percentile(times, 50) : NaN)} | ${fixed(times.length ? percentile(times, 99) : NaN)} | ` +
      `${fixed(mean)} | ${thousands(events / seconds)} | ${fixed(run.noop?.ms, 1)} | ${peaks(run.memory)} |`,
  );
}

const notes = [];
for (const run of ordered) {
  if (run.noop && (run.noop.changed > 0 || run.noop.applied > 0 || run.noop.version_written)) {
    notes.push(`- ${run.engine} ${run.variant}: the no-op replay CHANGED the table`);
  }
  const w = run.writes;
  if (w) {
    notes.push(
      `- ${thousands(run.rows)} rows, ${run.engine} ${run.variant}: batches wrote ${fixed(w.written_mb)} MB ` +
        `(WAL ${fixed(w.wal_mb)} MB + data pages ${fixed(w.data_pages_mb)} MB, ${fixed(w.bytes_per_event)} bytes/event); ` +
        `the no-op replay ${fixed(run.noop?.written_mb, 1)} MB`,
    );
  }
  const c = run.check;
  if (c) {
    const peer = run.engine === 'postgres' ? { name: 'PostgreSQL', rows: c.postgres_rows } : { name: 'DuckDB', rows: c.duckdb_rows };
    const verdict = c.differing_rows === 0 && peer.rows === c.cdclake_rows ? 'same' : 'DIFFERENT';
    notes.push(
      `- ${thousands(run.rows)} rows: ${peer.name}'s current rows vs cdclake's SCD1 target: ${verdict} ` +
        `(${thousands(peer.rows)} vs ${thousands(c.cdclake_rows)} rows, ${c.differing_rows} differing)`,
    );
  }
}
if (notes.length) console.log(`\n${notes.join('\n')}`);
