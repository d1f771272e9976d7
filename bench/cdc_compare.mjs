// Compares two final tables of a CDC workload folder (written by bench/cdc_workload.cc), each
// given as a SPEC:
//   delta:PATH     a Delta table (cdclake's target) at its latest version: the log's live files
//                  minus the rows their deletion vectors mark (tests/duckdb/delta_log.mjs).
//   csv:PATH       a --dump file of a peer runner (header, the workload's columns).
//   expected:[W]   the correct final table computed here from the workload's own CSV files
//                  (load + every batch): each key's highest-lsn event, deleted keys absent.
// Only the workload's columns (id + the data columns of workload.json) are compared, read with
// their declared types (a Delta table's extra columns, such as _op, are ignored); rows are
// compared as multisets: first by row count and the sum of the rows' hashes, then, only when those
// differ, in both directions (EXCEPT ALL) to find and show the differing rows.
//
//   node bench/cdc_compare.mjs --workload W --left SPEC --right SPEC [--label NAME]
//   node bench/cdc_compare.mjs --workload W --left SPEC --expected      (right = expected:)
// Prints one JSON line {"compare","left","right","left_rows","right_rows","differences"}, up to 5
// differing rows on stderr, and exits 1 if any row differs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { duckType, headerLine, lit, quoteId, readWorkload } from './cdc_common.mjs';
import { deletedPositions, duckType as deltaDuckType, replayLog } from '../tests/duckdb/delta_log.mjs';

const toolsRequire = createRequire(new URL('../tools/package.json', import.meta.url));
const { DuckDBInstance } = await import(toolsRequire.resolve('@duckdb/node-api'));

