// DuckDB cross-check of the tables `cdclake apply` writes (node --test): a few hundred random CSV
// change rows (fixed seed: upserts, deletes, events out of order) are applied in several runs
// and batch sizes as SCD1 and SCD2, with deletion vectors on and off, unpartitioned and
// partitioned by a column whose value moves keys between partitions (one of them the NULL
// partition; the partitioned tables are compacted by `cdclake optimize` and read again). DuckDB reads each target's
// live files through the log replayed here (delta_log.mjs, deletion vectors decoded there too)
// and must return exactly the rows `cdclake show TABLE --format jsonl` prints; those rows must
// also be the model's: each key's latest event, when it is an upsert.
//
// Environment: CDCLAKE_BIN (the cdclake binary); APPLY_TABLES_KEEP=1 keeps the tables. By hand:
//   CDCLAKE_BIN=build/cdclake node --test tests/duckdb/apply_tables.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck } from './harness.mjs';
import { assertSameRows, deletedPositions, duckRows, replayLog, run } from './delta_log.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');

const FILES = 4;
const ROWS_PER_FILE = 100;
const KEYS = 60;

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['Ana', 'Bo', 'O"Neil, Jr', 'Zoë', '', null, 'line\nbreak', 'x,y'];
// A key's region changes from event to event: a partitioned target moves its row.
const REGIONS = ['eu', 'us', 'ap/south', null];

/** The change events: unique sequence numbers, mostly rising, each swapped with one up to nine
 *  places on (late and early events); a fifth are deletes. Amounts always have four digits
 *  before the point and two after, so every file infers the same DECIMAL(6,2). */
function makeEvents(seed) {
  const rng = random(seed);
  const n = FILES * ROWS_PER_FILE;
  const seqs = Array.from({ length: n }, (_, i) => i + 1);
  for (let i = 0; i < n; ++i) {
    const j = Math.min(n - 1, i + Math.floor(rng() * 10));
    [seqs[i], seqs[j]] = [seqs[j], seqs[i]];
  }
  return seqs.map((seq) => {
    const id = Math.floor(rng() * KEYS);
    const region = REGIONS[(id + seq) % REGIONS.length];
    if (rng() < 0.2) return { id, name: null, amount: null, region, op: 'D', seq };
    const name = NAMES[Math.floor(rng() * NAMES.length)];
    const amount = rng() < 0.1 ? null : (100000 + Math.floor(rng() * 900000)) / 100;
    return { id, name, amount: amount === null ? null : amount.toFixed(2), region, op: 'U', seq };
  });
}

