// DuckDB cross-check of the tables `cdclake run` writes (node --test): the quick start's shop
// pipeline, and the accounts pipeline over a generated Debezium stream
// (tests/pipeline/make_debezium_stream.awk) run in two steps in batches of 50 rows, so its tables
// have many versions and deletion vectors. For every table a run writes — bronze (the STRUCT
// `_seq`, the TIMESTAMP `_ingested_at`), SCD1, SCD2 (STRUCT `__START_AT`/`__END_AT`), the
// quarantine, the warehouse's `_event_log` — DuckDB reads the live files through the log replayed
// by delta_log.mjs (deletion vectors applied there) and must return exactly the rows
// `cdclake show TABLE --format jsonl` prints. Then SQL in DuckDB checks the content against what
// the input says, independently of cdclake's reader: the stream's events as a model of bronze,
// SCD1 and SCD2, the one bad line in the quarantine, the event log's counts.
//
// Environment: CDCLAKE_BIN (the cdclake binary); PIPELINE_TABLES_KEEP=1 keeps the tables. By hand:
//   CDCLAKE_BIN=build/cdclake node --test tests/duckdb/pipeline_tables.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck, root } from './harness.mjs';
import { assertSameRows, deletedPositions, duckRows, replayLog, run } from './delta_log.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');

const STREAM = { FILES: 6, EVENTS: 200, KEYS: 40, SEED: 3 };
const BATCH_ROWS = 50;

/** The folders under `warehouse` holding a Delta table, relative to it, sorted. */
function tablesUnder(warehouse) {
  const out = [];
  const walk = (dir) => {
    if (fs.existsSync(path.join(dir, '_delta_log'))) {
      out.push(path.relative(warehouse, dir));
      return;
    }
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  walk(warehouse);
  return out.sort();
}

/** Compares DuckDB's reading of the table at `tableRoot` with `cdclake show`; the replayed log,
 *  the number of commits and the columns' types as DuckDB reads them (cdclake's spelling). */
async function crossCheck(connection, tableRoot) {
  const { metadata, adds } = replayLog(tableRoot);
  const theirs = [];
  const types = new Map();
  for (const add of adds) {
    const deleted = deletedPositions(tableRoot, add.deletionVector);
    theirs.push(...(await duckRows(connection, tableRoot, metadata, add, deleted)));
    const file = path.join(tableRoot, decodeURIComponent(add.path));
    const { columns } = await duck.readCanonical(connection, file, 'SELECT * FROM t LIMIT 0');
    for (const c of columns) types.set(c.name, c.typeName);
  }
  const ours = run(cdclakeBin, 'show', tableRoot, '--format', 'jsonl').split('\n');
  assert.equal(ours.pop(), '', 'cdclake output ends with a newline');
  assertSameRows(ours, theirs, tableRoot);
  const commits = fs.readdirSync(path.join(tableRoot, '_delta_log')).filter((n) => /^\d{20}\.json$/.test(n)).length;
  return { metadata, adds, rows: ours.length, commits, types };
}

/** Creates DuckDB view `name` of the table's live rows: every live file (read by name, columns
 *  matched by name), minus the positions its deletion vector marks. Unpartitioned tables only. */
async function createLiveView(connection, name, tableRoot) {
  const { metadata, adds } = replayLog(tableRoot);
  assert.deepEqual(metadata.partitionColumns, [], `${tableRoot}: partitioned`);
  assert.ok(adds.length > 0, `${tableRoot}: no live files`);
  const parts = adds.map((add) => {
    const file = duck.sqlString(path.join(tableRoot, decodeURIComponent(add.path)));
    const deleted = deletedPositions(tableRoot, add.deletionVector);
    const where = deleted.length > 0 ? ` WHERE file_row_number NOT IN (${deleted.join(', ')})` : '';
    return `SELECT * EXCLUDE (file_row_number) FROM read_parquet(${file}, file_row_number = true)${where}`;
  });
  await connection.run(`CREATE OR REPLACE VIEW ${name} AS ${parts.join(' UNION ALL BY NAME ')}`);
}

/** The rows of a query, as objects of JSON values (BIGINTs as numbers when they fit). */
async function query(connection, sql) {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' && Number.isSafeInteger(Number(v)) ? Number(v) : v]),
    ),
  );
}

