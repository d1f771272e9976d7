// DuckDB cross-check of Delta tables cdclake writes (node --test): tests/tools/make_delta_tables
// writes tables with partitions, deletion vectors and copy-on-write deletes; this test replays
// each table's log itself, reads every live data file with DuckDB's read_parquet, drops the rows
// the file's deletion vector marks (positions as the program prints them), adds the partition
// values from the log, and compares the rows with `cdclake show TABLE --format jsonl` as
// multisets.
//
// Environment: CDCLAKE_BIN (the cdclake binary), MAKE_DELTA_TABLES_BIN
// (tests/tools/make_delta_tables); DELTA_TABLES_KEEP=1 keeps the tables. By hand:
//   CDCLAKE_BIN=build/cdclake MAKE_DELTA_TABLES_BIN=build/tests/make_delta_tables \
//     node --test tests/duckdb/delta_tables.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck } from './harness.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');
const makeTablesBin = binary('MAKE_DELTA_TABLES_BIN');

function run(bin, ...args) {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (exit ${e.status}): ${String(e.stderr).trim()}`);
  }
}

// ---- the Delta log, replayed here ------------------------------------------------------------

/// The deletion vector's unique id (PROTOCOL.md §Deletion Vector Descriptor Schema).
function dvId(dv) {
  if (!dv) return null;
  return dv.storageType + dv.pathOrInlineDv + (dv.offset !== undefined && dv.offset !== null ? `@${dv.offset}` : '');
}

/// The table's metadata and live adds at its latest version, from its JSON commits.
function replayLog(tableRoot) {
  const logDir = path.join(tableRoot, '_delta_log');
  const commits = fs
    .readdirSync(logDir)
    .filter((n) => /^\d{20}\.json$/.test(n))
    .sort();
  assert.ok(commits.length > 0, `${tableRoot}: no commits`);
  commits.forEach((n, i) => assert.equal(Number(n.slice(0, 20)), i, `${tableRoot}: commit ${i} missing`));
  let metadata = null;
  const live = new Map(); // path + dv id -> add
  for (const name of commits) {
    const lines = fs.readFileSync(path.join(logDir, name), 'utf8').split('\n').filter((l) => l !== '');
    for (const line of lines) {
      const action = JSON.parse(line);
      if (action.metaData) metadata = action.metaData;
      if (action.add) live.set(`${action.add.path}\u0000${dvId(action.add.deletionVector)}`, action.add);
      if (action.remove) live.delete(`${action.remove.path}\u0000${dvId(action.remove.deletionVector)}`);
    }
  }
  assert.ok(metadata, `${tableRoot}: no metaData`);
  return { metadata, adds: [...live.values()] };
}

/// Delta's primitive type names to DuckDB's.
function duckType(deltaType) {
  const simple = {
    string: 'VARCHAR',
    long: 'BIGINT',
    integer: 'INTEGER',
    short: 'SMALLINT',
    byte: 'TINYINT',
    boolean: 'BOOLEAN',
    double: 'DOUBLE',
    float: 'FLOAT',
    date: 'DATE',
    timestamp: 'TIMESTAMPTZ',
    timestamp_ntz: 'TIMESTAMP',
    binary: 'BLOB',
  };
  if (typeof deltaType === 'string' && deltaType in simple) return simple[deltaType];
  const decimal = typeof deltaType === 'string' && /^decimal\((\d+),\s*(\d+)\)$/.exec(deltaType);
  if (decimal) return `DECIMAL(${decimal[1]},${decimal[2]})`;
  throw new Error(`no DuckDB type for Delta type ${JSON.stringify(deltaType)}`);
}

const quoteId = (name) => `"${name.replaceAll('"', '""')}"`;

/// DuckDB's rows of one live file: its Parquet rows, minus the deleted positions, with the
/// partition columns from the log; columns in the table's order, as cdclake's JSON lines.
async function duckRows(connection, tableRoot, metadata, add, deleted) {
  const fields = JSON.parse(metadata.schemaString).fields;
  const partitionColumns = new Set(metadata.partitionColumns);
  const file = path.join(tableRoot, decodeURIComponent(add.path));
  assert.ok(fs.existsSync(file), `${add.path}: no file at ${file}`);
  const columns = fields.map((f) => {
    if (!partitionColumns.has(f.name)) return quoteId(f.name);
    const value = add.partitionValues[f.name];
    const type = duckType(f.type);
    const literal = value === null || value === undefined || value === '' ? 'NULL' : duck.sqlString(value);
    return `CAST(${literal} AS ${type}) AS ${quoteId(f.name)}`;
  });
  let sql = `SELECT ${columns.join(', ')} FROM read_parquet(${duck.sqlString(file)}, hive_partitioning = false, file_row_number = true)`;
  if (deleted.length > 0) sql += ` WHERE file_row_number NOT IN (${deleted.join(', ')})`;
  const { lines } = await duck.readCanonical(connection, file, sql);
  return lines;
}

// ---- the tests ---------------------------------------------------------------------------------

describe('DuckDB reads the Delta tables cdclake writes', () => {
  let db;
  let work;
  let manifest;
  before(async () => {
    db = await duck.openDuckDB();
    await db.connection.run("SET TimeZone = 'UTC'");
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-delta-tables-'));
    manifest = JSON.parse(run(makeTablesBin, work));
  });
  after(() => {
    db?.close();
    if (work && process.env.DELTA_TABLES_KEEP === '1') console.log(`tables kept in ${work}`);
    else if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('every table', async (t) => {
    assert.ok(manifest.tables.length >= 4);
    for (const table of manifest.tables) {
      await t.test(table.name, async () => {
        const { metadata, adds } = replayLog(table.root);
        // The program's live files are the ones this replay finds, with the same vectors.
        const printed = new Map(table.files.map((f) => [f.path, f]));
        assert.deepEqual(
          adds.map((a) => `${a.path} ${dvId(a.deletionVector)}`).sort(),
          table.files.map((f) => `${f.path} ${f.dv}`).sort(),
          `${table.name}: live files`,
        );
        const theirs = [];
        for (const add of adds) {
          const deleted = printed.get(add.path).deleted;
          if (add.deletionVector) assert.equal(deleted.length, add.deletionVector.cardinality, add.path);
          theirs.push(...(await duckRows(db.connection, table.root, metadata, add, deleted)));
        }
        const ours = run(cdclakeBin, 'show', table.root, '--format', 'jsonl').split('\n');
        assert.equal(ours.pop(), '', 'cdclake output ends with a newline');
        assert.equal(ours.length, table.rows, `${table.name}: cdclake's row count vs the stats`);
        assert.equal(theirs.length, ours.length, `${table.name}: DuckDB ${theirs.length} rows, cdclake ${ours.length}`);
        const a = [...ours].sort();
        const b = [...theirs].sort();
        const differences = [];
        for (let i = 0; i < a.length && differences.length < 20; ++i) {
          if (a[i] !== b[i]) differences.push(`cdclake ${a[i]}\n    DuckDB  ${b[i]}`);
        }
        assert.equal(differences.length, 0, `${table.name}: rows differ:\n  ${differences.join('\n  ')}`);
      });
    }
  });

  test('the tables use what they are meant to cover', () => {
    const byName = Object.fromEntries(manifest.tables.map((t) => [t.name, t]));
    const kinds = (name) => {
      const { adds } = replayLog(byName[name].root);
      return new Set(adds.map((a) => (a.deletionVector ? a.deletionVector.storageType : '-')));
    };
    assert.deepEqual([...kinds('people_dv_partitioned')].sort(), ['-', 'i', 'u']);
    assert.ok(kinds('big_dv').has('u'));
    assert.deepEqual([...kinds('copy_on_write')], ['-']);
    const { adds } = replayLog(byName.people_dv_partitioned.root);
    assert.ok(adds.some((a) => a.partitionValues.region === null), 'a NULL partition');
    assert.ok(adds.some((a) => /%25/.test(a.path)), 'a percent-encoded partition folder');
    const cdc = fs.readdirSync(path.join(byName.events_dv_cdf.root, '_change_data'));
    assert.ok(cdc.length > 0, 'change data files');
  });
});
