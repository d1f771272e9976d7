// DuckDB cross-check (node --test): DuckDB, through @duckdb/node-api, reads every random file
// cdclake writes and returns the same values as `cdclake show`; and cdclake reads the files
// DuckDB writes, with each of its codecs and both page versions, and returns DuckDB's values.
//
// Environment: CDCLAKE_BIN (the cdclake binary), RANDOM_PARQUET_BIN (tests/tools/random_parquet);
// optional CROSSCHECK_SEED (first seed, default 1), CROSSCHECK_FILES (default 30) and
// CROSSCHECK_KEEP=1 (keep the files, in a folder under the system's temporary folder).
// Run by CTest as duckdb_crosscheck; by hand:
//   CDCLAKE_BIN=build/cdclake RANDOM_PARQUET_BIN=build/tests/random_parquet \
//     node --test tests/duckdb/crosscheck.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { binary, duck, toolPath } from './harness.mjs';

const cdclakeBin = binary('CDCLAKE_BIN');
const randomParquetBin = binary('RANDOM_PARQUET_BIN');
const firstSeed = Number(process.env.CROSSCHECK_SEED ?? 1);
const fileCount = Number(process.env.CROSSCHECK_FILES ?? 30);
const { DuckDBTypeId: T } = duck;

// ---- JSON that keeps what JSON.parse loses --------------------------------------------------
// Numbers keep their text (64-bit integers and 38-digit decimals do not fit a double), objects
// keep their member order and duplicate keys; every node keeps its source text for messages.

