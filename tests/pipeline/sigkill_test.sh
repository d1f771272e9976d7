#!/usr/bin/env bash
# Exactly-once under SIGKILL: a real `cdclake run` is killed at random moments while change files
# keep arriving, rerun each time, and every table must end equal to an uninterrupted run's —
# bronze (no row twice, none missing), SCD1, SCD2 history, the quarantine (the bad line once).
# Usage: sigkill_test.sh CDCLAKE_BIN
# CDCLAKE_SIGKILL_ROUNDS (default 150) kills per run; CDCLAKE_SIGKILL_SEED (default 11).
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
rounds=${CDCLAKE_SIGKILL_ROUNDS:-150}
seed=${CDCLAKE_SIGKILL_SEED:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=$seed

# Each lake is run from its own folder with its input in `in/`, so the file names bronze
# records are the same in both.
mkdir -p "$work/all" "$work/ref/in" "$work/kill/in"
nfiles=$(( rounds > 12 ? rounds : 12 ))
awk -v DIR="$work/all" -v FILES="$nfiles" -v EVENTS=100 -v KEYS=80 -v SEED="$seed" \
  -f "$here/make_debezium_stream.awk"
files=("$work"/all/*.json)
cp "${files[@]}" "$work/ref/in/"

run() {  # run DIR: the pipeline over DIR/in into DIR/lake
  (cd "$1" && exec "$bin" run "$here/accounts_pipeline.sql" --var input=in --warehouse lake \
    --batch-rows 150)
}

# The uninterrupted run, timed to size the kill window.
start=$(date +%s%N)
run "$work/ref" > "$work/ref.log"
ref_ms=$(( ($(date +%s%N) - start) / 1000000 ))
# A run after a file arrives reads that file only: kills land within the last such run's time.
window=$(( ref_ms * 2 / nfiles + 40 ))
echo "uninterrupted run over $nfiles files: ${ref_ms} ms"

# Files arrive one by one while the runs are killed; each round may add the next file.
next=0
kills=0
completed=0
for ((round = 1; round <= rounds; round++)); do
  if (( next < ${#files[@]} )); then
    cp "${files[$next]}" "$work/kill/in/"
    next=$((next + 1))
  fi
  started=$(date +%s%N)
  # Not through run(): $! must be the process that becomes cdclake.
  (cd "$work/kill" && exec "$bin" run "$here/accounts_pipeline.sql" --var input=in \
    --warehouse lake --batch-rows 150) > "$work/kill.log" 2>&1 &
  pid=$!
  delay=$(( RANDOM % window ))
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  if kill -9 "$pid" 2> /dev/null; then
    kills=$((kills + 1))
    wait "$pid" 2> /dev/null || true
    # Widen the window until some runs finish, so kills spread over a whole run.
    window=$(( window + window / 8 + 1 ))
  else
    wait "$pid" || { echo "FAIL: an uninterrupted rerun failed:"; cat "$work/kill.log"; exit 1; }
    completed=$((completed + 1))
    window=$(( ($(date +%s%N) - started) / 1000000 * 8 / 10 + 1 ))
  fi
done
while (( next < ${#files[@]} )); do
  cp "${files[$next]}" "$work/kill/in/"
  next=$((next + 1))
done
# Two clean runs: the first finishes the work, the second must find nothing to do.
run "$work/kill" > "$work/final.log"
before=$(ls "$work/kill/lake/bank/accounts/_delta_log" | grep -c '\.json$')
run "$work/kill" > "$work/again.log"
after=$(ls "$work/kill/lake/bank/accounts/_delta_log" | grep -c '\.json$')
echo "kills: $kills, runs that finished before their kill: $completed"
(( kills >= rounds / 3 )) || { echo "FAIL: only $kills of $rounds runs were killed"; exit 1; }
[ "$before" = "$after" ] || { echo "FAIL: a rerun wrote versions ($before -> $after)"; exit 1; }

status=0
compare() {  # compare TABLE COLUMNS ORDER
  local table=$1 columns=$2 order=$3
  # Bronze's _source_file holds absolute paths: each run's own folder is left out.
  "$bin" show "$work/ref/lake/bank/$table" --format csv --columns "$columns" --order-by "$order" |
    sed "s|$work/ref/||g" > "$work/ref_$table.csv"
  "$bin" show "$work/kill/lake/bank/$table" --format csv --columns "$columns" --order-by "$order" |
    sed "s|$work/kill/||g" > "$work/kill_$table.csv"
  local rows
  rows=$(($(wc -l < "$work/ref_$table.csv") - 1))
  if cmp -s "$work/ref_$table.csv" "$work/kill_$table.csv"; then
    echo "$table: $rows rows, equal"
  else
    echo "FAIL: $table differs after $kills kills:"
    diff "$work/ref_$table.csv" "$work/kill_$table.csv" | head -20
    status=1
  fi
  (( rows > 0 )) || { echo "FAIL: $table is empty"; status=1; }
}
compare bronze_accounts "id,name,amount,_op,_seq,_source_file,_source_offset" \
  "_source_file,_source_offset"
compare accounts "id,name,amount" "id"
compare accounts_history "id,name,amount,__START_AT,__END_AT" "id,__START_AT"
compare bronze_accounts_quarantine "raw,source_file,source_offset" "source_file,source_offset"
exit $status
