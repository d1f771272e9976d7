#!/usr/bin/env bash
# Exactly-once under SIGKILL: a real `cdclake run` is killed at random moments while change files
# keep arriving, rerun each time, and every table must end equal to an uninterrupted run's —
# bronze (no row twice, none missing), SCD1, SCD2 history, the quarantine (the bad line once) —
# and the gold tables that follow the SCD1 table's change data feed (issue 17) must match it:
# gold SCD1 equal to silver, gold SCD2 the history silver's feed describes, commit by commit,
# also after a full refresh of the SCD1 table, run to its end or killed and run again.
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

# The accounts pipeline, its SCD1 table recording its changes, and two gold flows reading them.
pipeline="$work/pipeline.sql"
sed "s/^CREATE OR REFRESH STREAMING TABLE bank.accounts;/CREATE OR REFRESH STREAMING TABLE \
bank.accounts TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true');/" \
  "$here/accounts_pipeline.sql" > "$pipeline"
grep -q enableChangeDataFeed "$pipeline" || { echo "FAIL: bank.accounts not found to edit"; exit 1; }
cat >> "$pipeline" <<'SQL'

CREATE OR REFRESH STREAMING TABLE bank.gold_accounts;
CREATE FLOW gold_current AS AUTO CDC INTO bank.gold_accounts
FROM STREAM(table_changes('bank.accounts', 0))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 1;

CREATE OR REFRESH STREAMING TABLE bank.gold_history;
CREATE FLOW gold_history AS AUTO CDC INTO bank.gold_history
FROM STREAM(table_changes('bank.accounts', 0))
KEYS (id) APPLY AS DELETE WHEN _change_type = 'delete' SEQUENCE BY _commit_version
COLUMNS * EXCEPT (_change_type, _commit_version, _commit_timestamp) STORED AS SCD TYPE 2;
SQL

