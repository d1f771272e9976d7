// The Delta side of the DuckDB table tests, written here independently of cdclake: log replay
// of a table's JSON commits, deletion vectors decoded from the log and their files (Z85, the
// portable RoaringBitmapArray), and DuckDB's rows of one live file as cdclake's JSON lines.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { duck } from './harness.mjs';

/** Runs `bin` with `args`; its stdout, or an error naming the command, exit code and stderr. */
export function run(bin, ...args) {
  try {
    return execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (exit ${e.status}): ${String(e.stderr).trim()}`);
  }
}

// ---- the log ------------------------------------------------------------------------------------

/** The deletion vector's unique id (PROTOCOL.md §Deletion Vector Descriptor Schema). */
export function dvId(dv) {
  if (!dv) return null;
  return dv.storageType + dv.pathOrInlineDv + (dv.offset !== undefined && dv.offset !== null ? `@${dv.offset}` : '');
}

/** The table's metadata and live adds at its latest version, from its JSON commits. */
export function replayLog(tableRoot) {
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

// ---- deletion vectors ---------------------------------------------------------------------------

const Z85_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const Z85_VALUE = new Map([...Z85_ALPHABET].map((c, i) => [c, i]));

/** Z85 text (a multiple of 5 characters) as bytes: each 5 characters are 4 big-endian bytes. */
export function z85Decode(text) {
  assert.equal(text.length % 5, 0, `Z85 text of ${text.length} characters`);
  const out = Buffer.alloc((text.length / 5) * 4);
  for (let i = 0; i < text.length; i += 5) {
    let value = 0;
    for (let j = 0; j < 5; ++j) {
      const digit = Z85_VALUE.get(text[i + j]);
      assert.ok(digit !== undefined, `not a Z85 character: ${text[i + j]}`);
      value = value * 85 + digit;
    }
    out.writeUInt32BE(value, (i / 5) * 4);
  }
  return out;
}

/** The positions one 32-bit portable Roaring bitmap at `buf[at]` holds, each plus `high`. */
function readRoaring32(buf, at, high, out) {
  const cookie = buf.readUInt32LE(at);
  let pos = at + 4;
  let count;
  let runFlags = null;
  if ((cookie & 0xffff) === 12347) {
    count = (cookie >>> 16) + 1;
    runFlags = buf.subarray(pos, pos + Math.ceil(count / 8));
    pos += runFlags.length;
  } else {
    assert.equal(cookie, 12346, `not a Roaring bitmap cookie: ${cookie}`);
    count = buf.readUInt32LE(pos);
    pos += 4;
  }
  const headers = [];
  for (let i = 0; i < count; ++i) {
    headers.push({ key: buf.readUInt16LE(pos), cardinality: buf.readUInt16LE(pos + 2) + 1 });
    pos += 4;
  }
  if (!runFlags || count >= 4) pos += 4 * count; // container offsets: not needed reading in order
  for (let i = 0; i < count; ++i) {
    const base = high + headers[i].key * 65536;
    const isRun = runFlags && (runFlags[i >> 3] >> (i & 7)) & 1;
    if (isRun) {
      const runs = buf.readUInt16LE(pos);
      pos += 2;
      for (let r = 0; r < runs; ++r) {
        const start = buf.readUInt16LE(pos);
        const length = buf.readUInt16LE(pos + 2);
        pos += 4;
        for (let v = start; v <= start + length; ++v) out.push(base + v);
      }
    } else if (headers[i].cardinality <= 4096) {
      for (let k = 0; k < headers[i].cardinality; ++k) out.push(base + buf.readUInt16LE(pos + 2 * k));
      pos += 2 * headers[i].cardinality;
    } else {
      for (let word = 0; word < 1024; ++word) {
        const lo = buf.readUInt32LE(pos + 8 * word);
        const hi = buf.readUInt32LE(pos + 8 * word + 4);
        for (let b = 0; b < 32; ++b) if ((lo >>> b) & 1) out.push(base + word * 64 + b);
        for (let b = 0; b < 32; ++b) if ((hi >>> b) & 1) out.push(base + word * 64 + 32 + b);
      }
      pos += 8192;
    }
  }
  return pos;
}

/** The row positions of a serialized deletion vector: magic 1681511377, then the portable
 *  RoaringBitmapArray (a 64-bit count of bitmaps; each a 32-bit high key and a Roaring bitmap). */
export function decodeDeletionVector(bytes) {
  assert.equal(bytes.readUInt32LE(0), 1681511377, 'deletion vector magic');
  const bitmaps = Number(bytes.readBigUInt64LE(4));
  let pos = 12;
  const out = [];
  for (let i = 0; i < bitmaps; ++i) {
    const high = bytes.readUInt32LE(pos);
    pos = readRoaring32(bytes, pos + 4, high * 2 ** 32, out);
  }
  return out;
}

/** The canonical text of the UUID whose Z85 form ends a "u" deletion vector's path. */
function uuidText(z85) {
  const hex = z85Decode(z85).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The sorted row positions deletion vector `dv` (of a file of `tableRoot`) marks deleted. */
export function deletedPositions(tableRoot, dv) {
  if (!dv) return [];
  let bytes;
  if (dv.storageType === 'i') {
    bytes = z85Decode(dv.pathOrInlineDv).subarray(0, dv.sizeInBytes);
  } else {
    let file;
    if (dv.storageType === 'u') {
      const prefix = dv.pathOrInlineDv.slice(0, -20);
      file = path.join(tableRoot, prefix, `deletion_vector_${uuidText(dv.pathOrInlineDv.slice(-20))}.bin`);
    } else {
      assert.equal(dv.storageType, 'p', `deletion vector storage type ${dv.storageType}`);
      file = decodeURIComponent(dv.pathOrInlineDv.replace(/^file:/, ''));
    }
    const content = fs.readFileSync(file);
    assert.equal(content[0], 1, `${file}: format version`);
    const offset = dv.offset ?? 1;
    const size = content.readUInt32BE(offset);
    assert.equal(size, dv.sizeInBytes, `${file}@${offset}: size`);
    bytes = content.subarray(offset + 4, offset + 4 + size);
  }
  const positions = decodeDeletionVector(bytes).sort((a, b) => a - b);
  assert.equal(positions.length, dv.cardinality, `${dvId(dv)}: cardinality`);
  return positions;
}

// ---- DuckDB -------------------------------------------------------------------------------------

/** Delta's primitive type names to DuckDB's. */
export function duckType(deltaType) {
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

/** DuckDB's rows of one live file: its Parquet rows, minus the `deleted` positions, with the
 *  partition columns from the log; columns in the table's order, as cdclake's JSON lines. */
export async function duckRows(connection, tableRoot, metadata, add, deleted) {
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

/** Compares two lists of JSON lines as multisets; the first differences in the message, each
 *  side named as in `names`. */
export function assertSameRows(ours, theirs, what, names = ['cdclake', 'DuckDB']) {
  const [x, y] = names.map((n) => n.padEnd(Math.max(names[0].length, names[1].length)));
  assert.equal(theirs.length, ours.length, `${what}: ${names[1]} ${theirs.length} rows, ${names[0]} ${ours.length}`);
  const a = [...ours].sort();
  const b = [...theirs].sort();
  const differences = [];
  for (let i = 0; i < a.length && differences.length < 20; ++i) {
    if (a[i] !== b[i]) differences.push(`${x} ${a[i]}\n    ${y} ${b[i]}`);
  }
  assert.equal(differences.length, 0, `${what}: rows differ:\n  ${differences.join('\n  ')}`);
}
