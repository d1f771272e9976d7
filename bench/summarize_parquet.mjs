// Prints the Parquet benchmark as a table: rows/s, MB/s (of the Parquet file) and the ratio of
// cdclake's speed to DuckDB's for each phase.
import { readFileSync } from 'node:fs';

const lines = process.argv.slice(2).flatMap((f) => readFileSync(f, 'utf8').trim().split('\n')).map((l) => JSON.parse(l));
const key = (r) => `${r.phase}${r.file ? ' ' + r.file + ' file' : ''}`;
const by = {};
for (const r of lines) (by[key(r)] ??= {})[r.engine] = r;
const fmt = (r) => `${(r.rows / r.seconds / 1e6).toFixed(2)} M rows/s, ${(r.bytes / r.seconds / 1e6).toFixed(1)} MB/s (${r.seconds.toFixed(2)} s)`;
console.log('| phase | cdclake | duckdb (1 thread) | speed ratio cdclake/duckdb |');
console.log('|---|---|---|---|');
for (const [phase, e] of Object.entries(by)) {
  if (!e.cdclake || !e.duckdb) continue;
  console.log(`| ${phase} | ${fmt(e.cdclake)} | ${fmt(e.duckdb)} | ${(e.duckdb.seconds / e.cdclake.seconds).toFixed(2)} |`);
}