/** The one value of a one-row, one-column query. */
async function scalar(connection, sql) {
  const rows = await query(connection, sql);
  assert.equal(rows.length, 1, sql);
  return Object.values(rows[0])[0];
}

/** The events of the stream's files (JSON lines; lines that are not JSON counted apart). */
function readStream(files) {
  const events = [];
  const bad = [];
  for (const file of files) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line === '') return;
        let e;
        try {
          e = JSON.parse(line);
        } catch {
          bad.push({ file, line: i + 1, raw: line });
          return;
        }
        const row = e.op === 'd' ? e.before : e.after;
        events.push({ id: row.id, name: row.name, amount: row.amount, op: e.op, lsn: e.source.lsn });
      });
  }
  return { events, bad };
}

/** The model's SCD1 rows and SCD2 versions of the events: per key, its distinct events by LSN;
 *  SCD1 keeps the last when it is not a delete; SCD2 has a version per upsert, from its LSN to
 *  the key's next event's (open when none). Rows as JSON text, sequences as their LSN. */
function model(events) {
  const byKey = new Map();
  for (const e of events) {
    if (!byKey.has(e.id)) byKey.set(e.id, new Map());
    const seen = byKey.get(e.id);
    if (seen.has(e.lsn)) assert.deepEqual(seen.get(e.lsn), e, `two different events at LSN ${e.lsn}`);
    seen.set(e.lsn, e);
  }
  const current = [];
  const history = [];
  for (const [id, seen] of byKey) {
    const list = [...seen.values()].sort((a, b) => a.lsn - b.lsn);
    const last = list[list.length - 1];
    if (last.op !== 'd') current.push(JSON.stringify({ id, name: last.name, amount: last.amount }));
    list.forEach((e, i) => {
      if (e.op === 'd') return;
      const end = i + 1 < list.length ? list[i + 1].lsn : null;
      history.push(JSON.stringify({ id, name: e.name, amount: e.amount, start: e.lsn, end }));
    });
  }
  return { current, history };
}

