// Shared set-up of the DuckDB tests: the repository root, the DuckDB helpers of
// tools/duckdb_rows.mjs, and the binaries named by environment variables. Missing tools fail the
// run (never a silent pass).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const toolPath = path.join(root, 'tools', 'duckdb_rows.mjs');

const nodeApi = path.join(root, 'tools', 'node_modules', '@duckdb', 'node-api');
if (!fs.existsSync(nodeApi)) {
  throw new Error(`${nodeApi} is missing: run scripts/setup (npm ci in tools/) to install DuckDB's Node API`);
}

/** The absolute path of the binary named by environment variable `name`. */
export function binary(name) {
  const p = process.env[name];
  if (!p) throw new Error(`set ${name} to the binary's path`);
  if (!fs.existsSync(p)) throw new Error(`${name}=${p} does not exist`);
  return path.resolve(p);
}

/** tools/duckdb_rows.mjs as a module. */
export const duck = await import(pathToFileURL(toolPath).href);