function parseJsonLine(text) {
  let i = 0;
  const fail = (what) => {
    throw new Error(`bad JSON (${what}) at ${i}: ${text.slice(Math.max(0, i - 20), i + 20)}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) ++i;
  };
  const string = () => {
    ++i; // opening quote
    let out = '';
    for (;;) {
      const q = text.indexOf('"', i);
      const b = text.indexOf('\\', i);
      if (q < 0) fail('unterminated string');
      if (b < 0 || q < b) {
        out += text.slice(i, q);
        i = q + 1;
        return out;
      }
      out += text.slice(i, b);
      const e = text[b + 1];
      i = b + 2;
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e in simple) out += simple[e];
      else if (e === 'u') {
        const hex = text.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
      } else fail('bad escape');
    }
  };
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = () => {
    ws();
    const start = i;
    const c = text[i];
    let node;
    if (c === '{') {
      ++i;
      const entries = [];
      ws();
      if (text[i] === '}') ++i;
      else {
        for (;;) {
          ws();
          if (text[i] !== '"') fail('expected a key');
          const key = string();
          ws();
          if (text[i++] !== ':') fail("expected ':'");
          entries.push([key, value()]);
          ws();
          if (text[i] === ',') ++i;
          else if (text[i] === '}') {
            ++i;
            break;
          } else fail("expected ',' or '}'");
        }
      }
      node = { kind: 'object', entries };
    } else if (c === '[') {
      ++i;
      const items = [];
      ws();
      if (text[i] === ']') ++i;
      else {
        for (;;) {
          items.push(value());
          ws();
          if (text[i] === ',') ++i;
          else if (text[i] === ']') {
            ++i;
            break;
          } else fail("expected ',' or ']'");
        }
      }
      node = { kind: 'array', items };
    } else if (c === '"') {
      node = { kind: 'string', value: string() };
    } else if (text.startsWith('true', i) || text.startsWith('false', i)) {
      node = { kind: 'boolean', value: text[i] === 't' };
      i += node.value ? 4 : 5;
    } else if (text.startsWith('null', i)) {
      node = { kind: 'null' };
      i += 4;
    } else {
      number.lastIndex = i;
      const m = number.exec(text);
      if (!m) fail('unexpected character');
      node = { kind: 'number', text: m[0] };
      i += m[0].length;
    }
    node.source = text.slice(start, i);
    return node;
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing text');
  return v;
}

// ---- comparing one value, walking DuckDB's type ----------------------------------------------

const INTEGERS = new Set([
  ...[T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT, T.HUGEINT, T.DECIMAL],
  ...[T.UTINYINT, T.USMALLINT, T.UINTEGER, T.UBIGINT],
]);
const TEXTS = new Set([
  ...[T.VARCHAR, T.BLOB, T.DATE, T.TIMESTAMP, T.TIMESTAMP_TZ],
  ...[T.TIMESTAMP_S, T.TIMESTAMP_MS, T.TIMESTAMP_NS],
]);

const shorten = (s) => (s.length > 200 ? `${s.slice(0, 200)}...(${s.length} chars)` : s);

/// Pushes onto `out` one message per difference between cdclake's `ours` and DuckDB's `theirs`.
function compareValue(ours, theirs, type, where, out) {
  const differ = (why) =>
    out.push(`${where}: ${why}: cdclake ${shorten(ours.source)} vs DuckDB ${shorten(theirs.source)}`);
  if (ours.kind === 'null' || theirs.kind === 'null') {
    if (ours.kind !== theirs.kind) differ('null on one side only');
    return;
  }
  const id = type.typeId;
  if (id === T.FLOAT || id === T.DOUBLE) {
    // Finite values are numbers, compared as the float or double they denote (the text may
    // differ in how many digits it spends); NaN and the infinities are strings.
    if (ours.kind === 'number' && theirs.kind === 'number') {
      let a = Number(ours.text);
      let b = Number(theirs.text);
      if (id === T.FLOAT) [a, b] = [Math.fround(a), Math.fround(b)];
      if (!Object.is(a, b)) differ(id === T.FLOAT ? 'float differs' : 'double differs');
    } else if (ours.kind !== 'string' || theirs.kind !== 'string' || ours.value !== theirs.value) {
      differ('floating point value differs');
    }
    return;
  }
  if (INTEGERS.has(id)) {
    // Exact: integers and decimals (every scale digit) have one text.
    if (ours.kind !== 'number' || theirs.kind !== 'number' || ours.text !== theirs.text) differ('number differs');
    return;
  }
  if (id === T.BOOLEAN) {
    if (ours.kind !== 'boolean' || theirs.kind !== 'boolean' || ours.value !== theirs.value) differ('boolean differs');
    return;
  }
  if (TEXTS.has(id)) {
    if (ours.kind !== 'string' || theirs.kind !== 'string' || ours.value !== theirs.value) differ('text differs');
    return;
  }
  if (id === T.LIST) {
    if (ours.kind !== 'array' || theirs.kind !== 'array') return differ('expected lists');
    if (ours.items.length !== theirs.items.length) return differ('list lengths differ');
    ours.items.forEach((item, k) => compareValue(item, theirs.items[k], type.valueType, `${where}[${k}]`, out));
    return;
  }
  if (id === T.STRUCT || id === T.MAP) {
    if (ours.kind !== 'object' || theirs.kind !== 'object') return differ('expected objects');
    if (ours.entries.length !== theirs.entries.length) return differ('member counts differ');
    ours.entries.forEach(([key, v], k) => {
      const [theirKey, theirValue] = theirs.entries[k];
      if (key !== theirKey) {
        out.push(`${where}: member ${k} is ${JSON.stringify(key)} in cdclake, ${JSON.stringify(theirKey)} in DuckDB`);
        return;
      }
      if (id === T.STRUCT) compareValue(v, theirValue, type.entryTypes[k], `${where}.${key}`, out);
      else compareValue(v, theirValue, type.valueType, `${where}{${JSON.stringify(key)}}`, out);
    });
    return;
  }
  if (ours.source !== theirs.source) differ(`values of DuckDB type ${type.toString()} differ`);
}

// ---- one file: cdclake's rows and schema against DuckDB's -----------------------------------

function cdclake(...args) {
  try {
    return execFileSync(cdclakeBin, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`cdclake ${args.join(' ')} failed (exit ${e.status}): ${String(e.stderr).trim()}`);
  }
}

/// cdclake's schema as "name type" lines (nullability dropped: DuckDB does not report it).
function cdclakeSchema(file) {
  return cdclake('schema', file)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replaceAll(' not null', ''));
}

const totals = { files: 0, rows: 0, values: 0 };

/// Compares cdclake's reading of `file` with DuckDB's; throws listing every difference found
/// (the first 30), each with the file, row, column and both values.
async function crosscheck(connection, file, expectedRows) {
  const schema = cdclakeSchema(file);
  const ours = cdclake('show', file, '--format', 'jsonl').split('\n');
  assert.equal(ours.pop(), '', 'cdclake output ends with a newline');
  const theirs = await duck.readCanonical(connection, file);
  const name = path.basename(file);
  assert.deepEqual(
    schema,
    theirs.columns.map((c) => `${c.name} ${c.typeName}`),
    `${name}: cdclake's schema differs from DuckDB's types`,
  );
  const counts = `cdclake shows ${ours.length} rows, DuckDB ${theirs.lines.length}`;
  assert.equal(ours.length, theirs.lines.length, `${name}: ${counts}`);
  if (expectedRows !== undefined) assert.equal(ours.length, expectedRows, `${name}: row count`);
  const problems = [];
  for (let r = 0; r < ours.length && problems.length < 30; ++r) {
    if (ours[r] === theirs.lines[r]) {
      totals.values += theirs.columns.length;
      continue;
    }
    const a = parseJsonLine(ours[r]);
    const b = parseJsonLine(theirs.lines[r]);
    if (a.entries.length !== theirs.columns.length) {
      const n = theirs.columns.length;
      problems.push(`${name} row ${r + 1}: cdclake printed ${a.entries.length} columns, DuckDB has ${n}`);
      continue;
    }
    theirs.columns.forEach((column, c) => {
      if (a.entries[c][0] !== column.name) {
        const ourName = a.entries[c][0];
        problems.push(`${name} row ${r + 1}: column ${c} is '${ourName}' in cdclake, '${column.name}' in DuckDB`);
        return;
      }
      const where = `${name} row ${r + 1} column ${column.name}`;
      compareValue(a.entries[c][1], b.entries[c][1], column.type, where, problems);
      totals.values += 1;
    });
  }
  if (problems.length > 0) {
    assert.fail(`${problems.length}${problems.length >= 30 ? '+' : ''} differences:\n  ${problems.join('\n  ')}`);
  }
  totals.files += 1;
  totals.rows += ours.length;
}

// ---- the tests ---------------------------------------------------------------------------------

/// Runs random_parquet; returns [{path, seed, rows, codec, line}] from its manifest.
function randomFiles(dir, count, seed, codecs) {
  fs.mkdirSync(dir, { recursive: true });
  const manifest = execFileSync(
    randomParquetBin,
    [dir, '--count', String(count), '--seed', String(seed), '--codecs', codecs.join(',')],
    { encoding: 'utf8' },
  );
  return manifest
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const fields = Object.fromEntries(line.split(' ').slice(1).map((kv) => kv.split('=')));
      return { path: line.split(' ')[0], seed: fields.seed, rows: Number(fields.rows), codec: fields.codec, line };
    });
}

// Every codec both cdclake and DuckDB 1.5 read; LZ4 with Hadoop framing is checked apart below.
const SHARED_CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw'];

describe('DuckDB cross-check', () => {
  let db;
  let work;
  before(async () => {
    db = await duck.openDuckDB();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdclake-duckdb-'));
  });
  after(() => {
    db?.close();
    if (work && process.env.CROSSCHECK_KEEP === '1') console.log(`files kept in ${work}`);
    else if (work) fs.rmSync(work, { recursive: true, force: true });
    console.log(`cross-checked ${totals.files} files, ${totals.rows} rows, ${totals.values} values`);
  });

  describe('DuckDB reads the files cdclake writes', () => {
    test(`${fileCount} random files (seeds ${firstSeed}..${firstSeed + fileCount - 1})`, async (t) => {
      const files = randomFiles(path.join(work, 'random'), fileCount, firstSeed, SHARED_CODECS);
      assert.equal(files.length, fileCount);
      for (const f of files) {
        await t.test(`seed ${f.seed}: ${f.codec}, ${f.rows} rows`, async () => {
          try {
            await crosscheck(db.connection, f.path, f.rows);
          } catch (e) {
            e.message = `${f.line}\n${e.message}`;
            throw e;
          }
        });
      }
    });

    test('LZ4 (Hadoop framing) files', async (t) => {
      const files = randomFiles(path.join(work, 'lz4'), 2, firstSeed + 100000, ['lz4']);
      for (const f of files) {
        // cdclake reads its own file either way.
        const rows = cdclake('show', f.path, '--format', 'jsonl').split('\n').length - 1;
        assert.equal(rows, f.rows, `${f.line}: cdclake reads back ${rows} rows`);
        try {
          await crosscheck(db.connection, f.path, f.rows);
        } catch (e) {
          if (!/Unsupported compression codec "LZ4"/.test(e.message)) throw e;
          // A DuckDB limitation, not a cdclake fault: DuckDB 1.5 has no reader for the deprecated
          // LZ4 codec (only LZ4_RAW), so these files are not compared.
          t.skip(
            'KNOWN LIMITATION: DuckDB does not read the deprecated LZ4 (Hadoop) codec; ' +
              'cdclake files written with it are unreadable in DuckDB',
          );
          return;
        }
      }
    });
  });

  describe('cdclake reads the files DuckDB writes', () => {
    for (const codec of duck.CODECS) {
      for (const v2 of [false, true]) {
        test(`${codec}, ${v2 ? 'V2 (data page v2, DELTA encodings)' : 'V1'}`, async () => {
          const file = path.join(work, `duckdb_${codec}_${v2 ? 'v2' : 'v1'}.parquet`);
          const args = [toolPath, 'write', file, '--codec', codec];
          if (v2) args.push('--v2');
          const info = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }));
          // The file holds what this case is meant to cover.
          assert.deepEqual(info.codecs, [codec === 'lz4' ? 'LZ4_RAW' : codec.toUpperCase()]);
          assert.ok(info.rowGroups >= 2, `expected several row groups, got ${info.rowGroups}`);
          assert.ok(info.encodings.some((e) => e.includes('DICTIONARY')), `no dictionary encoding: ${info.encodings}`);
          if (v2) {
            for (const e of ['DELTA_BINARY_PACKED', 'DELTA_LENGTH_BYTE_ARRAY', 'BYTE_STREAM_SPLIT']) {
              assert.ok(info.encodings.includes(e), `V2 file without ${e}: ${info.encodings}`);
            }
          }
          await crosscheck(db.connection, file, info.rows);
        });
      }
    }

    // UINTEGER is INT32 with the unsigned logical type; each row group starts at 4294967295.
    for (const v2 of [false, true]) {
      test(`unsigned integers, ${v2 ? 'V2' : 'V1'}`, async () => {
        const file = path.join(work, `duckdb_unsigned_${v2 ? 'v2' : 'v1'}.parquet`);
        const args = [toolPath, 'write', file, '--table', 'unsigned', '--codec', 'snappy'];
        if (v2) args.push('--v2');
        const info = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }));
        await crosscheck(db.connection, file, info.rows);
      });
    }

    test('the command line prints what the module returns', async () => {
      const file = path.join(work, 'cli.parquet');
      execFileSync(process.execPath, [toolPath, 'write', file, '--codec', 'zstd', '--rows', '300']);
      const printed = execFileSync(process.execPath, [toolPath, file, '--schema'], { encoding: 'utf8' });
      const { columns, lines } = await duck.readCanonical(db.connection, file);
      const expected = [...columns.map((c) => `${c.name} ${c.typeName}`), ...lines].join('\n') + '\n';
      assert.equal(printed, expected);
      assert.equal(lines.length, 300);
    });
  });
});
