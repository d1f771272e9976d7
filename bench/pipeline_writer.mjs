// Drops prepared Debezium files into a landing folder at a steady rate, as a connector's sink
// would, for the latency part of bench/pipeline_bench.sh. Each file is copied to a temporary
// name in the landing folder (not matching *.json) and then renamed into place, so a reader never
// sees half a file; names sort in arrival order. Prints one TSV line per file: name, the
// wall-clock millisecond the rename finished, and the byte offset of the file's last line (what a
// commit's position names as its last row).
//
//   node bench/pipeline_writer.mjs STAGED_DIR LANDING_DIR PERIOD_MS
import { copyFileSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

const [staged, landing, periodText] = process.argv.slice(2);
const period = Number(periodText);
if (!staged || !landing || !(period > 0)) {
  console.error('usage: node bench/pipeline_writer.mjs STAGED_DIR LANDING_DIR PERIOD_MS');
  process.exit(2);
}
const names = readdirSync(staged).filter((n) => n.endsWith('.json')).sort();

/** The offset where the last line of a file starts (files end with a newline). */
function lastLineOffset(path) {
  const bytes = readFileSync(path);
  let end = bytes.length - 1;
  while (end > 0 && bytes[end] === 0x0a) end--;
  return bytes.lastIndexOf(0x0a, end) + 1;
}
const offsets = names.map((n) => lastLineOffset(join(staged, n)));

let stop = false;
process.on('SIGTERM', () => {
  stop = true;
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const start = Date.now() + period;
for (let i = 0; i < names.length && !stop; i++) {
  await sleep(start + i * period - Date.now());
  const temp = join(landing, `.${names[i]}.tmp`);
  copyFileSync(join(staged, names[i]), temp);
  renameSync(temp, join(landing, names[i]));
  process.stdout.write(`${names[i]}\t${Date.now()}\t${offsets[i]}\n`);
}
