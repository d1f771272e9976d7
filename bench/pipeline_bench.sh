#!/usr/bin/env bash
# `cdclake run` end to end (docs/pipeline-performance.md): Debezium files of a 12-column table
# through bronze into an SCD1 and an SCD2 table.
#   throughput: EVENTS events in FILES files, one `cdclake run --once` per --batch-rows setting
#     and repeat: wall time, events/s, peak RSS (/usr/bin/time -v), per-flow time (summed
#     duration_ms of the --log-format json batch lines), bytes written per table.
#   latency: `cdclake run --continuous --interval I` while a writer renames a file of PER_FILE
#     events into the landing folder every PERIOD ms for SECONDS seconds; per file, the commit
#     time (Delta log commitInfo.timestamp) of the first commit holding its last row, minus the
#     rename time: p50, p99, max per table.
# Usage: bench/pipeline_bench.sh [throughput|latency|all]   (default all)
# Environment (defaults in brackets):
#   CDCLAKE_PIPELINE_BENCH_EVENTS [1000000]  CDCLAKE_PIPELINE_BENCH_FILES [100]
#   CDCLAKE_PIPELINE_BENCH_KEYS [200000]     CDCLAKE_PIPELINE_BENCH_RUNS [3]
#   CDCLAKE_PIPELINE_BENCH_BATCH_ROWS ["default 1000000"]: --batch-rows values; "default" omits it
#   CDCLAKE_PIPELINE_BENCH_INTERVALS ["100ms 1s"]  CDCLAKE_PIPELINE_BENCH_SECONDS [60]
#   CDCLAKE_PIPELINE_BENCH_PERIOD_MS [100]   CDCLAKE_PIPELINE_BENCH_PER_FILE [1000]
#   CDCLAKE_PIPELINE_BENCH_LATENCY_RUNS [1]
#   CDCLAKE_PIPELINE_BENCH_BUILD [build]: the build folder holding cdclake
#   CDCLAKE_PIPELINE_BENCH_DIR [a temporary folder, removed at the end]: kept when given
#   CDCLAKE_PIPELINE_BENCH_PERF [0]: 1 records `perf record -g` of the first throughput run
#   CDCLAKE_PIPELINE_BENCH_PIPELINE [bench/pipeline_orders.sql]: bench/pipeline_orders_scd1.sql
#     leaves the SCD2 flow out
# Results: one JSON line per run on stdout, then markdown tables.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
events=${CDCLAKE_PIPELINE_BENCH_EVENTS:-1000000}
files=${CDCLAKE_PIPELINE_BENCH_FILES:-100}
keys=${CDCLAKE_PIPELINE_BENCH_KEYS:-200000}
runs=${CDCLAKE_PIPELINE_BENCH_RUNS:-3}
batch_rows=${CDCLAKE_PIPELINE_BENCH_BATCH_ROWS:-default 1000000}
intervals=${CDCLAKE_PIPELINE_BENCH_INTERVALS:-100ms 1s}
seconds=${CDCLAKE_PIPELINE_BENCH_SECONDS:-60}
period=${CDCLAKE_PIPELINE_BENCH_PERIOD_MS:-100}
per_file=${CDCLAKE_PIPELINE_BENCH_PER_FILE:-1000}
latency_runs=${CDCLAKE_PIPELINE_BENCH_LATENCY_RUNS:-1}
cdclake=${CDCLAKE_PIPELINE_BENCH_BUILD:-build}/cdclake
pipeline=${CDCLAKE_PIPELINE_BENCH_PIPELINE:-bench/pipeline_orders.sql}
name=$(basename "$pipeline" .sql)
if [ -n "${CDCLAKE_PIPELINE_BENCH_DIR:-}" ]; then
  dir=$CDCLAKE_PIPELINE_BENCH_DIR
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
results=$dir/results.jsonl
: > "$results"
[ -x "$cdclake" ] || { echo "no $cdclake: build it first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }

# Writes the Debezium files: make_events DIR FILES PER_FILE SEED; prints the generator's counts.
make_events() {
  mkdir -p "$1"
  mawk -v DIR="$1" -v FILES="$2" -v PER_FILE="$3" -v KEYS="$keys" -v SEED="$4" \
    -f bench/pipeline_make_events.awk
}

if [ "$what" = all ] || [ "$what" = throughput ]; then
  per=$(( (events + files - 1) / files ))
  read -r n creates updates deletes bytes < <(make_events "$dir/input" "$files" "$per" 1)
  echo "== throughput: $n events ($creates creates, $updates updates, $deletes deletes; $((bytes / 1000000)) MB) in $files files, $keys keys"
  first=1
  for rows in $batch_rows; do
    flag=()
    [ "$rows" = default ] || flag=(--batch-rows "$rows")
    for ((r = 1; r <= runs; r++)); do
      rm -rf "$dir/wh"
      sync
      prefix=()
      if [ "${CDCLAKE_PIPELINE_BENCH_PERF:-0}" = 1 ] && [ "$first" = 1 ]; then
        prefix=(perf record -g -o "$dir/perf.data" --)
      fi
      first=0
      /usr/bin/time -v -o "$dir/time.txt" "${prefix[@]}" "$cdclake" run "$pipeline" \
        --var input="$dir/input" --warehouse "$dir/wh" --once --log-format json "${flag[@]}" \
        > "$dir/run.jsonl"
      node bench/pipeline_summarize.mjs throughput --label "run $r" --pipeline "$name" --events "$n" \
        --batch-rows "$rows" --log "$dir/run.jsonl" --time "$dir/time.txt" --warehouse "$dir/wh" \
        | tee -a "$results"
    done
  done
  rm -rf "$dir/wh" "$dir/input"
fi

if [ "$what" = all ] || [ "$what" = latency ]; then
  count=$(( seconds * 1000 / period ))
  rate=$(( per_file * 1000 / period ))
  echo "== latency: $count files of $per_file events, one every $period ms ($rate events/s), continuous runs at --interval $intervals"
  make_events "$dir/staged" "$count" "$per_file" 2 > /dev/null
  for interval in $intervals; do
    for ((r = 1; r <= latency_runs; r++)); do
      rm -rf "$dir/wh" "$dir/landing"
      mkdir -p "$dir/landing"
      "$cdclake" run "$pipeline" --var input="$dir/landing" --warehouse "$dir/wh" --continuous \
        --interval "$interval" --log-format json > "$dir/continuous.jsonl" 2> "$dir/continuous.err" &
      runner=$!
      sleep 2  # the runner creates its tables and starts polling an empty folder
      node bench/pipeline_writer.mjs "$dir/staged" "$dir/landing" "$period" > "$dir/writer.tsv"
      # Let the last files land: an interval, plus a few passes' worth.
      sleep "$(node -e "const t='$interval';const ms=t.endsWith('ms')?parseFloat(t):t.endsWith('m')?parseFloat(t)*60000:parseFloat(t)*1000;console.log((ms/1000+3).toFixed(1))")"
      kill -TERM "$runner"
      wait "$runner" || { echo "cdclake run --continuous failed:" >&2; cat "$dir/continuous.err" >&2; exit 1; }
      node bench/pipeline_summarize.mjs latency --label "run $r" --pipeline "$name" --interval "$interval" \
        --writer "$dir/writer.tsv" --warehouse "$dir/wh" | tee -a "$results"
    done
  done
  rm -rf "$dir/wh" "$dir/landing" "$dir/staged"
fi

node bench/pipeline_summarize.mjs table "$results"