describe('DuckDB reads the tables cdclake run writes', () => {
  let db;
  let con;
  let work;
  before(async () => {
    db = await duck.openDuckDB();
    con = db.connection;
    await con.run("SET TimeZone = 'UTC'");
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-pipeline-tables-'));
  });
  after(() => {
    db?.close();
    if (work && process.env.PIPELINE_TABLES_KEEP === '1') console.log(`tables kept in ${work}`);
    else if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('declared column lists (casts, NOT NULL, declared __START_AT)', async () => {
    const data = path.join(work, 'declared-data');
    const warehouse = path.join(work, 'declared');
    fs.mkdirSync(data, { recursive: true });
    fs.writeFileSync(path.join(data, 'c1.csv'),
      'id,name,age,seq,op,extra\n1,Ada,36,1,U,x\n2,Bob,abc,2,U,y\n3,,40,3,U,z\n1,Ada,37,4,U,x\n5,Eve,20,7,U,r\n');
    const pipeline = path.join(work, 'declared.sql');
    fs.writeFileSync(pipeline, `
CREATE OR REFRESH STREAMING TABLE bronze (id INT NOT NULL, name STRING, age INT, city STRING)
AS SELECT * FROM STREAM(read_files('\${data}/*.csv', format => 'csv'));
CREATE OR REFRESH STREAMING TABLE people (id BIGINT NOT NULL, name STRING NOT NULL, age INT, city STRING);
CREATE FLOW people AS AUTO CDC INTO people FROM STREAM(read_files('\${data}/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1;
CREATE OR REFRESH STREAMING TABLE history (id BIGINT NOT NULL, age INT, seq INT, __START_AT INT, __END_AT INT);
CREATE FLOW history AS AUTO CDC INTO history FROM STREAM(read_files('\${data}/*.csv', format => 'csv'))
KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2;
`);
    run(cdclakeBin, 'run', pipeline, '--var', `data=${data}`, '--warehouse', warehouse);
    const checked = {};
    for (const t of ['default/bronze', 'default/people', 'default/history']) {
      checked[t] = await crossCheck(con, path.join(warehouse, t));
    }
    assert.equal(checked['default/bronze'].types.get('age'), 'int');
    assert.equal(checked['default/people'].types.get('id'), 'bigint');
    assert.equal(checked['default/history'].types.get('__START_AT'), 'int');
    await createLiveView(con, 'declared_people', path.join(warehouse, 'default/people'));
    assert.deepEqual((await query(con, 'SELECT id, age FROM declared_people ORDER BY id')).map((r) => [r.id, r.age]),
      [[1, 37], [5, 20]]);
  });

  test('the quick start', async () => {
    const data = path.join(work, 'quickstart-data');
    const warehouse = path.join(work, 'quickstart');
    fs.cpSync(path.join(root, 'examples', 'quickstart', 'data'), data, { recursive: true });
    run(cdclakeBin, 'run', path.join(root, 'examples', 'quickstart', 'pipeline.sql'), '--var', `data=${data}`,
      '--warehouse', warehouse);
    const tables = tablesUnder(warehouse);
    assert.deepEqual(tables, ['_event_log', 'shop/bronze_customers', 'shop/bronze_orders', 'shop/customers',
      'shop/customers_history', 'shop/orders']);
    const checked = {};
    for (const t of tables) checked[t] = await crossCheck(con, path.join(warehouse, t));

    for (const t of ['shop/bronze_customers', 'shop/bronze_orders']) {
      assert.equal(checked[t].types.get('_seq'), 'struct<commit_lsn:bigint,lsn:bigint>', `${t}: _seq`);
      assert.equal(checked[t].types.get('_ingested_at'), 'timestamp', `${t}: _ingested_at`);
    }
    for (const c of ['__START_AT', '__END_AT']) {
      assert.equal(checked['shop/customers_history'].types.get(c), 'struct<commit_lsn:bigint,lsn:bigint>', c);
    }

    for (const t of tables) await createLiveView(con, t.replace(/^.*\//, '').replace(/^_/, 'x_'), path.join(warehouse, t));
    // Every event line of the input is a bronze row.
    const lines = (dir) =>
      fs.readdirSync(path.join(data, dir)).flatMap((f) =>
        fs.readFileSync(path.join(data, dir, f), 'utf8').split('\n').filter((l) => l !== ''));
    assert.equal(await scalar(con, 'SELECT count(*) FROM bronze_customers'), lines('customers').length);
    assert.equal(await scalar(con, 'SELECT count(*) FROM bronze_orders'), lines('orders').length);
    assert.equal(await scalar(con, 'SELECT count(*) FROM bronze_customers WHERE _ingested_at IS NULL OR _seq.lsn IS NULL'), 0);
    // The current customers: 3 was deleted (its late update discarded), 1 moved to Marylebone.
    assert.deepEqual((await query(con, 'SELECT id FROM customers ORDER BY id')).map((r) => r.id), [1, 2, 4, 5]);
    assert.equal(await scalar(con, 'SELECT city FROM customers WHERE id = 1'), 'Marylebone');
    assert.equal(await scalar(con, "SELECT tier FROM customers WHERE id = 4"), 'gold');
    // The history's open versions are the current rows.
    const open = await scalar(con, 'SELECT count(*) FROM customers_history WHERE __END_AT IS NULL');
    assert.equal(open, await scalar(con, 'SELECT count(*) FROM customers'));
    assert.equal(await scalar(con, `SELECT count(*) FROM (
      (SELECT * EXCLUDE (__START_AT, __END_AT) FROM customers_history WHERE __END_AT IS NULL EXCEPT ALL SELECT * FROM customers)
      UNION ALL (SELECT * FROM customers EXCEPT ALL SELECT * EXCLUDE (__START_AT, __END_AT) FROM customers_history WHERE __END_AT IS NULL))`), 0);
    assert.equal(await scalar(con, "SELECT count(*) FROM customers_history WHERE id = 1"), 3, 'Ada: London, St James\'s, Marylebone');
    // The event log: each silver flow read every row of its bronze table.
    const readBy = Object.fromEntries(
      (await query(con, 'SELECT flow, sum(rows_read) AS n FROM x_event_log GROUP BY flow')).map((r) => [r.flow, Number(r.n)]));
    assert.deepEqual(readBy, {
      'shop.bronze_customers': lines('customers').length,
      'shop.bronze_orders': lines('orders').length,
      customers_current: lines('customers').length,
      customers_history: lines('customers').length,
      orders_current: lines('orders').length,
    });
  });

  describe('the accounts stream, in two runs', () => {
    let all;
    let input;
    let warehouse;
    const runs = [];
    before(() => {
      all = path.join(work, 'accounts-all');
      input = path.join(work, 'accounts-in');
      warehouse = path.join(work, 'accounts');
      fs.mkdirSync(all);
      fs.mkdirSync(input);
      run('awk', '-f', path.join(root, 'tests', 'pipeline', 'make_debezium_stream.awk'), '-v', `DIR=${all}`,
        ...Object.entries(STREAM).flatMap(([k, v]) => ['-v', `${k}=${v}`]));
    });

    for (const step of [0, 1]) {
      test(`run ${step + 1}`, async () => {
        const files = fs.readdirSync(all).sort();
        assert.equal(files.length, STREAM.FILES);
        const half = files.slice(step * (STREAM.FILES / 2), (step + 1) * (STREAM.FILES / 2));
        for (const f of half) fs.copyFileSync(path.join(all, f), path.join(input, f));
        runs.push(run(cdclakeBin, 'run', path.join(root, 'tests', 'pipeline', 'accounts_pipeline.sql'),
          '--var', `input=${input}`, '--warehouse', warehouse, '--batch-rows', String(BATCH_ROWS)));

        const tables = tablesUnder(warehouse);
        assert.deepEqual(tables, ['_event_log', 'bank/accounts', 'bank/accounts_history', 'bank/bronze_accounts',
          'bank/bronze_accounts_quarantine']);
        const checked = {};
        for (const t of tables) checked[t] = await crossCheck(con, path.join(warehouse, t));
        const bronze = checked['bank/bronze_accounts'];
        assert.equal(bronze.types.get('_seq'), 'struct<commit_lsn:bigint,lsn:bigint>');
        assert.equal(bronze.types.get('_ingested_at'), 'timestamp');
        for (const c of ['__START_AT', '__END_AT']) {
          assert.equal(checked['bank/accounts_history'].types.get(c), 'struct<commit_lsn:bigint,lsn:bigint>', c);
        }
        // Batches of 50 rows: a version per batch, and updates and deletes as deletion vectors.
        for (const t of ['bank/bronze_accounts', 'bank/accounts', 'bank/accounts_history']) {
          assert.ok(checked[t].commits > Math.floor(bronze.rows / BATCH_ROWS), `${t}: ${checked[t].commits} commits`);
        }
        for (const t of ['bank/accounts', 'bank/accounts_history']) {
          assert.ok(checked[t].adds.some((a) => a.deletionVector), `${t}: no live file has a deletion vector`);
        }

        // The content, in DuckDB, against the stream read here.
        for (const t of tables) await createLiveView(con, t.replace(/^.*\//, '').replace(/^_/, 'x_'), path.join(warehouse, t));
        const { events, bad } = readStream(fs.readdirSync(input).sort().map((f) => path.join(input, f)));
        assert.equal(bad.length, 1, 'the stream has one bad line');
        assert.equal(await scalar(con, 'SELECT count(*) FROM bronze_accounts'), events.length, 'bronze rows');
        assert.equal(await scalar(con, 'SELECT count(*) FROM bronze_accounts WHERE _seq.commit_lsn IS NULL OR _seq.lsn IS NULL OR _ingested_at IS NULL'), 0);
        const bronzeEvents = (await query(con, 'SELECT id, name, amount, _op AS op, _seq.lsn AS lsn FROM bronze_accounts'))
          .map((r) => JSON.stringify(r));
        assertSameRows(events.map((e) => JSON.stringify({ id: e.id, name: e.op === 'd' ? null : e.name, amount: e.op === 'd' ? null : e.amount, op: e.op, lsn: e.lsn })),
          bronzeEvents, 'bronze events', ['stream', 'DuckDB']);

        const m = model(events);
        const current = (await query(con, 'SELECT id, name, amount FROM accounts')).map((r) => JSON.stringify(r));
        assertSameRows(m.current, current, 'SCD1 rows', ['model', 'DuckDB']);
        const history = (await query(con, `SELECT id, name, amount, __START_AT.lsn AS start, __END_AT.lsn AS "end"
          FROM accounts_history`)).map((r) => JSON.stringify(r));
        assertSameRows(m.history, history, 'SCD2 versions', ['model', 'DuckDB']);
        assert.equal(await scalar(con, 'SELECT count(*) FROM accounts_history WHERE __END_AT IS NULL'),
          await scalar(con, 'SELECT count(*) FROM accounts'), 'open versions and current rows');
        assert.equal(await scalar(con, `SELECT count(*) FROM (SELECT __START_AT < __END_AT AS ok,
            lag(__END_AT) OVER (PARTITION BY id ORDER BY __START_AT) AS prev_end,
            row_number() OVER (PARTITION BY id ORDER BY __START_AT) AS n, __START_AT
          FROM accounts_history) WHERE ok = false OR (n > 1 AND (prev_end IS NULL OR prev_end > __START_AT))`), 0,
          'SCD2 versions of a key overlap');

        // The bad line, once, with where it was.
        const q = await query(con, 'SELECT raw, source_file, source_line, flow FROM bronze_accounts_quarantine');
        assert.deepEqual(q, [{ raw: bad[0].raw, source_file: bad[0].file, source_line: bad[0].line, flow: 'bank.bronze_accounts' }]);

        // The event log: per flow, the counts add up; each silver flow read every bronze row;
        // bronze read every line, and its rows and the quarantine's are what it applied.
        const flows = await query(con, `SELECT flow, count(DISTINCT run_id) AS runs, sum(rows_read) AS read,
            sum(rows_applied) AS applied, sum(rows_discarded) AS discarded, sum(rows_quarantined) AS quarantined,
            sum(rows_inserted) AS inserted, count(*) FILTER (WHERE status <> 'ok') AS failed
          FROM x_event_log GROUP BY flow ORDER BY flow`);
        const byFlow = Object.fromEntries(flows.map((r) => [r.flow, Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'flow' ? v : Number(v)]))]));
        assert.deepEqual(Object.keys(byFlow), ['accounts_current', 'accounts_history', 'bank.bronze_accounts']);
        for (const [flow, r] of Object.entries(byFlow)) {
          assert.equal(r.applied + r.discarded + r.quarantined, r.read, `${flow}: counts add up`);
          assert.equal(r.failed, 0, `${flow}: failed batches`);
          assert.equal(r.runs, step + 1, `${flow}: runs`);
        }
        for (const flow of ['accounts_current', 'accounts_history']) assert.equal(byFlow[flow].read, events.length, `${flow}: rows read`);
        const b = byFlow['bank.bronze_accounts'];
        assert.deepEqual([b.read, b.applied, b.quarantined, b.inserted], [events.length + 1, events.length, 1, events.length]);
        assert.equal(await scalar(con, `SELECT max(table_version) FROM x_event_log WHERE flow = 'accounts_current'`),
          checked['bank/accounts'].commits - 1, 'the last version of accounts');
      });
    }

    test('a third run with no new files writes nothing', () => {
      assert.equal(runs.length, 2, 'the two runs ran');
      const tables = ['bank/accounts', 'bank/accounts_history', 'bank/bronze_accounts'];
      const versions = () => tables.map((t) => replayLog(path.join(warehouse, t)).adds.length + ':' +
        fs.readdirSync(path.join(warehouse, t, '_delta_log')).filter((n) => n.endsWith('.json')).length);
      const before = versions();
      run(cdclakeBin, 'run', path.join(root, 'tests', 'pipeline', 'accounts_pipeline.sql'), '--var', `input=${input}`,
        '--warehouse', warehouse, '--batch-rows', String(BATCH_ROWS));
      assert.deepEqual(versions(), before);
    });
  });
});