/** A CSV field: NULL empty, "" for an empty string, quotes around commas, quotes, newlines. */
function csvField(v) {
  if (v === null) return '';
  const s = String(v);
  return s === '' || /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function writeCsv(file, events) {
  const lines = ['id,name,amount,region,op,seq', ...events.map((e) => [e.id, e.name, e.amount, e.region, e.op, e.seq].map(csvField).join(','))];
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

/** The target's rows the events leave (each key's latest event, when an upsert), as cdclake's
 *  JSON lines of (id, name, amount, region). */
function modelRows(events) {
  const latest = new Map();
  for (const e of events) if (!latest.has(e.id) || latest.get(e.id).seq < e.seq) latest.set(e.id, e);
  return [...latest.values()]
    .filter((e) => e.op === 'U')
    .map((e) => `{"id":${e.id},"name":${e.name === null ? 'null' : JSON.stringify(e.name)},"amount":${e.amount ?? 'null'},"region":${e.region === null ? 'null' : JSON.stringify(e.region)}}`);
}

/** A number from apply's summary. */
function summaryCount(summary, label) {
  const m = new RegExp(`^${label}  +(\\d+)`, 'm').exec(summary);
  assert.ok(m, `no "${label}" in:\n${summary}`);
  return Number(m[1]);
}

const TABLES = [
  { name: 'scd1_dv', scd: 1, dv: true },
  { name: 'scd1_copy_on_write', scd: 1, dv: false },
  { name: 'scd2_dv', scd: 2, dv: true },
  { name: 'scd2_copy_on_write', scd: 2, dv: false },
  { name: 'scd1_dv_partitioned', scd: 1, dv: true, partition: 'region' },
  { name: 'scd1_copy_on_write_partitioned', scd: 1, dv: false, partition: 'region' },
  { name: 'scd2_dv_partitioned', scd: 2, dv: true, partition: 'region' },
  { name: 'scd2_copy_on_write_partitioned', scd: 2, dv: false, partition: 'region' },
];

/** Applies the files to a new target in three runs, replays one, and checks the summaries. */
function applyRuns(table, files) {
  const flow = ['--target', table.root, '--keys', 'id', '--sequence-by', 'seq', '--delete-when', "op = 'D'",
    '--except', 'op,seq', '--scd', String(table.scd)];
  if (!table.dv) flow.push('--property', 'delta.enableDeletionVectors=false');
  if (table.partition) flow.push('--partition-by', table.partition);
  // Two files in batches of 37 (across the files), one file at once, one in batches of 50; then
  // replays of the second file, which change nothing.
  const summaries = [
    run(cdclakeBin, 'apply', ...flow, '--batch-size', '37', files[0], files[1]),
    run(cdclakeBin, 'apply', ...flow, files[2]),
    run(cdclakeBin, 'apply', ...flow, '--batch-size', '50', files[3]),
  ];
  const read = summaries.map((s) => summaryCount(s, 'rows read'));
  assert.deepEqual(read, [2 * ROWS_PER_FILE, ROWS_PER_FILE, ROWS_PER_FILE], `${table.name}: rows read`);
  assert.equal(summaryCount(summaries[0], 'batches'), Math.ceil((2 * ROWS_PER_FILE) / 37), table.name);
  // The second file was applied whole by the first run (two runs before): left out, read again
  // only with --reset-position, which discards every row.
  const leftOut = run(cdclakeBin, 'apply', ...flow, files[1]);
  assert.match(leftOut, /^versions written  +none$/m, `${table.name}: the replay wrote a version`);
  assert.equal(summaryCount(leftOut, 'rows read'), 0, `${table.name}: the replay read rows`);
  assert.match(leftOut, /applied whole by an earlier run of flow/, `${table.name}: no line for the file left out`);
  const replay = run(cdclakeBin, 'apply', ...flow, '--reset-position', files[1]);
  assert.match(replay, /^versions written  +none$/m, `${table.name}: the replay wrote a version`);
  assert.equal(summaryCount(replay, 'rows discarded'), ROWS_PER_FILE, `${table.name}: replay`);
  for (const s of [...summaries, replay]) {
    const parts = ['rows applied', 'rows discarded', 'rows quarantined'].map((l) => summaryCount(s, l));
    assert.equal(parts[0] + parts[1] + parts[2], summaryCount(s, 'rows read'), `${table.name}: counts add up`);
    assert.equal(parts[2], 0, `${table.name}: nothing quarantined`);
  }
}

/** DuckDB's rows of every live file of the table at `root`, through the replayed log. */
async function duckTable(db, root) {
  const { metadata, adds } = replayLog(root);
  const rows = [];
  for (const add of adds) {
    const deleted = deletedPositions(root, add.deletionVector);
    rows.push(...(await duckRows(db.connection, root, metadata, add, deleted)));
  }
  return rows;
}

describe('DuckDB reads the tables cdclake apply writes', () => {
  let db;
  let work;
  const events = makeEvents(20240611);
  const files = [];
  before(async () => {
    db = await duck.openDuckDB();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-apply-tables-'));
    for (let f = 0; f < FILES; ++f) {
      files.push(path.join(work, `changes_${f}.csv`));
      writeCsv(files[f], events.slice(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE));
    }
  });
  after(() => {
    db?.close();
    if (work && process.env.APPLY_TABLES_KEEP === '1') console.log(`tables kept in ${work}`);
    else if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('the events cover what they are meant to', () => {
    assert.ok(events.filter((e) => e.op === 'D').length > 40, 'deletes');
    const late = events.filter((e, i) => i > 0 && e.seq < events[i - 1].seq);
    assert.ok(late.length > 50, 'events out of order');
    assert.ok(new Set(events.map((e) => e.id)).size === KEYS, 'every key');
  });

  for (const table of TABLES) {
    test(table.name, async () => {
      table.root = path.join(work, table.name);
      applyRuns(table, files);
      const { metadata, adds } = replayLog(table.root);
      assert.equal(metadata.configuration['delta.enableDeletionVectors'], table.dv ? 'true' : 'false');
      const removes = fs
        .readdirSync(path.join(table.root, '_delta_log'))
        .filter((n) => n.endsWith('.json'))
        .flatMap((n) => fs.readFileSync(path.join(table.root, '_delta_log', n), 'utf8').split('\n'))
        .filter((l) => l.startsWith('{"remove"'));
      assert.ok(removes.length > 0, `${table.name}: no file was ever removed (no deletes or updates)`);
      const withDv = adds.filter((a) => a.deletionVector);
      if (table.dv) assert.ok(withDv.length > 0, `${table.name}: no live file has a deletion vector`);
      else assert.equal(withDv.length, 0, `${table.name}: deletion vectors with them turned off`);
      const ours = run(cdclakeBin, 'show', table.root, '--format', 'jsonl').split('\n');
      assert.equal(ours.pop(), '', 'cdclake output ends with a newline');
      assertSameRows(ours, await duckTable(db, table.root), table.name);
      if (table.partition) {
        // Hive-style folders, one partition per value (NULL's the default partition), and a key
        // whose value changed has its rows in more than one of them; optimize compacts each
        // partition on its own and changes no row.
        assert.deepEqual(metadata.partitionColumns, [table.partition]);
        const values = new Set(adds.map((a) => a.partitionValues[table.partition] ?? null));
        assert.deepEqual([...values].sort(), ['ap/south', 'eu', 'us', null].sort(), `${table.name}: partitions`);
        for (const a of adds) {
          const v = a.partitionValues[table.partition];
          const folder = v === null ? '__HIVE_DEFAULT_PARTITION__' : encodeURIComponent(v).replaceAll('%2F', '%252F');
          assert.ok(a.path.startsWith(`${table.partition}=${folder}/`), `${table.name}: ${a.path} outside its partition folder`);
        }
        const optimized = run(cdclakeBin, 'optimize', table.root);
        assert.match(optimized, /into \d+ \(/, `${table.name}: optimize compacted nothing:\n${optimized}`);
        const after = replayLog(table.root).adds;
        assert.ok(after.length < adds.length, `${table.name}: optimize left ${after.length} of ${adds.length} files`);
        assert.ok(after.length >= values.size, `${table.name}: optimize merged partitions`);
        assertSameRows(ours, await duckTable(db, table.root), `${table.name} after optimize`);
        const shown = run(cdclakeBin, 'show', table.root, '--format', 'jsonl').split('\n');
        assert.equal(shown.pop(), '', 'cdclake output ends with a newline');
        assertSameRows(shown, ours, `${table.name}: cdclake after optimize`, ['after', 'before']);
      }

      // The rows are the model's; SCD2's current versions are, and its versions of a key do not
      // overlap.
      let current = ours;
      if (table.scd === 2) {
        const byKey = new Map();
        for (const line of ours) {
          const row = JSON.parse(line);
          if (!byKey.has(row.id)) byKey.set(row.id, []);
          byKey.get(row.id).push(row);
        }
        for (const [id, versions] of byKey) {
          versions.sort((a, b) => a.__START_AT - b.__START_AT);
          versions.forEach((v, i) => {
            if (v.__END_AT !== null) assert.ok(v.__START_AT < v.__END_AT, `key ${id}: ${JSON.stringify(v)}`);
            else assert.equal(i, versions.length - 1, `key ${id}: a current version before others`);
            if (i > 0) assert.ok(versions[i - 1].__END_AT <= v.__START_AT, `key ${id}: versions overlap`);
          });
        }
        current = ours
          .filter((l) => l.endsWith('"__END_AT":null}'))
          .map((l) => l.replace(/,"__START_AT":-?\d+,"__END_AT":null\}$/, '}'));
        assert.ok(current.length < ours.length, `${table.name}: no closed versions`);
      }
      assertSameRows(current, modelRows(events), `${table.name}: current rows`, ['cdclake', 'model']);
    });
  }
});