run() {  # run DIR: the pipeline over DIR/in into DIR/lake
  (cd "$1" && exec "$bin" run "$pipeline" --var input=in --warehouse lake \
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
  (cd "$work/kill" && exec "$bin" run "$pipeline" --var input=in \
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
compare gold_accounts "id,name,amount" "id"

# A full refresh of the SCD1 table refreshes the gold tables that follow its changes. In the
# reference lake it runs to its end; in the other it is killed at random moments (before,
# between and after the tables are removed, while they are rebuilt), then a plain run follows.
# Gold must then be exact in both lakes (checked below).
table_id() { grep '"metaData"' "$1/_delta_log/00000000000000000000.json" | grep -o '"id":"[^"]*"'; }
id_before=$(table_id "$work/kill/lake/bank/accounts")
start=$(date +%s%N)
(cd "$work/ref" && exec "$bin" run "$pipeline" --var input=in --warehouse lake --batch-rows 150 \
  --full-refresh bank.accounts) > "$work/refresh.log" 2>&1 ||
  { echo "FAIL: the full refresh failed:"; cat "$work/refresh.log"; exit 1; }
refresh_ms=$(( ($(date +%s%N) - start) / 1000000 ))
for gold in gold_accounts:gold_current gold_history:gold_history; do
  grep -q "full refresh of bank.${gold%%:*} too: its flow ${gold#*:} reads the changes of bank.accounts" \
    "$work/refresh.log" || { echo "FAIL: bank.${gold%%:*} was not refreshed with bank.accounts:"; \
    cat "$work/refresh.log"; exit 1; }
done
refresh_kills=0
refresh_rounds=$(( rounds / 10 > 5 ? rounds / 10 : 5 ))
for ((round = 1; round <= refresh_rounds; round++)); do
  (cd "$work/kill" && exec "$bin" run "$pipeline" --var input=in --warehouse lake \
    --batch-rows 150 --full-refresh bank.accounts) > "$work/kill.log" 2>&1 &
  pid=$!
  delay=$(( RANDOM % (refresh_ms + 1) ))
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  if kill -9 "$pid" 2> /dev/null; then
    refresh_kills=$((refresh_kills + 1))
    wait "$pid" 2> /dev/null || true
  else
    wait "$pid" || { echo "FAIL: a full refresh failed:"; cat "$work/kill.log"; exit 1; }
  fi
done
run "$work/kill" > "$work/final.log" ||
  { echo "FAIL: the run after the killed refreshes failed:"; cat "$work/final.log"; exit 1; }
[ "$(table_id "$work/kill/lake/bank/accounts")" != "$id_before" ] ||
  echo "note: no killed refresh got as far as removing bank.accounts"
echo "full refresh of bank.accounts: ${refresh_ms} ms; killed $refresh_kills of $refresh_rounds"
# Refreshes killed at their steps (CDCLAKE_CRASH_AT, base/crash_point.h): bronze set aside and
# its quarantine (which holds the bad line) not yet; a gold table removed and silver, which it
# reads, not yet. The next plain run must leave every table as it should be: the bad line
# quarantined once, gold following silver.
for point in full-refresh-table-aside:bank.bronze_accounts full-refresh-table-removed:bank.accounts; do
  rc=0
  (cd "$work/kill" && CDCLAKE_CRASH_AT=${point%%:*} exec "$bin" run "$pipeline" --var input=in \
    --warehouse lake --batch-rows 150 --full-refresh "${point#*:}") > "$work/crash.log" 2>&1 ||
    rc=$?
  [ "$rc" -ne 0 ] || { echo "FAIL: the refresh did not stop at $point:"; cat "$work/crash.log"; exit 1; }
  run "$work/kill" > "$work/final.log" ||
    { echo "FAIL: the run after a refresh killed at $point failed:"; cat "$work/final.log"; exit 1; }
done
aside=$(find "$work/kill/lake" -name '.*.removing' | wc -l)
[ "$aside" = "0" ] || { echo "FAIL: $aside folders left aside by killed refreshes"; exit 1; }
compare bronze_accounts "id,name,amount,_op,_seq,_source_file,_source_offset" \
  "_source_file,_source_offset"
compare bronze_accounts_quarantine "raw,source_file,source_offset" "source_file,source_offset"
compare accounts "id,name,amount" "id"

# Gold within each lake: SCD1 equal to silver; SCD2 the versions silver's feed gives, each
# opened at the commit that inserted or updated the row and closed at the next change or delete
# (the two lakes' silver commits differ, as their batches do).
for lake in ref kill; do
  silver=$("$bin" show "$work/$lake/lake/bank/accounts" --format csv --columns id,name,amount --order-by id)
  gold=$("$bin" show "$work/$lake/lake/bank/gold_accounts" --format csv --columns id,name,amount \
    --order-by id)
  if [ "$silver" != "$gold" ]; then
    echo "FAIL: $lake: gold_accounts differs from accounts:"
    diff <(echo "$silver") <(echo "$gold") | head -20
    status=1
  fi
  "$bin" changes "$work/$lake/lake/bank/accounts" --from 0 --format jsonl > "$work/$lake.feed"
  "$bin" show "$work/$lake/lake/bank/gold_history" --format jsonl \
    --columns id,name,amount,__START_AT,__END_AT > "$work/$lake.history"
  if ! python3 - "$work/$lake.feed" "$work/$lake.history" <<'PY'
import json, sys
feed = [json.loads(line) for line in open(sys.argv[1])]
feed.sort(key=lambda r: r["_commit_version"])
expected, open_ = [], {}
for r in feed:
    key, v, kind = r["id"], r["_commit_version"], r["_change_type"]
    if kind == "update_preimage":
        continue
    if key in open_:
        row = open_.pop(key)
        row[4] = v
        expected.append(tuple(row))
    if kind in ("insert", "update_postimage"):
        open_[key] = [key, r["name"], r["amount"], v, None]
expected += [tuple(row) for row in open_.values()]
actual = []
for line in open(sys.argv[2]):
    r = json.loads(line)
    actual.append((r["id"], r["name"], r["amount"], r["__START_AT"], r["__END_AT"]))
order = lambda t: (t[0], t[3])
expected.sort(key=order)
actual.sort(key=order)
if expected != actual or not expected:
    missing = [t for t in expected if t not in actual][:5]
    extra = [t for t in actual if t not in expected][:5]
    print("expected %d versions, got %d; missing %s; unexpected %s" %
          (len(expected), len(actual), missing, extra))
    sys.exit(1)
print("%d versions of %d keys, as the feed's %d changes give" %
      (len(actual), len({t[0] for t in actual}), len(feed)))
PY
  then
    echo "FAIL: $lake: gold_history is not the history of accounts' change data feed"
    status=1
  fi
done
exit $status
