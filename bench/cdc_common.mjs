// What the CDC benchmark's Node scripts share: SQL quoting, the workload's types as DuckDB's,
// reading workload.json and a CSV file's header.
import fs from 'node:fs';
import path from 'node:path';

/** `s` as a SQL string literal. */
export const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
/** `name` as a quoted SQL identifier. */
export const quoteId = (name) => `"${name.replaceAll('"', '""')}"`;

/** The workload's SQL type names (STRING, INT, ...) as DuckDB's. */
export function duckType(sql) {
  const t = sql.trim().toUpperCase();
  if (t === 'STRING' || t === 'TEXT') return 'VARCHAR';
  if (t === 'INT') return 'INTEGER';
  return t;
}

/** workload.json, with its columns checked: the key `id` first. */
export function readWorkload(dir) {
  const w = JSON.parse(fs.readFileSync(path.join(dir, 'workload.json'), 'utf8'));
  if (!Array.isArray(w.columns) || w.columns[0]?.name !== 'id') throw new Error(`${dir}/workload.json: columns must start with id`);
  if (!Array.isArray(w.batch_files) || w.batch_files.length === 0) throw new Error(`${dir}/workload.json: no batch_files`);
  return w;
}

/** The header line of a CSV file (read from its first bytes only). */
export function headerLine(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n')[0].replace(/\r$/, '');
  } finally {
    fs.closeSync(fd);
  }
}
