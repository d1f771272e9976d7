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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck } from './harness.mjs';
import { assertSameRows, deletedPositions, duckRows, dvId, replayLog, run } from './delta_log.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');
const makeTablesBin = binary('MAKE_DELTA_TABLES_BIN');

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
          // The vector decoded here (delta_log.mjs) marks the positions the program printed.
          assert.deepEqual(deletedPositions(table.root, add.deletionVector), [...deleted].sort((x, y) => x - y), add.path);
          theirs.push(...(await duckRows(db.connection, table.root, metadata, add, deleted)));
        }
        const ours = run(cdclakeBin, 'show', table.root, '--format', 'jsonl').split('\n');
        assert.equal(ours.pop(), '', 'cdclake output ends with a newline');
        assert.equal(ours.length, table.rows, `${table.name}: cdclake's row count vs the stats`);
        assertSameRows(ours, theirs, table.name);
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
