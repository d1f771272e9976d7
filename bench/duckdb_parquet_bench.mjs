// DuckDB (one thread) on the Parquet benchmark's data shape: N rows of (BIGINT, DOUBLE,
// 20-character VARCHAR, nullable INTEGER), written with snappy and read back in full.
// Prints one JSON line per phase, like bench/parquet_bench.cc.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

// The npm test tools live in tools/ (installed by scripts/setup).
const toolsRequire = createRequire(new URL('../tools/package.json', import.meta.url));
const { DuckDBInstance } = await import(toolsRequire.resolve('@duckdb/node-api'));

const [out, rowsArg, ...others] = process.argv.slice(2);
const rows = Number(rowsArg);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run('SET threads = 1');
await c.run('SET preserve_insertion_order = true');
await c.run(`CREATE TABLE t AS SELECT i::BIGINT AS id, random() AS score,
  substr(md5(i::VARCHAR), 1, 20) AS name,
  CASE WHEN i % 10 = 0 THEN NULL ELSE ((i * 7) % 1000)::INTEGER END AS qty
  FROM range(${rows}) r(i)`);

let start = performance.now();
await c.run(`COPY t TO '${out}' (FORMAT parquet, COMPRESSION snappy)`);
let seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ engine: 'duckdb', phase: 'write', rows, seconds, bytes: statSync(out).size }));

for (const [file, path] of [['own', out], ...others.map((p) => ['peer', p])]) {
  start = performance.now();
  // Materialise every column, as cdclake's reader does.
  await c.run(`CREATE OR REPLACE TABLE r AS SELECT * FROM read_parquet('${path}')`);
  seconds = (performance.now() - start) / 1000;
  const n = (await c.runAndReadAll('SELECT count(*)::BIGINT AS n FROM r')).getRowObjects()[0].n;
  console.log(JSON.stringify({ engine: 'duckdb', phase: 'read', file, rows: Number(n), seconds, bytes: statSync(path).size }));
}