const USAGE = 'usage: cdc_compare.mjs --workload W --left SPEC (--right SPEC | --expected) [--label NAME]\n' +
  '  SPEC: delta:PATH | csv:PATH | expected:[W]';

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    if (k === '--expected') {
      args.right ??= 'expected:';
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k}: missing value\n${USAGE}`);
    if (k === '--workload') args.workload = path.resolve(v);
    else if (k === '--left') args.left = v;
    else if (k === '--right') args.right = v;
    else if (k === '--label') args.label = v;
    else throw new Error(`unknown option ${k}\n${USAGE}`);
  }
  if (!args.workload || !args.left || !args.right) throw new Error(USAGE);
  return args;
}

/** A typed RFC 4180 read of `file` (NULL = empty unquoted field, "" = empty string), its header
 *  checked against the given columns. */
function readCsv(file, columns) {
  const expected = columns.map((c) => c.name).join(',');
  const header = headerLine(file);
  if (header !== expected) throw new Error(`${file}: header ${header}, expected ${expected}`);
  const spec = `{${columns.map((c) => `${lit(c.name)}: ${lit(c.type)}`).join(', ')}}`;
  return `read_csv(${lit(file)}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
    allow_quoted_nulls = false, columns = ${spec})`;
}

/** Loads one SPEC into the temp table `name` with the workload's columns; a description of it. */
async function loadSpec(c, spec, name, workloadDir, columns) {
  const colon = spec.indexOf(':');
  const [kind, where] = colon < 0 ? [spec, ''] : [spec.slice(0, colon), spec.slice(colon + 1)];
  const names = columns.map((col) => quoteId(col.name));
  if (kind === 'csv') {
    const file = path.resolve(where);
    await c.run(`CREATE TEMP VIEW ${name} AS SELECT ${names.join(', ')} FROM ${readCsv(file, columns)}`);
    return { spec: `csv:${file}` };
  }
  if (kind === 'delta') return { spec: `delta:${path.resolve(where)}`, ...(await loadDelta(c, path.resolve(where), name, columns)) };
  if (kind === 'expected') {
    const dir = where ? path.resolve(where) : workloadDir;
    return { spec: `expected:${dir}`, ...(await loadExpected(c, dir, name, columns)) };
  }
  throw new Error(`SPEC ${spec}: must start with delta:, csv: or expected:`);
}

/** A Delta table at its latest version: the live files' rows without the positions their deletion
 *  vectors mark, the workload's columns cast to their types. */
async function loadDelta(c, tableRoot, name, columns) {
  const { metadata, adds } = replayLog(tableRoot);
  if (metadata.partitionColumns.length > 0) throw new Error(`${tableRoot}: partitioned tables are not handled`);
  const mapping = metadata.configuration?.['delta.columnMapping.mode'];
  const fields = new Map(JSON.parse(metadata.schemaString).fields.map((f) => [f.name, f]));
  const select = columns.map((col) => {
    const f = fields.get(col.name);
    if (!f) throw new Error(`${tableRoot}: no column ${col.name} (it has ${[...fields.keys()].join(', ')})`);
    const physical = mapping && mapping !== 'none' ? f.metadata['delta.columnMapping.physicalName'] : f.name;
    // Through the Delta type first (a timestamp is read as TIMESTAMPTZ; the session is in UTC).
    return `CAST(CAST(${quoteId(physical)} AS ${deltaDuckType(f.type)}) AS ${col.type}) AS ${quoteId(col.name)}`;
  });
  const dv = `${name}_dv`;
  await c.run(`CREATE TEMP TABLE ${dv} (file VARCHAR, pos BIGINT)`);
  const appender = await c.createAppender(dv);
  const files = [];
  let deleted = 0;
  for (const add of adds) {
    const file = path.resolve(tableRoot, decodeURIComponent(add.path));
    files.push(file);
    for (const pos of deletedPositions(tableRoot, add.deletionVector)) {
      appender.appendVarchar(file);
      appender.appendBigInt(BigInt(pos));
      appender.endRow();
      ++deleted;
    }
  }
  appender.closeSync();
  if (files.length === 0) {
    await c.run(`CREATE TEMP TABLE ${name} (${columns.map((col) => `${quoteId(col.name)} ${col.type}`).join(', ')})`);
  } else {
    await c.run(`CREATE TEMP VIEW ${name} AS
      SELECT ${select.join(', ')}
      FROM read_parquet([${files.map(lit).join(', ')}], filename = true, file_row_number = true) r
      ANTI JOIN ${dv} ON ${dv}.file = r.filename AND ${dv}.pos = r.file_row_number`);
  }
  return { files: files.length, deleted_by_dv: deleted };
}

/** The correct final table from the workload's CSV files: per key the event with the highest lsn
 *  (load rows have the lowest), kept unless it is a delete. Two different events with one key and
 *  lsn would make the answer ambiguous: that fails. Computed once per workload and kept beside it
 *  as expected.parquet (every engine of a size is compared with it; at 50M keys computing it
 *  takes minutes). */
async function loadExpected(c, dir, name, columns) {
  const w = readWorkload(dir);
  const files = [w.load.csv, ...w.batch_files.map((b) => b.csv)].map((f) => path.join(dir, f));
  const names = columns.map((col) => quoteId(col.name));
  const cache = path.join(dir, 'expected.parquet');
  const stamp = `${cache}.events`;
  const newest = Math.max(...[path.join(dir, 'workload.json'), ...files].map((f) => fs.statSync(f).mtimeMs));
  if (!fs.existsSync(cache) || !fs.existsSync(stamp) || fs.statSync(cache).mtimeMs < newest) {
    const csvColumns = [...columns, { name: '_op', type: 'VARCHAR' }, { name: 'commit_lsn', type: 'BIGINT' }, { name: 'lsn', type: 'BIGINT' }];
    await c.run(`CREATE TEMP TABLE ${name}_events AS
      ${files.map((f) => `SELECT * FROM ${readCsv(f, csvColumns)}`).join('\nUNION ALL\n')}`);
    const events = Number((await c.runAndReadAll(`SELECT count(*) FROM ${name}_events`)).getRows()[0][0]);
    const ambiguous = Number(
      (await c.runAndReadAll(`SELECT count(*) FROM (SELECT id, lsn FROM (SELECT DISTINCT * FROM ${name}_events)
        GROUP BY id, lsn HAVING count(*) > 1)`)).getRows()[0][0],
    );
    if (ambiguous > 0) throw new Error(`${dir}: ${ambiguous} (id, lsn) pairs carry different events`);
    const partial = `${cache}.partial`;
    await c.run(`COPY (
      SELECT ${names.join(', ')} FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY lsn DESC) AS rn FROM ${name}_events
      ) WHERE rn = 1 AND _op <> 'd') TO ${lit(partial)} (FORMAT parquet)`);
    await c.run(`DROP TABLE ${name}_events`);
    fs.renameSync(partial, cache);
    fs.writeFileSync(stamp, `${events}\n`);
  }
  await c.run(`CREATE TEMP VIEW ${name} AS SELECT ${names.join(', ')} FROM read_parquet(${lit(cache)})`);
  return { events: Number(fs.readFileSync(stamp, 'utf8')), files: files.length };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const w = readWorkload(args.workload);
  const columns = w.columns.map((col) => ({ name: col.name, type: duckType(col.sql) }));
  if (columns[0]?.name !== 'id') throw new Error(`${args.workload}/workload.json: columns must start with id`);

  // At 50M rows the two tables outgrow memory: DuckDB spills past half the RAM instead of
  // taking all of it (an unbounded compare once stalled the machine).
  const spill = fs.mkdtempSync(path.join(os.tmpdir(), 'cdc-compare-'));
  process.on('exit', () => fs.rmSync(spill, { recursive: true, force: true }));
  const db = await DuckDBInstance.create(':memory:', {
    memory_limit: `${Math.floor(os.totalmem() / 2 / 2 ** 20)}MB`,
    temp_directory: spill,
    preserve_insertion_order: 'false',
  });
  const c = await db.connect();
  await c.run("SET TimeZone = 'UTC'");
  const t0 = performance.now();
  const left = await loadSpec(c, args.left, 'left_rows', args.workload, columns);
  const right = await loadSpec(c, args.right, 'right_rows', args.workload, columns);
  const count = async (sql) => Number((await c.runAndReadAll(sql)).getRows()[0][0]);
  const cols = columns.map((col) => quoteId(col.name)).join(', ');
  // First one scan of each side: its row count and the sum of its rows' hashes, which does not
  // depend on row order and changes with any row added, lost or altered. Only when they differ
  // are the sides compared row by row (which at 50M keys takes a quarter of an hour).
  const digest = async (table) => {
    const row = (await c.runAndReadAll(`SELECT count(*), sum(hash(${cols}))::VARCHAR FROM ${table}`)).getRows()[0];
    return { rows: Number(row[0]), sum: row[1] };
  };
  const [leftDigest, rightDigest] = [await digest('left_rows'), await digest('right_rows')];
  let differences = 0;
  if (leftDigest.rows !== rightDigest.rows || leftDigest.sum !== rightDigest.sum) {
    const diff = `
      SELECT 'left only' AS side, * FROM (SELECT ${cols} FROM left_rows EXCEPT ALL SELECT ${cols} FROM right_rows)
      UNION ALL
      SELECT 'right only' AS side, * FROM (SELECT ${cols} FROM right_rows EXCEPT ALL SELECT ${cols} FROM left_rows)`;
    await c.run(`CREATE TEMP TABLE diff AS ${diff}`);
    differences = await count('SELECT count(*) FROM diff');
    if (differences > 0) {
      const text = columns.map((col) => `${quoteId(col.name)}::VARCHAR AS ${quoteId(col.name)}`).join(', ');
      const sample = await c.runAndReadAll(`SELECT side, ${text} FROM diff ORDER BY id, side LIMIT 5`);
      for (const row of sample.getRowObjects()) process.stderr.write(`differs: ${JSON.stringify(row)}\n`);
    }
  }
  const result = {
    compare: args.label ?? `${left.spec} vs ${right.spec}`,
    left: left.spec,
    right: right.spec,
    left_rows: leftDigest.rows,
    right_rows: rightDigest.rows,
    differences,
    by: differences === 0 && leftDigest.sum === rightDigest.sum ? 'row-hash sums' : 'rows',
    ms: Math.round(performance.now() - t0),
  };
  // What each side's reading found (files, deletion vectors, events), where there is any.
  for (const [key, info] of [['left_info', left], ['right_info', right]]) {
    const { spec, ...rest } = info;
    if (Object.keys(rest).length > 0) result[key] = rest;
  }
  console.log(JSON.stringify(result));
  c.closeSync();
  db.closeSync();
  if (differences > 0) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`cdc_compare: ${e.stack ?? e.message}\n`);
  process.exit(2);
});
