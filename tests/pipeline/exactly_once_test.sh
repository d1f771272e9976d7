#!/usr/bin/env bash
# Exactly once, as operations go (issue 13's combined test): one pipeline (Debezium files into
# bronze, then SCD1 and SCD2) is run again and again while files arrive in interleaved Kafka
# Connect partition order, with its input folder spelled differently each time (relative, ./,
# absolute, a trailing slash, through a symlink, from another working directory), a file that
# grows with a record cut in half, a full refresh of bronze, a checkpoint followed by log cleanup,
# and SIGKILLs at random moments. Every table must equal one clean run's over the same files, and
# the silver tables must equal the model computed here from the events themselves.
# Usage: exactly_once_test.sh CDCLAKE_BIN
# CDCLAKE_EXACTLY_ONCE_FILES (default 40) files; CDCLAKE_EXACTLY_ONCE_SEED (default 5).
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
nfiles=${CDCLAKE_EXACTLY_ONCE_FILES:-40}
seed=${CDCLAKE_EXACTLY_ONCE_SEED:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=$seed
fail() { echo "FAIL: $*"; exit 1; }

# The test's pipeline (accounts_pipeline.sql with checkpoints every 3 commits, so that log
# cleanup has something to remove).
props="TBLPROPERTIES ('delta.checkpointInterval' = '3')"
except="_op, _seq, _source_ts_ms, _source_table, _source_file, _source_offset, _ingested_at"
cat > "$work/pipeline.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE bank.bronze_accounts $props
AS SELECT * FROM STREAM(read_files('\${input}/*.json', format => 'debezium'));
CREATE OR REFRESH STREAMING TABLE bank.accounts $props;
CREATE FLOW accounts_current AS AUTO CDC INTO bank.accounts FROM STREAM(bank.bronze_accounts)
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq COLUMNS * EXCEPT ($except)
STORED AS SCD TYPE 1;
CREATE OR REFRESH STREAMING TABLE bank.accounts_history $props;
CREATE FLOW accounts_history AS AUTO CDC INTO bank.accounts_history
FROM STREAM(bank.bronze_accounts)
KEYS (id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _seq COLUMNS * EXCEPT ($except)
STORED AS SCD TYPE 2;
SQL

# The events: generated files renamed as Kafka Connect's sinks name them
# (topic+partition+startOffset), so that the order they arrive in is not their names' order.
mkdir -p "$work/gen" "$work/all" "$work/ref/in" "$work/kill/in" "$work/kill/sub"
awk -v DIR="$work/gen" -v FILES="$nfiles" -v EVENTS=60 -v KEYS=40 -v SEED="$seed" \
  -f "$here/make_debezium_stream.awk"
names=()
i=0
for f in "$work"/gen/*.json; do
  name=$(printf 'accounts+%d+%010d.json' $((i % 3)) $((i * 1000)))
  mv "$f" "$work/all/$name"
  names+=("$name")
  i=$((i + 1))
done
cp "$work"/all/*.json "$work/ref/in/"
ln -s "$work/kill/in" "$work/kill/link"

# The uninterrupted clean run.
(cd "$work/ref" && "$bin" run "$work/pipeline.sql" --var input=in --warehouse lake \
  --batch-rows 50) > "$work/ref.log" 2>&1 || fail "the clean run failed: $(cat "$work/ref.log")"

# The run of step N: its input and warehouse spelled one of six ways.
spell() {
  case $(( $1 % 6 )) in
    0) echo "$work/kill|in|lake" ;;
    1) echo "$work/kill|./in|./lake" ;;
    2) echo "$work/kill|$work/kill/in|$work/kill/lake" ;;
    3) echo "$work/kill|in/|lake" ;;
    4) echo "$work/kill|link|lake" ;;
    5) echo "$work/kill/sub|../in|../lake" ;;
  esac
}
kills=0
attempt() {  # attempt STEP [EXTRA...]: one run, killed at a random moment half of the time
  local step=$1
  shift
  local dir input lake
  IFS='|' read -r dir input lake <<< "$(spell "$step")"
  (cd "$dir" && exec "$bin" run "$work/pipeline.sql" --var "input=$input" --warehouse "$lake" \
    --batch-rows 50 "$@") > "$work/step.log" 2>&1 &
  local pid=$!
  if (( RANDOM % 2 == 0 )); then
    local delay=$(( RANDOM % 150 ))
    sleep "$(printf '0.%03d' "$delay")"
    if kill -9 "$pid" 2> /dev/null; then
      kills=$((kills + 1))
      wait "$pid" 2> /dev/null || true
      return 0
    fi
  fi
  wait "$pid" || fail "step $step ($input from $dir) failed: $(cat "$work/step.log")"
}

# Log cleanup as Delta does it: commit files before the newest checkpoint go.
clean_logs() {
  local t cp removed=0
  for t in "$work"/kill/lake/bank/*/; do
    [ -f "$t/_delta_log/_last_checkpoint" ] || continue
    cp=$(sed 's/.*"version":\([0-9]*\).*/\1/' "$t/_delta_log/_last_checkpoint")
    for c in "$t"/_delta_log/[0-9]*.json; do
      local v=$((10#$(basename "$c" .json)))
      if (( v < cp )); then rm -f "$c"; removed=$((removed + 1)); fi
    done
  done
  echo "log cleanup removed $removed commit files"
  (( removed > 0 )) || fail "no checkpoint to clean the log up to"
}

grow=$(( nfiles / 3 ))        # this file arrives in two parts, cut inside a record
refresh=$(( nfiles * 3 / 5 ))  # bronze is refreshed in full after this file
cleanup=$(( nfiles * 4 / 5 ))  # the logs are cleaned up after this file
step=0
for ((f = 0; f < nfiles; f++)); do
  name=${names[$f]}
  if (( f == grow )); then
    size=$(stat -c %s "$work/all/$name")
    half=$(( size / 2 ))
    # The cut lands inside a line: the first part ends with half a JSON event.
    [ "$(head -c "$half" "$work/all/$name" | tail -c 1)" != $'\n' ] || half=$((half + 1))
    head -c "$half" "$work/all/$name" > "$work/kill/in/$name"
    step=$((step + 1)); attempt $step
    step=$((step + 1)); attempt $step
    tail -c +$((half + 1)) "$work/all/$name" >> "$work/kill/in/$name"
  else
    cp "$work/all/$name" "$work/kill/in/$name"
  fi
  step=$((step + 1)); attempt $step
  if (( f == refresh )); then
    step=$((step + 1))
    IFS='|' read -r dir input lake <<< "$(spell $step)"
    (cd "$dir" && "$bin" run "$work/pipeline.sql" --var "input=$input" --warehouse "$lake" \
      --batch-rows 50 --full-refresh bank.bronze_accounts) > "$work/step.log" 2>&1 ||
      fail "the full refresh failed: $(cat "$work/step.log")"
  fi
  if (( f == cleanup )); then
    # Every flow catches up first (a run nobody kills): Delta's log retention (30 days by
    # default) assumes readers keep up, and a reader whose next commit was cleaned away is
    # told to refresh in full. Then the commits before each newest checkpoint go.
    step=$((step + 1))
    (cd "$work/kill" && "$bin" run "$work/pipeline.sql" --var input=in --warehouse lake \
      --batch-rows 50) > "$work/step.log" 2>&1 || fail "the run before log cleanup failed: $(cat "$work/step.log")"
    clean_logs
  fi
done
# Two clean runs: the first finishes the work, the second must find nothing to do.
(cd "$work/kill" && "$bin" run "$work/pipeline.sql" --var input=in --warehouse lake \
  --batch-rows 50) > "$work/final.log" 2>&1 || fail "the final run failed: $(cat "$work/final.log")"
logs() { find "$work/kill/lake/bank" -path '*_delta_log/*.json' | wc -l; }
before=$(logs)
(cd "$work/kill/sub" && "$bin" run "$work/pipeline.sql" --var input=../in --warehouse ../lake \
  --batch-rows 50) > "$work/again.log" 2>&1 || fail "the last run failed: $(cat "$work/again.log")"
[ "$(logs)" = "$before" ] || fail "a run with nothing new wrote versions"
echo "steps: $step, kills: $kills"

status=0
show() {  # show LAKE TABLE COLUMNS ORDER: the table as CSV, file paths cut to their names
  "$bin" show "$1/bank/$2" --format csv --columns "$3" --order-by "$4" |
    sed -E 's#(^|,)[^,]*/(accounts\+[^,]*\.json)#\1\2#'
}
compare() {  # compare TABLE COLUMNS ORDER
  show "$work/ref/lake" "$1" "$2" "$3" > "$work/ref_$1.csv"
  show "$work/kill/lake" "$1" "$2" "$3" > "$work/kill_$1.csv"
  local rows=$(($(wc -l < "$work/ref_$1.csv") - 1))
  if cmp -s "$work/ref_$1.csv" "$work/kill_$1.csv"; then
    echo "$1: $rows rows, equal to the clean run"
  else
    echo "FAIL: $1 differs from the clean run:"
    diff "$work/ref_$1.csv" "$work/kill_$1.csv" | head -20
    status=1
  fi
  (( rows > 0 )) || { echo "FAIL: $1 is empty"; status=1; }
}
compare bronze_accounts "_source_file,_source_offset,id,name,amount,_op" \
  "_source_file,_source_offset"
compare accounts "id,name,amount" "id"
compare accounts_history "id,name,amount,__START_AT,__END_AT" "id,__START_AT"
compare bronze_accounts_quarantine "raw,source_file,source_offset" "source_file,source_offset"
quarantined=$(($(wc -l < "$work/kill_bronze_accounts_quarantine.csv") - 1))
[ "$quarantined" = 1 ] || { echo "FAIL: $quarantined quarantined records, not 1"; status=1; }

# The model: every distinct event (id, op, lsn, name, amount), from the files themselves.
cat "$work"/all/*.json | awk '
  match($0, /"lsn":[0-9]+/) && match($0, /"op":"[cud]"/) {
    op = substr($0, RSTART + 6, 1)
    match($0, /"lsn":[0-9]+/); lsn = substr($0, RSTART + 6, RLENGTH - 6) + 0
    if (op == "d") { match($0, /"before":\{"id":[0-9]+/); id = substr($0, RSTART + 15, RLENGTH - 15) }
    else {
      match($0, /"after":\{"id":[0-9]+/); id = substr($0, RSTART + 14, RLENGTH - 14)
      match($0, /"name":"[^"]*"/); name = substr($0, RSTART + 8, RLENGTH - 9)
      match($0, /"amount":[0-9]+/); amount = substr($0, RSTART + 9, RLENGTH - 9)
    }
    print id "," lsn "," op "," (op == "d" ? "" : name) "," (op == "d" ? "" : amount)
  }' | sort -t, -k1,1n -k2,2n -u > "$work/events.csv"
# SCD1: each key's last event, unless it is a delete.
awk -F, '{ last[$1] = $0 } END { for (k in last) { split(last[k], e, ","); if (e[3] != "d")
  print e[1] "," e[4] "," e[5] } }' "$work/events.csv" | sort -t, -k1,1n > "$work/model_scd1.csv"
tail -n +2 "$work/kill_accounts.csv" > "$work/got_scd1.csv"
if cmp -s "$work/model_scd1.csv" "$work/got_scd1.csv"; then
  echo "accounts: equal to the model ($(wc -l < "$work/model_scd1.csv") keys)"
else
  echo "FAIL: accounts differs from the model:"; diff "$work/model_scd1.csv" "$work/got_scd1.csv" | head
  status=1
fi
# SCD2: each upsert opens a version (every event's name differs) that the key's next event ends.
awk -F, '{ ev[$1, ++n[$1]] = $0 } END { for (k in n) for (i = 1; i <= n[k]; i++) {
    split(ev[k, i], e, ","); if (e[3] == "d") continue
    end = "open"; if (i < n[k]) { split(ev[k, i + 1], x, ","); end = x[2] }
    print e[1] "," e[4] "," e[5] "," e[2] "," end } }' "$work/events.csv" |
  sort -t, -k1,1n -k4,4n > "$work/model_scd2.csv"
"$bin" show "$work/kill/lake/bank/accounts_history" --format jsonl |
  awk '{ match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
         match($0, /"name":"[^"]*"/); name = substr($0, RSTART + 8, RLENGTH - 9)
         match($0, /"amount":[0-9]+/); amount = substr($0, RSTART + 9, RLENGTH - 9)
         match($0, /"__START_AT":\{[^}]*"lsn":[0-9]+/); s = substr($0, RSTART, RLENGTH)
         sub(/.*"lsn":/, "", s)
         e = "open"
         if (match($0, /"__END_AT":\{[^}]*"lsn":[0-9]+/)) { e = substr($0, RSTART, RLENGTH); sub(/.*"lsn":/, "", e) }
         print id "," name "," amount "," s "," e }' | sort -t, -k1,1n -k4,4n > "$work/got_scd2.csv"
if cmp -s "$work/model_scd2.csv" "$work/got_scd2.csv"; then
  echo "accounts_history: equal to the model ($(wc -l < "$work/model_scd2.csv") versions)"
else
  echo "FAIL: accounts_history differs from the model:"
  diff "$work/model_scd2.csv" "$work/got_scd2.csv" | head
  status=1
fi
(( kills > 0 )) || { echo "FAIL: no run was killed"; status=1; }
exit $status
